#include "gui/sweepplot.h"

#include "gui/sweepparams.h"
#include "gui/theme.h"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QLocale>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <vector>

namespace slicescope::gui::sweepplot {

namespace {

// The chart's strings keep the window's translation context.
QString tr(const char* text) {
    return QCoreApplication::translate("slicescope::gui::SweepChart", text);
}

// Up to this many runs on a roofline are named one by one, in the legend and the notes.
constexpr int kNamedRoofRuns = 7; // one colour each

// The axis title as drawn, before layOut elided it to its axis.
constexpr char kWholeLabel[] = "slicescopeWholeLabel";

// A text ticker's every tick, before layOut thinned them to the plot's width.
constexpr char kAllTicks[] = "slicescopeAllTicks";

// A crossover's label, found again by layOut.
constexpr char kCrossoverLabel[] = "crossoverLabel";

// A graph's points with their hover words: a list of {x, y, text}, in plot coordinates.
constexpr char kTips[] = "slicescopeTips";

void addTip(QCPGraph* graph, double x, double y, const QString& text) {
    QVariantList tips = graph->property(kTips).toList();
    tips << QVariant(QVariantList{x, y, text});
    graph->setProperty(kTips, tips);
}

QString number(double value) {
    return std::abs(value) >= 100 ? QLocale().toString(value, 'f', 0)
                                  : QString::number(value, 'g', 3);
}

// Log ticks labelled as plain numbers ("1,000", "0.01"): QCustomPlot's "10³" draws its
// exponent smaller than 9 pt, too small for an export. QCustomPlot puts them at powers of ten
// only, which leaves a range of two decades two labels (0.3 to 30 ms: "1" and "10"); these are
// the densest of 1-2-3-…-9, 1-2-5, 1-3 and 1 of each decade (then every few decades) that gives
// no more ticks than asked, and evenly spaced ticks within a decade. Fewer ticks are asked for
// where labels touch (thinTickLabels).
class PlainLogTicker : public QCPAxisTickerLog {
  protected:
    QString getTickLabel(double tick, const QLocale&, QChar, int) override { return number(tick); }

    int getSubTickCount(double) override { return decadeSubTicks_; }

    QVector<double> createTickVector(double tickStep, const QCPRange& range) override {
        decadeSubTicks_ = 0;
        if (!std::isfinite(range.lower) || !std::isfinite(range.upper) || range.lower <= 0 ||
            range.upper <= range.lower) {
            return QCPAxisTickerLog::createTickVector(tickStep, range);
        }
        const double decades = std::log10(range.upper / range.lower);
        if (decades < 1) {
            return QCPAxisTicker::createTickVector(QCPAxisTicker::getTickStep(range), range);
        }
        const int wanted = std::max(2, tickCount()) + 1;
        const std::vector<std::vector<double>> mantissas = {
            {1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 2, 5}, {1, 3}, {1}};
        for (const auto& each : mantissas) {
            QVector<double> ticks = ticksAt(each, 1, range);
            if (inside(ticks, range) <= wanted) {
                decadeSubTicks_ = each.size() == 1 ? 8 : 0; // 2 … 9 between the decades
                return ticks;
            }
        }
        return ticksAt({1}, int(std::ceil(decades / wanted)), range);
    }

  private:
    // Each mantissa of every everyDecades-th decade, from the one below range to the one above
    // (QCustomPlot keeps a tick either side of the range for the sub-ticks beyond the last).
    static QVector<double> ticksAt(const std::vector<double>& mantissas, int everyDecades,
                                   const QCPRange& range) {
        QVector<double> ticks;
        const int first = int(std::floor(std::log10(range.lower) / everyDecades)) * everyDecades;
        const int last = int(std::ceil(std::log10(range.upper) / everyDecades)) * everyDecades;
        for (int exponent = first; exponent <= last; exponent += everyDecades) {
            for (double m : mantissas) {
                ticks << m * std::pow(10.0, exponent);
            }
        }
        return ticks;
    }

    static int inside(const QVector<double>& ticks, const QCPRange& range) {
        return int(std::count_if(ticks.cbegin(), ticks.cend(),
                                 [&](double t) { return range.contains(t); }));
    }

