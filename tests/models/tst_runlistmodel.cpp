// The per-run summary table under QAbstractItemModelTester, through adds, removals and resets.
#include "models/runlistmodel.h"
#include "models/session.h"
#include "slicescope/trace/runsummary.h"
#include "testhelpers.h"

#include <QAbstractItemModelTester>
#include <QFont>
#include <QSortFilterProxyModel>
#include <QTest>

using namespace slicescope;
using namespace slicescope::models;

class TestRunListModel : public QObject {
    Q_OBJECT
  private slots:
    void passesTheModelTester();
    void showsWhatTheRunSays();
    void checkboxHidesARun();
    void sortsByNumbersNotText();
    void deviceColumnSaysWhichGpu();
};

void TestRunListModel::passesTheModelTester() {
    Session session;
    RunListModel model(&session);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    session.addRuns({makeRunEntry(testhelpers::gpuShapedRun("a", trace::RunMode::MeasuredGpu),
                                  RunOrigin::Opened)});
    session.addRuns(
        {makeRunEntry(testhelpers::gpuShapedRun("b", trace::RunMode::Modelled), RunOrigin::Opened),
         makeRunEntry(testhelpers::denseRun("c", 10), RunOrigin::Opened)});
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.columnCount(), int(RunListModel::ColumnCount));
    session.setVisible(1, false);
    session.removeRun(0);
    QCOMPARE(model.rowCount(), 2);
    session.clear();
    QCOMPARE(model.rowCount(), 0);
}

void TestRunListModel::showsWhatTheRunSays() {
    Session session;
    RunListModel model(&session);
    session.addRuns({makeRunEntry(
        testhelpers::gpuShapedRun("slice-outer", trace::RunMode::Modelled, 2), RunOrigin::Opened)});
    auto cell = [&](int column) { return model.index(0, column).data().toString(); };
    QCOMPARE(cell(RunListModel::RunColumn), QStringLiteral("slice-outer"));
    QCOMPARE(cell(RunListModel::ModeColumn), QStringLiteral("modelled"));
    QCOMPARE(cell(RunListModel::DeviceColumn), QStringLiteral("NVIDIA H200 (preset h200)"));
    QCOMPARE(cell(RunListModel::ProblemColumn), QStringLiteral("100x4000x5 f64, work 1"));
    QCOMPARE(cell(RunListModel::TimeColumn),
             QString::fromUtf8("59.0 ms")); // 6 + 47 + 6 ms per repetition
    QCOMPARE(cell(RunListModel::CopyShareColumn), QStringLiteral("20 %"));
    QCOMPARE(cell(RunListModel::OccupancyColumn), QStringLiteral("100 %"));
    // The launch's own occupancy is the headline: 2 blocks of 2 warps on 132 SMs of 64 warp slots.
    QCOMPARE(cell(RunListModel::LaunchOccupancyColumn),
             QString::fromStdString(trace::formatPercent(4.0 / (132 * 64))) +
                 QStringLiteral(" (limited by the grid)"));
    QVERIFY(model.index(0, RunListModel::LaunchOccupancyColumn)
                .data(Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("130 SMs idle")));
    QCOMPARE(model.headerData(RunListModel::LaunchOccupancyColumn, Qt::Horizontal).toString(),
             QStringLiteral("Launch occupancy"));
    QCOMPARE(model.headerData(RunListModel::OccupancyColumn, Qt::Horizontal).toString(),
             QStringLiteral("per-SM limit (CUDA's theoretical occupancy)"));
    QCOMPARE(cell(RunListModel::VerifiedColumn), QStringLiteral("n/a (modelled)"));
    QVERIFY(cell(RunListModel::VerdictColumn)
                .startsWith(QStringLiteral("modelled for NVIDIA H200: the kernel takes")));
    QCOMPARE(model.index(0, 0).data(RunListModel::RunIdRole).toString(),
             QStringLiteral("slice-outer"));
    QVERIFY(
        model.index(0, 0).data(Qt::FontRole).value<QFont>().italic()); // modelled runs in italics
}

