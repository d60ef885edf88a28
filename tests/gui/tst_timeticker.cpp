// The time axis labels of the timeline, table-driven.
#include "gui/timeticker.h"

#include <QTest>

class TestTimeTicker : public QObject {
    Q_OBJECT
  private slots:
    void tickLabels_data();
    void tickLabels();
    void narrowAxesGetFewerTicks();
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
    QTest::newRow("quarter seconds") << 1.25e9 << 2.5e8 << QStringLiteral("1.25 s");
    QTest::newRow("quarter ms") << 7.75e6 << 2.5e5 << QStringLiteral("7.75 ms");
    QTest::newRow("tenths") << 1.3e9 << 1e8 << QStringLiteral("1.3 s");
}

void TestTimeTicker::tickLabels() {
    QFETCH(double, ns);
    QFETCH(double, stepNs);
    QFETCH(QString, label);
    QCOMPARE(slicescope::gui::TimeTicker::label(ns, stepNs), label);
}

// On a narrow timeline the labels keep apart: no more of them than fit side by side, each drawn
// left of the next with room between; a wide one keeps its eight.
void TestTimeTicker::narrowAxesGetFewerTicks() {
    for (const int width : {220, 400, 2000}) {
        QCustomPlot plot;
        plot.resize(width, 120);
        plot.xAxis->setTicker(
            QSharedPointer<QCPAxisTicker>(new slicescope::gui::TimeTicker(plot.xAxis)));
        plot.xAxis->setRange(0, 80e6);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        plot.replot();
        const QVector<double> ticks = plot.xAxis->tickVector();
        const QVector<QString> labels = plot.xAxis->tickVectorLabels();
        QVERIFY(ticks.size() >= 2);
        const QFontMetricsF metrics(plot.xAxis->tickLabelFont());
        double rightOfLast = -1e9;
        for (int i = 0; i < ticks.size(); ++i) {
            const double centre = plot.xAxis->coordToPixel(ticks[i]);
            const double half = metrics.horizontalAdvance(labels[i]) / 2;
            QVERIFY2(centre - half > rightOfLast + metrics.horizontalAdvance(QLatin1Char(' ')),
                     qPrintable(QStringLiteral("width %1: %2 overlaps the label before it")
                                    .arg(width)
                                    .arg(labels[i])));
            rightOfLast = centre + half;
        }
        if (width == 2000) { // a wide axis keeps about the ten ticks asked for
            QVERIFY2(ticks.size() >= 8, qPrintable(QString::number(ticks.size())));
        }
    }
}

QTEST_MAIN(TestTimeTicker)
#include "tst_timeticker.moc"
