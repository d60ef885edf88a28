#pragma once

// The JSON form of a DeviceSpec, shared by the presets file and trace files (engine-internal).
#include "slicescope/device/devicespec.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace slicescope::device {

nlohmann::json deviceToJson(const DeviceSpec& device, bool withSources);
// Fields that are absent keep their defaults; "name" is required; a field of the wrong type is
// an Error::Code::Parse error naming it.
Result<DeviceSpec> deviceFromJson(const nlohmann::json& object);
// The keys of the figures deviceFromJson reads ("sm_count", "clock_mhz", ...), in file order; "id",
// "name" and "compute_capability" are not among them.
const std::vector<std::string>& deviceFigureKeys();

} // namespace slicescope::device
