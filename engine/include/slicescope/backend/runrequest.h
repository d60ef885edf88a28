#pragma once

#include "slicescope/core/result.h"
#include "slicescope/problem/problem.h"
#include "slicescope/strategy/pipeline.h"
#include "slicescope/strategy/strategy.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace slicescope::backend {

// Host memory the GPU backend stages copies through (docs/design.md, "Vocabulary").
enum class MemoryMode { Pageable, Pinned, Managed, Mapped };
std::string_view toString(MemoryMode mode);
Result<MemoryMode> parseMemoryMode(std::string_view text);

struct RunRequest {
    problem::Problem problem;
    strategy::BlockOption block;
    MemoryMode memory = MemoryMode::Pageable;
    std::uint32_t repeat = 1; // repetitions of the copy/compute/copy sequence, >= 1
    // Iterations run first, in the same process and context, to warm what the first iteration
    // pays for (the OpenMP pool, page faults, the first launch); their activities are marked
    // warm-up (trace::Activity::warmup) and left out of the run's figures. The CLI's default is 1.
    std::uint32_t warmup = 0;
    strategy::PipelineOptions pipeline; // chunks and streams (GPU strategies; CPU ones ignore it)
    bool counters = false;              // achieved occupancy through the Range Profiler (GPU)
    bool sampleOccupancy = false;       // occupancy over time through PM sampling (GPU)
    int deviceIndex = 0;                // CUDA device ordinal (GPU)
};

// Long engine calls report progress and stop when asked. Both members may be empty.
struct Progress {
    std::function<void(std::string_view stage, double fraction)> report;
    const std::atomic<bool>* cancel = nullptr;

    void operator()(std::string_view stage, double fraction) const {
        if (report) {
            report(stage, fraction);
        }
    }
    bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
};

} // namespace slicescope::backend
