// The breakdown chart (time per repetition by kind of work, from the trace's activities), the
// per-run occupancy rows with recorded kernels, and the rows chart painter they share.
#include "gui/breakdownchart.h"
#include "gui/occupancychart.h"
#include "gui/occupancyview.h"
#include "gui/reportrenderer.h"
#include "gui/rowschart.h"
#include "gui/theme.h"
#include "models/chartrows.h"
#include "models/occupancyfacts.h"
#include "models/runbreakdown.h"
#include "models/session.h"
#include "models/traceloader.h"
#include "models/viewstate.h"
#include "slicescope/trace/runsummary.h"
#include "testhelpers.h"
#include "textlayout.h"

#include <QCheckBox>
#include <QImage>
#include <QLabel>
#include <QPainter>
#include <QRegularExpression>
#include <QTest>
#include <algorithm>

using namespace slicescope;
using namespace slicescope::models;
using namespace slicescope::gui;

namespace {

void loadSample(Session& session, const QString& name) {
    LoadResult result =
        TraceLoader::loadNow(QStringLiteral(SLICESCOPE_SAMPLES_DIR "/") + name, RunOrigin::Sample);
    QVERIFY2(result.ok(), qPrintable(result.error));
    session.addRuns(std::move(result.runs));
}

const BreakdownRow* rowOf(const QVector<BreakdownRow>& rows, const QString& id) {
    for (const auto& row : rows) {
        if (row.runId == id) {
            return &row;
        }
    }
    return nullptr;
}

} // namespace

class TestBreakdownChart : public QObject {
    Q_OBJECT
  private slots:
    void figuresComeFromTheActivities();
    void perRepetitionDividesByRepeat();
    void chartHatchesModelledRunsAndNamesDevices();
    void logSwitchAndClickSelect();
    void chartsOfManyRunsShowTheNewestAndTheSelected();
    void chartRowsAreWhatCuttingEveryRunsRowsKeeps();
    void recordedKernelsHaveOccupancyRows();
    void occupancyChartShowsTheLaunchsShare();
    void occupancyBarsKeepTheLegendsOrderInEveryRow();
    void narrowChartsKeepTheirRows();
    void recordedRunFacts();
    void elideMiddleKeepsBothEnds();
    void timeAxisReadsInOneUnit();
    void noRoomForOneRowSaysSo();
    void windowDrawsEveryRowInFull_data();
    void windowDrawsEveryRowInFull();
    void occupancyBarsInTheWindowAreLegible_data();
    void occupancyBarsInTheWindowAreLegible();
};

void TestBreakdownChart::figuresComeFromTheActivities() {
    Session session;
    loadSample(session, QStringLiteral("seed-100x4000x5-f64-pageable.json"));
    const auto rows = breakdownRows(session.runs());
    QCOMPARE(rows.size(), session.count()); // every run of the seed sample spent time
    for (const auto& entry : session.runs()) {
        const BreakdownRow* row = rowOf(rows, entry->id);
        QVERIFY(row);
        // Sums over the activities themselves, not the summary's own figures; the warm-up
        // iterations are not part of the per-repetition figure.
        std::int64_t htod = 0, kernel = 0, dtoh = 0;
        for (const auto& a : entry->run->activities) {
            const std::int64_t d = a.warmup ? 0 : a.durationNs();
            htod += a.kind == trace::ActivityKind::HtoD ? d : 0;
            kernel += a.kind == trace::ActivityKind::Kernel ? d : 0;
            dtoh += a.kind == trace::ActivityKind::DtoH ? d : 0;
        }
        QCOMPARE(row->part(BreakdownPart::HtoD), double(htod));
        QCOMPARE(row->part(BreakdownPart::Kernel), double(kernel));
        QCOMPARE(row->part(BreakdownPart::DtoH), double(dtoh));
    }
    // The sample warms up first, GPU runs included, so the warm-up was left out above.
    const auto& gpu = *session.at(0)->run;
    QVERIFY(std::any_of(gpu.activities.begin(), gpu.activities.end(), [](const trace::Activity& a) {
        return a.warmup && a.kind == trace::ActivityKind::Kernel;
    }));
    // The layout passes the strategies need are their own part; CPU runs are host compute.
    QVERIFY(rowOf(rows, QStringLiteral("slice-middle"))->part(BreakdownPart::HostLayout) > 0);
    QVERIFY(
        rowOf(rows, QStringLiteral("elementwise-materialized"))->part(BreakdownPart::HostLayout) >
        0);
    QCOMPARE(rowOf(rows, QStringLiteral("slice-outer"))->part(BreakdownPart::HostLayout), 0.0);
    QVERIFY(rowOf(rows, QStringLiteral("cpu-parallel"))->part(BreakdownPart::HostCompute) > 0);
    QCOMPARE(rowOf(rows, QStringLiteral("cpu-parallel"))->part(BreakdownPart::Kernel), 0.0);
}