    int decadeSubTicks_ = 0;
};

} // namespace

void useLogAxis(QCPAxis* axis) {
    axis->setScaleType(QCPAxis::stLogarithmic);
    axis->setTicker(QSharedPointer<QCPAxisTickerLog>(new PlainLogTicker));
}

namespace {

// Ticks at the sweep's own values (32, 64, ... on a log axis): what the user chose.
void tickAtValues(QCPAxis* axis, const QVector<double>& numbers, const QStringList& values) {
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (int i = 0; i < numbers.size(); ++i) {
        ticker->addTick(numbers[i], values.value(i));
    }
    axis->setTicker(ticker);
}

// The plot's layout at its viewport (axes, margins, tick labels), without painting: what
// QCustomPlot::replot does before it draws every layer. layOut measures between its steps; the
// window's chart is repainted once afterwards, and an export draws it with toPainter.
void measure(QCustomPlot* plot) {
    for (const auto phase : {QCPLayoutElement::upPreparation, QCPLayoutElement::upMargins,
                             QCPLayoutElement::upLayout}) {
        plot->plotLayout()->update(phase);
    }
}

// Extent of finite, positive values, widened for a log axis.
QCPRange logRange(const QVector<double>& values) {
    double low = 0, high = 0;
    for (double v : values) {
        if (std::isfinite(v) && v > 0) {
            low = low == 0 ? v : std::min(low, v);
            high = std::max(high, v);
        }
    }
    if (low == 0) {
        return QCPRange(1, 10);
    }
    return QCPRange(low / 1.6, high * 1.6);
}

// Where a crossing is drawn on the x axis: interpolated, or between its two values on the axis
// the values are drawn on (categories, or a point without a time); NaN when a value is missing.
double crossingX(const models::SweepView& sweep, const QVector<double>& x,
                 const trace::Crossover& c) {
    if (sweep.isNumeric() && std::isfinite(c.at)) {
        return c.at;
    }
    const int lo = int(sweep.values.indexOf(QString::fromStdString(c.lowValue)));
    const int hi = int(sweep.values.indexOf(QString::fromStdString(c.highValue)));
    if (lo < 0 || hi < 0) {
        return std::numeric_limits<double>::quiet_NaN();
    }
    return sweep.isNumeric() ? std::sqrt(x[lo] * x[hi]) : (lo + hi) / 2.0;
}

// "slice-2d at block 128: 1.23 ms per repetition, measured (repetitions 0.04 ms apart)".
QString timeTip(const models::SweepView& sweep, const models::SweepLine& line, int i) {
    const double spread = line.spreadNs.value(i, std::numeric_limits<double>::quiet_NaN());
    return tr("%1 at %2 %3: %4 ms per repetition, %5%6")
        .arg(line.strategy, sweep.param, sweep.values.value(i), number(line.timesNs[i] / 1e6),
             line.predicted.isEmpty() ? tr("measured") : line.predicted,
             std::isfinite(spread) ? tr(" (its repetitions %1 ms apart)").arg(number(spread / 1e6))
                                   : QString());
}

// "slice-2d@block=64 (modelled): kernel against device memory, 0.0622 flop/B, 12.3 of 298
// Gflop/s attainable, bandwidth-bound".
QString roofTip(const models::RooflineMark& m, const sweep::RooflinePoint& p, const QString& what) {
    return tr("%1%2: %3\n%4 flop/B, %5 Gflop/s achieved of %6 attainable, %7-bound")
        .arg(m.runId, m.predicted.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(m.predicted),
             what, number(p.intensity), number(p.achievedGflops), number(p.attainableGflops),
             p.bound == sweep::Bound::Compute ? tr("compute") : tr("bandwidth"));
}

QPen withinNoisePen() {
    return QPen(QColor(0x99, 0x99, 0x99), 1.5, Qt::DotLine);
}

} // namespace

QColor lineColor(int i) {
    static const QColor colors[] = {QColor(0x00, 0x72, 0xb2), QColor(0xd5, 0x5e, 0x00),
                                    QColor(0x00, 0x9e, 0x73), QColor(0xcc, 0x79, 0xa7),
                                    QColor(0xe6, 0x9f, 0x00), QColor(0x56, 0xb4, 0xe9),
                                    QColor(0x00, 0x00, 0x00)};
    return colors[i % int(std::size(colors))];
}

void setUp(QCustomPlot* plot) {
    auto* legendRow = new QCPLayoutGrid;
    plot->plotLayout()->addElement(1, 0, legendRow);
    legendRow->setMargins(QMargins(6, 0, 6, 4));
    plot->axisRect()->insetLayout()->take(plot->legend);
    legendRow->addElement(0, 0, plot->legend);
    plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    plot->legend->setWrap(3);
    plot->plotLayout()->setRowStretchFactor(1, 0.001);
}

void reset(QCustomPlot* plot) {
    plot->clearPlottables();
    plot->clearItems();
    plot->xAxis->setScaleType(QCPAxis::stLinear);
    plot->yAxis->setScaleType(QCPAxis::stLinear);
    plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    plot->yAxis2->setVisible(false);
    plot->axisRect()->setVisible(true);
    plot->legend->setVisible(true);
    plot->legend->setFont(theme::plotFont(9));
    for (QCPAxis* axis : {plot->xAxis, plot->yAxis, plot->yAxis2}) {
        axis->setLabelFont(theme::plotFont(10));
        axis->setTickLabelFont(theme::plotFont(9));
        axis->setLabel(QString());
        axis->setProperty(kWholeLabel, QVariant());
        axis->setProperty(kAllTicks, QVariant());
    }
}

QStringList drawTime(QCustomPlot* plot, const models::SweepView& sweep) {
    const bool numeric = sweep.isNumeric();
    QVector<double> x = sweep.numbers;
    if (!numeric) {
        QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
        for (int i = 0; i < sweep.values.size(); ++i) {
            x << i;
            ticker->addTick(i, sweep.values[i]);
        }
        plot->xAxis->setTicker(ticker);
        plot->xAxis->setRange(-0.5, sweep.values.size() - 0.5);
    } else {
        useLogAxis(plot->xAxis);
        tickAtValues(plot->xAxis, x, sweep.values);
        plot->xAxis->setRange(logRange(x));
    }
    useLogAxis(plot->yAxis);
    plot->xAxis->setLabel(sweepParamAxisWords(sweep.param));
    plot->yAxis->setLabel(tr("time per repetition (ms)"));
    QVector<double> all;
    for (int k = 0; k < sweep.lines.size(); ++k) {
        const auto& line = sweep.lines[k];
        auto* graph = plot->addGraph();
        // A mixed sweep names both kinds; otherwise the modelled lines are the marked ones.
        graph->setName(line.strategy + (!line.predicted.isEmpty()
                                            ? QStringLiteral(" (%1)").arg(line.predicted)
                                        : !sweep.basis.isEmpty() ? tr(" (measured)")
                                                                 : QString()));
        QPen pen(lineColor(k), 2);
        if (!line.predicted.isEmpty()) {
            pen.setStyle(Qt::DashLine);
        }
        graph->setPen(pen);
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 7));
        for (int i = 0; i < x.size(); ++i) {
            if (std::isfinite(line.timesNs[i])) {
                graph->addData(x[i], line.timesNs[i] / 1e6);
                all << line.timesNs[i] / 1e6;
                addTip(graph, x[i], line.timesNs[i] / 1e6, timeTip(sweep, line, i));
            }
        }
    }
    plot->yAxis->setRange(logRange(all));
    // Where the lines cross within noise: light dotted lines, named once in the legend; the
    // notes list them.
    for (const auto& c : sweep.withinNoise) {
        const double at = crossingX(sweep, x, c);
        if (!std::isfinite(at)) {
            continue;
        }
        auto* line = new QCPItemStraightLine(plot);
        line->setPen(withinNoisePen());
        line->point1->setCoords(at, plot->yAxis->range().lower);
        line->point2->setCoords(at, plot->yAxis->range().upper);
    }
    if (!sweep.withinNoise.empty()) {
        auto* key = plot->addGraph(); // no data: the legend's entry for the dotted lines
        key->setName(tr("lines cross within noise"));
        key->setPen(withinNoisePen());
    }
    for (const auto& c : sweep.crossovers) {
        const double at = crossingX(sweep, x, c);
        if (!std::isfinite(at)) {
            continue; // the notes still say it
        }
        auto* line = new QCPItemStraightLine(plot);
        line->setPen(QPen(Qt::darkGray, 1.5, Qt::DashLine));
        line->point1->setCoords(at, plot->yAxis->range().lower);
        line->point2->setCoords(at, plot->yAxis->range().upper);
        auto* label = new QCPItemText(plot);
        label->setFont(theme::plotFont(9));
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        label->setPadding(QMargins(4, 2, 4, 2));
        // Over every crossover's line (the next one's may pass under it), on a light ground.
        label->setLayer(QStringLiteral("axes"));
        label->setBrush(QColor(255, 255, 255, 230));
        // Three significant figures, as the note under the chart says it ("≈ 1,800").
        const double said = QString::number(at, 'g', 3).toDouble();
        label->setText(c.interpolated ? tr("≈ %1 (interpolated)").arg(number(said))
                                      : tr("between %1 and %2")
                                            .arg(QString::fromStdString(c.lowValue),
                                                 QString::fromStdString(c.highValue)));
        label->setObjectName(QLatin1String(kCrossoverLabel));
        // Pixels below the top of its dashed line, wherever the plot is resized to: layOut
        // puts it on its row.
        label->position->setParentAnchor(line->point2);
        label->position->setCoords(0, 0);
    }
    return sweep.verdict;
}
QStringList drawOccupancy(QCustomPlot* plot, const models::SweepView& sweep) {
    useLogAxis(plot->xAxis);
    tickAtValues(plot->xAxis, sweep.numbers, sweep.values);
    plot->xAxis->setRange(16, 2048);
    plot->xAxis->setLabel(tr("threads per block"));
    plot->yAxis->setLabel(tr("occupancy (%)"));
    plot->yAxis->setRange(0, 105);
    plot->yAxis2->setVisible(true);
    plot->yAxis2->setLabel(tr("time per repetition (ms)"));
    useLogAxis(plot->yAxis2);
    QVector<double> times;
    for (int k = 0; k < sweep.lines.size(); ++k) {
        const auto& line = sweep.lines[k];
        if (!line.curveBlockSizes.isEmpty()) {
            auto* curve = plot->addGraph();
            curve->setName(tr("%1: theoretical").arg(line.strategy));
            curve->setPen(QPen(lineColor(k), 1.5, Qt::DotLine));
            QVector<double> percent;
            for (double v : line.curveOccupancy) {
                percent << v * 100;
            }
            curve->setData(line.curveBlockSizes, percent, true);
        }
        auto* measured = plot->addGraph();
        measured->setName(sweep.hasAchieved ? tr("%1: achieved").arg(line.strategy)
                                            : tr("%1: at each point").arg(line.strategy));
        measured->setLineStyle(QCPGraph::lsNone);
        measured->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, lineColor(k), 8));
        auto* time = plot->addGraph(plot->xAxis, plot->yAxis2);
        time->setName(tr("%1: time").arg(line.strategy));
        time->setPen(QPen(lineColor(k), 2));
        time->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, 6));
        for (int i = 0; i < sweep.numbers.size(); ++i) {
            const double occupancy =
                std::isfinite(line.achieved[i]) ? line.achieved[i] : line.theoretical[i];
            if (std::isfinite(occupancy)) {
                measured->addData(sweep.numbers[i], occupancy * 100);
            }
            if (std::isfinite(line.timesNs[i])) {
                time->addData(sweep.numbers[i], line.timesNs[i] / 1e6);
                times << line.timesNs[i] / 1e6;
            }
        }
    }
    plot->yAxis2->setRange(logRange(times));
    QStringList notes;
    for (const auto& d : sweep.divergences) {
        const auto& line = *std::find_if(sweep.lines.begin(), sweep.lines.end(),
                                         [&](const auto& l) { return l.strategy == d.strategy; });
        const double occupancy = std::isfinite(line.achieved[d.point]) ? line.achieved[d.point]
                                                                       : line.theoretical[d.point];
        auto* ring = new QCPItemEllipse(plot);
        ring->setPen(QPen(QColor(0xd5, 0x5e, 0x00), 2));
        const double x = sweep.numbers[d.point];
        ring->topLeft->setCoords(x / 1.15, occupancy * 100 + 5);
        ring->bottomRight->setCoords(x * 1.15, occupancy * 100 - 5);
        notes << (d.highAndSlow ? tr("High occupancy, slow: %1") : tr("Low occupancy, fast: %1"))
                     .arg(d.reason);
    }
    if (!sweep.hasAchieved) {
        notes << tr("No achieved occupancy in this sweep: sweep with counters to measure it.");
    }
    if (sweep.divergences.isEmpty()) {
        notes << tr("No divergence: no point is %1 points more occupied yet %2x slower than the "
                    "fastest, and the fastest is not %1 points below the best occupancy.")
                     .arg(std::lround(models::kDivergentOccupancy * 100))
                     .arg(models::kDivergentSlowdown);
    }
    return notes;
}
namespace {

// The legend's key to the two kinds of mark, in a neutral grey: graphs with no data, so they
// enter the legend and nothing else.
void addRoofKey(QCustomPlot* plot) {
    const QColor grey(0x55, 0x55, 0x55);
    auto* kernel = plot->addGraph();
    kernel->setName(tr("kernel against device memory (flop per DRAM byte)"));
    kernel->setLineStyle(QCPGraph::lsNone);
    kernel->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, grey, 8));
    auto* whole = plot->addGraph();
    whole->setName(tr("whole run against the host link (copies included)"));
    whole->setLineStyle(QCPGraph::lsNone);
    whole->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssSquare, QPen(grey, 2), Qt::NoBrush, 9));
}

