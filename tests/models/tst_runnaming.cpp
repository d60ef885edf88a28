// Run names: unique in the session, stable, never given twice (not even after a deletion), told
// apart by device before a number, one numeric suffix per batch; recorded runs named after their
// program; and the batch a run came in with, which verdicts compare within.
#include "models/runnaming.h"
#include "models/session.h"
#include "models/traceloader.h"
#include "testhelpers.h"

#include <QDir>
#include <QTest>

using namespace slicescope;
using namespace slicescope::models;

namespace {

RunNameRequest request(const QString& wanted, const QString& device = QStringLiteral("h200")) {
    return RunNameRequest{wanted, device, {}};
}

trace::Run cpuRun(const std::string& id, std::int64_t computeNs,
                  const std::string& host = "Intel(R) Xeon(R) Processor") {
    trace::Run run;
    run.id = id;
    run.strategy = id;
    run.mode = trace::RunMode::MeasuredCpu;
    run.problem = *problem::makeProblem({100, 4000, 5}, problem::Dtype::F64, 1);
    run.device.name = host;
    auto a = testhelpers::activity(trace::ActivityKind::Host, 0, computeNs);
    a.nameId = run.intern("compute");
    run.activities.push_back(a);
    return run;
}

RunEntryPtr fromFile(trace::Run run, const QString& file) {
    return makeRunEntry(std::move(run), RunOrigin::Opened, file);
}

} // namespace

class TestRunNaming : public QObject {
    Q_OBJECT
  private slots:
    void freeNamesAreKept();
    void oneSuffixForTheWholeBatch();
    void namesAreNeverReusedAfterADeletion();
    void anotherDeviceIsNamedByItsDevice();
    void anotherSettingIsNamedByWhatDiffers();
    void deviceTagsAndProgramNames();
    void recordedRunsAreNamedAfterTheirProgram();
    void clearForgetsTheNames();
    void batchIsTheRunRequestOrTheFile();
    void batchOfRunsOfManyFilesOneAfterAnother();
    void anEntryAsksForWhatItsRunAsksFor();
    void verdictsCompareOnlyWithinABatch();
};

void TestRunNaming::freeNamesAreKept() {
    RunNaming naming;
    QCOMPARE(naming.nameBatch(
                 {request(QStringLiteral("slice-outer")), request(QStringLiteral("cpu-serial"))}),
             (QStringList{QStringLiteral("slice-outer"), QStringLiteral("cpu-serial")}));
    QVERIFY(naming.wasIssued(QStringLiteral("slice-outer")));
}

void TestRunNaming::oneSuffixForTheWholeBatch() {
    RunNaming naming;
    naming.nameBatch({request(QStringLiteral("a")), request(QStringLiteral("b")),
                      request(QStringLiteral("b-3"))});
    naming.nameBatch({request(QStringLiteral("b"))}); // b-2
    // a-2 would be free but b-2 is not: the batch takes -3 for both... b-3 is taken too: -4.
    const QStringList names = naming.nameBatch(
        {request(QStringLiteral("a")), request(QStringLiteral("b")), request(QStringLiteral("c"))});
    QCOMPARE(names,
             (QStringList{QStringLiteral("a-4"), QStringLiteral("b-4"), QStringLiteral("c")}));
}

void TestRunNaming::namesAreNeverReusedAfterADeletion() {
    Session session;
    session.addRuns({makeRunEntry(cpuRun("cpu-serial", 10), RunOrigin::Opened)});
    session.addRuns({makeRunEntry(cpuRun("cpu-serial", 20), RunOrigin::Opened)});
    QCOMPARE(session.at(1)->id, QStringLiteral("cpu-serial-2"));
    session.removeRun(1);
    session.removeRun(0);
    QVERIFY(session.isEmpty());
    session.addRuns({makeRunEntry(cpuRun("cpu-serial", 30), RunOrigin::Opened)});
    QCOMPARE(session.at(0)->id, QStringLiteral("cpu-serial-3")); // not cpu-serial, not -2
}