void TestBreakdownChart::perRepetitionDividesByRepeat() {
    Session session;
    session.addRuns({makeRunEntry(testhelpers::gpuShapedRun("a", trace::RunMode::MeasuredGpu, 1),
                                  RunOrigin::Opened),
                     makeRunEntry(testhelpers::gpuShapedRun("b", trace::RunMode::MeasuredGpu, 4),
                                  RunOrigin::Opened)});
    const auto rows = breakdownRows(session.runs());
    QCOMPARE(rows.size(), 2);
    QCOMPARE(rows[1].repeat, 4u);
    QCOMPARE(rows[1].totalNs(), rows[0].totalNs()); // four repetitions of the same work
    session.setVisible(0, false);
    QCOMPARE(breakdownRows(session.runs()).size(), 1);
}

void TestBreakdownChart::chartHatchesModelledRunsAndNamesDevices() {
    Session session;
    trace::Run modelled = testhelpers::gpuShapedRun("slice-outer", trace::RunMode::Modelled);
    modelled.device.id = "gtx-970";
    modelled.device.name = "NVIDIA GeForce GTX 970";
    session.addRuns(
        {makeRunEntry(testhelpers::gpuShapedRun("slice-outer", trace::RunMode::MeasuredGpu),
                      RunOrigin::Opened),
         makeRunEntry(modelled, RunOrigin::Opened)});
    const RowsChart chart = BreakdownChart::chartFor(session, QStringLiteral("slice-outer"), false);
    QCOMPARE(chart.rows.size(), 2);
    QVERIFY(!chart.rows[0].hatched);
    QVERIFY(chart.rows[1].hatched);
    QVERIFY(chart.rows[0].selected);
    QVERIFY(chart.rows[1].subLabel.contains(QStringLiteral("modelled")));
    // The devices differ: each label carries its device.
    QVERIFY(chart.rows[0].subLabel.contains(QStringLiteral("H200")));
    QVERIFY(chart.rows[1].subLabel.contains(QStringLiteral("GTX 970")));
    QVERIFY(chart.rows[1].bars[0].valueText.contains(QStringLiteral("modelled")));
    bool hatchLegend = false;
    for (const auto& item : chart.legend) {
        hatchLegend = hatchLegend || item.hatched;
    }
    QVERIFY(hatchLegend);
    // The occupancy chart labels them the same way.
    const RowsChart occupancy = OccupancyChart::chartFor(session, QString());
    QCOMPARE(occupancy.rows.size(), 2);
    QVERIFY(occupancy.rows[1].subLabel.contains(QStringLiteral("GTX 970")));
}

void TestBreakdownChart::logSwitchAndClickSelect() {
    Session session;
    ViewState state;
    loadSample(session, QStringLiteral("seed-100x4000x5-f64-pageable.json"));
    BreakdownChart chart(&session, &state);
    chart.resize(520, 600);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    QCOMPARE(chart.runIds().size(), session.count());
    QVERIFY(!chart.logScale());
    QVERIFY(
        !BreakdownChart::chartFor(session, {}, false).axisLabel.contains(QStringLiteral("log")));
    chart.logSwitch()->click();
    QVERIFY(chart.logScale());
    QVERIFY(BreakdownChart::chartFor(session, {}, true).axisLabel.contains(QStringLiteral("log")));
    // The canvas grows with the runs; a click on the third row selects that run.
    auto* canvas = chart.findChild<QWidget*>(QStringLiteral("breakdownCanvas"));
    QVERIFY(canvas);
    QVERIFY(canvas->height() > 9 * 20);
    QTest::qWait(50);
    const RowsChart drawn = BreakdownChart::chartFor(session, {}, true);
    QImage image(canvas->size(), QImage::Format_ARGB32_Premultiplied);
    QPainter painter(&image);
    const auto rects =
        RowsChartPainter::paint(painter, QRectF(canvas->rect()).adjusted(2, 2, -2, -2), drawn);
    painter.end();
    QCOMPARE(rects.size(), session.count());
    QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, rects[2].center().toPoint());
    QCOMPARE(state.selectedRun(), chart.runIds()[2]);
}

