#include "models/runbreakdown.h"

#include "models/chartrows.h"
#include "models/runnaming.h"

#include <algorithm>
#include <numeric>

namespace slicescope::models {

QString breakdownPartName(BreakdownPart part) {
    switch (part) {
    case BreakdownPart::HtoD:
        return QStringLiteral("HtoD copies");
    case BreakdownPart::Kernel:
        return QStringLiteral("kernels");
    case BreakdownPart::DtoH:
        return QStringLiteral("DtoH copies");
    case BreakdownPart::OtherDevice:
        return QStringLiteral("other device work");
    case BreakdownPart::HostLayout:
        return QStringLiteral("host layout passes");
    case BreakdownPart::HostCompute:
        return QStringLiteral("host compute");
    }
    return {};
}

QString breakdownPartDescription(BreakdownPart part) {
    switch (part) {
    case BreakdownPart::HtoD:
        return QStringLiteral("Copies from host to device memory.");
    case BreakdownPart::Kernel:
        return QStringLiteral("Kernels running on the GPU.");
    case BreakdownPart::DtoH:
        return QStringLiteral("Copies from device to host memory.");
    case BreakdownPart::OtherDevice:
        return QStringLiteral("Device-to-device and host-to-host copies and memsets.");
    case BreakdownPart::HostLayout:
        return QStringLiteral(
            "Host passes the strategy needs besides the computation: transposes to "
            "another layout and materialised (expanded) inputs.");
    case BreakdownPart::HostCompute:
        return QStringLiteral("The computation on the host's cores.");
    }
    return {};
}

double BreakdownRow::totalNs() const {
    return std::accumulate(ns.begin(), ns.end(), 0.0);
}

namespace {

// Per repetition, from the run's summary.
std::array<double, kBreakdownPartCount> partsNs(const trace::RunSummary& s, double reps) {
    std::array<double, kBreakdownPartCount> ns{};
    ns[std::size_t(BreakdownPart::HtoD)] = double(s.htodNs) / reps;
    ns[std::size_t(BreakdownPart::Kernel)] = double(s.kernelNs) / reps;
    ns[std::size_t(BreakdownPart::DtoH)] = double(s.dtohNs) / reps;
    ns[std::size_t(BreakdownPart::OtherDevice)] = double(s.otherCopyNs + s.memsetNs) / reps;
    ns[std::size_t(BreakdownPart::HostLayout)] = double(s.hostLayoutNs) / reps;
    ns[std::size_t(BreakdownPart::HostCompute)] = double(s.hostComputeNs) / reps;
    return ns;
}

std::uint32_t repeatOf(const trace::RunSummary& s) {
    return std::max<std::uint32_t>(1, s.repeat);
}

} // namespace

qsizetype breakdownRowCount(const RunEntry& entry) {
    if (!entry.visible) {
        return 0;
    }
    const auto ns = partsNs(entry.summary, double(repeatOf(entry.summary)));
    return std::accumulate(ns.begin(), ns.end(), 0.0) > 0 ? 1 : 0;
}

QVector<BreakdownRow> breakdownRowsOf(const RunEntry& entry) {
    if (breakdownRowCount(entry) == 0) {
        return {};
    }
    BreakdownRow row;
    row.runId = entry.id;
    row.device = shortDeviceName(entry.run->device);
    row.predicted = entry.predictedWord();
    row.repeat = repeatOf(entry.summary);
    row.ns = partsNs(entry.summary, double(row.repeat));
    return {row};
}

QVector<BreakdownRow> breakdownRows(const std::vector<RunEntryPtr>& runs) {
    QVector<BreakdownRow> rows;
    for (const auto& entry : runs) {
        rows += breakdownRowsOf(*entry);
    }
    return rows;
}

QVector<BreakdownRow> chartBreakdownRows(const std::vector<RunEntryPtr>& runs,
                                         const QString& selectedRun, qsizetype& total) {
    return chartRowsOf(runs, selectedRun, &breakdownRowsOf, &breakdownRowCount, total);
}

} // namespace slicescope::models
