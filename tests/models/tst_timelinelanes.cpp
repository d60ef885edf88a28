// Lanes: which activities go where, sorted for binary search; visible ranges with long events.
#include "models/timelinelanes.h"
#include "testhelpers.h"

#include <QTest>
#include <map>
#include <tuple>

using namespace slicescope;
using namespace slicescope::models;

class TestTimelineLanes : public QObject {
    Q_OBJECT
  private slots:
    void oneLanePerKindInDrawingOrder();
    void threadsAndStreamsGetTheirOwnLanes();
    void threadsAreNumberedInTheRunAndOverheadIsOneLane();
    void eventsAreSortedByStart();
    void overlappingEventsStackIntoRows();
    void visibleRange_data();
    void visibleRange();
    void firstStartingAtSkipsForward();
    void measuredPart_data();
    void measuredPart();
    void laneGroups();
    void warmupEventsAreFlaggedAndOutsideTheMeasuredPart();
    void pipelinedRunsGetAStreamLaneEachAndAStackedOverview();
    void oneDeviceKeepsItsLanesUngrouped();
    void severalDevicesGetALaneGroupEach();
};

void TestTimelineLanes::oneLanePerKindInDrawingOrder() {
    const trace::Run run = testhelpers::gpuShapedRun("r", trace::RunMode::MeasuredGpu, 3);
    const RunLanes lanes = buildLanes(run);
    QCOMPARE(lanes.lanes.size(), std::size_t(4));
    QCOMPARE(lanes.lanes[0].kind, LaneKind::Api);
    QCOMPARE(lanes.lanes[1].kind, LaneKind::HtoD);
    QCOMPARE(lanes.lanes[2].kind, LaneKind::Kernel);
    QCOMPARE(lanes.lanes[3].kind, LaneKind::DtoH);
    QCOMPARE(lanes.lanes[2].label, std::string("kernels"));
    for (const auto& lane : lanes.lanes) {
        QCOMPARE(lane.eventCount, std::size_t(3));
        QCOMPARE(lane.rows.size(), std::size_t(1));
        QVERIFY(lane.rows[0].disjoint);
    }
    QCOMPARE(lanes.eventCount, run.activities.size());
    QCOMPARE(lanes.beginNs, run.beginNs());
    QCOMPARE(lanes.endNs, run.endNs());
}

void TestTimelineLanes::threadsAndStreamsGetTheirOwnLanes() {
    trace::Run run;
    auto host = [&](std::uint32_t thread, std::int64_t start) {
        auto a = testhelpers::activity(trace::ActivityKind::Host, start, start + 10);
        a.threadId = thread;
        run.activities.push_back(a);
    };
    host(0, 0);
    host(2, 5);
    host(1, 7);
    auto k = testhelpers::activity(trace::ActivityKind::Kernel, 0, 10);
    k.stream = 7;
    run.activities.push_back(k);
    k.stream = 13;
    run.activities.push_back(k);
    const RunLanes lanes = buildLanes(run);
    QStringList labels;
    for (const auto& lane : lanes.lanes) {
        labels << QString::fromStdString(lane.label);
    }
    QCOMPARE(labels,
             (QStringList{QStringLiteral("kernels stream 7"), QStringLiteral("kernels stream 13"),
                          QStringLiteral("host (main)"), QStringLiteral("host thread 1"),
                          QStringLiteral("host thread 2")}));
}

