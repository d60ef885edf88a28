#include "cuptiactivitycollector.h"

#include "cupticheck.h"

#include <cupti.h>

namespace slicescope::cuda {

std::atomic<CuptiActivityCollector*> CuptiActivityCollector::active_{nullptr};

std::vector<CUpti_ActivityKind> CuptiActivityCollector::defaultKinds() {
    // CONCURRENT_KERNEL, not KERNEL: KERNEL would serialize kernels.
    return {CUPTI_ACTIVITY_KIND_RUNTIME,           CUPTI_ACTIVITY_KIND_MEMCPY,
            CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMSET,
            CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,   CUPTI_ACTIVITY_KIND_OVERHEAD};
}

CuptiActivityCollector::CuptiActivityCollector(Options options)
    : options_(std::move(options)), pool_(options_.bufferBytes, options_.maxBuffers) {
    completed_.reserve(options_.maxBuffers); // the completion callback never reallocates
}

Result<std::unique_ptr<CuptiActivityCollector>> CuptiActivityCollector::start() {
    return start(Options{});
}

Result<std::unique_ptr<CuptiActivityCollector>> CuptiActivityCollector::start(Options options) {
    std::unique_ptr<CuptiActivityCollector> collector(
        new CuptiActivityCollector(std::move(options)));
    CuptiActivityCollector* expected = nullptr;
    if (!active_.compare_exchange_strong(expected, collector.get())) {
        return fail(
            Error::Code::Unsupported,
            "a CUPTI activity collector is already active in this process (CUPTI allows one)");
    }
    auto registered = [&]() -> Status {
        CUPTI_CHECK(cuptiActivityRegisterCallbacks(&bufferRequested, &bufferCompleted));
        return {};
    }();
    if (!registered) {
        active_.store(nullptr);
        return tl::unexpected(registered.error());
    }
    if (auto enabled = collector->enable(); !enabled) {
        (void)collector->disable();
        active_.store(nullptr);
        return tl::unexpected(enabled.error());
    }
    return collector;
}

CuptiActivityCollector::~CuptiActivityCollector() {
    (void)disable();
    (void)cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    {
        const std::lock_guard lock(completedMutex_);
        for (const auto& c : completed_) {
            pool_.release(c.buffer);
        }
        completed_.clear();
    }
    active_.store(nullptr);
}

Status CuptiActivityCollector::enable() {
    for (auto kind : options_.kinds) {
        const CUptiResult result = cuptiActivityEnable(kind);
        if (result != CUPTI_SUCCESS) {
            return tl::unexpected(cuptiError(
                result, ("cuptiActivityEnable(kind " + std::to_string(int(kind)) + ")").c_str()));
        }
    }
    enabled_ = true;
    return {};
}

Status CuptiActivityCollector::disable() {
    Status status;
    for (auto kind : options_.kinds) {
        const CUptiResult result = cuptiActivityDisable(kind);
        if (result != CUPTI_SUCCESS && status) {
            status = tl::unexpected(cuptiError(
                result, ("cuptiActivityDisable(kind " + std::to_string(int(kind)) + ")").c_str()));
        }
    }
    enabled_ = false;
    return status;
}

Status CuptiActivityCollector::flush() {
    CUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
    return {};
}

Status CuptiActivityCollector::setFlushPeriod(std::uint32_t periodMs) {
    CUPTI_CHECK(cuptiActivityFlushPeriod(periodMs));
    return {};
}

std::int64_t CuptiActivityCollector::timestampNs() {
    std::uint64_t ts = 0;
    cuptiGetTimestamp(&ts);
    return std::int64_t(ts);
}

void CuptiActivityCollector::bufferRequested(std::uint8_t** buffer, std::size_t* size,
                                             std::size_t* maxNumRecords) {
    *maxNumRecords = 0; // as many as fit
    auto* self = active_.load(std::memory_order_acquire);
    *buffer = self ? self->pool_.acquire() : nullptr;
    *size = *buffer ? self->pool_.bufferBytes() : 0;
}

void CuptiActivityCollector::bufferCompleted(CUcontext context, std::uint32_t streamId,
                                             std::uint8_t* buffer, std::size_t,
                                             std::size_t validSize) {
    auto* self = active_.load(std::memory_order_acquire);
    if (self == nullptr) {
        ActivityBufferPool::freeOrphan(buffer);
        return;
    }
    std::size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, streamId, &dropped) == CUPTI_SUCCESS &&
        dropped > 0) {
        self->dropped_.fetch_add(dropped);
    }
    if (buffer == nullptr) {
        return;
    }
    if (validSize == 0) {
        self->pool_.release(buffer);
        return;
    }
    {
        const std::lock_guard lock(self->completedMutex_);
        self->completed_.push_back({buffer, validSize});
    }
    if (self->options_.onBufferCompleted) {
        self->options_.onBufferCompleted();
    }
}

void CuptiActivityCollector::drain(ActivityRecordDecoder& decoder, const Sink& sink) {
    drainRecords([&](const CUpti_Activity& record) {
        if (auto decoded = decoder.decode(record)) {
            sink(*decoded);
        }
    });
}

void CuptiActivityCollector::drainRecords(const std::function<void(const CUpti_Activity&)>& each) {
    std::vector<Completed> ready;
    {
        const std::lock_guard lock(completedMutex_);
        ready.swap(completed_);
        completed_.reserve(options_.maxBuffers);
    }
    for (const auto& c : ready) {
        CUpti_Activity* record = nullptr;
        while (cuptiActivityGetNextRecord(c.buffer, c.validBytes, &record) == CUPTI_SUCCESS) {
            each(*record);
        }
        pool_.release(c.buffer);
    }
}

} // namespace slicescope::cuda
