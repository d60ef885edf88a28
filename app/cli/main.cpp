// slicescope-cli: measures, models, projects, records, imports and exports SliceScope traces.
#include "clioutput.h"
#include "commands.h"
#include "slicescope/core/wholelines.h"
#include "slicescope/remote/remotecommand.h"

#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <string_view>
#include <unistd.h>

namespace {

// `slicescope-cli --version --json`: the version handshake of --host (docs/remote.md).
bool versionJsonAsked(int argc, char** argv) {
    bool version = false, json = false;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        version = version || arg == "--version";
        json = json || arg == "--json";
        if (arg.empty() || arg.front() != '-') {
            return false; // a subcommand: its own --json
        }
    }
    return version && json;
}

} // namespace

int main(int argc, char** argv) {
    using namespace slicescope::cli;
    // Every error line in one write: under --host, the remote CLI's stdout lines share its stderr.
    const slicescope::core::WholeLinesOn wholeErrorLines(std::cerr, STDERR_FILENO);
    if (versionJsonAsked(argc, argv)) {
        std::cout << slicescope::remote::toJson(slicescope::remote::thisVersion()) << '\n';
        return kExitOk;
    }
    CLI::App app{"SliceScope: how the way GPU work is sliced decides its speed.\n"
                 "Measures strategies on the CPU and GPU, models GPUs you do not have, projects "
                 "measured runs onto them, imports PyTorch profiler and Nsight Compute files, "
                 "and exports traces.",
                 "slicescope-cli"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "slicescope-cli 0.1.0");
    app.failure_message(CLI::FailureMessage::help);

    int exitStatus = kExitOk;
    addDevicesCommand(app, exitStatus);
    addRunCommands(app, exitStatus);
    addOccupancyCommand(app, exitStatus);
    addExportCommand(app, exitStatus);
    addImportCommand(app, exitStatus);
    addProjectCommand(app, exitStatus);
    addRecordCommand(app, exitStatus);
    addSweepCommands(app, exitStatus);

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        app.exit(e); // prints the message and the help on stderr
        return kExitUsage;
    } catch (const std::exception& e) {
        std::cerr << "slicescope-cli: internal error: " << e.what() << '\n';
        return kExitFailure;
    }
    return exitStatus;
}
