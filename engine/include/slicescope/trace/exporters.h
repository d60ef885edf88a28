#pragma once

#include "slicescope/core/result.h"
#include "slicescope/trace/trace.h"

#include <filesystem>
#include <ostream>

namespace slicescope::trace {

// CSV with nvprof --print-gpu-trace columns (Start, Duration, Grid X..Z, Block X..Z,
// Registers Per Thread, Static SMem, Dynamic SMem, Size, Throughput, SrcMemType, DstMemType,
// Device, Context, Stream, Name) plus Run and Mode, one row per device activity.
void writeCsv(const Trace& trace, std::ostream& out);
// Chrome Trace Event JSON (Perfetto, chrome://tracing): one process per run, one thread per lane.
void writeChromeTrace(const Trace& trace, std::ostream& out);
// An nvprof-style --print-gpu-trace table of one run, for the terminal.
void printGpuTrace(const Run& run, std::ostream& out);

// File variants, written atomically (temporary file, then rename).
Status exportCsv(const Trace& trace, const std::filesystem::path& path);
Status exportChromeTrace(const Trace& trace, const std::filesystem::path& path);

} // namespace slicescope::trace
