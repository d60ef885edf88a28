#include "slicescope/backend/modelbackend.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "slicescope/backend/modelparameters.h"
#include "slicescope/core/clock.h"
#include "slicescope/occupancy/occupancycalculator.h"

// The formulas are in docs/model.md; keep the two in step.
namespace slicescope::backend {

namespace {

using problem::Problem;
using strategy::LaunchGeometry;
using strategy::StrategyId;
using trace::Activity;
using trace::ActivityKind;

std::uint64_t ceilDiv(std::uint64_t a, std::uint64_t b) { return b == 0 ? 0 : a / b + (a % b != 0); }

struct LinkRates {
    double htodGBps;
    double dtohGBps;
};

LinkRates linkRates(const device::DeviceSpec& d, MemoryMode memory) {
    if (memory == MemoryMode::Pageable) {
        return {d.pageableHtoDGBps, d.pageableDtoHGBps};
    }
    return {d.pinnedHtoDGBps, d.pinnedDtoHGBps};
}

// Whether adjacent lanes of a warp touch adjacent elements (one thread per element) or each lane
// walks its own run of elements (a worker per slice).
bool coalesced(StrategyId id) {
    return id == StrategyId::ElementwiseBroadcast || id == StrategyId::ElementwiseMaterialized;
}

} // namespace

KernelEstimate estimateKernel(StrategyId id, const Problem& p, const LaunchGeometry& g,
                              std::uint32_t activeBlocksPerSm, const device::DeviceSpec& d,
                              MemoryMode memory, const ModelParameters& m) {
    KernelEstimate e;
    const double clockHz = d.clockMHz * 1e6;
    const double s = double(p.elementBytes());
    const std::uint64_t blocks = g.grid.count();
    const std::uint64_t blockThreads = g.block.count();
    const std::uint64_t residentBlocks = std::uint64_t(std::max<std::uint32_t>(activeBlocksPerSm, 1)) * d.smCount;

    // Steps each thread takes, and how many times the grid refills the GPU.
    const std::uint64_t steps = g.gridStride
                                    ? ceilDiv(p.elements(), g.threadsLaunched() * g.vectorWidth)
                                    : g.decomposition.elementsPerWorker;
    const std::uint64_t waves = ceilDiv(blocks, residentBlocks);

    // 1. Latency: the longest chain of dependent steps one thread walks, wave after wave. A
    //    step misses in cache once per line of each stream: every `lineBytes / s` elements of a
    //    contiguous walk, every run of N on the strided layout.
    const double contiguous = id == StrategyId::SliceMiddleStrided
                                  ? double(p.shape.n)
                                  : double(std::max<std::uint64_t>(steps, 1)) * g.vectorWidth;
    const double missesPerStep =
        std::min(1.0, std::max(s * g.vectorWidth / m.lineBytes, 1.0 / contiguous));
    const double stepCycles = m.stepLatencyCycles +
                              double(p.workPerElement - 1) * m.dependentFmaCycles +
                              kStreamsPerStep * missesPerStep * m.dramLatencyCycles;
    e.latencyNs = double(waves) * double(steps) * stepCycles / clockHz * 1e9;

    // 2. Load/store pipeline: every warp-wide access costs a cycle per distinct cache line it
    //    touches, and an SM processes one line per cycle. Lanes walking their own slices touch a
    //    line each (uncoalesced); adjacent lanes share lines (coalesced).
    const std::uint64_t busyWarps = ceilDiv(g.busyThreads, d.warpSize);
    const double lanesPerWarp = double(g.busyThreads) / double(std::max<std::uint64_t>(busyWarps, 1));
    double linesPerAccess = 0;
    if (coalesced(id)) {
        linesPerAccess = std::ceil(lanesPerWarp * s * g.vectorWidth / m.lineBytes);
    } else if (id == StrategyId::SliceMiddleStrided) {
        // Lane c reads the N-run at c*N: neighbouring lanes read neighbouring runs.
        linesPerAccess = std::ceil(lanesPerWarp * double(p.shape.n) * s / m.lineBytes);
    } else {
        // Lane i walks its own slice: lanes are a slice apart.
        const double bytesPerWorker = double(g.decomposition.elementsPerWorker) * s;
        linesPerAccess = bytesPerWorker >= m.lineBytes
                             ? lanesPerWarp
                             : std::ceil(lanesPerWarp * bytesPerWorker / m.lineBytes);
    }
    const double totalLines =
        double(busyWarps) * double(g.gridStride ? steps : g.decomposition.elementsPerWorker) *
        kStreamsPerStep * std::max(1.0, linesPerAccess);
    const double activeSms = double(std::min<std::uint64_t>(d.smCount, blocks));
    e.loadStoreNs = totalLines * m.lineCycles / (activeSms * clockHz) * 1e9;

    // 3. Memory bandwidth: the bytes the kernel must move. Coalesced kernels reach the rate their
    //    resident threads keep in flight (Little's law). Slice walkers whose lanes each touch a
    //    line of their own fetch scattered sectors, which DRAM serves at a fraction of its
    //    streaming rate; their own latency is already term 1. Mapped memory crosses the host link.
    const double dramBytes = double(strategy::bytesToDevice(id, p) + strategy::bytesFromDevice(id, p));
    double efficiency = m.peakBandwidthFraction;
    if (coalesced(id)) {
        const double residentBusy =
            double(std::min<std::uint64_t>(g.busyThreads, residentBlocks * blockThreads));
        const double inFlightBytes = residentBusy * m.bytesInFlightPerThread * s / 8 * g.vectorWidth;
        const double neededInFlight = d.memoryBandwidthGBps * 1e9 * (m.dramLatencyCycles / clockHz);
        efficiency *= std::min(1.0, inFlightBytes / neededInFlight);
    } else if (linesPerAccess >= lanesPerWarp && lanesPerWarp > 1) {
        efficiency *= m.scatteredBandwidthFraction;
    }
    double bandwidthGBps = d.memoryBandwidthGBps * efficiency;
    if (memory == MemoryMode::Mapped) {
        bandwidthGBps = std::min(bandwidthGBps, std::min(d.pinnedHtoDGBps, d.pinnedDtoHGBps));
    }
    e.bandwidthNs = dramBytes / (bandwidthGBps * 1e9) * 1e9;

    e.totalNs = m.launchOverheadNs + std::max({e.latencyNs, e.loadStoreNs, e.bandwidthNs});
    if (e.latencyNs >= e.loadStoreNs && e.latencyNs >= e.bandwidthNs) {
        e.bound = "latency";
    } else if (e.loadStoreNs >= e.bandwidthNs) {
        e.bound = "load/store pipeline";
    } else {
        e.bound = "memory bandwidth";
    }
    return e;
}

double modelCopyNs(std::uint64_t bytes, double bandwidthGBps, const ModelParameters& m) {
    return m.copyLatencyNs + double(bytes) / (bandwidthGBps * 1e9) * 1e9;
}

Result<trace::Run> modelRun(StrategyId id, const RunRequest& request, const device::DeviceSpec& d) {
    const ModelParameters m;
    const Problem& p = request.problem;
    if (!strategy::isGpu(id)) {
        return fail(Error::Code::InvalidArgument,
                    std::string(strategy::toString(id)) + " runs on the CPU and cannot be modelled");
    }
    if (d.smCount == 0 || d.clockMHz <= 0 || d.memoryBandwidthGBps <= 0 || d.pinnedHtoDGBps <= 0 ||
        d.pageableHtoDGBps <= 0) {
        return fail(Error::Code::InvalidArgument,
                    "device '" + d.name + "' lacks the figures the model needs (SMs, clock, bandwidths)");
    }
    if (request.repeat < 1) {
        return fail(Error::Code::InvalidArgument, "repeat must be >= 1");
    }

    strategy::LaunchLimits limits;
    limits.kernelMaxThreadsPerBlock = std::min(d.maxThreadsPerBlock, m.kernelMaxThreadsPerBlock);
    auto geometry = strategy::launchGeometry(id, p, request.block, limits);
    if (!geometry) {
        return tl::unexpected(geometry.error());
    }
    const std::uint32_t registers = m.registersPerThread(id, p.dtype);
    auto occ = occupancy::calculate(d, {std::uint32_t(geometry->block.count()), registers, 0});
    if (!occ) {
        return tl::unexpected(occ.error());
    }
    const auto footprint = strategy::memoryFootprint(id, p);
    if (d.globalMemoryBytes > 0 && footprint.deviceBytes > d.globalMemoryBytes) {
        return fail(Error::Code::InsufficientMemory,
                    std::string(strategy::toString(id)) + " on " + p.describe() + " needs " +
                        std::to_string(footprint.deviceBytes >> 20) + " MiB of device memory; the " +
                        d.name + " has " + std::to_string(d.globalMemoryBytes >> 20) + " MiB");
    }

    trace::Run run;
    run.id = std::string(strategy::toString(id));
    run.strategy = run.id;
    run.mode = trace::RunMode::Modelled;
    run.problem = p;
    run.device = d;
    run.device.sources.clear();
    run.memoryMode = std::string(toString(request.memory));
    run.repeat = request.repeat;
    run.createdAt = isoTimestampUtc();

    trace::LaunchInfo launch;
    launch.grid = geometry->grid;
    launch.block = geometry->block;
    launch.workers = geometry->decomposition.workers;
    launch.elementsPerWorker = geometry->decomposition.elementsPerWorker;
    launch.layout = std::string(strategy::toString(geometry->decomposition.layout));
    launch.blockOption = strategy::toString(request.block);
    launch.gridStride = geometry->gridStride;
    launch.registersPerThread = registers;
    run.launch = launch;

    trace::OccupancyInfo occupancyInfo;
    occupancyInfo.theoretical = occ->occupancy;
    occupancyInfo.threadSlotsBusy =
        strategy::threadSlotsBusy(*geometry, occ->activeBlocksPerSm, d.smCount, d.maxThreadsPerSm);
    occupancyInfo.limiter = std::string(occupancy::toString(occ->limiter));
    occupancyInfo.explanation = occ->explanation;
    occupancyInfo.activeBlocksPerSm = occ->activeBlocksPerSm;
    run.occupancy = occupancyInfo;

    const KernelEstimate kernel =
        estimateKernel(id, p, *geometry, occ->activeBlocksPerSm, d, request.memory, m);
    const LinkRates link = linkRates(d, request.memory);
    const bool explicitCopies =
        request.memory == MemoryMode::Pageable || request.memory == MemoryMode::Pinned;
    const auto kernelName = run.intern("modelled " + run.strategy + " kernel");

    std::int64_t t = 0;
    auto add = [&run](ActivityKind kind, std::string_view name, std::int64_t start, double durationNs,
                      std::uint16_t iteration) {
        Activity a;
        a.kind = kind;
        a.startNs = start;
        a.endNs = start + std::max<std::int64_t>(1, std::llround(durationNs));
        a.nameId = run.intern(name);
        a.iteration = iteration;
        run.activities.push_back(a);
        return a.endNs;
    };
    const double hostPassNs = double(p.arrayBytes()) / (m.hostCopyGBps * 1e9) * 1e9;
    if (geometry->decomposition.layout == strategy::Layout::CRN) {
        t = add(ActivityKind::Host, "layout discount as C x R x N", t, hostPassNs, 0);
    }
    if (id == StrategyId::ElementwiseMaterialized) {
        t = add(ActivityKind::Host, "materialize multBy to R x C x N", t, hostPassNs, 0);
    }
    for (std::uint32_t iteration = 0; iteration < request.repeat; ++iteration) {
        const auto it = std::uint16_t(std::min<std::uint32_t>(iteration, 0xffff));
        double kernelNs = kernel.totalNs;
        for (const auto& transfer : strategy::transfers(id, p)) {
            if (transfer.direction != strategy::Direction::HostToDevice) {
                continue;
            }
            if (explicitCopies) {
                const auto start = t;
                t = add(ActivityKind::HtoD, "copy " + transfer.name, t,
                        modelCopyNs(transfer.bytes, link.htodGBps, m), it);
                auto& a = run.activities.back();
                a.bytes = transfer.bytes;
                a.srcKind = request.memory == MemoryMode::Pinned ? trace::MemoryKind::Pinned
                                                                 : trace::MemoryKind::Pageable;
                a.dstKind = trace::MemoryKind::Device;
                (void)start;
            } else if (request.memory == MemoryMode::Managed && iteration == 0) {
                // Managed pages migrate to the device on first touch: the kernel waits for them.
                kernelNs += modelCopyNs(transfer.bytes, d.pinnedHtoDGBps * m.managedMigrationFraction, m);
            }
        }
        t = add(ActivityKind::Kernel, run.strings[kernelName], t, kernelNs, it);
        auto& k = run.activities.back();
        k.grid = geometry->grid;
        k.block = geometry->block;
        k.registersPerThread = std::uint16_t(registers);
        k.theoreticalOccupancy = float(occ->occupancy);
        for (const auto& transfer : strategy::transfers(id, p)) {
            if (transfer.direction != strategy::Direction::DeviceToHost || !explicitCopies) {
                continue;
            }
            t = add(ActivityKind::DtoH, "copy " + transfer.name, t,
                    modelCopyNs(transfer.bytes, link.dtohGBps, m), it);
            auto& a = run.activities.back();
            a.bytes = transfer.bytes;
            a.srcKind = trace::MemoryKind::Device;
            a.dstKind = request.memory == MemoryMode::Pinned ? trace::MemoryKind::Pinned
                                                             : trace::MemoryKind::Pageable;
        }
    }
    if (geometry->decomposition.layout == strategy::Layout::CRN) {
        t = add(ActivityKind::Host, "layout cv back to R x C x N", t, hostPassNs, 0);
    }
    run.wallNs = t;

    char note[256];
    std::snprintf(note, sizeof note,
                  "modelled, not measured: kernel %s-bound (latency %.3g ms, load/store %.3g ms, "
                  "bandwidth %.3g ms); %u registers per thread assumed",
                  kernel.bound.c_str(), kernel.latencyNs / 1e6, kernel.loadStoreNs / 1e6,
                  kernel.bandwidthNs / 1e6, registers);
    run.notes.emplace_back(note);
    if (!d.runnableWithCuda13()) {
        run.notes.emplace_back("the " + d.name + " (cc " + d.computeCapability() +
                               ") can be modelled but not run with CUDA 13");
    }
    return run;
}

} // namespace slicescope::backend
