#pragma once

// The devices of a recording, and theoretical occupancy for its kernels. CUPTI's device record
// gives the per-SM and per-block limits with no CUDA call in the recorded program; it lacks two
// figures the occupancy calculator needs (the opt-in shared memory per block and the per-block
// reserve), which device::completeDeviceSpec (device/devicecompletion.h) fills in.

#include "runbuilder.h"
#include "slicescope/device/devicespec.h"
#include "slicescope/trace/trace.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace slicescope::record {

device::DeviceSpec toDeviceSpec(const DeviceFrame& frame);

struct OccupancyTally {
    std::uint64_t computed = 0;
    std::uint64_t failed = 0;
    std::string firstFailure;
};

// Sets theoreticalOccupancy on every kernel in `kernels` from its own device's figures.
OccupancyTally
applyTheoreticalOccupancy(trace::Run& run, const std::vector<KernelLaunch>& kernels,
                          const std::map<std::uint32_t, device::DeviceSpec>& devices);

} // namespace slicescope::record