// A row per run: at 100,000 runs the breakdown chart laid out and painted every one on the GUI
// thread for seconds. The per-run charts show the newest kMaxChartRows rows, with the selected
// run in place of the oldest of them when it is older, and their titles say so; the window's
// chart maps a click to the row drawn.
void TestBreakdownChart::chartsOfManyRunsShowTheNewestAndTheSelected() {
    const int runs = int(kMaxChartRows) + 50;
    std::vector<RunEntryPtr> entries;
    for (int i = 0; i < runs; ++i) {
        entries.push_back(makeRunEntry(
            testhelpers::gpuShapedRun("run-" + std::to_string(i), trace::RunMode::Modelled),
            RunOrigin::Opened));
    }
    Session session;
    session.addRuns(std::move(entries));
    const QString newest = QStringLiteral("run-%1").arg(runs - 1);
    for (const QString& selected : {newest, QStringLiteral("run-3")}) {
        const RowsChart breakdown = BreakdownChart::chartFor(session, selected, false);
        const RowsChart occupancy = OccupancyChart::chartFor(session, selected);
        for (const RowsChart* chart : {&breakdown, &occupancy}) {
            QCOMPARE(chart->rows.size(), kMaxChartRows);
            QVERIFY2(chart->title.endsWith(
                         QStringLiteral(" (the newest %1 of %2)").arg(kMaxChartRows).arg(runs)),
                     qPrintable(chart->title));
            QCOMPARE(chart->rows.last().label, newest);
            const bool selectedShown = selected == newest;
            QCOMPARE(chart->rows.first().label,
                     selectedShown ? QStringLiteral("run-%1").arg(runs - kMaxChartRows) : selected);
            QVERIFY(selectedShown ? chart->rows.last().selected : chart->rows.first().selected);
        }
    }
    ViewState state;
    state.setSelectedRun(QStringLiteral("run-3"));
    BreakdownChart chart(&session, &state);
    QCOMPARE(chart.runIds().size(), kMaxChartRows);
    QCOMPARE(chart.runIds().first(), QStringLiteral("run-3"));
    QCOMPARE(chart.runIds().last(), newest);
}

