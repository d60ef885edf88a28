#include "gui/reportpart.h"

#include "gui/breakdownchart.h"
#include "gui/occupancychart.h"
#include "gui/qcp.h"
#include "gui/reportstyle.h"
#include "gui/reportsweeps.h"
#include "gui/rowschart.h"
#include "gui/theme.h"
#include "gui/timelineplotsetup.h"
#include "gui/timelineplottable.h"
#include "models/occupancyfacts.h"
#include "models/session.h"
#include "models/timelinelanes.h"

#include <QFontMetricsF>
#include <QSet>
#include <algorithm>
#include <limits>
#include <optional>
#include <set>
#include <vector>

namespace slicescope::gui {

using namespace reportstyle;

double ReportPart::compactHeight(double width, QPaintDevice* device) const {
    return preferredHeight(width, device);
}

double ReportPart::maximumHeight(double, QPaintDevice*) const {
    return std::numeric_limits<double>::infinity();
}

QString shownRun(const ReportContext& context) {
    const auto entry = context.session.find(context.inputs.selectedRun);
    return entry && entry->visible ? context.inputs.selectedRun : QString();
}

namespace {

// Timeline rows in an export: never smaller than this (9 pt text and its sub-rows stay apart)...
constexpr double kMinTimelineUnitPx = 22;
// ... nor taller than this (a few runs do not blow up into huge bars).
constexpr double kMaxTimelineUnitPx = 46;

// Whether the export's timeline opens every run into its lanes: the detail view does, and so does
// an overview of one run (there is room, and a slide of one run is about its copies and kernels).
bool opensLanes(const TimelineContent& content, bool overview) {
    return !overview || content.runs.size() == 1;
}

// The height of the timeline's x axis under the rows: tick labels and the axis title.
double timelineAxisPx(const QFontMetricsF& fm) {
    return 2 * fm.height() + 24;
}

// The rows of the timeline that fit in plotPx at the smallest row height: whole runs where one
// fits, else the first run's lanes that fit. Returns the lane axis's upper end (0: none fits) and
// sets shownRuns.
double fittingRows(const TimelinePlottable& plottable, double plotPx, int* shownRuns) {
    const auto& rows = plottable.rows();
    const int allRuns = int(plottable.runs().size());
    const double fit = plotPx / kMinTimelineUnitPx;
    std::vector<double> runEnd(std::size_t(allRuns), 0.0);
    for (const auto& row : rows) {
        runEnd[std::size_t(row.run)] = std::max(runEnd[std::size_t(row.run)], row.top + row.height);
    }
    double upper = 0;
    *shownRuns = 0;
    for (int r = 0; r < allRuns && runEnd[std::size_t(r)] <= fit + 1e-9; ++r) {
        upper = runEnd[std::size_t(r)];
        *shownRuns = r + 1;
    }
    if (*shownRuns == 0) {
        for (const auto& row : rows) {
            if (row.top + row.height > fit + 1e-9) {
                break;
            }
            if (row.type == TimelinePlottable::Row::Type::Lane) {
                upper = row.top + row.height;
                *shownRuns = 1;
            }
        }
    }
    return upper;
}

// The timeline, overview (one row per run) or detail (every run expanded to its lanes), drawn on
// a plot of its own from the timeline's content: the window's timeline is never touched.
class TimelinePart final : public ReportPart {
  public:
    TimelinePart(const TimelineContent& content, bool overview)
        : content_(content), overview_(overview) {}

    Placement placement() const override { return Placement::Main; }
    // The height the runs need at the smallest row height, axis included.
    double preferredHeight(double width, QPaintDevice* device) const override {
        const double lineH = QFontMetricsF(textFont(), device).height();
        return std::min(rowUnits() * kMinTimelineUnitPx, width * 0.75) + 3 * lineH + 26;
    }
    // The runs at the largest row height and the axis under them: paint leaves the rest empty.
    double maximumHeight(double, QPaintDevice* device) const override {
        return rowUnits() * kMaxTimelineUnitPx + timelineAxisPx(QFontMetricsF(textFont(), device));
    }
    void paint(QCPPainter& painter, const QRectF& rect) const override;

