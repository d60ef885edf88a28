#pragma once

// Traces people already have, opened as SliceScope traces (docs/import.md): a PyTorch profiler
// (Kineto) JSON trace and an Nsight Compute CSV (`ncu --csv`, its details page or `--page raw`).
// The format is judged from the content, never from the file's name; readTrace and parseTrace
// (tracejson.h) convert such a file as they read it, so every command and the GUI open them.
// Imported runs have mode RunMode::Imported and say where they came from (Run::source).
#include "slicescope/core/result.h"
#include "slicescope/trace/trace.h"
#include "slicescope/trace/tracejson.h"

#include <string>
#include <string_view>

namespace slicescope::trace {

enum class TraceFormat { SliceScope, Kineto, NcuCsv };
// "slicescope-trace", "kineto", "ncu-csv": the names Run::source.format holds.
std::string_view toString(TraceFormat format);
// In words for people: "SliceScope trace", "PyTorch profiler (Kineto) trace", "Nsight Compute
// CSV"; the format's own name for any other text.
std::string describeFormat(std::string_view format);

// Which format text is in, from its first bytes: a JSON object whose top-level keys hold
// "traceEvents" before any "format" is a Kineto trace; text with an `ncu --csv` header line
// ("ID","Process ID",...) that is not a JSON object is an Nsight Compute CSV; anything else is
// taken for a SliceScope trace (whose reader then says what is wrong with it).
TraceFormat detectFormat(std::string_view text);

// Converts text of an imported format (not TraceFormat::SliceScope) into a trace. Errors are
// Error::Code::Parse with the byte (Kineto) or line (CSV) where the text is malformed;
// Error::Code::Cancelled when options.cancel is set.
Result<Trace> importTrace(std::string_view text, TraceFormat format, const ReadOptions& options);

} // namespace slicescope::trace