// The charts build rows only for the runs they show (models::chartRowsOf): the rows and the total
// are those of cutting every run's rows (keepChartRows), whatever is selected. Recorded runs give
// a row per kernel, CPU runs no occupancy row, hidden runs none.
void TestBreakdownChart::chartRowsAreWhatCuttingEveryRunsRowsKeeps() {
    Session recorded;
    loadSample(recorded, QStringLiteral("recorded-numba.json"));
    const trace::Run kernels = *recorded.at(0)->run;
    QVERIFY(occupancyRowCount(*recorded.at(0)) >= 3);
    const auto ids = [](const auto& rows) {
        QStringList out;
        for (const auto& row : rows) {
            out << row.runId;
        }
        return out;
    };
    const auto kernelsOf = [](const QVector<OccupancyRow>& rows) {
        QStringList out;
        for (const auto& row : rows) {
            out << row.kernel;
        }
        return out;
    };
    for (const int count : {5, int(kMaxChartRows) + 120}) {
        std::vector<RunEntryPtr> entries;
        for (int i = 0; i < count; ++i) {
            const std::string id = "run-" + std::to_string(i);
            trace::Run run =
                i % 7 == 3 ? kernels : testhelpers::gpuShapedRun(id, trace::RunMode::Modelled);
            run.id = id;
            if (i % 7 != 3 && i % 2 == 1) {
                run.mode = trace::RunMode::MeasuredCpu;
                run.activities = {testhelpers::activity(trace::ActivityKind::Host, 0, 1000 + i)};
                run.launch.reset();
                run.occupancy.reset();
            }
            entries.push_back(makeRunEntry(std::move(run), RunOrigin::Opened));
        }
        Session session;
        session.addRuns(std::move(entries));
        session.setVisible(1, false);
        session.setVisible(count - 2, false);
        const QStringList selections{QString(),
                                     session.at(count - 1)->id,
                                     session.at(0)->id,
                                     session.at(1)->id, // hidden
                                     session.at(3)->id, // recorded: several rows
                                     session.at(std::min(5, count - 1))->id, // CPU: no occupancy
                                     QStringLiteral("no such run")};
        for (const QString& selected : selections) {
            const QString where = QStringLiteral("%1 runs, %2 selected").arg(count).arg(selected);
            auto allBreakdown = breakdownRows(session.runs());
            const qsizetype breakdownTotal = keepChartRows(allBreakdown, selected);
            qsizetype total = -1;
            const auto breakdown = chartBreakdownRows(session.runs(), selected, total);
            QVERIFY2(total == breakdownTotal, qPrintable(where));
            QVERIFY2(ids(breakdown) == ids(allBreakdown), qPrintable(where));
            QVERIFY2(breakdown.front().ns == allBreakdown.front().ns, qPrintable(where));

            auto allOccupancy = occupancyRows(session.runs());
            const qsizetype occupancyTotal = keepChartRows(allOccupancy, selected);
            const auto occupancy = chartOccupancyRows(session.runs(), selected, total);
            QVERIFY2(total == occupancyTotal, qPrintable(where));
            QVERIFY2(ids(occupancy) == ids(allOccupancy), qPrintable(where));
            QVERIFY2(kernelsOf(occupancy) == kernelsOf(allOccupancy), qPrintable(where));
            QVERIFY2(occupancy.front().theoretical == allOccupancy.front().theoretical,
                     qPrintable(where));
            if (count > kMaxChartRows) {
                QCOMPARE(occupancy.size(), kMaxChartRows);
            }
        }
    }
}

void TestBreakdownChart::recordedKernelsHaveOccupancyRows() {
    Session session;
    ViewState state;
    loadSample(session, QStringLiteral("recorded-numba.json"));
    const auto rows = occupancyRows(session.runs());
    QVERIFY(rows.size() >= 3); // whole array, outer slices, vectorized: each kernel by name
    for (const auto& row : rows) {
        QCOMPARE(row.runId, session.at(0)->id);
        QVERIFY(!row.kernel.isEmpty());
        QVERIFY(row.kernelGroup >= 0);
        QVERIFY(row.theoretical > 0);
    }
    OccupancyView view(&session, &state);
    state.setSelectedRun(session.at(0)->id);
    QCOMPARE(view.occupancyChart()->runIds().size(),
             rows.size()); // no "No GPU runs" beside a kernel
    // Labelled by short names that stay apart (the long ones differ only in their middle).
    const RowsChart chart = OccupancyChart::chartFor(session, {});
    QStringList labels;
    for (const auto& row : chart.rows) {
        QVERIFY2(!labels.contains(row.label), qPrintable(row.label));
        labels << row.label;
    }
    QVERIFY(labels.contains(QStringLiteral("__gufunc_whole_array")));
    QCOMPARE(shortKernelName(QStringLiteral(
                 "void slicescope::kernels::oneWorkerKernel<double>(slicescope::kernels::Args)")),
             QStringLiteral("oneWorkerKernel<double>"));
    QCOMPARE(shortKernelName(QStringLiteral("fill")), QStringLiteral("fill"));
    QCOMPARE(shortKernelName(QStringLiteral("ns::f<a::b>(int)")), QStringLiteral("f<a::b>"));
}