  private:
    // The rows' height in row units, the runs open as paint opens them.
    double rowUnits() const {
        OffscreenTimeline timeline(content_);
        timeline.setAllRunsExpanded(opensLanes(content_, overview_));
        return std::max(1.0, timeline.plottable().contentHeight());
    }

    const TimelineContent& content_;
    bool overview_;
};

void TimelinePart::paint(QCPPainter& painter, const QRectF& rect) const {
    OffscreenTimeline timeline(content_);
    timeline.setAllRunsExpanded(opensLanes(content_, overview_));
    const TimelinePlottable& plottable = timeline.plottable();
    const QFontMetricsF fm(textFont(), painter.device());
    const double content = std::max(1.0, plottable.contentHeight());
    const double axisPx = timelineAxisPx(fm);
    double plotPx = rect.height() - axisPx;
    double upper = content;
    const int allRuns = int(plottable.runs().size());
    int shownRuns = allRuns;
    if (content * kMinTimelineUnitPx > plotPx) {
        // What fits at the smallest row height; a line says what is left out.
        plotPx -= fm.height() + 2;
        upper = fittingRows(plottable, plotPx, &shownRuns);
    } else {
        // A few runs: rows at their largest height and the axis right under them, not a tall
        // empty frame.
        plotPx = std::min(plotPx, content * kMaxTimelineUnitPx);
        upper = content;
    }
    // Fewer runs than the session's: the time axis spans the runs drawn, not the ones left out.
    std::optional<OffscreenTimeline> shownOnly;
    if (shownRuns < allRuns && shownRuns > 0 && !content_.timeRange) {
        TimelineContent shown = content_;
        shown.runs.resize(std::size_t(shownRuns));
        shownOnly.emplace(shown);
        shownOnly->setAllRunsExpanded(opensLanes(content_, overview_));
    }
    QCustomPlot& plot = shownOnly ? shownOnly->plot() : timeline.plot();
    painter.setFont(textFont());
    painter.setPen(QColor(0x55, 0x55, 0x55));
    if (upper <= 0) {
        painter.drawText(
            QRectF(rect.left(), rect.top(), rect.width(), fm.height()), Qt::AlignLeft,
            fm.elidedText(QStringLiteral("Timeline: too little room; export a larger size"),
                          Qt::ElideRight, rect.width()));
        return;
    }
    plot.yAxis->setRange(0, upper);
    plot.xAxis->setTickLabelFont(textFont());
    plot.xAxis->setLabelFont(textFont());
    plot.yAxis->setTickLabelFont(textFont());
    // As many time ticks as labels like "100.5 ms" fit side by side with room between them: the
    // window's tick count is for the window's width and font, not the page's.
    const auto ticker = plot.xAxis->ticker();
    const double labelPx = fm.horizontalAdvance(QStringLiteral("000.000 ms")) * 1.6;
    ticker->setTickCount(std::clamp(int(rect.width() / labelPx), 2, ticker->tickCount()));
    // The axis title is the window's; on a narrow page it is elided rather than cut by the edge.
    // It is centred under the plot, which starts right of the lane names.
    const QFontMetricsF pageMetrics(textFont());
    double namesPx = 0;
    for (const auto& entry : plottable.runs()) {
        namesPx = std::max(namesPx, pageMetrics.horizontalAdvance(entry->id));
    }
    plot.xAxis->setLabel(fittingAxisTitle(plot.xAxis->label(), pageMetrics,
                                          std::max(10.0, rect.width() - namesPx - 48)));
    painter.save();
    painter.translate(rect.topLeft());
    plot.toPainter(&painter, int(rect.width()), int(plotPx + axisPx));
    painter.restore();
    if (shownRuns < allRuns) {
        painter.setFont(textFont());
        painter.setPen(QColor(0x55, 0x55, 0x55));
        const auto& runs = plottable.runs();
        const QString which =
            shownRuns == 1 ? runs.front()->id
                           : QStringLiteral("%1 to %2")
                                 .arg(runs.front()->id, runs[std::size_t(shownRuns - 1)]->id);
        // Whole words: which runs, then how to get the others (hd and 4k are this layout
        // scaled, so a larger preset shows no more runs); the run range is left out first
        // where the line has no room for it.
        const QString advice =
            QStringLiteral("; pick the runs to export in the Export dialog or with --runs");
        QString more = QStringLiteral("Timeline: the first %1 of %2 runs (%3)")
                           .arg(shownRuns)
                           .arg(allRuns)
                           .arg(which) +
                       advice;
        if (fm.horizontalAdvance(more) > rect.width()) {
            more = QStringLiteral("Timeline: the first %1 of %2 runs").arg(shownRuns).arg(allRuns) +
                   advice;
        }
        painter.drawText(
            QRectF(rect.left(), rect.top() + plotPx + axisPx + 2, rect.width(), fm.height()),
            Qt::AlignLeft | Qt::AlignVCenter, fm.elidedText(more, Qt::ElideRight, rect.width()));
    }
}

struct LegendEntry {
    QColor color;
    bool hatched = false;
    QString text;
};

// The colours of the lanes the export's timeline draws: an expanded run's lanes, an overview row's
// work lanes (API calls, syncs, memsets and the profiler's lanes stay closed unless pinned or
// opened); hatching when a drawn run is modelled or projected.
QVector<LegendEntry> laneLegend(const TimelineContent& content, bool overview) {
    OffscreenTimeline timeline(content);
    timeline.setAllRunsExpanded(opensLanes(content, overview));
    const TimelinePlottable& plottable = timeline.plottable();
    std::set<models::LaneKind> kinds;
    bool layoutPasses = false; // a host lane or overview row draws a run's layout passes
    QStringList predicted;     // "modelled", "projected"
    for (const auto& row : plottable.rows()) {
        const models::RunEntry& run = *plottable.runs()[std::size_t(row.run)];
        if (run.isPredicted() && !predicted.contains(run.predictedWord())) {
            predicted << run.predictedWord();
        }
        if (row.type == TimelinePlottable::Row::Type::Lane) {
            const auto& lane = run.lanes->lanes[std::size_t(row.lane)];
            kinds.insert(lane.kind);
            layoutPasses = layoutPasses || (lane.kind == models::LaneKind::Host && lane.key == 0 &&
                                            run.summary.hostLayoutNs > 0);
        } else if (row.type == TimelinePlottable::Row::Type::Overview) {
            // An overview row draws the host's set-up and checks muted: the host's colour only
            // where the run has host compute of its own, the layout colour where it has layout
            // passes.
            if (run.lanes->hostCompute.eventCount > 0) {
                if (run.summary.hostComputeNs > 0) {
                    kinds.insert(models::LaneKind::Host);
                }
                layoutPasses = layoutPasses || run.summary.hostLayoutNs > 0;
            }
            for (const auto& lane : run.lanes->lanes) {
                if (models::laneGroupOf(lane) == models::LaneGroup::Work &&
                    lane.kind != models::LaneKind::Host) {
                    kinds.insert(lane.kind);
                }
            }
        }
    }
    QVector<LegendEntry> out;
    for (auto kind : kinds) {
        out << LegendEntry{theme::laneColor(kind), false,
                           models::toQString(models::laneKindName(kind)) + QStringLiteral(": ") +
                               theme::laneDescription(kind)};
    }
    if (layoutPasses) {
        out << LegendEntry{theme::hostLayoutColor(), false, theme::kHostLayoutLegend};
    }
    if (!predicted.isEmpty()) {
        out << LegendEntry{theme::laneColor(models::LaneKind::Kernel), true,
                           QStringLiteral("hatched: ") + predicted.join(QStringLiteral(" or ")) +
                               QStringLiteral(", not measured")};
    }
    return out;
}

// Lays the legend out in lines across the area; returns the height, and paints when painter is
// set: the lines that fit in the area's height (the renderer gives it the height this returns).
// The lines break at the same entries wherever the area lies.
double legendLayout(QPainter* painter, const QVector<LegendEntry>& entries, const QRectF& area,
                    QPaintDevice* device) {
    if (entries.isEmpty()) {
        return 0;
    }
    const QFontMetricsF fm(textFont(), device);
    const double lineH = fm.height();
    const double swatch = lineH * 0.9;
    double x = 0;
    double y = 0;
    if (painter) {
        painter->setFont(textFont());
    }
    for (const auto& entry : entries) {
        const QString text =
            fm.elidedText(entry.text, Qt::ElideRight, std::max(10.0, area.width() - swatch - 4));
        const double w = swatch + 4 + fm.horizontalAdvance(text) + 1;
        if (x > 0 && x + w > area.width()) {
            x = 0;
            y += lineH + 2;
        }
        if (painter && y == 0 && lineH > area.height() + 0.5) {
            // Not even one line's room: the colours alone, as tall as the room allows.
            const QPointF at = area.topLeft() + QPointF(x, 0);
            fillHatched(*painter,
                        QRectF(at.x(), at.y(), swatch, std::min(area.height(), lineH * 0.7)),
                        entry.color, entry.hatched);
        } else if (painter && y + lineH <= area.height() + 0.5) {
            const QPointF at = area.topLeft() + QPointF(x, y);
            fillHatched(*painter, QRectF(at.x(), at.y() + lineH * 0.15, swatch, lineH * 0.7),
                        entry.color, entry.hatched);
            painter->setPen(QColor(0x33, 0x33, 0x33));
            painter->drawText(QRectF(at.x() + swatch + 4, at.y(), w - swatch - 4, lineH),
                              Qt::AlignLeft | Qt::AlignVCenter, text);
        }
        x += w + 16;
    }
    return y + lineH;
}

// The timeline's colours, at the foot of the page.
class LegendPart final : public ReportPart {
  public:
    explicit LegendPart(QVector<LegendEntry> entries) : entries_(std::move(entries)) {}