void TestRunNaming::anotherDeviceIsNamedByItsDevice() {
    Session session;
    session.addRuns({makeRunEntry(
        testhelpers::gpuShapedRun("slice-outer", trace::RunMode::MeasuredGpu), RunOrigin::Opened)});
    trace::Run k2000 = testhelpers::gpuShapedRun("slice-outer", trace::RunMode::Modelled);
    k2000.device.id = "quadro-k2000";
    k2000.device.name = "Quadro K2000";
    session.addRuns({makeRunEntry(k2000, RunOrigin::Opened)});
    QCOMPARE(session.at(1)->id, QStringLiteral("slice-outer@quadro-k2000"));
    // The same device again: a number, after the device.
    session.addRuns({makeRunEntry(k2000, RunOrigin::Opened)});
    QCOMPARE(session.at(2)->id, QStringLiteral("slice-outer@quadro-k2000-2"));
    // The first device again: a number.
    session.addRuns({makeRunEntry(
        testhelpers::gpuShapedRun("slice-outer", trace::RunMode::MeasuredGpu), RunOrigin::Opened)});
    QCOMPARE(session.at(3)->id, QStringLiteral("slice-outer-2"));
    QVERIFY(devicesDiffer(session.runs()));
    session.setVisible(1, false);
    session.setVisible(2, false);
    QVERIFY(!devicesDiffer(session.runs())); // only visible runs count
}

// A strategy run again with other settings is named by what differs from the run that first had
// the name, not by a number; the same settings again get a number.
void TestRunNaming::anotherSettingIsNamedByWhatDiffers() {
    const auto add = [](Session& session, trace::Run run) {
        session.addRuns({makeRunEntry(std::move(run), RunOrigin::Opened)});
        return session.at(session.count() - 1)->id;
    };
    Session session;
    const trace::Run first = testhelpers::gpuShapedRun("slice-outer", trace::RunMode::MeasuredGpu);
    QCOMPARE(add(session, first), QStringLiteral("slice-outer"));
    trace::Run pieces = first;
    pieces.chunks = 16;
    pieces.streams = 4;
    QCOMPARE(add(session, pieces), QStringLiteral("slice-outer (k16\u00d7s4)"));
    trace::Run block = first;
    block.launch->block = {256, 1, 1};
    block.problem->dtype = problem::Dtype::F32;
    QCOMPARE(add(session, block), QStringLiteral("slice-outer (f32, block 256)"));
    trace::Run shape = first;
    shape.problem->shape = {200, 4000, 5};
    shape.memoryMode = "pinned";
    QCOMPARE(add(session, shape), QStringLiteral("slice-outer (200x4000x5, pinned)"));
    QCOMPARE(add(session, first), QStringLiteral("slice-outer-2")); // nothing differs
    QCOMPARE(add(session, pieces), QStringLiteral("slice-outer (k16\u00d7s4)-2"));
    // Measured again with counters (the seed's two samples opened together read 'one-worker-2').
    trace::Run counters = first;
    counters.occupancy->achieved = 0.016;
    QCOMPARE(add(session, counters), QStringLiteral("slice-outer (counters)"));
    // Within one batch too: the second run differs from the first in its block.
    Session batch;
    batch.addRuns({makeRunEntry(first, RunOrigin::Opened), makeRunEntry(block, RunOrigin::Opened)});
    QCOMPARE(batch.at(1)->id, QStringLiteral("slice-outer (f32, block 256)"));
    // CPU runs have no block, pieces shown only when they differ.
    QCOMPARE(runSettings(cpuRun("cpu-serial", 5)).size(), runSettings(first).size());
}

