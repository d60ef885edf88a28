#include "models/gputracemodel.h"

#include <QBrush>
#include <QColor>
#include <algorithm>
#include <cmath>

namespace slicescope::models {

using trace::Activity;
using trace::ActivityKind;

namespace {

QString dim3Text(const Dim3& d) {
    return QStringLiteral("(%1 %2 %3)").arg(d.x).arg(d.y).arg(d.z);
}

QString durationText(std::int64_t ns) {
    return toQString(trace::formatDurationNs(ns));
}

QString bytesText(std::uint64_t bytes) {
    return toQString(trace::formatBytes(bytes));
}

bool hasMemoryKinds(ActivityKind kind) {
    return trace::isCopy(kind);
}

} // namespace

double throughputGBps(const Activity& a) {
    const auto d = a.durationNs();
    return d > 0 && a.bytes > 0 ? double(a.bytes) / double(d) : 0.0; // bytes per ns == GB/s
}

QString activityName(const trace::Run& run, const Activity& a) {
    const QString name = toQString(run.name(a));
    QString bracket;
    switch (a.kind) {
    case ActivityKind::HtoD:
        bracket = QStringLiteral("[CUDA memcpy HtoD]");
        break;
    case ActivityKind::DtoH:
        bracket = QStringLiteral("[CUDA memcpy DtoH]");
        break;
    case ActivityKind::DtoD:
        bracket = QStringLiteral("[CUDA memcpy DtoD]");
        break;
    case ActivityKind::HtoH:
        bracket = QStringLiteral("[CUDA memcpy HtoH]");
        break;
    case ActivityKind::Memset:
        bracket = QStringLiteral("[CUDA memset]");
        break;
    default:
        break;
    }
    if (bracket.isEmpty()) {
        return name.isEmpty() ? toQString(trace::toString(a.kind)) : name;
    }
    // Recorded copies are already named so (CUPTI's decoder names them as nvprof does).
    return name.isEmpty() || name == bracket ? bracket : bracket + QLatin1Char(' ') + name;
}

QString activityTooltip(const trace::Run& run, const Activity& a, std::int64_t originNs,
                        const QString& runId) {
    QString rows;
    auto row = [&rows](const QString& key, const QString& value) {
        if (!value.isEmpty()) {
            rows += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>")
                        .arg(key, value.toHtmlEscaped());
        }
    };
    row(QStringLiteral("Name"), activityName(run, a));
    row(QStringLiteral("Run"),
        runId + (trace::isPredicted(run.mode)
                     ? QStringLiteral(" (") + toQString(trace::predictedWord(run.mode)) +
                           QStringLiteral(")")
                     : QString()));
    row(QStringLiteral("Start"), durationText(a.startNs - originNs));
    row(QStringLiteral("Duration"), durationText(a.durationNs()));
    if (a.kind == ActivityKind::Kernel) {
        row(QStringLiteral("Grid Size"), dim3Text(a.grid));
        row(QStringLiteral("Block Size"), dim3Text(a.block));
        row(QStringLiteral("Regs"),
            a.registersPerThread ? QString::number(a.registersPerThread) : QString());
        row(QStringLiteral("SSMem"), bytesText(a.staticSharedBytes));
        row(QStringLiteral("DSMem"), bytesText(a.dynamicSharedBytes));
        if (!std::isnan(a.theoreticalOccupancy)) {
            row(QStringLiteral("Per-SM limit (CUDA's theoretical occupancy)"),
                toQString(trace::formatPercent(a.theoreticalOccupancy)));
        }
        if (!std::isnan(a.achievedOccupancy)) {
            row(QStringLiteral("Achieved occupancy"),
                toQString(trace::formatPercent(a.achievedOccupancy)));
        }
    }
    if (a.bytes > 0) {
        row(QStringLiteral("Size"), bytesText(a.bytes));
        if (throughputGBps(a) > 0) {
            row(QStringLiteral("Throughput"),
                QString::number(throughputGBps(a), 'f', 2) + QStringLiteral(" GB/s"));
        }
    }
    if (hasMemoryKinds(a.kind)) {
        row(QStringLiteral("SrcMemType"), toQString(trace::toString(a.srcKind)));
        row(QStringLiteral("DstMemType"), toQString(trace::toString(a.dstKind)));
    }
    if (trace::isDeviceActivity(a.kind)) {
        row(QStringLiteral("Device"), toQString(run.device.name));
        row(QStringLiteral("Stream"), QString::number(a.stream));
    } else {
        row(QStringLiteral("Thread"),
            a.threadId == 0 ? QStringLiteral("main") : QString::number(a.threadId));
    }
    if (a.correlationId) {
        row(QStringLiteral("Correlation"), QString::number(a.correlationId));
    }
    if (a.warmup) {
        row(QStringLiteral("Warm-up"),
            QStringLiteral("iteration %1 of %2 (not in the run's figures)")
                .arg(a.iteration + 1)
                .arg(std::max<std::uint32_t>(1, run.warmup)));
    } else if (run.repeat > 1) {
        row(QStringLiteral("Repetition"), QString::number(a.iteration + 1));
    }
    return QStringLiteral("<table cellspacing=\"2\">") + rows + QStringLiteral("</table>");
}

GpuTraceModel::GpuTraceModel(QObject* parent) : QAbstractTableModel(parent) {}

void GpuTraceModel::setRun(ConstRunEntryPtr entry) {
    beginResetModel();
    entry_ = std::move(entry);
    deviceActivities_ = 0;
    originNs_ = 0;
    if (entry_) {
        originNs_ = entry_->lanes->beginNs;
        deviceActivities_ = entry_->deviceActivities; // counted off the GUI thread
    }
    endResetModel();
}

int GpuTraceModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !entry_ ? 0 : int(entry_->run->activities.size());
}

int GpuTraceModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant GpuTraceModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) ||
        !entry_) {
        return {};
    }
    const trace::Run& run = *entry_->run;
    const Activity& a = run.activities[std::size_t(index.row())];
    switch (role) {
    case KindRole:
        return int(a.kind);
    case IsDeviceRole:
        return trace::isDeviceActivity(a.kind);
    case ActivityIndexRole:
        return index.row();
    case Qt::ToolTipRole:
        return activityTooltip(run, a, originNs_, entry_->id);
    case Qt::ForegroundRole:
        // Warm-up rows greyed, as on the timeline: listed, never counted.
        return a.warmup ? QVariant(QBrush(QColor(0x8a, 0x8a, 0x8a))) : QVariant();
    case Qt::TextAlignmentRole:
        return index.column() == NameColumn || index.column() == SrcMemColumn ||
                       index.column() == DstMemColumn || index.column() == DeviceColumn
                   ? int(Qt::AlignLeft | Qt::AlignVCenter)
                   : int(Qt::AlignRight | Qt::AlignVCenter);
    default:
        break;
    }
    const bool sort = role == SortRole;
    if (role != Qt::DisplayRole && !sort) {
        return {};
    }
    const bool kernel = a.kind == ActivityKind::Kernel;
    switch (index.column()) {
    case StartColumn:
        return sort ? QVariant(qlonglong(a.startNs - originNs_))
                    : QVariant(durationText(a.startNs - originNs_));
    case DurationColumn:
        return sort ? QVariant(qlonglong(a.durationNs())) : QVariant(durationText(a.durationNs()));
    case GridColumn:
        if (!kernel) {
            return sort ? QVariant(qulonglong(0)) : QVariant();
        }
        return sort ? QVariant(qulonglong(a.grid.count())) : QVariant(dim3Text(a.grid));
    case BlockColumn:
        if (!kernel) {
            return sort ? QVariant(qulonglong(0)) : QVariant();
        }
        return sort ? QVariant(qulonglong(a.block.count())) : QVariant(dim3Text(a.block));
    case RegistersColumn:
        if (!kernel) {
            return sort ? QVariant(0) : QVariant();
        }
        return int(a.registersPerThread);
    case StaticSharedColumn:
        if (!kernel) {
            return sort ? QVariant(0u) : QVariant();
        }
        return sort ? QVariant(a.staticSharedBytes) : QVariant(bytesText(a.staticSharedBytes));
    case DynamicSharedColumn:
        if (!kernel) {
            return sort ? QVariant(0u) : QVariant();
        }
        return sort ? QVariant(a.dynamicSharedBytes) : QVariant(bytesText(a.dynamicSharedBytes));
    case SizeColumn:
        if (a.bytes == 0) {
            return sort ? QVariant(qulonglong(0)) : QVariant();
        }
        return sort ? QVariant(qulonglong(a.bytes)) : QVariant(bytesText(a.bytes));
    case ThroughputColumn: {
        const double gbps = throughputGBps(a);
        if (gbps <= 0) {
            return sort ? QVariant(0.0) : QVariant();
        }
        return sort ? QVariant(gbps)
                    : QVariant(QString::number(gbps, 'f', 2) + QStringLiteral(" GB/s"));
    }
    case SrcMemColumn:
        return hasMemoryKinds(a.kind) ? toQString(trace::toString(a.srcKind)) : QString();
    case DstMemColumn:
        return hasMemoryKinds(a.kind) ? toQString(trace::toString(a.dstKind)) : QString();
    case DeviceColumn:
        return trace::isDeviceActivity(a.kind) ? toQString(run.device.name)
                                               : QStringLiteral("host");
    case StreamColumn:
        if (!trace::isDeviceActivity(a.kind)) {
            return sort ? QVariant(-1) : QVariant();
        }
        return int(a.stream);
    case NameColumn:
        return activityName(run, a);
    default:
        return {};
    }
}

QVariant GpuTraceModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) {
        return {};
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case StartColumn:
            return QStringLiteral("Start, relative to the run's first activity");
        case RegistersColumn:
            return QStringLiteral("Registers per thread");
        case StaticSharedColumn:
            return QStringLiteral("Static shared memory per block");
        case DynamicSharedColumn:
            return QStringLiteral("Dynamic shared memory per block");
        default:
            return {};
        }
    }
    if (role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
    case StartColumn:
        return QStringLiteral("Start");
    case DurationColumn:
        return QStringLiteral("Duration");
    case GridColumn:
        return QStringLiteral("Grid Size");
    case BlockColumn:
        return QStringLiteral("Block Size");
    case RegistersColumn:
        return QStringLiteral("Regs*");
    case StaticSharedColumn:
        return QStringLiteral("SSMem*");
    case DynamicSharedColumn:
        return QStringLiteral("DSMem*");
    case SizeColumn:
        return QStringLiteral("Size");
    case ThroughputColumn:
        return QStringLiteral("Throughput");
    case SrcMemColumn:
        return QStringLiteral("SrcMemType");
    case DstMemColumn:
        return QStringLiteral("DstMemType");
    case DeviceColumn:
        return QStringLiteral("Device");
    case StreamColumn:
        return QStringLiteral("Stream");
    case NameColumn:
        return QStringLiteral("Name");
    default:
        return {};
    }
}

} // namespace slicescope::models
