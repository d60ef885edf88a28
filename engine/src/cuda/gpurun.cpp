// GpuSession::runTyped and its steps: one strategy's run on the GPU, in the order of
// docs/gpu-backend.md ("One run of one strategy" and "Pipelines").

#include "gpurun.h"

#include "cudacheck.h"
#include "gpusession.h"
#include "kernels/kerneltable.h"
#include "slicescope/compute/reference.h"
#include "slicescope/compute/transpose.h"
#include "slicescope/compute/workchain.h"
#include "slicescope/core/clock.h"
#include "strategykernel.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <new>
#include <type_traits>

namespace slicescope::cuda {

using backend::MemoryMode;
using problem::Problem;
using strategy::StrategyId;

template <typename T>
void GpuRun<T>::span(std::string what, std::int64_t startNs, std::uint32_t iteration) {
    records.hostSpans.push_back({std::move(what), startNs, session.now(), iteration});
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

template <typename T>
Result<trace::Run> GpuSession::runTyped(StrategyId id, const backend::RunRequest& request,
                                        const backend::Progress& progress, bool injectFault) {
    GpuRun<T> r(*this, id, request, progress);
    if (auto planned = planRun(r, injectFault); !planned) {
        return tl::unexpected(planned.error());
    }
    if (auto fits = checkRunFits(r); !fits) {
        return tl::unexpected(fits.error());
    }
    if (auto filled = allocateAndFill(r); !filled) {
        return tl::unexpected(filled.error());
    }
    prepareLaunches(r);
    if (auto traced = tracedPass(r); !traced) {
        return tl::unexpected(traced.error());
    }
    if (auto counted = countRun(r); !counted) {
        return tl::unexpected(counted.error());
    }
    return finishRun(r);
}

template <typename T> Status GpuSession::planRun(GpuRun<T>& r, bool injectFault) {
    const backend::RunRequest& request = r.request;
    trace::Run& run = r.run;
    r.runStart = now();
    r.droppedBefore = collector_ ? collector_->droppedRecords() : 0;
    r.refusedBefore = collector_ ? collector_->refusedBuffers() : 0;

    run.id = r.name;
    run.strategy = r.name;
    run.mode = trace::RunMode::MeasuredGpu;
    run.problem = r.p;
    run.device = device_;
    run.device.sources.clear();
    run.memoryMode = std::string(backend::toString(r.mode));
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
    r.records.runStartNs = r.runStart;
    r.records.memory = r.mode;
    r.records.warmupIterations = request.warmup;

    r.progress(r.name + ": prepare", 0.0);
    // The kernel and the launch the strategy's data prescribes.
    r.kernel = strategyKernel(r.id, r.p.dtype);
    r.launched = r.kernel;
    if (injectFault) {
        r.launched = kernels::kernelEntry(options_.testFault == backend::TestFault::Trap
                                              ? kernels::Family::TestTrap
                                              : kernels::Family::TestSpin)
                         .f64;
        run.notes.push_back(
            "test fault: the kernel was replaced by one that " +
            std::string(options_.testFault == backend::TestFault::Trap ? "traps" : "spins"));
    }
    CUDA_CHECK(cudaFuncGetAttributes(&r.attributes, r.kernel));
    const auto limitsFound = launchLimits(r.kernel, r.attributes, deviceIndex_, request.block);
    if (!limitsFound) {
        return tl::unexpected(limitsFound.error());
    }
    r.limits = *limitsFound;
    auto geometry = strategy::launchGeometry(r.id, r.p, request.block, r.limits);
    if (!geometry) {
        return tl::unexpected(geometry.error());
    }
    r.geometry = *geometry;
    r.crn = r.geometry.decomposition.layout == strategy::Layout::CRN;
    r.materialized = strategy::info(r.id).materializesMultBy;
    return planChunks(r);
}

template <typename T> Status GpuSession::planChunks(GpuRun<T>& r) {
    trace::Run& run = r.run;
    // Pipelined: each chunk is launched as a problem of its own, on its own part of the arrays.
    r.plan = strategy::planPipeline(r.id, r.p, r.request.pipeline);
    r.pipelined = r.plan.chunks.size() > 1;
    run.chunks = std::uint32_t(r.plan.chunks.size());
    run.streams = r.plan.streams;
    if (!r.pipelined) {
        return {};
    }
    if (run.chunks < r.request.pipeline.chunks) {
        run.notes.push_back(std::to_string(r.request.pipeline.chunks) + " chunks asked for, " +
                            std::to_string(run.chunks) +
                            " made: a chunk holds at least one row of the outer dimension");
    }
    for (const auto& chunk : r.plan.chunks) {
        auto g = strategy::launchGeometry(r.id, chunk.problem, r.request.block, r.limits);
        if (!g) {
            return tl::unexpected(g.error());
        }
        r.chunkGeometry.push_back(*g);
    }
    r.geometry = r.chunkGeometry.front(); // the run's launch is the first (largest) chunk's
    run.notes.push_back("pipelined: " + std::to_string(run.chunks) + " chunks on " +
                        std::to_string(run.streams) + (run.streams == 1 ? " stream" : " streams") +
                        "; the launch shown is the first chunk's");
    if (auto made = ensureStreams(r.plan.streams); !made) {
        return tl::unexpected(made.error());
    }
    return {};
}

template <typename T> Status GpuSession::checkRunFits(GpuRun<T>& r) {
    // Does it fit? Device first, before anything is allocated.
    std::size_t freeDeviceBytes = 0, totalDeviceBytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&freeDeviceBytes, &totalDeviceBytes));
    if (r.mode != MemoryMode::Mapped) {
        if (auto fits = strategy::checkFits(r.id, r.p, std::numeric_limits<std::uint64_t>::max(),
                                            freeDeviceBytes);
            !fits) {
            return tl::unexpected(fits.error());
        }
    }
    if (auto available = problem::availableHostMemoryBytes()) {
        if (auto fits = strategy::checkFits(r.id, r.p, *available,
                                            std::numeric_limits<std::uint64_t>::max());
            !fits) {
            return tl::unexpected(fits.error());
        }
    }
    return {};
}

