#pragma once

// Recording an unmodified CUDA program (docs/recording.md): run it with SliceScope's CUPTI
// injection library (CUDA_INJECTION64_PATH) and turn what the library spooled into a `recorded`
// run: every CUDA API call, copy, memset and kernel, with names, launch geometry, registers, shared
// memory and theoretical occupancy per kernel; with counters, achieved occupancy from a second,
// counting run of the program. docs/recording.md describes what is kept when the program ends
// abnormally.

#include "slicescope/core/result.h"
#include "slicescope/trace/trace.h"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace slicescope::record {

struct RecordRequest {
    std::vector<std::string> command;       // the program and its arguments
    std::filesystem::path workingDirectory; // empty: the recorder's
    // NAME=VALUE entries added to (or replacing those of) the recorder's environment.
    std::vector<std::string> environment;
    // Achieved occupancy: run the program a second time, with its output discarded, under the
    // Range Profiler (kernel replay), and join the two runs' kernels by launch order.
    bool counters = false;
    std::filesystem::path injectionLibrary; // empty: findInjectionLibrary()
    // Where the spools go; empty: a temporary directory, removed once the trace is built.
    std::filesystem::path spoolDirectory;
    std::uint32_t flushPeriodMs =
        100; // how often CUPTI hands records over: the most lost on SIGKILL
};

struct RecordProgress {
    std::string_view stage; // "trace" (the program runs), "counters" (its counting run), "convert"
    double elapsedS = 0;
    std::uint64_t processes = 0; // processes that initialised CUDA so far
    std::uint64_t apiCalls = 0;
    std::uint64_t kernels = 0;
    std::uint64_t copies = 0;
    std::uint64_t memsets = 0;
    std::uint64_t droppedRecords = 0;
};

struct RecordCallbacks {
    std::function<void(const RecordProgress&)> progress; // a few times a second
    // When it becomes true the program's process group (the program and every process it
    // started) is sent SIGTERM (SIGKILL 5 s later); what it recorded until then is kept, and the
    // run says it was cancelled.
    const std::atomic<bool>* cancel = nullptr;
};

struct Recording {
    bool started = true; // false: the program could not be started (startError says why)
    std::string startError;
    int exitStatus = 0; // as a shell's $?: the exit code, or 128 + the signal that killed it
    std::optional<int> signal;
    bool cancelled = false;
    trace::Run run; // valid when started
};

// Records the program. Errors are the recorder's own (no injection library, no spool directory);
// a program that cannot be started is a Recording with started == false and the exit status a
// shell would give (127 not found, 126 not executable). The program leads a process group of its
// own (given the terminal's foreground when the recorder has it, so a terminal's Ctrl-C reaches
// the program); should the recorder die, even by SIGKILL, a watchdog process ends that group
// (SIGTERM, SIGKILL 5 s later).
Result<Recording> recordProgram(const RecordRequest& request,
                                const RecordCallbacks& callbacks = {});

// libslicescope-inject.so: $SLICESCOPE_INJECTION_LIBRARY, else beside the running program or in
// ../lib from it (the build tree's bin/ and lib/, an installed bin/ and lib/).
Result<std::filesystem::path> findInjectionLibrary();

// Builds a recorded run from spool directories already written (a trace pass and, when not
// empty, a counting pass), as recordProgram does once the program has ended.
struct SpoolSource {
    std::filesystem::path traceDirectory;
    std::filesystem::path countersDirectory; // empty: no counting pass
    std::string command;
    std::optional<int> exitStatus;
    std::int64_t wallNs = 0;
};
Result<trace::Run> runFromSpools(const SpoolSource& source);

// The command line as a shell would read it back: arguments quoted where needed
// (remote::shellQuote).
std::string shellQuote(const std::vector<std::string>& command);

// "SIGSEGV" for 11, "signal 77" for a number without a name.
std::string signalName(int signal);

} // namespace slicescope::record
