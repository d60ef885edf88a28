#pragma once

#include "slicescope/backend/runrequest.h"
#include "slicescope/core/result.h"
#include "slicescope/device/devicespec.h"
#include "slicescope/problem/problem.h"
#include "slicescope/strategy/strategy.h"

#include <cstdint>
#include <string>

// The model's constants and its kernel estimate, public so tests and docs/model.md can show how a
// modelled time comes about. Every constant says where it comes from.
namespace slicescope::backend {

// Each element step reads discount and multBy and writes cv.
inline constexpr double kStreamsPerStep = 3;

// One architecture generation's latency constants (docs/model.md, "Architectures", says where
// each figure comes from and how sure it is). Cycles are SM clock cycles.
struct ArchitectureLatencies {
    const char* generation = "";       // "Hopper"
    int minComputeCapability = 0;      // 90: applies from cc 9.0 up to the next generation's
    double fp32DependentFmaCycles = 0; // one dependent FFMA after another
    double fp64DependentFmaCycles = 0; // one dependent DFMA, where the units keep up (see below)
    // Sub-partitions that each own a share of the SM's FMA units: a warp instruction occupies its
    // sub-partition's units for warpSize / (rate / fmaPartitions) cycles, which bounds a dependent
    // chain from below where the units are few (FP64 on GeForce parts).
    double fmaPartitions = 4;
    double l1HitCycles = 0;            // a global load served by L1
    double l2HitCycles = 0;            // a global load served by L2
    double globalLoadCycles = 0;       // a global load that misses the caches (served by DRAM)
    bool globalLoadsCachedInL1 = true; // by default (no -dlcm=ca, no __ldg)
    bool fitted = false;               // fitted to the H200 measurements rather than published
    // L2 partitions, each caching for the SMs next to it what they read from the other's half
    // (A100 and H100 whitepapers): the lines an SM walks may take room in both.
    int l2Partitions = 1;
};

// The generation a compute capability belongs to; cc older than Kepler gets Kepler's.
const ArchitectureLatencies& architectureLatencies(int computeMajor, int computeMinor);

// Calibrated on the H200 measurements in resources/samples/seed-100x4000x5-f64-pageable.json (CUPTI
// kernel durations, seed shape only); docs/model.md shows the fit and the out-of-sample check. The
// per-generation latencies above replace the H200's where a device is not a Hopper.
struct ModelParameters {
    double lineBytes = 128;  // L1/L2 cache line
    double sectorBytes = 32; // the unit a line is filled and written back in
    // A walker warp's step: its own load/store cycles, its multiply-add chain, and, when it walks
    // into new data, one wait for the miss (the streams' loads are issued together, so their misses
    // overlap) that grows with the lines its lanes miss at once. The wait is an L2 hit while the
    // kernel's data fits in L2; beyond L2 the generation's published extra latency of DRAM over L2
    // is added (docs/model.md, "Architectures"). Fitted on one-worker, slice-middle-strided and
    // slice-middle at the seed shape; the loop's own work hides behind the wait.
    double l2MissCycles = 402;    // one miss served by L2
    double lineMissCycles = 17;   // added to the wait per distinct line the warp's lanes miss
    double loadLineCycles = 1;    // L1 tag stage: one distinct line of a warp's load per clock
    double storeSectorCycles = 1; // write-through to L2: one (partial) sector of a store per clock
    // A store whose lanes each write part of a sector (the slice walkers): fitted on the wide
    // validation's fit half (docs/model.md, "Wide validation").
    double partialStoreSectorCycles = 1.5;
    // The SM starts one block at a time: a grid of many short blocks is bound by it (fitted:
    // elementwise-materialized, 31250 blocks of 64 threads in 20 us).
    double blockLaunchCycles = 155;
    double bytesInFlightPerThread = 8;  // the one element a step streams from DRAM (discount)
    double peakBandwidthFraction = 0.9; // the share of peak DRAM bandwidth a streaming kernel gets
    double scatteredBandwidthFraction = 0.5; // of that, for warps whose lanes each touch own lines
    double launchOverheadNs = 1500;          // launch to start of execution
    double copyLatencyNs = 10000;            // fixed cost of one cudaMemcpy
    double hostCopyGBps = 5;                 // host transpose / materialization pass
    double managedMigrationFraction = 0.5;   // managed first-touch migration vs pinned copies
    std::uint32_t kernelMaxThreadsPerBlock = 1024;
};

// The latency constants the model uses for a device: its generation's published figures, or, for
// Hopper, the H200 fit (ModelParameters::l2MissCycles).
struct DeviceLatencies {
    const ArchitectureLatencies* architecture = nullptr;
    double l2MissCycles = 0;       // a sector that misses L1 (or every load, where L1 is bypassed)
    double dramMissCycles = 0;     // the same, served by DRAM
    double dependentFmaCycles = 0; // for the problem's element type, issue-bounded
    // The miss latency for a kernel whose data is `workingSetBytes`: L2 while it fits, the DRAM
    // share beyond.
    double missCycles(double workingSetBytes, double l2Bytes) const;
};
DeviceLatencies deviceLatencies(const device::DeviceSpec& device, problem::Dtype dtype,
                                const ModelParameters& parameters);

// Registers per thread of a strategy's kernel, from resources/kernel-registers.json (ptxas figures
// of the CUDA 13 build, scripts/kernel-registers.sh). For a device CUDA 13 cannot compile for, the
// oldest architecture in the table stands in, capped at the device's registers per thread.
struct KernelRegisters {
    std::uint32_t registers = 0;
    std::uint32_t sm = 0;  // the table's architecture the figure is from, e.g. 90
    bool fallback = false; // not the device's own architecture
    std::string origin;    // for the run's notes
};
Result<KernelRegisters> kernelRegisters(strategy::StrategyId id, problem::Dtype dtype,
                                        const device::DeviceSpec& device);

struct KernelEstimate {
    double latencyNs = 0;         // the longest dependent chain one thread walks
    double loadStoreNs = 0;       // lines and sectors through the busiest SMs' load/store units
    double bandwidthNs = 0;       // bytes over the achievable memory bandwidth
    double arithmeticNs = 0;      // FMA lane-slots over the SMs' FMA throughput
    double blockSchedulingNs = 0; // blocks started one after another on the busiest SM
    double totalNs = 0;           // launch overhead + the largest of the five
    // "latency", "load/store pipeline", "memory bandwidth", "arithmetic throughput" or
    // "block scheduling"
    std::string bound;
    // The bytes moved between DRAM and L2 over the bytes the kernel reads and writes: above 1
    // when the lanes' scattered sectors overflow L2 and are fetched again (docs/model.md).
    double transactionFactor = 1;
};

// What bounds a modelled kernel, in a student's words: "each thread waits for its loads one
// after another, and too few threads run to hide the wait".
std::string boundInWords(const KernelEstimate& estimate);

KernelEstimate estimateKernel(strategy::StrategyId id, const problem::Problem& problem,
                              const strategy::LaunchGeometry& geometry,
                              std::uint32_t activeBlocksPerSm, const device::DeviceSpec& device,
                              MemoryMode memory, const ModelParameters& parameters);

double modelCopyNs(std::uint64_t bytes, double bandwidthGBps, const ModelParameters& parameters);

} // namespace slicescope::backend
