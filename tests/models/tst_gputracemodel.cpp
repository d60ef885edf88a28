// The nvprof --print-gpu-trace table and its proxy, under QAbstractItemModelTester.
#include "models/gputracemodel.h"
#include "models/gputraceproxy.h"
#include "synthetictrace.h"
#include "testhelpers.h"

#include <QAbstractItemModelTester>
#include <QBrush>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTest>
#include <algorithm>

using namespace slicescope;
using namespace slicescope::models;

class TestGpuTraceModel : public QObject {
    Q_OBJECT
  private slots:
    void passesTheModelTester();
    void nvprofColumnsAndValues();
    void proxyShowsDeviceActivitiesUnlessAskedOrCpu();
    void proxySortsNumerically();
    void proxyOrderIsAStableSortOfTheSortRole_data();
    void proxyOrderIsAStableSortOfTheSortRole();
    void bigSortsRunOnAWorkerAndStaleOnesAreDropped();
    void tooltipCarriesTheNvprofFields();
    void warmupRowsAreGreyedAndSaySo();
};

namespace {

// A run with every kind of activity, names, sizes and ties: the synthetic benchmark trace (its
// first run, a few thousand events), plus a GPU-shaped run's activities appended.
ConstRunEntryPtr mixedRun() {
    bench::SyntheticOptions options;
    options.events = 3000;
    options.runs = 1;
    trace::Run run = bench::makeSyntheticTrace(options).runs.front();
    const trace::Run gpu = testhelpers::gpuShapedRun("g", trace::RunMode::MeasuredGpu, 3);
    for (trace::Activity a : gpu.activities) {
        a.nameId = a.nameId ? run.intern(gpu.strings[a.nameId]) : 0;
        run.activities.push_back(a);
    }
    auto memset = testhelpers::activity(trace::ActivityKind::Memset, 5, 50);
    memset.bytes = 4096;
    run.activities.push_back(memset);
    return makeRunEntry(std::move(run), RunOrigin::Opened);
}

// What the proxy must show, computed by Qt's own QSortFilterProxyModel (a stable sort on
// SortRole, filtered on IsDeviceRole): the activity of each row.
std::vector<int> referenceOrder(GpuTraceModel& model, bool showAll, int column,
                                Qt::SortOrder order) {
    QSortFilterProxyModel reference;
    reference.setSourceModel(&model);
    reference.setSortRole(GpuTraceModel::SortRole);
    if (!showAll && model.hasDeviceActivities()) {
        reference.setFilterRole(GpuTraceModel::IsDeviceRole);
        reference.setFilterFixedString(QStringLiteral("true"));
    }
    reference.sort(column, order);
    std::vector<int> rows;
    for (int row = 0; row < reference.rowCount(); ++row) {
        rows.push_back(reference.index(row, 0).data(GpuTraceModel::ActivityIndexRole).toInt());
    }
    return rows;
}

std::vector<int> proxyOrder(const GpuTraceProxy& proxy) {
    std::vector<int> rows;
    for (int row = 0; row < proxy.rowCount(); ++row) {
        rows.push_back(proxy.index(row, 0).data(GpuTraceModel::ActivityIndexRole).toInt());
        if (rows.back() != proxy.activityAt(row)) {
            return {}; // mapToSource and activityAt disagree
        }
    }
    return rows;
}

} // namespace

