#pragma once

#include "gui/qcp.h"
#include "models/runentry.h"
#include "models/viewstate.h"

#include <memory>

namespace slicescope::models {
class Session;
}

namespace slicescope::gui {

class TimelinePlottable;

// The timeline: every visible run of the session as a group of lanes on one time axis.
// Wheel zooms time around the pointer, dragging pans, a right-button (or Shift) drag box-zooms,
// double-click zooms to an event, hovering shows the event's nvprof fields and a click selects
// it (in the shared ViewState, so the GPU-trace table follows). Usable without a window:
// QCustomPlot::toPainter/toPixmap render it offscreen.
class TimelineView : public QCustomPlot {
    Q_OBJECT
  public:
    TimelineView(models::Session* session, models::ViewState* state, QWidget* parent = nullptr);
    ~TimelineView() override;

    TimelinePlottable* plottable() const { return plottable_; }
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

  signals:
    void activityHovered(const QString& tooltip);
    // The user clicked an event (not a programmatic selection).
    void activityClicked(const slicescope::models::ActivityRef& activity);

  protected:
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void leaveEvent(QEvent* event) override;

  private:
    void updateLaneLabels();
    void clampKeyRange(const QCPRange& range);
    void clampValueRange(const QCPRange& range);
    void onSelectionRect(const QRect& rect, QMouseEvent* event);
    void applySelection();
    int visibleRowsHeightPx() const;

    models::Session* session_;
    models::ViewState* state_;
    TimelinePlottable* plottable_ = nullptr;
    QSharedPointer<QCPAxisTickerText> laneTicker_;
    QPoint pressPos_;
    bool clamping_ = false;
    double visibleRows_ = 0;
};

} // namespace slicescope::gui
