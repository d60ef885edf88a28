// The occupancy view: bars for every GPU run, and for the selected run the SM map, the launch and
// limiter in plain words, the occupancy curves and the occupancy-over-time series.
#include "gui/breakdownchart.h"
#include "gui/helpmenu.h"
#include "gui/occupancychart.h"
#include "gui/occupancycurveplot.h"
#include "gui/occupancyview.h"
#include "gui/qcp.h"
#include "gui/smmapwidget.h"
#include "gui/textboxes.h"
#include "gui/theme.h"
#include "gui/wheelguard.h"
#include "models/occupancyfacts.h"
#include "models/runlistmodel.h"
#include "models/session.h"
#include "models/traceloader.h"
#include "models/viewstate.h"
#include "slicescope/trace/runsummary.h"
#include "testhelpers.h"
#include "textlayout.h"

#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QScopeGuard>
#include <QScrollArea>
#include <QScrollBar>
#include <QTest>
#include <QWheelEvent>
#include <algorithm>
#include <functional>
#include <utility>
#include <vector>

using namespace slicescope;
using namespace slicescope::models;
using namespace slicescope::gui;

namespace {

trace::Run cpuRun() {
    trace::Run run;
    run.id = "cpu-serial";
    run.mode = trace::RunMode::MeasuredCpu;
    run.activities.push_back(testhelpers::activity(trace::ActivityKind::Host, 0, 1000));
    return run;
}

// A recorded program's run: no single launch, kernels of two configurations (one launched twice),
// with the occupancies the recorder gives each kernel.
trace::Run recordedRun() {
    trace::Run run = testhelpers::gpuShapedRun("recorded", trace::RunMode::Recorded);
    run.strategy = "recorded";
    run.problem.reset();
    run.launch.reset();
    run.occupancy.reset();
    run.activities.clear();
    auto kernel = [&](const char* name, std::int64_t start, Dim3 grid, Dim3 block,
                      std::uint16_t regs, float theoretical, float achieved) {
        trace::Activity a = testhelpers::activity(trace::ActivityKind::Kernel, start, start + 1000);
        a.nameId = run.intern(name);
        a.grid = grid;
        a.block = block;
        a.registersPerThread = regs;
        a.theoreticalOccupancy = theoretical;
        a.achievedOccupancy = achieved;
        run.activities.push_back(a);
    };
    kernel("void fill<double>(double*, double, int)", 1000, {40, 1, 1}, {256, 1, 1}, 16, 1.0f,
           0.5f);
    run.activities.push_back(testhelpers::activity(trace::ActivityKind::HtoD, 2500, 3000));
    kernel("tile_sum(double const*, double*, int)", 4000, {8, 4, 1}, {32, 8, 1}, 56, 0.75f,
           trace::kNoValue);
    kernel("void fill<double>(double*, double, int)", 6000, {40, 1, 1}, {256, 1, 1}, 16, 1.0f,
           0.25f);
    return run;
}

// A recorded run of one kernel launch (30 registers a thread, full theoretical occupancy), with
// the share of lanes its counters measured active (trace::kNoValue: recorded without them).
RunEntryPtr oneKernelEntry(const char* name, Dim3 grid, Dim3 block, float laneShare) {
    trace::Run run = recordedRun();
    run.activities.clear();
    trace::Activity a = testhelpers::activity(trace::ActivityKind::Kernel, 0, 1000);
    a.nameId = run.intern(name);
    a.grid = grid;
    a.block = block;
    a.registersPerThread = 30;
    a.theoreticalOccupancy = 1.0f;
    a.activeLaneShare = laneShare;
    run.activities.push_back(a);
    return makeRunEntry(run, RunOrigin::Opened);
}

} // namespace

class TestOccupancyView : public QObject {
    Q_OBJECT
  private slots:
    void factsOfTheSeedsSliceOuter();
    void cpuRunsHaveNoOccupancy();
    void curvesMarkTheRunsChoice();
    void viewFollowsTheSelectedRun();
    void smMapComesRightUnderTheHeadline();
    void headlineIsTheLaunchOccupancyOfOneWorker();
    void oneWorkerIsNeverCalledFullOnlyItsPerSmLimit();
    void helpExplainsBothFiguresWithOneWorker();
    void seriesShownOnlyWhenSampled();
    void barsForGpuRunsOnlyAndClickSelects();
    void recordedRunShowsEveryKernel();
    void manyKernelConfigurationsListTheLongest();
    void recordedThreadUseIsMeasuredOrUnknown();
    void threadSlotsBusyIsOneFigure();
    void warpsThatExitAtOnceDoNoWork();
    void anotherRunsMapSitsBeside();
    void numbasLaunchIsExplained();
    void wheelScrollsThePaneOverItsCharts();
    void largeTextFitsThePaneWidth_data();
    void largeTextFitsThePaneWidth();
    void docsNameTheFiguresAsTheWindowDoes();
};