void TestTimelineLanes::threadsAreNumberedInTheRunAndOverheadIsOneLane() {
    // CUPTI reports operating-system thread ids; lanes name threads 1, 2, ... consistently.
    trace::Run run;
    auto add = [&](trace::ActivityKind kind, std::uint32_t thread) {
        auto a = testhelpers::activity(kind, 0, 10);
        a.threadId = thread;
        run.activities.push_back(a);
    };
    add(trace::ActivityKind::Api, 1978658816);
    add(trace::ActivityKind::Api, 1640706048);
    add(trace::ActivityKind::Sync, 1978658816);
    add(trace::ActivityKind::Sync, 1640706048);
    add(trace::ActivityKind::Overhead, 1640706048);
    add(trace::ActivityKind::Overhead, 1836654592);
    const RunLanes lanes = buildLanes(run);
    QStringList labels;
    for (const auto& lane : lanes.lanes) {
        labels << QString::fromStdString(lane.label);
    }
    QCOMPARE(labels, (QStringList{QStringLiteral("API thread 1"), QStringLiteral("API thread 2"),
                                  QStringLiteral("sync thread 1"), QStringLiteral("sync thread 2"),
                                  QStringLiteral("profiler")}));
    QCOMPARE(lanes.lanes.back().eventCount, std::size_t(2));
}

void TestTimelineLanes::eventsAreSortedByStart() {
    trace::Run run;
    for (std::int64_t start : {50, 10, 30, 20, 40}) {
        run.activities.push_back(
            testhelpers::activity(trace::ActivityKind::Kernel, start, start + 5));
    }
    const RunLanes lanes = buildLanes(run);
    const auto& events = lanes.lanes[0].rows[0].events;
    QCOMPARE(events.size(), std::size_t(5));
    for (std::size_t i = 1; i < events.size(); ++i) {
        QVERIFY(events[i - 1].startNs <= events[i].startNs);
    }
    QCOMPARE(run.activities[events[0].activity].startNs,
             std::int64_t(10)); // indices still point home
}

void TestTimelineLanes::overlappingEventsStackIntoRows() {
    trace::Run run;
    // Six nested API calls: the first four get a row each, the rest share the last row.
    for (int depth = 0; depth < 6; ++depth) {
        run.activities.push_back(
            testhelpers::activity(trace::ActivityKind::Api, depth, 100 - depth));
    }
    run.activities.push_back(testhelpers::activity(trace::ActivityKind::Api, 200, 210));
    const RunLanes lanes = buildLanes(run);
    const Lane& lane = lanes.lanes[0];
    QCOMPARE(lane.rows.size(), kMaxRowsPerLane);
    QCOMPARE(lane.eventCount, std::size_t(7));
    QVERIFY(lane.rows[0].disjoint);
    QVERIFY(!lane.rows[kMaxRowsPerLane - 1].disjoint);
    QCOMPARE(lane.rows[0].events.size(), std::size_t(2)); // the outermost call and the later one
    std::size_t total = 0;
    for (const auto& row : lane.rows) {
        total += row.events.size();
        for (std::size_t i = 1; i < row.maxEndNs.size(); ++i) {
            QVERIFY(row.maxEndNs[i - 1] <= row.maxEndNs[i]);
        }
    }
    QCOMPARE(total, std::size_t(7));
}

void TestTimelineLanes::visibleRange_data() {
    QTest::addColumn<qint64>("from");
    QTest::addColumn<qint64>("to");
    QTest::addColumn<int>("first");
    QTest::addColumn<int>("last");
    // Row: [0,1000) long, then [100,110) [200,210) [300,310); overlap makes it non-disjoint.
    QTest::newRow("all") << qint64(0) << qint64(1000) << 0 << 4;
    QTest::newRow("inside the long event only") << qint64(500) << qint64(600) << 0 << 4;
    QTest::newRow("after everything") << qint64(1001) << qint64(2000) << 4 << 4;
    QTest::newRow("before everything") << qint64(-100) << qint64(-1) << 0 << 0;
}

void TestTimelineLanes::visibleRange() {
    QFETCH(qint64, from);
    QFETCH(qint64, to);
    QFETCH(int, first);
    QFETCH(int, last);
    LaneRow row;
    row.disjoint = false;
    const std::int64_t spans[][2] = {{0, 1000}, {100, 110}, {200, 210}, {300, 310}};
    for (const auto& s : spans) {
        row.events.push_back({s[0], s[1], 0});
        row.maxEndNs.push_back(row.maxEndNs.empty() ? s[1] : std::max(row.maxEndNs.back(), s[1]));
    }
    const auto [f, l] = row.visibleRange(from, to);
    QCOMPARE(int(f), first);
    QCOMPARE(int(l), last);
}

