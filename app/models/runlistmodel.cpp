#include "models/runlistmodel.h"

#include "models/session.h"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <cmath>

namespace slicescope::models {

namespace {

// The Device column: the device's name, its preset for predicted runs, and which GPU of the host
// where that tells runs apart: a run of --devices (Run::deviceIndex) says "GPU 1", a recorded
// program whose work spans several says "GPUs 0, 1". Sorted on, the column groups runs by device.
QString deviceText(const RunEntry& e) {
    const trace::Run& run = *e.run;
    QString text = run.device.id.empty() || !e.isPredicted()
                       ? toQString(run.device.name)
                       : QStringLiteral("%1 (preset %2)")
                             .arg(toQString(run.device.name), toQString(run.device.id));
    if (run.deviceIndex) {
        return QStringLiteral("%1 (GPU %2)").arg(text).arg(*run.deviceIndex);
    }
    if (e.lanes && e.lanes->devices.size() > 1) {
        QStringList gpus;
        for (const int device : e.lanes->devices) {
            gpus << QString::number(device);
        }
        return QStringLiteral("%1 (GPUs %2)").arg(text, gpus.join(QStringLiteral(", ")));
    }
    return text;
}

QString percent(double fraction) {
    return toQString(trace::formatPercent(fraction));
}

} // namespace

RunListModel::RunListModel(Session* session, QObject* parent)
    : QAbstractTableModel(parent), session_(session) {
    connect(session, &Session::aboutToAddRuns, this,
            [this](int first, int last) { beginInsertRows({}, first, last); });
    connect(session, &Session::runsAdded, this, [this] { endInsertRows(); });
    connect(session, &Session::aboutToRemoveRun, this,
            [this](int row) { beginRemoveRows({}, row, row); });
    connect(session, &Session::runRemoved, this, [this] { endRemoveRows(); });
    connect(session, &Session::aboutToReset, this, [this] { beginResetModel(); });
    connect(session, &Session::reset, this, [this] { endResetModel(); });
    connect(session, &Session::runsUpdated, this, [this](int first, int last) {
        emit dataChanged(index(first, 0), index(last, ColumnCount - 1));
    });
}

int RunListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : session_->count();
}

int RunListModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

// The tooltip of a cell that explains its column; none where the cell's text says it all.
static QVariant toolTipOf(const RunEntry& e, int column) {
    const trace::Run& run = *e.run;
    const bool sample = e.origin == RunOrigin::Sample;
    switch (column) {
    case RunListModel::RunColumn:
        return QStringLiteral("%1: %2%3%4")
            .arg(e.id, modeText(run.mode),
                 sample ? QStringLiteral(", a sample shipped with SliceScope") : QString(),
                 e.source.isEmpty() ? QString() : QStringLiteral("\nfrom ") + e.source);
    case RunListModel::VerdictColumn:
        return e.verdict;
    case RunListModel::LaunchOccupancyColumn:
        if (const auto launch = trace::launchOccupancyOf(run);
            launch && !launch->explanation.empty()) {
            return toQString(launch->explanation);
        }
        return QStringLiteral(
            "Launch occupancy: the share of the whole GPU's warp slots this launch fills, "
            "given its grid.");
    case RunListModel::OccupancyColumn:
        return QStringLiteral(
            "Per-SM limit (CUDA's theoretical occupancy): the share of each SM's warp slots "
            "a launch could keep filled, given its block size, registers and shared memory. "
            "A launch of too few blocks leaves most SMs empty however high this is.");
    case RunListModel::SlotsBusyColumn:
        return QStringLiteral("Share of all the GPU's thread slots (SMs x threads per SM) held by "
                              "threads that have work: the seed's measure of how idle the GPU is.");
    case RunListModel::TimeColumn:
        return QStringLiteral(
            "Per repetition: copies and kernels for GPU runs, host compute for CPU runs.");
    default:
        break;
    }
    return {};
}

