#pragma once

// Achieved occupancy for a recorded run, from a second run of the same program (the counting
// pass): CUPTI gives counters per kernel launch only under kernel replay, and replayed kernels
// lose their timestamps, so `record --counters` traces in one run and counts in another
// (docs/design.md, "Achieved occupancy: the Range Profiler"). In the counting pass the Range
// Profiler's ranges are numbered by launch within each context, and the pass's own kernel records
// (untimed) say which kernel each launch was. The join pairs the two runs' kernels in launch order
// and stops at the first launch where they differ (name or geometry): a program that does not
// launch the same kernels each time gets counters up to that point, and a note says so.

#include "runbuilder.h"
#include "slicescope/trace/trace.h"

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace slicescope::record {

struct JoinResult {
    std::uint64_t traced = 0;  // kernels in the traced run
    std::uint64_t counted = 0; // kernels the counting pass measured
    std::uint64_t joined = 0;  // kernels given an achieved occupancy
    std::string mismatch;      // the first launch where the runs differ, or empty
};

class CounterJoin {
  public:
    void add(ProcessSpool& process, const Frame& frame);
    // Sets achievedOccupancy and activeLaneShare on the run's kernels (by `kernels`, the run's
    // launches).
    JoinResult apply(trace::Run& run, std::vector<KernelLaunch> kernels) const;

    bool countersUnavailable() const { return countersUnavailable_; }
    const std::vector<std::string>& messages() const { return messages_; }
    std::uint64_t ranges() const { return rangeCount_; }

  private:
    struct Kernel {
        KernelLaunch launch;
        std::uint32_t nameId = 0; // into names_
        Dim3 grid;
        Dim3 block;
    };
    std::uint32_t intern(const std::string& text);

    std::vector<std::string> names_{std::string()};
    std::unordered_map<std::string, std::uint32_t> nameIds_;
    std::unordered_map<std::size_t, std::vector<std::uint32_t>> nameMaps_; // per process
    std::vector<Kernel> kernels_;
    // What the counting pass measured for one launch; NaN where a range is missing.
    struct Counted {
        float achieved = trace::kNoValue;
        float activeLaneShare = trace::kNoValue;
    };
    // (process, context) -> counters by range index
    std::map<std::pair<std::size_t, std::uint32_t>, std::vector<Counted>> ranges_;
    std::uint64_t rangeCount_ = 0;
    std::vector<std::string> messages_;
    bool countersUnavailable_ = false;
};

} // namespace slicescope::record
