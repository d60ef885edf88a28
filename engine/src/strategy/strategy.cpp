#include "slicescope/strategy/strategy.h"

#include <algorithm>
#include <array>
#include <charconv>

namespace slicescope::strategy {

namespace {

constexpr std::uint64_t kItemsPerThread = 2; // grid-stride steps of a GridStrideSized thread

using problem::Problem;

using enum WorkerCut;
using enum LaunchStyle;
using enum AccessPattern;

// One row per strategy; tst_strategy checks every row is complete and consistent.
constexpr std::array kStrategies{
    StrategyInfo{StrategyId::OneWorker, "one-worker",
                 "Whole array to one worker: one block, one busy thread walks every element (the "
                 "seed's gufunc).",
                 Target::Gpu, "oneworker", Whole, Layout::RCN, false, ThreadPerWorker, OneLane},
    StrategyInfo{StrategyId::SliceOuter, "slice-outer", "R workers, each walks one C x N slice.",
                 Target::Gpu, "sliceouter", PerOuter, Layout::RCN, false, ThreadPerWorker,
                 RowPerLane},
    StrategyInfo{StrategyId::SliceMiddle, "slice-middle",
                 "C workers, each walks one R x N slice of data laid out C x R x N on the host "
                 "(the seed's fix).",
                 Target::Gpu, "slicemiddle", PerMiddle, Layout::CRN, false, ThreadPerWorker,
                 BlockPerLane},
    StrategyInfo{StrategyId::SliceMiddleStrided, "slice-middle-strided",
                 "C workers, each walks one R x N slice on the original R x C x N layout "
                 "(strided access).",
                 Target::Gpu, "slicemiddlestrided", PerMiddle, Layout::RCN, false, ThreadPerWorker,
                 RunPerLane},
    StrategyInfo{StrategyId::Slice2d, "slice-2d",
                 "R x C workers, each walks the N elements of one row.", Target::Gpu, "slice2d",
                 PerRow, Layout::RCN, false, ThreadPerWorker, RunPerLane},
    StrategyInfo{StrategyId::ElementwiseMaterialized, "elementwise-materialized",
                 "One thread per element; multBy expanded to the full shape on the host (more "
                 "bytes copied).",
                 Target::Gpu, "elementwisematerialized", PerElement, Layout::RCN, true,
                 ThreadPerWorker, ElementPerLane},
    StrategyInfo{StrategyId::ElementwiseBroadcast, "elementwise-broadcast",
                 "Element-wise with broadcast indexing: a grid-stride loop in which each thread "
                 "takes two steps, of 16-byte vectors where the row allows (the hand-written "
                 "kernel).",
                 Target::Gpu, "elementwisebroadcast", PerElement, Layout::RCN, false,
                 GridStrideSized, ElementPerLane},
    StrategyInfo{StrategyId::ElementwiseGridStride, "elementwise-grid-stride",
                 "Element-wise with broadcast indexing: a grid of SMs x resident blocks per SM "
                 "loops over the array (the grid-stride loop CUDA's guides recommend).",
                 Target::Gpu, "elementwisegridstride", PerElement, Layout::RCN, false,
                 GridStrideDevice, ElementPerLane},
    StrategyInfo{StrategyId::CpuSerial, "cpu-serial", "One host thread walks every element.",
                 Target::Cpu, "", Whole, Layout::RCN, false, NoLaunch, NoKernel},
    StrategyInfo{StrategyId::CpuParallel, "cpu-parallel",
                 "All host cores, one task per outer slice.", Target::Cpu, "", PerOuter,
                 Layout::RCN, false, NoLaunch, NoKernel},
};

std::uint64_t ceilDiv(std::uint64_t a, std::uint64_t b) {
    return a / b + (a % b != 0);
}

} // namespace

std::span<const StrategyInfo> allStrategies() {
    return kStrategies;
}

const StrategyInfo& info(StrategyId id) {
    return *std::find_if(kStrategies.begin(), kStrategies.end(),
                         [id](const StrategyInfo& s) { return s.id == id; });
}

std::string_view toString(StrategyId id) {
    return info(id).name;
}

std::string_view toString(Layout layout) {
    return layout == Layout::RCN ? "rcn" : "crn";
}

bool isGpu(StrategyId id) {
    return info(id).target == Target::Gpu;
}

std::string knownStrategyNames() {
    std::string known;
    for (const auto& s : kStrategies) {
        known += (known.empty() ? "" : ", ") + std::string(s.name);
    }
    return known;
}

Result<StrategyId> parseStrategy(std::string_view name) {
    for (const auto& s : kStrategies) {
        if (s.name == name) {
            return s.id;
        }
    }
    return fail(Error::Code::InvalidArgument, "unknown strategy '" + std::string(name) +
                                                  "'; known: " + knownStrategyNames() + ", all");
}

Result<std::vector<StrategyId>> parseStrategyList(std::string_view list) {
    std::vector<StrategyId> ids;
    const auto add = [&ids](StrategyId id) {
        if (std::find(ids.begin(), ids.end(), id) == ids.end()) {
            ids.push_back(id);
        }
    };
    std::size_t start = 0;
    while (start <= list.size()) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        const std::string_view name = list.substr(start, comma - start);
        if (name.empty()) {
            return fail(Error::Code::InvalidArgument,
                        "empty strategy name in list '" + std::string(list) + "'");
        }
        if (name == "all") {
            // Anywhere in the list: every strategy not named yet, in the table's order.
            for (const auto& s : kStrategies) {
                add(s.id);
            }
        } else {
            auto id = parseStrategy(name);
            if (!id) {
                return tl::unexpected(id.error());
            }
            add(*id);
        }
        start = comma + 1;
    }
    return ids;
}