template <typename T> Status GpuSession::allocateAndFill(GpuRun<T>& r) {
    const Problem& p = r.p;
    r.elements = p.elements();
    r.cn = p.shape.c * p.shape.n;
    r.arrayBytes = p.arrayBytes();
    r.multByBytes = (r.materialized ? r.elements : r.cn) * sizeof(T);

    // Host buffers: what the copies read and write are in the requested memory mode; the
    // original-layout arrays beside them are ordinary (pageable) memory.
    std::int64_t t0 = now();
    for (auto [buffer, bytes] :
         {std::pair{&r.discountHost, r.arrayBytes}, std::pair{&r.multByHost, r.multByBytes},
          std::pair{&r.cvHost, r.arrayBytes}}) {
        auto allocated = HostBuffer::allocate(r.mode, bytes);
        if (!allocated) {
            return tl::unexpected(allocated.error());
        }
        *buffer = std::move(*allocated);
    }
    try {
        if (r.crn) {
            r.discountRcn.resize(r.elements);
            r.cvRcn.resize(r.elements);
        }
        if (r.materialized) {
            r.multByRow.resize(r.cn);
        }
    } catch (const std::bad_alloc&) {
        return fail(Error::Code::InsufficientMemory,
                    "could not allocate the host buffers for " + p.describe());
    }
    r.span("allocate host buffers (" + std::string(backend::toString(r.mode)) + ")", t0);

    if (r.copies) {
        t0 = now();
        auto d = DeviceBuffer::allocate(r.arrayBytes);
        auto m = DeviceBuffer::allocate(r.multByBytes);
        auto c = DeviceBuffer::allocate(r.arrayBytes);
        if (!d || !m || !c) {
            return tl::unexpected(!d ? d.error() : !m ? m.error() : c.error());
        }
        r.discountDevice = std::move(*d);
        r.multByDevice = std::move(*m);
        r.cvDevice = std::move(*c);
        r.span("allocate device buffers", t0);
    }

    t0 = now();
    compute::fillPeriodic(r.crn ? r.discountRcn.data() : r.discountHost.template host<T>(),
                          r.elements, compute::kDiscountPeriod, &compute::discountValue<T>);
    compute::fillPeriodic(r.materialized ? r.multByRow.data() : r.multByHost.template host<T>(),
                          r.cn, compute::kMultByPeriod, &compute::multByValue<T>);
    compute::poison(r.cvHost.template host<T>(), r.arrayBytes); // NaN until written
    r.span("fill inputs", t0);
    const bool referenceCached =
        referenceProblem_ && *referenceProblem_ == p &&
        !(std::is_same_v<T, double> ? referenceF64_.empty() : referenceF32_.empty());
    t0 = now();
    r.expected = &reference<T>(p);
    if (!referenceCached) {
        r.span("CPU reference", t0);
    }
    return {};
}

