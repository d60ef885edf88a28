#pragma once

// The Range Profiler metrics of the counting passes, read by these indices. They are the ones that
// work on the H200 (docs/design.md, "Achieved occupancy: the Range Profiler"). The injection
// library (inject/kernelcounter.cpp) asks for all of counterMetricNames(); a run's counted pass
// (rangeprofiler.cpp) only for runCounterMetricNames(), the two a run keeps: each further metric
// can cost the replay another pass of every kernel, and a sweep counts every point.

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

// A run's counted pass: the first two of its values are achieved occupancy and the SMs' busy
// share over the elapsed time, at these indices.
enum RunCounterMetric : std::size_t {
    kRunAchievedOccupancyPct = 0,
    kRunSmBusyElapsedPct = 1,
};

inline const std::vector<std::string>& runCounterMetricNames() {
    static const std::vector<std::string> names{
        counterMetricNames()[kAchievedOccupancyPct],
        counterMetricNames()[kSmBusyElapsedPct],
    };
    return names;
}

} // namespace slicescope::cuda
