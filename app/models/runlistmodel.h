#pragma once

#include <QAbstractTableModel>

namespace slicescope::models {

class Session;

// The per-run summary table: one row per run of the session with its mode, device, problem,
// time per repetition, copy share, occupancy, verification and the verdict in plain words.
// The first column is checkable: whether the run is drawn on the timeline.
class RunListModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column {
        RunColumn,
        ModeColumn,
        DeviceColumn,
        ProblemColumn,
        TimeColumn,
        CopyShareColumn,
        KernelColumn,
        LaunchOccupancyColumn, // the launch's own share of the GPU (trace::launchOccupancyOf)
        OccupancyColumn,       // CUDA's theoretical occupancy: the per-SM limit
        SlotsBusyColumn,
        VerifiedColumn,
        VerdictColumn,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole, // numbers for numeric columns
        RunIdRole,
        IsSampleRole, // "sample" for a shipped sample trace's run, "user" for any other
    };

    explicit RunListModel(Session* session, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

  private:
    Session* session_;
};

} // namespace slicescope::models