template <typename T> void GpuSession::prepareLaunches(GpuRun<T>& r) {
    const Problem& p = r.p;
    const strategy::LaunchGeometry& geometry = r.geometry;
    kernels::KernelArgs& args = r.args;
    args.discount = r.copies ? r.discountDevice.get() : r.discountHost.device();
    args.multBy = r.copies ? r.multByDevice.get() : r.multByHost.device();
    args.cv = r.copies ? r.cvDevice.get() : r.cvHost.device();
    args.r = p.shape.r;
    args.c = p.shape.c;
    args.n = p.shape.n;
    args.workers = geometry.decomposition.workers;
    args.elementsPerWorker = geometry.decomposition.elementsPerWorker;
    args.workPerElement = p.workPerElement;
    args.vectorWidth = geometry.vectorWidth;
    const double spinS = std::clamp(10 * options_.kernelTimeoutS, 20.0, 120.0);
    args.spinNs = std::uint64_t(spinS * 1e9);
    r.grid = dim3(geometry.grid.x, geometry.grid.y, geometry.grid.z);
    r.block = dim3(geometry.block.x, geometry.block.y, geometry.block.z);
    for (std::size_t i = 0; r.pipelined && i < r.plan.chunks.size(); ++i) {
        const auto& chunk = r.plan.chunks[i];
        const auto& g = r.chunkGeometry[i];
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
        r.chunkLaunches.push_back(l);
    }
}

template <typename T>
Status GpuSession::launchChunk(GpuRun<T>& r, ChunkLaunch& l, cudaStream_t stream) {
    void* chunkParams[] = {&l.args};
    const cudaError_t e = cudaLaunchKernel(r.launched, l.grid, l.block, chunkParams, 0, stream);
    if (e != cudaSuccess) {
        return tl::unexpected(fault(e, "launching the kernel of " + r.name));
    }
    return {};
}

template <typename T> Status GpuSession::launchRepetition(GpuRun<T>& r) {
    if (r.pipelined) {
        for (auto& l : r.chunkLaunches) {
            if (auto ok = launchChunk(r, l, stream_); !ok) {
                return ok;
            }
        }
        return {};
    }
    void* params[] = {&r.args};
    const cudaError_t e = cudaLaunchKernel(r.launched, r.grid, r.block, params, 0, stream_);
    if (e != cudaSuccess) {
        return tl::unexpected(fault(e, "launching the kernel of " + r.name));
    }
    return {};
}

Status GpuSession::copyChunk(void* to, const void* from, std::uint64_t bytes, cudaMemcpyKind kind,
                             cudaStream_t stream, const std::string& what) {
    const cudaError_t e = cudaMemcpyAsync(to, from, bytes, kind, stream);
    if (e != cudaSuccess) {
        return tl::unexpected(fault(e, "copying " + what));
    }
    return {};
}

