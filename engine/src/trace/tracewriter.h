#pragma once

// The slicescope-trace writer (engine-internal); tracejson.h's toJson and writeTrace use it.
#include "slicescope/trace/trace.h"

#include <functional>
#include <string>

namespace slicescope::trace {

// Appends trace's JSON text to out. When drain is set it is handed out in ~1 MiB pieces (it must
// consume and clear them), so a million-event trace streams to a file without a second copy.
void writeTraceText(const Trace& trace, std::string& out,
                    const std::function<void(std::string&)>& drain);

} // namespace slicescope::trace
