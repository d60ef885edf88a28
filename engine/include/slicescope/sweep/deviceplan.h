#pragma once

// A sweep spread over several GPUs of one host (slicescope-cli run|sweep --devices), the pure
// half: which devices `--devices LIST|all` names, which points each device's GPU worker measures,
// and how the workers' runs go back into the order one worker on one GPU would have written.
// No CUDA, no process: the CLI starts the workers (app/cli/multigpu.cpp); docs/cli.md
// ("Several GPUs") says what is and is not proven.

#include "slicescope/core/result.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace slicescope::sweep {

// The CUDA device indices `--devices` names, in the order given: "all" (every one of the
// `present` devices, 0..present-1) or a comma-separated list of indices ("0,1", "1,0").
// Refused: an empty list or entry, an entry that is not a whole number, an index the machine
// does not have (InvalidArgument), an index named twice (InvalidArgument), and any list when
// no device is present (Unsupported; the message says so plainly and adds whyNone, the
// detector's reason).
Result<std::vector<int>> parseDeviceList(std::string_view text, std::size_t present,
                                         std::string_view whyNone = {});

// One device's share of a sweep: the points (indices into the sweep's values, ascending) its
// worker measures, all strategies at each.
struct DeviceShare {
    int device = 0;
    std::vector<std::size_t> points;
    friend bool operator==(const DeviceShare&, const DeviceShare&) = default;
};

// The points 0..points-1 dealt round-robin over the devices: point p goes to devices[p % N].
// Round-robin rather than contiguous slices: a numeric sweep's cost grows with its value (rows,
// columns, work; x2 steps double it), so contiguous slices would give the last device nearly
// all the time and the sweep would take almost as long as on one GPU; dealt in turn, every
// device gets cheap and dear points alike, and their shares differ by at most one point. Every
// point is measured with all its strategies on one device, so a crossover (strategies compared
// at a point) never compares two GPUs. Deterministic: the same points and devices give the same
// plan. A device left without a point (more devices than points) gets no share.
std::vector<DeviceShare> planDevices(std::size_t points, const std::vector<int>& devices);

// The values a share's worker sweeps, in its order (values[share.points[i]]).
std::vector<std::string> shareValues(const DeviceShare& share,
                                     const std::vector<std::string>& values);

// Puts the workers' parts back into one sweep. parts[d] holds what shares[d]'s worker reported
// at its own points, parts[d][i] being the sweep's point shares[d].points[i] (a worker's runs
// number their points from 0 in its own list). The result has `points` entries in the sweep's
// order, which is the order one worker on one GPU reports them in: each taken from the part that
// measured it, or `missing` where no part did (a worker interrupted, or one that crashed, before
// it got there). Cell is what a worker reports at a point: the CLI's row of results a strategy.
template <typename Cell>
std::vector<Cell> mergeByPoint(const std::vector<DeviceShare>& shares,
                               std::vector<std::vector<Cell>>&& parts, std::size_t points,
                               const Cell& missing) {
    std::vector<Cell> merged(points, missing);
    for (std::size_t d = 0; d < shares.size() && d < parts.size(); ++d) {
        const auto& mine = shares[d].points;
        for (std::size_t i = 0; i < mine.size() && i < parts[d].size(); ++i) {
            if (mine[i] < points) {
                merged[mine[i]] = std::move(parts[d][i]);
            }
        }
    }
    return merged;
}

// The id of a run of `run --devices`: the strategy and the device, "slice-2d@gpu1", unique in
// a trace of one run a strategy a device.
std::string deviceRunId(std::string_view strategy, int device);

} // namespace slicescope::sweep
