#pragma once

#include "gui/rowschartwidget.h"

#include <QStringList>
#include <QWidget>

class QCheckBox;

namespace slicescope::models {
class Session;
class ViewState;
} // namespace slicescope::models

namespace slicescope::gui {

// Beside the occupancy chart: for every visible run a horizontal stacked bar of the time one
// repetition spends on HtoD copies, kernels, DtoH copies, other device work, host layout passes
// and host compute (models::breakdownRows: only the trace's own figures), with a linear/log
// switch. Modelled runs are hatched and say "modelled". With the verdict it answers "why is the
// GPU slower than the CPU here" in one look. It grows with the runs (the panel scrolls); clicking
// a run's bar selects the run.
class BreakdownChart : public QWidget {
    Q_OBJECT
  public:
    BreakdownChart(models::Session* session, models::ViewState* state, QWidget* parent = nullptr);

    bool logScale() const;
    void setLogScale(bool log);
    // Run ids in drawing order (top first).
    QStringList runIds() const;
    // Where the last paint drew each row, in the chart's own coordinates (rows left out: none).
    QVector<QRectF> rowRects() const;
    QCheckBox* logSwitch() const { return log_; }

    // The chart for the session's visible runs, for this widget and for exports.
    static RowsChart chartFor(const models::Session& session, const QString& selectedRun, bool log);

  private:
    void refresh();

    models::Session* session_;
    models::ViewState* state_;
    QCheckBox* log_;
    RowsChartWidget* canvas_;
};

} // namespace slicescope::gui
