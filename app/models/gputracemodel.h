#pragma once

#include "models/runentry.h"

#include <QAbstractTableModel>

namespace slicescope::models {

// One run's activities with the columns of nvprof --print-gpu-trace. Rows are the run's
// activities in their stored order (row == activity index); the proxy picks device activities
// and sorts.
class GpuTraceModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column {
        StartColumn,
        DurationColumn,
        GridColumn,
        BlockColumn,
        RegistersColumn,
        StaticSharedColumn,
        DynamicSharedColumn,
        SizeColumn,
        ThroughputColumn,
        SrcMemColumn,
        DstMemColumn,
        DeviceColumn,
        StreamColumn,
        NameColumn,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole, // raw numbers (ns, bytes, counts) for sorting
        KindRole,                // trace::ActivityKind as int
        IsDeviceRole,            // a copy, kernel or memset: what nvprof's gpu trace lists
        ActivityIndexRole,
    };

    explicit GpuTraceModel(QObject* parent = nullptr);

    void setRun(ConstRunEntryPtr entry);
    const ConstRunEntryPtr& run() const { return entry_; }
    bool hasDeviceActivities() const { return deviceActivities_ > 0; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

  private:
    ConstRunEntryPtr entry_;
    std::int64_t originNs_ = 0;
    std::size_t deviceActivities_ = 0;
};

// A copy's or memset's bytes per ns (GB/s); 0 when it has no bytes or no duration.
double throughputGBps(const trace::Activity& activity);
// nvprof's name for an activity: the kernel's name, or "[CUDA memcpy HtoD]" and the like.
QString activityName(const trace::Run& run, const trace::Activity& activity);
// Every nvprof field of an activity as rich text, for tooltips (times relative to originNs).
QString activityTooltip(const trace::Run& run, const trace::Activity& activity,
                        std::int64_t originNs, const QString& runId);

} // namespace slicescope::models