// Each run's two points: a filled dot (the kernel) and a square (the whole run) in one colour,
// each with its hover words. The legend keys the two marks, then names the colours: each run's
// while a few runs are drawn, else each strategy's while a few strategies are (a sweep's runs),
// else none (the tooltips say which run a mark is).
void drawRoofMarks(QCustomPlot* plot, const models::RooflineView& r) {
    addRoofKey(plot);
    QStringList strategies;
    for (const auto& m : r.marks) {
        if (!strategies.contains(m.strategy)) {
            strategies << m.strategy;
        }
    }
    const bool nameRuns = r.marks.size() <= kNamedRoofRuns;
    const bool nameStrategies = !nameRuns && strategies.size() <= kNamedRoofRuns;
    QStringList named;
    for (int i = 0; i < r.marks.size(); ++i) {
        const auto& m = r.marks[i];
        const int colour = nameStrategies ? int(strategies.indexOf(m.strategy)) : i;
        auto* kernel = plot->addGraph();
        kernel->setName(nameRuns ? m.runId : m.strategy);
        kernel->setLineStyle(QCPGraph::lsNone);
        kernel->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, lineColor(colour), 8));
        kernel->addData(m.roof.kernel.intensity, m.roof.kernel.achievedGflops);
        addTip(kernel, m.roof.kernel.intensity, m.roof.kernel.achievedGflops,
               roofTip(m, m.roof.kernel, tr("kernel against device memory")));
        auto* whole = plot->addGraph();
        whole->setLineStyle(QCPGraph::lsNone);
        whole->setScatterStyle(
            QCPScatterStyle(QCPScatterStyle::ssSquare, QPen(lineColor(colour), 2), Qt::NoBrush, 9));
        whole->addData(m.roof.wholeRun.intensity, m.roof.wholeRun.achievedGflops);
        addTip(whole, m.roof.wholeRun.intensity, m.roof.wholeRun.achievedGflops,
               roofTip(m, m.roof.wholeRun,
                       tr("whole run against the %1 host link")
                           .arg(QString::fromStdString(m.roof.hostLink))));
        whole->removeFromLegend();
        if (!nameRuns && !(nameStrategies && !named.contains(m.strategy))) {
            kernel->removeFromLegend();
        }
        named << m.strategy;
    }
}

} // namespace

