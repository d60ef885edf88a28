#pragma once

// The slicescope-trace reader (engine-internal); tracejson.h's parseTrace is its public face.
#include "slicescope/trace/tracejson.h"

#include <string_view>

namespace slicescope::trace {

// Parses a whole trace document; errors as documented for parseTrace.
Result<Trace> readTraceText(std::string_view text, const ReadOptions& options);

} // namespace slicescope::trace
