#pragma once

#include "slicescope/trace/trace.h"

#include <string>
#include <vector>

// Where the fastest strategy of a sweep changes. Pure function, no I/O.
namespace slicescope::sweep {

// One strategy's times over the sweep's points: times[i] at point i, NaN where it did not run.
struct Series {
    std::string strategy;
    std::vector<double> timesNs;
    // Per point, the spread of the run's measured repetitions: its slowest minus its fastest
    // (trace::repetitionTimesNs). NaN, or absent, where unknown: one repetition, or a modelled
    // run, whose repetitions are the same prediction.
    std::vector<double> spreadNs = {};
    bool modelled = false; // predictions: no noise of their own to measure
};

// The spread a sweep's run shows: its slowest repetition minus its fastest; NaN with fewer than
// two repetitions to compare.
double repetitionSpreadNs(const trace::Run& run);

// Noise. Two strategies' times at a point are within noise of each other when they differ by no
// more than the larger of
// - kTieShare of the faster time: the floor, for points measured once. One measured repetition
//   of a copy-bound run varies by a few per cent from point to point (pageable copies on the
//   H200), and a lead that changes by less is noise, not a crossover;
// - the spread of either run's repetitions (Series::spreadNs), where it ran two or more.
// Modelled times are predictions with no noise of their own; the floor still holds for them, so a
// model's lead of less than kTieShare is not called a crossover either.
inline constexpr double kTieShare = 0.05;
bool withinNoise(const Series& a, const Series& b, std::size_t point);

// Which leads count: those beyond noise (a crossover), or any strictly faster time (where the
// lines cross on the chart).
enum class Lead { BeyondNoise, Strict };

// The crossovers between neighbouring points. At each point the fastest strategy is the one
// with the smallest time; with Lead::BeyondNoise, on a tie (times within noise) the leader of the
// point before keeps the lead (at the first point, the first in series order), so a tie is no
// crossover; with Lead::Strict only an equal time keeps it. Between points i and i+1 where the
// leader changes from A to B, the two times are interpolated linearly in (log value, log time)
// when logScale (numeric parameters: values must be > 0), and linearly otherwise; `at` is where
// they meet. With categorical values (values not numbers) `at` is NaN and nothing is
// interpolated. param names the parameter in the text ("from work ≈ 40, ...").
std::vector<trace::Crossover> findCrossovers(const std::string& param,
                                             const std::vector<std::string>& values,
                                             const std::vector<Series>& series, bool logScale,
                                             Lead lead = Lead::BeyondNoise);

// What a sweep found, in plain words: the lines the CLI prints after a sweep and the GUI lists
// under its chart.
struct SweepVerdict {
    std::vector<trace::Crossover> crossovers; // the lead changes beyond noise (findCrossovers)
    // The other changes of the strictly fastest strategy: where the lines cross while the two are
    // within noise of each other (a Lead::Strict change at no crossover's pair of points).
    std::vector<trace::Crossover> withinNoise;
    std::string winner; // the strategy fastest at the most points (first in series order on a tie)
    std::size_t winnerPoints = 0; // the points where it is the fastest
    std::size_t points = 0;       // the points where any strategy ran
    std::vector<std::string> lines;
};

// The verdict on a sweep, in lines:
// - no crossing: "No crossover: a is the fastest at every value.";
// - crossings all within noise: "No crossover beyond noise: the lines cross 4 times, at block ≈
//   51.7, ≈ 82.1, ... each time within noise (5 % of the faster time)." and the strategy that
//   wins (none beats it beyond noise anywhere), or that none does;
// - crossovers only: each one ("Crossover: from work ≈ 40 b beats a (...)."), counted first when
//   there are several;
// - both: every crossing listed, how many are beyond noise, each crossover, and that the others
//   are within noise.
// Crossings within noise among measured lines none of which repeated add the advice to repeat.
// A measured line whose work the parameter does not change (changesWorkOf: a CPU strategy in a
// block sweep) has its times' range across the sweep counted as its noise at every point, said
// in a line ("cpu-parallel does the same work at every block: ...").
// basis, when not empty, leads the lines ("Modelled GPU (NVIDIA H200) vs measured CPU on this
// host.").
SweepVerdict judgeSweep(const std::string& param, const std::vector<std::string>& values,
                        const std::vector<Series>& series, bool logScale,
                        const std::string& basis = {});

// What a sweep's times are, when its runs mix modes: GPU strategies modelled (or projected) on a
// preset and CPU strategies measured, "modelled GPU (NVIDIA H200) vs measured CPU on this host",
// "projected GPU (Tesla T4) vs measured CPU ..." (or "on
// <CPU name>" when the CPU runs were measured on a CPU other than thisHostCpu). Empty when the
// runs are all measured or all modelled. From the runs' own `mode` and device, which every trace
// and saved session keeps.
std::string sweepBasis(const std::vector<const trace::Run*>& runs, const std::string& thisHostCpu);

} // namespace slicescope::sweep
