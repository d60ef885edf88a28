#include "gpusession.h"

#include "cudacheck.h"
#include "cudadevice.h"
#include "cupticheck.h"
#include "record/gpurunassembly.h"
#include "runbuffers.h"
#include "slicescope/core/clock.h"

#include <cstdio>
#include <string>

namespace slicescope::cuda {

namespace {

using strategy::StrategyId;

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

} // namespace slicescope::cuda
