#include "gui/sweepchart.h"

#include "gui/theme.h"
#include "models/session.h"

#include <QComboBox>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>
#include <cmath>

namespace slicescope::gui {

namespace {

// Okabe-Ito, as the rest of the views: one colour per line, told apart on a projector.
QColor lineColor(int i) {
    static const QColor colors[] = {QColor(0x00, 0x72, 0xb2), QColor(0xd5, 0x5e, 0x00),
                                    QColor(0x00, 0x9e, 0x73), QColor(0xcc, 0x79, 0xa7),
                                    QColor(0xe6, 0x9f, 0x00), QColor(0x56, 0xb4, 0xe9),
                                    QColor(0x00, 0x00, 0x00)};
    return colors[i % int(std::size(colors))];
}

void useLogAxis(QCPAxis* axis) {
    axis->setScaleType(QCPAxis::stLogarithmic);
    QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
    axis->setTicker(ticker);
    axis->setNumberFormat(QStringLiteral("gb"));
    axis->setNumberPrecision(3);
}

QString number(double value) {
    return std::abs(value) >= 100 ? QLocale().toString(value, 'f', 0)
                                  : QString::number(value, 'g', 3);
}

// Ticks at the sweep's own values (32, 64, ... on a log axis): what the user chose.
void tickAtValues(QCPAxis* axis, const QVector<double>& numbers, const QStringList& values) {
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (int i = 0; i < numbers.size(); ++i) {
        ticker->addTick(numbers[i], values.value(i));
    }
    axis->setTicker(ticker);
}

// The parameter in words, for the axis.
QString paramLabel(const QString& param) {
    if (param == QStringLiteral("block")) {
        return QObject::tr("threads per block");
    }
    if (param == QStringLiteral("work")) {
        return QObject::tr("work per element");
    }
    if (param == QStringLiteral("rows")) {
        return QObject::tr("rows (R)");
    }
    if (param == QStringLiteral("columns")) {
        return QObject::tr("columns (C)");
    }
    if (param == QStringLiteral("n")) {
        return QObject::tr("inner size (N)");
    }
    if (param == QStringLiteral("dtype")) {
        return QObject::tr("element type");
    }
    return param == QStringLiteral("memory") ? QObject::tr("host memory") : param;
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

} // namespace

SweepChart::SweepChart(models::Session* session, QWidget* parent)
    : QWidget(parent), session_(session) {
    view_ = new QComboBox(this);
    view_->setObjectName(QStringLiteral("sweepChartView"));
    view_->addItem(tr("Time per repetition"), int(View::Time));
    view_->addItem(tr("Occupancy and time (block sweeps)"), int(View::Occupancy));
    view_->addItem(tr("Roofline with the copies"), int(View::Roofline));
    which_ = new QComboBox(this);
    which_->setObjectName(QStringLiteral("sweepChartWhich"));
    which_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    plot_ = new QCustomPlot(this);
    plot_->setObjectName(QStringLiteral("sweepPlot"));
    plot_->setMinimumHeight(320); // room for the right axis title of the occupancy view
    // The legend under the plot, in columns: over the plot it would hide the lines.
    auto* legendRow = new QCPLayoutGrid;
    plot_->plotLayout()->addElement(1, 0, legendRow);
    legendRow->setMargins(QMargins(6, 0, 6, 4));
    plot_->axisRect()->insetLayout()->take(plot_->legend);
    legendRow->addElement(0, 0, plot_->legend);
    plot_->legend->setFillOrder(QCPLegend::foColumnsFirst);
    plot_->legend->setWrap(3);
    plot_->plotLayout()->setRowStretchFactor(1, 0.001);
    notes_ = new QLabel(this);
    notes_->setObjectName(QStringLiteral("sweepNotes"));
    notes_->setWordWrap(true);
    notes_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* top = new QHBoxLayout;
    top->addWidget(view_);
    top->addWidget(which_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(plot_, 1);
    layout->addWidget(notes_);
    connect(view_, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
    connect(which_, &QComboBox::activated, this, [this] { draw(); });
    connect(session_, &models::Session::changed, this, &SweepChart::refresh);
    refresh();
}

void SweepChart::setView(View view) {
    view_->setCurrentIndex(std::max(0, view_->findData(int(view))));
}

SweepChart::View SweepChart::view() const {
    return View(view_->currentData().toInt());
}

QString SweepChart::notes() const {
    return notes_->text();
}

void SweepChart::refresh() {
    sweeps_ = models::collectSweeps(session_->runs());
    rooflines_ = models::collectRooflines(session_->runs());
    const QString current = which_->currentText();
    which_->blockSignals(true);
    which_->clear();
    if (view() == View::Roofline) {
        for (const auto& r : rooflines_) {
            which_->addItem(r.title);
        }
    } else {
        for (const auto& s : sweeps_) {
            if (view() == View::Time || s.param == QStringLiteral("block")) {
                which_->addItem(s.title, s.key);
            }
        }
    }
    which_->setCurrentIndex(std::max(0, which_->findText(current)));
    which_->blockSignals(false);
    draw();
}

void SweepChart::draw() {
    plot_->clearPlottables();
    plot_->clearItems();
    plot_->xAxis->setScaleType(QCPAxis::stLinear);
    plot_->yAxis->setScaleType(QCPAxis::stLinear);
    plot_->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    plot_->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    plot_->yAxis2->setVisible(false);
    plot_->legend->setVisible(true);
    plot_->legend->setFont(theme::plotFont(9));
    for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis, plot_->yAxis2}) {
        axis->setLabelFont(theme::plotFont(10));
        axis->setTickLabelFont(theme::plotFont(9));
    }
    const int index = which_->currentIndex();
    if (view() == View::Roofline) {
        if (index < 0 || index >= rooflines_.size()) {
            drawEmpty(tr("No GPU run with roofline ceilings: sweep or run with \"Roofline "
                         "ceilings\", or model on a preset."));
        } else {
            drawRoofline(rooflines_[index]);
        }
    } else {
        const QString key = which_->currentData().toString();
        const auto it = std::find_if(sweeps_.begin(), sweeps_.end(),
                                     [&](const models::SweepView& s) { return s.key == key; });
        if (it == sweeps_.end()) {
            drawEmpty(view() == View::Time
                          ? tr("No sweep in the session: run one from the Sweep panel, or open a "
                               "sweep trace.")
                          : tr("No block sweep in the session."));
        } else if (view() == View::Time) {
            drawTime(*it);
        } else {
            drawOccupancy(*it);
        }
    }
    plot_->replot();
}

void SweepChart::drawEmpty(const QString& why) {
    plot_->legend->setVisible(false);
    notes_->setText(why);
}

void SweepChart::drawTime(const models::SweepView& sweep) {
    const bool numeric = sweep.isNumeric();
    QVector<double> x = sweep.numbers;
    if (!numeric) {
        QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
        for (int i = 0; i < sweep.values.size(); ++i) {
            x << i;
            ticker->addTick(i, sweep.values[i]);
        }
        plot_->xAxis->setTicker(ticker);
        plot_->xAxis->setRange(-0.5, sweep.values.size() - 0.5);
    } else {
        useLogAxis(plot_->xAxis);
        tickAtValues(plot_->xAxis, x, sweep.values);
        plot_->xAxis->setRange(logRange(x));
    }
    useLogAxis(plot_->yAxis);
    plot_->xAxis->setLabel(paramLabel(sweep.param));
    plot_->yAxis->setLabel(tr("time per repetition (ms)"));
    QVector<double> all;
    for (int k = 0; k < sweep.lines.size(); ++k) {
        const auto& line = sweep.lines[k];
        auto* graph = plot_->addGraph();
        graph->setName(line.strategy + (line.modelled ? tr(" (modelled)") : QString()));
        QPen pen(lineColor(k), 2);
        if (line.modelled) {
            pen.setStyle(Qt::DashLine);
        }
        graph->setPen(pen);
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 7));
        for (int i = 0; i < x.size(); ++i) {
            if (std::isfinite(line.timesNs[i])) {
                graph->addData(x[i], line.timesNs[i] / 1e6);
                all << line.timesNs[i] / 1e6;
            }
        }
    }
    plot_->yAxis->setRange(logRange(all));
    QStringList notes;
    // Labels of nearby crossovers go on rows of their own, each under the last, so that none
    // covers another: a label takes the first row whose labels end left of it.
    plot_->replot(QCustomPlot::rpImmediateRefresh); // the axes' pixel layout, for the labels
    std::vector<double> rowEnds;
    for (const auto& c : sweep.crossovers) {
        double at = c.at;
        if (!numeric || !std::isfinite(at)) {
            // Categories: between the two values.
            at = (sweep.values.indexOf(QString::fromStdString(c.lowValue)) +
                  sweep.values.indexOf(QString::fromStdString(c.highValue))) /
                 2.0;
        }
        auto* line = new QCPItemStraightLine(plot_);
        line->setPen(QPen(Qt::darkGray, 1.5, Qt::DashLine));
        line->point1->setCoords(at, plot_->yAxis->range().lower);
        line->point2->setCoords(at, plot_->yAxis->range().upper);
        auto* label = new QCPItemText(plot_);
        label->setFont(theme::plotFont(9));
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        label->setPadding(QMargins(4, 2, 4, 2));
        label->setText(c.interpolated ? tr("≈ %1 (interpolated)").arg(number(at))
                                      : tr("between %1 and %2")
                                            .arg(QString::fromStdString(c.lowValue),
                                                 QString::fromStdString(c.highValue)));
        const QFontMetrics metrics(label->font());
        const double left = plot_->xAxis->coordToPixel(at);
        const double width = metrics.horizontalAdvance(label->text()) + 8;
        std::size_t row = 0;
        while (row < rowEnds.size() && rowEnds[row] > left) {
            ++row;
        }
        if (row == rowEnds.size()) {
            rowEnds.push_back(0);
        }
        rowEnds[row] = left + width;
        // Pixels below the top of its dashed line, wherever the plot is resized to.
        label->position->setParentAnchor(line->point2);
        label->position->setCoords(0, double(row) * (metrics.height() + 4));
        notes << tr("Crossover: %1").arg(QString::fromStdString(c.text));
    }
    if (sweep.crossovers.empty()) {
        notes << tr("No crossover: the same strategy is fastest at every value.");
    }
    notes_->setText(notes.join(QLatin1Char('\n')));
}

