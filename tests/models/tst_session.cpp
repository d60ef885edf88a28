// The session (unique ids, verdicts, visibility) and its autosave.
#include "models/session.h"
#include "models/sessionstore.h"
#include "models/traceloader.h"
#include "slicescope/trace/hostthreadwait.h"
#include "testhelpers.h"

#include <QDir>
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
    void verdictsOfManyRunsArriveFromAWorker();
    void removeAndClearSignal();
    void visibilityIsPerRun();
    void toTraceUsesSessionIdsAndSkipsSamples();
    void storeWritesAndReadsBack();
    void storeRemovesTheFileWhenNothingIsLeft();
    void storeCoalescesBurstsOfSaves();
    void storeRefusesASessionTheReaderWouldRefuse();
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

namespace {

// What the session's verdicts must be: trace::verdicts over its runs as they are now.
QStringList expectedVerdicts(const Session& session) {
    std::vector<trace::SummarizedRun> all;
    for (const auto& e : session.runs()) {
        all.push_back({e->run.get(), e->summary, batchOf(*e).toStdString(), e->id.toStdString()});
    }
    QStringList out;
    for (const auto& text : trace::verdicts(all)) {
        out << toQString(text);
    }
    return out;
}

QStringList verdictsOf(const Session& session) {
    QStringList out;
    for (const auto& e : session.runs()) {
        out << e->verdict;
    }
    return out;
}

} // namespace

// Beyond kVerdictsAtOnce runs the verdicts are made on a worker (100,000 took 43 s on the GUI
// thread, one by one): they arrive with runsUpdated, and a change before they arrive drops them
// for a newer computation.
void TestSession::verdictsOfManyRunsArriveFromAWorker() {
    const int many = int(Session::kVerdictsAtOnce) + 500;
    std::vector<RunEntryPtr> entries;
    for (int i = 0; i < many; ++i) {
        entries.push_back(i % 2 ? entry(cpuRun("cpu-" + std::to_string(i), 1'000'000 + i))
                                : entry(testhelpers::gpuShapedRun("gpu-" + std::to_string(i),
                                                                  trace::RunMode::Modelled)));
    }
    Session session;
    QSignalSpy updated(&session, &Session::runsUpdated);
    session.addRuns(std::move(entries));
    QVERIFY(session.verdictsPending());
    QVERIFY(session.at(0)->verdict.isEmpty()); // not yet: the GUI thread did not wait for it
    QTRY_VERIFY_WITH_TIMEOUT(!session.verdictsPending(), 60'000);
    QCOMPARE(updated.count(), 1);
    QCOMPARE(updated.at(0).at(0).toInt(), 0);
    QCOMPARE(updated.at(0).at(1).toInt(), many - 1);
    QCOMPARE(verdictsOf(session), expectedVerdicts(session));
    QVERIFY2(session.at(0)->verdict.contains(QStringLiteral("(cpu-1 ")),
             qPrintable(session.at(0)->verdict));

    // A run faster than every CPU run, then the first run removed, before any result arrives:
    // only the last computation's verdicts are applied, and they name the new run.
    updated.clear();
    session.addRuns({entry(cpuRun("fastest", 1'000))});
    session.removeRun(0);
    QTRY_VERIFY_WITH_TIMEOUT(!session.verdictsPending(), 60'000);
    QCOMPARE(verdictsOf(session), expectedVerdicts(session));
    QVERIFY2(session.at(1)->verdict.contains(QStringLiteral("(fastest ")),
             qPrintable(session.at(1)->verdict));
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

// A session over the reader's limit was written, then could not be read back at the next start and
// was moved aside: every run lost. The store writes at most what the reader takes (one bound,
// lowered here so that the test need not write 1 GiB); a larger session is not written, the file
// keeps the last one, and saveFailed says so.
void TestSession::storeRefusesASessionTheReaderWouldRefuse() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("session.json"));
    Session session;
    SessionStore store(path);
    QCOMPARE(store.maxFileBytes(), trace::kMaxTraceFileBytes); // what readTrace takes
    QSignalSpy failed(&store, &SessionStore::saveFailed);
    QSignalSpy saved(&store, &SessionStore::saved);
    session.addRuns({entry(cpuRun("a", 1))});
    store.save(session);
    QVERIFY(store.waitForIdle());
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray good = file.readAll();
    file.close();
    QVERIFY(!good.isEmpty());

    store.setMaxFileBytes(std::uint64_t(good.size()) + 100); // one run fits, three do not
    session.addRuns({entry(cpuRun("b", 2)), entry(cpuRun("c", 3))});
    store.save(session);
    QVERIFY(store.waitForIdle());
    QTRY_COMPARE(failed.count(), 1);
    const QString message = failed.at(0).at(0).toString();
    QVERIFY2(message.contains(
                 QStringLiteral("its 3 runs would take more than %1 bytes").arg(good.size() + 100)),
             qPrintable(message));
    QVERIFY2(message.contains(path + QStringLiteral(" keeps the session saved before")),
             qPrintable(message));
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), good);
    file.close();
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden),
             QStringList({QStringLiteral("session.json"), QStringLiteral("session.json.lock")}));
    const LoadResult back = TraceLoader::loadNow(path, RunOrigin::Restored);
    QVERIFY2(back.ok(), qPrintable(back.error));
    QCOMPARE(back.runs.size(), std::size_t(1));

    // Once it fits again it is saved.
    session.removeRun(2);
    session.removeRun(1);
    saved.clear();
    store.save(session);
    QVERIFY(store.waitForIdle());
    QTRY_COMPARE(saved.count(), 1);
    QCOMPARE(failed.count(), 1);

    // A first save too large: nothing there yet, and it says so.
    const QString fresh = dir.filePath(QStringLiteral("fresh.json"));
    SessionStore tight(fresh);
    tight.setMaxFileBytes(100);
    QSignalSpy tightFailed(&tight, &SessionStore::saveFailed);
    tight.save(session);
    QVERIFY(tight.waitForIdle());
    QTRY_COMPARE(tightFailed.count(), 1);
    QVERIFY2(tightFailed.at(0).at(0).toString().contains(
                 QStringLiteral("Nothing is saved in %1 yet").arg(fresh)),
             qPrintable(tightFailed.at(0).at(0).toString()));
    QVERIFY(!tight.exists());
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