// One pipelined repetition: chunk i's copy in, poison, kernel and copy out on stream i mod S,
// issued chunk by chunk; the streams are then joined into stream_ and waited for.
template <typename T> Status GpuSession::runPipelined(GpuRun<T>& r, std::uint32_t it) {
    if (r.mode == MemoryMode::Mapped) {
        const std::int64_t poisonStart = now();
        compute::poison(r.cvHost.template host<T>(), r.arrayBytes);
        r.span("poison output", poisonStart, it);
    }
    if (r.copies && r.plan.sharedMultBy) {
        // Every chunk reads the whole multBy: copied once, first, and waited for by the
        // other streams.
        if (auto ok =
                copyChunk(r.multByDevice.get(), r.multByHost.template host<T>(), r.multByBytes,
                          cudaMemcpyHostToDevice, stream_, "multBy to the device");
            !ok) {
            return ok;
        }
        cudaError_t e = cudaEventRecord(inputsReady_, stream_);
        for (std::uint32_t k = 1; e == cudaSuccess && k < r.plan.streams; ++k) {
            e = cudaStreamWaitEvent(streamAt(k), inputsReady_, 0);
        }
        if (e != cudaSuccess) {
            return tl::unexpected(fault(e, "ordering the pipeline's streams"));
        }
    }
    for (std::size_t i = 0; i < r.plan.chunks.size(); ++i) {
        ChunkLaunch& l = r.chunkLaunches[i];
        const cudaStream_t stream = streamAt(r.plan.chunks[i].stream);
        if (r.copies) {
            if (auto ok = copyChunk(static_cast<char*>(r.discountDevice.get()) + l.arrayOffsetBytes,
                                    r.discountHost.template host<char>() + l.arrayOffsetBytes,
                                    l.arrayBytes, cudaMemcpyHostToDevice, stream,
                                    "a chunk of discount to the device");
                !ok) {
                return ok;
            }
            if (l.multByBytes > 0) {
                if (auto ok = copyChunk(
                        static_cast<char*>(r.multByDevice.get()) + l.multByOffsetBytes,
                        r.multByHost.template host<char>() + l.multByOffsetBytes, l.multByBytes,
                        cudaMemcpyHostToDevice, stream, "a chunk of multBy to the device");
                    !ok) {
                    return ok;
                }
            }
        }
        if (r.mode != MemoryMode::Mapped) {
            const cudaError_t e = cudaMemsetAsync(l.args.cv, 0xff, l.arrayBytes, stream);
            if (e != cudaSuccess) {
                return tl::unexpected(fault(e, "poisoning the output"));
            }
        }
        if (auto ok = launchChunk(r, l, stream); !ok) {
            return ok;
        }
        if (r.copies) {
            if (auto ok = copyChunk(r.cvHost.template host<char>() + l.arrayOffsetBytes,
                                    static_cast<char*>(r.cvDevice.get()) + l.arrayOffsetBytes,
                                    l.arrayBytes, cudaMemcpyDeviceToHost, stream,
                                    "a chunk of cv to the host");
                !ok) {
                return ok;
            }
        }
    }
    if (auto joined = joinStreams(r.plan.streams); !joined) {
        return joined;
    }
    return wait("the pipelined chunks of " + r.name);
}

void GpuSession::prepareSampling(const backend::RunRequest& request) {
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
}

