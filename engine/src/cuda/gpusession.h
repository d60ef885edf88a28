#pragma once

// One process's GPU measurement session: one device, one context, one stream (more for pipelined
// runs, strategy/pipeline.h), one CUPTI activity collector, and (when asked) the Range Profiler and
// PM sampling. It runs one strategy at a time: allocate, lay out, copy, poison, launch, copy back,
// verify, `repeat` times; then, with counters, a second replayed pass; then it hands what it
// collected to record::assembleGpuRun (record/gpurunassembly.h), which builds the strategy's run.

#include "activityrecorddecoder.h"
#include "cuptiactivitycollector.h"
#include "pmsampler.h"
#include "rangeprofiler.h"
#include "record/gpurunassembly.h"
#include "slicescope/backend/gpubackend.h"
#include "slicescope/device/devicespec.h"
#include "slicescope/occupancy/occupancycalculator.h"
#include "slicescope/trace/trace.h"
#include "streamwaiter.h"

#include <cuda_runtime_api.h>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace slicescope::cuda {

struct ChunkLaunch;
template <typename T> struct GpuRun;

// Theoretical occupancy of one launch by the engine's calculator, next to the CUDA API's figure.
struct OccupancyCrossCheck {
    trace::OccupancyInfo info;           // what the run stores
    std::uint32_t cudaActiveBlocksPerSm; // cudaOccupancyMaxActiveBlocksPerMultiprocessor
    std::optional<std::uint32_t> calculatorActiveBlocksPerSm; // absent when the calculator failed
    std::string calculatorError;
    bool agree() const {
        return calculatorActiveBlocksPerSm && *calculatorActiveBlocksPerSm == cudaActiveBlocksPerSm;
    }
};

Result<OccupancyCrossCheck> crossCheckOccupancy(const device::DeviceSpec& device,
                                                const void* kernel, std::uint32_t blockThreads,
                                                std::uint32_t registersPerThread,
                                                std::uint64_t sharedBytes);

// What a run states about its launch: theoretical occupancy (cross-checked against the CUDA API),
// geometry and the kernel's registers and shared memory, with notes on any disagreement.
struct LaunchFacts {
    trace::OccupancyInfo occupancy;
    trace::LaunchInfo launch;
    std::vector<std::string> notes;
};

Result<LaunchFacts> launchFacts(const device::DeviceSpec& device, const void* kernel,
                                const cudaFuncAttributes& attributes,
                                const strategy::LaunchGeometry& geometry,
                                const strategy::BlockOption& blockOption);

class GpuSession {
  public:
    static Result<std::unique_ptr<GpuSession>> open(int deviceIndex,
                                                    const backend::GpuOptions& options);
    ~GpuSession();
    GpuSession(const GpuSession&) = delete;
    GpuSession& operator=(const GpuSession&) = delete;

    // Runs one GPU strategy. With injectFault, its kernel is replaced by the test fault kernel.
    Result<trace::Run> run(strategy::StrategyId id, const backend::RunRequest& request,
                           const backend::Progress& progress, bool injectFault);

    // After a sticky error or a hang nothing more can run in this process.
    bool usable() const { return !contextLost_ && !hung_; }
    bool hung() const { return hung_; }
    const std::string& whyUnusable() const { return whyUnusable_; }
    const device::DeviceSpec& device() const { return device_; }

    std::int64_t now() const;

