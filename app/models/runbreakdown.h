#pragma once

#include "models/runentry.h"

#include <QString>
#include <QVector>
#include <array>
#include <vector>

namespace slicescope::models {

// Where one repetition of a run spends its time, by the activities of its trace: the figures the
// breakdown chart stacks to answer "why is the GPU slower than the CPU here".
enum class BreakdownPart { HtoD, Kernel, DtoH, OtherDevice, HostLayout, HostCompute };
inline constexpr int kBreakdownPartCount = 6;

QString breakdownPartName(BreakdownPart part);        // "HtoD copies", "kernels", ...
QString breakdownPartDescription(BreakdownPart part); // one sentence for tooltips

struct BreakdownRow {
    QString runId;
    QString device;    // the device's name (the host CPU for CPU runs)
    QString predicted; // "modelled" or "projected": the model's times, hatched; empty if measured
    std::uint32_t repeat = 1;
    std::array<double, kBreakdownPartCount>
        ns{}; // per repetition: sums over the activities / repeat

    double totalNs() const;
    double part(BreakdownPart p) const { return ns[std::size_t(p)]; }
};

// One row per visible run that spent time on any part, in session order. Only trace figures:
// HtoD, DtoH (and DtoD/HtoH, memsets as "other device work") and kernel time from the device
// activities; host layout passes and host compute from the host activities on the main thread
// (trace::RunSummary::hostLayoutNs, hostComputeNs).
QVector<BreakdownRow> breakdownRows(const std::vector<RunEntryPtr>& runs);
// The row of one run (none when it is hidden or spent no time), and how many that is (0 or 1)
// without building it.
QVector<BreakdownRow> breakdownRowsOf(const RunEntry& entry);
qsizetype breakdownRowCount(const RunEntry& entry);
// The rows the breakdown chart shows (chartrows.h): the newest kMaxChartRows and the selected
// run's, built for those runs only; total gets how many breakdownRows gives.
QVector<BreakdownRow> chartBreakdownRows(const std::vector<RunEntryPtr>& runs,
                                         const QString& selectedRun, qsizetype& total);

} // namespace slicescope::models
