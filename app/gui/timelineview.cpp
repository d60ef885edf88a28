#include "gui/timelineview.h"

#include "gui/theme.h"
#include "gui/timelineplottable.h"
#include "gui/timeticker.h"
#include "models/gputracemodel.h"
#include "models/session.h"

#include <QAction>
#include <QToolTip>
#include <algorithm>
#include <cmath>

namespace slicescope::gui {

namespace {
constexpr double kMinRowPx = 22;       // below this, rows scroll instead of shrinking
constexpr double kPreferredRowPx = 34; // rows never grow past this: empty space stays below
constexpr double kMinSpanNs = 20;
} // namespace

TimelineView::TimelineView(models::Session* session, models::ViewState* state, QWidget* parent)
    : QCustomPlot(parent), session_(session), state_(state) {
    setObjectName(QStringLiteral("timeline"));
    setMinimumSize(320, 200);
    setNoAntialiasingOnDrag(true);
    setAutoAddPlottableToLegend(false);

    xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new TimeTicker));
    xAxis->grid()->setPen(QPen(QColor(0xdd, 0xdd, 0xdd), 1, Qt::DotLine));
    xAxis->grid()->setZeroLinePen(QPen(QColor(0xbb, 0xbb, 0xbb), 1));
    laneTicker_.reset(new QCPAxisTickerText);
    yAxis->setTicker(laneTicker_);
    yAxis->setRangeReversed(true);
    yAxis->grid()->setVisible(false);
    yAxis->setTickLength(0, 0);
    yAxis->setSubTicks(false);
    yAxis->setBasePen(QPen(QColor(0xaa, 0xaa, 0xaa)));
    xAxis2->setVisible(false);
    yAxis2->setVisible(false);
    axisRect()->setBackground(QBrush(Qt::white));

    applyTheme();
    plottable_ = new TimelinePlottable(xAxis, yAxis);
    plottable_->setEmptyText(tr("No runs yet.\nChoose a problem and strategies on the "
                                "left and press Run (F5),\nor open a trace (Ctrl+O)."));

    setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
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
    connect(state_, &models::ViewState::alignmentChanged, this, &TimelineView::rebuild);
    connect(state_, &models::ViewState::selectedActivityChanged, this,
            &TimelineView::applySelection);
    rebuild();
}

TimelineView::~TimelineView() = default;

void TimelineView::applyTheme() {
    xAxis->setTickLabelFont(theme::plotFont(9));
    xAxis->setLabelFont(theme::plotFont(9.5));
    yAxis->setTickLabelFont(theme::plotFont(9));
    if (plottable_) {
        fitRows(visibleRowsHeightPx());
        replot(QCustomPlot::rpQueuedReplot);
    }
}

void TimelineView::rebuild() {
    std::vector<models::ConstRunEntryPtr> runs;
    for (const auto& entry : session_->runs()) {
        if (entry->visible) {
            runs.push_back(entry);
        }
    }
    plottable_->setRuns(std::move(runs), state_->alignment());
    xAxis->setLabel(state_->alignment() == models::Alignment::RunStart
                        ? tr("time since each run's first activity")
                        : tr("time since the first run's first activity"));
    updateLaneLabels();
    const bool empty = plottable_->runs().empty();
    xAxis->setTickLabels(!empty);
    xAxis->setTicks(!empty);
    if (empty) {
        xAxis->setLabel(QString());
    }
    resetZoom();
    applySelection();
}

void TimelineView::updateLaneLabels() {
    QMap<double, QString> ticks;
    for (const auto& row : plottable_->rows()) {
        const double mid = row.top + row.height / 2;
        if (row.type == TimelinePlottable::Row::Type::Lane) {
            const auto& lane =
                plottable_->runs()[std::size_t(row.run)]->lanes->lanes[std::size_t(row.lane)];
            ticks.insert(mid, models::toQString(lane.label));
        }
    }
    laneTicker_->setTicks(ticks);
}

int TimelineView::visibleRowsHeightPx() const {
    const int h = axisRect()->rect().height();
    return h > 0 ? h : std::max(1, height() - 60);
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
}