void TestOccupancyView::factsOfTheSeedsSliceOuter() {
    const auto entry = makeRunEntry(
        testhelpers::gpuShapedRun("slice-outer", trace::RunMode::Modelled), RunOrigin::Opened);
    const OccupancyFacts f = computeOccupancyFacts(*entry);
    QVERIFY(f.hasLaunch);
    QCOMPARE(f.title, QStringLiteral("slice-outer on NVIDIA H200 (modelled)"));
    QCOMPARE(f.launchWords,
             QStringLiteral("2 blocks of 64 threads; 100 threads work; 130 of 132 SMs idle"));
    QVERIFY(f.limiterWords.startsWith(QStringLiteral("Per-SM limiter: warps.")));
    QCOMPARE(f.blockSize, 64u);
    QCOMPARE(f.activeBlocksPerSm, 32u);
    QCOMPARE(f.residency.sms.size(), std::size_t(132));
    QCOMPARE(f.residency.sms[0].busyThreads, std::uint64_t(64));
    QCOMPARE(f.residency.sms[1].busyThreads, std::uint64_t(36));
    QCOMPARE(f.residency.idleSms, 130u);
    QCOMPARE(SmMapWidget::summary(f.residency),
             QStringLiteral("2 of 132 SMs hold a block, 130 idle."));
}

void TestOccupancyView::cpuRunsHaveNoOccupancy() {
    const auto entry = makeRunEntry(cpuRun(), RunOrigin::Opened);
    const OccupancyFacts f = computeOccupancyFacts(*entry);
    QVERIFY(!f.hasLaunch);
    QVERIFY(f.problem.contains(QStringLiteral("CPU")));
    QVERIFY(f.blockSizes.isEmpty());
}

void TestOccupancyView::curvesMarkTheRunsChoice() {
    const auto entry = makeRunEntry(
        testhelpers::gpuShapedRun("slice-outer", trace::RunMode::MeasuredGpu), RunOrigin::Opened);
    const OccupancyFacts f = computeOccupancyFacts(*entry);
    QVERIFY2(f.curveError.isEmpty(), qPrintable(f.curveError));
    QCOMPARE(f.blockSizes.size(), 32); // 32, 64, ..., 1024
    QCOMPARE(f.blockSizes.front(), 32.0);
    QCOMPARE(f.blockSizes.back(), 1024.0);
    QCOMPARE(f.registers.size(), 256); // 0 .. 255
    for (double occ : f.occupancyByBlockSize) {
        QVERIFY(occ >= 0 && occ <= 1);
    }
    // More registers per thread never raises occupancy.
    for (qsizetype i = 1; i < f.occupancyByRegisters.size(); ++i) {
        QVERIFY(f.occupancyByRegisters[i] <= f.occupancyByRegisters[i - 1] + 1e-12);
    }
    OccupancyCurvePlot plot;
    plot.setFacts(f);
    QCOMPARE(plot.blockMarker().x(), 64.0);
    QCOMPARE(plot.blockMarker().y(), f.occupancyByBlockSize[1]);
    QCOMPARE(plot.registerMarker().x(), 32.0);
    QCOMPARE(plot.registerMarker().y(), f.occupancyByRegisters[32]);
}

void TestOccupancyView::viewFollowsTheSelectedRun() {
    Session session;
    ViewState state;
    OccupancyView view(&session, &state);
    session.addRuns(
        {makeRunEntry(testhelpers::gpuShapedRun("slice-outer", trace::RunMode::MeasuredGpu),
                      RunOrigin::Opened),
         makeRunEntry(cpuRun(), RunOrigin::Opened)});
    state.setSelectedRun(QStringLiteral("slice-outer"));
    QCOMPARE(view.shownRun(), QStringLiteral("slice-outer"));
    QCOMPARE(view.findChild<QLabel*>(QStringLiteral("launchWords"))->text(),
             QStringLiteral("2 blocks of 64 threads; 100 threads work; 130 of 132 SMs idle."));
    QCOMPARE(view.smMap()->residency().sms.size(), std::size_t(132));
    QVERIFY(!view.smMap()->isHidden());
    state.setSelectedRun(QStringLiteral("cpu-serial"));
    QVERIFY(view.findChild<QLabel*>(QStringLiteral("launchWords"))
                ->text()
                .contains(QStringLiteral("CPU")));
    QVERIFY(view.smMap()->isHidden());
    session.clear();
    QVERIFY(view.shownRun().isEmpty());
}

// Issue 27: the SM map is the pane's second item, right under the headline in plain words and
// above the launch's details, so a short window (1280x720) shows both without scrolling.
void TestOccupancyView::smMapComesRightUnderTheHeadline() {
    Session session;
    ViewState state;
    OccupancyView view(&session, &state);
    view.resize(360, 900);
    session.addRuns({makeRunEntry(
        testhelpers::gpuShapedRun("slice-outer", trace::RunMode::MeasuredGpu), RunOrigin::Opened)});
    state.setSelectedRun(QStringLiteral("slice-outer"));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const auto top = [&view](const QWidget* w) { return w->mapTo(&view, QPoint(0, 0)).y(); };
    const auto* headline = view.findChild<QLabel*>(QStringLiteral("launchOccupancyHeadline"));
    const auto* launch = view.findChild<QLabel*>(QStringLiteral("launchWords"));
    QVERIFY(headline && launch && !launch->text().isEmpty());
    QVERIFY2(top(headline) < top(view.smMap()), "the headline comes first");
    QVERIFY2(top(view.smMap()) < top(launch), "the SM map comes before the launch's details");
}

