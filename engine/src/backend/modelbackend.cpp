// PLACEHOLDER: replaced by the model work (issue 2). Not done.
#include "slicescope/backend/modelbackend.h"

namespace slicescope::backend {
Result<trace::Run> modelRun(strategy::StrategyId, const RunRequest&, const device::DeviceSpec&) {
    return fail(Error::Code::Internal, "not implemented yet");
}
} // namespace slicescope::backend
