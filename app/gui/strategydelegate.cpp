#include "gui/strategydelegate.h"

#include "models/strategylistmodel.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QPainter>

namespace slicescope::gui {

namespace {
constexpr int kPadding = 4;

QFont nameFont(const QFont& base) {
    QFont f = base;
    f.setBold(true);
    return f;
}

QFont descriptionFont(const QFont& base) {
    QFont f = base;
    f.setPointSizeF(base.pointSizeF() * 0.9);
    return f;
}
} // namespace

QRect StrategyDelegate::textRect(const QStyleOptionViewItem& option,
                                 const QModelIndex& index) const {
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    const QWidget* widget = option.widget;
    QStyle* style = widget ? widget->style() : QApplication::style();
    QRect r = style->subElementRect(QStyle::SE_ItemViewItemText, &opt, widget);
    if (r.width() <= 0) {
        r = option.rect.adjusted(24, 0, 0, 0);
    }
    return r.adjusted(kPadding, kPadding, -kPadding, -kPadding);
}

void StrategyDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                             const QModelIndex& index) const {
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    opt.text.clear();
    const QWidget* widget = option.widget;
    QStyle* style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);

    const QRect r = textRect(option, index);
    const bool selected = option.state & QStyle::State_Selected;
    const QColor text = option.palette.color(selected ? QPalette::HighlightedText : QPalette::Text);
    const QString name = index.data(models::StrategyListModel::NameRole).toString();
    const bool gpu = index.data(models::StrategyListModel::IsGpuRole).toBool();
    painter->save();
    painter->setFont(nameFont(option.font));
    painter->setPen(text);
    const QFontMetrics nameMetrics(painter->font());
    painter->drawText(
        QRect(r.left(), r.top(), r.width(), nameMetrics.height()), Qt::AlignLeft | Qt::AlignVCenter,
        name + (gpu ? QStringLiteral("  \u00b7 GPU") : QStringLiteral("  \u00b7 CPU")));
    painter->setFont(descriptionFont(option.font));
    QColor grey = text;
    grey.setAlphaF(0.72f);
    painter->setPen(grey);
    painter->drawText(QRect(r.left(), r.top() + nameMetrics.height(), r.width(),
                            r.height() - nameMetrics.height()),
                      Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop,
                      index.data(models::StrategyListModel::DescriptionRole).toString());
    painter->restore();
}

QSize StrategyDelegate::sizeHint(const QStyleOptionViewItem& option,
                                 const QModelIndex& index) const {
    int width = option.rect.width();
    if (const auto* view = qobject_cast<const QAbstractItemView*>(option.widget)) {
        width = view->viewport()->width();
    }
    width = std::max(width, 160);
    QStyleOptionViewItem opt = option;
    opt.rect = QRect(0, 0, width, 100);
    const QRect r = textRect(opt, index);
    const QFontMetrics nameMetrics(nameFont(option.font));
    const QFontMetrics descMetrics(descriptionFont(option.font));
    const QRect desc =
        descMetrics.boundingRect(QRect(0, 0, std::max(60, r.width()), 1000), Qt::TextWordWrap,
                                 index.data(models::StrategyListModel::DescriptionRole).toString());
    return QSize(width, nameMetrics.height() + desc.height() + 3 * kPadding);
}

} // namespace slicescope::gui
