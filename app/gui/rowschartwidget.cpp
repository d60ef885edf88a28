#include "gui/rowschartwidget.h"

#include "models/viewstate.h"

#include <QEvent>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <cmath>

namespace slicescope::gui {

namespace {
constexpr double kMarginPx = 2;
// Below this width the chart is drawn at this width and the pane scrolls sideways: its label,
// bar and value columns need some room each.
constexpr int kMinWidthPx = 200;
} // namespace

RowsChartWidget::RowsChartWidget(models::ViewState* state, QWidget* parent)
    : QWidget(parent), state_(state) {
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

void RowsChartWidget::setChart(RowsChart chart) {
    chart_ = std::move(chart);
    fitHeight();
    update();
}

QStringList RowsChartWidget::rowIds() const {
    QStringList ids;
    for (const auto& row : chart_.rows) {
        ids << row.id;
    }
    return ids;
}

int RowsChartWidget::heightForWidth(int width) const {
    const double inner = std::max(width, kMinWidthPx) - 2 * kMarginPx;
    return int(std::ceil(RowsChartPainter::preferredHeight(chart_, inner, this) + 2 * kMarginPx));
}

QSize RowsChartWidget::sizeHint() const {
    return {320, heightForWidth(320)};
}

QSize RowsChartWidget::minimumSizeHint() const {
    return {kMinWidthPx, heightForWidth(kMinWidthPx)};
}

void RowsChartWidget::fitHeight() {
    setFixedHeight(heightForWidth(width()));
}

void RowsChartWidget::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing, false);
    rowRects_ = RowsChartPainter::paint(
        painter, QRectF(rect()).adjusted(kMarginPx, kMarginPx, -kMarginPx, -kMarginPx), chart_);
}

void RowsChartWidget::resizeEvent(QResizeEvent*) {
    fitHeight();
}

void RowsChartWidget::mousePressEvent(QMouseEvent* event) {
    const int row = rowAt(event->position());
    if (row >= 0 && !chart_.rows[row].id.isEmpty()) {
        state_->setSelectedRun(chart_.rows[row].id);
    }
}

bool RowsChartWidget::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int row = rowAt(help->pos());
        if (row >= 0) {
            QToolTip::showText(help->globalPos(), chart_.rows[row].tooltip, this);
        } else if (!toolTip().isEmpty()) {
            QToolTip::showText(help->globalPos(), toolTip(), this);
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    return QWidget::event(event);
}

int RowsChartWidget::rowAt(const QPointF& pos) const {
    for (int i = 0; i < rowRects_.size() && i < chart_.rows.size(); ++i) {
        if (rowRects_[i].contains(pos)) {
            return i;
        }
    }
    return -1;
}

} // namespace slicescope::gui
