#pragma once

// A sweep spread over a Slurm job array, the pure half: how the points are cut into tasks, the
// batch script each task runs, the Slurm commands (sbatch, squeue, scancel) as argument lists,
// and what squeue answers. No process is started here; the CLI runs the commands
// (app/cli/slurmlauncher.cpp) and the rules are in docs/remote.md ("Slurm").

#include "slicescope/core/result.h"

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace slicescope::launch {

// Points [first, end) of a sweep, 0-based: one array task's slice.
struct PointSlice {
    std::size_t first = 0;
    std::size_t end = 0;
    friend bool operator==(const PointSlice&, const PointSlice&) = default;
};

// The points 0..points-1 cut into at most maxTasks contiguous slices (maxTasks 0: one a point),
// in order, their sizes differing by at most one, the larger ones first. No slice is empty.
std::vector<PointSlice> slicePoints(std::size_t points, std::size_t maxTasks);

// The job array as sbatch is asked for it.
struct SlurmArraySpec {
    std::filesystem::path script;  // the batch script (batchScript's text)
    std::filesystem::path workDir; // where the tasks write their parts, logs and statuses
    std::size_t tasks = 1;         // --array=0-(tasks-1)
    std::string jobName = "slicescope-sweep";
    std::string partition; // empty: the cluster's default
    int gpusPerTask = 0;   // 0: none asked for
    std::string timeLimit; // empty: the partition's default
};

// Where task i writes and logs, in the work directory.
std::filesystem::path partPath(const std::filesystem::path& workDir, std::size_t task);
std::filesystem::path taskStdoutPath(const std::filesystem::path& workDir, std::size_t task);
std::filesystem::path taskStderrPath(const std::filesystem::path& workDir, std::size_t task);
// Holds the task's exit status once its program ended (written atomically by the script).
std::filesystem::path taskStatusPath(const std::filesystem::path& workDir, std::size_t task);

// The Slurm commands, as argument lists built in this one place. `prefix` goes in front of each
// (empty: run here; a login node reached through ssh would put its ssh invocation there, and
// then quote every argument for the remote shell).
struct SlurmCommands {
    std::vector<std::string> prefix;
    // sbatch --parsable: its stdout is "JOBID" or "JOBID;CLUSTER" (parseJobId).
    std::vector<std::string> submit(const SlurmArraySpec& spec) const;
    // squeue over every state, one line a task or a group of pending tasks: "TASKS|STATE"
    // (parseQueue).
    std::vector<std::string> queue(const std::string& jobId) const;
    std::vector<std::string> cancel(const std::string& jobId) const;
};

// The job id in sbatch --parsable's answer.
Result<std::string> parseJobId(const std::string& sbatchStdout);

// The batch script: array task i runs `cli` with taskArguments[i] (each argument quoted for the
// shell), then writes its exit status to taskStatusPath(workDir, i) and exits with it.
std::string batchScript(const std::string& cli,
                        const std::vector<std::vector<std::string>>& taskArguments,
                        const std::filesystem::path& workDir);

// Each task's Slurm state (PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT, ...) from
// squeue's answer to SlurmCommands::queue; "" for a task squeue did not name. A pending group
// ("0-3", "2,5-7", "4-9%2") names each of its tasks.
std::vector<std::string> parseQueue(const std::string& squeueStdout, std::size_t tasks);

// Whether a task in this state has ended (COMPLETED, FAILED, CANCELLED, TIMEOUT, ...).
bool isFinalState(const std::string& state);

} // namespace slicescope::launch
