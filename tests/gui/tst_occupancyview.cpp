// The occupancy view: bars for every GPU run, and for the selected run the SM map, the launch and
// limiter in plain words, the occupancy curves and the occupancy-over-time series.
#include <QLabel>
#include <QTest>

#include "gui/occupancybarsplot.h"
#include "gui/occupancycurveplot.h"
#include "gui/occupancyview.h"
#include "gui/smmapwidget.h"
#include "models/occupancyfacts.h"
#include "models/session.h"
#include "models/viewstate.h"
#include "slicescope/occupancy/occupancycalculator.h"
#include "testhelpers.h"

using namespace slicescope;
using namespace slicescope::models;
using namespace slicescope::gui;

namespace {

bool calculatorAvailable() {
    const trace::Run run = testhelpers::gpuShapedRun("probe", trace::RunMode::MeasuredGpu);
    const auto result = occupancy::calculate(run.device, {64, 32, 0});
    return result || result.error().code != Error::Code::Internal;
}

trace::Run cpuRun() {
    trace::Run run;
    run.id = "cpu-serial";
    run.mode = trace::RunMode::MeasuredCpu;
    run.activities.push_back(testhelpers::activity(trace::ActivityKind::Host, 0, 1000));
    return run;
}

} // namespace

class TestOccupancyView : public QObject {
    Q_OBJECT
  private slots:
    void factsOfTheSeedsSliceOuter();
    void cpuRunsHaveNoOccupancy();
    void curvesMarkTheRunsChoice();
    void viewFollowsTheSelectedRun();
    void seriesShownOnlyWhenSampled();
    void barsForGpuRunsOnlyAndClickSelects();
};

void TestOccupancyView::factsOfTheSeedsSliceOuter() {
    const auto entry = makeRunEntry(testhelpers::gpuShapedRun("slice-outer", trace::RunMode::Modelled), RunOrigin::Opened);
    const OccupancyFacts f = computeOccupancyFacts(*entry);
    QVERIFY(f.hasLaunch);
    QCOMPARE(f.title, QStringLiteral("slice-outer on NVIDIA H200 (modelled)"));
    QCOMPARE(f.launchWords, QStringLiteral("2 blocks of 64 threads; 100 threads work; 130 of 132 SMs idle"));
    QVERIFY(f.limiterWords.startsWith(QStringLiteral("Limiter: warps.")));
    QCOMPARE(f.blockSize, 64u);
    QCOMPARE(f.activeBlocksPerSm, 32u);
    QCOMPARE(f.residency.sms.size(), std::size_t(132));
    QCOMPARE(f.residency.sms[0].busyThreads, std::uint64_t(64));
    QCOMPARE(f.residency.sms[1].busyThreads, std::uint64_t(36));
    QCOMPARE(f.residency.idleSms, 130u);
    QCOMPARE(SmMapWidget::summary(f.residency), QStringLiteral("2 of 132 SMs hold a block, 130 idle."));
}

void TestOccupancyView::cpuRunsHaveNoOccupancy() {
    const auto entry = makeRunEntry(cpuRun(), RunOrigin::Opened);
    const OccupancyFacts f = computeOccupancyFacts(*entry);
    QVERIFY(!f.hasLaunch);
    QVERIFY(f.problem.contains(QStringLiteral("CPU")));
    QVERIFY(f.blockSizes.isEmpty());
}

void TestOccupancyView::curvesMarkTheRunsChoice() {
    if (!calculatorAvailable()) {
        QSKIP("the occupancy calculator is not in this build yet");
    }
    const auto entry = makeRunEntry(testhelpers::gpuShapedRun("slice-outer", trace::RunMode::MeasuredGpu), RunOrigin::Opened);
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
    session.addRuns({makeRunEntry(testhelpers::gpuShapedRun("slice-outer", trace::RunMode::MeasuredGpu), RunOrigin::Opened),
                     makeRunEntry(cpuRun(), RunOrigin::Opened)});
    state.setSelectedRun(QStringLiteral("slice-outer"));
    QCOMPARE(view.shownRun(), QStringLiteral("slice-outer"));
    QCOMPARE(view.findChild<QLabel*>(QStringLiteral("launchWords"))->text(),
             QStringLiteral("2 blocks of 64 threads; 100 threads work; 130 of 132 SMs idle."));
    QCOMPARE(view.smMap()->residency().sms.size(), std::size_t(132));
    QVERIFY(!view.smMap()->isHidden());
    state.setSelectedRun(QStringLiteral("cpu-serial"));
    QVERIFY(view.findChild<QLabel*>(QStringLiteral("launchWords"))->text().contains(QStringLiteral("CPU")));
    QVERIFY(view.smMap()->isHidden());
    session.clear();
    QVERIFY(view.shownRun().isEmpty());
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
                     makeRunEntry(testhelpers::gpuShapedRun("plain", trace::RunMode::MeasuredGpu), RunOrigin::Opened)});
    state.setSelectedRun(QStringLiteral("sampled"));
    QVERIFY(!view.seriesPlot()->isHidden());
    QCOMPARE(view.seriesPlot()->graphCount(), 1);
    QCOMPARE(view.seriesPlot()->graph(0)->dataCount(), 10);
    state.setSelectedRun(QStringLiteral("plain"));
    QVERIFY(view.seriesPlot()->isHidden());
    QVERIFY(view.findChild<QLabel*>(QStringLiteral("noSeries"))->text().contains(QStringLiteral("sample occupancy")));
}

void TestOccupancyView::barsForGpuRunsOnlyAndClickSelects() {
    Session session;
    ViewState state;
    OccupancyBarsPlot bars(&session, &state);
    session.addRuns({makeRunEntry(testhelpers::gpuShapedRun("a", trace::RunMode::MeasuredGpu), RunOrigin::Opened),
                     makeRunEntry(cpuRun(), RunOrigin::Opened),
                     makeRunEntry(testhelpers::gpuShapedRun("b", trace::RunMode::Modelled), RunOrigin::Opened)});
    QCOMPARE(bars.runIds(), (QStringList{QStringLiteral("a"), QStringLiteral("b")}));
    QCOMPARE(bars.plottableCount(), 3); // theoretical, achieved, thread slots
    auto* theoretical = qobject_cast<QCPBars*>(bars.plottable(0));
    QCOMPARE(theoretical->dataCount(), 2);
    QCOMPARE(theoretical->data()->at(0)->value, 100.0);
    auto* achieved = qobject_cast<QCPBars*>(bars.plottable(1));
    QCOMPARE(achieved->dataCount(), 0); // never measured: no bar, not a zero
    QVERIFY(!bars.legend->hasItemWithPlottable(achieved));
    state.setSelectedRun(QStringLiteral("a"));
    int bands = 0;
    for (int i = 0; i < bars.itemCount(); ++i) {
        if (auto* band = qobject_cast<QCPItemRect*>(bars.item(i))) {
            QCOMPARE(band->layer()->name(), QStringLiteral("grid")); // the highlight stays under the bars
            ++bands;
        }
    }
    QCOMPARE(bands, 1);
    bars.resize(500, 300);
    bars.show();
    QVERIFY(QTest::qWaitForWindowExposed(&bars));
    bars.replot();
    const QPoint onB(bars.xAxis->coordToPixel(50), int(bars.yAxis->coordToPixel(1)));
    QTest::mouseClick(&bars, Qt::LeftButton, Qt::NoModifier, onB);
    QCOMPARE(state.selectedRun(), QStringLiteral("b"));
}

QTEST_MAIN(TestOccupancyView)
#include "tst_occupancyview.moc"
