#pragma once

// The one place a strategy meets its compiled kernel: the kernel file its registry row names
// (strategy::StrategyInfo::kernel), and the launch limits that kernel has on the device.

#include "slicescope/core/result.h"
#include "slicescope/problem/problem.h"
#include "slicescope/strategy/strategy.h"

#include <cuda_runtime_api.h>

namespace slicescope::cuda {

// The kernel of a GPU strategy for the element type; null for CPU strategies.
const void* strategyKernel(strategy::StrategyId id, problem::Dtype dtype);

// What strategy::launchGeometry needs to know of `kernel` on the current device: its block limit,
// the grid limit, the SMs and how many blocks of the option's size one SM holds
// (cudaOccupancyMaxActiveBlocksPerMultiprocessor; 0 when the option is more than the kernel takes,
// which launchGeometry then refuses).
Result<strategy::LaunchLimits> launchLimits(const void* kernel,
                                            const cudaFuncAttributes& attributes, int deviceIndex,
                                            const strategy::BlockOption& block);

} // namespace slicescope::cuda
