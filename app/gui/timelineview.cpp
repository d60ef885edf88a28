#include "gui/timelineview.h"

#include "gui/rangeruler.h"
#include "gui/theme.h"
#include "gui/timelineplotsetup.h"
#include "gui/timelineplottable.h"
#include "gui/timeticker.h"
#include "models/gputracemodel.h"
#include "models/session.h"

#include <QAction>
#include <QKeyEvent>
#include <QMenu>
#include <QScrollBar>
#include <QToolTip>
#include <algorithm>
#include <cmath>

namespace slicescope::gui {

namespace {
constexpr double kMinRowPx = 22;       // below this, rows scroll instead of shrinking
constexpr double kPreferredRowPx = 34; // rows never grow past this: empty space stays below
constexpr double kMinSpanNs = 20;
constexpr double kScrollStepsPerRow = 100; // the scroll bar's integer steps per row

QString laneGroupActionText(models::LaneGroup group) {
    switch (group) {
    case models::LaneGroup::Api:
        return TimelineView::tr("Show &API lanes");
    case models::LaneGroup::Sync:
        return TimelineView::tr("Show &sync lanes");
    case models::LaneGroup::Profiler:
        return TimelineView::tr("Show &profiler lanes");
    case models::LaneGroup::Memset:
        return TimelineView::tr("Show &memset lanes");
    case models::LaneGroup::HostThreads:
        return TimelineView::tr("Show per-&thread host lanes");
    case models::LaneGroup::Work:
        break;
    }
    return {};
}

QString laneGroupName(models::LaneGroup group) {
    switch (group) {
    case models::LaneGroup::Api:
        return QStringLiteral("api");
    case models::LaneGroup::Sync:
        return QStringLiteral("sync");
    case models::LaneGroup::Profiler:
        return QStringLiteral("profiler");
    case models::LaneGroup::Memset:
        return QStringLiteral("memset");
    case models::LaneGroup::HostThreads:
        return QStringLiteral("hostThreads");
    case models::LaneGroup::Work:
        break;
    }
    return QStringLiteral("work");
}
} // namespace

TimelineView::TimelineView(models::Session* session, models::ViewState* state, QWidget* parent)
    : QCustomPlot(parent), session_(session), state_(state) {
    setObjectName(QStringLiteral("timeline"));
    setMinimumSize(320, 200);
    setNoAntialiasingOnDrag(true);
    // The runs scroll vertically: a scroll bar on the right, beside the plot, not over it.
    scrollBar_ = new QScrollBar(Qt::Vertical, this);
    scrollBar_->setObjectName(QStringLiteral("timelineScrollBar"));
    scrollBar_->setSingleStep(int(kScrollStepsPerRow));
    scrollBar_->hide();
    laneTicker_.reset(new QCPAxisTickerText);
    plottable_ = setUpTimelinePlot(*this, laneTicker_, scrollBar_->sizeHint().width() + 4);
    connect(scrollBar_, &QScrollBar::valueChanged, this, [this](int value) {
        if (syncingScrollBar_) {
            return;
        }
        const double lower = value / kScrollStepsPerRow;
        yAxis->setRange(lower, lower + visibleRows_);
        replot(QCustomPlot::rpQueuedReplot);
    });
    connect(this, &QCustomPlot::afterLayout, this, &TimelineView::placeScrollBar);
    for (const models::LaneGroup group : models::kCollapsibleLaneGroups) {
        auto* action = new QAction(laneGroupActionText(group), this);
        action->setObjectName(QStringLiteral("pinLanes_") + laneGroupName(group));
        action->setCheckable(true);
        action->setToolTip(tr("Pin these lanes open in every expanded run"));
        connect(action, &QAction::toggled, this,
                [this, group](bool on) { setLaneGroupPinned(group, on); });
        laneActions_.push_back(action);
    }

    setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    ruler_ = std::make_unique<RangeRuler>(this);
    setFocusPolicy(Qt::StrongFocus);
    axisRect()->setRangeDrag(Qt::Horizontal | Qt::Vertical);
    axisRect()->setRangeZoom(Qt::Horizontal);
    axisRect()->setRangeZoomFactor(0.8, 1.0);
    selectionRect()->setPen(QPen(QColor(0x00, 0x72, 0xb2), 1, Qt::DashLine));
    selectionRect()->setBrush(QColor(0x00, 0x72, 0xb2, 40));
    connect(selectionRect(), &QCPSelectionRect::accepted, this, &TimelineView::onSelectionRect);
    connect(xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
            &TimelineView::clampKeyRange);
    connect(yAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
            &TimelineView::clampValueRange);
    setMouseTracking(true);

    connect(session_, &models::Session::changed, this, &TimelineView::rebuild);
    connect(state_, &models::ViewState::alignmentChanged, this, [this] {
        rebuild();
        resetZoom(); // the axis means something else now
    });
    connect(state_, &models::ViewState::selectedActivityChanged, this,
            [this] { applySelection(true); });
    connect(state_, &models::ViewState::selectedRunChanged, this, &TimelineView::revealRun);
    rebuild();
    resetZoom();
}

TimelineView::~TimelineView() = default;

void TimelineView::applyTheme() {
    applyTimelineFonts(*this);
    fitRows(visibleRowsHeightPx());
    replot(QCustomPlot::rpQueuedReplot);
}

void TimelineView::rebuild() {
    std::vector<models::ConstRunEntryPtr> runs;
    for (const auto& entry : session_->runs()) {
        if (entry->visible) {
            runs.push_back(entry);
        }
    }
    // What is on screen stays there: the rows scrolled to and, unless the view was showing
    // everything (then it goes on doing so), the time range.
    const bool wasEmpty = plottable_->runs().empty();
    const bool refit = wasEmpty || !fittedKeyRange_ || xAxis->range() == *fittedKeyRange_;
    plottable_->setRuns(std::move(runs), state_->alignment());
    plottable_->setSelectedRun(plottable_->runIndex(state_->selectedRun()));
    updateLaneLabels();
    if (refit) {
        clamping_ = true;
        xAxis->setRange(fittedTimeRange(*plottable_));
        clamping_ = false;
        fittedKeyRange_ = xAxis->range();
    } else {
        clampKeyRange(xAxis->range());
    }
    fitRows(visibleRowsHeightPx());
    applySelection(false);
    if (!pendingReveal_.isEmpty() && pendingReveal_ == state_->selectedRun()) {
        revealRun(pendingReveal_); // runs opened and selected: brought into view
    }
    pendingReveal_.clear();
}

void TimelineView::relayoutKeepingView() {
    updateLaneLabels();
    fitRows(visibleRowsHeightPx());
    applySelection(false);
}

TimelineContent TimelineView::content() const {
    TimelineContent content = timelineContent(*session_, *state_);
    content.timeRange = xAxis->range();
    for (const auto& entry : plottable_->runs()) {
        if (plottable_->isExpanded(entry->id)) {
            content.expandedRuns << entry->id;
        }
    }
    for (const models::LaneGroup group : models::kCollapsibleLaneGroups) {
        if (plottable_->isPinned(group)) {
            content.pinnedGroups.insert(group);
        }
    }
    content.shownLanes = plottable_->shownLanes();
    return content;
}

bool TimelineView::isRunExpanded(const QString& runId) const {
    return plottable_->isExpanded(runId);
}

void TimelineView::setRunExpanded(const QString& runId, bool expanded) {
    plottable_->setExpanded(runId, expanded);
    relayoutKeepingView();
}

void TimelineView::setAllRunsExpanded(bool expanded) {
    plottable_->setAllExpanded(expanded);
    relayoutKeepingView();
}

bool TimelineView::isLaneGroupPinned(models::LaneGroup group) const {
    return plottable_->isPinned(group);
}

void TimelineView::setLaneGroupPinned(models::LaneGroup group, bool pinned) {
    for (std::size_t i = 0; i < std::size(models::kCollapsibleLaneGroups); ++i) {
        if (models::kCollapsibleLaneGroups[i] == group &&
            laneActions_[qsizetype(i)]->isChecked() != pinned) {
            const QSignalBlocker blocker(laneActions_[qsizetype(i)]);
            laneActions_[qsizetype(i)]->setChecked(pinned);
        }
    }
    if (plottable_->isPinned(group) == pinned) {
        return;
    }
    plottable_->setPinned(group, pinned);
    relayoutKeepingView();
}

void TimelineView::scrollRowsIntoView(double top, double bottom) {
    const double lower = yAxis->range().lower;
    const double span = visibleRows_ > 0 ? visibleRows_ : yAxis->range().size();
    double wanted = lower;
    if (bottom - top > span) {
        // Taller than the view: leave it where it is if any of it shows, else show its top.
        if (bottom <= lower || top >= lower + span) {
            wanted = top;
        }
    } else if (top < lower) {
        wanted = top;
    } else if (bottom > lower + span) {
        wanted = bottom - span;
    }
    if (wanted != lower) {
        yAxis->setRange(wanted, wanted + span);
    }
}

void TimelineView::revealRun(const QString& runId) {
    const int run = plottable_->runIndex(runId);
    plottable_->setSelectedRun(run);
    pendingReveal_ = run < 0 && session_->indexOf(runId) >= 0 ? runId : QString();
    if (run < 0) {
        replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    const QCPRange rows = plottable_->runValueRange(run);
    scrollRowsIntoView(rows.lower, rows.upper);
    const QCPRange work = plottable_->workKeyRange(run);
    const QCPRange visible = xAxis->range();
    if (work.upper < visible.lower || work.lower > visible.upper) {
        if (work.size() <= visible.size()) {
            xAxis->setRange(work.center() - visible.size() / 2, work.center() + visible.size() / 2);
        } else {
            xAxis->setRange(work.lower - work.size() * 0.02, work.upper + work.size() * 0.02);
        }
    }
    replot(QCustomPlot::rpQueuedReplot);
}

void TimelineView::selectRun(int run) {
    if (run < 0 || run >= int(plottable_->runs().size())) {
        return;
    }
    const QString id = plottable_->runs()[std::size_t(run)]->id;
    state_->setSelectedRun(id);
    emit runSelected(id);
}

void TimelineView::updateLaneLabels() {
    labelTimelineAxes(*this, *plottable_, *laneTicker_, state_->alignment());
    axisTitle_ = xAxis->label();
    fitAxisTitle();
}

void TimelineView::fitAxisTitle() {
    // The title is centred under the axis rectangle; the lane names and margins around it are
    // those of the last layout.
    const int margins = axisRect()->outerRect().width() - axisRect()->rect().width();
    const double room = std::max(10, width() - std::max(0, margins) - 8);
    xAxis->setLabel(fittingAxisTitle(axisTitle_, QFontMetricsF(xAxis->labelFont()), room));
}

int TimelineView::visibleRowsHeightPx() const {
    // The widget's height less the axis margins of the last layout (the layout itself happens in
    // the next replot).
    const QRect inner = axisRect()->rect();
    const QRect outer = axisRect()->outerRect();
    if (inner.height() > 0 && outer.height() > 0) {
        return std::max(1, height() - (outer.height() - inner.height()));
    }
    return std::max(1, height() - 60);
}

void TimelineView::fitRows(int heightPx) {
    const double content = std::max(1.0, plottable_->contentHeight());
    const double scale = theme::presentationScale();
    const double atPreferred = std::max(1.0, double(heightPx) / (kPreferredRowPx * scale));
    const double atMinimum = std::max(1.0, double(heightPx) / (kMinRowPx * scale));
    // Few rows: preferred height, the rest of the plot empty. Many: shrink to the minimum, then
    // scroll.
    visibleRows_ = content <= atPreferred ? atPreferred : std::min(content, atMinimum);
    const double lower =
        std::clamp(yAxis->range().lower, 0.0, std::max(0.0, content - visibleRows_));
    clamping_ = true;
    yAxis->setRange(lower, lower + visibleRows_);
    clamping_ = false;
    updateScrollBar();
    replot(QCustomPlot::rpQueuedReplot);
}

void TimelineView::updateScrollBar() {
    const double content = std::max(1.0, plottable_->contentHeight());
    const double span = visibleRows_ > 0 ? visibleRows_ : content;
    const int maximum = std::max(0, int(std::lround((content - span) * kScrollStepsPerRow)));
    syncingScrollBar_ = true;
    scrollBar_->setRange(0, maximum);
    scrollBar_->setPageStep(std::max(1, int(std::lround(span * kScrollStepsPerRow))));
    scrollBar_->setValue(int(std::lround(yAxis->range().lower * kScrollStepsPerRow)));
    syncingScrollBar_ = false;
    scrollBar_->setVisible(maximum > 0);
}

void TimelineView::placeScrollBar() {
    const QRect area = axisRect()->rect();
    const int w = scrollBar_->sizeHint().width();
    scrollBar_->setGeometry(width() - w - 1, area.top(), w, std::max(0, area.height()));
}

double TimelineView::rowsForExport(int heightPx) const {
    const double content = std::max(1.0, plottable_->contentHeight());
    return std::max(content, double(heightPx) / (kPreferredRowPx * theme::presentationScale()));
}

void TimelineView::resetZoom() {
    clamping_ = true;
    xAxis->setRange(fittedTimeRange(*plottable_));
    clamping_ = false;
    fittedKeyRange_ = xAxis->range();
    yAxis->setRange(0, std::max(1.0, plottable_->contentHeight()));
    fitRows(visibleRowsHeightPx());
    replot(QCustomPlot::rpQueuedReplot);
}

void TimelineView::zoomBy(double factor) {
    xAxis->scaleRange(factor, xAxis->range().center());
    replot(QCustomPlot::rpQueuedReplot);
}

void TimelineView::panBy(double fraction) {
    xAxis->moveRange(xAxis->range().size() * fraction);
    replot(QCustomPlot::rpQueuedReplot);
}

void TimelineView::clampKeyRange(const QCPRange& range) {
    if (clamping_) {
        return;
    }
    // Zooming out and panning reach the set-up and checks too, not only the measured parts.
    const QCPRange full = plottable_->extentKeyRange();
    const double maxSpan = std::max(full.size() * 1.5, kMinSpanNs);
    QCPRange r = range;
    if (r.size() < kMinSpanNs) {
        const double c = r.center();
        r = QCPRange(c - kMinSpanNs / 2, c + kMinSpanNs / 2);
    }
    if (r.size() > maxSpan) {
        const double c = std::clamp(r.center(), full.lower, full.upper);
        r = QCPRange(c - maxSpan / 2, c + maxSpan / 2);
    }
    // Keep some data in view: never pan entirely past either end.
    const double slack = r.size() * 0.9;
    if (r.upper < full.lower + r.size() - slack) {
        r += (full.lower + r.size() - slack) - r.upper;
    }
    if (r.lower > full.upper - r.size() + slack) {
        r -= r.lower - (full.upper - r.size() + slack);
    }
    if (r.lower != range.lower || r.upper != range.upper) {
        clamping_ = true;
        xAxis->setRange(r);
        clamping_ = false;
    }
}

void TimelineView::clampValueRange(const QCPRange& range) {
    if (clamping_) {
        return;
    }
    const double content = std::max(1.0, plottable_->contentHeight());
    const double span = visibleRows_ > 0 ? visibleRows_ : content;
    const double lower = std::clamp(range.lower, 0.0, std::max(0.0, content - span));
    if (lower != range.lower || std::abs(range.size() - span) > 1e-9) {
        clamping_ = true;
        yAxis->setRange(lower, lower + span);
        clamping_ = false;
    }
    updateScrollBar();
}

void TimelineView::onSelectionRect(const QRect& rect, QMouseEvent*) {
    if (rect.width() < 4) {
        return;
    }
    xAxis->setRange(xAxis->pixelToCoord(rect.left()), xAxis->pixelToCoord(rect.right()));
    replot(QCustomPlot::rpQueuedReplot);
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
    pressPos_ = event->pos();
    ruling_ = event->button() == Qt::LeftButton && (event->modifiers() & Qt::ControlModifier);
    if (ruling_) {
        // Not passed on: the drag measures instead of panning.
        ruler_->begin(xAxis->pixelToCoord(event->position().x()));
        replot(QCustomPlot::rpQueuedReplot);
        event->accept();
        return;
    }
    const bool boxZoom =
        event->button() == Qt::RightButton ||
        (event->button() == Qt::LeftButton && (event->modifiers() & Qt::ShiftModifier));
    setSelectionRectMode(boxZoom ? QCP::srmCustom : QCP::srmNone);
    QToolTip::hideText();
    QCustomPlot::mousePressEvent(event);
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
    if (ruling_) {
        ruler_->extendTo(xAxis->pixelToCoord(event->position().x()));
        QToolTip::showText(event->globalPosition().toPoint(), ruler_->label(), this);
        replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    QCustomPlot::mouseMoveEvent(event);
    if (event->buttons() != Qt::NoButton) {
        return;
    }
    if (event->position().x() < axisRect()->rect().left()) {
        // Over the lane labels: say what the lane holds.
        const double value = yAxis->pixelToCoord(event->position().y());
        for (const auto& row : plottable_->rows()) {
            if (row.type == TimelinePlottable::Row::Type::Overview && value >= row.top &&
                value < row.top + row.height) {
                QToolTip::showText(event->globalPosition().toPoint(),
                                   tr("<b>%1</b>: its copies, kernels and host compute on one row. "
                                      "Click its header "
                                      "or press + to see its lanes.")
                                       .arg(plottable_->runs()[std::size_t(row.run)]->id),
                                   this);
                return;
            }
            if (row.type == TimelinePlottable::Row::Type::Lane && value >= row.top &&
                value < row.top + row.height) {
                const auto& entry = *plottable_->runs()[std::size_t(row.run)];
                const auto& lane = entry.lanes->lanes[std::size_t(row.lane)];
                QToolTip::showText(event->globalPosition().toPoint(),
                                   QStringLiteral("<b>%1</b> of %2: %3 (%4 %5)")
                                       .arg(models::toQString(lane.label), entry.id,
                                            theme::laneDescription(lane.kind),
                                            models::toQString(trace::formatCount(lane.eventCount)),
                                            lane.eventCount == 1 ? tr("event") : tr("events")),
                                   this);
                return;
            }
        }
        QToolTip::hideText();
        return;
    }
    const auto hit = plottable_->hitTest(event->position());
    if (!hit) {
        const int row = plottable_->rowAtPixel(event->position().y());
        if (row >= 0 &&
            plottable_->rows()[std::size_t(row)].type == TimelinePlottable::Row::Type::Header) {
            const auto& entry =
                *plottable_->runs()[std::size_t(plottable_->rows()[std::size_t(row)].run)];
            QToolTip::showText(
                event->globalPosition().toPoint(),
                plottable_->isExpanded(entry.id)
                    ? tr("Click to collapse <b>%1</b> to one row (or press -)").arg(entry.id)
                    : tr("Click to show the lanes of <b>%1</b> (or press +)").arg(entry.id),
                this);
            return;
        }
        QToolTip::hideText();
        return;
    }
    const auto& entry = *plottable_->runs()[std::size_t(hit->run)];
    QString tip;
    if (hit->events > 1) {
        const auto& a = entry.run->activities[std::size_t(hit->activity)];
        tip = QStringLiteral(
                  "<b>%1 %2 events</b> of %3 are narrower than a pixel here and drawn as one "
                  "block.<br>Zoom in (wheel, double-click or right-drag) to see them one by one.")
                  .arg(models::toQString(trace::formatCount(hit->events)),
                       models::toQString(trace::toString(a.kind)), entry.id);
    } else {
        tip = models::activityTooltip(*entry.run, entry.run->activities[std::size_t(hit->activity)],
                                      plottable_->originNs(hit->run), entry.id);
        if (entry.isModelled()) {
            tip += QStringLiteral(
                "<br><i>Modelled, not measured: predicted from the device preset.</i>");
        } else if (entry.isPredicted()) {
            tip += QStringLiteral("<br><i>Projected, not measured: a measured run's time moved "
                                  "onto this preset by the model's ratios.</i>");
        }
    }
    QToolTip::showText(event->globalPosition().toPoint(), tip, this);
    emit activityHovered(tip);
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event) {
    if (ruling_) {
        ruling_ = false;
        emit activityHovered(tr("Span: %1").arg(ruler_->label()));
        return;
    }
    QCustomPlot::mouseReleaseEvent(event);
    setSelectionRectMode(QCP::srmNone);
    const bool still = (event->pos() - pressPos_).manhattanLength() < 4;
    if (event->button() == Qt::RightButton && still) {
        showMenu(event->pos());
        return;
    }
    const bool click =
        event->button() == Qt::LeftButton && !(event->modifiers() & Qt::ShiftModifier) && still;
    if (!click) {
        return;
    }
    const int row = plottable_->rowAtPixel(event->position().y());
    if (row >= 0 &&
        plottable_->rows()[std::size_t(row)].type == TimelinePlottable::Row::Type::Header &&
        event->position().x() >= axisRect()->rect().left()) {
        const int run = plottable_->rows()[std::size_t(row)].run;
        const QString id = plottable_->runs()[std::size_t(run)]->id;
        setRunExpanded(id, !plottable_->isExpanded(id));
        selectRun(run);
        return;
    }
    const auto hit = plottable_->hitTest(event->position());
    if (!hit) {
        state_->setSelectedActivity({});
        return;
    }
    const models::ActivityRef ref{plottable_->runs()[std::size_t(hit->run)]->id, hit->activity};
    state_->setSelectedActivity(ref);
    emit runSelected(ref.runId);
    emit activityClicked(ref);
}

void TimelineView::showMenu(const QPoint& pos) {
    QMenu menu(this);
    const int row = plottable_->rowAtPixel(pos.y());
    if (row >= 0) {
        const int run = plottable_->rows()[std::size_t(row)].run;
        const QString id = plottable_->runs()[std::size_t(run)]->id;
        const bool expanded = plottable_->isExpanded(id);
        menu.addAction(expanded ? tr("Collapse %1").arg(id) : tr("Expand %1").arg(id), this,
                       [this, id, expanded] { setRunExpanded(id, !expanded); });
    }
    menu.addAction(tr("Expand all runs"), this, [this] { setAllRunsExpanded(true); });
    menu.addAction(tr("Collapse all runs"), this, [this] { setAllRunsExpanded(false); });
    menu.addSection(tr("In expanded runs"));
    menu.addActions(laneActions_);
    menu.exec(mapToGlobal(pos));
}

void TimelineView::keyPressEvent(QKeyEvent* event) {
    if (event->key() == Qt::Key_Escape && ruler_->isShown()) {
        ruler_->clear();
        replot(QCustomPlot::rpQueuedReplot);
        event->accept();
        return;
    }
    const QString selected = state_->selectedRun();
    const bool expand = event->key() == Qt::Key_Plus || event->key() == Qt::Key_Equal;
    const bool collapse = event->key() == Qt::Key_Minus;
    if ((expand || collapse) && !(event->modifiers() & Qt::ControlModifier) &&
        plottable_->runIndex(selected) >= 0) {
        setRunExpanded(selected, expand);
        revealRun(selected);
        event->accept();
        return;
    }
    QCustomPlot::keyPressEvent(event);
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent* event) {
    QCustomPlot::mouseDoubleClickEvent(event);
    const auto hit = plottable_->hitTest(event->position());
    if (!hit) {
        resetZoom();
        return;
    }
    const double lower = xAxis->pixelToCoord(hit->rect.left());
    const double upper = xAxis->pixelToCoord(hit->rect.right());
    const double margin = std::max((upper - lower) * 0.15, kMinSpanNs);
    xAxis->setRange(lower - margin, upper + margin);
    replot(QCustomPlot::rpQueuedReplot);
}

void TimelineView::wheelEvent(QWheelEvent* event) {
    if (event->modifiers() & Qt::ShiftModifier) {
        const double steps = event->angleDelta().y() / 120.0;
        yAxis->moveRange(-steps);
        replot(QCustomPlot::rpQueuedReplot);
        event->accept();
        return;
    }
    QCustomPlot::wheelEvent(event);
}

void TimelineView::resizeEvent(QResizeEvent* event) {
    QCustomPlot::resizeEvent(event);
    fitAxisTitle();
    fitRows(visibleRowsHeightPx());
    placeScrollBar();
}

void TimelineView::leaveEvent(QEvent* event) {
    QToolTip::hideText();
    QCustomPlot::leaveEvent(event);
}

void TimelineView::zoomToActivity(const models::ActivityRef& activity) {
    const int run = plottable_->runIndex(activity.runId);
    if (run < 0 || activity.index < 0 ||
        std::size_t(activity.index) >=
            plottable_->runs()[std::size_t(run)]->run->activities.size()) {
        return;
    }
    const auto& a =
        plottable_->runs()[std::size_t(run)]->run->activities[std::size_t(activity.index)];
    const double lower = double(a.startNs - plottable_->originNs(run));
    const double upper = double(a.endNs - plottable_->originNs(run));
    const double margin = std::max((upper - lower) * 0.5, kMinSpanNs);
    xAxis->setRange(lower - margin, upper + margin);
    // Its row too, not only its time.
    const int row = plottable_->rowOfActivity(run, activity.index);
    if (row >= 0) {
        const auto& r = plottable_->rows()[std::size_t(row)];
        scrollRowsIntoView(r.top, r.top + r.height);
    }
    replot(QCustomPlot::rpQueuedReplot);
}

void TimelineView::applySelection(bool reveal) {
    const auto& selected = state_->selectedActivity();
    const auto& runs = plottable_->runs();
    const int run = plottable_->runIndex(selected.runId);
    plottable_->setSelectedActivity(run, run >= 0 ? selected.index : -1);
    if (run >= 0 && selected.index >= 0 &&
        std::size_t(selected.index) < runs[std::size_t(run)]->run->activities.size()) {
        const auto& a = runs[std::size_t(run)]->run->activities[std::size_t(selected.index)];
        if (reveal && plottable_->rowOfActivity(run, selected.index) < 0) {
            // In a lane not shown (an API call chosen in the GPU-trace table): show that lane.
            const auto [kind, key] = models::laneOf(a);
            const auto& lanes = runs[std::size_t(run)]->lanes->lanes;
            for (std::size_t l = 0; l < lanes.size(); ++l) {
                if (lanes[l].kind == kind && lanes[l].key == key) {
                    plottable_->showLane(run, int(l));
                    updateLaneLabels();
                    fitRows(visibleRowsHeightPx());
                }
            }
        }
    }
    if (reveal && run >= 0 && selected.index >= 0 &&
        std::size_t(selected.index) < runs[std::size_t(run)]->run->activities.size()) {
        const auto& a = runs[std::size_t(run)]->run->activities[std::size_t(selected.index)];
        // Bring it into view when it is off screen.
        const double lower = double(a.startNs - plottable_->originNs(run));
        const double upper = double(a.endNs - plottable_->originNs(run));
        const QCPRange r = xAxis->range();
        if (upper < r.lower || lower > r.upper) {
            xAxis->setRange((lower + upper) / 2 - r.size() / 2, (lower + upper) / 2 + r.size() / 2);
        }
        const int row = plottable_->rowOfActivity(run, selected.index);
        if (row >= 0) {
            const auto& rowRef = plottable_->rows()[std::size_t(row)];
            scrollRowsIntoView(rowRef.top, rowRef.top + rowRef.height);
        }
    }
    replot(QCustomPlot::rpQueuedReplot);
}

TimelineView::NavigationActions TimelineView::createNavigationActions() {
    auto action = [this](const QString& text, QList<QKeySequence> keys, auto slot,
                         Qt::ShortcutContext context = Qt::WindowShortcut) {
        auto* a = new QAction(text, this);
        a->setShortcuts(keys);
        a->setShortcutContext(context);
        connect(a, &QAction::triggered, this, slot);
        if (context == Qt::WidgetShortcut) {
            addAction(a); // active while the timeline has the focus
        }
        return a;
    };
    NavigationActions actions;
    actions.resetZoom = action(tr("&Reset zoom"),
                               {QKeySequence(QStringLiteral("Ctrl+0")), QKeySequence(Qt::Key_Home)},
                               [this] { resetZoom(); });
    actions.zoomIn =
        action(tr("Zoom &in"), {QKeySequence::ZoomIn, QKeySequence(QStringLiteral("Ctrl+="))},
               [this] { zoomBy(0.5); });
    actions.zoomOut = action(tr("Zoom &out"), {QKeySequence::ZoomOut}, [this] { zoomBy(2.0); });
    actions.menu = {
        actions.resetZoom,
        actions.zoomIn,
        actions.zoomOut,
        action(
            tr("Pan left"), {QKeySequence(Qt::Key_Left)}, [this] { panBy(-0.25); },
            Qt::WidgetShortcut),
        action(
            tr("Pan right"), {QKeySequence(Qt::Key_Right)}, [this] { panBy(0.25); },
            Qt::WidgetShortcut),
        action(tr("Zoom to selected event"), {QKeySequence(QStringLiteral("Ctrl+F"))},
               [this] { zoomToActivity(state_->selectedActivity()); }),
    };
    action(
        {}, {QKeySequence(Qt::Key_W)}, [this] { zoomBy(0.8); }, Qt::WidgetShortcut);
    action(
        {}, {QKeySequence(Qt::Key_S)}, [this] { zoomBy(1.25); }, Qt::WidgetShortcut);
    action(
        {}, {QKeySequence(Qt::Key_A)}, [this] { panBy(-0.1); }, Qt::WidgetShortcut);
    action(
        {}, {QKeySequence(Qt::Key_D)}, [this] { panBy(0.1); }, Qt::WidgetShortcut);
    setFocusPolicy(Qt::StrongFocus);
    return actions;
}

} // namespace slicescope::gui