  private:
    GpuSession() = default;
    // One run, in the steps of docs/gpu-backend.md (gpurun.cpp): plan, fit, allocate and fill,
    // the traced pass (warm-up and measured iterations, PM sampling through the measured ones),
    // the counted pass, then the buffers freed and the run assembled.
    template <typename T>
    Result<trace::Run> runTyped(strategy::StrategyId id, const backend::RunRequest& request,
                                const backend::Progress& progress, bool injectFault);
    // The kernel, its launch geometry and the pipeline's chunks; the run's header and notes.
    template <typename T> Status planRun(GpuRun<T>& r, bool injectFault);
    template <typename T> Status planChunks(GpuRun<T>& r);
    // Whether the run fits: device memory first, before anything is allocated, then the host's.
    template <typename T> Status checkRunFits(GpuRun<T>& r);
    // Host and device buffers, the inputs filled, the output poisoned, the CPU reference.
    template <typename T> Status allocateAndFill(GpuRun<T>& r);
    // The kernel's arguments, grid and block, and each chunk's launch when pipelined.
    template <typename T> void prepareLaunches(GpuRun<T>& r);
    template <typename T> Status launchChunk(GpuRun<T>& r, ChunkLaunch& l, cudaStream_t stream);
    // Every launch of one repetition, on stream_ (the counted pass replays them one by one).
    template <typename T> Status launchRepetition(GpuRun<T>& r);
    // One pipelined repetition (docs/gpu-backend.md, "Pipelines").
    template <typename T> Status runPipelined(GpuRun<T>& r, std::uint32_t it);
    Status copyChunk(void* to, const void* from, std::uint64_t bytes, cudaMemcpyKind kind,
                     cudaStream_t stream, const std::string& what);
    // Makes the PM sampler the run needs, if it asks for samples.
    void prepareSampling(const backend::RunRequest& request);
    // The traced pass: `warmup` warm-up iterations, then `repeat` measured ones, then the samples.
    template <typename T> Status tracedPass(GpuRun<T>& r);
    template <typename T> Status tracedIteration(GpuRun<T>& r, std::uint32_t it);
    template <typename T> Status copyInputs(GpuRun<T>& r);
    template <typename T> Status copyOutput(GpuRun<T>& r);
    // The counted pass of the run, when it asks for counters.
    template <typename T> Status countRun(GpuRun<T>& r);
    // Frees the buffers and builds the run from what the session collected.
    template <typename T> Result<trace::Run> finishRun(GpuRun<T>& r);
    // Waits for the stream with the kernel timeout; marks the session hung or lost on failure.
    Status wait(std::string_view what);
    // Turns a failed CUDA call into the strategy's error, marking the context lost when sticky.
    Error fault(cudaError_t error, const std::string& what);
    template <typename T> const std::vector<T>& reference(const problem::Problem& problem);

    // The counted pass: `launch` `repeat` times under the Range Profiler, tracing off. Counters
    // that cannot be read are a note, not an error, unless the context was lost meanwhile.
    // `launch` makes launchesPerRepeat launches (one per chunk).
    Result<std::vector<RangeMetrics>> countedPass(const std::string& name, std::uint32_t repeat,
                                                  std::uint32_t launchesPerRepeat,
                                                  const std::function<Status()>& launch,
                                                  std::vector<std::string>& notes);
    // Adds this run's PM samples to records; frees the sampler when counters come next.
    void takeSamples(record::GpuRunRecords& records, bool sampleOccupancy, bool countersNext);
    // Adds what CUPTI and the Range Profiler collected for this run to records.
    void addCollected(record::GpuRunRecords& records, std::uint64_t droppedBefore,
                      std::uint64_t refusedBefore, const std::vector<RangeMetrics>& ranges);

    struct Decoded {
        std::vector<record::MeasuredActivity> records;
        std::uint64_t unknown = 0;
    };
    // Flushes CUPTI and decodes every record since the last call.
    Decoded collect();

    int deviceIndex_ = 0;
    backend::GpuOptions options_;
    device::DeviceSpec device_;
    cudaStream_t stream_ = nullptr;
    // Pipelined runs: stream k of S is stream_ for k = 0, pipelineStreams_[k - 1] otherwise; each
    // has an event that stream_ waits on to join it, and one event marks the shared input copied.
    std::vector<cudaStream_t> pipelineStreams_;
    std::vector<cudaEvent_t> joinEvents_;
    cudaEvent_t inputsReady_ = nullptr;
    // Makes sure streams 1..count-1 exist.
    Status ensureStreams(std::uint32_t count);
    cudaStream_t streamAt(std::uint32_t k) const {
        return k == 0 ? stream_ : pipelineStreams_[k - 1];
    }
    // Makes stream_ wait for the work issued so far on streams 1..count-1.
    Status joinStreams(std::uint32_t count);
    std::unique_ptr<StreamWaiter> waiter_; // with a kernel timeout
    std::string setupNote_;                // how long the session took to start, for its first run
    std::unique_ptr<CuptiActivityCollector> collector_;
    ActivityRecordDecoder decoder_;
    std::unique_ptr<RangeProfiler> rangeProfiler_;
    std::optional<std::string> countersUnavailable_; // why, once known for this session
    std::unique_ptr<PmSampler> pmSampler_;
    std::optional<std::string> samplingUnavailable_;
    bool contextLost_ = false;
    bool hung_ = false;
    std::string whyUnusable_;
    std::optional<problem::Problem> referenceProblem_;
    std::vector<double> referenceF64_;
    std::vector<float> referenceF32_;
};

} // namespace slicescope::cuda
