// The GPU backend of a build with CUDA: slicescope/backend/gpubackend.h over a GpuSession.
#include "slicescope/backend/gpubackend.h"

#include "cudadevice.h"
#include "gpusession.h"
#include "slicescope/trace/tracelimits.h"

namespace slicescope::backend {

bool gpuBackendBuilt() {
    return true;
}

DetectedDevices detectDevices() {
    return cuda::detect();
}

GpuResults runGpu(const std::vector<strategy::StrategyId>& ids, const RunRequest& request,
                  const GpuOptions& options, const Progress& progress) {
    GpuResults out;
    if (ids.empty()) {
        return out;
    }
    const auto failAll = [&](const Error& error) {
        for (auto id : ids) {
            out.runs.push_back(fail(error.code, std::string(strategy::toString(id)) +
                                                    " cannot run: " + error.message));
        }
        return out;
    };
    for (auto id : ids) {
        if (!strategy::isGpu(id)) {
            return failAll({Error::Code::InvalidArgument,
                            std::string(strategy::toString(id)) + " runs on the CPU, not the GPU"});
        }
    }
    if (request.repeat < 1) {
        return failAll({Error::Code::InvalidArgument, "repeat must be >= 1"});
    }
    if (request.warmup > trace::kMaxWarmup) {
        return failAll({Error::Code::InvalidArgument,
                        "warmup must be at most " + std::to_string(trace::kMaxWarmup)});
    }
    auto session = cuda::GpuSession::open(request.deviceIndex, options);
    if (!session) {
        for (auto id : ids) {
            out.runs.push_back(
                fail(session.error().code, std::string(strategy::toString(id)) +
                                               " cannot run: " + session.error().message));
        }
        return out;
    }
    bool faultPending = options.testFault != TestFault::None;
    for (auto id : ids) {
        if (!(*session)->usable()) {
            out.runs.push_back(
                fail(Error::Code::DeviceFault, "not run: " + (*session)->whyUnusable()));
            if (!(*session)->hung()) {
                out.notStarted.push_back(id);
            }
            continue;
        }
        out.runs.push_back((*session)->run(id, request, progress, faultPending));
        faultPending = false;
    }
    out.deviceHung = (*session)->hung();
    if (out.deviceHung) {
        // A kernel still runs: destroying the session would wait for it. The caller ends the
        // process; the driver then reclaims everything.
        (void)session->release();
    }
    return out;
}

bool runGpuPoints(const std::vector<strategy::StrategyId>& ids,
                  const std::vector<RunRequest>& requests, const GpuOptions& options,
                  const std::function<Progress(std::size_t)>& progressFor,
                  const std::function<bool(std::size_t, GpuResults&&)>& onPoint) {
    if (requests.empty()) {
        return false;
    }
    for (auto id : ids) {
        if (!strategy::isGpu(id)) {
            // runGpu says why, for every strategy.
            onPoint(0, runGpu(ids, requests[0], options));
            return false;
        }
    }
    // One session for every point; all points share the first request's device.
    auto session = cuda::GpuSession::open(requests.front().deviceIndex, options);
    if (!session) {
        // Every point fails the same way: say so for each.
        for (std::size_t point = 0; point < requests.size(); ++point) {
            GpuResults out;
            for (auto id : ids) {
                out.runs.push_back(
                    fail(session.error().code, std::string(strategy::toString(id)) +
                                                   " cannot run: " + session.error().message));
            }
            if (!onPoint(point, std::move(out))) {
                break;
            }
        }
        return false;
    }
    bool faultPending = options.testFault != TestFault::None;
    for (std::size_t point = 0; point < requests.size(); ++point) {
        GpuResults out;
        const Progress progress = progressFor ? progressFor(point) : Progress{};
        for (auto id : ids) {
            if (!(*session)->usable()) {
                out.runs.push_back(
                    fail(Error::Code::DeviceFault, "not run: " + (*session)->whyUnusable()));
                if (!(*session)->hung()) {
                    out.notStarted.push_back(id);
                }
                continue;
            }
            out.runs.push_back((*session)->run(id, requests[point], progress, faultPending));
            faultPending = false;
        }
        out.deviceHung = (*session)->hung();
        const bool hung = out.deviceHung;
        const bool usable = (*session)->usable();
        if (hung) {
            (void)session->release(); // as in runGpu: destroying it would wait for the kernel
        }
        if (!onPoint(point, std::move(out)) || !usable) {
            return hung;
        }
    }
    return false;
}

std::vector<Result<trace::Run>> runGpu(const std::vector<strategy::StrategyId>& ids,
                                       const RunRequest& request, const Progress& progress) {
    return runGpu(ids, request, GpuOptions{}, progress).runs;
}

} // namespace slicescope::backend
