#pragma once

#include "slicescope/core/progressline.h"
#include "slicescope/core/result.h"
#include "slicescope/trace/trace.h"

#include <ostream>
#include <string_view>

namespace slicescope::cli {

// Exit statuses: 0 success, 1 a failure while working, 2 a usage error.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;
// A run that Ctrl+C (or the GUI's Cancel) ended, as a shell reports a SIGINT death.
inline constexpr int kExitInterrupted = 130;

// Prints "slicescope-cli: error: <message>" on stderr and returns the exit status the error
// deserves: usage errors (bad values) 2, everything else 1.
int reportError(const Error& error);
int reportUsageError(std::string_view message);
void printWarning(std::string_view message);

// One line a run, for the terminal: mode, wall time, copies, kernels, verification.
void printRunSummary(const trace::Run& run);
// For a recorded numba program, how numba chose each kernel's grid (explain/numbalaunch.h), one
// indented paragraph each.
void printLaunchChoices(std::ostream& out, const trace::Run& run);

// A machine-readable progress line on stdout, for the GUI (slicescope/core/progressline.h).
void printProgress(bool enabled, std::string_view strategy, std::size_t index, std::size_t count,
                   std::string_view stage, double fraction);
// The same line for one point of a sweep: it also carries the point (core::SweepProgressPoint).
void printSweepProgress(bool enabled, const core::SweepProgressPoint& point,
                        std::string_view strategy, std::size_t index, std::size_t count,
                        std::string_view stage, double fraction);

} // namespace slicescope::cli