QVariant RunListModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const RunEntry& e = *session_->at(index.row());
    const trace::Run& run = *e.run;
    const trace::RunSummary& s = e.summary;
    const bool gpu = e.isGpu();
    if (role == RunIdRole) {
        return e.id;
    }
    const bool sample = e.origin == RunOrigin::Sample;
    if (role == IsSampleRole) {
        return sample ? QStringLiteral("sample") : QStringLiteral("user");
    }
    if (role == Qt::ForegroundRole && sample) {
        return QBrush(QColor(0x66, 0x66, 0x66)); // the shipped samples, apart from the user's runs
    }
    if (role == Qt::CheckStateRole && index.column() == RunColumn) {
        return e.visible ? Qt::Checked : Qt::Unchecked;
    }
    if (role == Qt::ForegroundRole && index.column() == VerifiedColumn && run.verification &&
        !run.verification->passed) {
        return QBrush(QColor(0xc6, 0x28, 0x28));
    }
    if (role == Qt::FontRole && index.column() == RunColumn) {
        QFont font;
        font.setBold(true);
        font.setItalic(e.isPredicted());
        return font;
    }
    if (role == Qt::ToolTipRole) {
        const QVariant tip = toolTipOf(e, index.column());
        return tip.isValid() ? tip : data(index, Qt::DisplayRole);
    }
    if (role == Qt::TextAlignmentRole) {
        switch (index.column()) {
        case TimeColumn:
        case CopyShareColumn:
        case KernelColumn:
        case LaunchOccupancyColumn:
        case OccupancyColumn:
        case SlotsBusyColumn:
            return int(Qt::AlignRight | Qt::AlignVCenter);
        default:
            return int(Qt::AlignLeft | Qt::AlignVCenter);
        }
    }
    const bool sort = role == SortRole;
    if (role != Qt::DisplayRole && !sort) {
        return {};
    }
    switch (index.column()) {
    case RunColumn:
        return e.id;
    case ModeColumn:
        return shortModeText(run.mode);
    case DeviceColumn:
        return deviceText(e);
    case ProblemColumn:
        return run.problem ? toQString(run.problem->describe()) : QString();
    case TimeColumn:
        return sort ? QVariant(qlonglong(s.perRepetitionNs()))
                    : QVariant(toQString(trace::formatDurationNs(s.perRepetitionNs())));
    case CopyShareColumn:
        if (!gpu) {
            return sort ? QVariant(-1.0) : QVariant();
        }
        return sort ? QVariant(s.copyShare()) : QVariant(percent(s.copyShare()));
    case KernelColumn:
        if (!gpu) {
            return sort ? QVariant(qlonglong(-1)) : QVariant();
        }
        return sort ? QVariant(qlonglong(s.kernelNs))
                    : QVariant(toQString(trace::formatDurationNs(s.kernelNs)));
    case LaunchOccupancyColumn: {
        const auto launch = trace::launchOccupancyOf(run);
        if (!launch) {
            return sort ? QVariant(-1.0) : QVariant();
        }
        return sort ? QVariant(launch->occupancy)
                    : QVariant(QStringLiteral("%1 (limited by %2)")
                                   .arg(percent(launch->occupancy),
                                        launch->limiter == "grid" ? QStringLiteral("the grid")
                                                                  : toQString(launch->limiter)));
    }
    case OccupancyColumn:
        if (!run.occupancy) {
            return sort ? QVariant(-1.0) : QVariant();
        }
        if (sort) {
            return run.occupancy->theoretical;
        }
        return run.occupancy->achieved ? QStringLiteral("%1 (achieved %2)")
                                             .arg(percent(run.occupancy->theoretical),
                                                  percent(*run.occupancy->achieved))
                                       : percent(run.occupancy->theoretical);
    case SlotsBusyColumn:
        if (!run.occupancy) {
            return sort ? QVariant(-1.0) : QVariant();
        }
        return sort ? QVariant(run.occupancy->threadSlotsBusy)
                    : QVariant(percent(run.occupancy->threadSlotsBusy));
    case VerifiedColumn:
        if (!run.verification) {
            return sort ? QVariant(-1)
                        : QVariant(e.isPredicted()
                                       ? QStringLiteral("n/a (%1)").arg(e.predictedWord())
                                       : QString());
        }
        return sort ? QVariant(run.verification->passed ? 1 : 0)
                    : QVariant(run.verification->passed ? QStringLiteral("yes")
                                                        : QStringLiteral("WRONG"));
    case VerdictColumn:
        return e.verdict;
    default:
        return {};
    }
}

bool RunListModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid) || index.column() != RunColumn ||
        role != Qt::CheckStateRole) {
        return false;
    }
    session_->setVisible(index.row(), value.value<Qt::CheckState>() == Qt::Checked);
    return true;
}

QVariant RunListModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) {
        return {};
    }
    if (role == Qt::ToolTipRole && section == VerdictColumn) {
        return QStringLiteral(
            "What decides this run's time, in plain words, compared with the other runs "
            "of the same problem.");
    }
    if (role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
    case RunColumn:
        return QStringLiteral("Run");
    case ModeColumn:
        return QStringLiteral("Mode");
    case DeviceColumn:
        return QStringLiteral("Device");
    case ProblemColumn:
        return QStringLiteral("Problem");
    case TimeColumn:
        return QStringLiteral("Time / rep.");
    case CopyShareColumn:
        return QStringLiteral("Copies");
    case KernelColumn:
        return QStringLiteral("Kernels");
    case LaunchOccupancyColumn:
        return QStringLiteral("Launch occupancy");
    case OccupancyColumn:
        return QStringLiteral("per-SM limit (CUDA's theoretical occupancy)");
    case SlotsBusyColumn:
        return QStringLiteral("Thread slots busy");
    case VerifiedColumn:
        return QStringLiteral("Verified");
    case VerdictColumn:
        return QStringLiteral("Verdict");
    default:
        return {};
    }
}

Qt::ItemFlags RunListModel::flags(const QModelIndex& index) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid)) {
        return Qt::NoItemFlags;
    }
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren;
    if (index.column() == RunColumn) {
        f |= Qt::ItemIsUserCheckable;
    }
    return f;
}

} // namespace slicescope::models
