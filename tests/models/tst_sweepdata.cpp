// Sweeps in the GUI's data layer: the sweep job planned from the panel's choices (and refused as
// the CLI would refuse it), the runner keeping a cancelled sweep's finished points (the real
// slicescope-cli on the CPU), and the chart's data from real CLI traces: lines, crossovers the
// same as the CLI's, occupancy divergences, the roofline's points.
#include "models/clirunner.h"
#include "models/runnaming.h"
#include "models/session.h"
#include "models/sessionstore.h"
#include "models/sweepdata.h"
#include "models/sweepjob.h"
#include "models/traceloader.h"
#include "slicescope/core/progressline.h"
#include "slicescope/sweep/crossover.h"

#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

using namespace slicescope;
using namespace slicescope::models;

namespace {

constexpr int kGenerousMs = 120'000;

DeviceChoice h200Preset() {
    DeviceChoice d;
    d.kind = DeviceChoice::Kind::Preset;
    d.presetId = QStringLiteral("h200");
    d.name = QStringLiteral("NVIDIA H200");
    return d;
}

// Runs the real slicescope-cli; its exit status.
int cli(const QStringList& arguments) {
    QProcess p;
    p.start(QStringLiteral(SLICESCOPE_CLI_PATH), arguments);
    if (!p.waitForFinished(kGenerousMs)) {
        return -1;
    }
    return p.exitCode();
}

} // namespace

class TestSweepData : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }
    void planTakesValuesOrARange();
    void planRefusesWhatTheCliWouldRefuse();
    void planMixesAModelledGpuWithAMeasuredCpu();
    void planSweepsCpuStrategiesWithNoDevice();
    void cancelledSweepKeepsThePointsFinished();
    void sweepProgressSaysThePoint();
    void linesAndCrossoversComeFromTheRuns();
    void blockSweepHasTheOccupancyCurve();
    void everyCrossingOfTheLinesIsToldInTheVerdict();
    void divergenceFlagsHighAndSlowAndLowAndFast();
    void rooflinePlacesEachRunTwice();

  private:
    LoadResult modelledSweep(const QString& name, const QStringList& arguments);
    QTemporaryDir dir_;
};

LoadResult TestSweepData::modelledSweep(const QString& name, const QStringList& arguments) {
    const QString path = dir_.filePath(name);
    if (cli(QStringList{QStringLiteral("sweep")} + arguments +
            QStringList{QStringLiteral("--device"), QStringLiteral("h200"), QStringLiteral("-q"),
                        QStringLiteral("-o"), path}) != 0) {
        return {};
    }
    return TraceLoader::loadNow(path, RunOrigin::Opened);
}

void TestSweepData::planTakesValuesOrARange() {
    SweepConfig s;
    s.run.strategies = {QStringLiteral("slice-2d"), QStringLiteral("elementwise-broadcast")};
    s.run.device = h200Preset();
    s.run.counters = true;
    s.param = QStringLiteral("block");
    s.values = QStringLiteral("32:1024:x2");
    RunPlan plan = planSweep(s, dir_.path(), 3);
    QVERIFY2(plan.error.isEmpty(), qPrintable(plan.error));
    QCOMPARE(plan.jobs.size(), 1);
    const CliJob& job = plan.jobs.front();
    QVERIFY(isSweepJob(job));
    QVERIFY(job.modelled);
    const QStringList& a = job.arguments;
    QCOMPARE(a.front(), QStringLiteral("sweep"));
    QCOMPARE(a.at(a.indexOf(QStringLiteral("--param")) + 1), QStringLiteral("block"));
    QCOMPARE(a.at(a.indexOf(QStringLiteral("--range")) + 1), QStringLiteral("32:1024:x2"));
    QCOMPARE(a.at(a.indexOf(QStringLiteral("--device")) + 1), QStringLiteral("h200"));
    QCOMPARE(a.at(a.indexOf(QStringLiteral("-o")) + 1), job.outputPath);
    QVERIFY(a.contains(QStringLiteral("--progress")));
    QVERIFY(!a.contains(QStringLiteral("--counters"))); // a model has no counters
    QVERIFY(!a.contains(QStringLiteral("--warmup")));   // nor a warm-up
    QVERIFY(!a.contains(QStringLiteral("--host")));     // this machine
    s.run.host = QStringLiteral("gpu-box");
    const QStringList remote = planSweep(s, dir_.path(), 4).jobs.front().arguments;
    QCOMPARE(remote.at(remote.indexOf(QStringLiteral("--host")) + 1), QStringLiteral("gpu-box"));
    s.run.host.clear();
    QVERIFY(job.label.contains(QStringLiteral("6 values")));

    s.values = QStringLiteral("64,128");
    s.run.device.kind = DeviceChoice::Kind::Detected;
    s.run.device.index = 1;
    s.roofline = true;
    s.run.warmup = 3;
    plan = planSweep(s, dir_.path(), 4);
    QVERIFY2(plan.error.isEmpty(), qPrintable(plan.error));
    const QStringList& b = plan.jobs.front().arguments;
    QCOMPARE(b.at(b.indexOf(QStringLiteral("--values")) + 1), QStringLiteral("64,128"));
    QCOMPARE(b.at(b.indexOf(QStringLiteral("--device")) + 1), QStringLiteral("1"));
    QVERIFY(b.contains(QStringLiteral("--counters")));
    QVERIFY(b.contains(QStringLiteral("--roofline")));
    QCOMPARE(b.at(b.indexOf(QStringLiteral("--warmup")) + 1), QStringLiteral("3"));
    // The plan is what the CLI accepts: the modelled one runs.
    s.run.device = h200Preset();
    s.values = QStringLiteral("64,128");
    plan = planSweep(s, dir_.path(), 5);
    QCOMPARE(cli(plan.jobs.front().arguments), 0);
    QVERIFY(QFileInfo::exists(plan.jobs.front().outputPath));
}

