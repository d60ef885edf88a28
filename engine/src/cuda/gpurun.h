#pragma once

// What one GPU run holds from its plan to its assembly (GpuSession::runTyped, gpurun.cpp): the
// request, the launch, the buffers, and the run and records each step adds to. The members are
// declared in the order the buffers must be freed in reverse: device before host.

#include "kernels/kernelargs.h"
#include "rangeprofiler.h"
#include "record/gpurunassembly.h"
#include "runbuffers.h"
#include "slicescope/backend/gpubackend.h"
#include "slicescope/strategy/pipeline.h"
#include "slicescope/strategy/strategy.h"
#include "slicescope/trace/trace.h"

#include <cuda_runtime_api.h>
#include <string>
#include <vector>

namespace slicescope::cuda {

class GpuSession;

// A chunk's launch: its arguments point at its part of the arrays (strategy/pipeline.h).
struct ChunkLaunch {
    kernels::KernelArgs args;
    dim3 grid, block;
    std::uint64_t arrayBytes = 0, arrayOffsetBytes = 0;
    std::uint64_t multByBytes = 0, multByOffsetBytes = 0;
};

template <typename T> struct GpuRun {
    GpuRun(const GpuSession& owner, strategy::StrategyId strategyId,
           const backend::RunRequest& runRequest, const backend::Progress& report)
        : session(owner), id(strategyId), request(runRequest), progress(report),
          p(runRequest.problem), mode(runRequest.memory),
          copies(mode == backend::MemoryMode::Pageable || mode == backend::MemoryMode::Pinned),
          name(strategy::toString(strategyId)) {}
    GpuRun(const GpuRun&) = delete;
    GpuRun& operator=(const GpuRun&) = delete;

    // A host activity from startNs to now, of a traced iteration or of none.
    void span(std::string what, std::int64_t startNs, std::uint32_t iteration = record::kNoPass);

    const GpuSession& session;
    const strategy::StrategyId id;
    const backend::RunRequest& request;
    const backend::Progress& progress;
    const problem::Problem& p;
    const backend::MemoryMode mode;
    const bool copies; // pageable and pinned runs copy; managed and mapped ones do not
    const std::string name;
    std::int64_t runStart = 0;
    std::uint64_t droppedBefore = 0, refusedBefore = 0; // the collector's counts before the run

    trace::Run run;
    record::GpuRunRecords records;

    // The plan: the kernel, the launch the strategy's data prescribes, and the pipeline's chunks.
    const void* kernel = nullptr;
    const void* launched = nullptr; // the kernel, or the test fault kernel that replaces it
    cudaFuncAttributes attributes{};
    strategy::LaunchLimits limits;
    strategy::LaunchGeometry geometry; // the first chunk's when pipelined
    bool crn = false;
    bool materialized = false;
    strategy::PipelinePlan plan;
    bool pipelined = false;
    std::vector<strategy::LaunchGeometry> chunkGeometry;
    std::uint64_t elements = 0, cn = 0, arrayBytes = 0, multByBytes = 0;

    // Host buffers in the requested memory mode, the original-layout arrays beside them, the
    // device buffers of copying runs, and the CPU reference (the session's cache).
    HostBuffer discountHost, multByHost, cvHost;
    std::vector<T> discountRcn, cvRcn, multByRow;
    DeviceBuffer discountDevice, multByDevice, cvDevice;
    const std::vector<T>* expected = nullptr;

    kernels::KernelArgs args;
    dim3 grid, block;
    std::vector<ChunkLaunch> chunkLaunches;
    std::vector<strategy::Transfer> transfers;

    trace::Verification verification{true, 0.0};
    std::vector<RangeMetrics> ranges;
};

} // namespace slicescope::cuda
