// The nvprof --print-gpu-trace table and its proxy, under QAbstractItemModelTester.
#include <QAbstractItemModelTester>
#include <QTest>

#include "models/gputracemodel.h"
#include "models/gputraceproxy.h"
#include "testhelpers.h"

using namespace slicescope;
using namespace slicescope::models;

class TestGpuTraceModel : public QObject {
    Q_OBJECT
  private slots:
    void passesTheModelTester();
    void nvprofColumnsAndValues();
    void proxyShowsDeviceActivitiesUnlessAskedOrCpu();
    void proxySortsNumerically();
    void tooltipCarriesTheNvprofFields();
};

void TestGpuTraceModel::passesTheModelTester() {
    GpuTraceModel model;
    GpuTraceProxy proxy;
    proxy.setSourceModel(&model);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    model.setRun(makeRunEntry(testhelpers::gpuShapedRun("a", trace::RunMode::MeasuredGpu, 3), RunOrigin::Opened));
    QCOMPARE(model.rowCount(), 12);
    proxy.setShowAll(true);
    proxy.sort(GpuTraceModel::DurationColumn, Qt::DescendingOrder);
    model.setRun(makeRunEntry(testhelpers::denseRun("b", 100), RunOrigin::Opened));
    model.setRun(nullptr);
    QCOMPARE(proxy.rowCount(), 0);
}

void TestGpuTraceModel::nvprofColumnsAndValues() {
    GpuTraceModel model;
    model.setRun(makeRunEntry(testhelpers::gpuShapedRun("a", trace::RunMode::MeasuredGpu), RunOrigin::Opened));
    QStringList headers;
    for (int c = 0; c < model.columnCount(); ++c) {
        headers << model.headerData(c, Qt::Horizontal).toString();
    }
    QCOMPARE(headers, (QStringList{QStringLiteral("Start"), QStringLiteral("Duration"), QStringLiteral("Grid Size"),
                                   QStringLiteral("Block Size"), QStringLiteral("Regs*"), QStringLiteral("SSMem*"),
                                   QStringLiteral("DSMem*"), QStringLiteral("Size"), QStringLiteral("Throughput"),
                                   QStringLiteral("SrcMemType"), QStringLiteral("DstMemType"), QStringLiteral("Device"),
                                   QStringLiteral("Stream"), QStringLiteral("Name")}));
    auto cell = [&](int row, int column) { return model.index(row, column).data().toString(); };
    // Row 1: the HtoD copy; row 2: the kernel.
    QCOMPARE(cell(1, GpuTraceModel::NameColumn), QStringLiteral("[CUDA memcpy HtoD]"));
    QCOMPARE(cell(1, GpuTraceModel::DurationColumn), QStringLiteral("6.00 ms"));
    QCOMPARE(cell(1, GpuTraceModel::SizeColumn), QStringLiteral("15.3 MiB"));
    QCOMPARE(cell(1, GpuTraceModel::ThroughputColumn), QStringLiteral("2.67 GB/s"));
    QCOMPARE(cell(1, GpuTraceModel::SrcMemColumn), QStringLiteral("pageable"));
    QCOMPARE(cell(1, GpuTraceModel::DstMemColumn), QStringLiteral("device"));
    QCOMPARE(cell(1, GpuTraceModel::GridColumn), QString());
    QCOMPARE(cell(2, GpuTraceModel::NameColumn), QStringLiteral("sliceOuterKernel"));
    QCOMPARE(cell(2, GpuTraceModel::GridColumn), QStringLiteral("(2 1 1)"));
    QCOMPARE(cell(2, GpuTraceModel::BlockColumn), QStringLiteral("(64 1 1)"));
    QCOMPARE(cell(2, GpuTraceModel::RegistersColumn), QStringLiteral("32"));
    QCOMPARE(cell(2, GpuTraceModel::StartColumn), QStringLiteral("6.02 ms"));
    QCOMPARE(cell(2, GpuTraceModel::DeviceColumn), QStringLiteral("NVIDIA H200"));
    QCOMPARE(model.index(2, 0).data(GpuTraceModel::ActivityIndexRole).toInt(), 2);
}

void TestGpuTraceModel::proxyShowsDeviceActivitiesUnlessAskedOrCpu() {
    GpuTraceModel model;
    GpuTraceProxy proxy;
    proxy.setSourceModel(&model);
    model.setRun(makeRunEntry(testhelpers::gpuShapedRun("a", trace::RunMode::MeasuredGpu, 2), RunOrigin::Opened));
    QCOMPARE(proxy.rowCount(), 6); // 2 x (HtoD, kernel, DtoH); the API calls are hidden
    QCOMPARE(proxy.rowOfActivity(0), -1);
    QVERIFY(proxy.rowOfActivity(2) >= 0);
    proxy.setShowAll(true);
    QCOMPARE(proxy.rowCount(), 8);
    proxy.setShowAll(false);
    trace::Run cpu;
    cpu.mode = trace::RunMode::MeasuredCpu;
    cpu.activities.push_back(testhelpers::activity(trace::ActivityKind::Host, 0, 10));
    model.setRun(makeRunEntry(cpu, RunOrigin::Opened));
    QCOMPARE(proxy.rowCount(), 1); // no device activity: the host rows are what there is
}

void TestGpuTraceModel::proxySortsNumerically() {
    GpuTraceModel model;
    GpuTraceProxy proxy;
    proxy.setSourceModel(&model);
    model.setRun(makeRunEntry(testhelpers::gpuShapedRun("a", trace::RunMode::MeasuredGpu), RunOrigin::Opened));
    proxy.sort(GpuTraceModel::DurationColumn, Qt::DescendingOrder);
    // 47 ms kernel first, though "6.00 ms" > "47.0 ms" as text.
    QCOMPARE(proxy.index(0, GpuTraceModel::NameColumn).data().toString(), QStringLiteral("sliceOuterKernel"));
    QCOMPARE(proxy.rowOfActivity(2), 0);
}

void TestGpuTraceModel::tooltipCarriesTheNvprofFields() {
    GpuTraceModel model;
    model.setRun(makeRunEntry(testhelpers::gpuShapedRun("a", trace::RunMode::Modelled), RunOrigin::Opened));
    const QString tip = model.index(2, 0).data(Qt::ToolTipRole).toString();
    for (const char* field : {"Grid Size", "Block Size", "Regs", "Duration", "sliceOuterKernel", "(modelled)"}) {
        QVERIFY2(tip.contains(QLatin1String(field)), field);
    }
}

QTEST_GUILESS_MAIN(TestGpuTraceModel)
#include "tst_gputracemodel.moc"