// Issue 27: one-worker (1 block of 64 threads on 132 SMs) fills each busy SM's warp slots (per-SM
// limit 100 %) but 2 of the GPU's 132 x 64 warp slots: the view says the latter first.
void TestOccupancyView::headlineIsTheLaunchOccupancyOfOneWorker() {
    Session session;
    ViewState state;
    OccupancyView view(&session, &state);
    trace::Run oneWorker = testhelpers::gpuShapedRun("one-worker", trace::RunMode::Modelled);
    oneWorker.launch->grid = {1, 1, 1};
    oneWorker.launch->workers = 1;
    session.addRuns({makeRunEntry(oneWorker, RunOrigin::Opened)});
    state.setSelectedRun(QStringLiteral("one-worker"));
    const QString headline =
        view.findChild<QLabel*>(QStringLiteral("launchOccupancyHeadline"))->text();
    const QString launchShare = QString::fromStdString(trace::formatPercent(2.0 / (132 * 64)));
    QVERIFY2(headline.startsWith(QStringLiteral("This launch fills ") + launchShare +
                                 QStringLiteral(" of the GPU's warp slots, limited by the grid.")),
             qPrintable(headline));
    QVERIFY2(headline.contains(QStringLiteral("131 SMs idle")), qPrintable(headline));
    QVERIFY2(headline.count(launchShare) == 1, qPrintable(headline)); // said once, not twice
    QVERIFY2(headline.endsWith(QStringLiteral("Per-SM limit (CUDA's theoretical occupancy): ") +
                               QString::fromStdString(trace::formatPercent(1.0)) +
                               QLatin1Char('.')),
             qPrintable(headline));
    QCOMPARE(launchShare, QStringLiteral("0.024 %"));
}

// The words under the headline called one-worker's launch "64 of 64 warps, 100 % occupancy"
// (the calculator's sentence, stored in the shipped traces): the per-SM limit, said as such.
void TestOccupancyView::oneWorkerIsNeverCalledFullOnlyItsPerSmLimit() {
    LoadResult result = TraceLoader::loadNow(
        QStringLiteral(SLICESCOPE_SAMPLES_DIR "/seed-100x4000x5-f64-pageable.json"),
        RunOrigin::Opened);
    QVERIFY2(result.ok(), qPrintable(result.error));
    const auto it = std::find_if(result.runs.begin(), result.runs.end(), [](const auto& e) {
        return e->id == QStringLiteral("one-worker");
    });
    QVERIFY(it != result.runs.end());
    const OccupancyFacts f = computeOccupancyFacts(**it);
    QVERIFY2(f.limiterWords.startsWith(QStringLiteral("Per-SM limiter: warps.")),
             qPrintable(f.limiterWords));
    QVERIFY2(!f.limiterWords.contains(QStringLiteral("% occupancy")), qPrintable(f.limiterWords));
    QVERIFY2(f.limiterWords.contains(QStringLiteral(
                 "64 of 64 warps, a per-SM limit of 100 % (CUDA's theoretical occupancy).")),
             qPrintable(f.limiterWords));
}

void TestOccupancyView::helpExplainsBothFiguresWithOneWorker() {
    const QString help = HelpMenu::occupancyHtml();
    // It counts the figures it then names (it said "two" before naming four).
    QVERIFY(help.contains(QStringLiteral("four occupancy figures")));
    for (const char* figure : {"Launch occupancy", "per-SM limit (CUDA's theoretical occupancy)",
                               "Achieved occupancy", "Thread slots busy"}) {
        QVERIFY2(help.contains(QLatin1String(figure)), figure);
    }
    QVERIFY(help.contains(QStringLiteral("Launch occupancy")));
    QVERIFY(help.contains(QStringLiteral("per-SM limit (CUDA's theoretical occupancy)")));
    // The same figures the view gives one-worker.
    QVERIFY(help.contains(
        QStringLiteral("1 block of 64 threads on the H200's 132 SMs: per-SM limit ") +
        QString::fromStdString(trace::formatPercent(1.0)) + QStringLiteral(", launch occupancy ") +
        QString::fromStdString(trace::formatPercent(2.0 / (132 * 64)))));
}

void TestOccupancyView::seriesShownOnlyWhenSampled() {
    Session session;
    ViewState state;
    OccupancyView view(&session, &state);
    trace::Run sampled = testhelpers::gpuShapedRun("sampled", trace::RunMode::MeasuredGpu);
    for (int i = 0; i < 10; ++i) {
        sampled.occupancySeries.push_back({sampled.activities[2].startNs + i * 1'000'000, 0.5f});
    }
    session.addRuns({makeRunEntry(sampled, RunOrigin::Opened),
                     makeRunEntry(testhelpers::gpuShapedRun("plain", trace::RunMode::MeasuredGpu),
                                  RunOrigin::Opened)});
    state.setSelectedRun(QStringLiteral("sampled"));
    QVERIFY(!view.seriesPlot()->isHidden());
    QCOMPARE(view.seriesPlot()->graphCount(), 1);
    QCOMPARE(view.seriesPlot()->graph(0)->dataCount(), 10);
    state.setSelectedRun(QStringLiteral("plain"));
    QVERIFY(view.seriesPlot()->isHidden());
    QVERIFY(view.findChild<QLabel*>(QStringLiteral("noSeries"))
                ->text()
                .contains(QStringLiteral("sample occupancy")));
}

