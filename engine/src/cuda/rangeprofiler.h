#pragma once

// Achieved occupancy per kernel through CUPTI's Range Profiler: auto ranges (one per kernel launch,
// named "0", "1", ... in launch order), kernel replay (each kernel runs once per pass; CUPTI saves
// and restores device memory between passes), one nesting level.
//
// Run it as a second pass with activity tracing off: profiled kernels' activity records lose their
// timestamps, and replay inflates durations. The caller joins the ranges to the traced kernels by
// launch order.
//
// The profiler is enabled by the first profile() and stays enabled until release() or the end: on
// the H200 the first pass after cuptiRangeProfilerEnable costs about 150 ms, so enabling it per
// run made counters cost 170 ms a run, against 16 ms kept enabled (a 32-point block sweep
// of 3 strategies with counters, 96 runs: 18.9 s against 5.0 s, docs/performance.md). Traced
// kernels between counted passes keep their timestamps and durations (checked on the H200).

#include "countervalues.h"
#include "cuptiprofilerhost.h"
#include "slicescope/core/result.h"

#include <cuda.h>
#include <cupti_range_profiler.h>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace slicescope::cuda {

struct RangeMetrics {
    std::string rangeName;
    double achievedOccupancy = 0; // sm__warps_active.avg.pct_of_peak_sustained_active / 100
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
    // Disables the Range Profiler (enabled by the first profile() and kept until then), so that
    // PM sampling, which needs the same counters, can start.
    void release();

  private:
    RangeProfiler() = default;
    Result<CUpti_RangeProfiler_Object*> enabled();
    std::shared_ptr<ProfilerInitialization> initialization_;
    std::unique_ptr<ProfilerHost> host_;
    CUcontext context_ = nullptr;
    CUpti_RangeProfiler_Object* enabled_ = nullptr;
};

// The current CUDA context through the runtime's driver entry point (the engine does not link
// libcuda, so it loads on machines with no driver).
Result<CUcontext> currentContext();

} // namespace slicescope::cuda
