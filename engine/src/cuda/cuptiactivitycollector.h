#pragma once

// CUPTI activity collection as its own component (docs/gpu-backend.md): runtime API calls, copies,
// kernels, memsets, synchronization and overhead, in buffers from a bounded pool.
//
// Kineto's lessons: the buffer callbacks do O(1) work (take a pooled buffer; queue a completed
// one); records are decoded later, on the caller's thread, by drain(); dropped records are
// counted. CUPTI allows one activity client per process and its buffer callbacks carry no user
// pointer, so one collector may be active at a time (start() refuses a second) — the only
// process-wide state here, and CUPTI forces it.
//
// It calls no CUDA runtime or driver API, so an injection library (CUDA_INJECTION64_PATH) can use
// it too: such a library sets a flush period and drains periodically, writing records
// incrementally, with memory bounded by the pool.

#include "activitybufferpool.h"
#include "activityrecorddecoder.h"
#include "slicescope/core/result.h"

#include <atomic>
#include <cstdint>
#include <cupti_activity.h>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace slicescope::cuda {

class CuptiActivityCollector {
  public:
    struct Options {
        // Small buffers: CUPTI prepares each buffer it is given (the cost shows as "activity
        // buffer request" overhead), and a run's records fill a few kilobytes.
        std::size_t bufferBytes = std::size_t(1) << 20;
        std::size_t maxBuffers = 256;
        std::vector<CUpti_ActivityKind> kinds = defaultKinds();
        // Called on CUPTI's thread each time a buffer is queued for drain(); it must be O(1) and
        // must not call CUPTI (an injection library wakes its writer thread here).
        std::function<void()> onBufferCompleted;
    };
    // RUNTIME, MEMCPY, CONCURRENT_KERNEL, MEMSET, SYNCHRONIZATION, OVERHEAD.
    static std::vector<CUpti_ActivityKind> defaultKinds();

    // Registers the buffer callbacks and enables the kinds. Unsupported when CUPTI cannot be
    // used here (no driver, another profiler attached, ...), with CUPTI's reason.
    static Result<std::unique_ptr<CuptiActivityCollector>> start(Options options);
    static Result<std::unique_ptr<CuptiActivityCollector>> start(); // default options
    ~CuptiActivityCollector(); // disables the kinds, flushes and frees every buffer
    CuptiActivityCollector(const CuptiActivityCollector&) = delete;
    CuptiActivityCollector& operator=(const CuptiActivityCollector&) = delete;

    Status enable();
    Status disable(); // e.g. while the range profiler replays kernels
    // Has CUPTI hand back every buffer, partly filled ones too. Records of device work are complete
    // only once that work has finished (synchronize first).
    Status flush();
    // CUPTI flushes on its own every `periodMs` (0: only when buffers fill or flush() is called).
    Status setFlushPeriod(std::uint32_t periodMs);

    // Decodes the completed buffers in the order CUPTI completed them and returns them to the
    // pool. Runs on the caller's thread, never inside a CUPTI callback.
    using Sink = std::function<void(const DecodedActivity&)>;
    void drain(ActivityRecordDecoder& decoder, const Sink& sink);
    // The same, handing over each raw record instead (for kinds the decoder does not know, such
    // as device records). The record lives only during the call.
    void drainRecords(const std::function<void(const CUpti_Activity&)>& each);

    // Records CUPTI dropped (cuptiActivityGetNumDroppedRecords, summed: CUPTI resets it on read).
    std::uint64_t droppedRecords() const { return dropped_.load(); }
    // Buffer requests the pool turned down because all its buffers were out.
    std::uint64_t refusedBuffers() const { return pool_.refused(); }

    // Now on CUPTI's clock (the clock of every record), for stamping host activities.
    static std::int64_t timestampNs();

  private:
    explicit CuptiActivityCollector(Options options);

    static void bufferRequested(std::uint8_t** buffer, std::size_t* size,
                                std::size_t* maxNumRecords);
    static void bufferCompleted(CUcontext context, std::uint32_t streamId, std::uint8_t* buffer,
                                std::size_t size, std::size_t validSize);

    struct Completed {
        std::uint8_t* buffer;
        std::size_t validBytes;
    };

    Options options_;
    ActivityBufferPool pool_;
    std::mutex completedMutex_;
    std::vector<Completed> completed_;
    std::atomic<std::uint64_t> dropped_{0};
    bool enabled_ = false;

    static std::atomic<CuptiActivityCollector*> active_;
};

} // namespace slicescope::cuda
