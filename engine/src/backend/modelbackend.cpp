#include "slicescope/backend/modelbackend.h"

#include "slicescope/backend/measuredsetting.h"
#include "slicescope/backend/modelparameters.h"
#include "slicescope/core/clock.h"
#include "slicescope/occupancy/occupancycalculator.h"
#include "slicescope/trace/tracelimits.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>

namespace slicescope::embedded {
std::string_view kernelRegistersJson(); // resources/kernel-registers.json, compiled in by CMake
} // namespace slicescope::embedded

// The formulas are in docs/model.md; keep the two in step.
namespace slicescope::backend {

namespace {

using problem::Problem;
using strategy::LaunchGeometry;
using strategy::StrategyId;
using trace::Activity;
using trace::ActivityKind;

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

} // namespace

Result<KernelRegisters> kernelRegisters(StrategyId id, problem::Dtype dtype,
                                        const device::DeviceSpec& d) {
    struct Entry {
        std::uint32_t sm;
        std::uint32_t registers;
    };
    // Parsed once; a broken table is a build bug that tst_modelbackend catches.
    static const Result<nlohmann::json> table = []() -> Result<nlohmann::json> {
        try {
            return nlohmann::json::parse(embedded::kernelRegistersJson());
        } catch (const nlohmann::json::exception& e) {
            return fail(Error::Code::Internal,
                        std::string("resources/kernel-registers.json is broken: ") + e.what());
        }
    }();
    if (!table) {
        return tl::unexpected(table.error());
    }
    std::vector<Entry> entries;
    const std::string kernelName(strategy::info(id).kernel);
    const std::string dtypeName(problem::toString(dtype));
    try {
        for (const auto& k : table->at("kernels")) {
            if (k.at("kernel").get<std::string>() == kernelName &&
                k.at("dtype").get<std::string>() == dtypeName) {
                entries.push_back(
                    {k.at("sm").get<std::uint32_t>(), k.at("registers").get<std::uint32_t>()});
            }
        }
    } catch (const nlohmann::json::exception& e) {
        return fail(Error::Code::Internal,
                    std::string("resources/kernel-registers.json is broken: ") + e.what());
    }
    if (entries.empty()) {
        return fail(Error::Code::Internal, "resources/kernel-registers.json has no " + dtypeName +
                                               " kernel of " + kernelName + ".cu");
    }
    std::sort(entries.begin(), entries.end(), [](Entry a, Entry b) { return a.sm < b.sm; });
    // The CUDA runtime loads the cubin of the device's major version with the largest minor not
    // above the device's.
    const auto major = std::uint32_t(std::max(d.computeMajor, 0));
    const auto minor = std::uint32_t(std::max(d.computeMinor, 0));
    const Entry* chosen = nullptr;
    for (const auto& e : entries) {
        if (e.sm / 10 == major && e.sm % 10 <= minor) {
            chosen = &e;
        }
    }
    KernelRegisters out;
    const auto smName = [](std::uint32_t sm) { return "sm_" + std::to_string(sm); };
    if (chosen != nullptr) {
        out.registers = chosen->registers;
        out.sm = chosen->sm;
        out.origin = std::to_string(out.registers) + " registers per thread (ptxas, " +
                     smName(out.sm) + " build, resources/kernel-registers.json)";
        return out;
    }
    // No cubin for this architecture: older devices (CUDA 13 cannot compile for them) take the
    // oldest architecture built, newer ones the newest; either way an estimate, labelled so.
    const bool older = major * 10 + minor < entries.front().sm;
    const Entry& standIn = older ? entries.front() : entries.back();
    out.sm = standIn.sm;
    out.fallback = true;
    out.registers = std::min(standIn.registers, d.maxRegistersPerThread);
    out.origin =
        std::to_string(out.registers) + " registers per thread assumed: the " + smName(standIn.sm) +
        " build's " + std::to_string(standIn.registers) +
        " (resources/kernel-registers.json) stand in, since CUDA 13 builds no cubin for cc " +
        d.computeCapability() +
        (out.registers < standIn.registers
             ? "; capped at the device's " + std::to_string(d.maxRegistersPerThread)
             : std::string());
    return out;
}

double modelCopyNs(std::uint64_t bytes, double bandwidthGBps, const ModelParameters& m) {
    return m.copyLatencyNs + double(bytes) / (bandwidthGBps * 1e9) * 1e9;
}

namespace {

// One chunk of a pipelined run, modelled as a problem of its own (docs/model.md, "Pipelines").
struct ChunkModel {
    LaunchGeometry geometry;
    double htodNs = 0;      // its discount (and multBy, where cut) in
    double kernelNs = 0;    // launch overhead included
    double dtohNs = 0;      // its cv out
    double migrationNs = 0; // managed memory: its pages, on the first repetition
    std::uint64_t htodBytes = 0, dtohBytes = 0;
};

// What one modelled run holds from its plan to its notes (modelRun's steps).
struct ModelledRun {
    ModelledRun(StrategyId strategyId, const RunRequest& runRequest, const device::DeviceSpec& spec,
                const ModelParameters& parameters)
        : id(strategyId), request(runRequest), d(spec), m(parameters), p(runRequest.problem) {}
    const StrategyId id;
    const RunRequest& request;
    const device::DeviceSpec& d;
    const ModelParameters& m;
    const Problem& p;