template <typename T> Status GpuSession::tracedPass(GpuRun<T>& r) {
    const backend::RunRequest& request = r.request;
    // PM sampling spans the measured iterations (started below).
    SamplingGuard sampling(nullptr);
    prepareSampling(request);
    // Sampling starts with the first measured iteration: the series keeps only those, and the
    // samples of warm-up iterations would fill the counter data image first (pmsampler.cpp).
    const auto startSampling = [&] {
        if (request.sampleOccupancy && pmSampler_) {
            if (auto started = pmSampler_->start(); started) {
                sampling.arm(pmSampler_.get());
            } else {
                r.run.notes.push_back("no occupancy samples: " + started.error().message);
            }
        }
    };

    // The traced pass: lay out, copy in, poison, launch, copy out, lay back, verify; `warmup`
    // warm-up iterations, then `repeat` measured ones. The host layout passes are part of every
    // iteration: the strategy needs them each time it is called (trace::RunSummary::strategyNs).
    r.transfers = strategy::transfers(r.id, r.p);
    const std::uint32_t passes = request.warmup + request.repeat;
    for (std::uint32_t it = 0; it < passes; ++it) {
        if (r.progress.cancelled()) {
            return fail(Error::Code::Cancelled, "cancelled");
        }
        const bool warm = it < request.warmup;
        const std::uint32_t iteration = warm ? it : it - request.warmup;
        r.progress(r.name + (warm ? ": warm-up " : ": iteration ") + std::to_string(iteration + 1) +
                       " of " + std::to_string(warm ? request.warmup : request.repeat),
                   warm ? 0.0 : double(iteration) / request.repeat);
        if (it == request.warmup) {
            startSampling();
        }
        if (auto done = tracedIteration(r, it); !done) {
            return done;
        }
    }
    sampling.stop();
    takeSamples(r.records, request.sampleOccupancy, request.counters);
    return {};
}

template <typename T> Status GpuSession::tracedIteration(GpuRun<T>& r, std::uint32_t it) {
    const Problem& p = r.p;
    r.records.iterationStarts.push_back(now());
    std::int64_t t0 = 0;
    if (r.crn) {
        t0 = now();
        compute::transposeRows(r.discountRcn.data(), r.discountHost.template host<T>(), p.shape.r,
                               p.shape.c, p.shape.n);
        r.span("layout: discount to C x R x N", t0, it);
    }
    if (r.materialized) {
        t0 = now();
        for (std::uint64_t row = 0; row < p.shape.r; ++row) {
            std::memcpy(r.multByHost.template host<T>() + row * r.cn, r.multByRow.data(),
                        r.cn * sizeof(T));
        }
        r.span("materialize multBy to R x C x N", t0, it);
    }
    if (r.pipelined) {
        if (auto done = runPipelined(r, it); !done) {
            return done;
        }
    }
    if (r.copies && !r.pipelined) {
        if (auto copied = copyInputs(r); !copied) {
            return copied;
        }
    }
    // Poison the output before every launch, so an element the kernel skips cannot pass.
    if (r.pipelined) {
        // Done chunk by chunk in runPipelined.
    } else if (r.mode == MemoryMode::Mapped) {
        t0 = now();
        compute::poison(r.cvHost.template host<T>(), r.arrayBytes);
        r.span("poison output", t0, it);
    } else {
        const cudaError_t e = cudaMemsetAsync(r.args.cv, 0xff, r.arrayBytes, stream_);
        if (e != cudaSuccess) {
            return tl::unexpected(fault(e, "poisoning the output"));
        }
    }
    if (!r.pipelined) {
        if (auto launchedOk = launchRepetition(r); !launchedOk) {
            return launchedOk;
        }
        if (auto done = wait("the kernel of " + r.name); !done) {
            return done;
        }
    }
    if (r.copies && !r.pipelined) {
        if (auto copied = copyOutput(r); !copied) {
            return copied;
        }
    }
    const T* result = r.cvHost.template host<T>();
    if (r.crn) {
        t0 = now();
        compute::transposeRows(result, r.cvRcn.data(), p.shape.c, p.shape.r, p.shape.n);
        r.span("layout: cv back to R x C x N", t0, it);
        result = r.cvRcn.data();
    }
    t0 = now();
    const auto cmp = compute::compareOutputs(*r.expected, result, r.elements);
    r.span("verify against the CPU reference", t0, it);
    r.verification.passed = r.verification.passed && cmp.withinTolerance;
    r.verification.maxAbsError = std::max(r.verification.maxAbsError, cmp.maxAbsError);
    return {};
}

