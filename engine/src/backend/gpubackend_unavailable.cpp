// The GPU backend of a build without CUDA: it says so, every time it is asked.
#include "slicescope/backend/gpubackend.h"

namespace slicescope::backend {

bool gpuBackendBuilt() { return false; }

DetectedDevices detectDevices() {
    return {{}, "this build of SliceScope has no CUDA backend (the CUDA toolkit was not found)"};
}

std::vector<Result<trace::Run>> runGpu(const std::vector<strategy::StrategyId>& ids,
                                       const RunRequest&, const Progress&) {
    std::vector<Result<trace::Run>> results;
    for (auto id : ids) {
        results.push_back(fail(Error::Code::Unsupported,
                               std::string(strategy::toString(id)) +
                                   " needs a GPU, but this build of SliceScope has no CUDA backend"));
    }
    return results;
}

} // namespace slicescope::backend