void TestOccupancyView::barsForGpuRunsOnlyAndClickSelects() {
    Session session;
    ViewState state;
    OccupancyChart bars(&session, &state);
    session.addRuns({makeRunEntry(testhelpers::gpuShapedRun("a", trace::RunMode::MeasuredGpu),
                                  RunOrigin::Opened),
                     makeRunEntry(cpuRun(), RunOrigin::Opened),
                     makeRunEntry(testhelpers::gpuShapedRun("b", trace::RunMode::Modelled),
                                  RunOrigin::Opened)});
    QCOMPARE(bars.runIds(), (QStringList{QStringLiteral("a"), QStringLiteral("b")}));
    // Each row: the launch's share, the per-SM limit, the thread slots busy; never an achieved
    // bar that was not measured (no bar, not a zero) and no legend entry promising one.
    const auto barOf = [](const ChartRow& row, const QColor& color) -> const RowBar* {
        for (const RowBar& bar : row.bars) {
            if (bar.segments.front().color == color) {
                return &bar;
            }
        }
        return nullptr;
    };
    for (const ChartRow& row : bars.chart().rows) {
        QVERIFY(barOf(row, theme::launchColor()));
        QVERIFY(barOf(row, theme::slotsBusyColor()));
        QVERIFY(!barOf(row, theme::achievedColor()));
        QCOMPARE(barOf(row, theme::theoreticalColor())->segments.front().value, 100.0);
    }
    for (const LegendItem& item : bars.chart().legend) {
        QVERIFY(!item.text.startsWith(QStringLiteral("achieved")));
    }
    state.setSelectedRun(QStringLiteral("a"));
    QVERIFY(bars.chart().rows[0].selected);
    QVERIFY(!bars.chart().rows[1].selected);
    bars.resize(500, 300);
    bars.show();
    QVERIFY(QTest::qWaitForWindowExposed(&bars));
    QTRY_COMPARE(bars.rowRects().size(), 2);
    QTest::mouseClick(&bars, Qt::LeftButton, Qt::NoModifier, bars.rowRects()[1].center().toPoint());
    QCOMPARE(state.selectedRun(), QStringLiteral("b"));
}

void TestOccupancyView::recordedRunShowsEveryKernel() {
    Session session;
    ViewState state;
    OccupancyView view(&session, &state);
    session.addRuns({makeRunEntry(recordedRun(), RunOrigin::Opened)});
    state.setSelectedRun(QStringLiteral("recorded"));
    auto* choice = view.kernelChoice();
    QVERIFY(!choice->isHidden());
    QCOMPARE(choice->count(), 2);
    QCOMPARE(choice->itemText(0),
             QStringLiteral("void fill<double>(double*, double, int): grid 40\u00d71\u00d71, block "
                            "256\u00d71\u00d71, 2 launches"));
    QCOMPARE(choice->itemText(1),
             QStringLiteral("tile_sum(double const*, double*, int): grid 8\u00d74\u00d71, block "
                            "32\u00d78\u00d71, 1 launch"));
    // The first kernel: the recorder's theoretical occupancy and the mean achieved one.
    QVERIFY(view.facts().hasLaunch);
    QCOMPARE(view.facts().blockSize, 256u);
    QCOMPARE(view.facts().theoretical, 1.0);
    QVERIFY(view.facts().achieved.has_value());
    QCOMPARE(*view.facts().achieved, 0.375);
    QVERIFY(view.facts().title.startsWith(
        QStringLiteral("void fill<double>(double*, double, int) in recorded")));
    QVERIFY(!view.smMap()->isHidden());
    choice->setCurrentIndex(1);
    QCOMPARE(view.facts().blockSize, 256u); // 32 x 8
    QCOMPARE(view.facts().registersPerThread, 56u);
    QCOMPARE(view.facts().theoretical, 0.75);
    QVERIFY(!view.facts().achieved.has_value());
    // Selecting a kernel on the timeline selects its entry here.
    state.setSelectedActivity({QStringLiteral("recorded"), 3});
    QCOMPARE(choice->currentIndex(), 0);
    // A run with a launch configuration has no chooser.
    session.addRuns({makeRunEntry(
        testhelpers::gpuShapedRun("slice-outer", trace::RunMode::MeasuredGpu), RunOrigin::Opened)});
    state.setSelectedRun(QStringLiteral("slice-outer"));
    QVERIFY(choice->isHidden());
}

