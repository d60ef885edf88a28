#include "injectionrecorder.h"

#include "cupticheck.h"
#include "spool/spoolconversion.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <cupti.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

namespace slicescope::cuda {

namespace {

// A request to the writer thread, written whole into a pipe (atomic: under PIPE_BUF).
struct Request {
    char type = 'W'; // 'W' wake up and drain, 'F' final flush
    std::uint8_t reason = 0;
    std::uint16_t pad = 0;
    std::int32_t signal = 0;
};
static_assert(sizeof(Request) == 8);

Result<std::uint64_t> positiveFromEnvironment(const char* name, std::uint64_t fallback,
                                              std::uint64_t max) {
    const char* text = std::getenv(name);
    if (text == nullptr || *text == '\0') {
        return fallback;
    }
    char* end = nullptr;
    errno = 0;
    const unsigned long long value = std::strtoull(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value < 1 || value > max) {
        return fail(Error::Code::InvalidArgument, std::string(name) + "='" + text +
                                                      "' is not a whole number from 1 to " +
                                                      std::to_string(max));
    }
    return value;
}

record::ActivityFrame toFrame(const DecodedActivity& d) {
    return record::toFrame(d.activity, {d.deviceId, d.contextId, d.gridId, d.returnValue, d.timed});
}

record::DeviceFrame toFrame(const CUpti_ActivityDevice5& r) {
    record::DeviceFrame f;
    f.deviceId = r.id;
    f.computeMajor = r.computeCapabilityMajor;
    f.computeMinor = r.computeCapabilityMinor;
    f.smCount = r.numMultiprocessors;
    f.threadsPerWarp = r.numThreadsPerWarp;
    f.maxWarpsPerSm = r.maxWarpsPerMultiprocessor;
    f.maxBlocksPerSm = r.maxBlocksPerMultiprocessor;
    f.maxSharedMemoryPerSmBytes = r.maxSharedMemoryPerMultiprocessor;
    f.maxRegistersPerSm = r.maxRegistersPerMultiprocessor;
    f.maxRegistersPerBlock = r.maxRegistersPerBlock;
    f.maxSharedMemoryPerBlockBytes = r.maxSharedMemoryPerBlock;
    f.maxThreadsPerBlock = r.maxThreadsPerBlock;
    f.coreClockKHz = r.coreClockRate;
    f.globalMemoryBandwidthKBps = r.globalMemoryBandwidth;
    f.globalMemoryBytes = r.globalMemorySize;
    f.name = r.name != nullptr ? r.name : "";
    return f;
}

} // namespace

Result<InjectionConfig> InjectionConfig::fromEnvironment() {
    InjectionConfig config;
    const char* directory = std::getenv("SLICESCOPE_RECORD_DIR");
    if (directory == nullptr || *directory == '\0') {
        return fail(
            Error::Code::InvalidArgument,
            "SLICESCOPE_RECORD_DIR is not set; start the program with 'slicescope-cli record'");
    }
    config.directory = directory;
    if (const char* mode = std::getenv("SLICESCOPE_RECORD_MODE");
        mode != nullptr && *mode != '\0') {
        const std::string_view m(mode);
        if (m == "counters") {
            config.mode = record::SpoolMode::Counters;
        } else if (m != "trace") {
            return fail(Error::Code::InvalidArgument, "SLICESCOPE_RECORD_MODE='" + std::string(m) +
                                                          "' (expected trace or counters)");
        }
    }
    auto period =
        positiveFromEnvironment("SLICESCOPE_RECORD_FLUSH_MS", config.flushPeriodMs, 60'000);
    if (!period) {
        return tl::unexpected(period.error());
    }
    config.flushPeriodMs = std::uint32_t(*period);
    auto batch =
        positiveFromEnvironment("SLICESCOPE_RECORD_COUNTER_BATCH", config.counterBatch, 4096);
    if (!batch) {
        return tl::unexpected(batch.error());
    }
    config.counterBatch = std::size_t(*batch);
    return config;
}

InjectionRecorder::InjectionRecorder(const InjectionConfig& config, record::SpoolFile file)
    : config_(config), file_(std::move(file)) {}

Result<InjectionRecorder*> InjectionRecorder::start(const InjectionConfig& config) {
    auto file = record::SpoolFile::create(config.directory, long(::getpid()));
    if (!file) {
        return tl::unexpected(file.error());
    }
    int wake[2], done[2];
    if (::pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) {
        return fail(Error::Code::Internal, std::string("pipe2: ") + std::strerror(errno));
    }
    if (::pipe2(done, O_CLOEXEC) != 0) {
        ::close(wake[0]);
        ::close(wake[1]);
        return fail(Error::Code::Internal, std::string("pipe2: ") + std::strerror(errno));
    }
    // Lives until the process ends: the exit and signal handlers may use it at any time.
    auto* self = new InjectionRecorder(config, std::move(*file));
    self->wakeRead_ = wake[0];
    self->wakeWrite_ = wake[1];
    self->doneRead_ = done[0];
    self->doneWrite_ = done[1];

    record::BeginFrame begin;
    begin.pid = std::uint32_t(::getpid());
    begin.parentPid = std::uint32_t(::getppid());
    begin.mode = config.mode;
    begin.startNs = CuptiActivityCollector::timestampNs();
    begin.flushPeriodMs = config.flushPeriodMs;
    record::SpoolEncoder first;
    first.begin(begin);
    if (!self->file_.write(first.bytes())) {
        return fail(Error::Code::Io,
                    "cannot write " + self->file_.path().string() + ": " + std::strerror(errno));
    }
    self->startCupti();
    self->writer_ = std::thread([self] { self->run(); });
    return self;
}

void InjectionRecorder::startCupti() {
    CuptiActivityCollector::Options options;
    options.bufferBytes = config_.bufferBytes;
    options.maxBuffers = config_.maxBuffers;
    if (config_.mode == record::SpoolMode::Trace) {
        // Both APIs: numba and other Python front ends call the driver API only.
        // MEMCPY2: peer-to-peer copies, which MEMCPY does not report.
        options.kinds = {CUPTI_ACTIVITY_KIND_RUNTIME,
                         CUPTI_ACTIVITY_KIND_DRIVER,
                         CUPTI_ACTIVITY_KIND_MEMCPY,
                         CUPTI_ACTIVITY_KIND_MEMCPY2,
                         CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                         CUPTI_ACTIVITY_KIND_MEMSET,
                         CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
                         CUPTI_ACTIVITY_KIND_OVERHEAD};
    } else {
        // The counting pass needs only the kernels, to join counters to launches.
        options.kinds = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL};
    }
    const int wakeWrite = wakeWrite_;
    options.onBufferCompleted = [wakeWrite] {
        const Request wake;
        (void)!::write(wakeWrite, &wake, sizeof wake);
    };
    auto collector = CuptiActivityCollector::start(std::move(options));
    if (!collector) {
        queueMessage(record::MessageSeverity::Error,
                     "CUPTI activity tracing could not start: " + collector.error().message);
        return;
    }
    collector_ = std::move(*collector);
    // CUPTI's own periodic flush hands over full buffers only (cupti_activity.h); the writer
    // thread's default flush each period hands over partly filled ones too.
    if (auto period = collector_->setFlushPeriod(config_.flushPeriodMs); !period) {
        queueMessage(record::MessageSeverity::Note, period.error().message);
    }
    if (config_.mode == record::SpoolMode::Trace) {
        enableUnifiedMemoryCounters();
    }
    // Device records give the figures theoretical occupancy needs, with no CUDA call of ours.
    if (const CUptiResult r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DEVICE); r != CUPTI_SUCCESS) {
        queueMessage(record::MessageSeverity::Note,
                     cuptiError(r, "cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DEVICE)").message);
    }
    if (config_.mode == record::SpoolMode::Counters) {
        counter_ = std::make_unique<KernelCounter>(
            config_.counterBatch, [this](const record::RangeFrame& range) { queueRange(range); },
            [this](record::MessageSeverity severity, std::string text) {
                queueMessage(severity, std::move(text));
            });
        if (auto subscribed = counter_->subscribe(); !subscribed) {
            queueMessage(record::MessageSeverity::CountersUnavailable,
                         "achieved occupancy: " + subscribed.error().message);
            counter_.reset();
        }
    }
}

