#include "models/strategylistmodel.h"

#include "models/runentry.h"
#include "slicescope/strategy/strategy.h"

namespace slicescope::models {

StrategyListModel::StrategyListModel(QObject* parent) : QAbstractListModel(parent) {
    checked_.assign(strategy::allStrategies().size(), false);
}

int StrategyListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(strategy::allStrategies().size());
}

QVariant StrategyListModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const auto& s = strategy::allStrategies()[std::size_t(index.row())];
    const bool gpu = s.target == strategy::Target::Gpu;
    switch (role) {
    case Qt::DisplayRole:
    case NameRole:
        return toQString(s.name);
    case DescriptionRole:
        return toQString(s.description);
    case IsGpuRole:
        return gpu;
    case Qt::ToolTipRole:
        return QStringLiteral("<b>%1</b> (%2)<br>%3")
            .arg(toQString(s.name), gpu ? QStringLiteral("GPU") : QStringLiteral("CPU"),
                 toQString(s.description).toHtmlEscaped());
    case Qt::CheckStateRole:
        return checked_[std::size_t(index.row())] ? Qt::Checked : Qt::Unchecked;
    default:
        return {};
    }
}

bool StrategyListModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid) || role != Qt::CheckStateRole) {
        return false;
    }
    const bool on = value.value<Qt::CheckState>() == Qt::Checked;
    if (checked_[std::size_t(index.row())] != on) {
        checked_[std::size_t(index.row())] = on;
        emit dataChanged(index, index, {Qt::CheckStateRole});
        emit checkedChanged();
    }
    return true;
}

Qt::ItemFlags StrategyListModel::flags(const QModelIndex& index) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid)) {
        return Qt::NoItemFlags;
    }
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsUserCheckable |
           Qt::ItemNeverHasChildren;
}

QStringList StrategyListModel::checkedNames() const {
    QStringList names;
    const auto all = strategy::allStrategies();
    for (std::size_t i = 0; i < all.size(); ++i) {
        if (checked_[i]) {
            names << toQString(all[i].name);
        }
    }
    return names;
}

void StrategyListModel::setCheckedNames(const QStringList& names) {
    const auto all = strategy::allStrategies();
    bool changed = false;
    for (std::size_t i = 0; i < all.size(); ++i) {
        const bool on = names.contains(toQString(all[i].name));
        changed = changed || checked_[i] != on;
        checked_[i] = on;
    }
    if (changed) {
        emit dataChanged(index(0), index(rowCount() - 1), {Qt::CheckStateRole});
        emit checkedChanged();
    }
}

} // namespace slicescope::models
