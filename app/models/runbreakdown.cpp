#include "models/runbreakdown.h"

#include "models/runnaming.h"

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

QVector<BreakdownRow> breakdownRows(const std::vector<RunEntryPtr>& runs) {
    QVector<BreakdownRow> rows;
    for (const auto& entry : runs) {
        if (!entry->visible) {
            continue;
        }
        const trace::RunSummary& s = entry->summary;
        BreakdownRow row;
        row.runId = entry->id;
        row.device = shortDeviceName(entry->run->device);
        row.predicted = entry->predictedWord();
        row.repeat = std::max<std::uint32_t>(1, s.repeat);
        const double reps = double(row.repeat);
        row.ns[std::size_t(BreakdownPart::HtoD)] = double(s.htodNs) / reps;
        row.ns[std::size_t(BreakdownPart::Kernel)] = double(s.kernelNs) / reps;
        row.ns[std::size_t(BreakdownPart::DtoH)] = double(s.dtohNs) / reps;
        row.ns[std::size_t(BreakdownPart::OtherDevice)] = double(s.otherCopyNs + s.memsetNs) / reps;
        row.ns[std::size_t(BreakdownPart::HostLayout)] = double(s.hostLayoutNs) / reps;
        row.ns[std::size_t(BreakdownPart::HostCompute)] = double(s.hostComputeNs) / reps;
        if (row.totalNs() > 0) {
            rows << row;
        }
    }
    return rows;
}

} // namespace slicescope::models
