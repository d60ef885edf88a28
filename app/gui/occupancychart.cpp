#include "gui/occupancychart.h"

#include "gui/theme.h"
#include "models/chartrows.h"
#include "models/occupancyfacts.h"
#include "models/runnaming.h"
#include "models/session.h"
#include "models/viewstate.h"

#include <algorithm>
#include <optional>

namespace slicescope::gui {

namespace {

// One figure's bar: its share of the slots (0..1) and the figure in words, or, where the row
// lacks the figure, no bar and why.
RowBar figureBar(std::optional<double> fraction, const QColor& color, const QString& missing) {
    if (!fraction) {
        return RowBar{{}, missing};
    }
    return RowBar{{RowSegment{*fraction * 100, color}},
                  models::toQString(trace::formatPercent(*fraction))};
}

} // namespace

OccupancyChart::OccupancyChart(models::Session* session, models::ViewState* state, QWidget* parent)
    : RowsChartWidget(state, parent), session_(session), state_(state) {
    setObjectName(QStringLiteral("occupancyChart"));
    setToolTip(QStringLiteral(
        "<b>Occupancy</b>: how many of the GPU's warp slots a launch keeps filled.<ul>"
        "<li><b>Launch occupancy</b>: the share of the whole GPU's warp slots the launch's grid "
        "can fill; one block leaves every other SM empty.</li>"
        "<li><b>Per-SM limit (CUDA's theoretical occupancy)</b>: how full each SM that gets "
        "blocks can be, given the block size, registers and shared memory.</li>"
        "<li><b>Achieved occupancy</b>: what the SMs really held on average (CUPTI counters; "
        "only for GPU runs measured with counters).</li>"
        "<li><b>Thread slots busy</b>: threads that have work / (SMs \u00d7 threads per SM). "
        "One block with one busy thread scores almost 0 %.</li></ul>"));
    connect(session_, &models::Session::changed, this, &OccupancyChart::rebuild);
    connect(state_, &models::ViewState::selectedRunChanged, this, &OccupancyChart::rebuild);
    rebuild();
}

void OccupancyChart::rebuild() {
    setChart(chartFor(*session_, state_->selectedRun()));
}

RowsChart OccupancyChart::chartFor(const models::Session& session, const QString& selectedRun) {
    RowsChart chart;
    chart.title = QStringLiteral("Occupancy of each GPU run and kernel");
    chart.axisLabel = QStringLiteral("% of the SMs' warp or thread slots");
    chart.emptyText = QStringLiteral(
        "No GPU kernels: occupancy is how a GPU launch fills the SMs, and CPU runs have none.");
    chart.maxValue = 100;
    chart.ticks = {0, 25, 50, 75, 100};
    chart.tickText = [](double v, double) { return QStringLiteral("%1 %").arg(v); };
    const bool withDevice = models::devicesDiffer(session.runs());
    QStringList predicted; // the kinds of predicted rows: "modelled", "projected"
    qsizetype total = 0;
    const auto rows = models::chartOccupancyRows(session.runs(), selectedRun, total);
    chart.title += models::chartRowsNote(rows.size(), total);
    // Every row draws the same figures in the same order (the legend's), so that the third bar,
    // or the third value of a compact line, means one thing down the chart; a row without a
    // figure others have says so where its bar would be.
    const auto anyRow = [&rows](auto has) { return std::any_of(rows.begin(), rows.end(), has); };
    const bool anyLaunch = anyRow([](const models::OccupancyRow& r) { return r.launch; });
    const bool anyAchieved = anyRow([](const models::OccupancyRow& r) { return r.achieved; });
    const bool anyBusy = anyRow([](const models::OccupancyRow& r) { return r.threadSlotsBusy; });
    for (const auto& r : rows) {
        ChartRow row;
        row.id = r.runId;
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
        if (anyLaunch) {
            row.bars << figureBar(r.launch, theme::launchColor(), QStringLiteral("unknown"));
        }
        row.bars << figureBar(r.theoretical, theme::theoreticalColor(), {});
        if (anyAchieved) {
            row.bars << figureBar(r.achieved, theme::achievedColor(),
                                  QStringLiteral("no counters"));
        }
        if (anyBusy) {
            row.bars << figureBar(r.threadSlotsBusy, theme::slotsBusyColor(),
                                  QStringLiteral("unknown"));
        }
        if (!r.predicted.isEmpty() && !predicted.contains(r.predicted)) {
            predicted << r.predicted;
        }
        chart.rows << row;
    }
    if (anyLaunch) {
        chart.legend << LegendItem{QStringLiteral("launch occupancy"), theme::launchColor(), false};
    }
    chart.legend << LegendItem{QStringLiteral("per-SM limit (theoretical occupancy)"),
                               theme::theoreticalColor(), false};
    if (anyAchieved) {
        // A compact line puts a dash where a row lacks the figure.
        const bool someWithout = anyRow([](const models::OccupancyRow& r) { return !r.achieved; });
        chart.legend << LegendItem{someWithout
                                       ? QStringLiteral("achieved occupancy (\u2013: no counters)")
                                       : QStringLiteral("achieved occupancy"),
                                   theme::achievedColor(), false};
    }
    if (anyBusy) {
        chart.legend << LegendItem{QStringLiteral("thread slots busy"), theme::slotsBusyColor(),
                                   false};
    }
    if (!predicted.isEmpty()) {
        chart.legend << hatchedLegend(predicted);
    }
    return chart;
}

} // namespace slicescope::gui