void TestRunNaming::deviceTagsAndProgramNames() {
    device::DeviceSpec d;
    d.name = "NVIDIA H200";
    QCOMPARE(deviceTag(d), QStringLiteral("h200"));
    d.name = "Intel(R) Xeon(R) Processor";
    QCOMPARE(deviceTag(d), QStringLiteral("intel-xeon"));
    d.name = "AMD EPYC 9654 96-Core Processor";
    QCOMPARE(deviceTag(d), QStringLiteral("amd-epyc-9654-96-core"));
    QCOMPARE(deviceTag(d), QStringLiteral("amd-epyc-9654-96-core")); // asked again
    d.name = "NVIDIA GeForce GTX 970";
    QCOMPARE(deviceTag(d), QStringLiteral("gtx-970")); // not the last name's
    d.name = "AMD EPYC 9654 96-Core Processor";
    d.id = "gtx-970";
    QCOMPARE(deviceTag(d), QStringLiteral("gtx-970"));
    QCOMPARE(programName("python3 docs/recording/seed_numba.py --n 5"),
             QStringLiteral("seed_numba"));
    QCOMPARE(programName("/tmp/seed"), QStringLiteral("seed"));
    QCOMPARE(programName("env FOO=1 python3 -u run.py"), QStringLiteral("run"));
}

void TestRunNaming::recordedRunsAreNamedAfterTheirProgram() {
    LoadResult result = TraceLoader::loadNow(
        QStringLiteral(SLICESCOPE_SAMPLES_DIR "/recorded-numba.json"), RunOrigin::Sample);
    QVERIFY2(result.ok(), qPrintable(result.error));
    Session session;
    session.addRuns(std::move(result.runs));
    QCOMPARE(session.at(0)->id, QStringLiteral("seed_numba")); // not "recorded", which says nothing
}

void TestRunNaming::clearForgetsTheNames() {
    Session session;
    session.addRuns({makeRunEntry(cpuRun("cpu-serial", 10), RunOrigin::Opened)});
    session.clear();
    session.addRuns({makeRunEntry(cpuRun("cpu-serial", 10), RunOrigin::Opened)});
    QCOMPARE(session.at(0)->id, QStringLiteral("cpu-serial"));
}

void TestRunNaming::batchIsTheRunRequestOrTheFile() {
    const auto gpu = fromFile(testhelpers::gpuShapedRun("a", trace::RunMode::MeasuredGpu),
                              QStringLiteral("/s/session-runs/run-7-gpu.json"));
    const auto cpu =
        fromFile(cpuRun("cpu-serial", 1), QStringLiteral("/s/session-runs/run-7-cpu-serial.json"));
    const auto other =
        fromFile(cpuRun("cpu-serial", 1), QStringLiteral("/s/session-runs/run-8-cpu-serial.json"));
    const auto sample = fromFile(cpuRun("cpu-serial", 1), QStringLiteral("/samples/seed.json"));
    QCOMPARE(batchOf(*gpu), batchOf(*cpu));
    QVERIFY(batchOf(*gpu) != batchOf(*other));
    QVERIFY(batchOf(*sample) != batchOf(*cpu));
    QCOMPARE(batchOf(*sample), QStringLiteral("/samples/seed.json"));
}

// batchOf remembers the last file's batch on its thread (asked for every run at every change):
// runs of files taken in turn, and a relative path, each get their own.
void TestRunNaming::batchOfRunsOfManyFilesOneAfterAnother() {
    const QStringList files{QStringLiteral("/s/session-runs/run-7-gpu.json"),
                            QStringLiteral("/s/session-runs/run-7-cpu-serial.json"),
                            QStringLiteral("/s/other.json"), QStringLiteral("/s/run-9-gpu.json"),
                            QStringLiteral("relative/run-4-gpu.json")};
    const QStringList expected{QStringLiteral("/s/session-runs/run-7"),
                               QStringLiteral("/s/session-runs/run-7"),
                               QStringLiteral("/s/other.json"), QStringLiteral("/s/run-9"),
                               QDir::current().absoluteFilePath(QStringLiteral("relative/run-4"))};
    for (int pass = 0; pass < 3; ++pass) {
        for (int i = 0; i < files.size(); ++i) {
            const int at = pass == 1 ? int(files.size()) - 1 - i : i; // forwards, back, forwards
            for (int twice = 0; twice < 2; ++twice) {
                const auto entry = fromFile(cpuRun("cpu-serial", 1), files[at]);
                QCOMPARE(batchOf(*entry), expected[at]);
            }
        }
    }
    // A run naming its batch, or restored, is not taken for the last file's.
    trace::Run named = cpuRun("cpu-serial", 1);
    named.batch = "its own";
    QCOMPARE(batchOf(*fromFile(named, files[0])), QStringLiteral("its own"));
    trace::Run restored = cpuRun("cpu-serial", 1);
    restored.createdAt = "2026-01-02T03:04:05Z";
    QCOMPARE(batchOf(*makeRunEntry(restored, RunOrigin::Restored, files[0])),
             files[0] + QStringLiteral(" created 2026-01-02T03:04:05Z"));
}

