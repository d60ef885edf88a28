#pragma once

#include "models/runentry.h"

#include <QAbstractProxyModel>
#include <cstdint>
#include <vector>

namespace slicescope::models {

class GpuTraceModel;

// The rows of the GPU-trace table: what nvprof's gpu trace lists (device activities: copies,
// kernels, memsets), every activity when asked (showAll), or the host activities of runs that
// have no device activity (CPU runs); sorted on the raw numbers of any column.
//
// Built for million-row runs. The rows are a compact vector of activity indices and its inverse,
// read straight from the run, never through QVariant: filtering is one pass over the activities,
// sorting precomputes one key per row and sorts those, O(n log n). For a run of more than
// syncLimit() activities both happen on a worker thread, and the GUI thread does no work that
// grows with the run: after a new run or filter the table is empty until the rows arrive (a reset);
// after a new sort order it keeps its previous order until the new one arrives (a layout change,
// the current row and selection following their activities). isBusy() and busyChanged() say when
// a worker is on it. Each request has a generation number: a result of an older request (the run,
// the filter or the order changed since) is dropped. Follows its source model's resets
// (GpuTraceModel::setRun).
class GpuTraceProxy : public QAbstractProxyModel {
    Q_OBJECT
  public:
    explicit GpuTraceProxy(QObject* parent = nullptr);
    ~GpuTraceProxy() override;

    void setSourceModel(QAbstractItemModel* model) override;
    bool showAll() const { return showAll_; }
    void setShowAll(bool showAll);
    // The proxy row of an activity, or -1 when filtered out.
    int rowOfActivity(int activityIndex) const;
    // The activity shown in a proxy row, or -1.
    int activityAt(int row) const;
    int sortColumn() const { return sortColumn_; }
    Qt::SortOrder sortOrder() const { return sortOrder_; }
    // True while a worker filters or sorts the rows the table waits for.
    bool isBusy() const { return busyGeneration_ != 0; }
    // Runs of up to this many activities are filtered and sorted at once on the calling thread
    // (default 50,000: a few milliseconds); bigger ones on a worker.
    void setSyncLimit(std::size_t activities) { syncLimit_ = activities; }
    std::size_t syncLimit() const { return syncLimit_; }

    QModelIndex mapToSource(const QModelIndex& proxyIndex) const override;
    QModelIndex mapFromSource(const QModelIndex& sourceIndex) const override;
    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    QModelIndex sibling(int row, int column, const QModelIndex& index) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    bool hasChildren(const QModelIndex& parent = {}) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    // column -1 restores the run's own order.
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

  signals:
    // A worker started on the rows (true), or the table holds the rows last asked for (false).
    void busyChanged(bool busy);

  private:
    struct Order {
        std::vector<std::uint32_t> rows;   // proxy row -> activity index
        std::vector<std::int32_t> inverse; // activity index -> proxy row, -1 when filtered out
    };
    // The rows of a run (all, or device activities only), sorted by column (-1: run order).
    static Order computeOrder(const trace::Run* run, bool deviceOnly, int column,
                              Qt::SortOrder order);
    bool deviceOnly() const;
    void onSourceAboutToBeReset();
    void onSourceReset();
    // Filters now; sorts now or on a worker. Inside a reset when `resetting`, else a layout change.
    void refresh(bool resetting);
    void applyOrder(Order order);
    void setBusy(quint64 generation);

    GpuTraceModel* trace_ = nullptr;
    ConstRunEntryPtr entry_;
    bool showAll_ = false;
    int sortColumn_ = -1;
    Qt::SortOrder sortOrder_ = Qt::AscendingOrder;
    std::size_t syncLimit_ = 50'000;
    quint64 generation_ = 0;
    quint64 busyGeneration_ = 0; // the worker result the table waits for; 0 when none
    Order order_;
};

// The activities of `rows` in the order the GPU-trace table sorts them by `column`: by the raw
// value GpuTraceModel::SortRole gives (numbers numerically, text as QString compares it), ties in
// activity order whatever the direction, as a stable sort would leave them.
void sortActivityRows(const trace::Run& run, std::vector<std::uint32_t>& rows, int column,
                      Qt::SortOrder order);

} // namespace slicescope::models
