#pragma once

#include <cstdint>
#include <string>

#include "slicescope/backend/runrequest.h"
#include "slicescope/device/devicespec.h"
#include "slicescope/problem/problem.h"
#include "slicescope/strategy/strategy.h"

// The model's constants and its kernel estimate, public so tests and docs/model.md can show how a
// modelled time comes about. Every constant says where it comes from.
namespace slicescope::backend {

// Each element step reads discount and multBy and writes cv.
inline constexpr double kStreamsPerStep = 3;

struct ModelParameters {
    double lineBytes = 128;           // L1/L2 cache line
    double stepLatencyCycles = 40;    // a lone thread's cycles per element when its data is in L1
    double dependentFmaCycles = 4;    // latency of one dependent FMA (Volta and newer)
    double dramLatencyCycles = 650;   // a device-memory miss, paid once a line per stream
    double lineCycles = 1;            // an SM's load/store unit processes one cache line a cycle
    double bytesInFlightPerThread = kStreamsPerStep * 8; // one element per stream, coalesced
    double peakBandwidthFraction = 0.9; // the share of peak DRAM bandwidth a streaming kernel gets
    double scatteredBandwidthFraction = 0.5; // of that, for warps whose lanes each touch own lines
    double launchOverheadNs = 3000;   // launch to start of execution
    double copyLatencyNs = 10000;     // fixed cost of one cudaMemcpy
    double hostCopyGBps = 5;          // host transpose / materialization pass
    double managedMigrationFraction = 0.5; // managed first-touch migration vs pinned copies
    std::uint32_t kernelMaxThreadsPerBlock = 1024;

    // Registers per thread assumed for a strategy's kernel (the model has no compiled kernel).
    std::uint32_t registersPerThread(strategy::StrategyId, problem::Dtype) const { return 32; }
};

struct KernelEstimate {
    double latencyNs = 0;   // the longest dependent chain one thread walks
    double loadStoreNs = 0; // cache lines through the busiest SMs' load/store units
    double bandwidthNs = 0; // bytes over the achievable memory bandwidth
    double totalNs = 0;     // launch overhead + the largest of the three
    std::string bound;      // "latency", "load/store pipeline" or "memory bandwidth"
};

KernelEstimate estimateKernel(strategy::StrategyId id, const problem::Problem& problem,
                              const strategy::LaunchGeometry& geometry,
                              std::uint32_t activeBlocksPerSm, const device::DeviceSpec& device,
                              MemoryMode memory, const ModelParameters& parameters);

double modelCopyNs(std::uint64_t bytes, double bandwidthGBps, const ModelParameters& parameters);

} // namespace slicescope::backend
