#pragma once

#include "slicescope/backend/runrequest.h"
#include "slicescope/core/result.h"
#include "slicescope/device/devicespec.h"
#include "slicescope/strategy/strategy.h"
#include "slicescope/trace/trace.h"

#include <string_view>

namespace slicescope::backend {

// What the model needs to model a measured GPU run again: its strategy, the request it ran with
// (problem, block option, memory mode, repeat count, pipeline) and the device preset whose name is
// the run's device's. compareWithModel and projectRun both start from it.
struct MeasuredSetting {
    strategy::StrategyId strategy{};
    RunRequest request;
    const device::DeviceSpec* preset = nullptr; // one of device::presets()
};

// Fails for runs that are not measured on a GPU or lack a problem or launch (InvalidArgument),
// and for a device no preset is named after (Unsupported, saying that the model needs the preset's
// figures, which a trace does not carry).
Result<MeasuredSetting> measuredSetting(const trace::Run& measured);

// The preset named `name` ("NVIDIA H200" → h200), or nullptr.
const device::DeviceSpec* presetNamed(std::string_view name);

} // namespace slicescope::backend
