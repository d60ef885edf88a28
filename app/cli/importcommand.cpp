// `import`: a file of another tool (a PyTorch profiler trace, an Nsight Compute CSV) converted to
// a SliceScope trace (docs/import.md). The format is told from the content; every command that
// reads a trace opens such a file directly as well, so this is for keeping the conversion.
#include "clioutput.h"
#include "commands.h"
#include "slicescope/device/devicespec.h"
#include "slicescope/trace/atomicfile.h"
#include "slicescope/trace/traceimport.h"
#include "slicescope/trace/tracejson.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>

namespace slicescope::cli {

namespace {

struct ImportOptions {
    std::string input;
    std::string output;
    std::string preset;
};

int importTrace(const ImportOptions& o) {
    if (o.input.empty() || o.output.empty()) {
        return reportUsageError("import needs a file to convert and -o TRACE.json");
    }
    if (trace::sameFile(o.input, o.output)) {
        return reportUsageError("-o " + o.output +
                                " is the file to import: writing it would "
                                "replace it; choose another name");
    }
    trace::ReadOptions options;
    if (!o.preset.empty()) {
        auto preset = device::findPreset(o.preset);
        if (!preset) {
            return reportError(preset.error());
        }
        options.importDevice = *preset;
    }
    auto trace = trace::readTrace(o.input, options);
    if (!trace) {
        return reportError(trace.error());
    }
    for (const auto& run : trace->runs) {
        const std::string from =
            run.source ? trace::describeFormat(run.source->format) + ", " + run.source->file
                       : std::string("SliceScope trace, written as it is");
        std::cout << run.id << " (" << from << ")\n";
        printRunSummary(run);
        for (const auto& note : run.notes) {
            std::cout << "  note: " << note << '\n';
        }
    }
    if (trace->runs.empty()) {
        printWarning(o.input + " holds no kernels to import: the trace has no runs");
    }
    if (auto written = trace::writeTrace(*trace, o.output); !written) {
        return reportError(written.error());
    }
    std::cout << "wrote " << o.output << '\n';
    return kExitOk;
}

} // namespace

void addImportCommand(CLI::App& app, int& exitStatus) {
    auto o = std::make_shared<ImportOptions>();
    auto* cmd = app.add_subcommand(
        "import", "Convert a PyTorch profiler (Kineto) trace or an Nsight Compute CSV (ncu --csv, "
                  "details or raw page) to a SliceScope trace; the format is told from the "
                  "content. Other commands and the GUI open such files directly too");
    cmd->add_option("FILE", o->input, "The file to convert")->required();
    cmd->add_option("-o,--output", o->output, "The SliceScope trace to write (JSON)")->required();
    cmd->add_option("--device", o->preset,
                    "Device preset (see 'devices') for a file that describes no device: a "
                    "profiler trace without deviceProperties, ncu's details page");
    cmd->callback([o, &exitStatus] { exitStatus = importTrace(*o); });
}

} // namespace slicescope::cli
