#pragma once

#include "gui/rowschart.h"

#include <QStringList>
#include <QWidget>

namespace slicescope::models {
class ViewState;
} // namespace slicescope::models

namespace slicescope::gui {

// A RowsChart in the window, painted by RowsChartPainter as every export paints it: as tall as
// its rows need in full at its width (the pane beside the timeline scrolls rather than squeezing
// them), never wider than it is given (labels elide to their column, the legend wraps), each
// row's tooltip on hover, and a click on a row selects the row's run (ChartRow::id).
class RowsChartWidget : public QWidget {
    Q_OBJECT
  public:
    explicit RowsChartWidget(models::ViewState* state, QWidget* parent = nullptr);

    void setChart(RowsChart chart);
    const RowsChart& chart() const { return chart_; }
    // The run of each row, top first.
    QStringList rowIds() const;
    // Where the last paint drew each row, in the widget's coordinates (rows left out: none).
    const QVector<QRectF>& rowRects() const { return rowRects_; }
    // The height that shows every row in full at width.
    int heightForWidth(int width) const override;
    bool hasHeightForWidth() const override { return true; }
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

  protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

  private:
    // The fixed height heightForWidth gives at the current width.
    void fitHeight();
    int rowAt(const QPointF& pos) const;

    models::ViewState* state_;
    RowsChart chart_;
    QVector<QRectF> rowRects_;
};

} // namespace slicescope::gui
