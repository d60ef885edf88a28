#pragma once

#include "slicescope/backend/runrequest.h"
#include "slicescope/trace/trace.h"

#include <vector>

namespace slicescope::backend {

// Runs cpu-serial or cpu-parallel `repeat` times with host activities timed on hostNowNs() and
// the output verified against the reference (compute/reference.h); a mismatch shows in
// Run::verification, it is not an error here. Checks memory before allocating.
Result<trace::Run> runCpu(strategy::StrategyId id, const RunRequest& request,
                          const Progress& progress = {});

// The name of this machine's CPU, e.g. "Intel(R) Xeon(R) ...", for a CPU run's device.
std::string hostCpuName();

} // namespace slicescope::backend