double TimelineView::rowsForExport(int heightPx) const {
    const double content = std::max(1.0, plottable_->contentHeight());
    return std::max(content, double(heightPx) / (kPreferredRowPx * theme::presentationScale()));
}

void TimelineView::resetZoom() {
    const QCPRange full = plottable_->fullKeyRange();
    const double margin = full.size() * 0.02;
    clamping_ = true;
    xAxis->setRange(full.lower - margin, full.upper + margin);
    clamping_ = false;
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
    const QCPRange full = plottable_->fullKeyRange();
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
    const bool boxZoom =
        event->button() == Qt::RightButton ||
        (event->button() == Qt::LeftButton && (event->modifiers() & Qt::ShiftModifier));
    setSelectionRectMode(boxZoom ? QCP::srmCustom : QCP::srmNone);
    QToolTip::hideText();
    QCustomPlot::mousePressEvent(event);
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
    QCustomPlot::mouseMoveEvent(event);
    if (event->buttons() != Qt::NoButton) {
        return;
    }
    if (event->position().x() < axisRect()->rect().left()) {
        // Over the lane labels: say what the lane holds.
        const double value = yAxis->pixelToCoord(event->position().y());
        for (const auto& row : plottable_->rows()) {
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
        }
    }
    QToolTip::showText(event->globalPosition().toPoint(), tip, this);
    emit activityHovered(tip);
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event) {
    QCustomPlot::mouseReleaseEvent(event);
    setSelectionRectMode(QCP::srmNone);
    const bool click = event->button() == Qt::LeftButton &&
                       !(event->modifiers() & Qt::ShiftModifier) &&
                       (event->pos() - pressPos_).manhattanLength() < 4;
    if (!click) {
        return;
    }
    const auto hit = plottable_->hitTest(event->position());
    if (!hit) {
        state_->setSelectedActivity({});
        return;
    }
    const models::ActivityRef ref{plottable_->runs()[std::size_t(hit->run)]->id, hit->activity};
    state_->setSelectedActivity(ref);
    emit activityClicked(ref);
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
    fitRows(visibleRowsHeightPx());
}

void TimelineView::leaveEvent(QEvent* event) {
    QToolTip::hideText();
    QCustomPlot::leaveEvent(event);
}

void TimelineView::zoomToActivity(const models::ActivityRef& activity) {
    const auto& runs = plottable_->runs();
    for (std::size_t i = 0; i < runs.size(); ++i) {
        if (runs[i]->id != activity.runId || activity.index < 0 ||
            std::size_t(activity.index) >= runs[i]->run->activities.size()) {
            continue;
        }
        const auto& a = runs[i]->run->activities[std::size_t(activity.index)];
        const double lower = double(a.startNs - plottable_->originNs(int(i)));
        const double upper = double(a.endNs - plottable_->originNs(int(i)));
        const double margin = std::max((upper - lower) * 0.5, kMinSpanNs);
        xAxis->setRange(lower - margin, upper + margin);
        replot(QCustomPlot::rpQueuedReplot);
        return;
    }
}

void TimelineView::applySelection() {
    const auto& selected = state_->selectedActivity();
    const auto& runs = plottable_->runs();
    int run = -1;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        if (runs[i]->id == selected.runId) {
            run = int(i);
        }
    }
    plottable_->setSelectedActivity(run, run >= 0 ? selected.index : -1);
    if (run >= 0 && selected.index >= 0 &&
        std::size_t(selected.index) < runs[std::size_t(run)]->run->activities.size()) {
        // Bring it into view when it is off screen.
        const auto& a = runs[std::size_t(run)]->run->activities[std::size_t(selected.index)];
        const double lower = double(a.startNs - plottable_->originNs(run));
        const double upper = double(a.endNs - plottable_->originNs(run));
        const QCPRange r = xAxis->range();
        if (upper < r.lower || lower > r.upper) {
            xAxis->setRange((lower + upper) / 2 - r.size() / 2, (lower + upper) / 2 + r.size() / 2);
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