void TestTimelineLanes::firstStartingAtSkipsForward() {
    const trace::Run run = testhelpers::denseRun("d", 1000, 10); // kernels at 0, 20, 40, ...
    const RunLanes lanes = buildLanes(run);
    const LaneRow& row = lanes.lanes[0].rows[0];
    QCOMPARE(row.firstStartingAt(0, 0), std::size_t(0));
    QCOMPARE(row.firstStartingAt(21, 0), std::size_t(2));
    QCOMPARE(row.firstStartingAt(21, 5), std::size_t(5)); // never goes back
    QCOMPARE(row.firstStartingAt(1'000'000, 0), std::size_t(1000));
    const auto [f, l] = row.visibleRange(95, 145); // 80..90 ends before; 100, 120, 140 start inside
    QCOMPARE(int(f), 5);
    QCOMPARE(int(l), 8);
}

// Chunks on two streams: HtoD, kernel and DtoH lanes per stream, and an overview whose copies run
// under kernels is drawn in strips; a serial run keeps the one shared band.
void TestTimelineLanes::pipelinedRunsGetAStreamLaneEachAndAStackedOverview() {
    trace::Run run;
    for (std::uint32_t chunk = 0; chunk < 4; ++chunk) {
        const std::int64_t t = 100 * chunk;
        for (auto [kind, start, end] : {std::tuple{trace::ActivityKind::HtoD, t, t + 100},
                                        std::tuple{trace::ActivityKind::Kernel, t + 100, t + 150},
                                        std::tuple{trace::ActivityKind::DtoH, t + 150, t + 250}}) {
            auto a = testhelpers::activity(kind, start, end);
            a.stream = 7 + chunk % 2;
            run.activities.push_back(a);
        }
    }
    const RunLanes lanes = buildLanes(run);
    QStringList labels;
    for (const auto& lane : lanes.lanes) {
        labels << QString::fromStdString(lane.label);
    }
    QCOMPARE(labels,
             (QStringList{QStringLiteral("HtoD stream 7"), QStringLiteral("HtoD stream 8"),
                          QStringLiteral("kernels stream 7"), QStringLiteral("kernels stream 8"),
                          QStringLiteral("DtoH stream 7"), QStringLiteral("DtoH stream 8")}));
    QVERIFY(lanes.overviewOverlaps);
    QCOMPARE(overviewStrip(LaneKind::HtoD), 0);
    QCOMPARE(overviewStrip(LaneKind::Kernel), 1);
    QCOMPARE(overviewStrip(LaneKind::DtoH), 2);

    trace::Run serial;
    for (auto [kind, start, end] : {std::tuple{trace::ActivityKind::HtoD, 0, 100},
                                    std::tuple{trace::ActivityKind::Kernel, 100, 150},
                                    std::tuple{trace::ActivityKind::DtoH, 150, 250}}) {
        serial.activities.push_back(testhelpers::activity(kind, start, end));
    }
    QVERIFY(!buildLanes(serial).overviewOverlaps);
}

// A run whose work stayed on one GPU (device 1 of the host, say) draws as before: no groups.
void TestTimelineLanes::oneDeviceKeepsItsLanesUngrouped() {
    trace::Run run = testhelpers::gpuShapedRun("r", trace::RunMode::MeasuredGpu, 2);
    for (auto& a : run.activities) {
        a.device = 1;
    }
    const RunLanes lanes = buildLanes(run);
    QCOMPARE(lanes.devices, std::vector<int>{1});
    QCOMPARE(lanes.lanes.size(), std::size_t(4));
    for (const auto& lane : lanes.lanes) {
        QCOMPARE(lane.device, kAnyDevice);
        QVERIFY(!lane.label.starts_with("GPU"));
        for (const auto& e : lane.rows[0].events) {
            QVERIFY(laneHolds(lane, run.activities[e.activity]));
        }
    }
}

