#pragma once

// Small JSON texts (a device, a presets document, a sweep point) read with nlohmann::json,
// engine-internal: one place that turns its exceptions into errors.
#include "slicescope/core/result.h"

#include <nlohmann/json.hpp>
#include <string_view>

namespace slicescope {

// nlohmann::json::parse that never throws. A number beyond a double ("sm_count": 1e400), which
// nlohmann::json refuses like a syntax error, is an OutOfRange error naming the field it is the
// value of: "\"sm_count\" is 1e400, out of range: beyond the largest number a double holds
// (about 1.8e308)". Any other failure is a Parse error whose message is nlohmann::json's.
Result<nlohmann::json> parseJsonText(std::string_view text);

} // namespace slicescope
