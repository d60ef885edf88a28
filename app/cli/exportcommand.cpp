// `export`: a trace to CSV (nvprof --print-gpu-trace columns) or Chrome Trace Event JSON.
#include "clioutput.h"
#include "commands.h"
#include "slicescope/trace/atomicfile.h"
#include "slicescope/trace/exporters.h"
#include "slicescope/trace/tracejson.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace slicescope::cli {

namespace {

struct ExportOptions {
    std::string input;
    std::string csv;
    std::string chrome;
};

int exportTrace(const ExportOptions& o) {
    if (o.input.empty()) {
        return reportUsageError("export needs a trace file: TRACE is an empty name");
    }
    if (o.csv.empty() && o.chrome.empty()) {
        return reportUsageError("export needs --csv FILE or --chrome FILE (or both)");
    }
    // Checked before anything is read or written. An output that would replace the input trace,
    // or the other output, is refused (compared as files: links, hard links and other
    // spellings of the same name count); a FIFO or a device is written through, so naming it
    // twice loses nothing.
    const std::vector<std::pair<std::string, std::string>> outputs = {{"--csv", o.csv},
                                                                      {"--chrome", o.chrome}};
    std::vector<std::string> replaced;
    for (const auto& [option, path] : outputs) {
        if (path.empty()) {
            continue;
        }
        auto target = trace::resolveOutput(path);
        if (!target) {
            return reportError(target.error());
        }
        if (target->kind == trace::OutputKind::WriteThrough) {
            continue;
        }
        if (trace::sameFile(o.input, path)) {
            return reportUsageError(option + " " + path + " is the input trace " + o.input +
                                    ": writing it would replace the trace; choose another file");
        }
        for (const auto& other : replaced) {
            if (trace::sameFile(other, path)) {
                return reportUsageError("--csv and --chrome name the same file (" + other + ", " +
                                        path + "): the second would replace the first");
            }
        }
        replaced.push_back(path);
    }
    auto trace = trace::readTrace(o.input);
    if (!trace) {
        return reportError(trace.error());
    }
    if (!o.csv.empty()) {
        if (auto done = trace::exportCsv(*trace, o.csv); !done) {
            return reportError(done.error());
        }
        std::cout << "wrote " << o.csv << '\n';
    }
    if (!o.chrome.empty()) {
        if (auto done = trace::exportChromeTrace(*trace, o.chrome); !done) {
            return reportError(done.error());
        }
        std::cout << "wrote " << o.chrome << '\n';
    }
    return kExitOk;
}

} // namespace

void addExportCommand(CLI::App& app, int& exitStatus) {
    auto o = std::make_shared<ExportOptions>();
    auto* cmd = app.add_subcommand(
        "export", "Export a trace as CSV (nvprof --print-gpu-trace columns) or Chrome Trace JSON");
    cmd->add_option("TRACE", o->input, "Trace file (JSON)")->required();
    cmd->add_option("--csv", o->csv, "Write CSV to this file");
    cmd->add_option("--chrome", o->chrome,
                    "Write Chrome Trace Event JSON to this file (Perfetto, chrome://tracing)");
    cmd->callback([o, &exitStatus] { exitStatus = exportTrace(*o); });
}

} // namespace slicescope::cli
