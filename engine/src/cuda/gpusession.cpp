#include "gpusession.h"

#include "cudacheck.h"
#include "cudadevice.h"
#include "cupticheck.h"
#include "kernels/kerneltable.h"
#include "record/gpurunassembly.h"
#include "runbuffers.h"
#include "slicescope/compute/reference.h"
#include "slicescope/compute/transpose.h"
#include "slicescope/compute/workchain.h"
#include "slicescope/core/clock.h"
#include "strategykernel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>

namespace slicescope::cuda {

namespace {

using backend::MemoryMode;
using problem::Problem;
using strategy::StrategyId;
using trace::Activity;
using trace::ActivityKind;

std::string seconds(double s) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", s);
    return text;
}

} // namespace

std::int64_t GpuSession::now() const {
    return collector_ ? CuptiActivityCollector::timestampNs() : hostNowNs();
}

Result<std::unique_ptr<GpuSession>> GpuSession::open(int deviceIndex,
                                                     const backend::GpuOptions& options) {
    std::unique_ptr<GpuSession> s(new GpuSession());
    s->deviceIndex_ = deviceIndex;
    s->options_ = options;
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        return fail(Error::Code::Unsupported, "no GPU to run on: " + detect().why);
    }
    if (deviceIndex < 0 || deviceIndex >= count) {
        return fail(
            Error::Code::InvalidArgument,
            "CUDA device " + std::to_string(deviceIndex) + " does not exist; this machine has " +
                std::to_string(count) +
                (count == 1 ? " device (0)" : " devices (0 to " + std::to_string(count - 1) + ")"));
    }
    auto spec = describe(deviceIndex);
    if (!spec) {
        return tl::unexpected(spec.error());
    }
    s->device_ = std::move(*spec);
    const std::int64_t t0 = hostNowNs();
    if (options.cupti) {
        auto collector = CuptiActivityCollector::start();
        if (!collector) {
            return fail(Error::Code::Unsupported,
                        "CUPTI is unavailable, so nothing can be measured: " +
                            collector.error().message);
        }
        s->collector_ = std::move(*collector);
    }
    const std::int64_t t1 = hostNowNs();
    CUDA_CHECK(cudaSetDevice(deviceIndex));
    CUDA_CHECK(cudaFree(nullptr)); // creates the context now, outside any run
    CUDA_CHECK(cudaStreamCreateWithFlags(&s->stream_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::int64_t t2 = hostNowNs();
    if (options.kernelTimeoutS > 0) {
        try {
            s->waiter_ = std::make_unique<StreamWaiter>(deviceIndex);
        } catch (const std::system_error&) {
            // No thread to spare: waits happen on this thread, without the time limit.
        }
    }
    (void)s->collect(); // context creation belongs to no run
    const auto ms = [](std::int64_t ns) {
        char text[32];
        std::snprintf(text, sizeof text, "%.1f ms", double(ns) / 1e6);
        return std::string(text);
    };
    s->setupNote_ = "session setup before this run: " +
                    (options.cupti ? "CUPTI start " + ms(t1 - t0) : std::string("CUPTI off")) +
                    ", CUDA context creation " + ms(t2 - t1);
    return s;
}

GpuSession::~GpuSession() {
    if (hung_) {
        // A kernel still runs: anything that waits for the device would wait forever. The process
        // is about to end without cleanup; the driver tears the context down.
        if (waiter_) {
            waiter_->abandon();
        }
        (void)waiter_.release();
        (void)collector_.release();
        (void)rangeProfiler_.release();
        (void)pmSampler_.release();
        return;
    }
    pmSampler_.reset();
    rangeProfiler_.reset();
    waiter_.reset();
    for (auto* e : joinEvents_) {
        (void)cudaEventDestroy(e);
    }
    if (inputsReady_ != nullptr) {
        (void)cudaEventDestroy(inputsReady_);
    }
    for (auto* s : pipelineStreams_) {
        (void)cudaStreamDestroy(s);
    }
    if (stream_ != nullptr) {
        (void)cudaStreamDestroy(stream_);
    }
    collector_.reset();
}

Status GpuSession::ensureStreams(std::uint32_t count) {
    if (inputsReady_ == nullptr) {
        CUDA_CHECK(cudaEventCreateWithFlags(&inputsReady_, cudaEventDisableTiming));
    }
    // Two loops, so that a failed creation leaves both lists whole and a retry fills the short one.
    while (pipelineStreams_.size() + 1 < count) {
        cudaStream_t s = nullptr;
        CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        pipelineStreams_.push_back(s);
    }
    while (joinEvents_.size() + 1 < count) {
        cudaEvent_t e = nullptr;
        CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        joinEvents_.push_back(e);
    }
    return {};
}

Status GpuSession::joinStreams(std::uint32_t count) {
    for (std::uint32_t k = 1; k < count; ++k) {
        cudaError_t e = cudaEventRecord(joinEvents_[k - 1], pipelineStreams_[k - 1]);
        if (e == cudaSuccess) {
            e = cudaStreamWaitEvent(stream_, joinEvents_[k - 1], 0);
        }
        if (e != cudaSuccess) {
            return tl::unexpected(fault(e, "joining the pipeline's streams"));
        }
    }
    return {};
}

Error GpuSession::fault(cudaError_t error, const std::string& what) {
    Error e = cudaError(error, what.c_str());
    (void)cudaGetLastError(); // clears a non-sticky error; a sticky one stays
    if (isStickyError(error) || cudaPeekAtLastError() != cudaSuccess) {
        contextLost_ = true;
        e.code = Error::Code::DeviceFault;
        whyUnusable_ = e.message;
        e.message +=
            "; the GPU reported a fault, and this process's CUDA context cannot be used again";
    }
    return e;
}

Status GpuSession::wait(std::string_view what) {
    cudaError_t result = cudaSuccess;
    if (waiter_) {
        const auto waited = waiter_->wait(stream_, options_.kernelTimeoutS);
        if (!waited) {
            hung_ = true;
            markDeviceHung();
            whyUnusable_ = std::string(what) + " did not finish within " +
                           seconds(options_.kernelTimeoutS) + " s";
            return fail(
                Error::Code::DeviceFault,
                whyUnusable_ +
                    " (--kernel-timeout); it still occupies the GPU, so nothing more can run in "
                    "this process, and the driver ends it when the process exits");
        }
        result = *waited;
    } else {
        result = cudaStreamSynchronize(stream_);
    }
    if (result != cudaSuccess) {
        return tl::unexpected(fault(result, std::string(what)));
    }
    return {};
}

GpuSession::Decoded GpuSession::collect() {
    Decoded out;
    if (!collector_) {
        return out;
    }
    (void)collector_->flush();
    const auto unknownBefore = decoder_.counts().unknown;
    collector_->drain(decoder_, [&](const DecodedActivity& a) {
        out.records.push_back({a.activity, a.timed});
    });
    out.unknown = decoder_.counts().unknown - unknownBefore;
    return out;
}

template <typename T> const std::vector<T>& GpuSession::reference(const Problem& problem) {
    if (!referenceProblem_ || !(*referenceProblem_ == problem)) {
        referenceF64_.clear();
        referenceF32_.clear();
        referenceProblem_ = problem;
    }
    if constexpr (std::is_same_v<T, double>) {
        if (referenceF64_.empty()) {
            referenceF64_ = compute::referenceOutput<double>(problem);
        }
        return referenceF64_;
    } else {
        if (referenceF32_.empty()) {
            referenceF32_ = compute::referenceOutput<float>(problem);
        }
        return referenceF32_;
    }
}

Result<std::vector<RangeMetrics>> GpuSession::countedPass(const std::string& name,
                                                          std::uint32_t repeat,
                                                          std::uint32_t launchesPerRepeat,
                                                          const std::function<Status()>& launch,
                                                          std::vector<std::string>& notes) {
    if (!rangeProfiler_ && !countersUnavailable_) {
        auto profiler = RangeProfiler::create(deviceIndex_, nullptr);
        if (profiler) {
            rangeProfiler_ = std::move(*profiler);
        } else {
            countersUnavailable_ = profiler.error().message;
        }
    }
    std::vector<RangeMetrics> ranges;
    if (rangeProfiler_) {
        if (collector_) {
            (void)collector_->disable();
        }
        auto counted =
            rangeProfiler_->profile(std::size_t(repeat) * launchesPerRepeat, [&]() -> Status {
                for (std::uint32_t i = 0; i < repeat; ++i) {
                    if (auto l = launch(); !l) {
                        return l;
                    }
                }
                return wait("the kernel of " + name + " under the Range Profiler");
            });
        if (collector_) {
            (void)collector_->enable();
        }
        if (counted) {
            ranges = std::move(*counted);
        } else if (!usable()) {
            return tl::unexpected(counted.error());
        } else if (counted.error().code == Error::Code::Unsupported) {
            countersUnavailable_ = counted.error().message;
        } else {
            notes.push_back("no counters for this run: " + counted.error().message);
        }
    }
    if (countersUnavailable_) {
        notes.push_back("no counters: " + *countersUnavailable_ +
                        "; the trace is kept without achieved occupancy");
    }
    return ranges;
}

void GpuSession::addCollected(record::GpuRunRecords& records, std::uint64_t droppedBefore,
                              std::uint64_t refusedBefore,
                              const std::vector<RangeMetrics>& ranges) {
    auto decoded = collect();
    records.cupti = collector_ != nullptr;
    records.records = std::move(decoded.records);
    records.names = decoder_.names();
    records.unknownRecords = decoded.unknown;
    if (collector_) {
        records.droppedRecords = collector_->droppedRecords() - droppedBefore;
        records.refusedBuffers = collector_->refusedBuffers() - refusedBefore;
    }
    for (const auto& r : ranges) {
        records.ranges.push_back({r.achievedOccupancy, r.smBusyShare()});
    }
}

void GpuSession::takeSamples(record::GpuRunRecords& records, bool sampleOccupancy,
                             bool countersNext) {
    if (sampleOccupancy && pmSampler_) {
        records.sampled = true;
        if (auto samples = pmSampler_->decode(); samples) {
            for (const auto& s : *samples) {
                records.samples.push_back({s.startNs, s.endNs, s.warpOccupancy});
            }
            records.samplesOverflowed = pmSampler_->overflowed();
            records.samplesByClock = pmSampler_->trigger() == PmTrigger::SysClockInterval;
        } else {
            records.samplesUnavailable = samples.error().message;
        }
    } else if (sampleOccupancy && samplingUnavailable_) {
        records.sampled = true;
        records.samplesUnavailable = *samplingUnavailable_;
    }
    // An enabled PM sampler holds the counters: the Range Profiler then fails with
    // CUPTI_ERROR_HARDWARE_BUSY (seen on the H200 with both options on). The next sampled run
    // enables a new one.
    if (countersNext && pmSampler_ && !hung_) {
        pmSampler_.reset();
    }
}

Result<trace::Run> GpuSession::run(StrategyId id, const backend::RunRequest& request,
                                   const backend::Progress& progress, bool injectFault) {
    if (!strategy::isGpu(id)) {
        return fail(Error::Code::InvalidArgument,
                    std::string(strategy::toString(id)) + " runs on the CPU, not the GPU");
    }
    if (!usable()) {
        return fail(Error::Code::DeviceFault, "not run: " + whyUnusable_);
    }
    auto result = request.problem.dtype == problem::Dtype::F64
                      ? runTyped<double>(id, request, progress, injectFault)
                      : runTyped<float>(id, request, progress, injectFault);
    if (!result && usable()) {
        // Records of a failed run must not end up in the next one.
        (void)cudaStreamSynchronize(stream_);
        for (auto* s : pipelineStreams_) {
            (void)cudaStreamSynchronize(s);
        }
        (void)collect();
    }
    return result;
}

template <typename T>
Result<trace::Run> GpuSession::runTyped(StrategyId id, const backend::RunRequest& request,
                                        const backend::Progress& progress, bool injectFault) {
    const Problem& p = request.problem;
    const MemoryMode mode = request.memory;
    const bool copies = mode == MemoryMode::Pageable || mode == MemoryMode::Pinned;
    const std::string name(strategy::toString(id));
    const std::int64_t runStart = now();
    const std::uint64_t droppedBefore = collector_ ? collector_->droppedRecords() : 0;
    const std::uint64_t refusedBefore = collector_ ? collector_->refusedBuffers() : 0;

    trace::Run run;
    run.id = name;
    run.strategy = name;
    run.mode = trace::RunMode::MeasuredGpu;
    run.problem = p;
    run.device = device_;
    run.device.sources.clear();
    run.memoryMode = std::string(backend::toString(mode));
    run.repeat = request.repeat;
    run.warmup = request.warmup;
    run.createdAt = isoTimestampUtc();
    if (auto checked = strategy::checkPipeline(request.pipeline); !checked) {
        return tl::unexpected(checked.error());
    }
    if (!setupNote_.empty()) {
        run.notes.push_back(std::move(setupNote_));
        setupNote_.clear();
    }
    record::GpuRunRecords records;
    records.runStartNs = runStart;
    records.memory = mode;
    records.warmupIterations = request.warmup;
    std::vector<record::HostSpan>& host = records.hostSpans;
    const auto span = [&](std::string what, std::int64_t startNs,
                          std::uint32_t iteration = record::kNoPass) {
        host.push_back({std::move(what), startNs, now(), iteration});
    };

    progress(name + ": prepare", 0.0);
    // The kernel and the launch the strategy's data prescribes.
    const void* kernel = strategyKernel(id, p.dtype);
    const void* launched = kernel;
    if (injectFault) {
        launched = kernels::kernelEntry(options_.testFault == backend::TestFault::Trap
                                            ? kernels::Family::TestTrap
                                            : kernels::Family::TestSpin)
                       .f64;
        run.notes.push_back(
            "test fault: the kernel was replaced by one that " +
            std::string(options_.testFault == backend::TestFault::Trap ? "traps" : "spins"));
    }
    cudaFuncAttributes attributes{};
    CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
    const auto limitsFound = launchLimits(kernel, attributes, deviceIndex_, request.block);
    if (!limitsFound) {
        return tl::unexpected(limitsFound.error());
    }
    const strategy::LaunchLimits& limits = *limitsFound;
    auto geometry = strategy::launchGeometry(id, p, request.block, limits);
    if (!geometry) {
        return tl::unexpected(geometry.error());
    }
    const auto& decomposition = geometry->decomposition;
    const bool crn = decomposition.layout == strategy::Layout::CRN;
    const bool materialized = strategy::info(id).materializesMultBy;

    // Pipelined: each chunk is launched as a problem of its own, on its own part of the arrays.
    const strategy::PipelinePlan plan = strategy::planPipeline(id, p, request.pipeline);
    const bool pipelined = plan.chunks.size() > 1;
    run.chunks = std::uint32_t(plan.chunks.size());
    run.streams = plan.streams;
    std::vector<strategy::LaunchGeometry> chunkGeometry;
    if (pipelined) {
        if (run.chunks < request.pipeline.chunks) {
            run.notes.push_back(std::to_string(request.pipeline.chunks) + " chunks asked for, " +
                                std::to_string(run.chunks) +
                                " made: a chunk holds at least one row of the outer dimension");
        }
        for (const auto& chunk : plan.chunks) {
            auto g = strategy::launchGeometry(id, chunk.problem, request.block, limits);
            if (!g) {
                return tl::unexpected(g.error());
            }
            chunkGeometry.push_back(*g);
        }
        geometry = chunkGeometry.front(); // the run's launch is the first (largest) chunk's
        run.notes.push_back("pipelined: " + std::to_string(run.chunks) + " chunks on " +
                            std::to_string(run.streams) +
                            (run.streams == 1 ? " stream" : " streams") +
                            "; the launch shown is the first chunk's");
        if (auto made = ensureStreams(plan.streams); !made) {
            return tl::unexpected(made.error());
        }
    }

    // Does it fit? Device first, before anything is allocated.
    std::size_t freeDeviceBytes = 0, totalDeviceBytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&freeDeviceBytes, &totalDeviceBytes));
    if (mode != MemoryMode::Mapped) {
        if (auto fits = strategy::checkFits(id, p, std::numeric_limits<std::uint64_t>::max(),
                                            freeDeviceBytes);
            !fits) {
            return tl::unexpected(fits.error());
        }
    }
    if (auto available = problem::availableHostMemoryBytes()) {
        if (auto fits =
                strategy::checkFits(id, p, *available, std::numeric_limits<std::uint64_t>::max());
            !fits) {
            return tl::unexpected(fits.error());
        }
    }

    const std::uint64_t elements = p.elements();
    const std::uint64_t cn = p.shape.c * p.shape.n;
    const std::uint64_t arrayBytes = p.arrayBytes();
    const std::uint64_t multByBytes = (materialized ? elements : cn) * sizeof(T);

    // Host buffers: what the copies read and write are in the requested memory mode; the
    // original-layout arrays beside them are ordinary (pageable) memory.
    std::int64_t t0 = now();
    auto discountHost = HostBuffer::allocate(mode, arrayBytes);
    if (!discountHost) {
        return tl::unexpected(discountHost.error());
    }
    auto multByHost = HostBuffer::allocate(mode, multByBytes);
    if (!multByHost) {
        return tl::unexpected(multByHost.error());
    }
    auto cvHost = HostBuffer::allocate(mode, arrayBytes);
    if (!cvHost) {
        return tl::unexpected(cvHost.error());
    }
    std::vector<T> discountRcn, cvRcn, multByRow;
    try {
        if (crn) {
            discountRcn.resize(elements);
            cvRcn.resize(elements);
        }
        if (materialized) {
            multByRow.resize(cn);
        }
    } catch (const std::bad_alloc&) {
        return fail(Error::Code::InsufficientMemory,
                    "could not allocate the host buffers for " + p.describe());
    }
    span("allocate host buffers (" + std::string(backend::toString(mode)) + ")", t0);

    DeviceBuffer discountDevice, multByDevice, cvDevice;
    if (copies) {
        t0 = now();
        auto d = DeviceBuffer::allocate(arrayBytes);
        auto m = DeviceBuffer::allocate(multByBytes);
        auto c = DeviceBuffer::allocate(arrayBytes);
        if (!d || !m || !c) {
            return tl::unexpected(!d ? d.error() : !m ? m.error() : c.error());
        }
        discountDevice = std::move(*d);
        multByDevice = std::move(*m);
        cvDevice = std::move(*c);
        span("allocate device buffers", t0);
    }

    t0 = now();
    compute::fillPeriodic(crn ? discountRcn.data() : discountHost->template host<T>(), elements,
                          compute::kDiscountPeriod, &compute::discountValue<T>);
    compute::fillPeriodic(materialized ? multByRow.data() : multByHost->template host<T>(), cn,
                          compute::kMultByPeriod, &compute::multByValue<T>);
    compute::poison(cvHost->template host<T>(), arrayBytes); // NaN until written
    span("fill inputs", t0);
    const bool referenceCached =
        referenceProblem_ && *referenceProblem_ == p &&
        !(std::is_same_v<T, double> ? referenceF64_.empty() : referenceF32_.empty());
    t0 = now();
    const std::vector<T>& expected = reference<T>(p);
    if (!referenceCached) {
        span("CPU reference", t0);
    }

    kernels::KernelArgs args;
    args.discount = copies ? discountDevice.get() : discountHost->device();
    args.multBy = copies ? multByDevice.get() : multByHost->device();
    args.cv = copies ? cvDevice.get() : cvHost->device();
    args.r = p.shape.r;
    args.c = p.shape.c;
    args.n = p.shape.n;
    args.workers = decomposition.workers;
    args.elementsPerWorker = decomposition.elementsPerWorker;
    args.workPerElement = p.workPerElement;
    args.vectorWidth = geometry->vectorWidth;
    const double spinS = std::clamp(10 * options_.kernelTimeoutS, 20.0, 120.0);
    args.spinNs = std::uint64_t(spinS * 1e9);
    void* params[] = {&args};
    const dim3 grid(geometry->grid.x, geometry->grid.y, geometry->grid.z);
    const dim3 block(geometry->block.x, geometry->block.y, geometry->block.z);
    // A chunk's launch: its arguments point at its part of the arrays (strategy/pipeline.h).
    struct ChunkLaunch {
        kernels::KernelArgs args;
        dim3 grid, block;
        std::uint64_t arrayBytes = 0, arrayOffsetBytes = 0;
        std::uint64_t multByBytes = 0, multByOffsetBytes = 0;
    };
    std::vector<ChunkLaunch> chunkLaunches;
    for (std::size_t i = 0; pipelined && i < plan.chunks.size(); ++i) {
        const auto& chunk = plan.chunks[i];
        const auto& g = chunkGeometry[i];
        ChunkLaunch l;
        l.arrayOffsetBytes = chunk.arrayOffset * sizeof(T);
        l.arrayBytes = chunk.arrayElements * sizeof(T);
        l.multByOffsetBytes = chunk.multByOffset * sizeof(T);
        l.multByBytes = chunk.multByElements * sizeof(T);
        l.args = args;
        l.args.discount = static_cast<const char*>(args.discount) + l.arrayOffsetBytes;
        l.args.cv = static_cast<char*>(args.cv) + l.arrayOffsetBytes;
        l.args.multBy = static_cast<const char*>(args.multBy) + l.multByOffsetBytes;
        l.args.r = chunk.problem.shape.r;
        l.args.c = chunk.problem.shape.c;
        l.args.workers = g.decomposition.workers;
        l.args.elementsPerWorker = g.decomposition.elementsPerWorker;
        l.args.vectorWidth = g.vectorWidth;
        l.grid = dim3(g.grid.x, g.grid.y, g.grid.z);
        l.block = dim3(g.block.x, g.block.y, g.block.z);
        chunkLaunches.push_back(l);
    }
    const auto launchChunk = [&](ChunkLaunch& l, cudaStream_t stream) -> Status {
        void* chunkParams[] = {&l.args};
        const cudaError_t e = cudaLaunchKernel(launched, l.grid, l.block, chunkParams, 0, stream);
        if (e != cudaSuccess) {
            return tl::unexpected(fault(e, "launching the kernel of " + name));
        }
        return {};
    };
    // Every launch of one repetition, on stream_ (the counted pass replays them one by one).
    const auto launch = [&]() -> Status {
        if (pipelined) {
            for (auto& l : chunkLaunches) {
                if (auto ok = launchChunk(l, stream_); !ok) {
                    return ok;
                }
            }
            return {};
        }
        const cudaError_t e = cudaLaunchKernel(launched, grid, block, params, 0, stream_);
        if (e != cudaSuccess) {
            return tl::unexpected(fault(e, "launching the kernel of " + name));
        }
        return {};
    };
    const auto copyChunk = [&](void* to, const void* from, std::uint64_t bytes, cudaMemcpyKind kind,
                               cudaStream_t stream, const std::string& what) -> Status {
        const cudaError_t e = cudaMemcpyAsync(to, from, bytes, kind, stream);
        if (e != cudaSuccess) {
            return tl::unexpected(fault(e, "copying " + what));
        }
        return {};
    };
    // One pipelined repetition: chunk i's copy in, poison, kernel and copy out on stream i mod S,
    // issued chunk by chunk; the streams are then joined into stream_ and waited for.
    const auto runPipelined = [&](std::uint32_t it) -> Status {
        if (mode == MemoryMode::Mapped) {
            const std::int64_t poisonStart = now();
            compute::poison(cvHost->template host<T>(), arrayBytes);
            span("poison output", poisonStart, it);
        }
        if (copies && plan.sharedMultBy) {
            // Every chunk reads the whole multBy: copied once, first, and waited for by the
            // other streams.
            if (auto ok = copyChunk(multByDevice.get(), multByHost->template host<T>(), multByBytes,
                                    cudaMemcpyHostToDevice, stream_, "multBy to the device");
                !ok) {
                return ok;
            }
            cudaError_t e = cudaEventRecord(inputsReady_, stream_);
            for (std::uint32_t k = 1; e == cudaSuccess && k < plan.streams; ++k) {
                e = cudaStreamWaitEvent(streamAt(k), inputsReady_, 0);
            }
            if (e != cudaSuccess) {
                return tl::unexpected(fault(e, "ordering the pipeline's streams"));
            }
        }
        for (std::size_t i = 0; i < plan.chunks.size(); ++i) {
            ChunkLaunch& l = chunkLaunches[i];
            const cudaStream_t stream = streamAt(plan.chunks[i].stream);
            if (copies) {
                if (auto ok = copyChunk(
                        static_cast<char*>(discountDevice.get()) + l.arrayOffsetBytes,
                        discountHost->template host<char>() + l.arrayOffsetBytes, l.arrayBytes,
                        cudaMemcpyHostToDevice, stream, "a chunk of discount to the device");
                    !ok) {
                    return ok;
                }
                if (l.multByBytes > 0) {
                    if (auto ok = copyChunk(
                            static_cast<char*>(multByDevice.get()) + l.multByOffsetBytes,
                            multByHost->template host<char>() + l.multByOffsetBytes, l.multByBytes,
                            cudaMemcpyHostToDevice, stream, "a chunk of multBy to the device");
                        !ok) {
                        return ok;
                    }
                }
            }
            if (mode != MemoryMode::Mapped) {
                const cudaError_t e = cudaMemsetAsync(l.args.cv, 0xff, l.arrayBytes, stream);
                if (e != cudaSuccess) {
                    return tl::unexpected(fault(e, "poisoning the output"));
                }
            }
            if (auto ok = launchChunk(l, stream); !ok) {
                return ok;
            }
            if (copies) {
                if (auto ok = copyChunk(cvHost->template host<char>() + l.arrayOffsetBytes,
                                        static_cast<char*>(cvDevice.get()) + l.arrayOffsetBytes,
                                        l.arrayBytes, cudaMemcpyDeviceToHost, stream,
                                        "a chunk of cv to the host");
                    !ok) {
                    return ok;
                }
            }
        }
        if (auto joined = joinStreams(plan.streams); !joined) {
            return joined;
        }
        return wait("the pipelined chunks of " + name);
    };

    // PM sampling spans the measured iterations (started below).
    SamplingGuard sampling(nullptr);
    if (request.sampleOccupancy && !samplingUnavailable_) {
        if (!pmSampler_) {
            // The Range Profiler holds the counters as the PM sampler does (takeSamples): the
            // counted pass makes a new one when it needs it.
            rangeProfiler_.reset();
            auto sampler = PmSampler::create(deviceIndex_, device_.computeMajor,
                                             device_.computeMinor, device_.clockMHz);
            if (sampler) {
                pmSampler_ = std::move(*sampler);
            } else {
                samplingUnavailable_ = sampler.error().message;
            }
        }
    }
    // Sampling starts with the first measured iteration: the series keeps only those, and the
    // samples of warm-up iterations would fill the counter data image first (pmsampler.cpp).
    const auto startSampling = [&] {
        if (request.sampleOccupancy && pmSampler_) {
            if (auto started = pmSampler_->start(); started) {
                sampling.arm(pmSampler_.get());
            } else {
                run.notes.push_back("no occupancy samples: " + started.error().message);
            }
        }
    };

    // The traced pass: lay out, copy in, poison, launch, copy out, lay back, verify; `warmup`
    // warm-up iterations, then `repeat` measured ones. The host layout passes are part of every
    // iteration: the strategy needs them each time it is called (trace::RunSummary::strategyNs).
    std::vector<std::int64_t>& iterationStarts = records.iterationStarts;
    trace::Verification verification{true, 0.0};
    const auto transfers = strategy::transfers(id, p);
    const std::uint32_t passes = request.warmup + request.repeat;
    for (std::uint32_t it = 0; it < passes; ++it) {
        if (progress.cancelled()) {
            return fail(Error::Code::Cancelled, "cancelled");
        }
        const bool warm = it < request.warmup;
        const std::uint32_t iteration = warm ? it : it - request.warmup;
        progress(name + (warm ? ": warm-up " : ": iteration ") + std::to_string(iteration + 1) +
                     " of " + std::to_string(warm ? request.warmup : request.repeat),
                 warm ? 0.0 : double(iteration) / request.repeat);
        if (it == request.warmup) {
            startSampling();
        }
        iterationStarts.push_back(now());
        if (crn) {
            t0 = now();
            compute::transposeRows(discountRcn.data(), discountHost->template host<T>(), p.shape.r,
                                   p.shape.c, p.shape.n);
            span("layout: discount to C x R x N", t0, it);
        }
        if (materialized) {
            t0 = now();
            for (std::uint64_t r = 0; r < p.shape.r; ++r) {
                std::memcpy(multByHost->template host<T>() + r * cn, multByRow.data(),
                            cn * sizeof(T));
            }
            span("materialize multBy to R x C x N", t0, it);
        }
        if (pipelined) {
            if (auto done = runPipelined(it); !done) {
                return tl::unexpected(done.error());
            }
        }
        if (copies && !pipelined) {
            for (const auto& t : transfers) {
                if (t.direction != strategy::Direction::HostToDevice) {
                    continue;
                }
                const bool isDiscount = t.name == "discount";
                void* to = isDiscount ? discountDevice.get() : multByDevice.get();
                const void* from = isDiscount
                                       ? static_cast<const void*>(discountHost->template host<T>())
                                       : static_cast<const void*>(multByHost->template host<T>());
                const cudaError_t e =
                    cudaMemcpyAsync(to, from, t.bytes, cudaMemcpyHostToDevice, stream_);
                if (e != cudaSuccess) {
                    return tl::unexpected(fault(e, "copying " + t.name + " to the device"));
                }
            }
        }
        // Poison the output before every launch, so an element the kernel skips cannot pass.
        if (pipelined) {
            // Done chunk by chunk above.
        } else if (mode == MemoryMode::Mapped) {
            t0 = now();
            compute::poison(cvHost->template host<T>(), arrayBytes);
            span("poison output", t0, it);
        } else {
            const cudaError_t e = cudaMemsetAsync(args.cv, 0xff, arrayBytes, stream_);
            if (e != cudaSuccess) {
                return tl::unexpected(fault(e, "poisoning the output"));
            }
        }
        if (!pipelined) {
            if (auto launchedOk = launch(); !launchedOk) {
                return tl::unexpected(launchedOk.error());
            }
            if (auto done = wait("the kernel of " + name); !done) {
                return tl::unexpected(done.error());
            }
        }
        if (copies && !pipelined) {
            for (const auto& t : transfers) {
                if (t.direction != strategy::Direction::DeviceToHost) {
                    continue;
                }
                const cudaError_t e = cudaMemcpyAsync(cvHost->template host<T>(), cvDevice.get(),
                                                      t.bytes, cudaMemcpyDeviceToHost, stream_);
                if (e != cudaSuccess) {
                    return tl::unexpected(fault(e, "copying " + t.name + " to the host"));
                }
            }
            if (auto done = wait("the copy of cv to the host"); !done) {
                return tl::unexpected(done.error());
            }
        }
        const T* result = cvHost->template host<T>();
        if (crn) {
            t0 = now();
            compute::transposeRows(result, cvRcn.data(), p.shape.c, p.shape.r, p.shape.n);
            span("layout: cv back to R x C x N", t0, it);
            result = cvRcn.data();
        }
        t0 = now();
        const auto cmp = compute::compareOutputs(expected, result, elements);
        span("verify against the CPU reference", t0, it);
        verification.passed = verification.passed && cmp.withinTolerance;
        verification.maxAbsError = std::max(verification.maxAbsError, cmp.maxAbsError);
    }
    sampling.stop();
    takeSamples(records, request.sampleOccupancy, request.counters);

    // The counted pass: the same launches again under the Range Profiler, with tracing off.
    std::vector<RangeMetrics> ranges;
    if (request.counters) {
        progress(name + ": counters", 1.0);
        t0 = now();
        auto counted =
            countedPass(name, request.repeat, pipelined ? std::uint32_t(chunkLaunches.size()) : 1,
                        launch, run.notes);
        if (!counted) {
            return tl::unexpected(counted.error());
        }
        ranges = std::move(*counted);
        // What counting cost, on the host lane: the replay runs each kernel once per pass.
        span(rangeProfiler_ ? "counters: " + std::to_string(rangeProfiler_->passes()) +
                                  " Range Profiler passes per kernel"
                            : std::string("counters: unavailable"),
             t0);
    }

    t0 = now();
    discountDevice.reset();
    multByDevice.reset();
    cvDevice.reset();
    discountHost->reset();
    multByHost->reset();
    cvHost->reset();
    span("free buffers", t0);
    if (auto synced = cudaDeviceSynchronize(); synced != cudaSuccess) {
        return tl::unexpected(fault(synced, "cudaDeviceSynchronize() after " + name));
    }

    auto facts = launchFacts(device_, kernel, attributes, *geometry, request.block);
    if (!facts) {
        return tl::unexpected(facts.error());
    }
    run.launch = facts->launch;
    run.notes.insert(run.notes.end(), facts->notes.begin(), facts->notes.end());
    run.verification = verification;

    // What the session collected, assembled into the run (record/gpurunassembly.h).
    records.occupancy = facts->occupancy;
    addCollected(records, droppedBefore, refusedBefore, ranges);
    record::assembleGpuRun(records, run);
    run.wallNs = now() - runStart;
    progress(name + ": done", 1.0);
    return run;
}

template Result<trace::Run> GpuSession::runTyped<double>(StrategyId, const backend::RunRequest&,
                                                         const backend::Progress&, bool);
template Result<trace::Run> GpuSession::runTyped<float>(StrategyId, const backend::RunRequest&,
                                                        const backend::Progress&, bool);

} // namespace slicescope::cuda
