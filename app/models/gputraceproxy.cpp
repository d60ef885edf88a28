#include "models/gputraceproxy.h"

#include "models/gputracemodel.h"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <unordered_map>
#include <utility>

namespace slicescope::models {

using trace::Activity;
using trace::ActivityKind;

namespace {

// Sorts rows by one key each, computed once: pairs of (key, activity) sort with good locality and
// no QVariant. Ties keep activity order in both directions.
template <typename Key, typename KeyOf>
void sortByKey(std::vector<std::uint32_t>& rows, KeyOf keyOf, Qt::SortOrder order) {
    std::vector<std::pair<Key, std::uint32_t>> keyed;
    keyed.reserve(rows.size());
    for (const std::uint32_t row : rows) {
        keyed.emplace_back(keyOf(row), row);
    }
    if (order == Qt::AscendingOrder) {
        std::sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) {
            return a.first < b.first || (!(b.first < a.first) && a.second < b.second);
        });
    } else {
        std::sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) {
            return b.first < a.first || (!(a.first < b.first) && a.second < b.second);
        });
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
        rows[i] = keyed[i].second;
    }
}

// Text columns take few distinct values (names, memory kinds, the device): rank the distinct
// texts once, with the comparison QString uses, and sort on the ranks.
template <typename TextOf, typename Id>
void sortByText(std::vector<std::uint32_t>& rows, const trace::Run& run, Id idOf, TextOf textOf,
                Qt::SortOrder order) {
    std::unordered_map<std::uint64_t, QString> texts;
    for (const std::uint32_t row : rows) {
        const Activity& a = run.activities[row];
        const std::uint64_t id = idOf(a);
        if (texts.find(id) == texts.end()) {
            texts.emplace(id, textOf(a));
        }
    }
    std::vector<std::pair<QString, std::uint64_t>> sorted;
    sorted.reserve(texts.size());
    for (auto& [id, text] : texts) {
        sorted.emplace_back(std::move(text), id);
    }
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
        return QString::compare(a.first, b.first, Qt::CaseSensitive) < 0;
    });
    std::unordered_map<std::uint64_t, std::uint32_t> rank;
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        // Equal texts (two ids, one text) share a rank: they tie, as their texts would.
        rank[sorted[i].second] = i > 0 && sorted[i].first == sorted[i - 1].first
                                     ? rank[sorted[i - 1].second]
                                     : std::uint32_t(i);
    }
    sortByKey<std::uint32_t>(
        rows, [&](std::uint32_t row) { return rank.at(idOf(run.activities[row])); }, order);
}

} // namespace

void sortActivityRows(const trace::Run& run, std::vector<std::uint32_t>& rows, int column,
                      Qt::SortOrder order) {
    const auto& acts = run.activities;
    auto kernel = [&](std::uint32_t row) { return acts[row].kind == ActivityKind::Kernel; };
    switch (column) {
    case GpuTraceModel::StartColumn:
        return sortByKey<std::int64_t>(
            rows, [&](std::uint32_t r) { return acts[r].startNs; }, order);
    case GpuTraceModel::DurationColumn:
        return sortByKey<std::int64_t>(
            rows, [&](std::uint32_t r) { return acts[r].durationNs(); }, order);
    case GpuTraceModel::GridColumn:
        return sortByKey<std::uint64_t>(
            rows, [&](std::uint32_t r) { return kernel(r) ? acts[r].grid.count() : 0; }, order);
    case GpuTraceModel::BlockColumn:
        return sortByKey<std::uint64_t>(
            rows, [&](std::uint32_t r) { return kernel(r) ? acts[r].block.count() : 0; }, order);
    case GpuTraceModel::RegistersColumn:
        return sortByKey<std::uint32_t>(
            rows, [&](std::uint32_t r) { return kernel(r) ? acts[r].registersPerThread : 0u; },
            order);
    case GpuTraceModel::StaticSharedColumn:
        return sortByKey<std::uint32_t>(
            rows, [&](std::uint32_t r) { return kernel(r) ? acts[r].staticSharedBytes : 0u; },
            order);
    case GpuTraceModel::DynamicSharedColumn:
        return sortByKey<std::uint32_t>(
            rows, [&](std::uint32_t r) { return kernel(r) ? acts[r].dynamicSharedBytes : 0u; },
            order);
    case GpuTraceModel::SizeColumn:
        return sortByKey<std::uint64_t>(
            rows, [&](std::uint32_t r) { return acts[r].bytes; }, order);
    case GpuTraceModel::ThroughputColumn:
        return sortByKey<double>(
            rows, [&](std::uint32_t r) { return throughputGBps(acts[r]); }, order);
    case GpuTraceModel::StreamColumn:
        return sortByKey<int>(
            rows,
            [&](std::uint32_t r) {
                return trace::isDeviceActivity(acts[r].kind) ? int(acts[r].stream) : -1;
            },
            order);
    case GpuTraceModel::SrcMemColumn:
    case GpuTraceModel::DstMemColumn: {
        const bool src = column == GpuTraceModel::SrcMemColumn;
        auto kindOf = [src](const Activity& a) { return src ? a.srcKind : a.dstKind; };
        return sortByText(
            rows, run,
            [&](const Activity& a) {
                return trace::isCopy(a.kind) ? std::uint64_t(kindOf(a)) + 1 : 0;
            },
            [&](const Activity& a) {
                return trace::isCopy(a.kind) ? toQString(trace::toString(kindOf(a))) : QString();
            },
            order);
    }
    case GpuTraceModel::DeviceColumn:
        return sortByText(
            rows, run,
            [](const Activity& a) { return std::uint64_t(trace::isDeviceActivity(a.kind)); },
            [&](const Activity& a) {
                return trace::isDeviceActivity(a.kind) ? toQString(run.device.name)
                                                       : QStringLiteral("host");
            },
            order);
    case GpuTraceModel::NameColumn:
        return sortByText(
            rows, run, [](const Activity& a) { return std::uint64_t(a.kind) << 32 | a.nameId; },
            [&](const Activity& a) { return activityName(run, a); }, order);
    default:
        return; // -1 or unknown: the run's order
    }
}

