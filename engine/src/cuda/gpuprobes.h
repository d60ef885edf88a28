#pragma once

// Measurements of the GPU backend's own building blocks, for the GPU tests and the benchmark
// (bench/). A CUDA-free interface: callers need no CUDA headers.

#include "slicescope/core/result.h"
#include "slicescope/problem/problem.h"
#include "slicescope/strategy/strategy.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace slicescope::cuda::probes {

// Theoretical occupancy of a strategy's kernel at a block size: the engine's calculator next to
// cudaOccupancyMaxActiveBlocksPerMultiprocessor.
struct OccupancyComparison {
    std::uint32_t blockThreads = 0;
    std::uint32_t registersPerThread = 0;
    std::uint32_t cudaActiveBlocksPerSm = 0;
    std::optional<std::uint32_t> calculatorActiveBlocksPerSm;
    std::string calculatorError;
};
Result<OccupancyComparison> compareOccupancy(int deviceIndex, strategy::StrategyId id,
                                             problem::Dtype dtype, std::uint32_t blockThreads);

// The largest block the strategy's kernel allows (cudaFuncAttributes::maxThreadsPerBlock).
Result<std::uint32_t> kernelMaxThreadsPerBlock(int deviceIndex, strategy::StrategyId id,
                                               problem::Dtype dtype);

// Whether the strategy's kernel file (its registry row's kernel) is compiled into the kernel table,
// for this element type. Needs no device.
bool hasCompiledKernel(strategy::StrategyId id, problem::Dtype dtype);

// The launch limits the GPU backend gives strategy::launchGeometry for this strategy's kernel on
// the device, with the block option: block and grid limits, SMs, resident blocks per SM.
Result<strategy::LaunchLimits> launchLimits(int deviceIndex, strategy::StrategyId id,
                                            problem::Dtype dtype,
                                            const strategy::BlockOption& block);

// Median bandwidth of a plain device-to-device cudaMemcpy of `bytes`, counting bytes read plus
// bytes written, timed with CUDA events.
Result<double> deviceCopyGBps(int deviceIndex, std::uint64_t bytes, int repeats);
// Median bandwidth of a plain cudaMemcpy of `bytes` from pinned host memory to the device.
Result<double> pinnedHtoDGBps(int deviceIndex, std::uint64_t bytes, int repeats);

// One elementwise-broadcast launch timed twice: by its CUPTI kernel record and by CUDA events
// recorded around it on the same stream. `gridBlocks` replaces the engine's grid (0 keeps it), for
// the benchmark's sweep of grid sizes.
struct KernelTiming {
    std::int64_t cuptiNs = 0;
    std::int64_t eventNs = 0;
};
Result<std::vector<KernelTiming>>
kernelTimingCuptiVsEvents(int deviceIndex, const problem::Problem& problem,
                          std::uint32_t blockThreads, int launches, std::uint64_t gridBlocks = 0);

} // namespace slicescope::cuda::probes
