// `project`: the measured GPU runs of a trace moved onto another GPU by the model's ratios
// (docs/model.md, "Projecting a measured run"); the measured CPU runs come along unchanged.
#include "clioutput.h"
#include "commands.h"
#include "slicescope/backend/projection.h"
#include "slicescope/device/devicespec.h"
#include "slicescope/trace/atomicfile.h"
#include "slicescope/trace/tracejson.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

namespace slicescope::cli {

namespace {

struct ProjectOptions {
    std::string input;
    std::string output;
    std::string preset;
};

std::string factorText(double factor) {
    char text[32];
    std::snprintf(text, sizeof text, "x%.3g", factor);
    return text;
}

int projectTrace(const ProjectOptions& o) {
    if (trace::sameFile(o.input, o.output)) {
        return reportUsageError("-o " + o.output +
                                " is the trace to project: writing it would replace the "
                                "measurement; choose another name");
    }
    auto target = device::findPreset(o.preset);
    if (!target) {
        return reportError(target.error());
    }
    auto measured = trace::readTrace(o.input);
    if (!measured) {
        return reportError(measured.error());
    }
    auto projected = backend::projectTrace(*measured, *target);
    if (!projected) {
        return reportError(projected.error());
    }
    std::size_t k = 0;
    for (const auto& run : projected->trace.runs) {
        printRunSummary(run);
        if (!run.projection) {
            std::cout << "  (measured on the CPU: copied as it was)\n";
            continue;
        }
        const auto& f = projected->factors[k++];
        std::cout << "  projected from " << run.projection->sourceRun << " measured on the "
                  << run.projection->sourceDevice << ": kernels " << factorText(f.kernel)
                  << ", HtoD " << factorText(f.htod) << ", DtoH " << factorText(f.dtoh)
                  << ", memsets " << factorText(f.deviceMemory) << "; host work as measured\n";
    }
    for (const auto& left : projected->leftOut) {
        printWarning("left out " + left + ": only runs measured on a GPU are projected");
    }
    if (auto written = trace::writeTrace(projected->trace, o.output); !written) {
        return reportError(written.error());
    }
    std::cout << "wrote " << o.output << " (projected onto the " << target->name
              << ": predictions, not measurements)\n";
    return kExitOk;
}

} // namespace

void addProjectCommand(CLI::App& app, int& exitStatus) {
    auto o = std::make_shared<ProjectOptions>();
    auto* cmd = app.add_subcommand(
        "project",
        "Move the measured GPU runs of a trace onto another GPU: kernels by the model's ratio "
        "of the two devices for the same launch, copies by the model's copy times over the two "
        "host links, host work as measured. The runs are marked projected; measured CPU runs "
        "are copied unchanged");
    cmd->add_option("TRACE", o->input,
                    "A trace with runs measured on a GPU a preset is named after")
        ->required();
    cmd->add_option("--device", o->preset, "The device preset to project onto (see 'devices')")
        ->required();
    cmd->add_option("-o,--output", o->output, "The trace to write (JSON)")->required();
    cmd->callback([o, &exitStatus] { exitStatus = projectTrace(*o); });
}

} // namespace slicescope::cli
