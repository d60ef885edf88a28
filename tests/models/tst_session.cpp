// The session (unique ids, verdicts, visibility) and its autosave.
#include "models/session.h"
#include "models/sessionstore.h"
#include "models/traceloader.h"
#include "slicescope/trace/hostthreadwait.h"
#include "testhelpers.h"

#include <QElapsedTimer>
#include <QFile>
#include <QSet>
#include <QSignalSpy>
#include <QTest>
#include <algorithm>

using namespace slicescope;
using namespace slicescope::models;

namespace {

RunEntryPtr entry(trace::Run run, RunOrigin origin = RunOrigin::Opened) {
    return makeRunEntry(std::move(run), origin);
}

trace::Run cpuRun(const std::string& id, std::int64_t computeNs) {
    trace::Run run;
    run.id = id;
    run.strategy = id;
    run.mode = trace::RunMode::MeasuredCpu;
    run.problem = *problem::makeProblem({100, 4000, 5}, problem::Dtype::F64, 1);
    auto a = testhelpers::activity(trace::ActivityKind::Host, 0, computeNs);
    a.nameId = run.intern("compute");
    run.activities.push_back(a);
    run.verification = trace::Verification{true, 0};
    return run;
}

// Recorded runs without activities: their verdict takes constant time, so the time measured is
// the ids'.
RunEntryPtr emptyRun(const std::string& id) {
    trace::Run run;
    run.id = id;
    run.strategy = "recorded";
    run.mode = trace::RunMode::Recorded;
    return entry(std::move(run));
}

} // namespace

class TestSession : public QObject {
    Q_OBJECT
  private slots:
    void takenIdsAreRenamed();
    void manyRunsGetUniqueIdsQuickly();
    void verdictsCompareRunsOfOneProblem();
    void verdictWarnsWhenCpuThreadsWaited();
    void removeAndClearSignal();
    void visibilityIsPerRun();
    void toTraceUsesSessionIdsAndSkipsSamples();
    void storeWritesAndReadsBack();
    void storeRemovesTheFileWhenNothingIsLeft();
    void storeCoalescesBurstsOfSaves();
};

void TestSession::takenIdsAreRenamed() {
    Session session;
    session.addRuns({entry(cpuRun("cpu-serial", 10)), entry(cpuRun("cpu-serial", 20))});
    session.addRuns({entry(cpuRun("cpu-serial", 30))});
    QCOMPARE(session.count(), 3);
    QCOMPARE(session.at(0)->id, QStringLiteral("cpu-serial"));
    QCOMPARE(session.at(1)->id, QStringLiteral("cpu-serial-2"));
    QCOMPARE(session.at(2)->id, QStringLiteral("cpu-serial-3"));
    QCOMPARE(session.indexOf(QStringLiteral("cpu-serial-3")), 2);
    QVERIFY(!session.find(QStringLiteral("nope")));
}

