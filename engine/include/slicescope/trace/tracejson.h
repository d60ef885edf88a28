#pragma once

#include "slicescope/core/result.h"
#include "slicescope/trace/trace.h"
#include "slicescope/trace/tracelimits.h"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace slicescope::trace {

// Reading reports progress as a fraction 0..1 and stops with Error::Code::Cancelled when
// the flag becomes true.
struct ReadOptions {
    std::function<void(double fraction)> progress;
    const std::atomic<bool>* cancel = nullptr;
    // readTrace refuses a larger file before reading it. The format's limit; tests lower it.
    std::uint64_t maxFileBytes = kMaxTraceFileBytes;
    // Files of other tools (traceimport.h): the device to use when the file describes none (a
    // Kineto trace without "deviceProperties", an ncu CSV of its details page), and the file's
    // name for Run::source (readTrace gives the path's; parseTrace has none unless given).
    std::optional<device::DeviceSpec> importDevice;
    std::string sourceFile;
    // When set, each run goes here as soon as it is read, in the file's order, instead of into
    // Trace::runs, which then comes back empty: a caller of many runs uses each while the rest is
    // parsed (the GUI's loader builds its entries) and never holds every run twice. Runs handed
    // over before an error or a cancel are not taken back: the caller drops them then.
    std::function<void(Run&& run)> takeRun;
};

// Parses a trace document: a SliceScope trace, or a file of another tool that traceimport.h
// converts (told apart by content). Malformed, truncated or wrong-version input is an
// Error::Code::Parse error whose message says where and what.
Result<Trace> parseTrace(std::string_view json, const ReadOptions& options = {});
Result<Trace> readTrace(const std::filesystem::path& path, const ReadOptions& options = {});

std::string toJson(const Trace& trace);
// Writes to a temporary file beside path, then renames it over path: a half-written file
// never replaces a good one. A trace the reader would reject (a negative timestamp, an end
// before its start, an invalid problem or device figure) is refused with InvalidArgument; one
// whose text would pass maxFileBytes, which the reader refuses (ReadOptions::maxFileBytes, the
// same bound), with OutOfRange: path is left as it was. Tests lower the bound.
Status writeTrace(const Trace& trace, const std::filesystem::path& path,
                  std::uint64_t maxFileBytes = kMaxTraceFileBytes);

// The runs of a trace lent one at a time, for a writer that holds them elsewhere: the GUI's
// session writes its shared runs under the names it gave them without copying each into a Trace
// (at 100,000 runs the copies were most of an autosave's time, and fresh memory). run(index)
// returns the run at index (0 .. count-1), and may return the same object each time, refilled;
// it is called more than once per index.
struct RunsToWrite {
    std::string generator;
    std::size_t count = 0;
    std::function<const Run&(std::size_t index)> run;
};
// writeTrace for such runs, with the same checks, limit and atomic replacement.
Status writeTrace(const RunsToWrite& runs, const std::filesystem::path& path,
                  std::uint64_t maxFileBytes = kMaxTraceFileBytes);

} // namespace slicescope::trace
