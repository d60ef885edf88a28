#pragma once

// Completing a device that another tool described: CUPTI's device record (a recording), a PyTorch
// profiler trace's "deviceProperties" (an import). Each lacks figures the occupancy calculator
// needs (the opt-in and reserved shared memory per block; the profiler's also the resident blocks
// per SM, and in older versions the registers and shared memory per SM). They come from a device
// of the same name, SM count and compute capability (found on this machine, or a preset),
// otherwise from the CUDA C++ Programming Guide's values for the compute capability.
#include "slicescope/device/devicespec.h"

#include <string>
#include <string_view>
#include <vector>

namespace slicescope::device {

// Fills the figures of `spec` that are 0 (and the opt-in and reserved shared memory per block,
// which no such record carries) from the first candidate with the same name, SM count and
// compute capability, or by compute capability. Returns a sentence saying where they came from:
// "<name>: figures from <describedBy>; <figures> from <where>".
std::string completeDeviceSpec(DeviceSpec& spec, const std::vector<DeviceSpec>& candidates,
                               std::string_view describedBy);

} // namespace slicescope::device
