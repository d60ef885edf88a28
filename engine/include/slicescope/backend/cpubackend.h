#pragma once

#include <vector>

#include "slicescope/backend/runrequest.h"
#include "slicescope/trace/trace.h"

namespace slicescope::backend {

// The CPU reference: cv for a problem, in R x C x N order, computed serially in double or float
// exactly as the kernels do (compute/workchain.h).
template <typename T> std::vector<T> referenceOutput(const problem::Problem& problem);

// Largest |a - b| over two outputs, and whether it is within the tolerance for the dtype.
struct Comparison {
    double maxAbsError = 0;
    bool withinTolerance = false;
};
template <typename T>
Comparison compareOutputs(const std::vector<T>& expected, const T* actual, std::size_t count);

// Runs cpu-serial or cpu-parallel `repeat` times with host activities timed on hostNowNs() and
// the output verified against the reference; a mismatch shows in Run::verification, it is not an
// error here. Checks memory before allocating.
Result<trace::Run> runCpu(strategy::StrategyId id, const RunRequest& request,
                          const Progress& progress = {});

// The name of this machine's CPU, e.g. "Intel(R) Xeon(R) ...", for a CPU run's device.
std::string hostCpuName();

} // namespace slicescope::backend