// The session names an entry from the device tag and settings made with it, off the GUI thread:
// they are what its run gives.
void TestRunNaming::anEntryAsksForWhatItsRunAsksFor() {
    trace::Run recorded = testhelpers::gpuShapedRun("recorded", trace::RunMode::Recorded);
    recorded.strategy = "recorded";
    recorded.command = "python3 docs/recording/seed_numba.py";
    trace::Run pieces = testhelpers::gpuShapedRun("slice-outer", trace::RunMode::Modelled);
    pieces.chunks = 16;
    for (const trace::Run& run : {recorded, pieces, cpuRun("cpu-serial", 5)}) {
        const RunEntryPtr entry = makeRunEntry(run, RunOrigin::Opened);
        const RunNameRequest fromEntry = nameRequest(*entry);
        const RunNameRequest fromRun = nameRequest(run, entry->id);
        QCOMPARE(fromEntry.wanted, fromRun.wanted);
        QCOMPARE(fromEntry.deviceTag, fromRun.deviceTag);
        QCOMPARE(fromEntry.settings, fromRun.settings);
        QVERIFY(!fromEntry.settings.isEmpty());
    }
    QCOMPARE(nameRequest(*makeRunEntry(recorded, RunOrigin::Opened)).wanted,
             QStringLiteral("seed_numba"));
    QCOMPARE(nameRequest(*makeRunEntry(cpuRun("cpu-serial", 5), RunOrigin::Opened)).deviceTag,
             QStringLiteral("intel-xeon"));
}

void TestRunNaming::verdictsCompareOnlyWithinABatch() {
    // A run modelled for a Quadro K2000 in one request must not be compared with the sample's
    // CPU run; the CPU run of its own request is, and is named as the session names it.
    Session session;
    session.addRuns(
        {fromFile(cpuRun("cpu-parallel", 1'000), QStringLiteral("/samples/seed.json"))});
    trace::Run k2000 = testhelpers::gpuShapedRun("slice-outer", trace::RunMode::Modelled);
    k2000.device.name = "Quadro K2000";
    session.addRuns({fromFile(k2000, QStringLiteral("/s/run-3-modelled.json"))});
    QVERIFY2(!session.at(1)->verdict.contains(QStringLiteral("cpu-parallel")),
             qPrintable(session.at(1)->verdict));
    session.addRuns(
        {fromFile(cpuRun("cpu-parallel", 2'000), QStringLiteral("/s/run-3-cpu-parallel.json"))});
    QCOMPARE(session.at(2)->id, QStringLiteral("cpu-parallel-2"));
    QVERIFY2(session.at(1)->verdict.contains(QStringLiteral("cpu-parallel-2")),
             qPrintable(session.at(1)->verdict));
    QVERIFY2(session.at(2)->verdict.contains(QStringLiteral("slice-outer")),
             qPrintable(session.at(2)->verdict));
    QVERIFY2(!session.at(0)->verdict.contains(QStringLiteral("slice-outer")),
             qPrintable(session.at(0)->verdict));
}

QTEST_GUILESS_MAIN(TestRunNaming)
#include "tst_runnaming.moc"