    Placement placement() const override { return Placement::Footer; }
    double preferredHeight(double width, QPaintDevice* device) const override {
        return legendLayout(nullptr, entries_, QRectF(0, 0, width, 1), device);
    }
    void paint(QCPPainter& painter, const QRectF& rect) const override {
        legendLayout(&painter, entries_, rect, painter.device());
    }

  private:
    QVector<LegendEntry> entries_;
};

// The selected run's launch in words: its title, its launch occupancy (the headline), for a
// numba kernel how numba chose its grid (the lesson such a launch teaches, so it goes before the
// details), its launch (or problem) and what limits it. What does not fit is left out from the
// end.
QStringList factTexts(const models::OccupancyFacts& facts) {
    QStringList texts = {facts.title, facts.launchOccupancyWords, facts.launchChoiceWords,
                         facts.hasLaunch ? facts.launchWords : facts.problem, facts.limiterWords};
    texts.removeAll(QString());
    return texts;
}

// Paragraphs under a chart, in blocks: the first paragraph of each is its title.
using WordBlocks = QVector<QStringList>;

// Lays paragraphs out one under another in rect, wrapped at its width, each block's first in
// bold (a title); returns the height they take, and paints those that fit when painter is set:
// what does not fit is left out rather than cut.
double wordsLayout(QPainter* painter, const QRectF& rect, const WordBlocks& blocks,
                   QPaintDevice* device) {
    QStringList texts;
    QSet<int> titles;
    for (const QStringList& block : blocks) {
        if (!block.isEmpty()) {
            titles.insert(int(texts.size()));
            texts << block;
        }
    }
    double y = rect.top();
    for (int i = 0; i < texts.size(); ++i) {
        const QFont font = titles.contains(i) ? theme::plotFont(10, true) : textFont();
        const QRectF need = QFontMetricsF(font, device)
                                .boundingRect(QRectF(rect.left(), y, rect.width(), 1e6),
                                              Qt::TextWordWrap, texts[i]);
        if (painter) {
            if (y + need.height() > rect.bottom()) {
                break;
            }
            painter->setPen(QColor(0x22, 0x22, 0x22));
            painter->setFont(font);
            painter->drawText(QRectF(rect.left(), y, rect.width(), need.height()), Qt::TextWordWrap,
                              texts[i]);
        }
        y += need.height() + 4;
    }
    return texts.isEmpty() ? 0 : y - rect.top();
}

// A chart of rows (RowsChartPainter), and under it, when given, paragraphs about a run: its
// launch in words, its verdict. Words asked for keep at least 30 % of the part's height; words
// offered (an export of one run) take only what the chart leaves at its full height.
class ChartPart final : public ReportPart {
  public:
    explicit ChartPart(RowsChart chart, WordBlocks words = {}, bool wordsAsked = false)
        : chart_(std::move(chart)), words_(std::move(words)), wordsShare_(wordsAsked ? 0.3 : 0) {}

