#pragma once

namespace CLI {
class App;
}

namespace slicescope::cli {

// Each adds one subcommand to the app. When the subcommand runs, it stores its exit status in
// exitStatus.
void addDevicesCommand(CLI::App& app, int& exitStatus);
void addRunCommands(CLI::App& app, int& exitStatus); // "run" and "model"
void addOccupancyCommand(CLI::App& app, int& exitStatus);
void addExportCommand(CLI::App& app, int& exitStatus);
// "import": a PyTorch profiler trace or an Nsight Compute CSV to a SliceScope trace
void addImportCommand(CLI::App& app, int& exitStatus);
// "project": measured GPU runs moved onto another GPU by the model's ratios
void addProjectCommand(CLI::App& app, int& exitStatus);
void addRecordCommand(CLI::App& app,
                      int& exitStatus); // "record": an outside program, through CUPTI injection

void addSweepCommands(CLI::App& app, int& exitStatus); // "sweep" and "roofline"
} // namespace slicescope::cli
