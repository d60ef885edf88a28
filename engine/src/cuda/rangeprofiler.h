#pragma once

// Achieved occupancy per kernel through CUPTI's Range Profiler: auto ranges (one per kernel launch,
// named "0", "1", ... in launch order), kernel replay (each kernel runs once per pass; CUPTI saves
// and restores device memory between passes), one nesting level.
//
// Run it as a second pass with activity tracing off: profiled kernels' activity records lose their
// timestamps, and replay inflates durations. The caller joins the ranges to the traced kernels by
// launch order.

#include "countervalues.h"
#include "cuptiprofilerhost.h"
#include "slicescope/core/result.h"

#include <cuda.h>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace slicescope::cuda {

struct RangeMetrics {
    std::string rangeName;
    double achievedOccupancy = 0; // sm__warps_active.avg.pct_of_peak_sustained_active / 100
    double smCyclesActiveAvg = 0; // sm__cycles_active.avg
    double smCyclesActiveMax = 0; // sm__cycles_active.max
    double gpuTimeNs = 0;         // gpu__time_duration.sum (under replay)
    double smBusyElapsedPct = 0;  // sm__cycles_active.avg.pct_of_peak_sustained_elapsed
    // How busy the SMs were over the kernel's elapsed time, 0..1 (countervalues.h).
    double smBusyShare() const { return fractionOfPercent(smBusyElapsedPct); }
};

class RangeProfiler {
  public:
    // Prepares counting for `context` (the current one when null): profiler initialization,
    // counter availability, config image. Unsupported, with the reason, without the privilege
    // to read counters.
    static Result<std::unique_ptr<RangeProfiler>> create(int deviceIndex, CUcontext context);
    ~RangeProfiler();

    // Counts the kernels that `launch` starts (it must launch `launches` kernels and wait for
    // them), calling it again while CUPTI needs more passes. One entry per range, in launch order.
    Result<std::vector<RangeMetrics>> profile(std::size_t launches,
                                              const std::function<Status()>& launch);

    std::size_t passes() const { return host_->passes(); }

  private:
    RangeProfiler() = default;
    std::shared_ptr<ProfilerInitialization> initialization_;
    std::unique_ptr<ProfilerHost> host_;
    CUcontext context_ = nullptr;
};

// The current CUDA context through the runtime's driver entry point (the engine does not link
// libcuda, so it loads on machines with no driver).
Result<CUcontext> currentContext();

} // namespace slicescope::cuda