    Placement placement() const override { return Placement::Side; }
    double preferredHeight(double width, QPaintDevice* device) const override {
        return RowsChartPainter::preferredHeight(chart_, width, device) +
               wordsHeight(width, device);
    }
    double compactHeight(double width, QPaintDevice* device) const override {
        return RowsChartPainter::compactHeight(chart_, width, device) +
               (wordsShare_ > 0 ? wordsHeight(width, device) : 0);
    }
    // The chart as tall as it prefers where there is room, the words right under it.
    void paint(QCPPainter& painter, const QRectF& rect) const override {
        QPaintDevice* device = painter.device();
        const double chartH = RowsChartPainter::preferredHeight(chart_, rect.width(), device);
        const double wordsH =
            std::min(wordsHeight(rect.width(), device),
                     std::max(rect.height() * wordsShare_, rect.height() - chartH));
        QRectF chartRect = rect;
        chartRect.setHeight(std::min(rect.height() - wordsH, chartH));
        RowsChartPainter::paint(painter, chartRect, chart_);
        if (wordsH > 6) {
            wordsLayout(&painter,
                        QRectF(rect.left(), chartRect.bottom() + 6, rect.width(), wordsH - 6),
                        words_, device);
        }
    }

  private:
    double wordsHeight(double width, QPaintDevice* device) const {
        return words_.isEmpty()
                   ? 0
                   : 6 + wordsLayout(nullptr, QRectF(0, 0, width, 1e6), words_, device);
    }

