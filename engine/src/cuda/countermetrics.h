#pragma once

// The Range Profiler metrics of every counting pass: the engine's own (rangeprofiler.cpp) and the
// injection library's (inject/kernelcounter.cpp) ask for the same metrics in the same order and
// read the values by these indices. They are the ones that work on the H200 (docs/design.md,
// "Achieved occupancy: the Range Profiler").

#include <cstddef>
#include <string>
#include <vector>

namespace slicescope::cuda {

enum CounterMetric : std::size_t {
    kAchievedOccupancyPct = 0, // sm__warps_active.avg.pct_of_peak_sustained_active, 0..100
    kSmCyclesActiveAvg = 1,    // sm__cycles_active.avg
    kSmCyclesActiveMax = 2,    // sm__cycles_active.max
    kGpuTimeNs = 3,            // gpu__time_duration.sum (under replay)
    // Threads and warps per executed instruction: their ratio is the average number of a warp's
    // lanes that were active, i.e. how many launched threads did the work (docs/trace-format.md,
    // "active_lane_share").
    kThreadInstExecuted = 4, // smsp__thread_inst_executed.sum
    kInstExecuted = 5,       // smsp__inst_executed.sum
    // sm__cycles_active.avg.pct_of_peak_sustained_elapsed, 0..100: how much of the kernel's
    // elapsed time the average SM was busy (avg / max of the active cycles reads 100 % for a
    // kernel that keeps every SM busy half the time).
    kSmBusyElapsedPct = 6,
};

inline const std::vector<std::string>& counterMetricNames() {
    static const std::vector<std::string> names{
        "sm__warps_active.avg.pct_of_peak_sustained_active",
        "sm__cycles_active.avg",
        "sm__cycles_active.max",
        "gpu__time_duration.sum",
        "smsp__thread_inst_executed.sum",
        "smsp__inst_executed.sum",
        "sm__cycles_active.avg.pct_of_peak_sustained_elapsed",
    };
    return names;
}

} // namespace slicescope::cuda
