#pragma once

#include <QSortFilterProxyModel>

namespace slicescope::models {

class GpuTraceModel;

// Sorts the GPU-trace table numerically and shows what nvprof's gpu trace would: device
// activities (copies, kernels, memsets). Runs without any (CPU runs) show their host activities
// instead; showAll adds API and host rows to GPU runs too.
class GpuTraceProxy : public QSortFilterProxyModel {
    Q_OBJECT
  public:
    explicit GpuTraceProxy(QObject* parent = nullptr);

    void setSourceModel(QAbstractItemModel* model) override;
    bool showAll() const { return showAll_; }
    void setShowAll(bool showAll);
    // The proxy row of an activity, or -1 when filtered out.
    int rowOfActivity(int activityIndex) const;

  protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

  private:
    GpuTraceModel* trace_ = nullptr;
    bool showAll_ = false;
};

} // namespace slicescope::models
