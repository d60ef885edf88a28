// time<->pixel mapping, table-driven (the time axis labels: tests/gui/tst_timeticker.cpp).
#include "models/timemapping.h"

#include <QTest>

using slicescope::models::TimeMapping;

class TestTimeMapping : public QObject {
    Q_OBJECT
  private slots:
    void toPixel_data();
    void toPixel();
    void roundTrip_data();
    void roundTrip();
    void zoomKeepsAnchor_data();
    void zoomKeepsAnchor();
    void panAndBoxZoom();
    void invalidWindowsMapNothing();
};

void TestTimeMapping::toPixel_data() {
    QTest::addColumn<double>("startNs");
    QTest::addColumn<double>("endNs");
    QTest::addColumn<double>("leftPx");
    QTest::addColumn<double>("widthPx");
    QTest::addColumn<double>("timeNs");
    QTest::addColumn<double>("expectedPx");
    QTest::newRow("start maps to left") << 0.0 << 1000.0 << 50.0 << 1000.0 << 0.0 << 50.0;
    QTest::newRow("end maps to right") << 0.0 << 1000.0 << 50.0 << 1000.0 << 1000.0 << 1050.0;
    QTest::newRow("middle") << 0.0 << 1000.0 << 0.0 << 500.0 << 500.0 << 250.0;
    QTest::newRow("before the window is left of it")
        << 100.0 << 200.0 << 0.0 << 100.0 << 50.0 << -50.0;
    QTest::newRow("after the window is right of it")
        << 100.0 << 200.0 << 0.0 << 100.0 << 300.0 << 200.0;
    QTest::newRow("1 s over 1920 px") << 0.0 << 1e9 << 0.0 << 1920.0 << 0.5e9 << 960.0;
    QTest::newRow("nanoseconds at deep zoom")
        << 1e12 << 1e12 + 100 << 10.0 << 1000.0 << 1e12 + 1 << 20.0;
    QTest::newRow("negative times") << -500.0 << 500.0 << 0.0 << 1000.0 << 0.0 << 500.0;
}

void TestTimeMapping::toPixel() {
    QFETCH(double, startNs);
    QFETCH(double, endNs);
    QFETCH(double, leftPx);
    QFETCH(double, widthPx);
    QFETCH(double, timeNs);
    QFETCH(double, expectedPx);
    const TimeMapping m(startNs, endNs, leftPx, widthPx);
    QVERIFY(m.isValid());
    QCOMPARE(m.toPixel(timeNs), expectedPx);
}

void TestTimeMapping::roundTrip_data() {
    QTest::addColumn<double>("startNs");
    QTest::addColumn<double>("endNs");
    QTest::addColumn<double>("widthPx");
    QTest::newRow("ms window") << 0.0 << 6e6 << 1200.0;
    QTest::newRow("seconds window") << 2.5e9 << 4.7e9 << 333.0;
    QTest::newRow("ns window") << 17.0 << 83.0 << 1920.0;
}

void TestTimeMapping::roundTrip() {
    QFETCH(double, startNs);
    QFETCH(double, endNs);
    QFETCH(double, widthPx);
    const TimeMapping m(startNs, endNs, 7, widthPx);
    for (double px = 7; px <= 7 + widthPx; px += widthPx / 13) {
        QVERIFY(qAbs(m.toPixel(m.toTime(px)) - px) < 1e-6);
    }
    QCOMPARE(m.nsPerPixel(), (endNs - startNs) / widthPx);
}

void TestTimeMapping::zoomKeepsAnchor_data() {
    QTest::addColumn<double>("factor");
    QTest::addColumn<double>("anchorPx");
    QTest::newRow("zoom in at the left edge") << 0.5 << 0.0;
    QTest::newRow("zoom in at the middle") << 0.25 << 500.0;
    QTest::newRow("zoom out at the right") << 4.0 << 1000.0;
    QTest::newRow("zoom in off-centre") << 0.1 << 137.0;
}

void TestTimeMapping::zoomKeepsAnchor() {
    QFETCH(double, factor);
    QFETCH(double, anchorPx);
    const TimeMapping m(1000, 2000, 0, 1000);
    const TimeMapping z = m.zoomed(factor, anchorPx);
    QVERIFY(qAbs(z.spanNs() - m.spanNs() * factor) < 1e-9);
    QVERIFY(qAbs(z.toTime(anchorPx) - m.toTime(anchorPx)) < 1e-9);
    QCOMPARE(z.leftPx(), m.leftPx());
    QCOMPARE(z.widthPx(), m.widthPx());
}

void TestTimeMapping::panAndBoxZoom() {
    const TimeMapping m(0, 1000, 100, 1000); // 1 ns per px
    const TimeMapping p = m.panned(250);     // content moves right: earlier times come into view
    QCOMPARE(p.startNs(), -250.0);
    QCOMPARE(p.endNs(), 750.0);
    QCOMPARE(p.toPixel(0), 350.0);
    const TimeMapping b = m.zoomedTo(600, 200); // either drag direction
    QCOMPARE(b.startNs(), 100.0);
    QCOMPARE(b.endNs(), 500.0);
    QCOMPARE(b.toPixel(100), 100.0);
    QCOMPARE(b.toPixel(500), 1100.0);
    QCOMPARE(m.zoomedTo(300, 300), m); // an empty box changes nothing
}

void TestTimeMapping::invalidWindowsMapNothing() {
    QVERIFY(!TimeMapping().isValid());
    QVERIFY(!TimeMapping(10, 10, 0, 100).isValid());
    QVERIFY(!TimeMapping(0, 10, 0, 0).isValid());
    const TimeMapping bad(5, 5, 3, 100);
    QCOMPARE(bad.toPixel(1e9), 3.0);
    QCOMPARE(bad.toTime(50), 5.0);
    QCOMPARE(bad.nsPerPixel(), 0.0);
    QCOMPARE(bad.zoomed(0.5, 10), bad);
}

QTEST_GUILESS_MAIN(TestTimeMapping)
#include "tst_timemapping.moc"
