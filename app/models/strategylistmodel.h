#pragma once

#include <QAbstractListModel>
#include <QStringList>
#include <vector>

namespace slicescope::models {

// Every strategy the engine knows (strategy::allStrategies()), checkable, with its one-line
// description. GPU strategies first, in the engine's order, which tells the seed's story.
class StrategyListModel : public QAbstractListModel {
    Q_OBJECT
  public:
    enum Role {
        NameRole = Qt::UserRole,
        DescriptionRole,
        IsGpuRole,
    };

    explicit StrategyListModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

    // Checked strategy names in model order.
    QStringList checkedNames() const;
    // Checks exactly these (unknown names are ignored).
    void setCheckedNames(const QStringList& names);

  signals:
    void checkedChanged();

  private:
    std::vector<bool> checked_;
};

} // namespace slicescope::models