    // The launch: its limits, the kernel's registers, theoretical occupancy and geometry.
    strategy::LaunchLimits limits;
    KernelRegisters kernelRegs;
    occupancy::OccupancyResult occ;
    LaunchGeometry geometry;

    trace::Run run;
    KernelEstimate kernel;
    LinkRates link{};
    bool explicitCopies = false;
    double hostPassNs = 0;

    // Pipelined runs: the chunks, and how many of their kernels run at once.
    strategy::PipelinePlan plan;
    bool pipelined = false;
    std::vector<ChunkModel> chunkModels;
    double sharedMultByNs = 0;
    std::uint32_t concurrentKernels = 1;
    double pipelineSerialNs = 0; // every activity of one repetition end to end: a bound

    std::uint32_t kernelName = 0; // the modelled kernel's name in run.strings
    trace::MemoryKind srcKind = trace::MemoryKind::Pageable; // of the host end of each copy
};

// Whether the request is one the model can run on this device.
Status checkModelInputs(StrategyId id, const RunRequest& request, const device::DeviceSpec& d) {
    if (!strategy::isGpu(id)) {
        return fail(Error::Code::InvalidArgument, std::string(strategy::toString(id)) +
                                                      " runs on the CPU and cannot be modelled");
    }
    if (d.smCount == 0 || d.clockMHz <= 0 || d.memoryBandwidthGBps <= 0 || d.pinnedHtoDGBps <= 0 ||
        d.pageableHtoDGBps <= 0 || d.fp32FmaPerSmPerClock <= 0 || d.fp64FmaPerSmPerClock <= 0 ||
        d.l2CacheBytes == 0) {
        return fail(
            Error::Code::InvalidArgument,
            "device '" + d.name +
                "' lacks the figures the model needs (SMs, clock, bandwidths, FMA rates, L2)");
    }
    if (request.repeat < 1) {
        return fail(Error::Code::InvalidArgument, "repeat must be >= 1");
    }
    if (auto checked = strategy::checkPipeline(request.pipeline); !checked) {
        return tl::unexpected(checked.error());
    }
    return {};
}

// The launch the strategy's data prescribes on this device, and whether it fits in its memory.
Status planLaunch(ModelledRun& r) {
    const device::DeviceSpec& d = r.d;
    r.limits.kernelMaxThreadsPerBlock =
        std::min(d.maxThreadsPerBlock, r.m.kernelMaxThreadsPerBlock);
    const auto threads = strategy::blockThreads(r.request.block, r.limits);
    if (!threads) {
        return tl::unexpected(threads.error());
    }
    auto kernelRegs = kernelRegisters(r.id, r.p.dtype, d);
    if (!kernelRegs) {
        return tl::unexpected(kernelRegs.error());
    }
    r.kernelRegs = std::move(*kernelRegs);
    auto occ = occupancy::calculate(d, {*threads, r.kernelRegs.registers, 0});
    if (!occ) {
        return tl::unexpected(occ.error());
    }
    r.occ = std::move(*occ);
    r.limits.smCount = d.smCount;
    r.limits.residentBlocksPerSm = r.occ.activeBlocksPerSm;
    auto geometry = strategy::launchGeometry(r.id, r.p, r.request.block, r.limits);
    if (!geometry) {
        return tl::unexpected(geometry.error());
    }
    r.geometry = *geometry;
    const auto footprint = strategy::memoryFootprint(r.id, r.p);
    if (d.globalMemoryBytes > 0 && footprint.deviceBytes > d.globalMemoryBytes) {
        return fail(Error::Code::InsufficientMemory,
                    std::string(strategy::toString(r.id)) + " on " + r.p.describe() + " needs " +
                        std::to_string(footprint.deviceBytes >> 20) +
                        " MiB of device memory; the " + d.name + " has " +
                        std::to_string(d.globalMemoryBytes >> 20) + " MiB");
    }
    return {};
}

// The run's header, its launch and its theoretical occupancy.
void describeRun(ModelledRun& r) {
    const device::DeviceSpec& d = r.d;
    const LaunchGeometry& geometry = r.geometry;
    trace::Run& run = r.run;
    run.id = std::string(strategy::toString(r.id));
    run.strategy = run.id;
    run.mode = trace::RunMode::Modelled;
    run.problem = r.p;
    run.device = d;
    run.device.sources.clear();
    // As a trace file holds it: the FMA rates are preset figures the trace does not carry.
    run.device.fp32FmaPerSmPerClock = 0;
    run.device.fp64FmaPerSmPerClock = 0;
    run.device.l2CacheBytes = 0;
    run.memoryMode = std::string(toString(r.request.memory));
    run.repeat = r.request.repeat;
    run.createdAt = isoTimestampUtc();

    trace::LaunchInfo launch;
    launch.grid = geometry.grid;
    launch.block = geometry.block;
    launch.workers = geometry.decomposition.workers;
    launch.elementsPerWorker = geometry.decomposition.elementsPerWorker;
    launch.layout = std::string(strategy::toString(geometry.decomposition.layout));
    launch.blockOption = strategy::toString(r.request.block);
    launch.gridStride = geometry.gridStride;
    launch.registersPerThread = r.kernelRegs.registers;
    run.launch = launch;

    trace::OccupancyInfo occupancyInfo;
    occupancyInfo.theoretical = r.occ.occupancy;
    occupancyInfo.threadSlotsBusy =
        strategy::threadSlotsBusy(geometry, r.occ.activeBlocksPerSm, d.smCount, d.maxThreadsPerSm);
    occupancyInfo.limiter = std::string(occupancy::toString(r.occ.limiter));
    occupancyInfo.explanation = r.occ.explanation;
    occupancyInfo.activeBlocksPerSm = r.occ.activeBlocksPerSm;
    run.occupancy = occupancyInfo;
}

// Pipelined runs (docs/model.md, "Pipelines"): every chunk is modelled as a problem of its
// own, with its own launch overhead and copy latencies.
Status planChunks(ModelledRun& r) {
    const device::DeviceSpec& d = r.d;
    const ModelParameters& m = r.m;
    const Problem& p = r.p;
    r.plan = strategy::planPipeline(r.id, p, r.request.pipeline);
    r.pipelined = r.plan.chunks.size() > 1;
    r.run.chunks = std::uint32_t(r.plan.chunks.size());
    r.run.streams = r.plan.streams;
    if (!r.pipelined) {
        return {};
    }
    std::uint64_t largestGrid = 1;
    for (const auto& chunk : r.plan.chunks) {
        auto g = strategy::launchGeometry(r.id, chunk.problem, r.request.block, r.limits);
        if (!g) {
            return tl::unexpected(g.error());
        }
        ChunkModel cm;
        cm.geometry = *g;
        cm.kernelNs =
            estimateKernel(r.id, chunk.problem, *g, r.occ.activeBlocksPerSm, d, r.request.memory, m)
                .totalNs;
        cm.htodBytes = (chunk.arrayElements + chunk.multByElements) * p.elementBytes();
        cm.dtohBytes = chunk.arrayElements * p.elementBytes();
        if (r.explicitCopies) {
            cm.htodNs =
                modelCopyNs(chunk.arrayElements * p.elementBytes(), r.link.htodGBps, m) +
                (chunk.multByElements > 0
                     ? modelCopyNs(chunk.multByElements * p.elementBytes(), r.link.htodGBps, m)
                     : 0);
            cm.dtohNs = modelCopyNs(cm.dtohBytes, r.link.dtohGBps, m);
        } else if (r.request.memory == MemoryMode::Managed) {
            cm.migrationNs =
                modelCopyNs(cm.htodBytes, d.pinnedHtoDGBps * m.managedMigrationFraction, m);
        }
        largestGrid = std::max<std::uint64_t>(largestGrid, g->grid.count());
        r.pipelineSerialNs += cm.htodNs + cm.kernelNs + cm.dtohNs + cm.migrationNs + 4;
        r.chunkModels.push_back(cm);
    }
    if (r.plan.sharedMultBy && r.explicitCopies) {
        r.sharedMultByNs = modelCopyNs(p.multByBytes(), r.link.htodGBps, m);
        r.pipelineSerialNs += r.sharedMultByNs + 1;
    }
    // Kernels of different streams share the SMs: as many run at once as their grids fit
    // in the device's resident block slots together, never more than there are streams.
    const std::uint64_t residentBlocks =
        std::uint64_t(std::max<std::uint32_t>(r.occ.activeBlocksPerSm, 1)) * d.smCount;
    r.concurrentKernels = std::uint32_t(
        std::clamp<std::uint64_t>(residentBlocks / largestGrid, 1, std::uint64_t(r.plan.streams)));
    // As the GPU backend records it: the run's launch is the first (largest) chunk's.
    const LaunchGeometry& g = r.chunkModels.front().geometry;
    r.run.launch->grid = g.grid;
    r.run.launch->workers = g.decomposition.workers;
    r.run.launch->elementsPerWorker = g.decomposition.elementsPerWorker;
    r.run.occupancy->threadSlotsBusy =
        strategy::threadSlotsBusy(g, r.occ.activeBlocksPerSm, d.smCount, d.maxThreadsPerSm);
    return {};
}

// A timeline beyond the trace's bound on "wall_ns" (a model's own bound, 2^62, let runs through
// that the writer then refused, losing every run): refused, naming the option to lower.
Status timelineRefusal(const ModelledRun& r, double totalNs, double repetitionNs, double extraNs) {
    char modelled[128];
    std::snprintf(modelled, sizeof modelled, " would be modelled as %.3g s, beyond the %lld ns",
                  totalNs / 1e9, static_cast<long long>(trace::kMaxDurationNs));
    const std::string what = std::string(strategy::toString(r.id)) + " on " + r.p.describe() +
                             modelled + " (2^53, about 104 days) a trace can hold";
    const double fitting = std::floor((double(trace::kMaxDurationNs) - 1 - extraNs) / repetitionNs);
    return r.request.repeat > 1 && fitting >= 1
               ? fail(Error::Code::Overflow, "--repeat " + std::to_string(r.request.repeat) +
                                                 " is too many: " + what + "; at most " +
                                                 std::to_string(std::uint64_t(fitting)) +
                                                 " repetitions fit: lower --repeat, or --work "
                                                 "or --shape")
               : fail(Error::Code::Overflow, "--work " + std::to_string(r.p.workPerElement) +
                                                 " is too much: one repetition of " + what +
                                                 "; lower --work or --shape");
}

// Refused before anything is modelled; the estimate is at least what modelRepetitions makes.
Status checkTimelineFits(const ModelledRun& r) {
    double iterationNs = r.kernel.totalNs;
    double firstIterationExtraNs = 0;
    for (const auto& transfer : strategy::transfers(r.id, r.p)) {
        const bool htod = transfer.direction == strategy::Direction::HostToDevice;
        if (r.explicitCopies) {
            iterationNs +=
                modelCopyNs(transfer.bytes, htod ? r.link.htodGBps : r.link.dtohGBps, r.m);
        } else if (r.request.memory == MemoryMode::Managed && htod) {
            firstIterationExtraNs +=
                modelCopyNs(transfer.bytes, r.d.pinnedHtoDGBps * r.m.managedMigrationFraction, r.m);
        }
    }
    // Every activity (transfers, kernel, up to 3 host layout passes, which run in every iteration
    // as in the GPU backend) lasts at least 1 ns and is rounded (addActivity).
    const double activities = double(strategy::transfers(r.id, r.p).size() + 1 + 3);
    const double repetitionNs =
        std::max(iterationNs, r.pipelineSerialNs) + activities + 3 * std::max(1.0, r.hostPassNs);
    const double totalNs = firstIterationExtraNs + double(r.request.repeat) * repetitionNs;
    if (std::isfinite(totalNs) && totalNs < double(trace::kMaxDurationNs)) {
        return {};
    }
    return timelineRefusal(r, totalNs, repetitionNs, firstIterationExtraNs);
}

// Adds an activity of at least 1 ns to the run; returns its end.
std::int64_t addActivity(trace::Run& run, ActivityKind kind, std::string_view name,
                         std::int64_t start, double durationNs, std::uint16_t iteration) {
    Activity a;
    a.kind = kind;
    a.startNs = start;
    a.endNs = start + std::max<std::int64_t>(1, std::llround(durationNs));
    a.nameId = run.intern(name);
    a.iteration = iteration;
    run.activities.push_back(a);
    return a.endNs;
}

// The kernel activity just added: its launch, as the GPU backend records it.
void describeKernel(ModelledRun& r, const LaunchGeometry& g) {
    auto& k = r.run.activities.back();
    k.grid = g.grid;
    k.block = g.block;
    k.registersPerThread = std::uint16_t(r.kernelRegs.registers);
    k.theoreticalOccupancy = float(r.occ.occupancy);
}

// The copy activity just added: its bytes and the memory at its two ends.
void describeCopy(ModelledRun& r, std::uint64_t bytes, trace::MemoryKind src,
                  trace::MemoryKind dst) {
    auto& a = r.run.activities.back();
    a.bytes = bytes;
    a.srcKind = src;
    a.dstKind = dst;
}

// One pipelined repetition from t0, issued chunk by chunk as the GPU backend does; returns
// its end. One copy engine per direction: copies of one direction run one after another, in
// issue order; HtoD, DtoH and kernels run at the same time. A stream runs its own work in
// order. Pageable copies stage through the driver while the host waits, so with pageable
// memory nothing overlaps: every activity starts after the one issued before it ends.
std::int64_t modelPipelined(ModelledRun& r, std::int64_t t0, std::uint16_t it, bool first) {
    const bool serial = r.request.memory == MemoryMode::Pageable;
    std::vector<std::int64_t> streamFree(r.plan.streams, t0);
    std::vector<std::int64_t> kernelSlotFree(r.concurrentKernels, t0);
    std::int64_t htodFree = t0, dtohFree = t0, lastEnd = t0, end = t0;
    const auto emit = [&](ActivityKind kind, std::string_view name, std::int64_t ready, double ns,
                          std::uint32_t stream) {
        const std::int64_t start = serial ? std::max(ready, lastEnd) : ready;
        const std::int64_t stop = addActivity(r.run, kind, name, start, ns, it);
        r.run.activities.back().stream = stream;
        lastEnd = stop;
        end = std::max(end, stop);
        return stop;
    };
    std::int64_t inputsReady = t0;
    if (r.sharedMultByNs > 0) {
        inputsReady = emit(ActivityKind::HtoD, "copy multBy", t0, r.sharedMultByNs, 0);
        describeCopy(r, r.p.multByBytes(), r.srcKind, trace::MemoryKind::Device);
        htodFree = streamFree[0] = inputsReady;
    }
    for (std::size_t i = 0; i < r.plan.chunks.size(); ++i) {
        const auto& cm = r.chunkModels[i];
        const std::uint32_t st = r.plan.chunks[i].stream;
        std::int64_t ready = std::max(streamFree[st], inputsReady);
        if (r.explicitCopies) {
            ready = emit(ActivityKind::HtoD, "copy chunk " + std::to_string(i) + " in",
                         std::max(ready, htodFree), cm.htodNs, st);
            htodFree = ready;
            describeCopy(r, cm.htodBytes, r.srcKind, trace::MemoryKind::Device);
        }
        auto slot = std::min_element(kernelSlotFree.begin(), kernelSlotFree.end());
        ready = emit(ActivityKind::Kernel, r.run.strings[r.kernelName], std::max(ready, *slot),
                     cm.kernelNs + (first ? cm.migrationNs : 0), st);
        *slot = ready;
        describeKernel(r, cm.geometry);
        if (r.explicitCopies) {
            ready = emit(ActivityKind::DtoH, "copy chunk " + std::to_string(i) + " out",
                         std::max(ready, dtohFree), cm.dtohNs, st);
            dtohFree = ready;
            describeCopy(r, cm.dtohBytes, trace::MemoryKind::Device, r.srcKind);
        }
        streamFree[st] = ready;
    }
    return end;
}

// One repetition on one stream: copies in, the kernel, copies out, one after another.
std::int64_t modelOneStream(ModelledRun& r, std::int64_t start, std::uint16_t it, bool first) {
    const ModelParameters& m = r.m;
    std::int64_t at = start;
    double kernelNs = r.kernel.totalNs;
    for (const auto& transfer : strategy::transfers(r.id, r.p)) {
        if (transfer.direction != strategy::Direction::HostToDevice) {
            continue;
        }
        if (r.explicitCopies) {
            at = addActivity(r.run, ActivityKind::HtoD, "copy " + transfer.name, at,
                             modelCopyNs(transfer.bytes, r.link.htodGBps, m), it);
            describeCopy(r, transfer.bytes, r.srcKind, trace::MemoryKind::Device);
        } else if (r.request.memory == MemoryMode::Managed && first) {
            // Managed pages migrate to the device on first touch: the kernel waits for them.
            kernelNs +=
                modelCopyNs(transfer.bytes, r.d.pinnedHtoDGBps * m.managedMigrationFraction, m);
        }
    }
    at = addActivity(r.run, ActivityKind::Kernel, r.run.strings[r.kernelName], at, kernelNs, it);
    describeKernel(r, r.geometry);
    for (const auto& transfer : strategy::transfers(r.id, r.p)) {
        if (transfer.direction != strategy::Direction::DeviceToHost || !r.explicitCopies) {
            continue;
        }
        at = addActivity(r.run, ActivityKind::DtoH, "copy " + transfer.name, at,
                         modelCopyNs(transfer.bytes, r.link.dtohGBps, m), it);
        describeCopy(r, transfer.bytes, trace::MemoryKind::Device, r.srcKind);
    }
    return at;
}

// The modelled repetitions, one after another from 0; the run's wall time is their end.
void modelRepetitions(ModelledRun& r) {
    const bool crn = r.geometry.decomposition.layout == strategy::Layout::CRN;
    std::int64_t t = 0;
    for (std::uint32_t iteration = 0; iteration < r.request.repeat; ++iteration) {
        const auto it = std::uint16_t(std::min<std::uint32_t>(iteration, 0xffff));
        // The strategy's host layout passes are part of every call of it (runsummary.h).
        if (crn) {
            t = addActivity(r.run, ActivityKind::Host, "layout discount as C x R x N", t,
                            r.hostPassNs, it);
        }
        if (strategy::info(r.id).materializesMultBy) {
            t = addActivity(r.run, ActivityKind::Host, "materialize multBy to R x C x N", t,
                            r.hostPassNs, it);
        }
        if (r.pipelined) {
            t = modelPipelined(r, t, it, iteration == 0);
        } else {
            t = modelOneStream(r, t, it, iteration == 0);
        }
        if (crn) {
            t = addActivity(r.run, ActivityKind::Host, "layout cv back to R x C x N", t,
                            r.hostPassNs, it);
        }
    }
    r.run.wallNs = t;
}

// What the run says of itself: modelled, what bounds its kernel, its pipeline, its registers.
void addModelNotes(ModelledRun& r) {
    const device::DeviceSpec& d = r.d;
    const KernelEstimate& kernel = r.kernel;
    trace::Run& run = r.run;
    const DeviceLatencies latencies = deviceLatencies(d, r.p.dtype, r.m);
    char note[512];
    std::snprintf(note, sizeof note,
                  "modelled, not measured: kernel %s-bound (latency %.3g ms, load/store %.3g ms, "
                  "bandwidth %.3g ms, arithmetic %.3g ms, block scheduling %.3g ms); %s "
                  "latencies (%s)",
                  kernel.bound.c_str(), kernel.latencyNs / 1e6, kernel.loadStoreNs / 1e6,
                  kernel.bandwidthNs / 1e6, kernel.arithmeticNs / 1e6,
                  kernel.blockSchedulingNs / 1e6, latencies.architecture->generation,
                  latencies.architecture->fitted ? "fitted to H200 measurements"
                                                 : "published microbenchmarks, docs/model.md");
    run.notes.emplace_back(note);
    if (const std::string words = boundInWords(kernel); !words.empty()) {
        run.notes.push_back("why, modelled: " + words);
    }
    if (r.pipelined) {
        run.notes.push_back(
            "modelled pipeline: " + std::to_string(run.chunks) + " chunks on " +
            std::to_string(run.streams) + (run.streams == 1 ? " stream" : " streams") +
            "; one copy engine per direction; up to " + std::to_string(r.concurrentKernels) +
            (r.concurrentKernels == 1 ? " kernel" : " kernels") +
            " at a time (as many as fit in the resident block slots together)" +
            (r.request.memory == MemoryMode::Pageable
                 ? "; pageable copies stage through the driver while the host waits, so nothing "
                   "overlaps"
                 : std::string()));
        if (run.chunks < r.request.pipeline.chunks) {
            run.notes.push_back(std::to_string(r.request.pipeline.chunks) + " chunks asked for, " +
                                std::to_string(run.chunks) +
                                " made: a chunk holds at least one row of the outer dimension");
        }
    }
    run.notes.emplace_back(r.kernelRegs.origin);
    if (!d.runnableWithCuda13()) {
        run.notes.emplace_back("the " + d.name + " (cc " + d.computeCapability() +
                               ") can be modelled but not run with CUDA 13");
    }
}

} // namespace

// The steps of docs/model.md: the launch and its occupancy, the kernel's estimate, the
// pipeline's chunks, the modelled repetitions, the notes.
Result<trace::Run> modelRun(StrategyId id, const RunRequest& request, const device::DeviceSpec& d,
                            const ModelParameters& m) {
    if (auto valid = checkModelInputs(id, request, d); !valid) {
        return tl::unexpected(valid.error());
    }
    ModelledRun r(id, request, d, m);
    if (auto planned = planLaunch(r); !planned) {
        return tl::unexpected(planned.error());
    }
    describeRun(r);
    r.kernel = estimateKernel(id, r.p, r.geometry, r.occ.activeBlocksPerSm, d, request.memory, m);
    r.link = linkRates(d, request.memory);
    r.explicitCopies =
        request.memory == MemoryMode::Pageable || request.memory == MemoryMode::Pinned;
    r.hostPassNs = double(r.p.arrayBytes()) / (m.hostCopyGBps * 1e9) * 1e9;
    if (auto chunked = planChunks(r); !chunked) {
        return tl::unexpected(chunked.error());
    }
    if (auto fits = checkTimelineFits(r); !fits) {
        return tl::unexpected(fits.error());
    }
    r.kernelName = r.run.intern("modelled " + r.run.strategy + " kernel");
    r.srcKind = request.memory == MemoryMode::Pinned ? trace::MemoryKind::Pinned
                                                     : trace::MemoryKind::Pageable;
    modelRepetitions(r);
    if (const double wallNs = double(r.run.wallNs); wallNs > double(trace::kMaxDurationNs)) {
        return tl::unexpected(timelineRefusal(r, wallNs, wallNs / r.request.repeat, 0).error());
    }
    addModelNotes(r);
    return std::move(r.run);
}

Result<ModelComparison> compareWithModel(const trace::Run& measured,
                                         const ModelParameters& parameters) {
    auto setting = measuredSetting(measured);
    if (!setting) {
        return tl::unexpected(setting.error());
    }
    auto modelled = modelRun(setting->strategy, setting->request, *setting->preset, parameters);
    if (!modelled) {
        return tl::unexpected(modelled.error());
    }
    const auto perKernel = [](const trace::Run& run) {
        double total = 0;
        int kernels = 0;
        for (const auto& a : run.activities) {
            if (a.kind == ActivityKind::Kernel && !a.warmup) { // the measured launches only
                total += double(a.durationNs());
                ++kernels;
            }
        }
        return kernels > 0 ? total / kernels : 0.0;
    };
    ModelComparison out;
    out.strategy = setting->strategy;
    out.presetId = setting->preset->id;
    out.setting = measured.problem->describe() + ", block " + measured.launch->blockOption + ", " +
                  measured.memoryMode;
    out.measuredKernelNs = perKernel(measured);
    out.modelledKernelNs = perKernel(*modelled);
    if (out.measuredKernelNs <= 0) {
        return fail(Error::Code::InvalidArgument,
                    "run '" + measured.id + "' has no kernel activity");
    }
    return out;
}

} // namespace slicescope::backend