    RowsChart chart_;
    WordBlocks words_;
    double wordsShare_;
};

// The run an export of one run is about; null when it draws several.
models::ConstRunEntryPtr onlyRun(const ReportContext& context) {
    const auto& runs = context.inputs.timeline.runs;
    return runs.size() == 1 ? runs.front() : nullptr;
}

// An export of two or three runs: room under the charts for each run's verdict and a launch in
// words, which a slide of more runs has not.
bool fewRuns(const ReportContext& context) {
    const auto n = context.inputs.timeline.runs.size();
    return n == 2 || n == 3;
}

// The selected run's occupancy facts for its chosen kernel (the first when none is chosen); in
// an export of one run, that run's; in one of a few runs with none selected or the one selected
// not drawn, the first GPU run's.
models::OccupancyFacts selectedFacts(const ReportContext& context) {
    models::ConstRunEntryPtr entry = context.session.find(shownRun(context));
    if (const auto only = onlyRun(context); only && (!entry || entry->id != only->id)) {
        entry = only;
    }
    if (!entry && fewRuns(context)) {
        for (const auto& run : context.inputs.timeline.runs) {
            if (run->summary.hasDeviceWork()) {
                entry = run;
                break;
            }
        }
    }
    if (!entry) {
        return {};
    }
    if (entry->kernels.isEmpty()) {
        return models::computeOccupancyFacts(*entry);
    }
    const int chosen = entry->id == context.inputs.selectedRun ? context.inputs.kernel : 0;
    const int kernel = std::clamp(chosen, 0, int(entry->kernels.size()) - 1);
    return models::computeOccupancyFacts(*entry, entry->kernels[kernel]);
}

// The sweep charts and rooflines (gui/reportsweeps.h): each panel's plot drawn once, when the
// part is made.
class SweepsPart final : public ReportPart {
  public:
    explicit SweepsPart(std::shared_ptr<const SweepExport> sweeps) : sweeps_(std::move(sweeps)) {}

