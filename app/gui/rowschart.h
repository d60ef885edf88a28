#pragma once

#include <QColor>
#include <QRectF>
#include <QString>
#include <QStringList>
#include <QVector>
#include <functional>

class QPainter;
class QPaintDevice;

namespace slicescope::gui {

// A chart of one horizontal bar group per run, painted with QPainter so that the window and every
// export lay it out by the same rules: labels elided (in the middle) to their column, value texts
// in a column of their own, tick labels spaced by their width, and rows that do not fit left out
// with a line saying so. Nothing it draws overlaps other text or leaves its rectangle.
struct RowSegment {
    double value = 0; // stacked from 0 (linear) or from the axis minimum (log)
    QColor color;
};

struct RowBar {
    QVector<RowSegment> segments;
    QString valueText; // after the bar; may be empty
};

struct ChartRow {
    QString id;       // the run the row belongs to: a click on it in the window selects the run
    QString label;    // full name: elided to fit, shown whole in the tooltip
    QString subLabel; // second line (device, "modelled"); may be empty
    QString tooltip;
    bool hatched = false; // modelled: hatched, never passing for a measurement
    bool selected = false;
    QVector<RowBar> bars; // one under another in the row
};

struct LegendItem {
    QString text;
    QColor color;
    bool hatched = false;
};

// The legend entry saying what hatched rows are ("hatched: modelled or projected").
LegendItem hatchedLegend(const QStringList& predicted);

struct RowsChart {
    QString title;
    QString axisLabel;
    QString emptyText; // shown when there are no rows
    QVector<ChartRow> rows;
    QVector<LegendItem> legend;
    bool log = false;
    double maxValue = 0;   // 0: the largest stacked bar
    QVector<double> ticks; // empty: chosen to fit
    // A tick's label, given the axis's largest tick (so that a linear axis can read in one
    // unit); empty: the number.
    std::function<QString(double value, double axisTop)> tickText;
};

class RowsChartPainter {
  public:
    // The height that shows every row in full (two-line labels, value texts) at width.
    static double preferredHeight(const RowsChart& chart, double width, const QPaintDevice* device);
    // The height that shows every row compact (one line, no value texts) at width.
    static double compactHeight(const RowsChart& chart, double width, const QPaintDevice* device);
    // Paints chart into rect and returns the rectangle of each row drawn (rows left out: none).
    // When the rows do not fit in full they are drawn compact (one line, no value texts), and
    // when not even so, the first ones that fit and a line naming how many are left out.
    static QVector<QRectF> paint(QPainter& painter, const QRectF& rect, const RowsChart& chart);
};

// Colours for the modelled hatch: the colour with a darker diagonal pattern over it.
void fillHatched(QPainter& painter, const QRectF& rect, const QColor& color, bool hatched);

} // namespace slicescope::gui
