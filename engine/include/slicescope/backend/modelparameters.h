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

// Calibrated on the H200 measurements in resources/samples/seed-100x4000x5-f64-*.json (CUPTI kernel
// durations, 2026-12-02); docs/model.md shows the fit.
struct ModelParameters {
    double lineBytes = 128;           // L1/L2 cache line
    double stepLatencyCycles = 67;    // a lone thread's cycles per element when its data is in L1
    double dependentFmaCycles = 4;    // latency of one dependent FMA (Volta and newer)
    double dramLatencyCycles = 223;   // an L1 miss (served by L2 or DRAM), once a line per stream
    double lineCycles = 1.6;          // load/store unit cycles per distinct cache line of an access
    double bytesInFlightPerThread = kStreamsPerStep * 8; // one element per stream, coalesced
    double peakBandwidthFraction = 0.9; // the share of peak DRAM bandwidth a streaming kernel gets
    double scatteredBandwidthFraction = 0.5; // of that, for warps whose lanes each touch own lines
    double launchOverheadNs = 3000;   // launch to start of execution
    double copyLatencyNs = 10000;     // fixed cost of one cudaMemcpy
    double hostCopyGBps = 5;          // host transpose / materialization pass
    double managedMigrationFraction = 0.5; // managed first-touch migration vs pinned copies
    std::uint32_t kernelMaxThreadsPerBlock = 1024;

    // Registers per thread of each strategy's kernel as CUPTI reported them for the f64 kernels
    // compiled for sm_90 (the H200 samples); the model has no compiled kernel of its own.
    std::uint32_t registersPerThread(strategy::StrategyId id, problem::Dtype) const {
        using strategy::StrategyId;
        switch (id) {
        case StrategyId::OneWorker: return 31;
        case StrategyId::SliceMiddleStrided: return 31;
        case StrategyId::Slice2d: return 34;
        case StrategyId::ElementwiseMaterialized: return 16;
        default: return 32;
        }
    }
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