void SweepChart::drawOccupancy(const models::SweepView& sweep) {
    useLogAxis(plot_->xAxis);
    tickAtValues(plot_->xAxis, sweep.numbers, sweep.values);
    plot_->xAxis->setRange(16, 2048);
    plot_->xAxis->setLabel(tr("threads per block"));
    plot_->yAxis->setLabel(tr("occupancy (%)"));
    plot_->yAxis->setRange(0, 105);
    plot_->yAxis2->setVisible(true);
    plot_->yAxis2->setLabel(tr("time per repetition (ms)"));
    useLogAxis(plot_->yAxis2);
    QVector<double> times;
    for (int k = 0; k < sweep.lines.size(); ++k) {
        const auto& line = sweep.lines[k];
        if (!line.curveBlockSizes.isEmpty()) {
            auto* curve = plot_->addGraph();
            curve->setName(tr("%1: theoretical").arg(line.strategy));
            curve->setPen(QPen(lineColor(k), 1.5, Qt::DotLine));
            QVector<double> percent;
            for (double v : line.curveOccupancy) {
                percent << v * 100;
            }
            curve->setData(line.curveBlockSizes, percent, true);
        }
        auto* measured = plot_->addGraph();
        measured->setName(sweep.hasAchieved ? tr("%1: achieved").arg(line.strategy)
                                            : tr("%1: at each point").arg(line.strategy));
        measured->setLineStyle(QCPGraph::lsNone);
        measured->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, lineColor(k), 8));
        auto* time = plot_->addGraph(plot_->xAxis, plot_->yAxis2);
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
    plot_->yAxis2->setRange(logRange(times));
    QStringList notes;
    for (const auto& d : sweep.divergences) {
        const auto& line = *std::find_if(sweep.lines.begin(), sweep.lines.end(),
                                         [&](const auto& l) { return l.strategy == d.strategy; });
        const double occupancy = std::isfinite(line.achieved[d.point]) ? line.achieved[d.point]
                                                                       : line.theoretical[d.point];
        auto* ring = new QCPItemEllipse(plot_);
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
        notes << tr("Occupancy and time agree at every point.");
    }
    notes_->setText(notes.join(QLatin1Char('\n')));
}