Decomposition decompose(StrategyId id, const Problem& p) {
    const auto& s = p.shape;
    const StrategyInfo& row = info(id);
    switch (row.workers) {
    case WorkerCut::Whole:
        return {1, p.elements(), row.layout};
    case WorkerCut::PerOuter:
        return {s.r, s.c * s.n, row.layout};
    case WorkerCut::PerMiddle:
        return {s.c, s.r * s.n, row.layout};
    case WorkerCut::PerRow:
        return {s.r * s.c, s.n, row.layout};
    case WorkerCut::PerElement:
        return {p.elements(), 1, row.layout};
    }
    return {};
}

Result<BlockOption> parseBlockOption(std::string_view text) {
    if (text == "numba") {
        return BlockOption{BlockOption::Mode::Numba, 0};
    }
    if (text == "numba-cuda") {
        return BlockOption{BlockOption::Mode::NumbaCuda, 0};
    }
    std::uint32_t threads = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), threads);
    if (ec != std::errc() || end != text.data() + text.size() || threads < 1 || threads > 1024) {
        return fail(Error::Code::InvalidArgument,
                    "block size '" + std::string(text) +
                        "' is not numba, numba-cuda or a thread count from 1 to 1024");
    }
    return BlockOption{BlockOption::Mode::Explicit, threads};
}

std::string toString(const BlockOption& option) {
    switch (option.mode) {
    case BlockOption::Mode::Numba:
        return "numba";
    case BlockOption::Mode::NumbaCuda:
        return "numba-cuda";
    case BlockOption::Mode::Explicit:
        return std::to_string(option.threads);
    }
    return {};
}

Result<std::uint32_t> blockThreads(const BlockOption& block, const LaunchLimits& limits) {
    std::uint32_t threads = 0;
    switch (block.mode) {
    case BlockOption::Mode::Numba:
        threads = kNumbaBlockThreads;
        break;
    case BlockOption::Mode::NumbaCuda:
        threads = limits.kernelMaxThreadsPerBlock;
        break;
    case BlockOption::Mode::Explicit:
        threads = block.threads;
        break;
    }
    if (threads < 1 || threads > limits.kernelMaxThreadsPerBlock) {
        return fail(Error::Code::OutOfRange, "a block of " + std::to_string(threads) +
                                                 " threads is more than the kernel allows (" +
                                                 std::to_string(limits.kernelMaxThreadsPerBlock) +
                                                 ")");
    }
    return threads;
}

Result<LaunchGeometry> launchGeometry(StrategyId id, const Problem& problem,
                                      const BlockOption& block, const LaunchLimits& limits) {
    const StrategyInfo& row = info(id);
    if (row.launch == LaunchStyle::NoLaunch) {
        return fail(Error::Code::InvalidArgument,
                    std::string(row.name) + " runs on the CPU and has no launch geometry");
    }
    const auto threads = blockThreads(block, limits);
    if (!threads) {
        return tl::unexpected(threads.error());
    }

    LaunchGeometry g;
    g.decomposition = decompose(id, problem);
    g.block = {*threads, 1, 1};
    std::uint64_t threadsNeeded = g.decomposition.workers;
    std::uint64_t blocks = 0;
    switch (row.launch) {
    case LaunchStyle::NoLaunch:
    case LaunchStyle::ThreadPerWorker:
        blocks = ceilDiv(threadsNeeded, *threads);
        break;
    case LaunchStyle::GridStrideSized: {
        // 16-byte vector accesses when every vector stays within one multBy row (C*N divisible
        // by the width), so the broadcast operand is read with the same vector loads.
        const std::uint32_t width = std::uint32_t(16 / problem.elementBytes());
        const std::uint64_t cn = problem.shape.c * problem.shape.n;
        g.vectorWidth = (cn % width == 0) ? width : 1;
        threadsNeeded = ceilDiv(problem.elements(), g.vectorWidth);
        g.gridStride = true;
        // A thread per two items. On a 2 GB problem on the H200 (`slicescope-bench-gpu
        // --grid-sweep`, docs/performance.md) a grid of one resident wave reached 0.93 of a
        // device-to-device copy at every block size; a thread per item 0.99 with 128 threads but
        // 0.80 with numba's 64, where blocks end too fast to be replaced; a thread per two items
        // 0.97-1.01 from 64 to 1024.
        blocks = std::min<std::uint64_t>(
            ceilDiv(threadsNeeded, std::uint64_t(*threads) * kItemsPerThread), limits.maxGridX);
        break;
    }
    case LaunchStyle::GridStrideDevice:
        // Sized to the GPU, not the data: one full wave of resident blocks on every SM.
        if (limits.smCount == 0 || limits.residentBlocksPerSm == 0) {
            return fail(Error::Code::InvalidArgument,
                        std::string(row.name) +
                            " needs the device's SM count and resident blocks per SM");
        }
        g.gridStride = true;
        blocks = std::min<std::uint64_t>(std::uint64_t(limits.smCount) * limits.residentBlocksPerSm,
                                         limits.maxGridX);
        break;
    }
    if (blocks > limits.maxGridX) {
        return fail(Error::Code::OutOfRange,
                    std::string(row.name) + " needs " + std::to_string(blocks) +
                        " blocks, more than the device's grid limit of " +
                        std::to_string(limits.maxGridX) + "; use a larger block");
    }
    g.grid = {std::uint32_t(blocks), 1, 1};
    g.busyThreads = std::min(threadsNeeded, g.threadsLaunched());
    return g;
}

