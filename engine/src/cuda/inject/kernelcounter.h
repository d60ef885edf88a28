#pragma once

// Achieved occupancy of every kernel an unmodified program launches, inside the injection library
// (the counting pass of `record --counters`). CUPTI's Range Profiler per context, auto ranges
// (one per kernel launch) and kernel replay, enabled at the context's first launch. Every
// `batch` launches (and when the context is destroyed, and at exit) the ranges are decoded,
// evaluated and handed to the sink, and counting starts again on a fresh counter-data image, so
// memory stays bounded however many kernels the program launches.
//
// It runs in CUPTI callbacks on the program's threads; one mutex serialises them. A failure
// (missing privileges, an unsupported device) is reported once through the message sink and
// counting stops; the program runs on.

#include "cuptiprofilerhost.h"
#include "slicescope/core/result.h"
#include "spool/spoolformat.h"

#include <cstdint>
#include <cuda.h>
#include <cupti_callbacks.h>
#include <cupti_range_profiler.h>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace slicescope::cuda {

class KernelCounter {
  public:
    using RangeSink = std::function<void(const record::RangeFrame&)>;
    using MessageSink = std::function<void(record::MessageSeverity, std::string)>;

    KernelCounter(std::size_t batch, RangeSink ranges, MessageSink messages);
    ~KernelCounter();
    KernelCounter(const KernelCounter&) = delete;
    KernelCounter& operator=(const KernelCounter&) = delete;

    // Subscribes to CUPTI's resource and launch callbacks. Fails when another CUPTI subscriber
    // holds the process.
    Status subscribe();
    // Decodes what every context has counted so far and stops counting (at exit).
    void finish();

  private:
    struct Context {
        CUcontext context = nullptr;
        std::uint32_t contextId = 0;
        std::uint32_t deviceId = 0;
        std::unique_ptr<ProfilerHost> host;
        CUpti_RangeProfiler_Object* object = nullptr;
        std::vector<std::uint8_t> counterData;
        std::uint64_t rangesDone = 0;
        std::size_t launchesInPass = 0;
        bool running = false; // between Start and Stop
        bool failed = false;
    };

    static void CUPTIAPI callback(void* self, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                                  const void* data);
    void onLaunch(CUcontext context, bool enter);
    void onContextDestroy(CUcontext context);

    Status start(Context& c);   // enable (first time), fresh image, SetConfig, Start
    Status collect(Context& c); // Stop, Decode, evaluate and emit the ranges
    void disable(Context& c);
    void failed(Context& c, const Error& error);

    const std::size_t batch_;
    RangeSink ranges_;
    MessageSink messages_;
    std::mutex mutex_;
    CUpti_SubscriberHandle subscriber_ = nullptr;
    std::shared_ptr<ProfilerInitialization> initialization_;
    std::unordered_map<CUcontext, Context> contexts_;
    bool reportedFailure_ = false;
    bool finished_ = false;
};

// Whether a callback id of the driver or runtime domain launches kernels.
bool isLaunchCallback(CUpti_CallbackDomain domain, CUpti_CallbackId id);

} // namespace slicescope::cuda
