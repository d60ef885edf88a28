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
};

// Times within this share of each other are a tie: one measured repetition of a copy-bound run
// varies by a few per cent from point to point (pageable copies on the H200), and a lead that
// changes by less is noise, not a crossover.
inline constexpr double kTieShare = 0.05;

// The crossovers between neighbouring points. At each point the fastest strategy is the one
// with the smallest time; on a tie (times within kTieShare) the leader of the point before keeps
// the lead (at the first point, the first in series order), so a tie is no crossover. Between
// points i and i+1 where the leader changes from A to B, the two times are interpolated linearly in
// (log value, log time) when logScale (numeric parameters: values must be > 0), and linearly
// otherwise; `at` is where they meet. With categorical values (values not numbers) `at` is NaN and
// nothing is interpolated. param names the parameter in the text ("from work ≈ 40, ...").
std::vector<trace::Crossover> findCrossovers(const std::string& param,
                                             const std::vector<std::string>& values,
                                             const std::vector<Series>& series, bool logScale);

} // namespace slicescope::sweep