void SweepChart::drawRoofline(const models::RooflineView& r) {
    useLogAxis(plot_->xAxis);
    useLogAxis(plot_->yAxis);
    plot_->xAxis->setLabel(tr("arithmetic intensity (flop/byte)"));
    plot_->yAxis->setLabel(tr("Gflop/s"));
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
    xRange.lower = std::min(xRange.lower, 1e-3);
    xRange.upper = std::max(xRange.upper, 1e4);
    plot_->xAxis->setRange(xRange);
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
        auto* graph = plot_->addGraph();
        graph->setName(tr("%1 roof, %2 GB/s (%3)").arg(roof.name, number(roof.gbps), source));
        graph->setPen(QPen(lineColor(4 + k++), 1.5));
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
        auto* flat = plot_->addGraph();
        flat->setName(tr("%1 FMA peak, %2 Gflop/s (%3)")
                          .arg(r.fp32 ? QStringLiteral("FP32") : QStringLiteral("FP64"),
                               number(peak), source));
        flat->setPen(QPen(Qt::black, 1, Qt::DashLine));
        flat->addData(xRange.lower, peak);
        flat->addData(xRange.upper, peak);
    }
    // Each run's two points; the legend names the two kinds once (many runs would fill it).
    for (int i = 0; i < r.marks.size(); ++i) {
        const auto& m = r.marks[i];
        auto* kernel = plot_->addGraph();
        kernel->setName(tr("kernel: flop per DRAM byte"));
        kernel->setLineStyle(QCPGraph::lsNone);
        kernel->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, lineColor(i), 8));
        kernel->addData(m.roof.kernel.intensity, m.roof.kernel.achievedGflops);
        auto* whole = plot_->addGraph();
        whole->setName(tr("whole run: flop per byte over the host link"));
        whole->setLineStyle(QCPGraph::lsNone);
        whole->setScatterStyle(
            QCPScatterStyle(QCPScatterStyle::ssSquare, QPen(lineColor(i), 2), Qt::NoBrush, 9));
        whole->addData(m.roof.wholeRun.intensity, m.roof.wholeRun.achievedGflops);
        if (i > 0) {
            kernel->removeFromLegend();
            whole->removeFromLegend();
        }
    }
    plot_->yAxis->setRange(logRange(ys));
    QStringList notes{tr("Ceilings: %1 (%2). Filled dots: the kernel against device memory; "
                         "squares: the whole run, copies included, against the host link.")
                          .arg(r.title, source == QStringLiteral("measured")
                                            ? tr("measured once on this device")
                                            : tr("datasheet figures, not measured"))};
    // One line per run while they fit; a sweep's many runs are summed up.
    if (r.marks.size() > 6) {
        notes << tr("%1 runs placed.").arg(r.marks.size());
    }
    for (const auto& m : r.marks.size() > 6 ? QList<models::RooflineMark>() : r.marks) {
        notes << tr("%1: kernel %2 flop/B, whole run %3 flop/B, %4-bound under the %5 link")
                     .arg(m.runId, number(m.roof.kernel.intensity),
                          number(m.roof.wholeRun.intensity),
                          m.roof.wholeRun.bound == sweep::Bound::Compute ? tr("compute")
                                                                         : tr("bandwidth"),
                          QString::fromStdString(m.roof.hostLink));
    }
    notes_->setText(notes.join(QLatin1Char('\n')));
}

} // namespace slicescope::gui