// The occupancy chart (window and export) gives each run's launch occupancy, its grid's share
// of the GPU, before CUDA's per-SM figure: one-worker's single block is far below its 100 %.
void TestBreakdownChart::occupancyChartShowsTheLaunchsShare() {
    Session session;
    loadSample(session, QStringLiteral("seed-100x4000x5-f64-pageable.json"));
    const auto rows = occupancyRows(session.runs());
    const auto oneWorker = std::find_if(rows.begin(), rows.end(), [](const OccupancyRow& r) {
        return r.runId == QStringLiteral("one-worker");
    });
    QVERIFY(oneWorker != rows.end());
    QVERIFY(oneWorker->launch.has_value());
    const auto expected =
        trace::launchOccupancyOf(*session.at(session.indexOf(QStringLiteral("one-worker")))->run);
    QVERIFY(expected.has_value());
    QCOMPARE(*oneWorker->launch, expected->occupancy);
    QVERIFY(*oneWorker->launch < 0.05 && oneWorker->theoretical > 0.5);
    const RowsChart chart = OccupancyChart::chartFor(session, {});
    QVERIFY(chart.legend.front().text.startsWith(QStringLiteral("launch")));
    for (const auto& row : chart.rows) {
        if (row.label == QStringLiteral("one-worker")) {
            QCOMPARE(row.bars.size(), qsizetype(3)); // launch, per-SM limit, thread slots working
            QCOMPARE(row.bars.front().segments.front().value, *oneWorker->launch * 100);
        }
    }
}

// A session of runs with counters and runs without: the third bar of every row (and the third
// figure of a compact line) is the same figure, the legend's third; a row lacking it says why.
void TestBreakdownChart::occupancyBarsKeepTheLegendsOrderInEveryRow() {
    Session session;
    loadSample(session, QStringLiteral("seed-100x4000x5-f64-pageable.json"));
    loadSample(session, QStringLiteral("seed-100x4000x5-f64-pageable-counters.json"));
    loadSample(session, QStringLiteral("recorded-numba.json"));
    const RowsChart chart = OccupancyChart::chartFor(session, {});
    QVector<QColor> order;
    for (const auto& item : chart.legend) {
        if (!item.hatched) {
            order << item.color;
        }
    }
    QCOMPARE(order.size(), qsizetype(4)); // launch, per-SM limit, achieved, thread slots busy
    bool someWithout = false, someWith = false;
    for (const auto& row : chart.rows) {
        QCOMPARE(row.bars.size(), order.size());
        for (qsizetype i = 0; i < order.size(); ++i) {
            const RowBar& bar = row.bars[i];
            QVERIFY2(!bar.valueText.isEmpty(), qPrintable(row.label));
            if (bar.segments.isEmpty()) {
                QVERIFY2(!bar.valueText.contains(QLatin1Char('%')), qPrintable(bar.valueText));
            } else {
                QCOMPARE(bar.segments.front().color, order[i]);
            }
        }
        (row.bars[2].segments.isEmpty() ? someWithout : someWith) = true;
    }
    QVERIFY(someWith && someWithout);
}

// A report's two-column chart of 27 runs (488 px wide at hd): each compact line's figures
// ("0.024 % · 100 % · – · 0.00037 %") and labels left the bars no room, and the chart drew its
// legend and no row. The labels and then the figures give way; the bars keep a fifth.
void TestBreakdownChart::narrowChartsKeepTheirRows() {
    Session session;
    loadSample(session, QStringLiteral("seed-100x4000x5-f64-pageable.json"));
    loadSample(session, QStringLiteral("seed-100x4000x5-f64-pageable-counters.json"));
    loadSample(session, QStringLiteral("larger-400x16000x5-f64-pinned.json"));
    const RowsChart chart = OccupancyChart::chartFor(session, {});
    for (const double width : {488.0, 300.0}) {
        QImage image(int(width), 322, QImage::Format_RGB32);
        image.fill(Qt::white);
        QPainter painter(&image);
        const auto rows = RowsChartPainter::paint(painter, QRectF(0, 0, width, 322), chart);
        QVERIFY2(rows.size() >= 5, qPrintable(QString::number(rows.size())));
    }
}

