#include "gui/occupancycurveplot.h"

#include "gui/theme.h"

#include <QFontMetricsF>
#include <algorithm>
#include <cmath>

namespace slicescope::gui {

namespace {

// text broken at spaces into lines no wider than width (a word wider than that on a line of its
// own).
QString wrapped(const QString& text, const QFontMetricsF& metrics, double width) {
    QStringList lines;
    QString line;
    for (const QString& word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        const QString longer = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
        if (!line.isEmpty() && metrics.horizontalAdvance(longer) > width) {
            lines << line;
            line = word;
        } else {
            line = longer;
        }
    }
    lines << line;
    return lines.join(QLatin1Char('\n'));
}

} // namespace

OccupancyCurvePlot::OccupancyCurvePlot(QWidget* parent) : QCustomPlot(parent) {
    setObjectName(QStringLiteral("occupancyCurves"));
    setToolTip(tr("Theoretical occupancy of this kernel if only the block size (left) "
                  "or only the registers per thread "
                  "(right) changed. An SM holds a limited number of warps, blocks, "
                  "registers and bytes of shared memory; "
                  "whichever runs out first (the <b>limiter</b>) caps how many blocks "
                  "fit. The dot is this run's choice."));
    plotLayout()->clear();
    title_ = new QCPTextElement(this, QString(), theme::plotFont(10, true));
    plotLayout()->addElement(0, 0, title_);
    // Stacked, not side by side: the view beside the timeline is narrow.
    byBlock_ = new QCPAxisRect(this);
    byRegisters_ = new QCPAxisRect(this);
    plotLayout()->addElement(1, 0, byBlock_);
    plotLayout()->addElement(2, 0, byRegisters_);
    setUpRect(byBlock_, tr("threads per block"), 1024);
    setUpRect(byRegisters_, tr("registers per thread"), 255);
    applyTheme();
}

QSize OccupancyCurvePlot::minimumSizeHint() const {
    const QSize hint = QCustomPlot::minimumSizeHint();
    return {std::min(hint.width(), int(220 * theme::presentationScale())), hint.height()};
}

void OccupancyCurvePlot::resizeEvent(QResizeEvent* event) {
    setTitle(titleText_); // wrapped to the new width
    QCustomPlot::resizeEvent(event);
}

void OccupancyCurvePlot::setTitle(const QString& text) {
    titleText_ = text;
    title_->setText(wrapped(text, QFontMetricsF(title_->font(), this), width() - 12));
}

void OccupancyCurvePlot::applyTheme() {
    setMinimumHeight(int(360 * theme::presentationScale()));
    title_->setFont(theme::plotFont(10, true));
    for (auto* rect : {byBlock_, byRegisters_}) {
        for (auto* axis : {rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft)}) {
            axis->setLabelFont(theme::plotFont(8.5));
            axis->setTickLabelFont(theme::plotFont(8));
        }
        // The x axis's labels below the half line the occupancy axis's "0" reaches under the
        // corner: with large text the two zeros met.
        rect->axis(QCPAxis::atBottom)
            ->setTickLabelPadding(
                int(std::ceil(QFontMetricsF(theme::plotFont(8), this).height() / 2)) + 2);
    }
    setFacts(facts_); // redraws the marker labels in the new font
}

void OccupancyCurvePlot::setUpRect(QCPAxisRect* rect, const QString& xLabel, double xMax) {
    for (auto* axis : rect->axes()) {
        axis->setLayer(QStringLiteral("axes"));
        axis->grid()->setLayer(QStringLiteral("grid"));
    }
    rect->axis(QCPAxis::atBottom)->setLabel(xLabel);
    rect->axis(QCPAxis::atBottom)->setRange(0, xMax);
    auto* y = rect->axis(QCPAxis::atLeft);
    y->setRange(0, 105);
    y->setLabel(tr("occupancy %"));
    QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
    ticker->setTickStep(25);
    y->setTicker(ticker);
}

