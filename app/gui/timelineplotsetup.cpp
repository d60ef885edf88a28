#include "gui/timelineplotsetup.h"

#include "gui/theme.h"
#include "gui/timelineplottable.h"
#include "gui/timeticker.h"
#include "models/session.h"

#include <QCoreApplication>
#include <QScrollBar>

namespace slicescope::gui {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("slicescope::gui::TimelineView", text);
}

} // namespace

TimelineContent timelineContent(const models::Session& session, const models::ViewState& state) {
    TimelineContent content;
    for (const auto& entry : session.runs()) {
        if (entry->visible) {
            content.runs.push_back(entry);
        }
    }
    content.alignment = state.alignment();
    content.selectedRun = state.selectedRun();
    content.selectedActivity = state.selectedActivity();
    return content;
}

TimelinePlottable* setUpTimelinePlot(QCustomPlot& plot,
                                     const QSharedPointer<QCPAxisTickerText>& laneTicker,
                                     int rightMarginPx) {
    plot.setAutoAddPlottableToLegend(false);
    plot.xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new TimeTicker(plot.xAxis)));
    plot.xAxis->grid()->setPen(QPen(QColor(0xdd, 0xdd, 0xdd), 1, Qt::DotLine));
    plot.xAxis->grid()->setZeroLinePen(QPen(QColor(0xbb, 0xbb, 0xbb), 1));
    plot.yAxis->setTicker(laneTicker);
    plot.yAxis->setRangeReversed(true);
    plot.yAxis->grid()->setVisible(false);
    plot.yAxis->setTickLength(0, 0);
    plot.yAxis->setSubTicks(false);
    plot.yAxis->setBasePen(QPen(QColor(0xaa, 0xaa, 0xaa)));
    plot.xAxis2->setVisible(false);
    plot.yAxis2->setVisible(false);
    plot.axisRect()->setBackground(QBrush(Qt::white));
    plot.axisRect()->setAutoMargins(QCP::msLeft | QCP::msTop | QCP::msBottom);
    plot.axisRect()->setMargins(QMargins(0, 0, rightMarginPx, 0));
    applyTimelineFonts(plot);
    auto* plottable = new TimelinePlottable(plot.xAxis, plot.yAxis);
    plottable->setEmptyText(tr("No runs yet.\nChoose a problem and strategies on the "
                               "left and press Run (F5),\nor open a trace (Ctrl+O)."));
    return plottable;
}

void applyTimelineFonts(QCustomPlot& plot) {
    plot.xAxis->setTickLabelFont(theme::plotFont(9));
    plot.xAxis->setLabelFont(theme::plotFont(9.5));
    plot.yAxis->setTickLabelFont(theme::plotFont(9));
}

// The timeline's axis title as it fits in room: whole, else without its parenthesis and notes
// ("time since each run's first copy, kernel or compute"), else only "time"; never cut mid-word.
QString fittingAxisTitle(const QString& title, const QFontMetricsF& metrics, double room) {
    QString text = title;
    for (const QString& end : {QStringLiteral(";"), QStringLiteral(" (")}) {
        if (metrics.horizontalAdvance(text) <= room) {
            return text;
        }
        if (const qsizetype at = text.indexOf(end); at > 0) {
            text = text.left(at);
        }
    }
    if (metrics.horizontalAdvance(text) <= room) {
        return text;
    }
    return metrics.elidedText(QStringLiteral("time"), Qt::ElideRight, room);
}

void labelTimelineAxes(QCustomPlot& plot, const TimelinePlottable& plottable,
                       QCPAxisTickerText& laneTicker, models::Alignment alignment) {
    QString label = alignment == models::Alignment::RunStart
                        ? tr("time since each run's first copy, kernel or compute (set-up and "
                             "checks washed out)")
                        : tr("time since the first measured run's first copy, kernel or compute");
    if (!plottable.alignmentNote().isEmpty()) {
        label += QStringLiteral("; ") + plottable.alignmentNote();
    }
    const bool empty = plottable.runs().empty();
    plot.xAxis->setLabel(empty ? QString() : label);
    plot.xAxis->setTickLabels(!empty);
    plot.xAxis->setTicks(!empty);
    QMap<double, QString> ticks;
    for (const auto& row : plottable.rows()) {
        const double mid = row.top + row.height / 2;
        const auto& run = *plottable.runs()[std::size_t(row.run)];
        // Rows go down the plot in order: each tick goes at the end (a hint, so 100,000 runs'
        // ticks are not each searched for).
        if (row.type == TimelinePlottable::Row::Type::Lane) {
            ticks.insert(ticks.cend(), mid,
                         models::toQString(run.lanes->lanes[std::size_t(row.lane)].label));
        } else if (row.type == TimelinePlottable::Row::Type::Overview) {
            ticks.insert(ticks.cend(), mid, run.id);
        }
    }
    laneTicker.setTicks(ticks);
}

QCPRange fittedTimeRange(const TimelinePlottable& plottable) {
    const QCPRange full = plottable.fullKeyRange();
    const double margin = full.size() * 0.02;
    return QCPRange(full.lower - margin, full.upper + margin);
}

int timelineScrollBarWidth() {
    const QScrollBar bar(Qt::Vertical);
    return bar.sizeHint().width();
}

OffscreenTimeline::OffscreenTimeline(const TimelineContent& content)
    : laneTicker_(new QCPAxisTickerText), alignment_(content.alignment) {
    plottable_ = setUpTimelinePlot(plot_, laneTicker_, timelineScrollBarWidth() + 4);
    plottable_->setRuns(content.runs, content.alignment);
    for (const models::LaneGroup group : content.pinnedGroups) {
        plottable_->setPinned(group, true);
    }
    for (const auto& [run, lane] : content.shownLanes) {
        plottable_->showLane(run, lane);
    }
    for (const QString& id : content.expandedRuns) {
        plottable_->setExpanded(id, true);
    }
    plottable_->setSelectedRun(plottable_->runIndex(content.selectedRun));
    const int run = plottable_->runIndex(content.selectedActivity.runId);
    plottable_->setSelectedActivity(run, run >= 0 ? content.selectedActivity.index : -1);
    plot_.xAxis->setRange(content.timeRange.value_or(fittedTimeRange(*plottable_)));
    labelTimelineAxes(plot_, *plottable_, *laneTicker_, alignment_);
}

void OffscreenTimeline::setAllRunsExpanded(bool expanded) {
    plottable_->setAllExpanded(expanded);
    labelTimelineAxes(plot_, *plottable_, *laneTicker_, alignment_);
}

} // namespace slicescope::gui
