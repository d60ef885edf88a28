#include "gui/occupancybarsplot.h"

#include "gui/theme.h"
#include "models/chartrows.h"
#include "models/occupancyfacts.h"
#include "models/runnaming.h"
#include "models/session.h"
#include "models/viewstate.h"

#include <QFontMetricsF>
#include <cmath>

namespace slicescope::gui {

namespace {

constexpr double kBarWidth = 0.27; // of a row; the three bars of a row sit side by side

QCPBars* makeBars(QCustomPlot* plot, const QString& name, const QColor& color,
                  QCPBarsGroup* group) {
    auto* bars = new QCPBars(plot->yAxis, plot->xAxis);
    bars->setName(name);
    bars->setPen(QPen(color.darker(130), 1));
    bars->setBrush(color);
    bars->setWidth(kBarWidth - 0.01);
    bars->setBarsGroup(group);
    return bars;
}

QString percentLabel(double fraction) {
    return models::toQString(trace::formatPercent(fraction));
}

// The run's name, or a recorded kernel's name (elided in the middle: mangled names are long) and
// its run; the device when the runs differ in device; "modelled" when modelled.
QString tickLabel(const models::OccupancyRow& row, bool withDevice) {
    QStringList lines;
    lines << models::elideMiddle(
        row.kernel.isEmpty() ? row.runId : models::shortKernelName(row.kernel), 32);
    QStringList second;
    if (!row.kernel.isEmpty()) {
        second << QStringLiteral("in ") + models::elideMiddle(row.runId, 24);
    }
    if (withDevice) {
        second << row.device;
    }
    if (!row.predicted.isEmpty()) {
        second << row.predicted;
    }
    if (!second.isEmpty()) {
        lines << second.join(QStringLiteral(" \u00b7 "));
    }
    return lines.join(QLatin1Char('\n'));
}

} // namespace

OccupancyBarsPlot::OccupancyBarsPlot(models::Session* session, models::ViewState* state,
                                     QWidget* parent)
    : QCustomPlot(parent), session_(session), state_(state) {
    setObjectName(QStringLiteral("occupancyBars"));
    setToolTip(QStringLiteral(
        "<b>Occupancy</b>: how many of an SM's warp slots a launch keeps filled.<ul>"
        "<li><b>Theoretical</b>: what the block size, registers and shared memory allow (occupancy "
        "calculator).</li>"
        "<li><b>Achieved</b>: what the SMs really held on average (CUPTI counters; only for GPU "
        "runs measured "
        "with counters).</li>"
        "<li><b>Thread slots doing work</b>: threads that have work / (SMs \u00d7 threads per SM). "
        "One block with one busy thread scores almost 0 % even at 50 % theoretical "
        "occupancy.</li></ul>"));
    connect(session_, &models::Session::changed, this, &OccupancyBarsPlot::rebuild);
    connect(state_, &models::ViewState::selectedRunChanged, this, &OccupancyBarsPlot::rebuild);
    rebuild();
}

int OccupancyBarsPlot::preferredHeight() const {
    // A row holds three value labels a third of a row apart (the bars' centres, kBarWidth
    // apart): each row is tall enough that they do not touch.
    const double lineH = QFontMetricsF(theme::plotFont(theme::kMinPlotPt), this).height();
    // A fifth more than that: the axis rect is what the title, legend and axis leave, which is
    // only estimated here.
    const double rowPx = std::ceil(1.2 * lineH / kBarWidth);
    const double framePx = QFontMetricsF(theme::plotFont(10.5, true), this).height() + 7 * lineH;
    return int(std::ceil(framePx + rowPx * double(std::max<qsizetype>(1, runIds_.size()))));
}

void OccupancyBarsPlot::rebuild() {
    clearPlottables();
    clearItems();
    runIds_.clear();
    if (plotLayout()->rowCount() == 1) {
        plotLayout()->insertRow(0);
        plotLayout()->addElement(0, 0,
                                 new QCPTextElement(this, QString(), theme::plotFont(10.5, true)));
        plotLayout()->addElement(2, 0, legend);
        plotLayout()->setRowStretchFactor(2, 0.001);
        plotLayout()->setRowSpacing(2);
        legend->setFillOrder(QCPLegend::foColumnsFirst);
        legend->setWrap(2);
        legend->setBorderPen(Qt::NoPen);
        legend->setFont(theme::plotFont(theme::kMinPlotPt));
        legend->setMargins(QMargins(4, 0, 4, 2));
    }
    legend->setVisible(true);

    auto* group = new QCPBarsGroup(this);
    group->setSpacingType(QCPBarsGroup::stAbsolute);
    group->setSpacing(1);
    auto* theoretical = makeBars(this, tr("theoretical"), theme::theoreticalColor(), group);
    auto* achieved = makeBars(this, tr("achieved"), theme::achievedColor(), group);
    auto* busy = makeBars(this, tr("thread slots working"), theme::slotsBusyColor(), group);

    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    int key = 0;
    const QFont valueFont = theme::plotFont(theme::kMinPlotPt);
    const bool withDevice = models::devicesDiffer(session_->runs());
    qsizetype total = 0;
    const auto rows = models::chartOccupancyRows(session_->runs(), state_->selectedRun(), total);
    if (auto* title = qobject_cast<QCPTextElement*>(plotLayout()->element(0, 0))) {
        title->setText(tr("Occupancy of each GPU run") + models::chartRowsNote(rows.size(), total));
        title->setFont(theme::plotFont(10.5, true));
    }
    for (const auto& row : rows) {
        if (row.runId == state_->selectedRun()) {
            auto* band = new QCPItemRect(this);
            band->topLeft->setCoords(-5, key - 0.48);
            band->bottomRight->setCoords(200, key + 0.48);
            band->setPen(Qt::NoPen);
            band->setBrush(QColor(0xff, 0xf3, 0xc4));
            band->setClipToAxisRect(true);
            band->setLayer(QStringLiteral("grid")); // under the bars, which live on "main"
        }
        ticker->addTick(key, tickLabel(row, withDevice));
        theoretical->addData(key, row.theoretical * 100);
        if (row.threadSlotsBusy) {
            busy->addData(key, *row.threadSlotsBusy * 100);
        }
        if (row.achieved) {
            achieved->addData(key, *row.achieved * 100);
        }
        const auto label = [&](double fraction, double offset) {
            auto* text = new QCPItemText(this);
            text->position->setCoords(fraction * 100 + 1.5, key + offset);
            text->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
            text->setText(percentLabel(fraction));
            text->setFont(valueFont);
            text->setColor(QColor(0x33, 0x33, 0x33));
            text->setClipToAxisRect(false);
        };
        label(row.theoretical, -kBarWidth);
        if (row.achieved) {
            label(*row.achieved, 0);
        }
        if (row.threadSlotsBusy) {
            label(*row.threadSlotsBusy, kBarWidth);
        }
        runIds_ << row.runId;
        ++key;
    }
    if (runIds_.isEmpty()) {
        auto* text = new QCPItemText(this);
        text->position->setType(QCPItemPosition::ptAxisRectRatio);
        text->position->setCoords(0.5, 0.5);
        text->setText(tr("No GPU runs yet.\nOccupancy is how a GPU launch fills the SMs;\n"
                         "CPU runs have none."));
        text->setFont(theme::plotFont(theme::kMinPlotPt));
        text->setColor(QColor(0x66, 0x66, 0x66));
        legend->setVisible(false);
    }
    if (achieved->dataCount() == 0) {
        achieved->removeFromLegend(); // none measured: no promise of a bar that is not there
    }
    xAxis->setVisible(!runIds_.isEmpty());
    yAxis->setVisible(!runIds_.isEmpty());
    yAxis->setTicker(ticker);
    yAxis->setRangeReversed(true);
    yAxis->setRange(-0.6, std::max(0, key - 1) + 0.6);
    yAxis->setTickLabelFont(theme::plotFont(theme::kMinPlotPt));
    yAxis->setSubTicks(false);
    yAxis->setTickLength(0, 0);
    yAxis->grid()->setVisible(false);
    xAxis->setRange(0, 118);
    QSharedPointer<QCPAxisTickerFixed> percent(new QCPAxisTickerFixed);
    percent->setTickStep(25);
    xAxis->setTicker(percent);
    xAxis->setLabel(tr("% of the SMs' warp or thread slots"));
    xAxis->setLabelFont(theme::plotFont(theme::kMinPlotPt));
    xAxis->setTickLabelFont(theme::plotFont(theme::kMinPlotPt));
    // Every run legible: the panel beside the timeline scrolls rather than squeezing the labels.
    setMinimumHeight(preferredHeight());
    replot(QCustomPlot::rpQueuedReplot);
}

void OccupancyBarsPlot::mousePressEvent(QMouseEvent* event) {
    QCustomPlot::mousePressEvent(event);
    if (runIds_.isEmpty() || !axisRect()->rect().contains(event->pos())) {
        return;
    }
    const int key = int(std::lround(yAxis->pixelToCoord(event->position().y())));
    if (key >= 0 && key < runIds_.size()) {
        state_->setSelectedRun(runIds_[key]);
    }
}

RowsChart OccupancyBarsPlot::chartFor(const models::Session& session, const QString& selectedRun) {
    RowsChart chart;
    chart.title = QStringLiteral("Occupancy of each GPU run and kernel");
    chart.axisLabel = QStringLiteral("% of the SMs' warp or thread slots");
    chart.emptyText = QStringLiteral(
        "No GPU kernels: occupancy is how a GPU launch fills the SMs, and CPU runs have none.");
    chart.maxValue = 100;
    chart.ticks = {0, 25, 50, 75, 100};
    chart.tickText = [](double v, double) { return QStringLiteral("%1 %").arg(v); };
    const bool withDevice = models::devicesDiffer(session.runs());
    bool anyAchieved = false, anyBusy = false, anyLaunch = false;
    QStringList predicted; // the kinds of predicted rows: "modelled", "projected"
    qsizetype total = 0;
    const auto rows = models::chartOccupancyRows(session.runs(), selectedRun, total);
    chart.title += models::chartRowsNote(rows.size(), total);
    for (const auto& r : rows) {
        ChartRow row;
        row.label = r.kernel.isEmpty() ? r.runId : models::shortKernelName(r.kernel);
        QStringList sub;
        if (!r.kernel.isEmpty()) {
            sub << QStringLiteral("in ") + r.runId;
        }
        if (withDevice) {
            sub << r.device;
        }
        if (!r.predicted.isEmpty()) {
            sub << r.predicted;
        }
        row.subLabel = sub.join(QStringLiteral(" \u00b7 "));
        row.hatched = !r.predicted.isEmpty();
        row.selected = r.runId == selectedRun;
        row.tooltip = (r.kernel.isEmpty() ? r.runId : r.kernel + QStringLiteral(" in ") + r.runId)
                          .toHtmlEscaped();
        if (r.launch) {
            anyLaunch = true;
            row.bars << RowBar{{RowSegment{*r.launch * 100, theme::launchColor()}},
                               percentLabel(*r.launch)};
        }
        row.bars << RowBar{{RowSegment{r.theoretical * 100, theme::theoreticalColor()}},
                           percentLabel(r.theoretical)};
        if (r.achieved) {
            anyAchieved = true;
            row.bars << RowBar{{RowSegment{*r.achieved * 100, theme::achievedColor()}},
                               percentLabel(*r.achieved)};
        }
        if (r.threadSlotsBusy) {
            anyBusy = true;
            row.bars << RowBar{{RowSegment{*r.threadSlotsBusy * 100, theme::slotsBusyColor()}},
                               percentLabel(*r.threadSlotsBusy)};
        }
        if (!r.predicted.isEmpty() && !predicted.contains(r.predicted)) {
            predicted << r.predicted;
        }
        chart.rows << row;
    }
    if (anyLaunch) {
        chart.legend << LegendItem{QStringLiteral("launch (its grid's share of the GPU)"),
                                   theme::launchColor(), false};
    }
    chart.legend << LegendItem{QStringLiteral("theoretical"), theme::theoreticalColor(), false};
    if (anyAchieved) {
        chart.legend << LegendItem{QStringLiteral("achieved"), theme::achievedColor(), false};
    }
    if (anyBusy) {
        chart.legend << LegendItem{QStringLiteral("thread slots working"), theme::slotsBusyColor(),
                                   false};
    }
    if (!predicted.isEmpty()) {
        chart.legend << LegendItem{QStringLiteral("hatched: ") +
                                       predicted.join(QStringLiteral(" or ")),
                                   QColor(0x88, 0x88, 0x88), true};
    }
    return chart;
}

} // namespace slicescope::gui