QStringList drawRoofline(QCustomPlot* plot, const models::RooflineView& r) {
    useLogAxis(plot->xAxis);
    useLogAxis(plot->yAxis);
    plot->xAxis->setLabel(tr("arithmetic intensity (flop/byte)"));
    plot->yAxis->setLabel(tr("Gflop/s"));
    const auto& c = r.ceilings;
    const double peak = r.fp32 ? c.fp32Gflops : c.fp64Gflops;
    const QString source = QString::fromStdString(c.source);
    QVector<double> xs, ys;
    for (const auto& m : r.marks) {
        for (const auto& p : {m.roof.kernel, m.roof.wholeRun}) {
            xs << p.intensity;
            ys << p.achievedGflops << p.attainableGflops;
        }
    }
    QCPRange xRange = logRange(xs);
    // Past the decades at the ends: a tick in the corner would meet the other axis' labels.
    xRange.lower = std::min(xRange.lower, 1e-3 / 1.6);
    xRange.upper = std::max(xRange.upper, 1e4 * 1.6);
    plot->xAxis->setRange(xRange);
    struct Roof {
        QString name;
        double gbps;
    };
    // A link's roof for as many bytes each way (the seed's case): both directions one after the
    // other, as sweep::runRoofline times them.
    const auto link = [](double htod, double dtoh) {
        return htod > 0 && dtoh > 0 ? 2.0 / (1.0 / htod + 1.0 / dtoh) : 0.0;
    };
    const Roof roofs[] = {{tr("DRAM"), c.dramGBps},
                          {tr("pinned host link"), link(c.pinnedHtoDGBps, c.pinnedDtoHGBps)},
                          {tr("pageable host link"), link(c.pageableHtoDGBps, c.pageableDtoHGBps)}};
    int k = 0;
    for (const auto& roof : roofs) {
        if (!(roof.gbps > 0)) {
            continue;
        }
        auto* graph = plot->addGraph();
        graph->setName(tr("%1 roof, %2 GB/s (%3)").arg(roof.name, number(roof.gbps), source));
        // Roofs in greys, told apart by their dashes: the colours are the runs'.
        static const Qt::PenStyle dashes[] = {Qt::SolidLine, Qt::DashDotLine, Qt::DotLine};
        graph->setPen(QPen(QColor(0x55, 0x55, 0x55), 1.5, dashes[k++ % 3]));
        const int steps = 64;
        for (int i = 0; i <= steps; ++i) {
            const double x =
                xRange.lower * std::pow(xRange.upper / xRange.lower, double(i) / steps);
            const double y = peak > 0 ? std::min(peak, x * roof.gbps) : x * roof.gbps;
            graph->addData(x, y);
            ys << y;
        }
    }
    if (peak > 0) {
        auto* flat = plot->addGraph();
        flat->setName(tr("%1 FMA peak, %2 Gflop/s (%3)")
                          .arg(r.fp32 ? QStringLiteral("FP32") : QStringLiteral("FP64"),
                               number(peak), source));
        flat->setPen(QPen(Qt::black, 1.5, Qt::DashLine));
        flat->addData(xRange.lower, peak);
        flat->addData(xRange.upper, peak);
    }
    drawRoofMarks(plot, r);
    plot->yAxis->setRange(logRange(ys));
    QStringList notes{tr("Ceilings: %1 (%2). Filled dots: the kernel against device memory; "
                         "squares: the whole run, copies included, against the host link.")
                          .arg(r.title, source == QStringLiteral("measured")
                                            ? tr("measured once on this device")
                                            : tr("datasheet figures, not measured"))};
    // One line per run while they fit; a sweep's many runs are summed up.
    const bool nameRuns = r.marks.size() <= kNamedRoofRuns;
    if (!nameRuns) {
        notes << tr("%1 runs placed.").arg(r.marks.size());
    }
    for (const auto& m : nameRuns ? r.marks : QList<models::RooflineMark>()) {
        notes << tr("%1: kernel %2 flop/B, whole run %3 flop/B, %4-bound under the %5 link")
                     .arg(m.runId, number(m.roof.kernel.intensity),
                          number(m.roof.wholeRun.intensity),
                          m.roof.wholeRun.bound == sweep::Bound::Compute ? tr("compute")
                                                                         : tr("bandwidth"),
                          QString::fromStdString(m.roof.hostLink));
    }
    return notes;
}

