#pragma once

#include "models/runentry.h"
#include "slicescope/sweep/roofline.h"
#include "slicescope/trace/trace.h"

#include <QList>
#include <QString>
#include <QStringList>
#include <QVector>
#include <vector>

// What the sweep chart draws, derived from the session's runs alone (no widgets): the sweeps
// among them with their crossovers (sweep::findCrossovers, the CLI's own rule), the occupancy of
// block sweeps against time with the points where the two disagree, and the roofline with the
// copies (sweep::runRoofline). Pure functions of the runs.
namespace slicescope::models {

// One strategy over a sweep's values.
struct SweepLine {
    QString strategy;
    QString predicted; // "modelled" or "projected": the model's times, hatched; empty if measured
    QVector<double> timesNs; // per value: time per repetition; NaN where it did not run
    // Per value: the spread of the run's repetitions (slowest minus fastest); NaN where it ran
    // once (sweep::repetitionSpreadNs).
    QVector<double> spreadNs;
    QVector<double> theoretical; // per value, 0..1; NaN for CPU runs
    QVector<double> achieved;    // per value, 0..1; NaN without counters
    // The theoretical occupancy against block size of this strategy's kernel (block sweeps).
    QVector<double> curveBlockSizes, curveOccupancy;
};

// A point of a block sweep where occupancy and time disagree: occupancy well above the fastest
// point's and clearly slower, or the fastest point at an occupancy well below the best.
struct Divergence {
    QString strategy;
    int point = 0;
    bool highAndSlow = false; // else low occupancy that is fast
    QString reason;           // one line in plain words
};

struct SweepView {
    QString key; // the file the runs came from and the parameter: one sweep
    // "block sweep of slice-2d, elementwise-broadcast (sweep-3.json)"; a sweep that mixes modes
    // says so: "work sweep of elementwise-broadcast, cpu-parallel: modelled GPU (NVIDIA H200) vs
    // measured CPU on this host (sweep-3.json)".
    QString title;
    QString source; // " (FILE)" at the end of title, where the sweep came from a file
    // What its runs' modes make the times: "modelled GPU (NVIDIA H200) vs measured CPU on this
    // host" (sweep::sweepBasis, from each run's mode, which a saved session keeps); empty when
    // they are all measured or all modelled.
    QString basis;
    QString param;
    QStringList values;      // in sweep order
    QVector<double> numbers; // the values as numbers; empty for categories (dtype, memory)
    QList<SweepLine> lines;
    std::vector<trace::Crossover> crossovers;  // beyond noise (sweep::judgeSweep)
    std::vector<trace::Crossover> withinNoise; // where the lines cross within noise
    QStringList verdict; // the verdict in words, the basis first: what the chart lists under it
    QString winner;      // with no crossover, the strategy that wins; empty when none does
    QList<Divergence> divergences;
    bool hasAchieved = false; // some point measured achieved occupancy (counters)
    bool isNumeric() const { return !numbers.isEmpty(); }
};

// The sweeps among the visible runs: runs carrying a sweep point, grouped by their batch (the
// sweep's file, kept across a session restore) and the parameter, values ordered by their index
// in the sweep. Their verdict is sweep::judgeSweep's, the CLI's own.
QList<SweepView> collectSweeps(const std::vector<RunEntryPtr>& runs);

// Divergence by this rule: occupancy (achieved where measured, else theoretical) at least
// kDivergentOccupancy above the fastest point's while at least kDivergentSlowdown times slower;
// or the fastest point at least kDivergentOccupancy below the strategy's best occupancy while the
// best-occupied point is at least kDivergentSlowdown times slower.
inline constexpr double kDivergentOccupancy = 0.25;
inline constexpr double kDivergentSlowdown = 1.2;
QList<Divergence> findDivergences(const QString& param, const QStringList& values,
                                  const SweepLine& line);

// One GPU run on the roofline: its kernel point and its whole-run point.
struct RooflineMark {
    QString runId;
    QString strategy;
    QString predicted; // "modelled" or "projected": the model's times, hatched; empty if measured
    sweep::RunRoofline roof;
};

// Runs placed under one set of ceilings (a device measured once, or a preset's datasheet).
struct RooflineView {
    QString title; // "NVIDIA H200: measured ceilings"
    trace::Ceilings ceilings;
    bool fp32 = false; // the runs' element type picks the compute roof
    QList<RooflineMark> marks;
};

// Visible GPU runs with ceilings in the trace; modelled runs without them get their preset's
// datasheet ceilings. Grouped by device and ceilings, in session order.
QList<RooflineView> collectRooflines(const std::vector<RunEntryPtr>& runs);

} // namespace slicescope::models