void TestRunListModel::checkboxHidesARun() {
    Session session;
    RunListModel model(&session);
    session.addRuns({makeRunEntry(testhelpers::denseRun("d", 3), RunOrigin::Opened)});
    const QModelIndex first = model.index(0, RunListModel::RunColumn);
    QVERIFY(model.flags(first) & Qt::ItemIsUserCheckable);
    QCOMPARE(first.data(Qt::CheckStateRole).value<Qt::CheckState>(), Qt::Checked);
    QVERIFY(model.setData(first, Qt::Unchecked, Qt::CheckStateRole));
    QVERIFY(!session.at(0)->visible);
    QVERIFY(!model.setData(model.index(0, RunListModel::ModeColumn), Qt::Unchecked,
                           Qt::CheckStateRole));
}

void TestRunListModel::sortsByNumbersNotText() {
    Session session;
    RunListModel model(&session);
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(RunListModel::SortRole);
    trace::Run fast = testhelpers::gpuShapedRun("fast", trace::RunMode::MeasuredGpu);
    trace::Run slow = testhelpers::gpuShapedRun("slow", trace::RunMode::MeasuredGpu, 1);
    slow.activities[2].endNs +=
        1'000'000'000; // a 1 s kernel: "1.05 s" sorts after "59.0 ms" only as a number
    session.addRuns({makeRunEntry(slow, RunOrigin::Opened), makeRunEntry(fast, RunOrigin::Opened)});
    proxy.sort(RunListModel::TimeColumn, Qt::AscendingOrder);
    QCOMPARE(proxy.index(0, 0).data().toString(), QStringLiteral("fast"));
    QCOMPARE(proxy.index(1, 0).data().toString(), QStringLiteral("slow"));
}

QTEST_MAIN(TestRunListModel)

// Runs of --devices say their GPU, a recorded run over several GPUs names them all, a run of one
// GPU only its name; sorted on the column, the runs of each GPU come together.
void TestRunListModel::deviceColumnSaysWhichGpu() {
    Session session;
    RunListModel model(&session);
    auto onDevice = [](const std::string& id, std::uint32_t device) {
        auto run = testhelpers::gpuShapedRun(id, trace::RunMode::MeasuredGpu);
        run.deviceIndex = device;
        for (auto& a : run.activities) {
            a.device = std::uint8_t(device);
        }
        return makeRunEntry(std::move(run), RunOrigin::Opened);
    };
    auto spanning = testhelpers::gpuShapedRun("recorded", trace::RunMode::Recorded);
    spanning.activities[2].device = 1; // its kernel ran on the second GPU, the rest on the first
    session.addRuns({onDevice("slice-2d@gpu1", 1), onDevice("slice-2d@gpu0", 0),
                     makeRunEntry(testhelpers::gpuShapedRun("one", trace::RunMode::MeasuredGpu),
                                  RunOrigin::Opened),
                     onDevice("slice-outer@gpu1", 1),
                     makeRunEntry(std::move(spanning), RunOrigin::Opened)});
    auto cell = [&](int row) {
        return model.index(row, RunListModel::DeviceColumn).data().toString();
    };
    const QString name = QString::fromStdString(
        testhelpers::gpuShapedRun("x", trace::RunMode::MeasuredGpu).device.name);
    QCOMPARE(cell(0), name + QStringLiteral(" (GPU 1)"));
    QCOMPARE(cell(1), name + QStringLiteral(" (GPU 0)"));
    QCOMPARE(cell(2), name);
    QCOMPARE(cell(4), name + QStringLiteral(" (GPUs 0, 1)"));
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(RunListModel::SortRole);
    proxy.sort(RunListModel::DeviceColumn);
    QStringList order;
    for (int row = 0; row < proxy.rowCount(); ++row) {
        order << proxy.index(row, RunListModel::RunColumn).data().toString();
    }
    // The two runs of GPU 1 sit side by side.
    const auto gap = order.indexOf(QStringLiteral("slice-outer@gpu1")) -
                     order.indexOf(QStringLiteral("slice-2d@gpu1"));
    QVERIFY2(gap == 1 || gap == -1, qPrintable(order.join(QLatin1Char(' '))));
}

#include "tst_runlistmodel.moc"
