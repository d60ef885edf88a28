// The time axis labels of the timeline, table-driven.
#include "gui/timeticker.h"

#include <QTest>

class TestTimeTicker : public QObject {
    Q_OBJECT
  private slots:
    void tickLabels_data();
    void tickLabels();
};

void TestTimeTicker::tickLabels_data() {
    QTest::addColumn<double>("ns");
    QTest::addColumn<double>("stepNs");
    QTest::addColumn<QString>("label");
    QTest::newRow("zero") << 0.0 << 2e6 << QStringLiteral("0");
    QTest::newRow("ms") << 4e6 << 2e6 << QStringLiteral("4 ms");
    QTest::newRow("half ms steps") << 2.5e6 << 5e5 << QStringLiteral("2.5 ms");
    QTest::newRow("microseconds") << 250e3 << 50e3 << QStringLiteral("250 \u00b5s");
    QTest::newRow("seconds") << 1.2e9 << 2e8 << QStringLiteral("1.2 s");
    QTest::newRow("nanoseconds") << 40.0 << 20.0 << QStringLiteral("40 ns");
    QTest::newRow("negative") << -1e6 << 5e5 << QStringLiteral("-1.0 ms");
}

void TestTimeTicker::tickLabels() {
    QFETCH(double, ns);
    QFETCH(double, stepNs);
    QFETCH(QString, label);
    QCOMPARE(slicescope::gui::TimeTicker::label(ns, stepNs), label);
}

QTEST_GUILESS_MAIN(TestTimeTicker)
#include "tst_timeticker.moc"