void InjectionRecorder::enableUnifiedMemoryCounters() {
    // Migrations of managed memory, as copies (activityrecorddecoder.cpp), where the platform and
    // the device support the counters; otherwise a note says why they are missing.
    CUpti_ActivityUnifiedMemoryCounterConfig config[3] = {};
    const CUpti_ActivityUnifiedMemoryCounterKind kinds[3] = {
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD,
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH,
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOD};
    for (int i = 0; i < 3; ++i) {
        config[i].scope = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_ALL_DEVICES;
        config[i].kind = kinds[i];
        config[i].deviceId = 0;
        config[i].enable = 1;
    }
    CUptiResult r = cuptiActivityConfigureUnifiedMemoryCounter(config, 3);
    if (r == CUPTI_SUCCESS) {
        r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
    }
    if (r != CUPTI_SUCCESS) {
        queueMessage(record::MessageSeverity::Note,
                     "unified-memory migrations are not recorded: " +
                         cuptiError(r, "cuptiActivityConfigureUnifiedMemoryCounter").message);
    }
}

bool InjectionRecorder::isWriterThread() const {
    return std::this_thread::get_id() == writer_.get_id();
}

void InjectionRecorder::queueMessage(record::MessageSeverity severity, std::string text) {
    {
        const std::lock_guard lock(pendingMutex_);
        pending_.message({severity, std::move(text)});
    }
    const Request wake;
    (void)!::write(wakeWrite_, &wake, sizeof wake);
}

