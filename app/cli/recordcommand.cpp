// `record`: runs an unmodified CUDA program under SliceScope's CUPTI injection library and writes
// a `recorded` run. The program's standard streams pass through untouched; SliceScope's own
// lines (summary, progress) go to stderr. The exit status is the program's, as a shell gives it
// (128 + N when signal N killed it), or 127/126 when it could not be started.
#include "clioutput.h"
#include "commands.h"
#include "remotecli.h"
#include "slicescope/core/progressline.h"
#include "slicescope/record/recorder.h"
#include "slicescope/trace/atomicfile.h"
#include "slicescope/trace/tracejson.h"

#include <CLI/CLI.hpp>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <signal.h>

namespace slicescope::cli {

namespace {

struct RecordOptions {
    std::vector<std::string> command;
    std::string output;
    bool counters = false;
    std::string workingDirectory;
    std::vector<std::string> environment;
    bool progress = false;
    bool quiet = false;
    std::uint32_t flushMs = 100;
    std::string spoolDirectory; // hidden: keep the spools here
    std::string fromSpool;      // hidden: convert spools already written
    RemoteOptions remote;       // --host: record on another machine
};

std::atomic<bool> cancelRequested{false};

extern "C" void onCancelSignal(int) {
    cancelRequested.store(true);
}

// SIGTERM, SIGINT and SIGHUP (the GUI's Cancel, `kill -INT`, a closed terminal) stop the
// program, with everything it started, and keep its trace. A terminal's Ctrl-C goes to the
// program itself: its process group holds the terminal while it runs.
void installCancelHandlers() {
    struct sigaction action {};
    action.sa_handler = onCancelSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGTERM, &action, nullptr);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGHUP, &action, nullptr);
}

void printRecordProgress(const record::RecordProgress& p) {
    const core::RecordProgressLine line{
        std::string(p.stage), p.elapsedS, p.processes, p.apiCalls, p.kernels, p.copies, p.memsets,
        p.droppedRecords};
    std::cerr << core::formatProgressLine(line) << std::endl;
}

void printSummary(const trace::Run& run, const std::string& output) {
    std::uint64_t kernels = 0, copies = 0, memsets = 0, api = 0, achieved = 0;
    for (const auto& a : run.activities) {
        if (a.kind == trace::ActivityKind::Kernel) {
            ++kernels;
            achieved += std::isnan(a.achievedOccupancy) ? 0 : 1;
        } else if (trace::isCopy(a.kind)) {
            ++copies;
        } else if (a.kind == trace::ActivityKind::Memset) {
            ++memsets;
        } else if (a.kind == trace::ActivityKind::Api) {
            ++api;
        }
    }
    std::cerr << "slicescope-cli: recorded " << kernels << " kernels, " << copies << " copies, "
              << memsets << " memsets and " << api << " API calls on " << run.device.name;
    if (achieved > 0) {
        std::cerr << " (achieved occupancy for " << achieved << " kernels)";
    }
    std::cerr << "; wrote " << output << '\n';
    for (const auto& note : run.notes) {
        std::cerr << "slicescope-cli: note: " << note << '\n';
    }
    printLaunchChoices(std::cerr, run);
}

int writeRun(trace::Run run, const RecordOptions& o) {
    trace::Trace trace;
    trace.generator = "slicescope-cli 0.1.0";
    trace.runs.push_back(std::move(run));
    if (auto written = trace::writeTrace(trace, o.output); !written) {
        return reportError(written.error());
    }
    if (!o.quiet) {
        printSummary(trace.runs.front(), o.output);
    }
    return kExitOk;
}

int convertSpools(const RecordOptions& o) {
    record::SpoolSource source;
    source.traceDirectory = std::filesystem::path(o.fromSpool) / "trace";
    const auto counters = std::filesystem::path(o.fromSpool) / "counters";
    std::error_code ec;
    if (!std::filesystem::is_directory(source.traceDirectory, ec)) {
        return reportError(
            Error{Error::Code::Io, o.fromSpool + " holds no spools (no trace/ directory)"});
    }
    if (std::filesystem::is_directory(counters, ec) && !std::filesystem::is_empty(counters, ec)) {
        source.countersDirectory = counters;
    }
    source.command = record::shellQuote(o.command);
    auto run = record::runFromSpools(source);
    if (!run) {
        return reportError(run.error());
    }
    run->notes.push_back(
        "converted from spools with --from-spool: the program's exit status and wall time "
        "are not known");
    return writeRun(std::move(*run), o);
}