GpuTraceProxy::GpuTraceProxy(QObject* parent) : QAbstractProxyModel(parent) {}

GpuTraceProxy::~GpuTraceProxy() = default; // worker sorts own copies of what they need

void GpuTraceProxy::setSourceModel(QAbstractItemModel* model) {
    if (sourceModel()) {
        sourceModel()->disconnect(this);
    }
    beginResetModel();
    trace_ = qobject_cast<GpuTraceModel*>(model);
    QAbstractProxyModel::setSourceModel(model);
    if (model) {
        connect(model, &QAbstractItemModel::modelAboutToBeReset, this,
                &GpuTraceProxy::onSourceAboutToBeReset);
        connect(model, &QAbstractItemModel::modelReset, this, &GpuTraceProxy::onSourceReset);
    }
    entry_ = trace_ ? trace_->run() : nullptr;
    refresh(true);
    endResetModel();
}

bool GpuTraceProxy::deviceOnly() const {
    return !showAll_ && trace_ && trace_->hasDeviceActivities();
}

void GpuTraceProxy::setShowAll(bool showAll) {
    if (showAll_ == showAll) {
        return;
    }
    beginResetModel();
    showAll_ = showAll;
    refresh(true);
    endResetModel();
}

void GpuTraceProxy::sort(int column, Qt::SortOrder order) {
    if (column == sortColumn_ && order == sortOrder_) {
        return;
    }
    sortColumn_ = column;
    sortOrder_ = order;
    refresh(false);
}

void GpuTraceProxy::onSourceAboutToBeReset() {
    beginResetModel();
}

void GpuTraceProxy::onSourceReset() {
    entry_ = trace_ ? trace_->run() : nullptr;
    refresh(true);
    endResetModel();
}

GpuTraceProxy::Order GpuTraceProxy::computeOrder(const trace::Run* run, bool deviceOnly, int column,
                                                 Qt::SortOrder order) {
    Order result;
    if (!run) {
        return result;
    }
    const auto& acts = run->activities;
    result.rows.reserve(deviceOnly ? acts.size() / 2 : acts.size());
    for (std::size_t i = 0; i < acts.size(); ++i) {
        if (!deviceOnly || trace::isDeviceActivity(acts[i].kind)) {
            result.rows.push_back(std::uint32_t(i));
        }
    }
    result.rows.shrink_to_fit();
    sortActivityRows(*run, result.rows, column, order);
    result.inverse.assign(acts.size(), -1);
    for (std::size_t row = 0; row < result.rows.size(); ++row) {
        result.inverse[result.rows[row]] = std::int32_t(row);
    }
    return result;
}

