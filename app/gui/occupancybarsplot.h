#pragma once

#include "gui/qcp.h"
#include "gui/rowschart.h"

namespace slicescope::models {
class Session;
class ViewState;
} // namespace slicescope::models

namespace slicescope::gui {

// For every GPU run of the session (and every kernel, by name, of a recorded run), three bars:
// theoretical occupancy, achieved occupancy (only when measured with counters) and the share of the
// GPU's thread slots doing useful work. Clicking a run's bars selects it.
class OccupancyBarsPlot : public QCustomPlot {
    Q_OBJECT
  public:
    OccupancyBarsPlot(models::Session* session, models::ViewState* state,
                      QWidget* parent = nullptr);

    void rebuild();
    // Run ids in drawing order (top first).
    const QStringList& runIds() const { return runIds_; }
    // A height that shows every run legibly.
    int preferredHeight() const;
    // The same rows for exports, painted by RowsChartPainter.
    static RowsChart chartFor(const models::Session& session, const QString& selectedRun);

  protected:
    void mousePressEvent(QMouseEvent* event) override;

  private:
    models::Session* session_;
    models::ViewState* state_;
    QStringList runIds_;
};

} // namespace slicescope::gui
