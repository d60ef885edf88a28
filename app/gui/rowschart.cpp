#include "gui/rowschart.h"

#include "gui/elideapart.h"
#include "gui/theme.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QScopeGuard>
#include <algorithm>
#include <cmath>
#include <span>

namespace slicescope::gui {

namespace {

constexpr double kRowPad = 7; // above and below the bars of a row
// A chart narrower than this many average characters puts each row's label over its bars when
// the label column would cut a label: the bars keep the width, the label its words.
constexpr double kNarrowChars = 48;
constexpr double kLabelGap = 10; // between the label column and the bars
constexpr double kValueGap = 4;  // between a bar's end and its value text

struct Fonts {
    QFont title = theme::plotFont(10.5, true);
    QFont text = theme::plotFont(9);
};

// Over the first `rows` rows: the ones drawn.
double stackedMax(const RowsChart& chart, int rows) {
    double best = 0;
    for (const auto& row :
         std::span(chart.rows).first(std::min(std::size_t(rows), std::size_t(chart.rows.size())))) {
        for (const auto& bar : row.bars) {
            double sum = 0;
            for (const auto& s : bar.segments) {
                sum += std::max(0.0, s.value);
            }
            best = std::max(best, sum);
        }
    }
    return best;
}

double smallestPositive(const RowsChart& chart, int rows) {
    double best = 0;
    for (const auto& row :
         std::span(chart.rows).first(std::min(std::size_t(rows), std::size_t(chart.rows.size())))) {
        for (const auto& bar : row.bars) {
            for (const auto& s : bar.segments) {
                if (s.value > 0 && (best == 0 || s.value < best)) {
                    best = s.value;
                }
            }
        }
    }
    return best;
}

// The value axis: [lower, upper], linear or log10.
struct Scale {
    bool log = false;
    double lower = 0, upper = 1;
    double left = 0, right = 1;
    double x(double v) const {
        if (log) {
            const double lv = std::log10(std::max(v, lower));
            return left + (lv - std::log10(lower)) / (std::log10(upper) - std::log10(lower)) *
                              (right - left);
        }
        return left + std::clamp(v, lower, upper) / upper * (right - left);
    }
};

// From the rows drawn: a slide that shows 11 of 28 runs scales its bars to those 11, not to a run
// 100 times longer that it does not show.
Scale makeScale(const RowsChart& chart, int shownRows) {
    Scale s;
    s.log = chart.log;
    const double top =
        chart.maxValue > 0 ? chart.maxValue : std::max(stackedMax(chart, shownRows), 1e-9);
    if (s.log) {
        const double low = std::max(smallestPositive(chart, shownRows), top * 1e-7);
        s.lower = std::pow(10.0, std::floor(std::log10(std::max(low, 1e-12))));
        s.upper = std::pow(10.0, std::ceil(std::log10(top)));
        if (s.upper <= s.lower) {
            s.upper = s.lower * 10;
        }
    } else {
        s.lower = 0;
        s.upper = top;
    }
    return s;
}

QString tickLabel(const RowsChart& chart, double v, double top) {
    return chart.tickText ? chart.tickText(v, top) : QString::number(v);
}

// Ticks whose labels fit side by side in the plot width.
QVector<double> chooseTicks(const RowsChart& chart, Scale& scale, const QFontMetricsF& fm) {
    const double width = scale.right - scale.left;
    auto fits = [&](const QVector<double>& ticks) {
        double widest = 0;
        const double top = ticks.isEmpty() ? 0 : ticks.back();
        for (double t : ticks) {
            widest = std::max(widest, fm.horizontalAdvance(tickLabel(chart, t, top)));
        }
        return ticks.size() <= 1 || double(ticks.size()) * (widest + 14) <= width;
    };
    if (!chart.ticks.isEmpty()) {
        QVector<double> ticks = chart.ticks;
        while (!fits(ticks) && ticks.size() > 2) {
            QVector<double> every;
            for (int i = 0; i < ticks.size(); i += 2) {
                every << ticks[i];
            }
            ticks = every;
        }
        return ticks;
    }
    if (scale.log) {
        const int first = int(std::lround(std::log10(scale.lower)));
        const int last = int(std::lround(std::log10(scale.upper)));
        for (int every = 1; every <= 12; ++every) {
            QVector<double> ticks;
            for (int e = first; e <= last; e += every) {
                ticks << std::pow(10.0, e);
            }
            if (fits(ticks)) {
                return ticks;
            }
        }
        return {scale.lower, scale.upper};
    }
    const double magnitude = std::pow(10.0, std::floor(std::log10(scale.upper)));
    for (double factor : {0.1, 0.2, 0.25, 0.5, 1.0, 2.0, 2.5, 5.0, 10.0}) {
        const double step = magnitude * factor;
        QVector<double> ticks;
        for (double t = 0; t <= scale.upper * (1 + 1e-9); t += step) {
            ticks << t;
        }
        if (ticks.size() >= 2 && fits(ticks)) {
            // The axis ends at a tick, so the longest bar ends inside the labelled range.
            if (ticks.back() < scale.upper * (1 - 1e-9)) {
                ticks << ticks.back() + step;
            }
            scale.upper = ticks.back();
            return ticks;
        }
    }
    return {0.0, scale.upper};
}

struct LegendPlace {
    QRectF swatch;
    QRectF text;
    QString shown;
};

// The legend's items in lines across the area, an item that does not fit on a line of its own
// wrapped over as many as it needs.
QVector<LegendPlace> layoutLegend(const RowsChart& chart, const QRectF& area,
                                  const QFontMetricsF& fm, double* height) {
    QVector<LegendPlace> out;
    const double lineH = fm.height();
    const double swatchW = lineH * 0.9;
    const double maxText = std::max(10.0, area.width() - swatchW - 4);
    double x = area.left();
    double y = area.top();
    double lineBottom = y + lineH;
    for (const auto& item : chart.legend) {
        const double textW = fm.horizontalAdvance(item.text);
        const double w = swatchW + 4 + std::min(textW, maxText);
        if (x > area.left() && x + w > area.right()) {
            x = area.left();
            y = lineBottom + 2;
        }
        const double textH =
            textW <= maxText
                ? lineH
                : fm.boundingRect(QRectF(0, 0, maxText, 1e6), Qt::TextWordWrap, item.text).height();
        LegendPlace place;
        place.swatch = QRectF(x, y + lineH * 0.15, swatchW, lineH * 0.7);
        place.text = QRectF(x + swatchW + 4, y, std::min(textW, maxText) + 1, textH);
        place.shown = item.text;
        out << place;
        lineBottom = std::max(lineBottom, y + textH);
        x += w + 14;
    }
    *height = chart.legend.isEmpty() ? 0 : lineBottom - area.top();
    return out;
}

// The title's height wrapped at width: it takes as many lines as it needs, never cut.
double titleHeight(const RowsChart& chart, const QFontMetricsF& fm, double width) {
    return fm.boundingRect(QRectF(0, 0, std::max(10.0, width), 1e6), Qt::TextWordWrap, chart.title)
        .height();
}

int maxBars(const RowsChart& chart) {
    int bars = 1;
    for (const auto& row : chart.rows) {
        bars = std::max(bars, int(row.bars.size()));
    }
    return bars;
}

// The height of one bar and its value text in a full row: a little more than a line, so the
// value texts of a row's bars keep apart.
double barSlot(double lineH) {
    return std::ceil(lineH * 1.12);
}

// A full row: its label beside its bars (one or two lines), or over them (one line).
double fullRowHeight(const ChartRow& row, int bars, double lineH, bool labelsAbove) {
    if (labelsAbove) {
        return lineH + double(bars) * barSlot(lineH) + 2 * kRowPad;
    }
    const int labelLines = row.subLabel.isEmpty() ? 1 : 2;
    return std::max(double(labelLines) * lineH, double(bars) * barSlot(lineH)) + 2 * kRowPad;
}

// Whether full rows put their labels over their bars: in a chart narrow for its font (the pane
// beside the timeline, with large text) whose label column, at most 42 % of the width, would cut
// a label.
bool labelsAbove(const RowsChart& chart, double width, const QFontMetricsF& fm) {
    if (width >= kNarrowChars * fm.averageCharWidth()) {
        return false;
    }
    return std::any_of(chart.rows.begin(), chart.rows.end(), [&](const ChartRow& row) {
        return std::max(fm.horizontalAdvance(row.label), fm.horizontalAdvance(row.subLabel)) + 1 >
               width * 0.42;
    });
}

QColor inkColor() {
    return {0x22, 0x22, 0x22};
}
QColor greyColor() {
    return {0x5a, 0x5a, 0x5a};
}

// Where paint puts the rows in its rectangle: full rows (two-line labels, value texts) when they
// fit, else compact ones, else as many compact rows as fit; the label and value columns and the
// value scale between them.
struct RowsLayout {
    bool compact = false;
    bool above = false; // full rows with their labels over their bars
    int shown = 0;
    int bars = 1;
    double lineH = 0;
    double labelW = 0;
    double valueW = 0;
    Scale scale;
    double rowHeight(const ChartRow& row) const {
        return compact ? lineH + 4 : fullRowHeight(row, bars, lineH, above);
    }
    // The label on one line: compact rows and labels over the bars.
    bool oneLine() const { return compact || above; }
    QString labelOf(const ChartRow& row) const {
        return oneLine() && !row.subLabel.isEmpty()
                   ? row.label + QStringLiteral(" \u00b7 ") + row.subLabel
                   : row.label;
    }
};

// A compact row's one line of figures: its bars' value texts side by side, so a slide of many
// runs keeps every run's figures (the paper's full rows put each after its bar).
QString compactValues(const ChartRow& row) {
    QStringList values;
    for (const auto& bar : row.bars) {
        if (bar.segments.isEmpty() && !bar.valueText.isEmpty()) {
            values << QStringLiteral("\u2013"); // a figure the row lacks (its words: full rows)
        } else if (!bar.valueText.isEmpty()) {
            values << bar.valueText;
        }
    }
    return values.join(QStringLiteral(" \u00b7 "));
}

RowsLayout layOutRows(const RowsChart& chart, const QRectF& rect, const QFontMetricsF& fm,
                      double available) {
    RowsLayout layout;
    layout.lineH = fm.height();
    layout.bars = maxBars(chart);
    layout.above = labelsAbove(chart, rect.width(), fm);
    double full = 0;
    for (const auto& row : chart.rows) {
        full += fullRowHeight(row, layout.bars, layout.lineH, layout.above);
    }
    layout.compact = full > available;
    layout.above = layout.above && !layout.compact;
    const double compactRow = layout.lineH + 4;
    layout.shown = int(chart.rows.size());
    if (layout.compact && double(layout.shown) * compactRow > available) {
        layout.shown = std::max(0, int((available - layout.lineH) / compactRow));
    }
    double labelW = 0;
    double valueW = 0;
    for (int i = 0; i < layout.shown; ++i) {
        const auto& row = chart.rows[i];
        labelW = std::max(labelW, fm.horizontalAdvance(layout.labelOf(row)));
        if (!layout.compact) {
            labelW = std::max(labelW, fm.horizontalAdvance(row.subLabel));
            for (const auto& bar : row.bars) {
                valueW = std::max(valueW, bar.valueText.isEmpty()
                                              ? 0.0
                                              : fm.horizontalAdvance(bar.valueText) + kValueGap);
            }
        } else if (const QString values = compactValues(row); !values.isEmpty()) {
            valueW = std::max(valueW, fm.horizontalAdvance(values) + kValueGap);
        }
    }
    layout.labelW =
        layout.above ? rect.width() : std::min(std::ceil(labelW) + 1, rect.width() * 0.42);
    layout.valueW = std::ceil(valueW) + 2;
    // The bars keep a fifth of the width: where labels and figures leave less, the labels give
    // way (cut, kept apart) to a fifth, then the figures are cut at their end.
    const double barsMin = std::max(30.0, rect.width() * 0.2);
    const auto barsW = [&] {
        return rect.width() - (layout.above ? 2 : layout.labelW + kLabelGap) - layout.valueW - 2;
    };
    if (!layout.above && barsW() < barsMin) {
        layout.labelW = std::max(std::min(layout.labelW, rect.width() * 0.2),
                                 layout.labelW - (barsMin - barsW()));
    }
    if (barsW() < barsMin) {
        layout.valueW = std::max(0.0, layout.valueW - (barsMin - barsW()));
    }
    layout.scale = makeScale(chart, layout.shown);
    layout.scale.left = layout.above ? rect.left() + 2 : rect.left() + layout.labelW + kLabelGap;
    layout.scale.right = rect.right() - layout.valueW - 2;
    return layout;
}

// A row's label: one line (the name, then the second line's words in grey after it), or two.
// Names are cut by elide, which keeps different names apart.
void paintRowLabel(QPainter& painter, const QFontMetricsF& fm, const ChartRow& row,
                   const QRectF& rowRect, const RowsLayout& layout, ElideApart& elide) {
    const double lineH = layout.lineH;
    const double labelW = layout.labelW;
    painter.setPen(inkColor());
    if (!layout.oneLine() && !row.subLabel.isEmpty()) {
        const double top = rowRect.top() + (rowRect.height() - 2 * lineH) / 2;
        painter.drawText(QRectF(rowRect.left(), top, labelW, lineH),
                         Qt::AlignLeft | Qt::AlignVCenter, elide.elided(row.label, labelW));
        painter.setPen(greyColor());
        painter.drawText(QRectF(rowRect.left(), top + lineH, labelW, lineH),
                         Qt::AlignLeft | Qt::AlignVCenter,
                         fm.elidedText(row.subLabel, Qt::ElideRight, labelW));
        return;
    }
    // When name and words do not fit, the words give way before the name does. Over the bars,
    // the line at the row's top.
    const double top =
        layout.above ? rowRect.top() + kRowPad : rowRect.top() + (rowRect.height() - lineH) / 2;
    const QString separator = QStringLiteral(" \u00b7 ");
    QString name = row.label;
    QString rest =
        layout.oneLine() && !row.subLabel.isEmpty() ? separator + row.subLabel : QString();
    if (fm.horizontalAdvance(name + rest) > labelW) {
        // The name whole with a few letters of the words after it; else the name alone, cut.
        const double minRest =
            rest.isEmpty() ? 0
                           : fm.horizontalAdvance(rest.left(separator.size() + 3) + QChar(0x2026));
        if (fm.horizontalAdvance(name) + minRest <= labelW) {
            rest = fm.elidedText(rest, Qt::ElideRight, labelW - fm.horizontalAdvance(name));
        } else {
            rest.clear();
            name = elide.elided(row.label, labelW);
        }
    }
    const double nameW = fm.horizontalAdvance(name);
    painter.drawText(QRectF(rowRect.left(), top, nameW + 1, lineH),
                     Qt::AlignLeft | Qt::AlignVCenter, name);
    if (!rest.isEmpty()) {
        painter.setPen(greyColor());
        painter.drawText(QRectF(rowRect.left() + nameW, top, labelW - nameW, lineH),
                         Qt::AlignLeft | Qt::AlignVCenter, rest);
    }
}

// A row's bars, each its segments stacked, and in full rows its value text after it.
void paintRowBars(QPainter& painter, const ChartRow& row, const QRectF& rowRect,
                  const RowsLayout& layout) {
    const double h = rowRect.height();
    const double rowY = rowRect.top();
    const Scale& scale = layout.scale;
    const int n = std::max<int>(1, int(row.bars.size()));
    const double slot = layout.compact ? (h - 4) / n : barSlot(layout.lineH);
    const double barsTop = layout.compact ? rowY + 2
                           : layout.above ? rowY + kRowPad + layout.lineH
                                          : rowY + (h - n * slot) / 2;
    for (int b = 0; b < row.bars.size(); ++b) {
        const RowBar& bar = row.bars[b];
        const double thickness = std::max(1.0, slot * (layout.compact ? 0.85 : 0.72));
        const double top = barsTop + b * slot + (slot - thickness) / 2;
        double sum = 0;
        double x0 = scale.x(scale.log ? scale.lower : 0);
        for (const auto& seg : bar.segments) {
            if (seg.value <= 0) {
                continue;
            }
            sum += seg.value;
            const double x1 = scale.x(sum);
            if (x1 > x0) {
                fillHatched(painter, QRectF(x0, top, std::max(0.75, x1 - x0), thickness), seg.color,
                            row.hatched);
            }
            x0 = std::max(x0, x1);
        }
        if (!layout.compact && !bar.valueText.isEmpty()) {
            painter.setPen(inkColor());
            painter.drawText(QRectF(x0 + kValueGap, barsTop + b * slot, layout.valueW, slot),
                             Qt::AlignLeft | Qt::AlignVCenter, bar.valueText);
        }
    }
    if (layout.compact) {
        if (const QString values = compactValues(row); !values.isEmpty()) {
            painter.setPen(inkColor());
            const double room = layout.valueW - kValueGap;
            painter.drawText(QRectF(scale.right + kValueGap, rowY, room, h),
                             Qt::AlignLeft | Qt::AlignVCenter,
                             QFontMetricsF(painter.font(), painter.device())
                                 .elidedText(values, Qt::ElideRight, room));
        }
    }
}

// The value axis under the rows at y: a base line, tick labels that never collide or leave the
// rectangle, the axis label.
void paintValueAxis(QPainter& painter, const QFontMetricsF& fm, const RowsChart& chart,
                    const QRectF& rect, const RowsLayout& layout, const QVector<double>& ticks,
                    double y) {
    const Scale& scale = layout.scale;
    const double lineH = layout.lineH;
    painter.setPen(QPen(QColor(0x99, 0x99, 0x99), 0));
    painter.drawLine(QPointF(scale.left, y + 1), QPointF(scale.right, y + 1));
    const double tickY = y + 2;
    double lastRight = -1e9;
    painter.setPen(greyColor());
    for (double t : ticks) {
        const QString text = tickLabel(chart, t, ticks.back());
        const double w = fm.horizontalAdvance(text) + 1;
        double left = std::clamp(scale.x(t) - w / 2, rect.left(), rect.right() - w);
        if (left < lastRight + 6) {
            continue;
        }
        painter.drawText(QRectF(left, tickY, w, lineH), Qt::AlignCenter, text);
        lastRight = left + w;
    }
    if (!chart.axisLabel.isEmpty()) {
        const QString label = fm.elidedText(chart.axisLabel, Qt::ElideRight, rect.width());
        const double w = fm.horizontalAdvance(label) + 1;
        const double left =
            std::clamp((scale.left + scale.right) / 2 - w / 2, rect.left(), rect.right() - w);
        painter.drawText(QRectF(left, tickY + lineH + 2, w, lineH), Qt::AlignCenter, label);
    }
}

// A chart with no rows: its empty text under the title, where it fits.
void paintEmptyText(QPainter& painter, const RowsChart& chart, const QRectF& area) {
    painter.setPen(greyColor());
    const QRectF need = painter.boundingRect(area, Qt::TextWordWrap, chart.emptyText);
    if (need.height() <= area.height() + 0.5) {
        painter.drawText(area, Qt::TextWordWrap, chart.emptyText);
    }
}

// Not even one row fits under the title: a line saying so, where one fits.
void paintNoRoomForRows(QPainter& painter, const QFontMetricsF& fm, const RowsChart& chart,
                        const QRectF& rect, double y) {
    if (y + fm.height() > rect.bottom() + 0.5) {
        return;
    }
    painter.setPen(greyColor());
    painter.drawText(
        QRectF(rect.left(), y, rect.width(), fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
        fm.elidedText(
            QStringLiteral("%1 %2 not shown: export this view alone or fewer runs")
                .arg(chart.rows.size())
                .arg(chart.rows.size() == 1 ? QStringLiteral("row") : QStringLiteral("rows")),
            Qt::ElideRight, rect.width()));
}

} // namespace

void fillHatched(QPainter& painter, const QRectF& rect, const QColor& color, bool hatched) {
    if (hatched) {
        painter.fillRect(rect, color.lighter(135));
        QBrush brush(color.darker(150), Qt::BDiagPattern);
        painter.fillRect(rect, brush);
    } else {
        painter.fillRect(rect, color);
    }
}

double RowsChartPainter::preferredHeight(const RowsChart& chart, double width,
                                         const QPaintDevice* device) {
    const Fonts fonts;
    const QFontMetricsF title(fonts.title, device);
    const QFontMetricsF fm(fonts.text, device);
    double legendHeight = 0;
    layoutLegend(chart, QRectF(0, 0, width, 1e6), fm, &legendHeight);
    double height = titleHeight(chart, title, width) + 4 + legendHeight + 6;
    if (chart.rows.isEmpty()) {
        return height + 3 * fm.height();
    }
    const int bars = maxBars(chart);
    const bool above = labelsAbove(chart, width, fm);
    for (const auto& row : chart.rows) {
        height += fullRowHeight(row, bars, fm.height(), above);
    }
    return height + 2 * fm.height() + 8;
}

double RowsChartPainter::compactHeight(const RowsChart& chart, double width,
                                       const QPaintDevice* device) {
    if (chart.rows.isEmpty()) {
        return preferredHeight(chart, width, device);
    }
    const Fonts fonts;
    const QFontMetricsF title(fonts.title, device);
    const QFontMetricsF fm(fonts.text, device);
    double legendHeight = 0;
    layoutLegend(chart, QRectF(0, 0, width, 1e6), fm, &legendHeight);
    const double footer = fm.height() + 2 + (chart.axisLabel.isEmpty() ? 0 : fm.height()) + 4;
    return titleHeight(chart, title, width) + 4 + legendHeight + 6 +
           double(chart.rows.size()) * (fm.height() + 4) + footer + 1;
}

QVector<QRectF> RowsChartPainter::paint(QPainter& painter, const QRectF& rect,
                                        const RowsChart& chart) {
    QVector<QRectF> rowRects;
    const Fonts fonts;
    painter.save();
    const auto restore = qScopeGuard([&painter] { painter.restore(); });
    const QFontMetricsF titleFm(fonts.title, painter.device());
    const QFontMetricsF fm(fonts.text, painter.device());
    const double lineH = fm.height();

    double y = rect.top();
    painter.setFont(fonts.title);
    painter.setPen(inkColor());
    // The title on as many lines as it needs; where they do not fit, one line cut short.
    const double titleH = titleHeight(chart, titleFm, rect.width());
    if (titleH + lineH <= rect.height()) {
        painter.drawText(QRectF(rect.left(), y, rect.width(), titleH), Qt::TextWordWrap,
                         chart.title);
        y += titleH + 4;
    } else {
        if (titleFm.height() <= rect.height()) {
            painter.drawText(QRectF(rect.left(), y, rect.width(), titleFm.height()),
                             Qt::AlignLeft | Qt::AlignVCenter,
                             titleFm.elidedText(chart.title, Qt::ElideRight, rect.width()));
        }
        y += titleFm.height() + 4;
    }
    painter.setFont(fonts.text);
    if (chart.rows.isEmpty()) {
        paintEmptyText(painter, chart,
                       QRectF(rect.left(), y, rect.width(), std::max(0.0, rect.bottom() - y)));
        return rowRects;
    }

    double legendHeight = 0;
    const auto legend =
        layoutLegend(chart, QRectF(rect.left(), y, rect.width(), lineH), fm, &legendHeight);
    const double footer = lineH + 2 + (chart.axisLabel.isEmpty() ? 0 : lineH) + 4;
    const double rowsTop = y + legendHeight + 6;
    const double available = rect.bottom() - footer - rowsTop;
    if (available < lineH + 4) {
        paintNoRoomForRows(painter, fm, chart, rect, y);
        return rowRects;
    }
    for (const auto& place : legend) {
        const auto& item = chart.legend[int(&place - legend.data())];
        fillHatched(painter, place.swatch, item.color, item.hatched);
        painter.setPen(inkColor());
        painter.drawText(place.text, Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap,
                         place.shown);
    }

    RowsLayout layout = layOutRows(chart, rect, fm, available);
    if (layout.scale.right - layout.scale.left < 30) {
        return rowRects;
    }
    const QVector<double> ticks = chooseTicks(chart, layout.scale, fm);
    double rowsBottom = rowsTop;
    for (int i = 0; i < layout.shown; ++i) {
        rowsBottom += layout.rowHeight(chart.rows[i]);
    }
    painter.setPen(QPen(QColor(0xe4, 0xe4, 0xe4), 0));
    for (double t : ticks) {
        const double x = layout.scale.x(t);
        painter.drawLine(QPointF(x, rowsTop), QPointF(x, rowsBottom));
    }
    QStringList labels;
    labels.reserve(layout.shown);
    for (int i = 0; i < layout.shown; ++i) {
        labels << chart.rows[i].label;
    }
    ElideApart elide(labels, fm);
    double rowY = rowsTop;
    for (int i = 0; i < layout.shown; ++i) {
        const ChartRow& row = chart.rows[i];
        const QRectF rowRect(rect.left(), rowY, rect.width(), layout.rowHeight(row));
        rowRects << rowRect;
        if (row.selected) {
            painter.fillRect(rowRect, QColor(0xff, 0xf3, 0xc4));
        }
        paintRowLabel(painter, fm, row, rowRect, layout, elide);
        paintRowBars(painter, row, rowRect, layout);
        rowY += rowRect.height();
    }
    if (layout.shown < chart.rows.size()) {
        painter.setPen(greyColor());
        const QString more =
            QStringLiteral("+ %1 more not shown: export this view alone or fewer runs")
                .arg(chart.rows.size() - layout.shown);
        painter.drawText(QRectF(rect.left(), rowY, rect.width(), lineH),
                         Qt::AlignLeft | Qt::AlignVCenter,
                         fm.elidedText(more, Qt::ElideRight, rect.width()));
        rowY += lineH;
    }
    paintValueAxis(painter, fm, chart, rect, layout, ticks, rowY);
    return rowRects;
}

LegendItem hatchedLegend(const QStringList& predicted) {
    return LegendItem{QStringLiteral("hatched: ") + predicted.join(QStringLiteral(" or ")),
                      QColor(0x88, 0x88, 0x88), true};
}

} // namespace slicescope::gui
