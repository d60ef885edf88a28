// The strategy multi-select: every engine strategy, checkable, with its one-line description.
#include "models/strategylistmodel.h"
#include "slicescope/strategy/strategy.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

using namespace slicescope;
using namespace slicescope::models;

class TestStrategyListModel : public QObject {
    Q_OBJECT
  private slots:
    void listsEveryStrategyWithItsDescription();
    void checkingUpdatesTheCheckedList();
};

void TestStrategyListModel::listsEveryStrategyWithItsDescription() {
    StrategyListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const auto all = strategy::allStrategies();
    QCOMPARE(model.rowCount(), int(all.size()));
    for (int row = 0; row < model.rowCount(); ++row) {
        const QModelIndex index = model.index(row);
        QCOMPARE(index.data(StrategyListModel::NameRole).toString(),
                 QString::fromUtf8(all[std::size_t(row)].name.data(),
                                   qsizetype(all[std::size_t(row)].name.size())));
        QVERIFY(!index.data(StrategyListModel::DescriptionRole).toString().isEmpty());
        QCOMPARE(index.data(StrategyListModel::IsGpuRole).toBool(),
                 all[std::size_t(row)].target == strategy::Target::Gpu);
        QVERIFY(index.data(Qt::ToolTipRole)
                    .toString()
                    .contains(
                        index.data(StrategyListModel::DescriptionRole).toString().toHtmlEscaped()));
        QCOMPARE(index.data(Qt::CheckStateRole).value<Qt::CheckState>(), Qt::Unchecked);
    }
}

void TestStrategyListModel::checkingUpdatesTheCheckedList() {
    StrategyListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy changed(&model, &StrategyListModel::checkedChanged);
    model.setCheckedNames(
        {QStringLiteral("cpu-serial"), QStringLiteral("one-worker"), QStringLiteral("bogus")});
    QCOMPARE(model.checkedNames(),
             (QStringList{QStringLiteral("one-worker"), QStringLiteral("cpu-serial")}));
    QCOMPARE(changed.count(), 1);
    QVERIFY(model.setData(model.index(1), Qt::Checked, Qt::CheckStateRole)); // slice-outer
    QCOMPARE(model.checkedNames(),
             (QStringList{QStringLiteral("one-worker"), QStringLiteral("slice-outer"),
                          QStringLiteral("cpu-serial")}));
    QVERIFY(!model.setData(model.index(1), QStringLiteral("x"), Qt::EditRole));
    model.setCheckedNames({});
    QVERIFY(model.checkedNames().isEmpty());
    QCOMPARE(changed.count(), 3);
}

QTEST_GUILESS_MAIN(TestStrategyListModel)
#include "tst_strategylistmodel.moc"
