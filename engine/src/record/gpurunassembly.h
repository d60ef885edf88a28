#pragma once

// Assembles a measured GPU run from what the GPU session collected: its host spans, the decoded
// CUPTI activity records, the Range Profiler's ranges and the PM sampling series. Pure: no CUDA,
// no CUPTI, no clock, so tests feed it hand-made records (tests/engine/tst_gpurunassembly.cpp).

#include "slicescope/backend/runrequest.h"
#include "slicescope/trace/trace.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace slicescope::record {

// The pass of host work outside the iterations (allocation, filling inputs, freeing).
inline constexpr std::uint32_t kNoPass = 0xffffffff;

// Host work of the run (allocate, fill, lay out, verify, ...), timed on the session's clock.
struct HostSpan {
    std::string name;
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    // The pass it belongs to (warm-up passes first: GpuRunRecords), or kNoPass.
    std::uint32_t iteration = kNoPass;
};

// One decoded CUPTI record: activity.nameId indexes GpuRunRecords::names.
struct MeasuredActivity {
    trace::Activity activity;
    bool timed = true; // false when CUPTI could not time it (start = end = 0)
};

// One kernel launch under the Range Profiler, in launch order.
struct CountedRange {
    double achievedOccupancy = 0; // 0..1
    double smBusyShare = 0;       // 0..1
};

// One device-wide PM sample.
struct DeviceSample {
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    double warpOccupancy = 0; // 0..1 of all SMs' warp slots
};

struct GpuRunRecords {
    std::int64_t runStartNs = 0;
    // One per traced pass, ascending: the warm-up iterations first, then the measured ones.
    std::vector<std::int64_t> iterationStarts;
    std::uint32_t warmupIterations = 0; // how many of the first passes are warm-up
    std::vector<HostSpan> hostSpans;
    backend::MemoryMode memory = backend::MemoryMode::Pageable;

    bool cupti = true; // false: activity tracing was off, so the run has host activities only
    std::vector<MeasuredActivity> records;
    std::span<const std::string> names; // the decoder's name table
    std::uint64_t unknownRecords = 0;   // of kinds the decoder does not read
    std::uint64_t droppedRecords = 0;   // during this run
    std::uint64_t refusedBuffers = 0;   // during this run

    trace::OccupancyInfo occupancy;   // theoretical, from the launch
    std::vector<CountedRange> ranges; // empty without counters

    bool sampled = false; // occupancy sampling was asked for
    std::vector<DeviceSample> samples;
    bool samplesOverflowed = false;
    bool samplesByClock = false;    // triggered by sys-clock cycles, not a GPU-time interval
    std::string samplesUnavailable; // why there are no samples, when sampled
};

// Adds the activities, occupancy, occupancy series, dropped records and notes to `run`, which
// already holds what the session knew before (identity, problem, device, launch, verification,
// notes). Each activity gets its pass: device work by the API call that issued it (correlation
// id), the rest by the pass it started in (none before the first: set-up, iteration 0). Activities
// of the first warmupIterations passes are marked warm-up and numbered among the warm-up
// iterations; the others among the measured ones. Kernels get the theoretical occupancy and,
// measured kernels in launch order (start time), the achieved occupancy of their range (the counted
// pass replays the measured launches only). The series is cut to the run's measured device work.
// Activities end sorted by start.
void assembleGpuRun(const GpuRunRecords& records, trace::Run& run);

} // namespace slicescope::record