void TestOccupancyView::recordedThreadUseIsMeasuredOrUnknown() {
    // numba's whole-array gufunc: one block of 1024 threads, one of which works. With counters the
    // recorder stores the share of lanes active per warp instruction (1 of 32); without, nothing.
    auto gufunc = [](float laneShare) {
        return oneKernelEntry("gufunc", {1, 1, 1}, {1024, 1, 1}, laneShare);
    };
    const auto measured = gufunc(1.0f / 32);
    const auto facts = computeOccupancyFacts(*measured, measured->kernels.front());
    QVERIFY(facts.residency.workKnown);
    QVERIFY(facts.threadSlotsBusyKnown);
    std::uint32_t busyWarps = 0, residentWarps = 0;
    for (const auto& sm : facts.residency.sms) {
        busyWarps += sm.busyWarps;
        residentWarps += sm.warps;
    }
    QCOMPARE(residentWarps, 32u);
    QCOMPARE(busyWarps, 1u); // not 32: one warp's worth of work
    const auto& device = measured->run->device;
    QCOMPARE(facts.threadSlotsBusy, 32.0 / (double(device.smCount) * device.maxThreadsPerSm));
    QVERIFY2(facts.launchWords.contains(QStringLiteral("1.0 of 32 threads active")),
             qPrintable(facts.launchWords));
    const auto rows = occupancyRows({measured});
    QCOMPARE(rows.size(), 1);
    QVERIFY(rows.front().threadSlotsBusy.has_value());
    QVERIFY(*rows.front().threadSlotsBusy < 0.001);

    const auto unknown = gufunc(trace::kNoValue);
    const auto without = computeOccupancyFacts(*unknown, unknown->kernels.front());
    QVERIFY(!without.residency.workKnown);
    QVERIFY(!without.threadSlotsBusyKnown);
    for (const auto& sm : without.residency.sms) {
        QCOMPARE(sm.busyWarps, 0u);
    }
    QVERIFY2(without.launchWords.contains(QStringLiteral("unknown")),
             qPrintable(without.launchWords));
    QVERIFY(SmMapWidget::summary(without.residency).contains(QStringLiteral("unknown")));
    QVERIFY(!occupancyRows({unknown}).front().threadSlotsBusy.has_value());
}

void TestOccupancyView::threadSlotsBusyIsOneFigure() {
    // A kernel of many waves whose lanes half work: the kernel's facts and its occupancy row say
    // the same share of thread slots busy (both from kernelThreadSlotsBusy).
    const auto entry = oneKernelEntry("waves", {10000, 1, 1}, {256, 1, 1}, 0.5f);
    const auto facts = computeOccupancyFacts(*entry, entry->kernels.front());
    const auto rows = occupancyRows({entry});
    QCOMPARE(rows.size(), 1);
    QVERIFY(rows.front().threadSlotsBusy.has_value());
    QVERIFY(facts.threadSlotsBusyKnown);
    QVERIFY(facts.threadSlotsBusy > 0);
    QCOMPARE(*rows.front().threadSlotsBusy, facts.threadSlotsBusy);
    // The first wave's resident threads all have work: the SM map adds up to the same figure.
    double busy = 0;
    for (const auto& sm : facts.residency.sms) {
        busy += double(sm.busyThreads);
    }
    const auto& device = entry->run->device;
    QCOMPARE(facts.threadSlotsBusy, busy / (double(device.smCount) * device.maxThreadsPerSm));
}

void TestOccupancyView::warpsThatExitAtOnceDoNoWork() {
    // The shipped numba recording: the whole-array gufunc's 32 warps, of which one runs on one
    // lane (lane share 1/32, achieved occupancy 1 warp of 64). Its bar read 32 threads' worth
    // (0.012 %) while its words said one thread did the work; the warps that stayed resident say
    // 1 thread (0.00037 %). The outer-slice gufunc: about 100 threads (its 100 rows), not 800.
    // The elementwise kernel of many waves keeps its launched threads.
    LoadResult loaded = TraceLoader::loadNow(
        QStringLiteral(SLICESCOPE_SAMPLES_DIR "/recorded-numba.json"), RunOrigin::Sample);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error));
    const RunEntryPtr entry = loaded.runs.front();
    const auto& device = entry->run->device;
    const double threadSlots = double(device.smCount) * device.maxThreadsPerSm;
    const auto busyOf = [&](const QString& name) -> std::optional<OccupancyFacts> {
        for (const auto& kernel : entry->kernels) {
            if (kernel.name.contains(name)) {
                return computeOccupancyFacts(*entry, kernel);
            }
        }
        return std::nullopt;
    };
    const auto whole = busyOf(QStringLiteral("whole_array"));
    QVERIFY(whole);
    QCOMPARE(whole->threadSlotsBusy, 1 / threadSlots);
    QVERIFY2(whole->launchWords.contains(QStringLiteral("about 1 thread's worth of work")),
             qPrintable(whole->launchWords));
    QVERIFY2(whole->launchWords.contains(QStringLiteral("about 1.0 warps stayed resident")),
             qPrintable(whole->launchWords));
    std::uint64_t busyThreads = 0;
    for (const auto& sm : whole->residency.sms) {
        busyThreads += sm.busyThreads;
    }
    QCOMPARE(busyThreads, std::uint64_t(1));

    const auto outer = busyOf(QStringLiteral("outer_slice"));
    QVERIFY(outer);
    QVERIFY2(outer->threadSlotsBusy * threadSlots > 80 &&
                 outer->threadSlotsBusy * threadSlots < 120,
             qPrintable(outer->launchWords));

    const auto elementwise = busyOf(QStringLiteral("vectorized_multiply"));
    QVERIFY(elementwise);
    QCOMPARE(elementwise->threadSlotsBusy, 1.0);
    QVERIFY2(!elementwise->launchWords.contains(QStringLiteral("stayed resident")),
             qPrintable(elementwise->launchWords));

    // The occupancy chart's rows draw the same figures.
    for (const auto& row : occupancyRows({entry})) {
        QVERIFY(row.threadSlotsBusy.has_value());
        if (row.kernel.contains(QStringLiteral("whole_array"))) {
            QCOMPARE(*row.threadSlotsBusy, 1 / threadSlots);
        }
    }
}