// Renaming rescanned every run for every candidate id: 4,000 runs of one id took 56 s (cubic),
// and 100,000 distinct ids over 30 s (quadratic). The bounds are far above what the linear
// version takes (well under a second each) and far below the old times.
void TestSession::manyRunsGetUniqueIdsQuickly() {
    constexpr int kSameId = 4000;
    std::vector<RunEntryPtr> same;
    for (int i = 0; i < kSameId; ++i) {
        same.push_back(emptyRun("same"));
    }
    Session session;
    // One batch takes one run of consecutive numbers (models/runnaming.h): past a taken one.
    session.addRuns({emptyRun("same-3")});
    QElapsedTimer timer;
    timer.start();
    session.addRuns(std::move(same));
    const qint64 sameMs = timer.elapsed();
    QCOMPARE(session.count(), kSameId + 1);
    QCOMPARE(session.at(1)->id, QStringLiteral("same"));
    QCOMPARE(session.at(2)->id, QStringLiteral("same-4"));
    QCOMPARE(session.at(3)->id, QStringLiteral("same-5"));
    QCOMPARE(session.at(kSameId)->id, QStringLiteral("same-%1").arg(kSameId + 2));
    QSet<QString> ids;
    for (const auto& run : session.runs()) {
        ids.insert(run->id);
    }
    QCOMPARE(ids.size(), session.count());
    QVERIFY2(sameMs < 10'000,
             qPrintable(QStringLiteral("%1 ms for %2 runs of one id").arg(sameMs).arg(kSameId)));

    constexpr int kDistinct = 100'000;
    std::vector<RunEntryPtr> distinct;
    for (int i = 0; i < kDistinct; ++i) {
        distinct.push_back(emptyRun("run " + std::to_string(i)));
    }
    Session large;
    timer.restart();
    large.addRuns(std::move(distinct));
    large.addRuns({emptyRun("run 7")}); // one more, against 100,000 taken ids
    const qint64 distinctMs = timer.elapsed();
    QCOMPARE(large.count(), kDistinct + 1);
    QCOMPARE(large.at(kDistinct - 1)->id, QStringLiteral("run %1").arg(kDistinct - 1));
    QCOMPARE(large.at(kDistinct)->id, QStringLiteral("run 7-2"));
    QVERIFY2(
        distinctMs < 10'000,
        qPrintable(QStringLiteral("%1 ms for %2 distinct ids").arg(distinctMs).arg(kDistinct)));
}

void TestSession::verdictsCompareRunsOfOneProblem() {
    Session session;
    session.addRuns({entry(testhelpers::gpuShapedRun("slice-outer", trace::RunMode::MeasuredGpu))});
    QVERIFY(session.at(0)->verdict.contains(QStringLiteral("kernel takes")));
    QVERIFY(!session.at(0)->verdict.contains(QStringLiteral("CPU is faster")));
    QSignalSpy updated(&session, &Session::runsUpdated);
    session.addRuns({entry(cpuRun("cpu-parallel", 6'000'000))}); // faster than 59 ms of device work
    QVERIFY(session.at(0)->verdict.contains(QStringLiteral("the CPU is faster (cpu-parallel")));
    QCOMPARE(updated.count(), 1); // the old run's verdict changed: views are told
    session.removeRun(1);
    QVERIFY(!session.at(0)->verdict.contains(QStringLiteral("CPU is faster")));
}

// cpu-parallel points of a work sweep measured on the H200's host before runs carried the note
// (trace/hostthreadwait.h): the Runs panel's verdict still warns at work 4, whose region waited
// for its threads, and only there.
void TestSession::verdictWarnsWhenCpuThreadsWaited() {
    const auto trace =
        trace::readTrace(SLICESCOPE_TEST_DATA_DIR "/cpu-parallel-h200-work-sweep.json");
    QVERIFY2(trace, trace ? "" : trace.error().message.c_str());
    std::vector<RunEntryPtr> entries;
    for (const trace::Run& run : trace->runs) {
        QVERIFY(std::none_of(run.notes.begin(), run.notes.end(), [](const std::string& note) {
            return note.starts_with("host threads waited");
        }));
        entries.push_back(entry(run));
    }
    Session session;
    session.addRuns(std::move(entries));
    QCOMPARE(session.count(), 6);
    for (const auto& run : session.runs()) {
        const QString note = toQString(trace::hostThreadWaitNote(*run->run));
        QCOMPARE(!note.isEmpty(), run->id == QStringLiteral("cpu-parallel@work=4"));
        QVERIFY2(note.isEmpty() ? !run->verdict.contains(QStringLiteral("host threads waited"))
                                : run->verdict.endsWith(QStringLiteral("; ") + note),
                 qPrintable(run->verdict));
    }
}

void TestSession::removeAndClearSignal() {
    Session session;
    QSignalSpy changed(&session, &Session::changed);
    QSignalSpy removed(&session, &Session::runRemoved);
    session.addRuns({entry(cpuRun("a", 1)), entry(cpuRun("b", 1))});
    session.removeRun(0);
    QCOMPARE(removed.count(), 1);
    QCOMPARE(session.at(0)->id, QStringLiteral("b"));
    session.removeRun(7); // out of range: ignored
    session.clear();
    QVERIFY(session.isEmpty());
    QCOMPARE(changed.count(), 3);
}