// A two-GPU program (an NCCL all-reduce, one process a GPU, both streams numbered 7): the host's
// lanes first, then one group a device in device order, each with its own kernels and copies; a
// peer copy from GPU 0 to GPU 1 in a lane of its own in GPU 0's group; NCCL kernels keep their
// names. Every event sits in the lane that laneHolds says is its own.
void TestTimelineLanes::severalDevicesGetALaneGroupEach() {
    trace::Run run;
    run.strategy = "recorded";
    run.mode = trace::RunMode::Recorded;
    const auto nccl =
        run.intern("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
    auto add = [&](trace::ActivityKind kind, std::int64_t start, int device, int peer = -1) {
        auto a = testhelpers::activity(kind, start, start + 100);
        a.device = std::uint8_t(device);
        a.peerDevice = peer < 0 ? trace::kNoDevice : std::uint8_t(peer);
        a.stream = kind == trace::ActivityKind::Api ? 0 : 7;
        a.nameId = kind == trace::ActivityKind::Kernel ? nccl : 0;
        run.activities.push_back(a);
        return run.activities.size() - 1;
    };
    add(trace::ActivityKind::Api, 0, 0);
    add(trace::ActivityKind::Kernel, 200, 1);
    add(trace::ActivityKind::Kernel, 210, 0);
    add(trace::ActivityKind::HtoD, 50, 1);
    add(trace::ActivityKind::HtoD, 40, 0);
    const auto peer = add(trace::ActivityKind::DtoD, 400, 0, 1);
    add(trace::ActivityKind::DtoD, 500, 1); // a copy within GPU 1
    const RunLanes lanes = buildLanes(run);
    QCOMPARE(lanes.devices, (std::vector<int>{0, 1}));
    std::vector<std::string> labels;
    for (const auto& lane : lanes.lanes) {
        labels.push_back(lane.label);
        for (const auto& row : lane.rows) {
            for (const auto& e : row.events) {
                QVERIFY2(laneHolds(lane, run.activities[e.activity]), lane.label.c_str());
            }
        }
    }
    const std::vector<std::string> expected{
        "API",          "GPU 0 · HtoD",    "GPU 0 · kernels", "GPU 0 → GPU 1 copies",
        "GPU 1 · HtoD", "GPU 1 · kernels", "GPU 1 · DtoD"};
    QCOMPARE(labels, expected);
    QCOMPARE(lanes.lanes[3].kind, LaneKind::DtoD);
    QCOMPARE(lanes.lanes[3].device, 0);
    QCOMPARE(lanes.lanes[3].peerDevice, 1);
    QCOMPARE(lanes.lanes[3].rows[0].events.front().activity, std::uint32_t(peer));
    QCOMPARE(lanes.lanes[5].device, 1);
    QCOMPARE(lanes.lanes[5].peerDevice, kAnyDevice);
    // The kernels keep NCCL's names; the lanes only group them.
    const auto& kernel = run.activities[lanes.lanes[5].rows[0].events.front().activity];
    QVERIFY(run.name(kernel).starts_with("ncclDevKernel_AllReduce"));
    QCOMPARE(lanes.eventCount, run.activities.size());
}

QTEST_GUILESS_MAIN(TestTimelineLanes)
#include "tst_timelinelanes.moc"

namespace {
trace::Activity named(trace::Run& run, trace::ActivityKind kind, std::int64_t start,
                      std::int64_t end, const char* name, std::uint32_t thread = 0) {
    auto a = testhelpers::activity(kind, start, end);
    a.nameId = run.intern(name);
    a.threadId = thread;
    return a;
}
} // namespace

void TestTimelineLanes::measuredPart_data() {
    // 0: GPU run with set-up and checks, 1: CPU run, 2: API only, 3: GPU run with layout passes
    QTest::addColumn<int>("shape");
    QTest::addColumn<qint64>("workBegin");
    QTest::addColumn<qint64>("workEnd");
    QTest::addColumn<bool>("hasWork");
    QTest::addColumn<int>("computeSpans");
    QTest::addColumn<int>("otherSpans");
    QTest::newRow("gpu: first copy to last copy")
        << 0 << qint64(1000) << qint64(1900) << true << 0 << 2;
    QTest::newRow("cpu: the compute spans") << 1 << qint64(500) << qint64(800) << true << 1 << 2;
    QTest::newRow("no work: the whole run") << 2 << qint64(0) << qint64(50) << false << 0 << 0;
    // The breakdown counts a GPU run's layout passes in each repetition: they are its work too.
    QTest::newRow("gpu: layout pass to layout pass")
        << 3 << qint64(100) << qint64(2500) << true << 2 << 2;
}

void TestTimelineLanes::measuredPart() {
    QFETCH(int, shape);
    QFETCH(qint64, workBegin);
    QFETCH(qint64, workEnd);
    QFETCH(bool, hasWork);
    QFETCH(int, computeSpans);
    QFETCH(int, otherSpans);
    trace::Run run;
    if (shape == 0) {
        run.activities.push_back(named(run, trace::ActivityKind::Host, 0, 900, "fill inputs"));
        run.activities.push_back(
            named(run, trace::ActivityKind::Api, 990, 1100, "cudaMemcpyAsync", 77));
        run.activities.push_back(testhelpers::activity(trace::ActivityKind::HtoD, 1000, 1200));
        run.activities.push_back(testhelpers::activity(trace::ActivityKind::Kernel, 1300, 1500));
        run.activities.push_back(testhelpers::activity(trace::ActivityKind::DtoH, 1600, 1900));
        run.activities.push_back(
            named(run, trace::ActivityKind::Host, 2000, 3000, "verify against the CPU reference"));
    } else if (shape == 1) {
        run.activities.push_back(
            named(run, trace::ActivityKind::Host, 0, 400, "allocate and fill inputs"));
        run.activities.push_back(
            named(run, trace::ActivityKind::Host, 500, 800, "compute (all threads)"));
        run.activities.push_back(
            named(run, trace::ActivityKind::Host, 510, 790, "compute: thread 0, 3 slices", 1));
        run.activities.push_back(
            named(run, trace::ActivityKind::Host, 900, 1000, "verify against reference"));
    } else if (shape == 3) {
        run.activities.push_back(named(run, trace::ActivityKind::Host, 0, 90, "fill inputs"));
        run.activities.push_back(
            named(run, trace::ActivityKind::Host, 100, 900, "layout: discount to C x R x N"));
        run.activities.push_back(testhelpers::activity(trace::ActivityKind::HtoD, 1000, 1200));
        run.activities.push_back(testhelpers::activity(trace::ActivityKind::Kernel, 1300, 1500));
        run.activities.push_back(testhelpers::activity(trace::ActivityKind::DtoH, 1600, 1900));
        run.activities.push_back(
            named(run, trace::ActivityKind::Host, 2000, 2500, "layout: cv back to R x C x N"));
        run.activities.push_back(
            named(run, trace::ActivityKind::Host, 2600, 3000, "verify against the CPU reference"));
    } else {
        run.activities.push_back(named(run, trace::ActivityKind::Api, 0, 50, "cudaFree", 5));
    }
    const RunLanes lanes = buildLanes(run);
    QCOMPARE(lanes.workBeginNs, std::int64_t(workBegin));
    QCOMPARE(lanes.workEndNs, std::int64_t(workEnd));
    QCOMPARE(lanes.hasWork, hasWork);
    QCOMPARE(int(lanes.hostCompute.eventCount), computeSpans);
    QCOMPARE(int(lanes.hostOther.eventCount), otherSpans);
    QVERIFY(lanes.beginNs <= lanes.workBeginNs && lanes.workEndNs <= lanes.endNs);
}

void TestTimelineLanes::laneGroups() {
    trace::Run run;
    auto add = [&](trace::ActivityKind kind, std::uint32_t thread) {
        auto a = testhelpers::activity(kind, 0, 10);
        a.threadId = thread;
        run.activities.push_back(a);
    };
    add(trace::ActivityKind::Api, 9);
    add(trace::ActivityKind::HtoD, 0);
    add(trace::ActivityKind::Kernel, 0);
    add(trace::ActivityKind::Memset, 0);
    add(trace::ActivityKind::DtoH, 0);
    add(trace::ActivityKind::Host, 0);
    add(trace::ActivityKind::Host, 3);
    add(trace::ActivityKind::Sync, 9);
    add(trace::ActivityKind::Overhead, 9);
    const RunLanes lanes = buildLanes(run);
    std::map<std::string, std::pair<LaneGroup, bool>> expected = {
        {"API", {LaneGroup::Api, false}},
        {"HtoD", {LaneGroup::Work, true}},
        {"kernels", {LaneGroup::Work, true}},
        {"memsets", {LaneGroup::Memset, true}},
        {"DtoH", {LaneGroup::Work, true}},
        {"host (main)", {LaneGroup::Work, false}},
        {"host thread 1", {LaneGroup::HostThreads, false}},
        {"sync", {LaneGroup::Sync, false}},
        {"profiler", {LaneGroup::Profiler, false}},
    };
    QCOMPARE(lanes.lanes.size(), expected.size());
    for (const auto& lane : lanes.lanes) {
        const auto it = expected.find(lane.label);
        QVERIFY2(it != expected.end(), lane.label.c_str());
        QCOMPARE(int(laneGroupOf(lane)), int(it->second.first));
        QCOMPARE(isOverviewLane(lane), it->second.second);
    }
}

void TestTimelineLanes::warmupEventsAreFlaggedAndOutsideTheMeasuredPart() {
    trace::Run run;
    run.warmup = 1;
    auto warm = [](trace::Activity a) {
        a.warmup = true;
        return a;
    };
    run.activities.push_back(named(run, trace::ActivityKind::Host, 0, 90, "fill inputs"));
    run.activities.push_back(warm(testhelpers::activity(trace::ActivityKind::HtoD, 100, 300)));
    run.activities.push_back(warm(testhelpers::activity(trace::ActivityKind::Kernel, 300, 700)));
    run.activities.push_back(
        warm(named(run, trace::ActivityKind::Host, 700, 800, "compute (all threads)")));
    run.activities.push_back(testhelpers::activity(trace::ActivityKind::HtoD, 1000, 1200));
    run.activities.push_back(testhelpers::activity(trace::ActivityKind::Kernel, 1300, 1500));
    const RunLanes lanes = buildLanes(run);
    // The measured part starts with the first measured iteration, not the warm-up.
    QCOMPARE(lanes.workBeginNs, std::int64_t(1000));
    QCOMPARE(lanes.workEndNs, std::int64_t(1500));
    QCOMPARE(lanes.beginNs, std::int64_t(0));
    QCOMPARE(lanes.warmupEventCount, std::size_t(3));
    // Each event carries the style it is drawn with: warm-up ones greyed.
    std::size_t flagged = 0;
    for (const auto& lane : lanes.lanes) {
        for (const auto& row : lane.rows) {
            std::size_t inRow = 0;
            for (const auto& e : row.events) {
                QCOMPARE(e.warmup, run.activities[e.activity].warmup);
                inRow += e.warmup ? 1 : 0;
            }
            QCOMPARE(row.warmupEvents, inRow);
            flagged += inRow;
            // Where a merge of neighbours must stop: the next event of the other kind.
            for (std::size_t i = 0; i < row.events.size(); ++i) {
                std::size_t next = i + 1;
                while (next < row.events.size() &&
                       row.events[next].warmup == row.events[i].warmup) {
                    ++next;
                }
                QCOMPARE(row.nextWarmupChange(i), next);
            }
        }
    }
    QCOMPARE(flagged, std::size_t(3));
    // The overview row's host compute keeps the flag too.
    QCOMPARE(lanes.hostCompute.eventCount, std::size_t(1));
    QVERIFY(lanes.hostCompute.rows[0].events[0].warmup);
}
