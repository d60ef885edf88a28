// From the run panel's request to slicescope-cli command lines.
#include "models/cliplan.h"

#include <QTest>

using namespace slicescope::models;

namespace {

DeviceChoice preset() {
    DeviceChoice d;
    d.kind = DeviceChoice::Kind::Preset;
    d.presetId = QStringLiteral("h200");
    d.name = QStringLiteral("NVIDIA H200");
    return d;
}

DeviceChoice gpu() {
    DeviceChoice d;
    d.kind = DeviceChoice::Kind::Detected;
    d.index = 1;
    d.name = QStringLiteral("NVIDIA H200");
    return d;
}

QString valueAfter(const QStringList& args, const QString& option) {
    const int i = args.indexOf(option);
    return i >= 0 && i + 1 < args.size() ? args[i + 1] : QString();
}

} // namespace

class TestCliPlan : public QObject {
    Q_OBJECT
  private slots:
    void cpuAndModelledSplitIntoTwoJobs();
    void measuredGpuStrategiesShareOneProcessCpuOnesRunAlone();
    void gpuStrategiesNeedADevice();
    void badInputIsAnErrorNotAJob();
    void measuredRunsWarmUpModelledOnesDoNot();
    void aHostSendsEveryJobThere();
};

void TestCliPlan::cpuAndModelledSplitIntoTwoJobs() {
    RunConfig c;
    c.r = 10;
    c.c = 20;
    c.n = 3;
    c.dtype = QStringLiteral("f32");
    c.work = 4;
    c.block = QStringLiteral("256");
    c.repeat = 3;
    c.strategies = {QStringLiteral("one-worker"), QStringLiteral("cpu-serial"),
                    QStringLiteral("slice-2d")};
    c.device = preset();
    const RunPlan plan = planRun(c, QStringLiteral("/tmp/x"), 7);
    QVERIFY(plan.error.isEmpty());
    QCOMPARE(plan.jobs.size(), 2);
    const CliJob& cpu = plan.jobs[0];
    QCOMPARE(cpu.arguments.first(), QStringLiteral("run"));
    QCOMPARE(valueAfter(cpu.arguments, QStringLiteral("--strategy")), QStringLiteral("cpu-serial"));
    QCOMPARE(valueAfter(cpu.arguments, QStringLiteral("--shape")), QStringLiteral("10x20x3"));
    QCOMPARE(valueAfter(cpu.arguments, QStringLiteral("--dtype")), QStringLiteral("f32"));
    QCOMPARE(valueAfter(cpu.arguments, QStringLiteral("--work")), QStringLiteral("4"));
    QCOMPARE(valueAfter(cpu.arguments, QStringLiteral("--repeat")), QStringLiteral("3"));
    QVERIFY(cpu.arguments.contains(QStringLiteral("--progress")));
    QVERIFY(!cpu.arguments.contains(QStringLiteral("--device")));
    QCOMPARE(valueAfter(cpu.arguments, QStringLiteral("-o")),
             QStringLiteral("/tmp/x/run-7-cpu-serial.json"));
    const CliJob& model = plan.jobs[1];
    QVERIFY(model.modelled);
    QCOMPARE(model.arguments.first(), QStringLiteral("model"));
    QCOMPARE(valueAfter(model.arguments, QStringLiteral("--strategy")),
             QStringLiteral("one-worker,slice-2d"));
    QCOMPARE(valueAfter(model.arguments, QStringLiteral("--device")), QStringLiteral("h200"));
    QCOMPARE(valueAfter(model.arguments, QStringLiteral("--block")), QStringLiteral("256"));
    QVERIFY(model.label.startsWith(QStringLiteral("modelled on NVIDIA H200")));
    QVERIFY(cpu.outputPath != model.outputPath);
    // Chunks and streams go to GPU jobs only: one of each unless asked.
    QCOMPARE(valueAfter(model.arguments, QStringLiteral("--chunks")), QStringLiteral("1"));
    QCOMPARE(valueAfter(model.arguments, QStringLiteral("--streams")), QStringLiteral("1"));
    QVERIFY(!cpu.arguments.contains(QStringLiteral("--chunks")));
    c.chunks = 16;
    c.streams = 4;
    const RunPlan pipelined = planRun(c, QStringLiteral("/tmp/x"), 8);
    QCOMPARE(valueAfter(pipelined.jobs[1].arguments, QStringLiteral("--chunks")),
             QStringLiteral("16"));
    QCOMPARE(valueAfter(pipelined.jobs[1].arguments, QStringLiteral("--streams")),
             QStringLiteral("4"));
    QVERIFY(!pipelined.jobs[0].arguments.contains(QStringLiteral("--streams")));
}

