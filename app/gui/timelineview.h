#pragma once

#include "gui/qcp.h"
#include "models/runentry.h"
#include "models/viewstate.h"

#include <QList>
#include <memory>
#include <optional>

namespace slicescope::models {
class Session;
}

namespace slicescope::gui {

class RangeRuler;
class TimelinePlottable;
struct TimelineContent;

// The timeline: every visible run of the session on one time axis, as one overview row per run
// (the default) or, for a run the user expands, its lanes. Each run's t=0 is the start of its
// measured part (first copy, kernel or host compute), so runs compare on the shared axis.
// Wheel zooms time around the pointer, Shift+wheel or the scroll bar scrolls the runs, dragging
// pans, a right-button (or Shift) drag box-zooms, a right click opens the menu of lanes,
// double-click zooms to an event, hovering shows the event's nvprof fields and a click selects
// it (in the shared ViewState, so the GPU-trace table follows). A click on a run's header
// expands or collapses it and selects the run; + and - do so for the selected run. The selected
// run is scrolled into view; adding runs never moves what is on screen. A Ctrl+drag measures a
// span of time (the range ruler); Esc clears it. Usable without a
// window: QCustomPlot::toPainter/toPixmap render it offscreen.
class TimelineView : public QCustomPlot {
    Q_OBJECT
  public:
    TimelineView(models::Session* session, models::ViewState* state, QWidget* parent = nullptr);
    ~TimelineView() override;

    TimelinePlottable* plottable() const { return plottable_; }
    const RangeRuler& ruler() const { return *ruler_; }
    // Shows the whole time range of every run (and every lane that fits).
    void resetZoom();
    void zoomBy(double factor);  // < 1 zooms in, around the middle
    void panBy(double fraction); // of the visible span; > 0 moves later
    void zoomToActivity(const models::ActivityRef& activity);
    // Lays rows out for a pixel height, as the widget does on resize (for offscreen rendering).
    void fitRows(int heightPx);
    // The value span an export of heightPx shows: every row, none taller than on screen.
    double rowsForExport(int heightPx) const;
    void rebuild();
    // Re-reads fonts and row heights after the presentation scale changed.
    void applyTheme();
    // What the view shows now (runs, time range, open runs and lanes, selection), for an export
    // that draws it without this widget.
    TimelineContent content() const;

    // The View menu's zoom and pan actions, with their shortcuts. Pan left and right (arrows),
    // and Perfetto's keys for people who live in trace viewers (W/S zoom, A/D pan, not in the
    // menu), act while the timeline has the focus.
    struct NavigationActions {
        QAction* resetZoom;
        QAction* zoomIn;
        QAction* zoomOut;
        QList<QAction*> menu; // the above, then pan left, pan right, zoom to the selected event
    };
    NavigationActions createNavigationActions();
    bool isRunExpanded(const QString& runId) const;
    void setRunExpanded(const QString& runId, bool expanded);
    void setAllRunsExpanded(bool expanded);
    bool isLaneGroupPinned(models::LaneGroup group) const;
    void setLaneGroupPinned(models::LaneGroup group, bool pinned);
    // Checkable actions pinning each collapsible lane group open, for a menu.
    const QList<QAction*>& laneActions() const { return laneActions_; }
    QScrollBar* verticalScrollBar() const { return scrollBar_; }
    // The rows (in value units) the viewport shows now.
    double visibleRows() const { return visibleRows_; }

  public slots:
    // Scrolls the run's header and rows into view (and its measured part, when off screen).
    void revealRun(const QString& runId);

  signals:
    void activityHovered(const QString& tooltip);
    // The user clicked an event (not a programmatic selection).
    void activityClicked(const slicescope::models::ActivityRef& activity);
    // The user selected a run on the timeline (its header or one of its events).
    void runSelected(const QString& runId);

  protected:
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

  private:
    void relayoutKeepingView();
    void showMenu(const QPoint& pos);
    void updateScrollBar();
    void placeScrollBar();
    void scrollRowsIntoView(double top, double bottom);
    void selectRun(int run);
    void updateLaneLabels();
    // The axis title, whole or shortened to the plot's width (never cut at the window's edge).
    void fitAxisTitle();
    void clampKeyRange(const QCPRange& range);
    void clampValueRange(const QCPRange& range);
    void onSelectionRect(const QRect& rect, QMouseEvent* event);
    // reveal: scroll the selected event into view (not when the rows change under the user).
    void applySelection(bool reveal);
    int visibleRowsHeightPx() const;

    models::Session* session_;
    models::ViewState* state_;
    TimelinePlottable* plottable_ = nullptr;
    QSharedPointer<QCPAxisTickerText> laneTicker_;
    QScrollBar* scrollBar_ = nullptr;
    QList<QAction*> laneActions_;
    QPoint pressPos_;
    std::unique_ptr<RangeRuler> ruler_;
    bool ruling_ = false; // a Ctrl+drag is marking a span
    bool clamping_ = false;
    bool syncingScrollBar_ = false;
    double visibleRows_ = 0;
    std::optional<QCPRange> fittedKeyRange_; // the range resetZoom set, while the user keeps it
    // A run selected before this view had it (the selection of runs just added comes before the
    // session's changed()): brought into view by the rebuild that adds it.
    QString pendingReveal_;
    QString axisTitle_; // whole; the axis shows it as it fits
};

} // namespace slicescope::gui
