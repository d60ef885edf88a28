// "Record program…" as a slicescope-cli command: arguments, environment and working directory
// in the order `record` reads them, the refusals, and the progress lines' text.
#include "models/recordplan.h"
#include "testhelpers.h"

#include <QTest>

using namespace slicescope::models;

class TestRecordPlan : public QObject {
    Q_OBJECT
  private slots:
    void commandLineOfARecording();
    void refusesWhatCannotRun();
    void environmentLines();
    void progressText();
};

void TestRecordPlan::commandLineOfARecording() {
    QTemporaryDir dir;
    RecordConfig config;
    config.program = QStringLiteral("python3");
    config.arguments = {QStringLiteral("seed.py"), QStringLiteral("--name"),
                        QStringLiteral("two words")};
    config.workingDirectory = dir.path();
    config.environment = {QStringLiteral("PYTHONPATH=/tmp/fix"), QStringLiteral("A=b=c")};
    config.counters = true;
    const RecordPlan plan = planRecord(config, QStringLiteral("/tmp/out"), 7);
    QVERIFY2(plan.error.isEmpty(), qPrintable(plan.error));
    QVERIFY(plan.job.recording);
    QCOMPARE(plan.job.outputPath, QStringLiteral("/tmp/out/record-7.json"));
    QCOMPARE(plan.job.label, QStringLiteral("recording python3"));
    QCOMPARE(plan.job.arguments,
             (QStringList{QStringLiteral("record"), QStringLiteral("--progress"),
                          QStringLiteral("-o"), QStringLiteral("/tmp/out/record-7.json"),
                          QStringLiteral("--counters"), QStringLiteral("--cwd"), dir.path(),
                          QStringLiteral("--env"), QStringLiteral("PYTHONPATH=/tmp/fix"),
                          QStringLiteral("--env"), QStringLiteral("A=b=c"), QStringLiteral("--"),
                          QStringLiteral("python3"), QStringLiteral("seed.py"),
                          QStringLiteral("--name"), QStringLiteral("two words")}));
    RecordConfig plain;
    plain.program = QStringLiteral("/bin/echo");
    QCOMPARE(planRecord(plain, QStringLiteral("/o"), 1).job.arguments,
             (QStringList{QStringLiteral("record"), QStringLiteral("--progress"),
                          QStringLiteral("-o"), QStringLiteral("/o/record-1.json"),
                          QStringLiteral("--"), QStringLiteral("/bin/echo")}));
}

void TestRecordPlan::refusesWhatCannotRun() {
    RecordConfig none;
    QVERIFY(planRecord(none, QStringLiteral("/o"), 1).error.contains(QStringLiteral("program")));
    RecordConfig badEnv;
    badEnv.program = QStringLiteral("true");
    badEnv.environment = {QStringLiteral("NOVALUE")};
    QVERIFY(planRecord(badEnv, QStringLiteral("/o"), 1).error.contains(QStringLiteral("NOVALUE")));
    RecordConfig badDir;
    badDir.program = QStringLiteral("true");
    badDir.workingDirectory = QStringLiteral("/nonexistent/slicescope");
    QVERIFY(planRecord(badDir, QStringLiteral("/o"), 1)
                .error.contains(QStringLiteral("/nonexistent/slicescope")));
    // On another host the folder is that host's: its slicescope-cli checks it, not this one.
    badDir.host = QStringLiteral("gpu-box");
    const RecordPlan remote = planRecord(badDir, QStringLiteral("/o"), 1);
    QVERIFY2(remote.error.isEmpty(), qPrintable(remote.error));
    QCOMPARE(remote.job.arguments.mid(remote.job.arguments.indexOf(QStringLiteral("--host")), 2),
             (QStringList{QStringLiteral("--host"), QStringLiteral("gpu-box")}));
    QVERIFY(remote.job.arguments.indexOf(QStringLiteral("--host")) <
            remote.job.arguments.indexOf(QStringLiteral("--"))); // record's, not the program's
}

void TestRecordPlan::environmentLines() {
    QString error;
    QCOMPARE(
        parseEnvironment(QStringLiteral("A=1\n\n  B=two words  \nC=\n"), &error),
        (QStringList{QStringLiteral("A=1"), QStringLiteral("B=two words"), QStringLiteral("C=")}));
    QVERIFY(error.isEmpty());
    QVERIFY(parseEnvironment(QStringLiteral("A=1\n=x\n"), &error).isEmpty());
    QVERIFY(error.contains(QStringLiteral("=x")));
    QVERIFY(parseEnvironment(QStringLiteral("JUSTNAME"), &error).isEmpty());
    QVERIFY(error.contains(QStringLiteral("JUSTNAME")));
}

void TestRecordPlan::progressText() {
    QCOMPARE(recordProgressText(QByteArrayLiteral(
                 R"({"stage":"trace","elapsed_s":2.54,"processes":1,"api_calls":40,)"
                 R"("kernels":12,"copies":3,"memsets":1,"dropped_records":0})")),
             QStringLiteral("recording: 12 kernels, 3 copies, 40 API calls (2.5 s)"));
    QCOMPARE(
        recordProgressText(
            QByteArrayLiteral(R"({"stage":"counters","elapsed_s":1,"kernels":5,"copies":0,)"
                              R"("api_calls":0,"dropped_records":7})")),
        QStringLiteral(
            "counting (second run): 5 kernels, 0 copies, 0 API calls, 7 records dropped (1.0 s)"));
}

QTEST_MAIN(TestRecordPlan)
#include "tst_recordplan.moc"