void TestBreakdownChart::recordedRunFacts() {
    Session session;
    loadSample(session, QStringLiteral("recorded-numba.json"));
    const auto& entry = *session.at(0);
    QVERIFY(!entry.kernels.isEmpty());
    for (const auto& kernel : entry.kernels) {
        const OccupancyFacts facts = computeOccupancyFacts(entry, kernel);
        QVERIFY2(!facts.launchWords.contains(QStringLiteral("1 blocks")),
                 qPrintable(facts.launchWords));
        QVERIFY2(!facts.launchWords.contains(QStringLiteral("1 launches")),
                 qPrintable(facts.launchWords));
        if (kernel.grid.count() == 1) {
            QVERIFY(facts.launchWords.startsWith(QStringLiteral("1 block of")));
        }
        QVERIFY2(facts.title.size() < 120, qPrintable(facts.title)); // mangled names are cut
    }
}

void TestBreakdownChart::elideMiddleKeepsBothEnds() {
    const QString name = QStringLiteral("__main__::__gufunc_whole_array[abi:v2][abi:"
                                        "cw51cXTLSUwv1sDUaKthqaNgoKmjgOR3W3Cw6igA9duC0hk]");
    const QString cut = elideMiddle(name, 30);
    QCOMPARE(cut.size(), 30);
    QVERIFY(cut.startsWith(QStringLiteral("__main__::")));
    QVERIFY(cut.endsWith(QStringLiteral("C0hk]")));
    QVERIFY(cut.contains(QChar(0x2026)));
    QCOMPARE(elideMiddle(QStringLiteral("short"), 30), QStringLiteral("short"));
}

void TestBreakdownChart::timeAxisReadsInOneUnit() {
    Session session;
    loadSample(session, QStringLiteral("seed-100x4000x5-f64-pageable.json"));
    const RowsChart linear = BreakdownChart::chartFor(session, {}, false);
    QCOMPARE(linear.tickText(0, 20e6), QStringLiteral("0"));
    QCOMPARE(linear.tickText(2.5e6, 20e6), QStringLiteral("2.5 ms"));
    QCOMPARE(linear.tickText(5e5, 2e6), QStringLiteral("0.5 ms"));
    QCOMPARE(linear.tickText(5e5, 8e5), QString::fromUtf8("500 \u00b5s"));
    QCOMPARE(linear.tickText(1.5e9, 2e9), QStringLiteral("1.5 s"));
    const RowsChart log = BreakdownChart::chartFor(session, {}, true);
    QCOMPARE(log.tickText(100, 1e9), QStringLiteral("100 ns"));
    QCOMPARE(log.tickText(1e3, 1e9), QString::fromUtf8("1 \u00b5s"));
    QCOMPARE(log.tickText(1e7, 1e9), QStringLiteral("10 ms"));

    // As painted: the tick row is the lowest row of texts that are times. Linear: starts at "0",
    // every other tick in the unit of the last. Log: starts above 0.
    static const QRegularExpression time(QString::fromUtf8("^([0-9.]+)( (ns|\u00b5s|ms|s))?$"));
    for (const RowsChart& chart : {linear, log}) {
        QImage probe(1, 1, QImage::Format_ARGB32_Premultiplied);
        const QSize size(900, int(RowsChartPainter::preferredHeight(chart, 900, &probe)) + 20);
        const QVector<TextBox> boxes = recordTextBoxes(size, [&](QCPPainter& painter) {
            RowsChartPainter::paint(painter, QRectF(QPointF(0, 0), QSizeF(size)), chart);
        });
        double tickTop = -1;
        for (const auto& box : boxes) {
            if (time.match(box.text).hasMatch()) {
                tickTop = std::max(tickTop, box.rect.top());
            }
        }
        QStringList ticks;
        for (const auto& box : boxes) {
            if (time.match(box.text).hasMatch() && std::abs(box.rect.top() - tickTop) < 0.5) {
                ticks << box.text;
            }
        }
        QVERIFY2(ticks.size() >= 3, qPrintable(ticks.join(QLatin1Char('|'))));
        const QString unit = time.match(ticks.back()).captured(3);
        if (chart.log) {
            QVERIFY2(!ticks.contains(QStringLiteral("0")),
                     qPrintable(ticks.join(QLatin1Char('|'))));
            QVERIFY(time.match(ticks.front()).captured(1).toDouble() > 0);
        } else {
            QCOMPARE(ticks.front(), QStringLiteral("0"));
            for (int i = 1; i < ticks.size(); ++i) {
                QCOMPARE(time.match(ticks[i]).captured(3), unit);
            }
        }
    }
}

