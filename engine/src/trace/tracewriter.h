#pragma once

// The slicescope-trace writer (engine-internal); tracejson.h's toJson and writeTrace use it.
#include "slicescope/core/result.h"
#include "slicescope/trace/trace.h"
#include "slicescope/trace/tracejson.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

namespace slicescope::trace {

// Appends trace's JSON text to out. When drain is set it is handed out in ~1 MiB pieces (it must
// consume and clear them), so a million-event trace streams to a file without a second copy;
// when it returns false the writing stops there (the text is then incomplete).
void writeTraceText(const Trace& trace, std::string& out,
                    const std::function<bool(std::string&)>& drain);
void writeTraceText(const RunsToWrite& runs, std::string& out,
                    const std::function<bool(std::string&)>& drain);

// Whether the reader would take trace's text back: the in-memory model allows what the format
// rejects (a negative timestamp, an end before its start, an invalid problem, a figure beyond
// tracelimits.h). writeTrace refuses such a trace instead of replacing a good file with one that
// can never be opened. InvalidArgument naming the run and the field.
Status checkReadsBack(const Trace& trace);
Status checkReadsBack(const RunsToWrite& runs);

// writeTrace with the file size limit as a parameter (tests use a small one): a text longer than
// maxBytes, which the reader would refuse, is not written: the write stops, the temporary file
// is removed and path is left as it was (a FIFO or device written through gets a cut stream),
// and the error (OutOfRange) says so.
Status writeTraceLimited(const Trace& trace, const std::filesystem::path& path,
                         std::uint64_t maxBytes);
Status writeTraceLimited(const RunsToWrite& runs, const std::filesystem::path& path,
                         std::uint64_t maxBytes);

} // namespace slicescope::trace
