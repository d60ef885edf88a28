#pragma once

// The devices of a recording, and theoretical occupancy for its kernels. CUPTI's device record
// gives the per-SM and per-block limits with no CUDA call in the recorded program; it lacks two
// figures the occupancy calculator needs (the opt-in shared memory per block and the per-block
// reserve), which come from a device of the same name (found on this machine, or a preset),
// otherwise from the compute capability's documented values.

#include "runbuilder.h"
#include "slicescope/device/devicespec.h"
#include "slicescope/trace/trace.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace slicescope::record {

device::DeviceSpec toDeviceSpec(const DeviceFrame& frame);

// Fills what CUPTI's record lacks from the first candidate with the same name and SM count, or
// by compute capability. Returns a sentence saying where those figures came from.
std::string completeDeviceSpec(device::DeviceSpec& spec,
                               const std::vector<device::DeviceSpec>& candidates);

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