void TestGpuTraceModel::passesTheModelTester() {
    GpuTraceModel model;
    GpuTraceProxy proxy;
    proxy.setSourceModel(&model);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester proxyTester(&proxy,
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    model.setRun(makeRunEntry(testhelpers::gpuShapedRun("a", trace::RunMode::MeasuredGpu, 3),
                              RunOrigin::Opened));
    QCOMPARE(model.rowCount(), 12);
    proxy.setShowAll(true);
    proxy.sort(GpuTraceModel::DurationColumn, Qt::DescendingOrder);
    model.setRun(makeRunEntry(testhelpers::denseRun("b", 100), RunOrigin::Opened));
    model.setRun(nullptr);
    QCOMPARE(proxy.rowCount(), 0);
}

void TestGpuTraceModel::nvprofColumnsAndValues() {
    GpuTraceModel model;
    model.setRun(makeRunEntry(testhelpers::gpuShapedRun("a", trace::RunMode::MeasuredGpu),
                              RunOrigin::Opened));
    QStringList headers;
    for (int c = 0; c < model.columnCount(); ++c) {
        headers << model.headerData(c, Qt::Horizontal).toString();
    }
    QCOMPARE(headers, (QStringList{QStringLiteral("Start"), QStringLiteral("Duration"),
                                   QStringLiteral("Grid Size"), QStringLiteral("Block Size"),
                                   QStringLiteral("Regs*"), QStringLiteral("SSMem*"),
                                   QStringLiteral("DSMem*"), QStringLiteral("Size"),
                                   QStringLiteral("Throughput"), QStringLiteral("SrcMemType"),
                                   QStringLiteral("DstMemType"), QStringLiteral("Device"),
                                   QStringLiteral("Stream"), QStringLiteral("Name")}));
    auto cell = [&](int row, int column) { return model.index(row, column).data().toString(); };
    // Row 1: the HtoD copy; row 2: the kernel.
    QCOMPARE(cell(1, GpuTraceModel::NameColumn), QStringLiteral("[CUDA memcpy HtoD]"));
    {
        // A copy named as recorded runs name theirs shows its name once; another name follows
        // the bracket.
        trace::Run named = testhelpers::gpuShapedRun("n", trace::RunMode::MeasuredGpu);
        const auto copy = std::find_if(
            named.activities.begin(), named.activities.end(),
            [](const trace::Activity& a) { return a.kind == trace::ActivityKind::HtoD; });
        QVERIFY(copy != named.activities.end());
        copy->nameId = named.intern("[CUDA memcpy HtoD]");
        GpuTraceModel other;
        other.setRun(makeRunEntry(named, RunOrigin::Opened));
        QCOMPARE(other.index(1, GpuTraceModel::NameColumn).data().toString(),
                 QStringLiteral("[CUDA memcpy HtoD]"));
        copy->nameId = named.intern("weights");
        other.setRun(makeRunEntry(named, RunOrigin::Opened));
        QCOMPARE(other.index(1, GpuTraceModel::NameColumn).data().toString(),
                 QStringLiteral("[CUDA memcpy HtoD] weights"));
    }
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
    model.setRun(makeRunEntry(testhelpers::gpuShapedRun("a", trace::RunMode::MeasuredGpu, 2),
                              RunOrigin::Opened));
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
    model.setRun(makeRunEntry(testhelpers::gpuShapedRun("a", trace::RunMode::MeasuredGpu),
                              RunOrigin::Opened));
    proxy.sort(GpuTraceModel::DurationColumn, Qt::DescendingOrder);
    // 47 ms kernel first, though "6.00 ms" > "47.0 ms" as text.
    QCOMPARE(proxy.index(0, GpuTraceModel::NameColumn).data().toString(),
             QStringLiteral("sliceOuterKernel"));
    QCOMPARE(proxy.rowOfActivity(2), 0);
}

void TestGpuTraceModel::proxyOrderIsAStableSortOfTheSortRole_data() {
    QTest::addColumn<int>("column");
    QTest::addColumn<bool>("showAll");
    QTest::addColumn<bool>("onWorker");
    for (int column = -1; column < GpuTraceModel::ColumnCount; ++column) {
        for (const bool showAll : {false, true}) {
            for (const bool worker : {false, true}) {
                QTest::addRow("column %d%s%s", column, showAll ? " all" : " device",
                              worker ? " worker" : " at once")
                    << column << showAll << worker;
            }
        }
    }
}

void TestGpuTraceModel::proxyOrderIsAStableSortOfTheSortRole() {
    QFETCH(int, column);
    QFETCH(bool, showAll);
    QFETCH(bool, onWorker);
    GpuTraceModel model;
    GpuTraceProxy proxy;
    proxy.setSyncLimit(onWorker ? 0 : 1'000'000);
    proxy.setSourceModel(&model);
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRun(mixedRun());
    QCOMPARE(proxy.isBusy(), onWorker);
    proxy.setShowAll(showAll);
    QTRY_VERIFY(!proxy.isBusy());
    QCOMPARE(proxy.rowCount(), int(showAll ? model.rowCount() : model.run()->deviceActivities));
    for (const auto order : {Qt::AscendingOrder, Qt::DescendingOrder}) {
        const bool changes = column != proxy.sortColumn() || order != proxy.sortOrder();
        proxy.sort(column, order);
        QCOMPARE(proxy.isBusy(), onWorker && changes);
        QTRY_VERIFY(!proxy.isBusy());
        const std::vector<int> expected = referenceOrder(model, showAll, column, order);
        QVERIFY(!expected.empty());
        QCOMPARE(proxyOrder(proxy), expected);
        for (std::size_t row = 0; row < expected.size(); row += 97) {
            QCOMPARE(proxy.rowOfActivity(expected[row]), int(row));
        }
    }
}

void TestGpuTraceModel::bigSortsRunOnAWorkerAndStaleOnesAreDropped() {
    GpuTraceModel model;
    GpuTraceProxy proxy;
    proxy.setSyncLimit(0); // every sort on a worker
    proxy.setSourceModel(&model);
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRun(mixedRun());
    proxy.setShowAll(true);
    QVERIFY(proxy.isBusy());
    QCOMPARE(proxy.rowCount(), 0); // a new filter: no rows until the worker's arrive
    QTRY_VERIFY(!proxy.isBusy());
    QCOMPARE(proxy.rowCount(), model.rowCount());
    const int activity = proxy.activityAt(10);
    const QPersistentModelIndex current = proxy.index(10, 3);
    QSignalSpy sorting(&proxy, &GpuTraceProxy::busyChanged);
    QSignalSpy layouts(&proxy, &QAbstractItemModel::layoutChanged);
    // Two requests before either lands: only the second may reach the table.
    proxy.sort(GpuTraceModel::DurationColumn, Qt::DescendingOrder);
    QVERIFY(proxy.isBusy());
    QCOMPARE(proxy.activityAt(10), activity); // the old order stays until the new one is ready
    proxy.sort(GpuTraceModel::NameColumn, Qt::AscendingOrder);
    QTRY_VERIFY(!proxy.isBusy());
    QTest::qWait(50); // the first worker may finish after the second: it must not apply
    QCOMPARE(layouts.count(), 1);
    QCOMPARE(sorting.count(), 2); // started, done
    QCOMPARE(sorting.at(0).at(0).toBool(), true);
    QCOMPARE(sorting.at(1).at(0).toBool(), false);
    QCOMPARE(proxyOrder(proxy),
             referenceOrder(model, true, GpuTraceModel::NameColumn, Qt::AscendingOrder));
    // The current cell followed its activity.
    QVERIFY(current.isValid());
    QCOMPARE(proxy.activityAt(current.row()), activity);
    QCOMPARE(current.column(), 3);
    // A new run while a sort is in flight: the sort's result belongs to the old run and is dropped.
    proxy.sort(GpuTraceModel::SizeColumn, Qt::DescendingOrder);
    QVERIFY(proxy.isBusy());
    model.setRun(makeRunEntry(testhelpers::gpuShapedRun("other", trace::RunMode::MeasuredGpu, 2),
                              RunOrigin::Opened));
    QTRY_VERIFY(!proxy.isBusy());
    QCOMPARE(proxyOrder(proxy),
             referenceOrder(model, true, GpuTraceModel::SizeColumn, Qt::DescendingOrder));
}

void TestGpuTraceModel::tooltipCarriesTheNvprofFields() {
    GpuTraceModel model;
    model.setRun(
        makeRunEntry(testhelpers::gpuShapedRun("a", trace::RunMode::Modelled), RunOrigin::Opened));
    const QString tip = model.index(2, 0).data(Qt::ToolTipRole).toString();
    for (const char* field :
         {"Grid Size", "Block Size", "Regs", "Duration", "sliceOuterKernel", "(modelled)"}) {
        QVERIFY2(tip.contains(QLatin1String(field)), field);
    }
}

void TestGpuTraceModel::warmupRowsAreGreyedAndSaySo() {
    trace::Run run = testhelpers::gpuShapedRun("w", trace::RunMode::MeasuredGpu, 2);
    run.warmup = 1;
    const std::size_t perIteration = run.activities.size() / 2;
    for (std::size_t i = 0; i < perIteration; ++i) {
        run.activities[i].warmup = true; // the first iteration was the warm-up
    }
    const ConstRunEntryPtr entry = makeRunEntry(std::move(run), RunOrigin::Opened);
    QCOMPARE(entry->warmupDeviceActivities, perIteration - 1); // all but the API call
    GpuTraceModel model;
    model.setRun(entry);
    const QModelIndex warm = model.index(1, GpuTraceModel::NameColumn);
    const QModelIndex measured = model.index(int(perIteration) + 1, GpuTraceModel::NameColumn);
    QVERIFY(model.data(warm, Qt::ForegroundRole).value<QBrush>().color() != QColor(Qt::black));
    QVERIFY(!model.data(measured, Qt::ForegroundRole).isValid());
    QVERIFY(model.data(warm, Qt::ToolTipRole).toString().contains(QLatin1String("Warm-up")));
    QVERIFY(!model.data(measured, Qt::ToolTipRole).toString().contains(QLatin1String("Warm-up")));
}

QTEST_GUILESS_MAIN(TestGpuTraceModel)
#include "tst_gputracemodel.moc"