    Placement placement() const override { return Placement::Bottom; }
    double preferredHeight(double width, QPaintDevice* device) const override {
        return sweepExportHeight(*sweeps_, width, device);
    }
    // Only lines saying what is not there: their height.
    double maximumHeight(double width, QPaintDevice* device) const override {
        return sweeps_->panels.isEmpty() ? linesHeight(sweeps_->missing, width, device)
                                         : ReportPart::maximumHeight(width, device);
    }
    void paint(QCPPainter& painter, const QRectF& rect) const override {
        paintSweepExport(&painter, rect, *sweeps_);
    }

  private:
    std::shared_ptr<const SweepExport> sweeps_;
};

template <typename Part, typename... Args> ReportParts partsOf(Args&&... args) {
    ReportParts parts;
    parts.push_back(std::make_unique<Part>(std::forward<Args>(args)...));
    return parts;
}

} // namespace

ReportParts timelineParts(const ReportContext& context) {
    const ReportViews& v = context.options.views;
    if (!v.timeline()) {
        return {};
    }
    ReportParts parts = partsOf<TimelinePart>(context.inputs.timeline, v.overview);
    parts.push_back(std::make_unique<LegendPart>(laneLegend(context.inputs.timeline, v.overview)));
    return parts;
}

// An export of one run whose occupancy chart has a row per kernel (a recorded or imported
// program): the chart fills its column, so the run's launch in words goes under its verdict, in
// the breakdown's column, which has the room.
bool launchWordsBesideTheVerdict(const ReportContext& context) {
    const auto only = onlyRun(context);
    return only && context.options.views.occupancy && context.options.views.breakdown &&
           !context.options.views.selectedRun && only->kernels.size() > 1;
}

ReportParts breakdownParts(const ReportContext& context) {
    if (!context.options.views.breakdown) {
        return {};
    }
    // An export of one run says its verdict under the chart of where its time goes; one of two
    // or three runs says each run's, where the chart leaves room.
    QStringList verdict;
    if (const auto only = onlyRun(context); only && !only->verdict.isEmpty()) {
        verdict = QStringList{QStringLiteral("Verdict on %1").arg(only->id), only->verdict};
    } else if (fewRuns(context)) {
        for (const auto& run : context.inputs.timeline.runs) {
            if (!run->verdict.isEmpty()) {
                verdict << run->id + QStringLiteral(": ") + run->verdict;
            }
        }
        if (!verdict.isEmpty()) {
            verdict.prepend(QStringLiteral("Verdicts"));
        }
    }
    WordBlocks words{verdict};
    if (launchWordsBesideTheVerdict(context)) {
        words << factTexts(selectedFacts(context));
    }
    return partsOf<ChartPart>(
        BreakdownChart::chartFor(context.session, shownRun(context), context.options.breakdownLog),
        std::move(words));
}

ReportParts occupancyParts(const ReportContext& context) {
    if (!context.options.views.occupancy) {
        return {};
    }
    // The selected run's launch in words when asked for, and always in an export of one run.
    WordBlocks words;
    if ((context.options.views.selectedRun || onlyRun(context) || fewRuns(context)) &&
        !launchWordsBesideTheVerdict(context)) {
        words << factTexts(selectedFacts(context));
    }
    return partsOf<ChartPart>(OccupancyChart::chartFor(context.session, shownRun(context)),
                              std::move(words), context.options.views.selectedRun);
}

ReportParts sweepParts(const ReportContext& context) {
    int built = 0;
    auto sweeps = buildSweepExport(context.session, context.options.views,
                                   context.plotsBuilt ? context.plotsBuilt : &built);
    if (sweeps->empty()) {
        return {};
    }
    return partsOf<SweepsPart>(std::move(sweeps));
}

} // namespace slicescope::gui
