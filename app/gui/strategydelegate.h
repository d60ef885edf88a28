#pragma once

#include <QStyledItemDelegate>

namespace slicescope::gui {

// Draws a strategy as its name in bold over its one-line description, with the check box.
class StrategyDelegate : public QStyledItemDelegate {
    Q_OBJECT
  public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;

  private:
    QRect textRect(const QStyleOptionViewItem& option, const QModelIndex& index) const;
};

} // namespace slicescope::gui
