#pragma once

#include "slicescope/core/result.h"
#include "slicescope/trace/trace.h"

namespace slicescope::backend {

// Measures the roofline's ceilings on a CUDA device, in this process's context: a 256 MiB
// device-to-device copy (DRAM bandwidth, bytes read + written), 64 MiB pinned and pageable copies
// each way (host link), and an FMA-bound kernel in FP64 and FP32 (compute peak), each the best
// of a few timed tries with CUDA events. About a second. Call it before CUPTI collection starts
// (its work is not a run's activity). Source "measured". Without the CUDA backend, Unsupported.
Result<trace::Ceilings> measureCeilings(int deviceIndex);

} // namespace slicescope::backend
