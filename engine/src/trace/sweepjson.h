#pragma once

// The JSON form of a trace's sweep fields (engine-internal): a run's "sweep", the device's
// "ceilings" and the top-level "sweeps" (docs/trace-format.md). Small objects, so they go
// through nlohmann::json like the device object does.
#include "slicescope/core/result.h"
#include "slicescope/trace/trace.h"

#include <nlohmann/json.hpp>

namespace slicescope::trace {

nlohmann::json sweepPointToJson(const SweepPoint& point);
Result<SweepPoint> sweepPointFromJson(const nlohmann::json& object);

nlohmann::json ceilingsToJson(const Ceilings& ceilings);
Result<Ceilings> ceilingsFromJson(const nlohmann::json& object);

nlohmann::json sweepsToJson(const std::vector<Sweep>& sweeps);
Result<std::vector<Sweep>> sweepsFromJson(const nlohmann::json& array);

} // namespace slicescope::trace
