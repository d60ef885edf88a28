#pragma once

#include "models/cliplan.h"

#include <QString>

namespace slicescope::models {

// What the sweep panel asks for: one parameter over values, the other settings as for a run.
struct SweepConfig {
    RunConfig run;  // shape, dtype, work, block, memory, repeat, strategies, device, counters
    QString param;  // "block", "rows", "columns", "n", "work", "dtype", "memory"
    QString values; // "32,64,128", or a range "32:1024:x2" (anything with a ':')
    bool roofline = false; // store ceilings with the runs (measured once, or datasheet)
};

// One `slicescope-cli sweep` job (one GPU worker for every point), or the error that keeps it
// from starting: the parameter, the values and the strategies are checked here as the CLI checks
// them. GPU strategies are measured on a detected device or modelled on a preset; CPU strategies
// are measured on this host beside either (a preset and a CPU strategy: a mixed sweep), or alone
// with no device at all.
RunPlan planSweep(const SweepConfig& config, const QString& outputDir, int sequence);

// The problem and launch options of a run or sweep job, with --progress (cliplan.cpp).
QStringList problemArguments(const RunConfig& config);
// `--warmup N` of a measured job (cliplan.cpp); modelled jobs have none.
QStringList warmupArguments(const RunConfig& config);

// Whether a job is a sweep: on Cancel (SIGTERM) it finishes the GPU point in progress and writes
// the points finished (exit 130), and the runner keeps that trace.
bool isSweepJob(const CliJob& job);

} // namespace slicescope::models
