#pragma once

#include "gui/qcp.h"
#include "models/sweepdata.h"

#include <QWidget>

class QComboBox;
class QLabel;

namespace slicescope::models {
class Session;
} // namespace slicescope::models

namespace slicescope::gui {

// The sweep chart, from the session's runs (models/sweepdata.h), in three views (drawn by
// gui/sweepplot.h, which the report's export shares):
// - Time: time per repetition against the swept parameter, one line per strategy, log axes for
//   numeric parameters; each crossover a dashed line labelled "interpolated" (or "between" for a
//   category), each crossing within noise a dotted one; the sweep's verdict under the chart.
// - Occupancy (block sweeps): each strategy's theoretical occupancy curve against block size, the
//   measured points (achieved, with counters; else theoretical) on it and the time on the right
//   axis; points where occupancy and time disagree are ringed, their reasons listed below.
// - Roofline: each GPU run's kernel point (flop per DRAM byte) and whole-run point (flop per byte
//   over the host link) under the DRAM, pinned and pageable link roofs and the FMA peak, the
//   ceilings labelled measured or datasheet; the legend keys the two marks.
// Every point of the time and roofline views says what it is under the mouse (a tooltip).
class SweepChart : public QWidget {
    Q_OBJECT
  public:
    enum class View { Time, Occupancy, Roofline };

    explicit SweepChart(models::Session* session, QWidget* parent = nullptr);

    void setView(View view);
    View view() const;
    // Redraws from the session's runs.
    void refresh();

    QCustomPlot* plot() const { return plot_; }
    // What the chart lists under the plot (crossovers, divergences, ceilings), for tests.
    QString notes() const;
    const QList<models::SweepView>& sweeps() const { return sweeps_; }
    // The key (models::SweepView::key) of the sweep drawn; empty in the roofline view. A sweep
    // that joins the session is drawn at once (the newest, when several join together); the user's
    // choice holds until another joins.
    QString currentSweepKey() const;
    const QList<models::RooflineView>& rooflines() const { return rooflines_; }

  private:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void draw();
    void drawEmpty(const QString& why);

    models::Session* session_;
    QComboBox* view_;
    QComboBox* which_;
    QCustomPlot* plot_;
    QLabel* notes_;
    QList<models::SweepView> sweeps_;
    QList<models::RooflineView> rooflines_;
    QString chosenSweep_; // the key of the sweep to show in the time and occupancy views
};

} // namespace slicescope::gui
