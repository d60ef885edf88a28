#pragma once

// `sweep --launcher slurm`, the half that talks to Slurm: writes the batch script, submits one
// job array with sbatch, follows its tasks with squeue (printing how many are done), and on an
// interrupt cancels the array with scancel. The sweep command cuts the points and merges the
// parts (sweepcommand.cpp); the commands themselves come from slicescope/launch/slurmjob.h.

#include "slicescope/core/result.h"
#include "slicescope/launch/slurmjob.h"

#include <atomic>
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace slicescope::cli {

struct SlurmTaskOutcome {
    bool succeeded = false; // COMPLETED (or gone from the queue) with exit status 0
    std::string how;        // "FAILED, exit status 1", "TIMEOUT, no exit status", ...
};

struct SlurmArrayRun {
    std::string jobId;
    std::vector<SlurmTaskOutcome> tasks; // by array index
    bool cancelled = false;              // interrupted: scancel ran
};

// Makes spec.workDir (removing the parts, logs and statuses an earlier sweep left there), writes
// the batch script in which task i runs this program with taskArguments[i], submits the array
// and waits for every task to end. When `interrupted` becomes true, the array is cancelled and
// this returns once its tasks have left the queue (or after a grace period).
Result<SlurmArrayRun> runSlurmArray(const launch::SlurmCommands& slurm,
                                    const launch::SlurmArraySpec& spec,
                                    const std::vector<std::vector<std::string>>& taskArguments,
                                    const std::atomic<bool>& interrupted);

// The last `lines` lines of a file (a task's stderr), "" when it cannot be read.
std::string fileTail(const std::filesystem::path& path, std::size_t lines);

} // namespace slicescope::cli