int runRecord(const RecordOptions& o) {
    if (!o.fromSpool.empty()) {
        return convertSpools(o);
    }
    if (o.command.empty()) {
        return reportUsageError("record needs the program to run after '--', e.g. "
                                "slicescope-cli record -o trace.json -- python3 script.py");
    }
    for (const auto& entry : o.environment) {
        if (entry.find('=') == std::string::npos || entry.front() == '=') {
            return reportUsageError("--env takes NAME=VALUE (got '" + entry + "')");
        }
    }
    // Fail before the program runs, not after, when the trace could not be written anyway.
    if (auto target = trace::resolveOutput(o.output); !target) {
        return reportError(target.error());
    }
    record::RecordRequest request;
    request.command = o.command;
    request.workingDirectory = o.workingDirectory;
    request.environment = o.environment;
    request.counters = o.counters;
    request.flushPeriodMs = o.flushMs;
    request.spoolDirectory = o.spoolDirectory;
    record::RecordCallbacks callbacks;
    callbacks.cancel = &cancelRequested;
    if (o.progress) {
        callbacks.progress = printRecordProgress;
    }
    installCancelHandlers();
    auto recording = record::recordProgram(request, callbacks);
    if (!recording) {
        return reportError(recording.error());
    }
    if (!recording->started) {
        std::cerr << "slicescope-cli: error: " << recording->startError << '\n';
        return recording->exitStatus;
    }
    if (const int written = writeRun(std::move(recording->run), o); written != kExitOk) {
        return written;
    }
    if (recording->signal) {
        std::cerr << "slicescope-cli: the program was killed by "
                  << record::signalName(*recording->signal) << " (exit status "
                  << recording->exitStatus << ")\n";
    } else if (!o.quiet && recording->exitStatus != 0) {
        std::cerr << "slicescope-cli: the program exited with status " << recording->exitStatus
                  << '\n';
    }
    return recording->exitStatus;
}

} // namespace

void addRecordCommand(CLI::App& app, int& exitStatus) {
    auto o = std::make_shared<RecordOptions>();
    auto* cmd = app.add_subcommand(
        "record",
        "Record an unmodified CUDA program (numba, C++, ...) through CUPTI injection: every CUDA "
        "API "
        "call, copy, memset and kernel, with occupancy. Usage: record -o TRACE [--counters] -- "
        "PROGRAM ARGS...");
    cmd->add_option("-o,--output", o->output, "Trace file to write (JSON)")->required();
    cmd->add_flag(
        "--counters", o->counters,
        "Also measure achieved occupancy: the program runs a second time (output discarded) under "
        "CUPTI's Range Profiler with kernel replay");
    cmd->add_option("--cwd", o->workingDirectory, "Working directory of the program");
    // One value per --env. A list option would go on taking values up to a `--` and then swallow
    // that `--` itself (CLI11 ends an open list with it), so the program's own options after it
    // (`-- python3 -u -c ...`) were read as record's.
    cmd->add_option("--env", o->environment,
                    "Environment variable NAME=VALUE for the program (repeatable)")
        ->expected(1)
        ->allow_extra_args(false)
        ->take_all();
    cmd->add_option("--flush-ms", o->flushMs,
                    "How often CUPTI hands records over, in ms: the most a SIGKILL can lose")
        ->capture_default_str()
        ->check(CLI::Range(1, 60000));
    cmd->add_flag("--progress", o->progress, "Print machine-readable progress lines on stderr");
    cmd->add_flag("-q,--quiet", o->quiet, "Print no summary");
    cmd->add_option("--spool-dir", o->spoolDirectory, "Keep the raw spools in this directory")
        ->group("");
    cmd->add_option("--from-spool", o->fromSpool,
                    "Convert spools kept with --spool-dir instead of running")
        ->group("");
    cmd->add_option("command", o->command, "The program and its arguments, after '--'");
    addRemoteOptions(cmd, o->remote);
    cmd->callback([o, cmd, &exitStatus] {
        exitStatus = o->remote.host.empty() ? runRecord(*o) : runOnHost(o->remote, *cmd, o->output);
    });
}

} // namespace slicescope::cli