void TestSweepData::planRefusesWhatTheCliWouldRefuse() {
    SweepConfig s;
    s.run.strategies = {QStringLiteral("slice-2d")};
    s.run.device = h200Preset();
    s.param = QStringLiteral("block");
    const auto refused = [&](const QString& why) {
        const RunPlan plan = planSweep(s, dir_.path(), 1);
        QVERIFY2(plan.jobs.isEmpty(), qPrintable(why));
        QVERIFY2(plan.error.contains(why, Qt::CaseInsensitive),
                 qPrintable(plan.error + QStringLiteral(" lacks ") + why));
    };
    s.values = QStringLiteral("0,64");
    refused(QStringLiteral("block"));
    s.values = QStringLiteral("64,64");
    refused(QStringLiteral("64"));
    s.values = QStringLiteral("32:16");
    refused(QStringLiteral("32"));
    s.param = QStringLiteral("threads");
    s.values = QStringLiteral("1,2");
    refused(QStringLiteral("threads"));
    s.run.device = {};
    s.run.strategies = {QStringLiteral("cpu-serial")};
    s.param = QStringLiteral("block");
    s.values = QStringLiteral("32,64");
    refused(QStringLiteral("needs a GPU strategy"));
    s.run.strategies.clear();
    refused(QStringLiteral("at least one strategy"));
    s.run.strategies = {QStringLiteral("slice-2d")};
    refused(QStringLiteral("need a device"));
}

void TestSweepData::planMixesAModelledGpuWithAMeasuredCpu() {
    // A preset and a CPU strategy, as the Run panel mixes them: the GPU strategy modelled on the
    // preset, the CPU strategy measured here (warmed up), in one sweep.
    SweepConfig s;
    s.run.strategies = {QStringLiteral("elementwise-broadcast"), QStringLiteral("cpu-serial")};
    s.run.device = h200Preset();
    s.run.r = 10;
    s.run.c = 20;
    s.run.warmup = 2;
    s.param = QStringLiteral("work");
    s.values = QStringLiteral("1,4");
    const RunPlan plan = planSweep(s, dir_.path(), 11);
    QVERIFY2(plan.error.isEmpty(), qPrintable(plan.error));
    QCOMPARE(plan.jobs.size(), 1);
    const CliJob& job = plan.jobs.front();
    QVERIFY(!job.modelled); // not every run is
    const QStringList& a = job.arguments;
    QCOMPARE(a.at(a.indexOf(QStringLiteral("--device")) + 1), QStringLiteral("h200"));
    QCOMPARE(a.at(a.indexOf(QStringLiteral("--warmup")) + 1), QStringLiteral("2"));
    QVERIFY2(job.label.contains(QStringLiteral("GPU modelled on NVIDIA H200, CPU measured here")),
             qPrintable(job.label));
    // The CLI takes it; the chart's data says which times are which, from the runs' modes.
    QCOMPARE(cli(a), 0);
    const LoadResult loaded = TraceLoader::loadNow(job.outputPath, RunOrigin::Opened);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error));
    const auto views = collectSweeps(loaded.runs);
    QCOMPARE(views.size(), 1);
    const QString basis = QStringLiteral("modelled GPU (NVIDIA H200) vs measured CPU on this host");
    QCOMPARE(views.front().basis, basis);
    QVERIFY2(views.front().title.contains(basis), qPrintable(views.front().title));
    QVERIFY(!views.front().verdict.isEmpty());
    QCOMPARE(views.front().verdict.front(),
             QStringLiteral("Modelled GPU (NVIDIA H200) vs measured CPU on this host."));
    for (const SweepLine& line : views.front().lines) {
        QCOMPARE(line.predicted, line.strategy != QStringLiteral("cpu-serial")
                                     ? QStringLiteral("modelled")
                                     : QString());
    }
    // Saved with the session and restored: each run's mode is kept, and so is the label.
    Session session;
    session.addRuns(loaded.runs);
    const QString saved = dir_.filePath(QStringLiteral("mixed-session.json"));
    {
        SessionStore store(saved);
        store.save(session);
        QVERIFY(store.waitForIdle());
    }
    const LoadResult restored = TraceLoader::loadNow(saved, RunOrigin::Restored);
    QVERIFY2(restored.ok(), qPrintable(restored.error));
    const auto again = collectSweeps(restored.runs);
    QCOMPARE(again.size(), 1);
    QCOMPARE(again.front().basis, basis);
    QCOMPARE(again.front().verdict, views.front().verdict);
}