namespace {

// Legend columns: the most that fit across the plot, each column as wide as its widest entry.
// Entries fill the rows first (entry i in column i % columns) where that fits, else the columns
// first (a column of ceilings beside a column of runs).
void arrangeLegend(QCustomPlot* plot, const QSize& size) {
    QCPLegend* legend = plot->legend;
    QVector<double> widths;
    for (int i = 0; i < legend->itemCount(); ++i) {
        if (const QCPAbstractLegendItem* item = legend->item(i)) { // an empty cell: none
            widths << item->minimumOuterSizeHint().width();
        }
    }
    if (legend->visible() && !widths.isEmpty()) {
        const QMargins outer = legend->margins();
        const double room = size.width() - 12 - outer.left() - outer.right(); // the row's margins
        const int n = int(widths.size());
        const auto fits = [&](int columns, const std::function<int(int)>& columnOf) {
            QVector<double> column(columns, 0.0);
            for (int i = 0; i < n; ++i) {
                column[columnOf(i)] = std::max(column[columnOf(i)], widths[i]);
            }
            return std::accumulate(column.begin(), column.end(), 0.0) +
                       legend->columnSpacing() * (columns - 1) <=
                   room;
        };
        int columns = n;
        bool byRows = true;
        for (; columns > 1; --columns) {
            const int rows = (n + columns - 1) / columns;
            if (fits(columns, [columns](int i) { return i % columns; })) {
                break;
            }
            if (fits(columns, [rows](int i) { return i / rows; })) {
                byRows = false;
                break;
            }
        }
        if (byRows) {
            legend->setWrap(columns);
            legend->setFillOrder(QCPLegend::foColumnsFirst, true);
        } else {
            legend->setWrap((n + columns - 1) / columns);
            legend->setFillOrder(QCPLegend::foRowsFirst, true);
        }
    }
}

// Axis titles longer than their axis are elided rather than left to pass the plot's edge.
void elideAxisTitles(QCustomPlot* plot) {
    for (QCPAxis* axis : {plot->xAxis, plot->yAxis, plot->yAxis2}) {
        const QString whole = axis->property(kWholeLabel).toString();
        if (whole.isEmpty()) {
            axis->setProperty(kWholeLabel, axis->label());
        }
        const QString label = whole.isEmpty() ? axis->label() : whole;
        const double length = axis->orientation() == Qt::Horizontal ? plot->axisRect()->width()
                                                                    : plot->axisRect()->height();
        axis->setLabel(
            QFontMetricsF(axis->labelFont()).elidedText(label, Qt::ElideRight, length - 4));
    }
}

// Tick labels that would touch: text ticks (the sweep's own values) lose every label that would
// touch the one before; other tickers are asked for fewer ticks until none touches.
void thinTickLabels(QCustomPlot* plot) {
    if (auto text = plot->xAxis->ticker().dynamicCast<QCPAxisTickerText>()) {
        // Every tick as drawn first, so that a wider plot gets them back.
        if (!plot->xAxis->property(kAllTicks).isValid()) {
            QVariantList all;
            for (auto it = text->ticks().cbegin(); it != text->ticks().cend(); ++it) {
                all << it.key() << it.value();
            }
            plot->xAxis->setProperty(kAllTicks, all);
        }
        QMap<double, QString> ticks;
        const QVariantList all = plot->xAxis->property(kAllTicks).toList();
        for (int i = 0; i + 1 < all.size(); i += 2) {
            ticks.insert(all[i].toDouble(), all[i + 1].toString());
        }
        const QFontMetricsF metrics(plot->xAxis->tickLabelFont());
        QMap<double, QString> kept;
        double lastRight = -1e9;
        for (auto it = ticks.cbegin(); it != ticks.cend(); ++it) {
            if (!plot->xAxis->range().contains(it.key())) {
                continue;
            }
            const double centre = plot->xAxis->coordToPixel(it.key());
            const double half = metrics.horizontalAdvance(it.value()) / 2;
            if (centre - half >= lastRight + metrics.height()) {
                kept.insert(it.key(), it.value());
                lastRight = centre + half;
            }
        }
        text->setTicks(kept);
    }
    for (QCPAxis* axis : {plot->xAxis, plot->yAxis, plot->yAxis2}) {
        if (!axis->ticker().dynamicCast<QCPAxisTickerText>() && axis->ticker()->tickCount() != 5) {
            axis->ticker()->setTickCount(5); // QCustomPlot's default; fewer below if crowded
            measure(plot);
        }
    }
    for (int round = 0; round < 6; ++round) {
        bool crowded = false;
        for (QCPAxis* axis : {plot->xAxis, plot->yAxis, plot->yAxis2}) {
            if (!axis->visible() || axis->ticker().dynamicCast<QCPAxisTickerText>()) {
                continue;
            }
            const QFontMetricsF metrics(axis->tickLabelFont());
            const QVector<double> ticks = axis->tickVector();
            const QVector<QString> labels = axis->tickVectorLabels();
            bool touch = false;
            for (int i = 1; i < ticks.size() && i < labels.size(); ++i) {
                const double gap =
                    std::abs(axis->coordToPixel(ticks[i]) - axis->coordToPixel(ticks[i - 1]));
                const double need = axis->orientation() == Qt::Horizontal
                                        ? (metrics.horizontalAdvance(labels[i]) +
                                           metrics.horizontalAdvance(labels[i - 1])) /
                                                  2 +
                                              metrics.height() / 2
                                        : metrics.height() + 2;
                touch = touch || gap < need;
            }
            if (touch && axis->ticker()->tickCount() > 2) {
                axis->ticker()->setTickCount(axis->ticker()->tickCount() - 1);
                crowded = true;
            }
        }
        if (!crowded) {
            break;
        }
        measure(plot);
    }
}

// Crossover labels: a label takes the first row where it covers no other label; near the right
// edge it turns to the left of its line. Returns how many found no row.
int placeCrossoverLabels(QCustomPlot* plot) {
    const QRect area = plot->axisRect()->rect();
    std::vector<std::vector<std::pair<double, double>>> rows;
    int hidden = 0;
    for (int i = 0; i < plot->itemCount(); ++i) {
        auto* label = qobject_cast<QCPItemText*>(plot->item(i));
        if (!label || label->objectName() != QLatin1String(kCrossoverLabel)) {
            continue;
        }
        const QFontMetricsF metrics(label->font());
        const QMargins pad = label->padding();
        const double width = metrics.horizontalAdvance(label->text()) + pad.left() + pad.right();
        const double height = metrics.height() + pad.top() + pad.bottom();
        const double x = label->position->parentAnchor()->pixelPosition().x();
        const bool leftward = x + width > area.right() - 2 && x - width >= area.left();
        label->setPositionAlignment((leftward ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignTop);
        const std::pair<double, double> span =
            leftward ? std::pair{x - width, x} : std::pair{x, x + width};
        std::size_t row = 0;
        const auto covers = [&span](const std::pair<double, double>& other) {
            return span.first < other.second + 4 && other.first < span.second + 4;
        };
        while (row < rows.size() && std::any_of(rows[row].begin(), rows[row].end(), covers)) {
            ++row;
        }
        if (double(row + 1) * (height + 2) > area.height()) {
            label->setVisible(false);
            ++hidden;
            continue;
        }
        if (row == rows.size()) {
            rows.emplace_back();
        }
        rows[row].push_back(span);
        label->setVisible(true);
        label->position->setCoords(0, double(row) * (height + 2));
    }
    return hidden;
}

} // namespace

QString pointTip(QCustomPlot* plot, const QPointF& pos) {
    QString tip;
    double nearest = kTipRadiusPx * kTipRadiusPx;
    for (int g = 0; g < plot->graphCount(); ++g) {
        QCPGraph* graph = plot->graph(g);
        if (!graph->visible()) {
            continue;
        }
        const QVariantList tips = graph->property(kTips).toList();
        for (const QVariant& entry : tips) {
            const QVariantList t = entry.toList();
            const QPointF at = graph->coordsToPixels(t.value(0).toDouble(), t.value(1).toDouble());
            const double dx = at.x() - pos.x();
            const double dy = at.y() - pos.y();
            if (dx * dx + dy * dy <= nearest) {
                nearest = dx * dx + dy * dy;
                tip = t.value(2).toString();
            }
        }
    }
    return tip;
}

int layOut(QCustomPlot* plot, const QSize& size) {
    plot->setViewport(QRect(QPoint(0, 0), size));
    arrangeLegend(plot, size);
    measure(plot); // the axes' pixel layout
    elideAxisTitles(plot);
    thinTickLabels(plot);
    return placeCrossoverLabels(plot);
}

} // namespace slicescope::gui::sweepplot