void TestCliPlan::measuredGpuStrategiesShareOneProcessCpuOnesRunAlone() {
    RunConfig c;
    c.strategies = {QStringLiteral("cpu-parallel"), QStringLiteral("elementwise-broadcast"),
                    QStringLiteral("slice-outer"), QStringLiteral("cpu-serial")};
    c.device = gpu();
    c.counters = true;
    c.sampleOccupancy = true;
    const RunPlan plan = planRun(c, QStringLiteral("/tmp/x"), 1);
    QCOMPARE(plan.jobs.size(), 3);
    const QStringList& args = plan.jobs[0].arguments;
    QCOMPARE(valueAfter(args, QStringLiteral("--strategy")),
             QStringLiteral("elementwise-broadcast,slice-outer"));
    QCOMPARE(valueAfter(args, QStringLiteral("--device")), QStringLiteral("1"));
    QVERIFY(args.contains(QStringLiteral("--counters")));
    QVERIFY(args.contains(QStringLiteral("--sample-occupancy")));
    QVERIFY(!plan.jobs[0].modelled);
    QStringList outputs{plan.jobs[0].outputPath};
    for (int i = 1; i < 3; ++i) {
        const QStringList& cpu = plan.jobs[i].arguments;
        QCOMPARE(valueAfter(cpu, QStringLiteral("--strategy")),
                 i == 1 ? QStringLiteral("cpu-parallel") : QStringLiteral("cpu-serial"));
        QVERIFY(!cpu.contains(QStringLiteral("--device")));
        QVERIFY(!cpu.contains(QStringLiteral("--counters")));
        QVERIFY(!outputs.contains(plan.jobs[i].outputPath));
        outputs << plan.jobs[i].outputPath;
    }
}

void TestCliPlan::gpuStrategiesNeedADevice() {
    RunConfig c;
    c.strategies = {QStringLiteral("slice-outer")};
    const RunPlan plan = planRun(c, QStringLiteral("/tmp/x"), 1);
    QVERIFY(plan.jobs.isEmpty());
    QVERIFY(plan.error.contains(QStringLiteral("preset")));
}

void TestCliPlan::badInputIsAnErrorNotAJob() {
    RunConfig c;
    QVERIFY(planRun(c, QStringLiteral("/tmp"), 1).error.contains(QStringLiteral("strategy")));
    c.strategies = {QStringLiteral("slice-sideways")};
    QVERIFY(planRun(c, QStringLiteral("/tmp"), 1).error.contains(QStringLiteral("slice-sideways")));
    c.strategies = {QStringLiteral("cpu-serial")};
    c.dtype = QStringLiteral("f16");
    QVERIFY(!planRun(c, QStringLiteral("/tmp"), 1).error.isEmpty());
    c.dtype = QStringLiteral("f64");
    c.work = 0;
    QVERIFY(!planRun(c, QStringLiteral("/tmp"), 1).error.isEmpty());
}

void TestCliPlan::measuredRunsWarmUpModelledOnesDoNot() {
    RunConfig c;
    c.strategies = {QStringLiteral("slice-2d"), QStringLiteral("cpu-parallel")};
    QCOMPARE(c.warmup, 1); // one warm-up iteration unless asked otherwise
    c.warmup = 3;
    c.device = gpu();
    RunPlan plan = planRun(c, QStringLiteral("/tmp/x"), 1);
    QCOMPARE(plan.jobs.size(), 2);
    for (const CliJob& job : plan.jobs) {
        QCOMPARE(valueAfter(job.arguments, QStringLiteral("--warmup")), QStringLiteral("3"));
    }
    c.warmup = 0;
    plan = planRun(c, QStringLiteral("/tmp/x"), 2);
    QCOMPARE(valueAfter(plan.jobs[0].arguments, QStringLiteral("--warmup")), QStringLiteral("0"));
    // A model has no warm-up: its job does not ask for one.
    c.warmup = 3;
    c.device = preset();
    plan = planRun(c, QStringLiteral("/tmp/x"), 3);
    QCOMPARE(plan.jobs.size(), 2);
    QVERIFY(plan.jobs[1].modelled);
    QVERIFY(!plan.jobs[1].arguments.contains(QStringLiteral("--warmup")));
    QCOMPARE(valueAfter(plan.jobs[0].arguments, QStringLiteral("--warmup")), QStringLiteral("3"));
}

void TestCliPlan::aHostSendsEveryJobThere() {
    RunConfig c;
    c.strategies = {QStringLiteral("slice-2d"), QStringLiteral("cpu-serial")};
    c.device = gpu();
    RunPlan plan = planRun(c, QStringLiteral("/tmp/x"), 1);
    QCOMPARE(plan.jobs.size(), 2);
    for (const CliJob& job : plan.jobs) {
        QVERIFY(!job.arguments.contains(QStringLiteral("--host"))); // this machine
    }
    c.host = QStringLiteral("me@gpu-box:2222");
    plan = planRun(c, QStringLiteral("/tmp/x"), 2);
    QCOMPARE(plan.jobs.size(), 2);
    for (const CliJob& job : plan.jobs) {
        QCOMPARE(valueAfter(job.arguments, QStringLiteral("--host")), c.host);
        QVERIFY(job.outputPath.startsWith(QStringLiteral("/tmp/x/"))); // the trace lands here
    }
}

QTEST_GUILESS_MAIN(TestCliPlan)
#include "tst_cliplan.moc"