void GpuTraceProxy::refresh(bool resetting) {
    const quint64 generation = ++generation_;
    const trace::Run* run = entry_ ? entry_->run.get() : nullptr;
    if (!run || run->activities.size() <= syncLimit_) {
        Order order = computeOrder(run, deviceOnly(), sortColumn_, sortOrder_);
        if (resetting) {
            order_ = std::move(order);
        } else {
            applyOrder(std::move(order));
        }
        setBusy(0);
        return;
    }
    if (resetting) {
        order_ = Order{}; // no rows until the worker's arrive: none of the old run's may show
    }
    // On a worker: the entry (immutable, shared) keeps the run alive however long it takes.
    auto* watcher = new QFutureWatcher<Order>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
        watcher->deleteLater();
        if (generation != generation_ || watcher->future().resultCount() == 0) {
            return; // stale: the run, the filter or the order changed since
        }
        applyOrder(watcher->future().takeResult());
        setBusy(0);
    });
    watcher->setFuture(QtConcurrent::run(
        [entry = entry_, deviceOnly = deviceOnly(), column = sortColumn_, order = sortOrder_] {
            return computeOrder(entry->run.get(), deviceOnly, column, order);
        }));
    setBusy(generation);
}

void GpuTraceProxy::setBusy(quint64 generation) {
    const bool was = isBusy();
    busyGeneration_ = generation;
    if (was != isBusy()) {
        emit busyChanged(isBusy());
    }
}

void GpuTraceProxy::applyOrder(Order order) {
    if (order.rows.size() != order_.rows.size()) {
        // Other rows, not other order (a new run or filter): a reset.
        beginResetModel();
        order_ = std::move(order);
        endResetModel();
        return;
    }
    emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    const QModelIndexList before = persistentIndexList();
    std::vector<int> activities;
    activities.reserve(std::size_t(before.size()));
    for (const QModelIndex& index : before) {
        activities.push_back(index.isValid() ? activityAt(index.row()) : -1);
    }
    order_ = std::move(order);
    QModelIndexList after;
    after.reserve(before.size());
    for (qsizetype i = 0; i < before.size(); ++i) {
        const int row = rowOfActivity(activities[std::size_t(i)]);
        after.push_back(row >= 0 ? index(row, before[i].column()) : QModelIndex());
    }
    changePersistentIndexList(before, after);
    emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

int GpuTraceProxy::rowOfActivity(int activityIndex) const {
    if (activityIndex < 0 || std::size_t(activityIndex) >= order_.inverse.size()) {
        return -1;
    }
    return order_.inverse[std::size_t(activityIndex)];
}

int GpuTraceProxy::activityAt(int row) const {
    return row >= 0 && std::size_t(row) < order_.rows.size() ? int(order_.rows[std::size_t(row)])
                                                             : -1;
}

QModelIndex GpuTraceProxy::mapToSource(const QModelIndex& proxyIndex) const {
    if (!sourceModel() || !proxyIndex.isValid() || proxyIndex.model() != this) {
        return {};
    }
    const int activity = activityAt(proxyIndex.row());
    return activity >= 0 ? sourceModel()->index(activity, proxyIndex.column()) : QModelIndex();
}

QModelIndex GpuTraceProxy::mapFromSource(const QModelIndex& sourceIndex) const {
    if (!sourceIndex.isValid() || sourceIndex.model() != sourceModel()) {
        return {};
    }
    const int row = rowOfActivity(sourceIndex.row());
    return row >= 0 ? index(row, sourceIndex.column()) : QModelIndex();
}

QModelIndex GpuTraceProxy::index(int row, int column, const QModelIndex& parent) const {
    if (parent.isValid() || row < 0 || column < 0 || row >= rowCount() || column >= columnCount()) {
        return {};
    }
    return createIndex(row, column);
}

QModelIndex GpuTraceProxy::parent(const QModelIndex&) const {
    return {};
}

QModelIndex GpuTraceProxy::sibling(int row, int column, const QModelIndex&) const {
    return index(row, column);
}

int GpuTraceProxy::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(order_.rows.size());
}

int GpuTraceProxy::columnCount(const QModelIndex& parent) const {
    return parent.isValid() || !sourceModel() ? 0 : sourceModel()->columnCount();
}

bool GpuTraceProxy::hasChildren(const QModelIndex& parent) const {
    return !parent.isValid() && rowCount() > 0 && columnCount() > 0;
}

QVariant GpuTraceProxy::headerData(int section, Qt::Orientation orientation, int role) const {
    if (!sourceModel()) {
        return {};
    }
    if (orientation == Qt::Horizontal) {
        return sourceModel()->headerData(section, orientation, role); // columns are the source's
    }
    return role == Qt::DisplayRole && section >= 0 && section < rowCount() ? QVariant(section + 1)
                                                                           : QVariant();
}

} // namespace slicescope::models
