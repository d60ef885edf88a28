// ElideApart: a chart's labels cut to a width stay apart where the labels differ.
#include "gui/elideapart.h"

#include <QFont>
#include <QTest>

using namespace slicescope::gui;

class TestElideApart : public QObject {
    Q_OBJECT
  private slots:
    void labelsThatFitAreWhole();
    void labelsCutAlikeInTheMiddleStayApart();
    void longKernelNamesKeepBothEnds();
};

namespace {

QFontMetricsF metrics() {
    QFont font;
    font.setPixelSize(12);
    return QFontMetricsF(font);
}

} // namespace

void TestElideApart::labelsThatFitAreWhole() {
    ElideApart elide({QStringLiteral("one-worker"), QStringLiteral("slice-outer")}, metrics());
    QCOMPARE(elide.elided(QStringLiteral("one-worker"), 1000), QStringLiteral("one-worker"));
}

// The audit's pair: cut in the middle, both read "slice-m…0x5)".
void TestElideApart::labelsCutAlikeInTheMiddleStayApart() {
    const QString a = QStringLiteral("slice-middle (400x16000x5)");
    const QString b = QStringLiteral("slice-middle-strided (400x16000x5)");
    const QString c = QStringLiteral("slice-outer (400x16000x5)");
    const QFontMetricsF fm = metrics();
    const double width = fm.horizontalAdvance(QStringLiteral("slice-mi\u2026x5)"));
    QCOMPARE(fm.elidedText(a, Qt::ElideMiddle, width), fm.elidedText(b, Qt::ElideMiddle, width));
    ElideApart elide({a, b, c}, fm);
    const QString cutA = elide.elided(a, width);
    const QString cutB = elide.elided(b, width);
    QVERIFY2(cutA != cutB, qPrintable(cutA + QStringLiteral(" / ") + cutB));
    QVERIFY(fm.horizontalAdvance(cutA) <= width + 0.5);
    QVERIFY(fm.horizontalAdvance(cutB) <= width + 0.5);
    QVERIFY(cutA.contains(QChar(0x2026)) && cutB.contains(QChar(0x2026)));
    const QString cutC = elide.elided(c, width);
    qInfo().noquote() << cutA << "/" << cutB << "/" << cutC;
    QVERIFY2(cutC != cutA && cutC != cutB, qPrintable(cutC));
    // A label no other collides with keeps the middle cut.
    const QString lone = QStringLiteral("one-worker (400x16000x5)");
    ElideApart withLone({a, b, lone}, fm);
    QCOMPARE(withLone.elided(lone, width), fm.elidedText(lone, Qt::ElideMiddle, width));
}

void TestElideApart::longKernelNamesKeepBothEnds() {
    const QString name = QStringLiteral("__gufunc_whole_array_with_a_long_tail_end");
    const QFontMetricsF fm = metrics();
    ElideApart elide({name, QStringLiteral("fill")}, fm);
    const QString cut = elide.elided(name, fm.horizontalAdvance(name) / 2);
    QVERIFY(cut.startsWith(QStringLiteral("__gu")));
    QVERIFY(cut.endsWith(QStringLiteral("end")));
}

QTEST_MAIN(TestElideApart)
#include "tst_elideapart.moc"
