#pragma once

#include "gui/rowschartwidget.h"

namespace slicescope::models {
class Session;
class ViewState;
} // namespace slicescope::models

namespace slicescope::gui {

// For every GPU run of the session (and every kernel, by name, of a recorded run), up to four
// bars: the launch occupancy (its grid's share of the GPU's warp slots), the per-SM limit (CUDA's
// theoretical occupancy), achieved occupancy (only when measured with counters) and the share of
// the GPU's thread slots busy with work. Drawn by RowsChartPainter, as every export draws it;
// clicking a run's bars selects it.
class OccupancyChart : public RowsChartWidget {
    Q_OBJECT
  public:
    OccupancyChart(models::Session* session, models::ViewState* state, QWidget* parent = nullptr);

    void rebuild();
    // The run of each row, top first (a recorded run once per kernel).
    QStringList runIds() const { return rowIds(); }
    // The same rows for exports.
    static RowsChart chartFor(const models::Session& session, const QString& selectedRun);

  private:
    models::Session* session_;
    models::ViewState* state_;
};

} // namespace slicescope::gui
