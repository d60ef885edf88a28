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

namespace {

// Every strategy failed with the same error, before it started.
GpuResults cannotRun(const std::vector<strategy::StrategyId>& ids, const Error& error) {
    GpuResults out;
    for (auto id : ids) {
        out.runs.push_back(fail(error.code, std::string(strategy::toString(id)) +
                                                " cannot run: " + error.message));
    }
    return out;
}

// What a session cannot run at all, whatever the strategy.
Status checkRequest(const RunRequest& request) {
    if (request.repeat < 1) {
        return fail(Error::Code::InvalidArgument, "repeat must be >= 1");
    }
    if (request.warmup > trace::kMaxWarmup) {
        return fail(Error::Code::InvalidArgument,
                    "warmup must be at most " + std::to_string(trace::kMaxWarmup));
    }
    return {};
}

// The strategies at one request on an open session, in order; a strategy after a fault that left
// the session unusable is not run, and says why. faultPending: the test fault is still to inject
// (into the first strategy that runs).
GpuResults runOnSession(cuda::GpuSession& session, const std::vector<strategy::StrategyId>& ids,
                        const RunRequest& request, const Progress& progress, bool& faultPending) {
    GpuResults out;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const auto id = ids[i];
        if (!session.usable()) {
            out.runs.push_back(fail(Error::Code::DeviceFault, "not run: " + session.whyUnusable()));
            if (!session.hung()) {
                out.notStarted.push_back(id);
            }
            continue;
        }
        // The fraction reported is the batch's: each strategy's own starts again at 0, and a
        // reader would see the batch's progress go back at every strategy.
        Progress batch = progress;
        if (progress.report) {
            batch.report = [&progress, i, n = ids.size()](std::string_view stage, double fraction) {
                progress.report(stage, (double(i) + fraction) / double(n));
            };
        }
        out.runs.push_back(session.run(id, request, batch, faultPending));
        faultPending = false;
    }
    out.deviceHung = session.hung();
    return out;
}

} // namespace

GpuResults runGpu(const std::vector<strategy::StrategyId>& ids, const RunRequest& request,
                  const GpuOptions& options, const Progress& progress) {
    if (ids.empty()) {
        return {};
    }
    for (auto id : ids) {
        if (!strategy::isGpu(id)) {
            return cannotRun(ids,
                             {Error::Code::InvalidArgument, std::string(strategy::toString(id)) +
                                                                " runs on the CPU, not the GPU"});
        }
    }
    if (auto checked = checkRequest(request); !checked) {
        return cannotRun(ids, checked.error());
    }
    auto session = cuda::GpuSession::open(request.deviceIndex, options);
    if (!session) {
        return cannotRun(ids, session.error());
    }
    bool faultPending = options.testFault != TestFault::None;
    GpuResults out = runOnSession(**session, ids, request, progress, faultPending);
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
            if (!onPoint(point, cannotRun(ids, session.error()))) {
                break;
            }
        }
        return false;
    }
    bool faultPending = options.testFault != TestFault::None;
    for (std::size_t point = 0; point < requests.size(); ++point) {
        if (auto checked = checkRequest(requests[point]); !checked) {
            if (!onPoint(point, cannotRun(ids, checked.error()))) {
                return false;
            }
            continue;
        }
        const Progress progress = progressFor ? progressFor(point) : Progress{};
        GpuResults out = runOnSession(**session, ids, requests[point], progress, faultPending);
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