void TestSweepData::planSweepsCpuStrategiesWithNoDevice() {
    // CPU strategies alone need no GPU and no preset, whatever the device list holds.
    SweepConfig s;
    s.run.strategies = {QStringLiteral("cpu-serial")};
    s.param = QStringLiteral("work");
    s.values = QStringLiteral("1,4");
    for (const DeviceChoice& device : {DeviceChoice{}, h200Preset()}) {
        s.run.device = device;
        const RunPlan plan = planSweep(s, dir_.path(), 12);
        QVERIFY2(plan.error.isEmpty(), qPrintable(plan.error));
        QVERIFY(!plan.jobs.front().arguments.contains(QStringLiteral("--device")));
        QVERIFY(!plan.jobs.front().modelled);
        QVERIFY2(plan.jobs.front().label.contains(QStringLiteral("measured on the CPU")),
                 qPrintable(plan.jobs.front().label));
    }
}

void TestSweepData::cancelledSweepKeepsThePointsFinished() {
    // A CPU sweep whose last point takes far longer than the test waits: cancel after the first
    // point is done; the CLI (SIGTERM) drops the run in progress and writes the points finished.
    SweepConfig s;
    s.run.strategies = {QStringLiteral("cpu-serial")};
    s.run.r = 10; // 200,000 elements: a repetition at work 2000 takes well under a second
    s.run.c = 4000;
    s.run.repeat = 1000; // the CPU backend looks at the cancel flag between repetitions
    s.param = QStringLiteral("work");
    s.values = QStringLiteral("1,2000");
    const RunPlan plan = planSweep(s, dir_.path(), 9);
    QVERIFY2(plan.error.isEmpty(), qPrintable(plan.error));
    CliRunner runner;
    runner.setProgram(QStringLiteral(SLICESCOPE_CLI_PATH));
    QSignalSpy progress(&runner, &CliRunner::progress);
    QSignalSpy succeeded(&runner, &CliRunner::jobSucceeded);
    QSignalSpy failed(&runner, &CliRunner::jobFailed);
    QSignalSpy finished(&runner, &CliRunner::finished);
    QVERIFY(runner.start(plan.jobs));
    QTRY_VERIFY_WITH_TIMEOUT(std::any_of(progress.begin(), progress.end(),
                                         [](const QList<QVariant>& args) {
                                             return args.at(1).toString().contains(
                                                 QStringLiteral("point 2 of 2"));
                                         }),
                             kGenerousMs);
    runner.cancel();
    QVERIFY(finished.wait(20'000));
    QCOMPARE(finished.at(0).at(0).toBool(), true);
    QCOMPARE(failed.count(), 0);
    QCOMPARE(succeeded.count(), 1);
    const LoadResult kept = TraceLoader::loadNow(plan.jobs.front().outputPath, RunOrigin::Opened);
    QVERIFY2(kept.ok(), qPrintable(kept.error));
    QCOMPARE(int(kept.runs.size()), 1);
    QCOMPARE(kept.runs.front()->run->sweep->value, std::string("1"));
}

void TestSweepData::sweepProgressSaysThePoint() {
    // The runner turns a sweep's line into the fraction of the whole sweep and names the point.
    CliRunner runner;
    runner.setProgram(QStringLiteral("/bin/sh"));
    QSignalSpy progress(&runner, &CliRunner::progress);
    QSignalSpy finished(&runner, &CliRunner::finished);
    core::RunProgressLine line{"slice-2d", 1, 2, "kernel", 0.5, {3, 4, "block", "256"}};
    CliJob job;
    job.arguments = {
        QStringLiteral("-c"),
        QStringLiteral("echo '%1'").arg(QString::fromStdString(core::formatProgressLine(line)))};
    job.outputPath = dir_.filePath(QStringLiteral("none.json"));
    QVERIFY(runner.start({job}));
    QVERIFY(finished.wait(kGenerousMs));
    const auto it = std::find_if(progress.begin(), progress.end(), [](const QList<QVariant>& a) {
        return a.at(1).toString().contains(QStringLiteral("block 256 (point 4 of 4)"));
    });
    QVERIFY(it != progress.end());
    // Point 3 of 0..3, strategy 1 of 2 half done: (3 + (1 + 0.5) / 2) / 4.
    QCOMPARE(it->at(0).toDouble(), (3 + 1.5 / 2) / 4);
}

void TestSweepData::linesAndCrossoversComeFromTheRuns() {
    const QString path = dir_.filePath(QStringLiteral("columns.json"));
    // The CLI's own crossover test case: slice-outer against slice-middle-strided over the columns.
    const LoadResult r = modelledSweep(
        QStringLiteral("columns.json"),
        {QStringLiteral("--param"), QStringLiteral("columns"), QStringLiteral("--range"),
         QStringLiteral("1:4096:x4"), QStringLiteral("--shape"), QStringLiteral("100x1x5"),
         QStringLiteral("--strategy"), QStringLiteral("slice-outer,slice-middle-strided")});
    QVERIFY2(r.ok(), qPrintable(r.error));
    const auto fromCli = trace::readTrace(path.toStdString());
    QVERIFY(fromCli);
    QCOMPARE(int(fromCli->sweeps.size()), 1);
    const QList<SweepView> views = collectSweeps(r.runs);
    QCOMPARE(views.size(), 1);
    const SweepView& v = views.front();
    QCOMPARE(v.param, QStringLiteral("columns"));
    QCOMPARE(v.values.size(), int(fromCli->sweeps.front().values.size()));
    for (int i = 0; i < v.values.size(); ++i) {
        QCOMPARE(v.values[i].toStdString(), fromCli->sweeps.front().values[std::size_t(i)]);
        QCOMPARE(v.numbers[i], v.values[i].toDouble());
    }
    QCOMPARE(v.lines.size(), 2);
    for (const auto& line : v.lines) {
        QCOMPARE(line.predicted, QStringLiteral("modelled"));
        for (double t : line.timesNs) {
            QVERIFY(std::isfinite(t) && t > 0);
        }
    }
    // The same crossovers as the CLI printed into the trace, interpolated.
    const auto& expected = fromCli->sweeps.front().crossovers;
    QVERIFY(!expected.empty());
    QCOMPARE(v.crossovers.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        QCOMPARE(v.crossovers[i].from, expected[i].from);
        QCOMPARE(v.crossovers[i].to, expected[i].to);
        QVERIFY(v.crossovers[i].interpolated);
        QVERIFY(std::abs(v.crossovers[i].at - expected[i].at) <= 1e-9 * expected[i].at);
    }
    // Runs of another file are another sweep.
    std::vector<RunEntryPtr> both = r.runs;
    for (auto& e : TraceLoader::loadNow(path, RunOrigin::Opened).runs) {
        e->source = dir_.filePath(QStringLiteral("copy.json"));
        both.push_back(e);
    }
    QCOMPARE(collectSweeps(both).size(), 2);
    // Restored from one session file, which keeps each run's batch: still two sweeps.
    std::vector<RunEntryPtr> restored;
    for (const auto& e : both) {
        auto copy = std::make_shared<RunEntry>(*e);
        auto run = std::make_shared<trace::Run>(*e->run);
        run->batch = batchOf(*e).toStdString();
        copy->run = run;
        copy->source = dir_.filePath(QStringLiteral("session.json"));
        copy->origin = RunOrigin::Restored;
        restored.push_back(copy);
    }
    QCOMPARE(collectSweeps(restored).size(), 2);
    // Hidden runs are left out, as the timeline leaves them out.
    for (std::size_t i = r.runs.size(); i < restored.size(); ++i) {
        restored[i]->visible = false;
    }
    QCOMPARE(collectSweeps(restored).size(), 1);
}

void TestSweepData::everyCrossingOfTheLinesIsToldInTheVerdict() {
    // The shipped block sweep: two strategies within a few per cent of each other, one measured
    // repetition a point. Its lines cross several times; the verdict counts each crossing, as a
    // crossover or within noise, and names no crossover the noise can explain.
    const LoadResult r = TraceLoader::loadNow(
        QStringLiteral(SLICESCOPE_SAMPLES_DIR "/sweep-block-32-1024-counters.json"),
        RunOrigin::Sample);
    QVERIFY2(r.ok(), qPrintable(r.error));
    const auto views = collectSweeps(r.runs);
    QCOMPARE(views.size(), 1);
    const SweepView& v = views.front();
    QCOMPARE(v.lines.size(), 2);
    // The crossings, counted here from the times alone: each sign change of a - b.
    const auto& a = v.lines[0].timesNs;
    const auto& b = v.lines[1].timesNs;
    int crossings = 0;
    for (int i = 1; i < a.size(); ++i) {
        crossings += (a[i - 1] < b[i - 1]) != (a[i] < b[i]) ? 1 : 0;
    }
    QVERIFY2(crossings > 1, "the sample's lines no longer cross several times");
    QCOMPARE(int(v.crossovers.size() + v.withinNoise.size()), crossings);
    const QString all = v.verdict.join(QLatin1Char(' '));
    const auto times = [](std::size_t n) {
        return n == 1   ? QStringLiteral("once")
               : n == 2 ? QStringLiteral("twice")
                        : QStringLiteral("%1 times").arg(n);
    };
    QVERIFY2(all.contains(QStringLiteral("lines cross ") + times(std::size_t(crossings)),
                          Qt::CaseInsensitive),
             qPrintable(all));
    // Within noise, by the rule: at each crossing within noise the two are no further apart,
    // at one of its two points, than kTieShare of the faster (one repetition a point).
    for (const auto& c : v.withinNoise) {
        const int lo = int(v.values.indexOf(QString::fromStdString(c.lowValue)));
        const int hi = int(v.values.indexOf(QString::fromStdString(c.highValue)));
        const auto close = [&](int i) {
            return std::abs(a[i] - b[i]) <= sweep::kTieShare * std::min(a[i], b[i]);
        };
        QVERIFY2(close(lo) || close(hi), c.lowValue.c_str());
    }
    // With no crossover beyond noise, the verdict names the strategy that wins, or says none
    // does.
    if (v.crossovers.empty()) {
        QVERIFY2(all.contains(QStringLiteral("No crossover beyond noise")), qPrintable(all));
        QVERIFY2(v.winner.isEmpty() ? all.contains(QStringLiteral("No strategy wins"))
                                    : all.contains(v.winner + QStringLiteral(" wins")),
                 qPrintable(all));
    }
}

void TestSweepData::blockSweepHasTheOccupancyCurve() {
    const LoadResult r = modelledSweep(
        QStringLiteral("block.json"),
        {QStringLiteral("--param"), QStringLiteral("block"), QStringLiteral("--range"),
         QStringLiteral("32:1024:x2"), QStringLiteral("--shape"), QStringLiteral("100x4000x5"),
         QStringLiteral("--strategy"), QStringLiteral("slice-outer,slice-middle-strided")});
    QVERIFY2(r.ok(), qPrintable(r.error));
    const QList<SweepView> views = collectSweeps(r.runs);
    QCOMPARE(views.size(), 1);
    const SweepView& v = views.front();
    QCOMPARE(v.values,
             QStringList({QStringLiteral("32"), QStringLiteral("64"), QStringLiteral("128"),
                          QStringLiteral("256"), QStringLiteral("512"), QStringLiteral("1024")}));
    QVERIFY(!v.hasAchieved); // a model measures nothing
    for (const auto& line : v.lines) {
        QVERIFY(!line.curveBlockSizes.isEmpty());
        QCOMPARE(line.curveBlockSizes.size(), line.curveOccupancy.size());
        for (int i = 0; i < v.values.size(); ++i) {
            // Each point's theoretical occupancy lies on the strategy's curve.
            const int at = int(line.curveBlockSizes.indexOf(v.numbers[i]));
            QVERIFY(at >= 0);
            QCOMPARE(line.theoretical[i], line.curveOccupancy[at]);
        }
    }
}

void TestSweepData::divergenceFlagsHighAndSlowAndLowAndFast() {
    const QStringList values{QStringLiteral("64"), QStringLiteral("256"), QStringLiteral("1024")};
    SweepLine line;
    line.strategy = QStringLiteral("slice-2d");
    line.timesNs = {1.0e6, 1.05e6, 2.0e6};
    line.theoretical = {0.25, 0.5, 1.0};
    line.achieved = {0.2, 0.45, 0.9};
    const QList<Divergence> found = findDivergences(QStringLiteral("block"), values, line);
    QCOMPARE(found.size(), 2);
    QCOMPARE(found[0].point, 2); // 90 % and twice as slow as block 64 at 20 %
    QVERIFY(found[0].highAndSlow);
    QVERIFY(found[0].reason.contains(QStringLiteral("block 1024: 90 % occupancy")));
    QVERIFY(found[0].reason.contains(QStringLiteral("2.0x slower than block 64 at 20 %")));
    QCOMPARE(found[1].point, 0); // the fastest at 20 % when 90 % was reachable
    QVERIFY(!found[1].highAndSlow);
    // Block 256 is 25 points above block 64 but only 5 % slower: no divergence.
    // Occupancy and time that agree: none.
    line.timesNs = {2.0e6, 1.2e6, 1.0e6};
    QVERIFY(findDivergences(QStringLiteral("block"), values, line).isEmpty());
    // Equal times (copies that dominate every point) say nothing about occupancy.
    line.timesNs = {3.6e6, 3.6e6, 3.6e6};
    QVERIFY(findDivergences(QStringLiteral("block"), values, line).isEmpty());
    // Without counters, theoretical occupancy stands in.
    line.timesNs = {1.0e6, 1.05e6, 2.0e6};
    line.achieved = {NAN, NAN, NAN};
    QCOMPARE(findDivergences(QStringLiteral("block"), values, line).size(), 2);
}

void TestSweepData::rooflinePlacesEachRunTwice() {
    const QString path = dir_.filePath(QStringLiteral("roofline.json"));
    QCOMPARE(cli({QStringLiteral("model"), QStringLiteral("--shape"), QStringLiteral("100x4000x5"),
                  QStringLiteral("--strategy"), QStringLiteral("slice-outer,elementwise-broadcast"),
                  QStringLiteral("--device"), QStringLiteral("h200"), QStringLiteral("--roofline"),
                  QStringLiteral("-q"), QStringLiteral("-o"), path}),
             0);
    const LoadResult r = TraceLoader::loadNow(path, RunOrigin::Opened);
    QVERIFY2(r.ok(), qPrintable(r.error));
    const QList<RooflineView> views = collectRooflines(r.runs);
    QCOMPARE(views.size(), 1);
    const RooflineView& v = views.front();
    QCOMPARE(v.ceilings.source, std::string("datasheet"));
    QVERIFY(v.title.contains(QStringLiteral("datasheet")));
    QVERIFY(!v.fp32);
    QCOMPARE(v.marks.size(), 2);
    for (const auto& m : v.marks) {
        // The whole run is held to the host link, far below device memory, and its time
        // includes the copies: it achieves less than the kernel alone.
        QVERIFY(m.roof.wholeRun.bandwidthGBps < m.roof.kernel.bandwidthGBps);
        QVERIFY(m.roof.wholeRun.achievedGflops > 0);
        QVERIFY(m.roof.wholeRun.achievedGflops < m.roof.kernel.achievedGflops);
        QCOMPARE(m.roof.hostLink, std::string("pageable"));
        QCOMPARE(m.roof.wholeRun.bound, sweep::Bound::Bandwidth);
    }
    // CPU runs have no roofline.
    QCOMPARE(cli({QStringLiteral("run"), QStringLiteral("--shape"), QStringLiteral("10x20x5"),
                  QStringLiteral("--strategy"), QStringLiteral("cpu-serial"), QStringLiteral("-q"),
                  QStringLiteral("-o"), dir_.filePath(QStringLiteral("cpu.json"))}),
             0);
    QVERIFY(
        collectRooflines(
            TraceLoader::loadNow(dir_.filePath(QStringLiteral("cpu.json")), RunOrigin::Opened).runs)
            .isEmpty());
}

QTEST_GUILESS_MAIN(TestSweepData)
#include "tst_sweepdata.moc"
