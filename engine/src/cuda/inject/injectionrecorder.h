#pragma once

// What the injection library does in a recorded program: CUPTI activity records decoded by the
// engine's own decoder and appended, as spool frames, to this process's spool file by a writer
// thread, so that they survive however the program ends:
// - every flush period the writer thread asks CUPTI for every buffer whose records are complete
//   (cuptiActivityFlushAll(0); CUPTI's own periodic flush returns full buffers only), and CUPTI
//   hands over each buffer that fills; the thread decodes and writes them at once, so a program
//   that dies abruptly (os._exit, SIGKILL) loses about one flush period of records;
// - exit() and returning from main run an atexit handler that flushes everything and writes an
//   End frame;
// - fatal signals whose disposition was the default (SIGTERM, SIGINT, SIGSEGV, SIGABRT from an
//   uncaught exception, ...) run a handler that asks the writer thread for the same final flush,
//   waits a bounded time for it, then dies of the signal as it would have.
// Memory is bounded: a fixed pool of CUPTI buffers, names interned once, frames written as they
// are made.
//
// One per process, by necessity: CUPTI has one activity client per process and signal handlers
// and atexit carry no user pointer.

#include "activityrecorddecoder.h"
#include "cuptiactivitycollector.h"
#include "kernelcounter.h"
#include "spool/spoolfile.h"
#include "spool/spoolformat.h"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace slicescope::cuda {

struct InjectionConfig {
    std::filesystem::path directory;                   // SLICESCOPE_RECORD_DIR
    record::SpoolMode mode = record::SpoolMode::Trace; // SLICESCOPE_RECORD_MODE: trace, counters
    std::uint32_t flushPeriodMs = 100;                 // SLICESCOPE_RECORD_FLUSH_MS
    std::size_t counterBatch = 16;                     // SLICESCOPE_RECORD_COUNTER_BATCH
    std::size_t bufferBytes = std::size_t(2) << 20;
    std::size_t maxBuffers = 24;

    // From the environment; an error when SLICESCOPE_RECORD_DIR is not set or a value is bad.
    static Result<InjectionConfig> fromEnvironment();
};

class InjectionRecorder {
  public:
    // Opens the spool, starts CUPTI and the writer thread, installs the exit and signal handlers.
    // CUPTI failures after the spool is open are written to it (the recording then says why it
    // holds no GPU activity) rather than returned.
    static Result<InjectionRecorder*> start(const InjectionConfig& config);

    // For the atexit handler: decode pending counters, flush everything, write the End frame.
    void finishAtExit();
    // For the signal handler (async-signal-safe): the same flush by the writer thread, waited
    // for at most timeoutMs.
    void finishOnSignal(int signal, int timeoutMs);
    bool isWriterThread() const;

  private:
    explicit InjectionRecorder(const InjectionConfig& config, record::SpoolFile file);
    void startCupti();
    void enableUnifiedMemoryCounters();
    void run(); // the writer thread
    void drainAndWrite();
    void writeNewNames();
    void writeStats(bool force);
    void queueMessage(record::MessageSeverity severity, std::string text);
    void queueRange(const record::RangeFrame& range);
    void requestFinal(record::EndReason reason, int signal, int timeoutMs);

    InjectionConfig config_;
    record::SpoolFile file_;
    std::unique_ptr<CuptiActivityCollector> collector_;
    std::unique_ptr<KernelCounter> counter_;
    ActivityRecordDecoder decoder_;
    record::SpoolEncoder encoder_;   // the writer thread's
    std::uint32_t namesWritten_ = 1; // names()[0] is the empty name
    record::StatsFrame lastStats_;
    std::uint64_t activities_ = 0;

    std::mutex pendingMutex_; // frames made on other threads (counters, messages)
    record::SpoolEncoder pending_;

    int wakeRead_ = -1, wakeWrite_ = -1; // requests to the writer thread
    int doneRead_ = -1, doneWrite_ = -1; // its answers to final requests
    std::thread writer_;
    std::atomic<bool> finished_{false};
};

} // namespace slicescope::cuda