double threadSlotsBusy(const LaunchGeometry& geometry, std::uint32_t activeBlocksPerSm,
                       std::uint32_t smCount, std::uint32_t maxThreadsPerSm) {
    const double slots = double(smCount) * maxThreadsPerSm;
    if (slots <= 0) {
        return 0;
    }
    // At most this many threads are resident at once. Workers go to threads in order, so the
    // idle threads sit at the end of the grid and the resident ones are busy first.
    const std::uint64_t resident =
        std::min<std::uint64_t>(geometry.threadsLaunched(), std::uint64_t(activeBlocksPerSm) *
                                                                smCount * geometry.block.count());
    return std::min(1.0, double(std::min(resident, geometry.busyThreads)) / slots);
}

std::vector<Transfer> transfers(StrategyId id, const Problem& p) {
    if (!isGpu(id)) {
        return {};
    }
    std::vector<Transfer> out;
    out.push_back({"discount", Direction::HostToDevice, p.arrayBytes()});
    if (info(id).materializesMultBy) {
        out.push_back({"multBy (materialized)", Direction::HostToDevice, p.arrayBytes()});
    } else {
        out.push_back({"multBy", Direction::HostToDevice, p.multByBytes()});
    }
    out.push_back({"cv", Direction::DeviceToHost, p.arrayBytes()});
    return out;
}

std::uint64_t bytesToDevice(StrategyId id, const Problem& p) {
    std::uint64_t total = 0;
    for (const auto& t : transfers(id, p)) {
        total += t.direction == Direction::HostToDevice ? t.bytes : 0;
    }
    return total;
}

std::uint64_t bytesFromDevice(StrategyId id, const Problem& p) {
    std::uint64_t total = 0;
    for (const auto& t : transfers(id, p)) {
        total += t.direction == Direction::DeviceToHost ? t.bytes : 0;
    }
    return total;
}

MemoryFootprint memoryFootprint(StrategyId id, const Problem& p) {
    // Host: discount, multBy and the output, then, beside them, what verification allocates: the
    // reference output and the reference's own discount and multBy (compute/reference.h).
    MemoryFootprint f;
    f.hostBytes = 4 * p.arrayBytes() + 2 * p.multByBytes();
    if (info(id).materializesMultBy) {
        f.hostBytes += p.arrayBytes(); // multBy expanded to R x C x N
    }
    if (decompose(id, p).layout == Layout::CRN) {
        f.hostBytes += 2 * p.arrayBytes(); // discount and cv in C x R x N order
    }
    if (isGpu(id)) {
        f.deviceBytes = bytesToDevice(id, p) + bytesFromDevice(id, p);
    }
    return f;
}

Status checkFits(StrategyId id, const Problem& p, std::uint64_t availableHostBytes,
                 std::uint64_t availableDeviceBytes) {
    const auto f = memoryFootprint(id, p);
    const auto mib = [](std::uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; };
    if (f.hostBytes > availableHostBytes) {
        return fail(Error::Code::InsufficientMemory, std::string(toString(id)) + " on " +
                                                         p.describe() + " needs " +
                                                         mib(f.hostBytes) + " of host memory; " +
                                                         mib(availableHostBytes) + " is available");
    }
    if (f.deviceBytes > availableDeviceBytes) {
        return fail(Error::Code::InsufficientMemory,
                    std::string(toString(id)) + " on " + p.describe() + " needs " +
                        mib(f.deviceBytes) + " of device memory; " + mib(availableDeviceBytes) +
                        " is free on the device");
    }
    return {};
}

} // namespace slicescope::strategy
