#pragma once

#include "slicescope/core/dim3.h"
#include "slicescope/core/result.h"
#include "slicescope/problem/problem.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

// Strategies as data: how each one cuts the problem into workers, lays out the data and
// launches. Pure functions, read alike by the GPU backend, the model and the occupancy view.
namespace slicescope::strategy {

enum class StrategyId {
    OneWorker,
    SliceOuter,
    SliceMiddle,
    SliceMiddleStrided,
    Slice2d,
    ElementwiseMaterialized,
    ElementwiseBroadcast,
    ElementwiseGridStride,
    CpuSerial,
    CpuParallel,
};

enum class Target { Gpu, Cpu };

// Memory order of discount and cv while the kernel runs. CRN is the seed's fix for
// slice-middle: the host transposes the input to C x R x N and the output back.
enum class Layout { RCN, CRN };

// How the work is cut into workers (decompose()).
enum class WorkerCut {
    Whole,      // one worker walks every element
    PerOuter,   // R workers, each a C x N slice
    PerMiddle,  // C workers, each an R x N slice
    PerRow,     // R x C workers, each the N elements of one row
    PerElement, // one worker per element
};

// How the kernel hands workers to threads (launchGeometry()).
enum class LaunchStyle {
    NoLaunch,         // a CPU strategy
    ThreadPerWorker,  // one thread per worker, the grid sized to the workers
    GridStrideSized,  // grid-stride loop, a thread per two items (of 16-byte vectors where the
                      // row allows): the grid is sized to the data
    GridStrideDevice, // grid-stride loop over a grid of SMs x resident blocks per SM: the grid
                      // is sized to the GPU
};

// How the neighbouring lanes of a warp address memory, as the kernel indexes it: what the model
// reads (docs/model.md).
enum class AccessPattern {
    NoKernel,       // a CPU strategy
    OneLane,        // one busy lane walks everything
    RowPerLane,     // lane r walks row r (C x N apart); every lane reads the same multBy element
    BlockPerLane,   // C x R x N: lane c walks its own R x N block; multBy rows N apart
    RunPerLane,     // lanes read N-element runs N elements apart
    ElementPerLane, // neighbouring lanes, neighbouring elements (or vectors): coalesced
};

// One strategy, everything the engine knows about it. Adding a strategy adds a row here (and its
// StrategyId) and its kernel file kernels/<kernel>.cu; nothing else switches on the id.
struct StrategyInfo {
    StrategyId id;
    std::string_view name;        // the CLI and trace name, e.g. "slice-middle"
    std::string_view description; // one line for --help and the GUI
    Target target;
    std::string_view kernel; // GPU: the kernel file's stem, kernels/<kernel>.cu; CPU: empty
    WorkerCut workers;
    Layout layout;           // CRN: the host transposes the input in and the output back
    bool materializesMultBy; // the host expands multBy to R x C x N before every copy
    LaunchStyle launch;
    AccessPattern access;
};

std::span<const StrategyInfo> allStrategies();
const StrategyInfo& info(StrategyId id);
std::string_view toString(StrategyId id);
std::string_view toString(Layout layout);
Result<StrategyId> parseStrategy(std::string_view name);
// Every strategy's name in the registry's order, comma-separated: for help texts and errors.
std::string knownStrategyNames();
// A comma-separated list of names, where "all" stands for every strategy not named before it
// ("all", "slice-outer,all", "all,all"); keeps the order given, drops duplicates.
Result<std::vector<StrategyId>> parseStrategyList(std::string_view list);
bool isGpu(StrategyId id);

// How many workers a strategy creates and how many elements each one walks.
struct Decomposition {
    std::uint64_t workers = 0;
    std::uint64_t elementsPerWorker = 0;
    Layout layout = Layout::RCN;
    friend bool operator==(const Decomposition&, const Decomposition&) = default;
};
Decomposition decompose(StrategyId id, const problem::Problem& problem);

// Block-size choice. Numba: 64-thread blocks, as numba 0.38 picked on the seed's GPU.
// NumbaCuda: the largest block the kernel allows, as numba-cuda does today. Explicit: 1..1024.
struct BlockOption {
    enum class Mode { Numba, NumbaCuda, Explicit };
    Mode mode = Mode::Numba;
    std::uint32_t threads = 0; // Explicit only
    friend bool operator==(const BlockOption&, const BlockOption&) = default;
};
inline constexpr std::uint32_t kNumbaBlockThreads = 64;
Result<BlockOption> parseBlockOption(std::string_view text); // "numba" | "numba-cuda" | "1".."1024"
std::string toString(const BlockOption& option);

// What the launch needs to know about the device and the compiled kernel.
struct LaunchLimits {
    std::uint32_t kernelMaxThreadsPerBlock = 1024; // cudaFuncAttributes::maxThreadsPerBlock
    std::uint32_t maxGridX = 2147483647u;
    // LaunchStyle::GridStrideDevice only: the device's SMs and how many blocks of the chosen size
    // (blockThreads()) one SM holds at once, from the occupancy calculator or the CUDA API.
    std::uint32_t smCount = 0;
    std::uint32_t residentBlocksPerSm = 0;
};

struct LaunchGeometry {
    Decomposition decomposition;
    Dim3 grid;
    Dim3 block;
    bool gridStride = false;       // threads loop over workers (elementwise-broadcast)
    std::uint32_t vectorWidth = 1; // elements per vector load/store of one worker step
    std::uint64_t busyThreads = 0; // launched threads that get work
    std::uint64_t threadsLaunched() const { return grid.count() * block.count(); }
    friend bool operator==(const LaunchGeometry&, const LaunchGeometry&) = default;
};

// The threads per block the option gives, or an error when the kernel cannot take that many.
Result<std::uint32_t> blockThreads(const BlockOption& block, const LaunchLimits& limits);

// Grid and block for a GPU strategy; an error for CPU strategies, for a block the kernel
// cannot take, and for a grid over the device limit.
Result<LaunchGeometry> launchGeometry(StrategyId id, const problem::Problem& problem,
                                      const BlockOption& block, const LaunchLimits& limits);

// The seed's own measure: the share of the GPU's thread slots (SMs x max threads per SM) held by
// threads doing useful work, given how many blocks fit on an SM at once.
double threadSlotsBusy(const LaunchGeometry& geometry, std::uint32_t activeBlocksPerSm,
                       std::uint32_t smCount, std::uint32_t maxThreadsPerSm);

enum class Direction { HostToDevice, DeviceToHost };
struct Transfer {
    std::string name; // "discount", "multBy", "multBy (materialized)", "cv"
    Direction direction;
    std::uint64_t bytes;
};
// The copies a GPU strategy makes, in order; empty for CPU strategies.
std::vector<Transfer> transfers(StrategyId id, const problem::Problem& problem);
std::uint64_t bytesToDevice(StrategyId id, const problem::Problem& problem);
std::uint64_t bytesFromDevice(StrategyId id, const problem::Problem& problem);

// Memory a run of this strategy allocates, checked against what is available before allocating.
struct MemoryFootprint {
    std::uint64_t hostBytes = 0;   // inputs, output, reference, layout copies
    std::uint64_t deviceBytes = 0; // 0 for CPU strategies
};
MemoryFootprint memoryFootprint(StrategyId id, const problem::Problem& problem);
// An InsufficientMemory error naming the sizes when the footprint exceeds what is available.
Status checkFits(StrategyId id, const problem::Problem& problem, std::uint64_t availableHostBytes,
                 std::uint64_t availableDeviceBytes);

} // namespace slicescope::strategy