void OccupancyCurvePlot::addCurve(QCPAxisRect* rect, const QVector<double>& x,
                                  const QVector<double>& y, double markX, double markY,
                                  const QString& markText, QPointF& marker) {
    auto* xAxisOf = rect->axis(QCPAxis::atBottom);
    auto* yAxisOf = rect->axis(QCPAxis::atLeft);
    auto* curve = addGraph(xAxisOf, yAxisOf);
    QVector<double> percent(y.size());
    std::transform(y.begin(), y.end(), percent.begin(), [](double v) { return v * 100; });
    curve->setData(x, percent, true);
    curve->setLineStyle(QCPGraph::lsStepLeft);
    curve->setPen(QPen(theme::theoreticalColor(), 2));
    curve->setBrush(QColor(0x00, 0x72, 0xb2, 30));
    if (markX >= 0) {
        auto* mark = addGraph(xAxisOf, yAxisOf);
        mark->addData(markX, markY * 100);
        mark->setLineStyle(QCPGraph::lsNone);
        mark->setScatterStyle(
            QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(0xd5, 0x5e, 0x00), 11));
        auto* text = new QCPItemText(this);
        text->setClipAxisRect(rect);
        text->position->setAxes(xAxisOf, yAxisOf);
        text->position->setCoords(markX, markY * 100);
        const bool rightHalf = markX > xAxisOf->range().center();
        text->setPositionAlignment((rightHalf ? Qt::AlignRight : Qt::AlignLeft) |
                                   (markY > 0.8 ? Qt::AlignTop : Qt::AlignBottom));
        text->setTextAlignment(rightHalf ? Qt::AlignRight : Qt::AlignLeft);
        text->setPadding(QMargins(8, 4, 8, 4));
        text->setText(markText);
        text->setFont(theme::plotFont(8.5, true));
        text->setColor(QColor(0xa0, 0x40, 0x00));
        marker = QPointF(markX, markY);
    }
}

void OccupancyCurvePlot::setFacts(const models::OccupancyFacts& f) {
    facts_ = f;
    clearGraphs();
    clearItems();
    blockMarker_ = registerMarker_ = QPointF(-1, -1);
    if (!f.hasLaunch) {
        setTitle(tr("Per-SM limit (CUDA's theoretical occupancy): select a GPU run"));
        replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    if (!f.curveError.isEmpty()) {
        setTitle(tr("Occupancy calculator: %1").arg(f.curveError));
        replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    setTitle(tr("Per-SM limit (CUDA's theoretical occupancy) of this kernel against its block size "
                "and registers (occupancy calculator)"));
    byBlock_->axis(QCPAxis::atBottom)
        ->setRange(0, (f.blockSizes.isEmpty() ? 1024 : f.blockSizes.back()) + 16);
    byRegisters_->axis(QCPAxis::atBottom)
        ->setRange(0, f.registers.isEmpty() ? 255 : f.registers.back() + 2);
    const double markBlock = f.blockSize;
    const auto blockIt = std::find(f.blockSizes.begin(), f.blockSizes.end(), markBlock);
    double blockOcc = f.theoretical;
    if (blockIt != f.blockSizes.end()) {
        blockOcc = f.occupancyByBlockSize[blockIt - f.blockSizes.begin()];
    }
    addCurve(byBlock_, f.blockSizes, f.occupancyByBlockSize, markBlock, blockOcc,
             tr("this run:\n%1 threads, %2")
                 .arg(f.blockSize)
                 .arg(models::toQString(trace::formatPercent(blockOcc))),
             blockMarker_);
    const double markRegs = f.registersPerThread;
    double regOcc = f.theoretical;
    if (f.registersPerThread < std::uint32_t(f.registers.size())) {
        regOcc = f.occupancyByRegisters[qsizetype(f.registersPerThread)];
    }
    addCurve(byRegisters_, f.registers, f.occupancyByRegisters, markRegs, regOcc,
             f.registersKnown ? tr("this run:\n%1 registers").arg(f.registersPerThread)
                              : tr("registers per thread\nunknown (0 assumed)"),
             registerMarker_);
    replot(QCustomPlot::rpQueuedReplot);
}

} // namespace slicescope::gui