void TestOccupancyView::manyKernelConfigurationsListTheLongest() {
    // A recorded program whose launches vary with its input: 2,000 configurations of one kernel,
    // the i-th taking i microseconds.
    trace::Run run;
    run.id = "varied";
    run.strategy = "recorded";
    run.mode = trace::RunMode::Recorded;
    run.device = testhelpers::gpuShapedRun("x", trace::RunMode::MeasuredGpu).device;
    const std::uint32_t name = run.intern("scan_kernel(int*, int)");
    std::int64_t t = 0;
    for (std::uint32_t i = 1; i <= 2000; ++i) {
        auto kernel =
            testhelpers::activity(trace::ActivityKind::Kernel, t, t + std::int64_t(i) * 1000);
        kernel.nameId = name;
        kernel.grid = {i, 1, 1};
        kernel.block = {256, 1, 1};
        run.activities.push_back(kernel);
        t += std::int64_t(i) * 1000 + 500;
    }
    Session session;
    ViewState state;
    OccupancyView view(&session, &state);
    const RunEntryPtr entry = makeRunEntry(std::move(run), RunOrigin::Opened);
    // Grouped with the entry (off the GUI thread in the loader), the longest kept.
    QCOMPARE(entry->kernelConfigurations, 2000);
    QCOMPARE(entry->kernels.size(), kMaxKernelGroups);
    session.addRuns({entry});
    state.setSelectedRun(QStringLiteral("varied"));
    auto* choice = view.kernelChoice();
    QCOMPARE(choice->count(), 500);
    // The 500 longest (grids 1501..2000), in launch order.
    QVERIFY(choice->itemText(0).contains(QStringLiteral("grid 1501\u00d7")));
    QVERIFY(choice->itemText(499).contains(QStringLiteral("grid 2000\u00d7")));
    QVERIFY(choice->toolTip().contains(QStringLiteral("2000 kernel configurations")));
}

// The seed's lesson side by side: one-worker's map (one busy SM) beside slice-outer's (two), each
// under its name and launch occupancy; the choice goes when its run does.
void TestOccupancyView::anotherRunsMapSitsBeside() {
    Session session;
    ViewState state;
    OccupancyView view(&session, &state);
    trace::Run oneWorker = testhelpers::gpuShapedRun("one-worker", trace::RunMode::Modelled);
    oneWorker.launch->grid = {1, 1, 1};
    oneWorker.launch->workers = 1;
    session.addRuns(
        {makeRunEntry(oneWorker, RunOrigin::Opened),
         makeRunEntry(testhelpers::gpuShapedRun("slice-outer", trace::RunMode::Modelled),
                      RunOrigin::Opened),
         makeRunEntry(cpuRun(), RunOrigin::Opened)});
    state.setSelectedRun(QStringLiteral("one-worker"));
    QComboBox* beside = view.besideChoice();
    QCOMPARE(beside->count(), 2); // none, and the other GPU run (not the CPU run, not itself)
    QVERIFY(!view.besideMap()->isVisibleTo(&view));
    beside->setCurrentIndex(beside->findData(QStringLiteral("slice-outer")));
    QVERIFY(view.besideMap()->isVisibleTo(&view));
    const auto busy = [](const SmMapWidget* map) {
        return std::count_if(map->residency().sms.begin(), map->residency().sms.end(),
                             [](const auto& sm) { return sm.blocks > 0; });
    };
    QCOMPARE(busy(view.smMap()), 1);
    QCOMPARE(busy(view.besideMap()), 2);
    QCOMPARE(view.findChild<QLabel*>(QStringLiteral("mapTitle"))->text(),
             QStringLiteral("one-worker: 0.024 % of the GPU"));
    QCOMPARE(view.findChild<QLabel*>(QStringLiteral("besideTitle"))->text(),
             QStringLiteral("slice-outer: 0.047 % of the GPU"));
    session.removeRun(1);
    QCOMPARE(beside->currentData().toString(), QString());
    QVERIFY(!view.besideMap()->isVisibleTo(&view));
}

// A recorded numba kernel: the headline gives its own share of the GPU, and a paragraph says how
// numba chose its grid (the seed's whole-array gufunc: one block, one working thread).
void TestOccupancyView::numbasLaunchIsExplained() {
    Session session;
    ViewState state;
    OccupancyView view(&session, &state);
    session.addRuns({oneKernelEntry(
        "__main__::__gufunc_whole_array[abi:v2](Array<double, 3, A, mutable, aligned>, "
        "Array<double, 4, A, mutable, aligned>, Array<double, 4, A, mutable, aligned>)",
        {1, 1, 1}, {1024, 1, 1}, 1.0f / 32)});
    state.setSelectedRun(session.at(0)->id);
    auto* words = view.findChild<QLabel*>(QStringLiteral("launchChoiceWords"));
    QVERIFY(!words->isHidden());
    QVERIFY2(words->text().contains(QStringLiteral("whole_array")), qPrintable(words->text()));
    QVERIFY2(words->text().contains(QStringLiteral("one thread of its warp did the work")),
             qPrintable(words->text()));
    const QString headline =
        view.findChild<QLabel*>(QStringLiteral("launchOccupancyHeadline"))->text();
    QVERIFY2(headline.startsWith(QStringLiteral("This launch fills ")), qPrintable(headline));
    QVERIFY2(headline.contains(QStringLiteral("limited by the grid")), qPrintable(headline));
    // Not numba's: no paragraph.
    session.clear();
    session.addRuns(
        {oneKernelEntry("void fill<double>(double*, double, int)", {40, 1, 1}, {256, 1, 1}, 1.0f)});
    state.setSelectedRun(session.at(0)->id);
    QVERIFY(words->isHidden());
}

