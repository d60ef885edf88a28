#pragma once

// The CUDA devices of this machine, described with the engine's DeviceSpec.

#include "slicescope/backend/gpubackend.h"
#include "slicescope/device/devicespec.h"

namespace slicescope::cuda {

// Every device, or none and why (no driver, no device, ...).
backend::DetectedDevices detect();

// One device's figures from cudaGetDeviceProperties and cudaDeviceGetAttribute.
Result<device::DeviceSpec> describe(int ordinal);

} // namespace slicescope::cuda