void InjectionRecorder::queueRange(const record::RangeFrame& range) {
    const std::lock_guard lock(pendingMutex_);
    pending_.range(range);
}

void InjectionRecorder::writeNewNames() {
    const auto& names = decoder_.names();
    for (; namesWritten_ < names.size(); ++namesWritten_) {
        encoder_.name({namesWritten_, names[namesWritten_]});
    }
}

void InjectionRecorder::writeStats(bool force) {
    record::StatsFrame stats;
    if (collector_) {
        stats.droppedRecords = collector_->droppedRecords();
        stats.refusedBuffers = collector_->refusedBuffers();
    }
    stats.unknownRecords = decoder_.counts().unknown;
    stats.activities = activities_;
    if (force || stats.droppedRecords != lastStats_.droppedRecords ||
        stats.refusedBuffers != lastStats_.refusedBuffers ||
        stats.unknownRecords != lastStats_.unknownRecords) {
        encoder_.stats(stats);
        lastStats_ = stats;
    }
}

void InjectionRecorder::drainAndWrite() {
    if (collector_) {
        collector_->drainRecords([this](const CUpti_Activity& record) {
            if (record.kind == CUPTI_ACTIVITY_KIND_DEVICE) {
                encoder_.device(toFrame(reinterpret_cast<const CUpti_ActivityDevice5&>(record)));
                return;
            }
            auto decoded = decoder_.decode(record);
            if (!decoded) {
                return;
            }
            writeNewNames();
            encoder_.activity(toFrame(*decoded));
            ++activities_;
            // Hand big batches to the kernel as they grow, not all at the end.
            if (encoder_.bytes().size() >= (std::size_t(1) << 20)) {
                (void)file_.write(encoder_.bytes());
                encoder_.clear();
            }
        });
    }
    {
        const std::lock_guard lock(pendingMutex_);
        encoder_.bytes() += pending_.bytes();
        pending_.clear();
    }
    writeStats(false);
    if (!encoder_.bytes().empty()) {
        (void)file_.write(encoder_.bytes());
        encoder_.clear();
    }
}

void InjectionRecorder::run() {
    // Process-directed signals go to the program's threads, whose handler waits for this one.
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, nullptr);
    using Clock = std::chrono::steady_clock;
    const auto period = std::chrono::milliseconds(config_.flushPeriodMs);
    auto nextFlush = Clock::now() + period;
    for (;;) {
        const auto wait =
            std::chrono::duration_cast<std::chrono::milliseconds>(nextFlush - Clock::now());
        pollfd p{wakeRead_, POLLIN, 0};
        (void)::poll(&p, 1, int(std::max<std::int64_t>(0, wait.count())));
        bool final = false;
        record::EndFrame end;
        Request request;
        while (::read(wakeRead_, &request, sizeof request) == ssize_t(sizeof request)) {
            if (request.type == 'F') {
                final = true;
                end.reason = record::EndReason(request.reason);
                end.signal = request.signal;
            }
        }
        if (collector_ && Clock::now() >= nextFlush) {
            // Every buffer whose records are all complete, full or not: what a SIGKILL can lose
            // is bounded by the flush period. On the period only: a buffer it hands over wakes
            // this thread again, which must not turn into a loop of flushes.
            (void)cuptiActivityFlushAll(0);
            nextFlush = Clock::now() + period;
        }
        drainAndWrite();
        if (final) {
            if (collector_) {
                (void)collector_->flush();
            }
            drainAndWrite();
            writeStats(true);
            end.endNs = CuptiActivityCollector::timestampNs();
            encoder_.end(end);
            (void)file_.write(encoder_.bytes());
            encoder_.clear();
            const char done = 'd';
            (void)!::write(doneWrite_, &done, 1);
            // The process is ending: make no CUPTI call while its libraries are torn down.
            return;
        }
    }
}

void InjectionRecorder::requestFinal(record::EndReason reason, int signal, int timeoutMs) {
    Request request;
    request.type = 'F';
    request.reason = std::uint8_t(reason);
    request.signal = signal;
    // The wake pipe is non-blocking; should it be full, retry briefly (the writer is draining it).
    for (int i = 0; i < 100; ++i) {
        if (::write(wakeWrite_, &request, sizeof request) == ssize_t(sizeof request)) {
            break;
        }
        ::usleep(1000);
    }
    pollfd p{doneRead_, POLLIN, 0};
    if (::poll(&p, 1, timeoutMs) > 0) {
        char done = 0;
        (void)!::read(doneRead_, &done, 1);
    }
}

void InjectionRecorder::finishAtExit() {
    if (finished_.exchange(true)) {
        return;
    }
    if (counter_) {
        counter_->finish();
    }
    requestFinal(record::EndReason::Exit, 0, 10'000);
}

void InjectionRecorder::finishOnSignal(int signal, int timeoutMs) {
    if (isWriterThread() || finished_.exchange(true)) {
        return;
    }
    requestFinal(record::EndReason::Signal, signal, timeoutMs);
}

} // namespace slicescope::cuda
