// Loading traces off the GUI thread: results, errors, progress, and stale results dropped.
#include "models/traceloader.h"
#include "testhelpers.h"

#include <QFile>
#include <QSignalSpy>
#include <QTest>
#include <algorithm>
#include <atomic>
#include <sys/stat.h>

using namespace slicescope;
using namespace slicescope::models;

class TestTraceLoader : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void loadsARealTraceOffTheGuiThread();
    void corruptAndMissingFilesAreErrors();
    void filesThatNeverEndAreErrorsNotHangs();
    void bigTracesReportProgress();
    void runsOfAManyRunTraceAreBuiltInOrderAsTheyAreRead();
    void cancelAllDropsLoadsInFlight();

  private:
    QTemporaryDir dir_;
};

void TestTraceLoader::initTestCase() {
    QVERIFY(dir_.isValid());
}

void TestTraceLoader::loadsARealTraceOffTheGuiThread() {
    const QString path = testhelpers::measuredCpuTrace(dir_);
    QVERIFY(!path.isEmpty());
    TraceLoader loader;
    QSignalSpy loaded(&loader, &TraceLoader::loaded);
    QSignalSpy busy(&loader, &TraceLoader::busyChanged);
    loader.load(path, RunOrigin::Opened);
    QVERIFY(loader.isBusy());
    QVERIFY(loaded.wait(60'000));
    const auto result = loaded.at(0).at(0).value<LoadResult>();
    QVERIFY2(result.ok(), qPrintable(result.error));
    QCOMPARE(result.path, path);
    QCOMPARE(result.runs.size(), std::size_t(2));
    QCOMPARE(result.runs[0]->origin, RunOrigin::Opened);
    QVERIFY(result.runs[0]->lanes->eventCount > 0); // lanes were built on the worker
    QCOMPARE(result.runs[0]->source, path);
    QTRY_VERIFY(!loader.isBusy());
    QCOMPARE(busy.count(), 2);
}

void TestTraceLoader::corruptAndMissingFilesAreErrors() {
    const QString corrupt = dir_.filePath(QStringLiteral("corrupt.json"));
    QFile file(corrupt);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"format": "slicescope-trace", "version": 1, "runs": [{"id": "x", )");
    file.close();
    TraceLoader loader;
    QSignalSpy loaded(&loader, &TraceLoader::loaded);
    loader.load(corrupt, RunOrigin::Opened);
    loader.load(dir_.filePath(QStringLiteral("missing.json")), RunOrigin::Opened);
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, 60'000);
    for (const auto& args : loaded) {
        const auto result = args.at(0).value<LoadResult>();
        QVERIFY(!result.ok());
        QVERIFY(!result.cancelled);
        QVERIFY(!result.error.isEmpty());
        QVERIFY(result.runs.empty());
    }
}

// A FIFO with no writer kept the loader (and the window's "Reading...") waiting forever; /dev/zero
// grew its buffer until bad_alloc. Both are now refused before anything is read.
void TestTraceLoader::filesThatNeverEndAreErrorsNotHangs() {
    const QString fifo = dir_.filePath(QStringLiteral("fifo.json"));
    QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    TraceLoader loader;
    QSignalSpy loaded(&loader, &TraceLoader::loaded);
    loader.load(fifo, RunOrigin::Opened);
    loader.load(QStringLiteral("/dev/zero"), RunOrigin::Opened);
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, 10'000);
    QStringList errors;
    for (const auto& args : loaded) {
        const auto result = args.at(0).value<LoadResult>();
        QVERIFY(!result.ok());
        QVERIFY(!result.cancelled);
        errors << result.error;
    }
    errors.sort();
    QVERIFY2(errors.at(0).endsWith(QStringLiteral("not a regular file: a character device")),
             qPrintable(errors.at(0)));
    QVERIFY2(errors.at(1).endsWith(QStringLiteral("not a regular file: a FIFO (named pipe)")),
             qPrintable(errors.at(1)));
    QTRY_VERIFY(!loader.isBusy());
}

void TestTraceLoader::bigTracesReportProgress() {
    trace::Trace big;
    big.runs.push_back(testhelpers::denseRun("dense", 300'000));
    const QString path = testhelpers::writeTrace(dir_, QStringLiteral("big.json"), big);
    QVERIFY(!path.isEmpty());
    TraceLoader loader;
    QSignalSpy loaded(&loader, &TraceLoader::loaded);
    QSignalSpy progress(&loader, &TraceLoader::progress);
    loader.load(path, RunOrigin::Opened);
    QVERIFY(loaded.wait(120'000));
    QVERIFY(!progress.isEmpty());
    QCOMPARE(progress.last().at(0).toDouble(), 1.0);
    const auto result = loaded.at(0).at(0).value<LoadResult>();
    QCOMPARE(result.runs.at(0)->lanes->eventCount, std::size_t(300'001));
}

// The loader builds entries batch by batch on the pool while the reader goes on (EntryPipeline in
// traceloader.cpp): 1,300 runs are several batches and a partial one, and come back in the
// file's order, each the entry its run makes alone. A file cut after some batches were handed
// over, and a cancel, give no runs.
void TestTraceLoader::runsOfAManyRunTraceAreBuiltInOrderAsTheyAreRead() {
    constexpr int kRuns = 1'300;
    trace::Trace many;
    for (int i = 0; i < kRuns; ++i) {
        trace::Run run = testhelpers::gpuShapedRun("run-" + std::to_string(i),
                                                   i % 3 ? trace::RunMode::Modelled
                                                         : trace::RunMode::MeasuredGpu);
        run.activities.back().endNs += i;
        run.wallNs += i;
        many.runs.push_back(std::move(run));
    }
    const QString path = testhelpers::writeTrace(dir_, QStringLiteral("many.json"), many);
    QVERIFY(!path.isEmpty());
    std::vector<double> fractions;
    trace::ReadOptions options;
    options.progress = [&fractions](double fraction) { fractions.push_back(fraction); };
    const LoadResult result = TraceLoader::loadNow(path, RunOrigin::Opened, options);
    QVERIFY2(result.ok(), qPrintable(result.error));
    QCOMPARE(result.runs.size(), std::size_t(kRuns));
    QVERIFY(std::is_sorted(fractions.begin(), fractions.end()));
    QCOMPARE(fractions.back(), 1.0);
    for (int i = 0; i < kRuns; ++i) {
        const RunEntry& entry = *result.runs[std::size_t(i)];
        const RunEntryPtr alone = makeRunEntry(many.runs[std::size_t(i)], RunOrigin::Opened, path);
        QCOMPARE(entry.id, alone->id);
        QCOMPARE(entry.run->wallNs, alone->run->wallNs);
        QCOMPARE(entry.summary.dtohNs, alone->summary.dtohNs);
        QCOMPARE(entry.lanes->eventCount, alone->lanes->eventCount);
        QCOMPARE(entry.launchWords, alone->launchWords);
        QCOMPARE(entry.settings, alone->settings);
        QCOMPARE(entry.source, path);
    }

    QFile whole(path);
    QVERIFY(whole.open(QIODevice::ReadOnly));
    const QByteArray text = whole.readAll();
    const QString cut = dir_.filePath(QStringLiteral("many-cut.json"));
    QFile part(cut);
    QVERIFY(part.open(QIODevice::WriteOnly));
    part.write(text.left(text.size() * 9 / 10)); // after several batches were handed over
    part.close();
    const LoadResult broken = TraceLoader::loadNow(cut, RunOrigin::Opened);
    QVERIFY(!broken.ok());
    QVERIFY(!broken.cancelled);
    QVERIFY(broken.runs.empty());

    std::atomic<bool> cancel{false};
    trace::ReadOptions cancelling;
    cancelling.cancel = &cancel;
    cancelling.progress = [&cancel](double fraction) {
        if (fraction > 0.5) {
            cancel = true;
        }
    };
    const LoadResult cancelled = TraceLoader::loadNow(path, RunOrigin::Opened, cancelling);
    QVERIFY(cancelled.cancelled);
    QVERIFY(cancelled.runs.empty());
}

void TestTraceLoader::cancelAllDropsLoadsInFlight() {
    trace::Trace big;
    big.runs.push_back(testhelpers::denseRun("dense", 300'000));
    const QString path = testhelpers::writeTrace(dir_, QStringLiteral("big2.json"), big);
    TraceLoader loader;
    QSignalSpy loaded(&loader, &TraceLoader::loaded);
    QSignalSpy busy(&loader, &TraceLoader::busyChanged);
    loader.load(path, RunOrigin::Opened);
    loader.cancelAll();
    QTRY_VERIFY_WITH_TIMEOUT(!loader.isBusy(), 120'000);
    QCOMPARE(loaded.count(), 0);          // stale: never reported
    loader.load(path, RunOrigin::Opened); // the next generation loads normally
    QVERIFY(loaded.wait(120'000));
    QVERIFY(loaded.at(0).at(0).value<LoadResult>().ok());
}

QTEST_GUILESS_MAIN(TestTraceLoader)
#include "tst_traceloader.moc"
