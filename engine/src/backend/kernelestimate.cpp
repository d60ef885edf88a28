#include "slicescope/backend/modelparameters.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>

// The kernel estimate of docs/model.md ("The kernel", "Architectures"); keep the two in step.
namespace slicescope::backend {

namespace {

using problem::Problem;
using strategy::LaunchGeometry;
using strategy::StrategyId;

std::uint64_t ceilDiv(std::uint64_t a, std::uint64_t b) {
    return b == 0 ? 0 : a / b + (a % b != 0);
}

// Whether adjacent lanes of a warp touch adjacent elements (one thread per element) or each lane
// walks its own run of elements (a worker per slice).
bool coalesced(StrategyId id) {
    return strategy::info(id).access == strategy::AccessPattern::ElementPerLane;
}

// Newest first, in the order of docs/model.md's "Architectures" table, which says for each figure
// which published microbenchmark study and GPU it was read from (docs/model-sources.md quotes the
// passages) and marks with ≈ the few no study could be found for. Hopper's L2 wait is the H200 fit
// (ModelParameters); its global figure enters only through the DRAM-over-L2 difference. The L1-hit
// column is kept for reference: the model does not use it.
constexpr ArchitectureLatencies kArchitectures[] = {
    // generation, cc, FFMA, DFMA, partitions, L1 hit, L2 hit, global, L1 caches loads, fitted,
    // L2 partitions
    {"Hopper", 90, 4, 8, 4, 40.7, 263, 478, true, true, 2},
    {"Ada", 89, 4, 8, 4, 43.4, 273, 541.5, true, false},
    {"Ampere", 86, 4, 8, 4, 37.9, 261.5, 466.3, true, false}, // GA10x: the A100's latencies
    {"Ampere", 80, 4, 8, 4, 37.9, 261.5, 466.3, true, false, 2},
    {"Turing", 75, 4, 54, 4, 32, 188, 434, true, false},
    {"Volta", 70, 4, 8, 4, 28, 193, 400, true, false},
    {"Pascal", 60, 6, 8, 4, 82, 216, 400, false, false},
    {"Maxwell", 50, 6, 48, 4, 82, 207, 383, false, false},
    {"Kepler", 30, 9, 10, 1, 35, 200, 339, false, false},
};

} // namespace

const ArchitectureLatencies& architectureLatencies(int major, int minor) {
    const int cc = major * 10 + minor;
    for (const auto& a : kArchitectures) {
        if (cc >= a.minComputeCapability) {
            return a;
        }
    }
    return kArchitectures[std::size(kArchitectures) - 1];
}

DeviceLatencies deviceLatencies(const device::DeviceSpec& d, problem::Dtype dtype,
                                const ModelParameters& m) {
    DeviceLatencies out;
    const auto& a = architectureLatencies(d.computeMajor, d.computeMinor);
    out.architecture = &a;
    if (a.fitted) {
        // The fitted L2 wait, plus the published extra latency of DRAM over L2.
        out.l2MissCycles = m.l2MissCycles;
        out.dramMissCycles = m.l2MissCycles + (a.globalLoadCycles - a.l2HitCycles);
    } else {
        out.l2MissCycles = a.l2HitCycles;
        out.dramMissCycles = a.globalLoadCycles;
    }
    const bool f64 = dtype == problem::Dtype::F64;
    const double rate = f64 ? d.fp64FmaPerSmPerClock : d.fp32FmaPerSmPerClock;
    const double pipeline = f64 ? a.fp64DependentFmaCycles : a.fp32DependentFmaCycles;
    const double issue = rate > 0 ? double(d.warpSize) * a.fmaPartitions / rate : 0;
    out.dependentFmaCycles = std::max(pipeline, issue);
    return out;
}

double DeviceLatencies::missCycles(double workingSetBytes, double l2Bytes) const {
    const double dramShare =
        workingSetBytes > l2Bytes && workingSetBytes > 0 ? 1 - l2Bytes / workingSetBytes : 0;
    return l2MissCycles + dramShare * (dramMissCycles - l2MissCycles);
}

namespace {

// How a warp's lanes address one stream: `strideBytes` apart (0: every lane the same element), each
// reading or writing `accessBytes`.
struct LaneStride {
    double strideBytes;
    double accessBytes;
};

// Distinct units (lines or sectors of `unitBytes`) that `lanes` lanes touch at one access.
double unitsTouched(LaneStride l, double lanes, double unitBytes) {
    const double perLane = std::max(1.0, std::ceil(l.accessBytes / unitBytes));
    if (l.strideBytes <= 0) {
        return perLane;
    }
    if (l.strideBytes >= unitBytes) {
        return lanes * perLane;
    }
    return std::max(1.0, std::ceil(lanes * l.strideBytes / unitBytes));
}

// The lane strides of the three streams (discount, multBy, cv), from how each kernel indexes them
// (kernels/*.cu).
struct StreamStrides {
    LaneStride discount, multBy, cv;
};
StreamStrides streamStrides(StrategyId id, const Problem& p, const LaunchGeometry& g) {
    const double s = double(p.elementBytes());
    const double access = s * g.vectorWidth;
    const double n = double(p.shape.n) * s;
    using strategy::AccessPattern;
    switch (strategy::info(id).access) {
    case AccessPattern::NoKernel: // never modelled: modelRun refuses CPU strategies
    case AccessPattern::OneLane:
        return {{0, access}, {0, access}, {0, access}};
    case AccessPattern::RowPerLane: { // lane r walks row r; every lane reads one multBy element
        const double row = double(p.shape.c) * n;
        return {{row, access}, {0, access}, {row, access}};
    }
    case AccessPattern::BlockPerLane: { // C x R x N: lane c walks its own R x N block
        const double block = double(p.shape.r) * n;
        return {{block, access}, {n, access}, {block, access}};
    }
    case AccessPattern::RunPerLane: // lane c (or (r, c)) reads the N-run at c * N (or (r * C + c) *
                                    // N)
        return {{n, access}, {n, access}, {n, access}};
    case AccessPattern::ElementPerLane: // neighbouring lanes, neighbouring elements (or vectors)
        return {{access, access}, {access, access}, {access, access}};
    }
    return {{access, access}, {access, access}, {access, access}};
}

// The units (lines or sectors) one warp step touches in the three streams.
double unitsPerStep(const StreamStrides& strides, double lanes, double unitBytes) {
    return unitsTouched(strides.discount, lanes, unitBytes) +
           unitsTouched(strides.multBy, lanes, unitBytes) +
           unitsTouched(strides.cv, lanes, unitBytes);
}

// The SM's L1 cycles for one warp's step: a load costs a cycle per distinct line its lanes touch,
// a store a cycle per sector written through to L2, more where each lane writes part of one.
double loadStoreCycles(const StreamStrides& strides, double lanes, const ModelParameters& m) {
    const double loadLines = unitsTouched(strides.discount, lanes, m.lineBytes) +
                             unitsTouched(strides.multBy, lanes, m.lineBytes);
    const bool partialSectors = strides.cv.strideBytes > strides.cv.accessBytes;
    return loadLines * m.loadLineCycles +
           unitsTouched(strides.cv, lanes, m.sectorBytes) *
               (partialSectors ? m.partialStoreSectorCycles : m.storeSectorCycles);
}

// The largest of the five terms, by name.
std::string boundOf(const KernelEstimate& e) {
    const double slowest =
        std::max({e.latencyNs, e.loadStoreNs, e.bandwidthNs, e.arithmeticNs, e.blockSchedulingNs});
    if (e.latencyNs == slowest) {
        return "latency";
    } else if (e.arithmeticNs == slowest) {
        return "arithmetic throughput";
    } else if (e.loadStoreNs == slowest) {
        return "load/store pipeline";
    } else if (e.blockSchedulingNs == slowest) {
        return "block scheduling";
    }
    return "memory bandwidth";
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
    const std::uint64_t residentBlocks =
        std::uint64_t(std::max<std::uint32_t>(activeBlocksPerSm, 1)) * d.smCount;
    const double activeSms = double(std::min<std::uint64_t>(d.smCount, blocks));
    const double work = double(p.workPerElement);

    // Steps each thread takes.
    const std::uint64_t steps = g.gridStride
                                    ? ceilDiv(p.elements(), g.threadsLaunched() * g.vectorWidth)
                                    : g.decomposition.elementsPerWorker;
    // The bytes the kernel reads and writes in device memory: its working set.
    const double dramBytes =
        double(strategy::bytesToDevice(id, p) + strategy::bytesFromDevice(id, p));
    const DeviceLatencies lat = deviceLatencies(d, p.dtype, m);
    const double missCycles = lat.missCycles(dramBytes, double(d.l2CacheBytes));

    const std::uint64_t busyWarps = ceilDiv(g.busyThreads, d.warpSize);
    const double lanesPerWarp =
        double(g.busyThreads) / double(std::max<std::uint64_t>(busyWarps, 1));
    const StreamStrides strides = streamStrides(id, p, g);
    const double discountLines = unitsTouched(strides.discount, lanesPerWarp, m.lineBytes);
    const double warpStepCycles = loadStoreCycles(strides, lanesPerWarp, m);
    const double warpSteps = double(g.gridStride ? steps : g.decomposition.elementsPerWorker);
    // The busiest SM gets ceil(blocks / SMs) blocks and runs them in `rounds` rounds; the kernel
    // ends when it does.
    const double blocksPerSm = double(ceilDiv(blocks, std::uint64_t(activeSms)));
    const double rounds =
        std::ceil(blocksPerSm / double(std::max<std::uint32_t>(activeBlocksPerSm, 1)));
    const double busyWarpsPerBlock =
        std::min(double(busyWarps) / double(blocks), double(ceilDiv(blockThreads, d.warpSize)));
    const double warpsPerSm = std::min(double(busyWarps), blocksPerSm * busyWarpsPerBlock);

    // 1. Latency: the chain of dependent steps a warp walks, for as many rounds as the busiest SM
    //    needs to run its blocks. A step waits for its loads when it walks into a new sector: a
    //    lane walking its own slice every s·v / 32 steps; a lane walking N-runs (the strided and
    //    2-D slices) once a run while a run fits in a line, else as often as a lane walking its
    //    own slice; the element-wise kernels every step.
    //    Where global loads bypass L1 by default, every step waits for L2.
    const double sectorStep = std::min(1.0, s * g.vectorWidth / m.sectorBytes);
    double sectorsPerStep = 1;
    const strategy::AccessPattern access = strategy::info(id).access;
    if (!lat.architecture->globalLoadsCachedInL1) {
        sectorsPerStep = 1;
    } else if (access == strategy::AccessPattern::OneLane ||
               access == strategy::AccessPattern::RowPerLane ||
               access == strategy::AccessPattern::BlockPerLane) {
        sectorsPerStep = sectorStep;
    } else if (access == strategy::AccessPattern::RunPerLane) {
        // A run within a line arrives at once; a longer one sector by sector.
        const double n = double(std::max<std::uint64_t>(p.shape.n, 1));
        sectorsPerStep = n * s <= m.lineBytes ? 1 / n : std::max(1 / n, sectorStep);
    }
    const double missWait = missCycles + discountLines * m.lineMissCycles;
    double stepCycles = warpStepCycles + (work - 1) * lat.dependentFmaCycles;
    if (work > 1 && !coalesced(id)) {
        // A multiply-add loop between a lane's elements: its next loads are issued only when the
        // chain is done, so every step waits for an L2 hit (the generation's published latency),
        // and a step into a new sector for the rest of the miss as well.
        const double hit = lat.architecture->l2HitCycles;
        stepCycles += hit + sectorsPerStep * std::max(0.0, missWait - hit);
    } else {
        stepCycles += sectorsPerStep * missWait;
    }
    e.latencyNs = rounds * warpSteps * stepCycles / clockHz * 1e9;

    // 2. Load/store pipeline: the busiest SM's L1 serves every warp's lines and sectors.
    e.loadStoreNs = warpsPerSm * warpSteps * warpStepCycles / clockHz * 1e9;

    // 3. Memory bandwidth: the bytes the kernel must move. Coalesced kernels reach the rate their
    //    resident threads keep in flight (Little's law). Slice walkers whose lanes each touch a
    //    line of their own fetch scattered sectors, which DRAM serves at a fraction of its
    //    streaming rate; their own latency is already term 1. Mapped memory crosses the host link.
    double efficiency = m.peakBandwidthFraction;
    if (coalesced(id)) {
        const double residentBusy =
            double(std::min<std::uint64_t>(g.busyThreads, residentBlocks * blockThreads));
        const double inFlightBytes =
            residentBusy * m.bytesInFlightPerThread * s / 8 * g.vectorWidth;
        const double neededInFlight = d.memoryBandwidthGBps * 1e9 * (missCycles / clockHz);
        efficiency *= std::min(1.0, inFlightBytes / neededInFlight);
    } else if (discountLines >= lanesPerWarp && lanesPerWarp > 1) {
        efficiency *= m.scatteredBandwidthFraction;
    }
    double bandwidthGBps = d.memoryBandwidthGBps * efficiency;
    if (memory == MemoryMode::Mapped) {
        bandwidthGBps = std::min(bandwidthGBps, std::min(d.pinnedHtoDGBps, d.pinnedDtoHGBps));
    }
    // Transactions: a walker's lane uses a sector over several steps. While the lines every
    //    resident warp is walking fit in L2, each sector comes from DRAM once; beyond, the share
    //    of them L2 cannot hold is fetched again at every step that touches it, a whole sector
    //    for each lane's element. Where L2 is two partitions, a line may be cached in both (its
    //    home and the one next to the SM that walks it): the lines count against one partition.
    double movedBytes = dramBytes;
    if (!coalesced(id)) {
        const double residentWarps =
            std::min(double(busyWarps), double(residentBlocks) * busyWarpsPerBlock);
        const double walking =
            residentWarps * unitsPerStep(strides, lanesPerWarp, m.lineBytes) * m.lineBytes;
        const double l2 = double(d.l2CacheBytes) / lat.architecture->l2Partitions;
        if (walking > l2 && l2 > 0) {
            const double everyStep = double(busyWarps) * warpSteps *
                                     unitsPerStep(strides, lanesPerWarp, m.sectorBytes) *
                                     m.sectorBytes;
            movedBytes += (1 - l2 / walking) * std::max(0.0, everyStep - dramBytes);
        }
    }
    e.bandwidthNs = movedBytes / (bandwidthGBps * 1e9) * 1e9;
    e.transactionFactor = dramBytes > 0 ? movedBytes / dramBytes : 1;

    // 4. Arithmetic throughput: each element costs k operations on the FMA pipe (the multiply,
    //    then k - 1 multiply-adds). A warp instruction occupies 32 lanes whether or not they are
    //    busy, and the SMs holding blocks retire `rate` lanes per clock each.
    const double fmaRate =
        p.dtype == problem::Dtype::F64 ? d.fp64FmaPerSmPerClock : d.fp32FmaPerSmPerClock;
    // The work loop's control takes issue slots too: nvcc unrolls it by four, three control
    //    instructions (count, compare, branch) per four multiply-adds and per leftover one.
    const double extra = work - 1;
    const double loopControl = 3 * std::floor(extra / 4) + 3 * std::fmod(extra, 4);
    const double warpStepArithmeticCycles =
        fmaRate > 0 ? double(g.vectorWidth) * (double(d.warpSize) * work / fmaRate +
                                               loopControl / lat.architecture->fmaPartitions)
                    : 0;
    e.arithmeticNs = std::ceil(warpsPerSm) * warpSteps * warpStepArithmeticCycles / clockHz * 1e9;

    // 5. Block scheduling: the busiest SM starts its blocks one after another.
    e.blockSchedulingNs = blocksPerSm * m.blockLaunchCycles / clockHz * 1e9;

    // Memory and arithmetic overlap only across warps at different phases. The first round's
    //    warps start together and load, compute and store in step, so one round's share of the
    //    smaller of the two is not hidden; later rounds start staggered and overlap.
    const double memoryNs = std::max(e.loadStoreNs, e.bandwidthNs);
    const double overlappedNs =
        std::max(memoryNs, e.arithmeticNs) + std::min(memoryNs, e.arithmeticNs) / rounds;
    e.totalNs = m.launchOverheadNs + std::max({e.latencyNs, overlappedNs, e.blockSchedulingNs});
    e.bound = boundOf(e);
    return e;
}

std::string boundInWords(const KernelEstimate& e) {
    std::string words;
    if (e.bound == "latency") {
        words = "each thread waits for its memory loads one after another, and too few threads "
                "run at once to hide the wait";
    } else if (e.bound == "load/store pipeline") {
        words = "at each step a warp's threads touch many separate cache lines, which queue in "
                "the SM's load/store unit one line at a time (the accesses are not coalesced)";
    } else if (e.bound == "memory bandwidth") {
        words = "the bytes it reads and writes keep the GPU's memory busy: it runs as fast as "
                "memory delivers";
    } else if (e.bound == "arithmetic throughput") {
        words = "its multiply-adds keep the SMs' FMA units busy: the work itself takes the time";
    } else if (e.bound == "block scheduling") {
        words = "it launches many short blocks, and the SMs spend their time starting them";
    }
    if (e.transactionFactor > 1.2) {
        char factor[32];
        std::snprintf(factor, sizeof factor, "%.1f", e.transactionFactor);
        words += std::string(words.empty() ? "" : "; ") +
                 "its threads' scattered sectors do not all stay in L2, so memory moves " + factor +
                 "x the bytes the kernel needs";
    }
    return words;
}

} // namespace slicescope::backend