template <typename T> Status GpuSession::copyInputs(GpuRun<T>& r) {
    for (const auto& t : r.transfers) {
        if (t.direction != strategy::Direction::HostToDevice) {
            continue;
        }
        const bool isDiscount = t.name == "discount";
        void* to = isDiscount ? r.discountDevice.get() : r.multByDevice.get();
        const void* from = isDiscount ? static_cast<const void*>(r.discountHost.template host<T>())
                                      : static_cast<const void*>(r.multByHost.template host<T>());
        const cudaError_t e = cudaMemcpyAsync(to, from, t.bytes, cudaMemcpyHostToDevice, stream_);
        if (e != cudaSuccess) {
            return tl::unexpected(fault(e, "copying " + t.name + " to the device"));
        }
    }
    return {};
}

template <typename T> Status GpuSession::copyOutput(GpuRun<T>& r) {
    for (const auto& t : r.transfers) {
        if (t.direction != strategy::Direction::DeviceToHost) {
            continue;
        }
        const cudaError_t e = cudaMemcpyAsync(r.cvHost.template host<T>(), r.cvDevice.get(),
                                              t.bytes, cudaMemcpyDeviceToHost, stream_);
        if (e != cudaSuccess) {
            return tl::unexpected(fault(e, "copying " + t.name + " to the host"));
        }
    }
    return wait("the copy of cv to the host");
}

template <typename T> Status GpuSession::countRun(GpuRun<T>& r) {
    // The counted pass: the same launches again under the Range Profiler, with tracing off.
    if (!r.request.counters) {
        return {};
    }
    r.progress(r.name + ": counters", 1.0);
    const std::int64_t t0 = now();
    auto counted = countedPass(
        r.name, r.request.repeat, r.pipelined ? std::uint32_t(r.chunkLaunches.size()) : 1,
        [this, &r]() -> Status { return launchRepetition(r); }, r.run.notes);
    if (!counted) {
        return tl::unexpected(counted.error());
    }
    r.ranges = std::move(*counted);
    // What counting cost, on the host lane: the replay runs each kernel once per pass.
    r.span(rangeProfiler_ ? "counters: " + std::to_string(rangeProfiler_->passes()) +
                                " Range Profiler passes per kernel"
                          : std::string("counters: unavailable"),
           t0);
    return {};
}

template <typename T> Result<trace::Run> GpuSession::finishRun(GpuRun<T>& r) {
    const std::int64_t t0 = now();
    r.discountDevice.reset();
    r.multByDevice.reset();
    r.cvDevice.reset();
    r.discountHost.reset();
    r.multByHost.reset();
    r.cvHost.reset();
    r.span("free buffers", t0);
    if (auto synced = cudaDeviceSynchronize(); synced != cudaSuccess) {
        return tl::unexpected(fault(synced, "cudaDeviceSynchronize() after " + r.name));
    }

    auto facts = launchFacts(device_, r.kernel, r.attributes, r.geometry, r.request.block);
    if (!facts) {
        return tl::unexpected(facts.error());
    }
    r.run.launch = facts->launch;
    r.run.notes.insert(r.run.notes.end(), facts->notes.begin(), facts->notes.end());
    r.run.verification = r.verification;

    // What the session collected, assembled into the run (record/gpurunassembly.h).
    r.records.occupancy = facts->occupancy;
    addCollected(r.records, r.droppedBefore, r.refusedBefore, r.ranges);
    record::assembleGpuRun(r.records, r.run);
    r.run.wallNs = now() - r.runStart;
    r.progress(r.name + ": done", 1.0);
    return std::move(r.run);
}

template Result<trace::Run> GpuSession::runTyped<double>(StrategyId, const backend::RunRequest&,
                                                         const backend::Progress&, bool);
template Result<trace::Run> GpuSession::runTyped<float>(StrategyId, const backend::RunRequest&,
                                                        const backend::Progress&, bool);

} // namespace slicescope::cuda