// The pane scrolls with the wheel wherever the pointer is, its charts included.
void TestOccupancyView::wheelScrollsThePaneOverItsCharts() {
    WheelGuard::installOnApplication();
    Session session;
    ViewState state;
    QScrollArea scroll;
    auto* view = new OccupancyView(&session, &state);
    scroll.setWidget(view);
    scroll.setWidgetResizable(true);
    scroll.resize(360, 300);
    session.addRuns({makeRunEntry(
        testhelpers::gpuShapedRun("slice-outer", trace::RunMode::Modelled), RunOrigin::Opened)});
    state.setSelectedRun(QStringLiteral("slice-outer"));
    scroll.show();
    QVERIFY(QTest::qWaitForWindowExposed(&scroll));
    QScrollBar* bar = scroll.verticalScrollBar();
    QTRY_VERIFY(bar->maximum() > 0);
    // The plot: the wheel guard hands its wheel on to the scroll area.
    QWidget* curves = view->curvePlot();
    const QPointF at(curves->width() / 2.0, curves->height() / 2.0);
    QWheelEvent wheel(at, curves->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(curves, &wheel);
    QVERIFY(bar->value() > 0);
    // The painted charts take no wheel: Qt hands a wheel they leave to their parents, the scroll
    // area (a synthesized event goes no further, so the test sees only that they leave it).
    for (QWidget* chart : {static_cast<QWidget*>(view->occupancyChart()),
                           static_cast<QWidget*>(view->breakdownChart())}) {
        const QPointF middle(chart->width() / 2.0, chart->height() / 2.0);
        QWheelEvent over(middle, chart->mapToGlobal(middle), QPoint(), QPoint(0, -120),
                         Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(chart, &over);
        QVERIFY2(!over.isAccepted(), chart->metaObject()->className());
    }
}

void TestOccupancyView::largeTextFitsThePaneWidth_data() {
    QTest::addColumn<double>("scale");
    QTest::addColumn<int>("width");
    QTest::newRow("1x, 300 px") << 1.0 << 300;
    QTest::newRow("1.4x (Larger text), 340 px") << 1.4 << 340;
    QTest::newRow("1.5x, 380 px") << 1.5 << 380;
    QTest::newRow("2x, 460 px") << 2.0 << 460;
}

// With large text (the application's font and the charts' scaled up, as View > Larger text
// does) the pane beside the timeline never clips its text at the side: it needs no sideways
// scrolling, every label lies inside the viewport and shows all of its lines, and the charts'
// texts stay inside them, none over another. Rows dense with counters (four bars: launch,
// per-SM limit, achieved, thread slots busy) keep apart.
void TestOccupancyView::largeTextFitsThePaneWidth() {
    QFETCH(double, scale);
    QFETCH(int, width);
    const QFont baseFont = QApplication::font();
    const auto restore = qScopeGuard([&] {
        theme::setPresentationScale(1.0);
        QApplication::setFont(baseFont);
    });
    QFont font = baseFont;
    font.setPointSizeF(baseFont.pointSizeF() * scale);
    QApplication::setFont(font);
    theme::setPresentationScale(scale);

    Session session;
    ViewState state;
    for (const char* sample :
         {"seed-100x4000x5-f64-pageable-counters.json", "recorded-numba.json"}) {
        LoadResult result = TraceLoader::loadNow(
            QStringLiteral(SLICESCOPE_SAMPLES_DIR "/") + QLatin1String(sample), RunOrigin::Opened);
        QVERIFY2(result.ok(), qPrintable(result.error));
        session.addRuns(std::move(result.runs));
    }
    QScrollArea scroll;
    auto* view = new OccupancyView(&session, &state);
    scroll.setWidget(view);
    scroll.setWidgetResizable(true);
    scroll.resize(width, 900);
    scroll.show();
    QVERIFY(QTest::qWaitForWindowExposed(&scroll));
    for (const QString& run : {QStringLiteral("one-worker"), QStringLiteral("seed_numba")}) {
        state.setSelectedRun(run);
        if (run == QStringLiteral("one-worker")) {
            view->besideChoice()->setCurrentIndex(
                view->besideChoice()->findData(QStringLiteral("slice-middle")));
        }
        QApplication::processEvents();
        QTest::qWait(50);
        const int viewportW = scroll.viewport()->width();
        const QString where =
            QStringLiteral("%1 at %2x in %3 px: ").arg(run).arg(scale).arg(viewportW);
        QVERIFY2(scroll.horizontalScrollBar()->maximum() == 0,
                 qPrintable(where + QStringLiteral("scrolls sideways by %1 px")
                                        .arg(scroll.horizontalScrollBar()->maximum())));
        for (const QWidget* widget : view->findChildren<QWidget*>()) {
            if (!widget->isVisibleTo(view)) {
                continue;
            }
            const QRect inView(widget->mapTo(view, QPoint(0, 0)), widget->size());
            QVERIFY2(inView.right() < viewportW,
                     qPrintable(where + widget->objectName() + QLatin1Char(' ') +
                                QString::fromLatin1(widget->metaObject()->className()) +
                                QStringLiteral(" reaches x %1").arg(inView.right())));
            const auto* label = qobject_cast<const QLabel*>(widget);
            if (!label || label->text().isEmpty()) {
                continue;
            }
            const int need = label->wordWrap() ? label->heightForWidth(label->width())
                                               : label->sizeHint().height();
            QVERIFY2(label->height() >= need &&
                         (label->wordWrap() || label->sizeHint().width() <= label->width()),
                     qPrintable(where + QStringLiteral("'%1' is cut").arg(label->text())));
        }
        // The painted charts as the window paints them; the plot as its export draws it (its
        // text as text).
        QWidget* breakdown =
            view->breakdownChart()->findChild<QWidget*>(QStringLiteral("breakdownCanvas"));
        QVERIFY(breakdown);
        const std::vector<std::pair<QWidget*, std::function<void(QCPPainter&)>>> charts = {
            {view->occupancyChart(),
             [&](QCPPainter& painter) { view->occupancyChart()->render(&painter); }},
            {breakdown, [&](QCPPainter& painter) { breakdown->render(&painter); }},
            {view->curvePlot(), [&](QCPPainter& painter) {
                 view->curvePlot()->toPainter(&painter, view->curvePlot()->width(),
                                              view->curvePlot()->height());
             }}};
        for (const auto& [chart, paint] : charts) {
            const QVector<TextBox> boxes = recordTextBoxes(chart->size(), paint);
            QVERIFY(!boxes.isEmpty());
            const QString problem = testhelpers::textLayoutProblem(boxes, chart->size(), 0);
            QVERIFY2(problem.isEmpty(),
                     qPrintable(where + chart->objectName() + QStringLiteral(": ") + problem));
        }
    }
}

// docs/gui.md explains the occupancy figures for a class under the names the window gives them:
// every entry of the occupancy chart's legend (a sample measured with counters has all four) and
// the Runs table's occupancy columns, word for word.
void TestOccupancyView::docsNameTheFiguresAsTheWindowDoes() {
    QFile file(QStringLiteral(SLICESCOPE_SAMPLES_DIR "/../../docs/gui.md"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString docs = QString::fromUtf8(file.readAll());
    const int section = int(docs.indexOf(QStringLiteral("## The occupancy figures, for a class")));
    QVERIFY(section >= 0);
    const QString teacher =
        docs.mid(section, docs.indexOf(QStringLiteral("\n## "), section + 4) - section);
    Session session;
    LoadResult result = TraceLoader::loadNow(
        QStringLiteral(SLICESCOPE_SAMPLES_DIR "/seed-100x4000x5-f64-pageable-counters.json"),
        RunOrigin::Opened);
    QVERIFY2(result.ok(), qPrintable(result.error));
    session.addRuns(std::move(result.runs));
    QStringList names;
    for (const LegendItem& item : OccupancyChart::chartFor(session, {}).legend) {
        names << item.text;
    }
    QCOMPARE(names.size(), 4);
    RunListModel table(&session);
    for (const int column :
         {int(RunListModel::LaunchOccupancyColumn), int(RunListModel::OccupancyColumn),
          int(RunListModel::SlotsBusyColumn)}) {
        names << table.headerData(column, Qt::Horizontal, Qt::DisplayRole).toString();
    }
    for (const QString& name : names) {
        QVERIFY2(teacher.contains(QLatin1Char('*') + name + QLatin1Char('*')), qPrintable(name));
    }
    // The SM maps the docs set side by side are the window's: one-worker's one busy SM,
    // slice-middle's 63 (they called its map full), slice-2d's every SM.
    const auto summaryOf = [&session](const char* run) {
        return SmMapWidget::summary(
            computeOccupancyFacts(*session.find(QLatin1String(run))).residency);
    };
    QVERIFY2(summaryOf("one-worker").startsWith(QStringLiteral("1 of 132 SMs")),
             qPrintable(summaryOf("one-worker")));
    QVERIFY2(summaryOf("slice-middle").startsWith(QStringLiteral("63 of 132 SMs")),
             qPrintable(summaryOf("slice-middle")));
    QVERIFY2(summaryOf("slice-2d").startsWith(QStringLiteral("132 of 132 SMs")),
             qPrintable(summaryOf("slice-2d")));
    QVERIFY(docs.contains(QStringLiteral("one-worker's one busy SM beside slice-middle's 63")));
    QVERIFY(!docs.contains(QStringLiteral("slice-middle's full map")));
}

QTEST_MAIN(TestOccupancyView)
#include "tst_occupancyview.moc"
