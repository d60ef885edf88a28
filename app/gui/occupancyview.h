#pragma once

#include "models/occupancyfacts.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QCustomPlot;

namespace slicescope::models {
class Session;
class ViewState;
} // namespace slicescope::models

namespace slicescope::gui {

class BreakdownChart;
class OccupancyChart;
class OccupancyCurvePlot;
class SmMapWidget;

// Beside the timeline: where each run's time goes (BreakdownChart), occupancy bars for every GPU
// run and recorded kernel, and for the selected run the SM map,
// the limiter in plain words, occupancy against block size and registers, and the occupancy
// over time when the run sampled it. A run without one launch configuration (a recorded program)
// gets a kernel chooser: every distinct kernel, and the one selected on the timeline. "Beside
// it" puts another GPU run's SM map next to the selected run's (one-worker beside slice-middle
// is the seed's lesson), each under its run's name and launch occupancy.
class OccupancyView : public QWidget {
    Q_OBJECT
  public:
    OccupancyView(models::Session* session, models::ViewState* state, QWidget* parent = nullptr);

    BreakdownChart* breakdownChart() const { return breakdown_; }
    OccupancyChart* occupancyChart() const { return bars_; }
    OccupancyCurvePlot* curvePlot() const { return curves_; }
    SmMapWidget* smMap() const { return smMap_; }
    QCustomPlot* seriesPlot() const { return series_; }
    const models::OccupancyFacts& facts() const { return facts_; }
    const QString& shownRun() const { return shownRun_; }
    QComboBox* kernelChoice() const { return kernelChoice_; }
    // The run whose SM map sits beside the selected run's ("" for none), and its map.
    QComboBox* besideChoice() const { return besideChoice_; }
    SmMapWidget* besideMap() const { return besideMap_; }
    const QVector<models::KernelGroup>& kernels() const { return kernels_; }

    // Re-reads fonts after the presentation scale changed.
    void applyTheme();

  private:
    void showRun(const QString& runId);
    void showFacts(const models::RunEntry& entry);
    void showKernel(int group);
    void followSelectedActivity();
    void updateSeries(const models::RunEntry* entry);
    // The runs "Beside it" offers (the session's other GPU runs), keeping the choice if it is
    // still there.
    void updateBesideChoices();
    void showBeside();

    models::Session* session_;
    models::ViewState* state_;
    BreakdownChart* breakdown_;
    OccupancyChart* bars_;
    QLabel* title_;
    QComboBox* kernelChoice_;
    QVector<models::KernelGroup> kernels_;
    QLabel* headline_ = nullptr;
    QLabel* launch_;
    QLabel* limiter_;
    QLabel* launchChoice_; // how numba chose a recorded kernel's grid
    SmMapWidget* smMap_;
    QLabel* mapTitle_;
    QComboBox* besideChoice_;
    QWidget* besideColumn_;
    QLabel* besideTitle_;
    SmMapWidget* besideMap_;
    QLabel* smCaption_;
    OccupancyCurvePlot* curves_;
    QCustomPlot* series_;
    QLabel* noSeries_;
    models::OccupancyFacts facts_;
    QString shownRun_;
};

} // namespace slicescope::gui
