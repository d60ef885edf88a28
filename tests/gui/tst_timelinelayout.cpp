// The timeline's rows and axis: one overview row per run by default, expanding and collapsing a
// run, lane groups pinned open, scrolling the selected run into view, no jump when runs are
// added, runs aligned at their measured part, absolute time in a session that mixes measured
// and modelled runs, and the batches that place modelled runs kept across a save and restore.
// All offscreen.
#include "gui/timelineplottable.h"
#include "gui/timelineview.h"
#include "models/session.h"
#include "models/sessionstore.h"
#include "models/traceloader.h"
#include "models/viewstate.h"
#include "slicescope/trace/tracejson.h"
#include "testhelpers.h"

#include <QAction>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTest>

using namespace slicescope;
using namespace slicescope::models;
using slicescope::gui::TimelinePlottable;
using slicescope::gui::TimelineView;
using Row = TimelinePlottable::Row;

namespace {

constexpr std::int64_t kUnixNs = 1'750'000'000'000'000'000; // a measured run's clock: Unix time
constexpr std::int64_t kSetupNs = 30'000'000;               // fill inputs and the CPU reference
constexpr std::int64_t kFirstCopyNs = 10'000; // gpuShapedRun's HtoD after its API call

// A measured GPU run as the engine writes one: set-up on the main thread before the copies and a
// check after them. Its first copy is at startNs + kFirstCopyNs.
trace::Run measuredRun(const std::string& id, std::int64_t startNs,
                       const std::string& createdAt = {}) {
    trace::Run run = testhelpers::gpuShapedRun(id, trace::RunMode::MeasuredGpu, 1, startNs);
    run.createdAt = createdAt;
    auto setup =
        testhelpers::activity(trace::ActivityKind::Host, startNs - kSetupNs, startNs - 1'000);
    setup.nameId = run.intern("fill inputs");
    run.activities.push_back(setup);
    auto verify = testhelpers::activity(trace::ActivityKind::Host, run.endNs() + 1'000,
                                        run.endNs() + 5'000'000);
    verify.nameId = run.intern("verify against the CPU reference");
    run.activities.push_back(verify);
    auto sync =
        testhelpers::activity(trace::ActivityKind::Sync, startNs + 6'100'000, startNs + 53'000'000);
    sync.threadId = 7;
    run.activities.push_back(sync);
    return run;
}

// A modelled run starts at 0 (it has no clock).
trace::Run modelledRun(const std::string& id, const std::string& createdAt = {}) {
    trace::Run run = testhelpers::gpuShapedRun(id, trace::RunMode::Modelled, 1, 0);
    run.createdAt = createdAt;
    return run;
}

std::vector<RunEntryPtr> entries(std::vector<trace::Run> runs) {
    std::vector<RunEntryPtr> out;
    for (auto& run : runs) {
        out.push_back(makeRunEntry(std::move(run), RunOrigin::Opened));
    }
    return out;
}

std::vector<trace::Run> mixedRuns(int count, int firstIndex = 0) {
    std::vector<trace::Run> runs;
    for (int i = firstIndex; i < firstIndex + count; ++i) {
        const std::string id = "run-" + std::to_string(i);
        if (i % 3 == 2) {
            runs.push_back(modelledRun(id));
        } else {
            runs.push_back(measuredRun(id, kUnixNs + std::int64_t(i) * 200'000'000));
        }
    }
    return runs;
}

void showAt(TimelineView& view, int width, int height) {
    view.resize(width, height);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.replot(); // lays the axes out
    view.fitRows(view.axisRect()->rect().height());
    view.replot();
}

// The run's header and rows lie inside the plot's visible value range.
bool runInView(const TimelineView& view, int run) {
    const QCPRange rows = view.plottable()->runValueRange(run);
    const QCPRange shown = view.yAxis->range();
    return rows.lower >= shown.lower - 1e-9 && rows.upper <= shown.upper + 1e-9;
}

int firstActivityOf(const trace::Run& run, trace::ActivityKind kind) {
    for (std::size_t i = 0; i < run.activities.size(); ++i) {
        if (run.activities[i].kind == kind) {
            return int(i);
        }
    }
    return -1;
}

// Where the run's first copy lands on the key axis.
double firstCopyKey(const TimelineView& view, int run) {
    const auto& r = *view.plottable()->runs()[std::size_t(run)]->run;
    const int htod = firstActivityOf(r, trace::ActivityKind::HtoD);
    return double(r.activities[std::size_t(htod)].startNs - view.plottable()->originNs(run));
}

} // namespace

class TestTimelineLayout : public QObject {
    Q_OBJECT
  private slots:
    void overviewIsTheDefaultAndEveryRunFits_data();
    void overviewIsTheDefaultAndEveryRunFits();
    void overviewDrawsEveryWorkEventMerged();
    void headerClickAndKeysExpandAndCollapse();
    void pinnedLanesShowInExpandedRuns_data();
    void pinnedLanesShowInExpandedRuns();
    void selectingARunScrollsItIntoView();
    void appendingRunsKeepsTheView();
    void openedRunsSelectedAsTheyArriveComeIntoView();
    void runsAlignAtTheirFirstCopy();
    void absoluteTimeInAMixedSession_data();
    void absoluteTimeInAMixedSession();
    void batchesSurviveASaveAndRestore();
};

void TestTimelineLayout::overviewIsTheDefaultAndEveryRunFits_data() {
    QTest::addColumn<int>("runs");
    QTest::addColumn<QSize>("size");
    QTest::newRow("12 runs at 1920x1080") << 12 << QSize(1920, 1080);
    QTest::newRow("8 runs at 1366x768") << 8 << QSize(1366, 768);
}

void TestTimelineLayout::overviewIsTheDefaultAndEveryRunFits() {
    QFETCH(int, runs);
    QFETCH(QSize, size);
    Session session;
    ViewState state;
    session.addRuns(entries(mixedRuns(runs)));
    TimelineView view(&session, &state);
    showAt(view, size.width(), size.height());
    for (const Row& row : view.plottable()->rows()) {
        QVERIFY(row.type != Row::Type::Lane); // headers and overview rows only
    }
    QCOMPARE(int(view.plottable()->rows().size()), 2 * runs);
    QVERIFY(!view.verticalScrollBar()->isVisible());
    QVERIFY(view.plottable()->contentHeight() <= view.visibleRows() + 1e-9);
    for (int r = 0; r < runs; ++r) {
        QVERIFY2(runInView(view, r), qPrintable(QStringLiteral("run %1 is off screen").arg(r)));
        // Its kernel is on screen too, in pixels.
        const auto rect = view.plottable()->activityRect(r, 2);
        QVERIFY(rect.has_value());
        QVERIFY(view.axisRect()->rect().contains(rect->center().toPoint()));
    }
}

void TestTimelineLayout::overviewDrawsEveryWorkEventMerged() {
    Session session;
    ViewState state;
    session.addRuns(entries({testhelpers::denseRun("dense", 200'000)}));
    TimelineView view(&session, &state);
    view.resize(1920, 1080);
    view.toPixmap(1920, 1080);
    const auto& stats = view.plottable()->lastDrawStats();
    bool sawKernels = false;
    for (const auto& s : stats) {
        QCOMPARE(s.rowType, Row::Type::Overview);
        if (s.lane >= 0 &&
            session.at(0)->lanes->lanes[std::size_t(s.lane)].kind == LaneKind::Kernel) {
            sawKernels = true;
            QCOMPARE(s.eventsCovered, std::size_t(200'000));
            QVERIFY(s.mergedShapes > 0);
            QVERIFY2(s.mergedShapes + s.individualShapes <= 2 * 1920,
                     qPrintable(QString::number(s.mergedShapes + s.individualShapes)));
        }
    }
    QVERIFY(sawKernels);
}

void TestTimelineLayout::headerClickAndKeysExpandAndCollapse() {
    Session session;
    ViewState state;
    session.addRuns(
        entries({measuredRun("a", kUnixNs), measuredRun("b", kUnixNs + 1'000'000'000)}));
    TimelineView view(&session, &state);
    showAt(view, 1600, 900);
    QSignalSpy selected(&view, &TimelineView::runSelected);
    auto laneRowsOf = [&](int run) {
        QStringList labels;
        for (const Row& row : view.plottable()->rows()) {
            if (row.run == run && row.type == Row::Type::Lane) {
                labels << QString::fromStdString(view.plottable()
                                                     ->runs()[std::size_t(run)]
                                                     ->lanes->lanes[std::size_t(row.lane)]
                                                     .label);
            }
        }
        return labels;
    };
    QVERIFY(laneRowsOf(1).isEmpty());
    // Click on run b's header: its work lanes open (API and sync stay collapsed); b is selected.
    const QCPRange bRows = view.plottable()->runValueRange(1);
    const QPoint header(view.axisRect()->rect().center().x(),
                        int(view.yAxis->coordToPixel(bRows.lower + 0.3)));
    QTest::mouseClick(&view, Qt::LeftButton, Qt::NoModifier, header);
    QVERIFY(view.isRunExpanded(QStringLiteral("b")));
    QCOMPARE(laneRowsOf(1), (QStringList{QStringLiteral("HtoD"), QStringLiteral("kernels"),
                                         QStringLiteral("DtoH"), QStringLiteral("host")}));
    QVERIFY(laneRowsOf(0).isEmpty());
    QCOMPARE(selected.count(), 1);
    QCOMPARE(selected.at(0).at(0).toString(), QStringLiteral("b"));
    QCOMPARE(state.selectedRun(), QStringLiteral("b"));
    // - collapses the selected run, + expands it again.
    view.setFocus();
    QTest::keyClick(&view, Qt::Key_Minus);
    QVERIFY(!view.isRunExpanded(QStringLiteral("b")));
    QVERIFY(laneRowsOf(1).isEmpty());
    QTest::keyClick(&view, Qt::Key_Plus);
    QVERIFY(view.isRunExpanded(QStringLiteral("b")));
    // A second click on the header collapses it.
    view.replot();
    QTest::mouseClick(&view, Qt::LeftButton, Qt::NoModifier, header);
    QVERIFY(!view.isRunExpanded(QStringLiteral("b")));
    QCOMPARE(int(view.plottable()->rows().size()), 4);
}

void TestTimelineLayout::pinnedLanesShowInExpandedRuns_data() {
    QTest::addColumn<int>("group");
    QTest::addColumn<QString>("action");
    QTest::addColumn<QString>("label");
    QTest::newRow("API") << int(LaneGroup::Api) << QStringLiteral("pinLanes_api")
                         << QStringLiteral("API");
    QTest::newRow("sync") << int(LaneGroup::Sync) << QStringLiteral("pinLanes_sync")
                          << QStringLiteral("sync");
    QTest::newRow("profiler") << int(LaneGroup::Profiler) << QStringLiteral("pinLanes_profiler")
                              << QStringLiteral("profiler");
    QTest::newRow("memsets") << int(LaneGroup::Memset) << QStringLiteral("pinLanes_memset")
                             << QStringLiteral("memsets");
    QTest::newRow("host threads") << int(LaneGroup::HostThreads)
                                  << QStringLiteral("pinLanes_hostThreads")
                                  << QStringLiteral("host thread 2");
}

void TestTimelineLayout::pinnedLanesShowInExpandedRuns() {
    QFETCH(int, group);
    QFETCH(QString, action);
    QFETCH(QString, label);
    trace::Run run = measuredRun("r", kUnixNs);
    auto add = [&](trace::ActivityKind kind, std::uint32_t thread) {
        auto a = testhelpers::activity(kind, kUnixNs + 100, kUnixNs + 200);
        a.threadId = thread;
        run.activities.push_back(a);
    };
    add(trace::ActivityKind::Overhead, 0);
    add(trace::ActivityKind::Memset, 0);
    add(trace::ActivityKind::Host, 12); // a worker thread
    Session session;
    ViewState state;
    session.addRuns(entries({std::move(run), measuredRun("other", kUnixNs)}));
    TimelineView view(&session, &state);
    showAt(view, 1600, 900);
    auto shown = [&](int runIndex) {
        QStringList labels;
        for (const Row& row : view.plottable()->rows()) {
            if (row.type == Row::Type::Lane && row.run == runIndex) {
                labels << QString::fromStdString(view.plottable()
                                                     ->runs()[std::size_t(runIndex)]
                                                     ->lanes->lanes[std::size_t(row.lane)]
                                                     .label);
            }
        }
        return labels;
    };
    view.setRunExpanded(QStringLiteral("r"), true);
    QVERIFY(!shown(0).contains(label));
    // Pinned through its menu action: the lane shows in the expanded run, not in the collapsed one.
    QAction* pin = nullptr;
    for (QAction* a : view.laneActions()) {
        if (a->objectName() == action) {
            pin = a;
        }
    }
    QVERIFY(pin);
    pin->setChecked(true);
    QVERIFY(view.isLaneGroupPinned(LaneGroup(group)));
    QVERIFY2(shown(0).contains(label), qPrintable(shown(0).join(QStringLiteral(", "))));
    QVERIFY(shown(1).isEmpty());
    // Expanding the other run shows its pinned lanes too (it has sync and API lanes).
    view.setRunExpanded(QStringLiteral("other"), true);
    if (LaneGroup(group) == LaneGroup::Api || LaneGroup(group) == LaneGroup::Sync) {
        QVERIFY(shown(1).contains(label));
    }
    // Unpinned from code: the action follows, the lane goes.
    view.setLaneGroupPinned(LaneGroup(group), false);
    QVERIFY(!pin->isChecked());
    QVERIFY(!shown(0).contains(label));
}

void TestTimelineLayout::selectingARunScrollsItIntoView() {
    Session session;
    ViewState state;
    session.addRuns(entries(mixedRuns(30)));
    TimelineView view(&session, &state);
    showAt(view, 1920, 1080);
    QVERIFY(view.verticalScrollBar()->isVisible()); // 30 runs do not fit
    QVERIFY(runInView(view, 0));
    QVERIFY(!runInView(view, 29));
    state.setSelectedRun(QStringLiteral("run-29")); // as the Runs table or occupancy view does
    QVERIFY(runInView(view, 29));
    QCOMPARE(view.verticalScrollBar()->value(), view.verticalScrollBar()->maximum());
    // Selecting a run already in view moves nothing.
    const double lower = view.yAxis->range().lower;
    state.setSelectedRun(QStringLiteral("run-27"));
    QCOMPARE(view.yAxis->range().lower, lower);
    // Scrolled away with the bar, revealRun brings it back; its measured part too.
    view.verticalScrollBar()->setValue(0);
    QVERIFY(!runInView(view, 27));
    view.xAxis->setRange(-30e6, -20e6); // in the set-up, before every run's work
    view.revealRun(QStringLiteral("run-27"));
    QVERIFY(runInView(view, 27));
    const QCPRange work = view.plottable()->workKeyRange(27);
    QVERIFY(view.xAxis->range().contains(work.lower) || view.xAxis->range().contains(work.upper));
}

void TestTimelineLayout::appendingRunsKeepsTheView() {
    Session session;
    ViewState state;
    session.addRuns(entries(mixedRuns(30)));
    TimelineView view(&session, &state);
    showAt(view, 1920, 1080);
    view.verticalScrollBar()->setValue(view.verticalScrollBar()->maximum() / 2);
    const double lower = view.yAxis->range().lower;
    QVERIFY(lower > 1);
    view.zoomBy(0.5);
    const QCPRange keys = view.xAxis->range();
    session.addRuns(entries(mixedRuns(5, 30)));
    QCOMPARE(int(view.plottable()->runs().size()), 35);
    QCOMPARE(view.yAxis->range().lower, lower);
    QCOMPARE(view.verticalScrollBar()->value(), int(std::lround(lower * 100)));
    QCOMPARE(view.xAxis->range().lower, keys.lower);
    QCOMPARE(view.xAxis->range().upper, keys.upper);
    // A view showing everything goes on showing everything.
    view.resetZoom();
    session.addRuns(entries({testhelpers::gpuShapedRun("long", trace::RunMode::Modelled, 4, 0)}));
    QVERIFY(view.xAxis->range().upper >= view.plottable()->fullKeyRange().upper);
}

void TestTimelineLayout::openedRunsSelectedAsTheyArriveComeIntoView() {
    // The window selects a run of a trace just opened as the session adds it (RunsPanel), before
    // the timeline has rebuilt: the rebuild brings it into view. Runs added without a selection
    // leave the view where it was (appendingRunsKeepsTheView).
    Session session;
    ViewState state;
    session.addRuns(entries(mixedRuns(30)));
    TimelineView view(&session, &state);
    showAt(view, 1600, 700);
    QCOMPARE(view.yAxis->range().lower, 0.0);
    connect(&session, &Session::runsAdded, &state,
            [&](int, int last) { state.setSelectedRun(session.at(last)->id); });
    session.addRuns(entries(mixedRuns(5, 30)));
    const int last = session.count() - 1;
    QCOMPARE(state.selectedRun(), session.at(last)->id);
    QVERIFY2(runInView(view, last), qPrintable(QString::number(view.yAxis->range().lower)));
}

void TestTimelineLayout::runsAlignAtTheirFirstCopy() {
    Session session;
    ViewState state;
    session.addRuns(entries({measuredRun("measured", kUnixNs), modelledRun("modelled"),
                             measuredRun("later", kUnixNs + 3'000'000'000)}));
    TimelineView view(&session, &state);
    showAt(view, 1600, 900);
    for (int r = 0; r < 3; ++r) {
        QCOMPARE(firstCopyKey(view, r), 0.0);
        QCOMPARE(view.plottable()->workKeyRange(r).lower, 0.0);
    }
    // Set-up lies before 0 and does not decide the zoom; panning and zooming out still reach it.
    QCOMPARE(view.plottable()->fullKeyRange().lower, 0.0);
    QCOMPARE(view.plottable()->extentKeyRange().lower, double(-kSetupNs - kFirstCopyNs));
    QVERIFY(view.xAxis->range().lower > -0.1 * double(kSetupNs));
    QVERIFY(view.xAxis->range().upper < 1.2 * view.plottable()->fullKeyRange().upper);
}

void TestTimelineLayout::absoluteTimeInAMixedSession_data() {
    QTest::addColumn<QString>("modelledBatch");
    QTest::addColumn<double>("modelledFirstCopyMs");
    QTest::addColumn<bool>("note");
    // Measured "early" (batch A) at T, "late" (batch B) at T + 100 ms.
    QTest::newRow("modelled alone: from its own start") << QString() << 0.0 << true;
    QTest::newRow("modelled in batch B: with late") << QStringLiteral("B") << 100.0 << false;
}

void TestTimelineLayout::absoluteTimeInAMixedSession() {
    QFETCH(QString, modelledBatch);
    QFETCH(double, modelledFirstCopyMs);
    QFETCH(bool, note);
    Session session;
    ViewState state;
    session.addRuns(entries({measuredRun("early", kUnixNs, "A"),
                             modelledRun("modelled", modelledBatch.toStdString()),
                             measuredRun("late", kUnixNs + 100'000'000, "B")}));
    TimelineView view(&session, &state);
    showAt(view, 1600, 900);
    state.setAlignment(Alignment::Absolute);
    // Measured runs on their clock, counted from the first measured work.
    QCOMPARE(firstCopyKey(view, 0), 0.0);
    QCOMPARE(firstCopyKey(view, 2), 100'000'000.0);
    QCOMPARE(firstCopyKey(view, 1), modelledFirstCopyMs * 1e6);
    // The axis is in milliseconds of the session, not at Unix time.
    QVERIFY(view.xAxis->range().upper < 1e9);
    QVERIFY(view.xAxis->range().lower > -1e9);
    QCOMPARE(!view.plottable()->alignmentNote().isEmpty(), note);
    if (note) {
        QVERIFY(view.xAxis->label().contains(QStringLiteral("no absolute time")));
    }
    // Back to the measured parts: every first copy at 0 again, no note.
    state.setAlignment(Alignment::RunStart);
    QCOMPARE(firstCopyKey(view, 1), 0.0);
    QCOMPARE(firstCopyKey(view, 2), 0.0);
    QVERIFY(view.plottable()->alignmentNote().isEmpty());
}

void TestTimelineLayout::batchesSurviveASaveAndRestore() {
    // Two run requests of the GUI, each a GPU run and a CPU run; the first also modelled a run.
    // Each file of a request was written by its own slicescope-cli at its own second, so only
    // the file names say which runs belong together.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    auto cpuRun = [](const std::string& id, std::int64_t computeNs, const std::string& createdAt) {
        trace::Run run;
        run.id = run.strategy = id;
        run.mode = trace::RunMode::MeasuredCpu;
        run.problem = *problem::makeProblem({100, 4000, 5}, problem::Dtype::F64, 1);
        run.device.name = "Intel(R) Xeon(R) Processor";
        run.createdAt = createdAt;
        // After both GPU runs: the first GPU run's first copy stays the axis's 0, and each
        // request's measured work begins with its GPU run.
        auto a = testhelpers::activity(trace::ActivityKind::Host, kUnixNs + 150'000'000,
                                       kUnixNs + 150'000'000 + computeNs);
        a.nameId = run.intern("compute");
        run.activities.push_back(a);
        return run;
    };
    const std::vector<std::pair<QString, trace::Run>> files = {
        {QStringLiteral("run-1-gpu.json"), measuredRun("early", kUnixNs, "2026-12-03T10:00:00Z")},
        {QStringLiteral("run-1-cpu-parallel.json"),
         cpuRun("cpu-parallel", 1'000'000, "2026-12-03T10:00:01Z")},
        {QStringLiteral("run-2-gpu.json"),
         measuredRun("late", kUnixNs + 100'000'000, "2026-12-03T10:00:05Z")},
        {QStringLiteral("run-2-modelled.json"), modelledRun("modelled", "2026-12-03T10:00:07Z")},
        {QStringLiteral("run-2-cpu-serial.json"),
         cpuRun("cpu-serial", 1'000'000, "2026-12-03T10:00:09Z")},
    };
    Session session;
    for (const auto& [name, run] : files) {
        trace::Trace t;
        t.runs.push_back(run);
        QVERIFY(trace::writeTrace(t, dir.filePath(name).toStdString()));
        LoadResult loaded = TraceLoader::loadNow(dir.filePath(name), RunOrigin::Opened);
        QVERIFY2(loaded.ok(), qPrintable(loaded.error));
        session.addRuns(std::move(loaded.runs));
    }
    // What a session shows: verdicts within a request, the modelled run with its request's GPU
    // run on absolute time.
    auto check = [](Session& s, const char* when) {
        const auto late = s.find(QStringLiteral("late"));
        const auto early = s.find(QStringLiteral("early"));
        QVERIFY2(late && early, when);
        QVERIFY2(late->verdict.contains(QStringLiteral("cpu-serial")) &&
                     !late->verdict.contains(QStringLiteral("cpu-parallel")),
                 qPrintable(QLatin1String(when) + late->verdict));
        QVERIFY2(early->verdict.contains(QStringLiteral("cpu-parallel")) &&
                     !early->verdict.contains(QStringLiteral("cpu-serial")),
                 qPrintable(QLatin1String(when) + early->verdict));
        ViewState state;
        TimelineView view(&s, &state);
        showAt(view, 1600, 900);
        state.setAlignment(Alignment::Absolute);
        const int modelled = s.indexOf(QStringLiteral("modelled"));
        QVERIFY2(modelled >= 0, when);
        QCOMPARE(firstCopyKey(view, s.indexOf(QStringLiteral("late"))), 100'000'000.0);
        QCOMPARE(firstCopyKey(view, modelled), 100'000'000.0);
        QVERIFY2(view.plottable()->alignmentNote().isEmpty(), when);
    };
    check(session, "opened: ");
    if (QTest::currentTestFailed()) {
        return;
    }

    SessionStore store(dir.filePath(QStringLiteral("session.json")));
    store.save(session);
    QVERIFY(store.waitForIdle());
    LoadResult restored = TraceLoader::loadNow(store.path(), RunOrigin::Restored);
    QVERIFY2(restored.ok(), qPrintable(restored.error));
    Session again;
    again.addRuns(std::move(restored.runs));
    QCOMPARE(again.count(), session.count());
    for (int i = 0; i < session.count(); ++i) {
        QCOMPARE(again.at(i)->verdict, session.at(i)->verdict);
    }
    check(again, "restored: ");
}

QTEST_MAIN(TestTimelineLayout)
#include "tst_timelinelayout.moc"
