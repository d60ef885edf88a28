#pragma once

#include "slicescope/trace/trace.h"

#include <QString>
#include <QVector>
#include <optional>

namespace slicescope::models {

// The distinct kernels of a run (a recorded program's kernels): one entry per kernel name and
// launch configuration, in order of first launch, so the occupancy view can show each of them.
struct KernelGroup {
    QString name;
    Dim3 grid;
    Dim3 block;
    std::uint16_t registersPerThread = 0;
    std::uint32_t staticSharedBytes = 0;
    std::uint32_t dynamicSharedBytes = 0;
    int launches = 0;
    int firstActivity = -1;            // index into the run's activities
    std::optional<double> theoretical; // as the trace gives it (the recorder computed it)
    std::optional<double> achieved;    // mean over the launches that were measured
    // Mean share of a warp's lanes active per executed instruction, over the launches measured
    // (record --counters); unknown without counters (docs/trace-format.md, active_lane_share).
    std::optional<double> activeLaneShare;
    // Imported kernels: the profiling tool's own estimate of achieved occupancy, 0..1 (the PyTorch
    // profiler's "est. achieved occupancy %"): worked out from the launch, never measured.
    std::optional<double> estimated;
    std::int64_t totalNs = 0;

    // "fill<double>: grid 40×1×1, block 256×1×1, 3 launches"
    QString label() const;
};

QVector<KernelGroup> kernelGroups(const trace::Run& run);
// At most `count` groups: those with the most kernel time, still in order of first launch (a
// program whose launch configurations vary with its input can have thousands).
QVector<KernelGroup> longestKernelGroups(const QVector<KernelGroup>& groups, int count);
// The group holding activity `index`, or -1.
int groupOfActivity(const QVector<KernelGroup>& groups, const trace::Run& run, int index);

} // namespace slicescope::models
