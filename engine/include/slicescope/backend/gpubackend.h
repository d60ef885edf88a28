#pragma once

#include <string>
#include <vector>

#include "slicescope/backend/runrequest.h"
#include "slicescope/device/devicespec.h"
#include "slicescope/trace/trace.h"

namespace slicescope::backend {

// True when this build has the CUDA backend compiled in.
bool gpuBackendBuilt();

// The CUDA devices present; empty with no driver or no device. `why` says why none.
struct DetectedDevices {
    std::vector<device::DeviceSpec> devices;
    std::string why; // empty when devices were found
};
DetectedDevices detectDevices();

// Runs GPU strategies on a real device under CUPTI, in one process session (one context, one
// CUPTI subscription). One result per strategy, in order: one failing strategy does not lose the
// others. Without the CUDA backend or a device, every result is an Error::Code::Unsupported
// error that says which.
std::vector<Result<trace::Run>> runGpu(const std::vector<strategy::StrategyId>& ids,
                                       const RunRequest& request, const Progress& progress = {});

} // namespace slicescope::backend