void TestSession::visibilityIsPerRun() {
    Session session;
    session.addRuns({entry(cpuRun("a", 1)), entry(cpuRun("b", 1))});
    QSignalSpy updated(&session, &Session::runsUpdated);
    session.setVisible(1, false);
    QVERIFY(session.at(0)->visible);
    QVERIFY(!session.at(1)->visible);
    session.setVisible(1, false); // unchanged: no signal
    QCOMPARE(updated.count(), 1);
}

void TestSession::toTraceUsesSessionIdsAndSkipsSamples() {
    Session session;
    session.addRuns(
        {entry(cpuRun("x", 1)), entry(cpuRun("x", 2)), entry(cpuRun("s", 3), RunOrigin::Sample)});
    QCOMPARE(session.userRunCount(), 2);
    const trace::Trace mine = session.toTrace(false);
    QCOMPARE(mine.runs.size(), std::size_t(2));
    QCOMPARE(mine.runs[1].id, std::string("x-2"));
    QCOMPARE(session.toTrace(true).runs.size(), std::size_t(3));
}

void TestSession::storeWritesAndReadsBack() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("sub/session.json"));
    Session session;
    SessionStore store(path);
    QSignalSpy saved(&store, &SessionStore::saved);
    session.addRuns({entry(testhelpers::gpuShapedRun("slice-outer", trace::RunMode::Modelled, 2)),
                     entry(cpuRun("cpu-serial", 5)),
                     entry(cpuRun("sample", 5), RunOrigin::Sample)});
    session.setVisible(1, false); // the user hid cpu-serial: it comes back hidden
    store.save(session);
    QVERIFY(store.waitForIdle());
    QVERIFY(QFile::exists(path));
    QVERIFY(!QFile::exists(path + QStringLiteral(".tmp")));
    QTRY_COMPARE(saved.count(), 1);
    QCOMPARE(saved.at(0).at(1).toInt(), 2);
    const LoadResult back = TraceLoader::loadNow(path, RunOrigin::Restored);
    QVERIFY2(back.ok(), qPrintable(back.error));
    QCOMPARE(back.runs.size(), std::size_t(2));
    QCOMPARE(back.runs[0]->id, QStringLiteral("slice-outer"));
    QVERIFY(back.runs[0]->run->mode == trace::RunMode::Modelled);
    QCOMPARE(back.runs[0]->run->activities.size(), session.at(0)->run->activities.size());
    QCOMPARE(back.runs[1]->id, QStringLiteral("cpu-serial"));
    QVERIFY(back.runs[0]->visible);
    QVERIFY(!back.runs[1]->visible);
}

void TestSession::storeRemovesTheFileWhenNothingIsLeft() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("session.json"));
    Session session;
    SessionStore store(path);
    session.addRuns({entry(cpuRun("a", 1))});
    store.save(session);
    QVERIFY(store.waitForIdle());
    QVERIFY(store.exists());
    session.clear();
    store.save(session);
    QVERIFY(store.waitForIdle());
    QVERIFY(!store.exists());
}

void TestSession::storeCoalescesBurstsOfSaves() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("session.json"));
    Session session;
    SessionStore store(path);
    QSignalSpy saved(&store, &SessionStore::saved);
    for (int i = 0; i < 50; ++i) {
        session.addRuns({entry(cpuRun("r", 1))});
        store.save(session);
    }
    QVERIFY(store.waitForIdle());
    QTRY_VERIFY(saved.count() >= 1);
    QCOMPARE(saved.last().at(1).toInt(), 50); // and the last write holds everything
    const LoadResult back = TraceLoader::loadNow(path, RunOrigin::Restored);
    QCOMPARE(back.runs.size(), std::size_t(50));
}

QTEST_GUILESS_MAIN(TestSession)
#include "tst_session.moc"
