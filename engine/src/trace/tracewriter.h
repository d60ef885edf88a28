#pragma once

// The slicescope-trace writer (engine-internal); tracejson.h's toJson and writeTrace use it.
#include "slicescope/core/result.h"
#include "slicescope/trace/trace.h"

#include <functional>
#include <string>

namespace slicescope::trace {

// Appends trace's JSON text to out. When drain is set it is handed out in ~1 MiB pieces (it must
// consume and clear them), so a million-event trace streams to a file without a second copy.
void writeTraceText(const Trace& trace, std::string& out,
                    const std::function<void(std::string&)>& drain);

// Whether the reader would take trace's text back: the in-memory model allows what the format
// rejects (a negative timestamp, an end before its start, an invalid problem, a device figure
// that is not a finite number >= 0). writeTrace refuses such a trace instead of replacing a good
// file with one that can never be opened. InvalidArgument naming the run and the field.
Status checkReadsBack(const Trace& trace);

} // namespace slicescope::trace
