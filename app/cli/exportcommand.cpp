// `export`: a trace to CSV (nvprof --print-gpu-trace columns) or Chrome Trace Event JSON.
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

#include "clioutput.h"
#include "commands.h"
#include "slicescope/trace/exporters.h"
#include "slicescope/trace/tracejson.h"

namespace slicescope::cli {

namespace {

struct ExportOptions {
    std::string input;
    std::string csv;
    std::string chrome;
};

int exportTrace(const ExportOptions& o) {
    if (o.csv.empty() && o.chrome.empty()) {
        return reportUsageError("export needs --csv FILE or --chrome FILE (or both)");
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
