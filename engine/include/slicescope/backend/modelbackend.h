#pragma once

#include "slicescope/backend/runrequest.h"
#include "slicescope/device/devicespec.h"
#include "slicescope/trace/trace.h"

namespace slicescope::backend {

// Predicts a GPU strategy's HtoD, kernel and DtoH activities on a device preset
// (docs/model.md gives the formulas). The run says mode "modelled" and carries no verification.
Result<trace::Run> modelRun(strategy::StrategyId id, const RunRequest& request,
                            const device::DeviceSpec& device);

} // namespace slicescope::backend
