// The GPU backend of a build without CUDA: it says so, every time it is asked.
#include "slicescope/backend/gpubackend.h"

namespace slicescope::backend {

bool gpuBackendBuilt() {
    return false;
}

DetectedDevices detectDevices() {
    return {{}, "this build of SliceScope has no CUDA backend (the CUDA toolkit was not found)"};
}

GpuResults runGpu(const std::vector<strategy::StrategyId>& ids, const RunRequest&,
                  const GpuOptions&, const Progress&) {
    GpuResults results;
    for (auto id : ids) {
        results.runs.push_back(
            fail(Error::Code::Unsupported,
                 std::string(strategy::toString(id)) +
                     " needs a GPU, but this build of SliceScope has no CUDA backend"));
    }
    return results;
}

std::vector<Result<trace::Run>> runGpu(const std::vector<strategy::StrategyId>& ids,
                                       const RunRequest& request, const Progress& progress) {
    return runGpu(ids, request, GpuOptions{}, progress).runs;
}

bool runGpuPoints(const std::vector<strategy::StrategyId>& ids,
                  const std::vector<RunRequest>& requests, const GpuOptions& options,
                  const std::function<Progress(std::size_t)>&,
                  const std::function<bool(std::size_t, GpuResults&&)>& onPoint) {
    for (std::size_t i = 0; i < requests.size(); ++i) {
        if (!onPoint(i, runGpu(ids, requests[i], options))) {
            break;
        }
    }
    return false;
}

} // namespace slicescope::backend