void TestBreakdownChart::windowDrawsEveryRowInFull_data() {
    QTest::addColumn<int>("width");
    QTest::newRow("narrow") << 320;
    QTest::newRow("panel") << 480;
    QTest::newRow("wide") << 900;
}

void TestBreakdownChart::windowDrawsEveryRowInFull() {
    // Runs on two devices, some modelled: every row has a second line (device, "modelled"). The
    // window's chart is as tall as its rows need (the panel scrolls), so none is squeezed into
    // the one-line compact form that exports fall back to.
    QFETCH(int, width);
    Session session;
    ViewState state;
    loadSample(session, QStringLiteral("seed-100x4000x5-f64-pageable.json"));
    trace::Run k2000 = testhelpers::gpuShapedRun("slice-outer", trace::RunMode::Modelled);
    k2000.device.name = "Quadro K2000";
    session.addRuns({makeRunEntry(std::move(k2000), RunOrigin::Opened)});
    BreakdownChart chart(&session, &state);
    chart.resize(width, 400);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.resize(width, chart.sizeHint().height());
    QTest::qWait(20);
    chart.repaint();
    const QVector<QRectF> rows = chart.rowRects();
    QCOMPARE(rows.size(), session.count());
    const double lineH = QFontMetricsF(theme::plotFont(9), &chart).height();
    for (const QRectF& row : rows) {
        QVERIFY2(row.height() >= 2 * lineH, qPrintable(QString::number(row.height())));
    }
}

void TestBreakdownChart::occupancyBarsInTheWindowAreLegible_data() {
    QTest::addColumn<QString>("sample");
    QTest::newRow("seed") << QStringLiteral("seed-100x4000x5-f64-pageable-counters.json");
    QTest::newRow("recorded") << QStringLiteral("recorded-numba.json");
}

void TestBreakdownChart::occupancyBarsInTheWindowAreLegible() {
    // The window's chart, drawn at the height it takes: 9 pt text at least, none over another.
    QFETCH(QString, sample);
    Session session;
    ViewState state;
    loadSample(session, sample);
    OccupancyChart chart(&session, &state);
    QVERIFY(!chart.runIds().isEmpty());
    chart.setFixedWidth(480);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    QTRY_COMPARE(chart.height(), chart.heightForWidth(480)); // as tall as its rows need
    const QSize size = chart.size();
    const QVector<TextBox> boxes =
        recordTextBoxes(size, [&](QCPPainter& painter) { chart.render(&painter); });
    QVERIFY(boxes.size() > 3 * chart.runIds().size());
    const QString problem = testhelpers::textLayoutProblem(boxes, size, theme::kMinPlotPt);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
}

// A chart given room for its title and one line, not for a row: the line says how many rows
// are left out, rather than the title standing over nothing.
void TestBreakdownChart::noRoomForOneRowSaysSo() {
    Session session;
    loadSample(session, QStringLiteral("seed-100x4000x5-f64-pageable.json"));
    const RowsChart chart = BreakdownChart::chartFor(session, {}, false);
    QVERIFY(chart.rows.size() > 1);
    QImage probe(1, 1, QImage::Format_ARGB32_Premultiplied);
    const QFontMetricsF fm(theme::plotFont(9), &probe);
    const QSize size(900, int(fm.height() * 4));
    const QVector<TextBox> boxes = recordTextBoxes(size, [&](QCPPainter& painter) {
        RowsChartPainter::paint(painter, QRectF(QPointF(0, 0), QSizeF(size)), chart);
    });
    const QString line = QStringLiteral("%1 rows not shown").arg(chart.rows.size());
    QVERIFY(std::any_of(boxes.begin(), boxes.end(),
                        [&](const TextBox& box) { return box.text.startsWith(line); }));
    QVERIFY2(testhelpers::textLayoutProblem(boxes, size, 0).isEmpty(),
             qPrintable(testhelpers::textLayoutProblem(boxes, size, 0)));
}

QTEST_MAIN(TestBreakdownChart)
#include "tst_breakdownchart.moc"
