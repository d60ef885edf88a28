#include "models/gputraceproxy.h"

#include "models/gputracemodel.h"

namespace slicescope::models {

GpuTraceProxy::GpuTraceProxy(QObject* parent) : QSortFilterProxyModel(parent) {
    setSortRole(GpuTraceModel::SortRole);
}

void GpuTraceProxy::setSourceModel(QAbstractItemModel* model) {
    trace_ = qobject_cast<GpuTraceModel*>(model);
    QSortFilterProxyModel::setSourceModel(model);
}

void GpuTraceProxy::setShowAll(bool showAll) {
    if (showAll_ != showAll) {
        showAll_ = showAll;
        invalidateRowsFilter();
    }
}

int GpuTraceProxy::rowOfActivity(int activityIndex) const {
    if (!sourceModel() || activityIndex < 0 || activityIndex >= sourceModel()->rowCount()) {
        return -1;
    }
    return mapFromSource(sourceModel()->index(activityIndex, 0)).row();
}

bool GpuTraceProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
    if (showAll_ || trace_ == nullptr || !trace_->hasDeviceActivities()) {
        return true;
    }
    return sourceModel()->index(sourceRow, 0, sourceParent).data(GpuTraceModel::IsDeviceRole).toBool();
}

} // namespace slicescope::models
