// The sweep panel and chart in the window, with a stand-in slicescope-cli: the panel's choices
// become one `sweep` invocation, its progress reaches the panel, its runs join the session and the
// chart draws them (time, occupancy, roofline); Cancel keeps the points the CLI wrote.
#include "gui/mainwindow.h"
#include "gui/sweepchart.h"
#include "gui/sweeppanel.h"
#include "models/session.h"
#include "testhelpers.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLayout>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <tuple>

using namespace slicescope;
using namespace slicescope::models;
using namespace slicescope::gui;

namespace {

constexpr int kGenerousMs = 120'000;

QByteArray contentOf(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestSweepPanel : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void sweepFromThePanelIsDrawn();
    void mixedSweepProgressNeverGoesBack();
    void cancelKeepsThePointsFinished();

  private:
    // A stand-in CLI: `devices` is the real one's; `sweep` writes its arguments to args.txt,
    // prints a sweep progress line (unless told not to), then runs body with $out set to the -o
    // argument.
    QString fakeCli(const QString& name, const QByteArray& body, bool pointLine = true);
    StartOptions options(const QString& name) const;
    void chooseSweep(MainWindow& window);
    QTemporaryDir dir_;
    QString blockSweep_;
};

void TestSweepPanel::initTestCase() {
    QVERIFY(dir_.isValid());
    QStandardPaths::setTestModeEnabled(true);
    QApplication::setOrganizationName(QStringLiteral("SliceScopeTest"));
    QApplication::setApplicationName(QStringLiteral("tst_sweeppanel"));
    // What the stand-in hands back: a real modelled block sweep, with datasheet ceilings.
    blockSweep_ = dir_.filePath(QStringLiteral("block-sweep.json"));
    QCOMPARE(testhelpers::runCli(
                 {QStringLiteral("sweep"), QStringLiteral("--param"), QStringLiteral("block"),
                  QStringLiteral("--range"), QStringLiteral("32:1024:x2"),
                  QStringLiteral("--shape"), QStringLiteral("100x4000x5"),
                  QStringLiteral("--strategy"), QStringLiteral("slice-2d,elementwise-broadcast"),
                  QStringLiteral("--device"), QStringLiteral("h200"), QStringLiteral("--roofline"),
                  QStringLiteral("-q"), QStringLiteral("-o"), blockSweep_}),
             0);
}

QString TestSweepPanel::fakeCli(const QString& name, const QByteArray& body, bool pointLine) {
    const QString path = dir_.filePath(name);
    QFile script(path);
    if (!script.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        return {};
    }
    script.write("#!/bin/sh\nif [ \"$1\" = devices ]; then exec \"" +
                 QFile::encodeName(testhelpers::cliPath()) +
                 "\" \"$@\"; fi\n"
                 "echo \"$@\" > \"" +
                 QFile::encodeName(dir_.filePath(name + QStringLiteral(".args"))) +
                 "\"\nout=; previous=\n"
                 "for argument in \"$@\"; do [ \"$previous\" = -o ] && out=$argument; "
                 "previous=$argument; done\n" +
                 (pointLine ? QByteArray("echo 'progress {\"strategy\":\"slice-2d\",\"index\":0,"
                                         "\"count\":2,\"stage\":\"model\",\"fraction\":0,"
                                         "\"point\":1,\"points\":6,\"param\":\"block\","
                                         "\"value\":\"64\"}'\n")
                            : QByteArray()) +
                 body + "\n");
    script.close();
    QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    return path;
}

StartOptions TestSweepPanel::options(const QString& name) const {
    StartOptions o;
    o.noSamples = true;
    o.sessionFile = dir_.filePath(name + QStringLiteral("-session.json"));
    QFile::remove(o.sessionFile);
    return o;
}

void TestSweepPanel::chooseSweep(MainWindow& window) {
    SweepPanel* panel = window.sweepPanel();
    panel->setParam(QStringLiteral("block"));
    panel->setValues(QStringLiteral("32:1024:x2"));
    panel->setStrategies({QStringLiteral("slice-2d"), QStringLiteral("elementwise-broadcast")});
    QTRY_VERIFY_WITH_TIMEOUT(panel->selectDevice(QStringLiteral("preset:h200")), kGenerousMs);
}

void TestSweepPanel::sweepFromThePanelIsDrawn() {
    qputenv("SLICESCOPE_CLI", fakeCli(QStringLiteral("copies"),
                                      "cp \"" + QFile::encodeName(blockSweep_) + "\" \"$out\"")
                                  .toUtf8());
    MainWindow window(options(QStringLiteral("drawn")));
    window.show();
    window.start();
    chooseSweep(window);
    SweepPanel* panel = window.sweepPanel();
    auto* progress = panel->findChild<QProgressBar*>(QStringLiteral("sweepProgress"));
    auto* stage = panel->findChild<QLabel*>(QStringLiteral("sweepStage"));
    QVERIFY(progress && stage);
    QSignalSpy finished(window.controller(), &SessionController::runFinished);
    QSignalSpy progressed(window.controller(), &SessionController::runProgress);
    QTest::mouseClick(panel->findChild<QPushButton*>(QStringLiteral("sweepButton")),
                      Qt::LeftButton);
    QVERIFY(finished.wait(kGenerousMs));
    QCOMPARE(finished.at(0).at(0).toBool(), false);
    QTRY_COMPARE_WITH_TIMEOUT(window.controller()->session()->count(), 12, kGenerousMs);
    // One `sweep` invocation with the panel's choices.
    const QByteArray args = contentOf(dir_.filePath(QStringLiteral("copies.args")));
    QVERIFY2(args.startsWith("sweep --param block --range 32:1024:x2 --shape 100x4000x5"),
             args.constData());
    QVERIFY(args.contains("--strategy slice-2d,elementwise-broadcast"));
    QVERIFY(args.contains("--device h200"));
    // Its progress line named the point.
    QVERIFY(std::any_of(progressed.begin(), progressed.end(), [](const QList<QVariant>& a) {
        return a.at(1).toString().contains(QStringLiteral("block 64 (point 2 of 6)"));
    }));
    QVERIFY(!stage->text().contains(QStringLiteral("error")));

    SweepChart* chart = window.sweepChart();
    QCOMPARE(chart->sweeps().size(), 1);
    chart->setView(SweepChart::View::Time);
    QCOMPARE(chart->plot()->graphCount(), 2); // one line per strategy
    QVERIFY(chart->plot()->xAxis->scaleType() == QCPAxis::stLogarithmic);
    QVERIFY(chart->plot()->yAxis->scaleType() == QCPAxis::stLogarithmic);
    // The modelled block sweep has no crossover: the same strategy is fastest at every block size
    // (crossover lines and labels are tested in tst_reportrenderer).
    QVERIFY(chart->sweeps().front().crossovers.empty());
    QCOMPARE(chart->plot()->itemCount(), 0);
    QVERIFY(chart->notes().contains(QStringLiteral("No crossover")));
    chart->setView(SweepChart::View::Occupancy);
    // Per strategy: the theoretical curve, the points on it, the time.
    QCOMPARE(chart->plot()->graphCount(), 6);
    QVERIFY(chart->notes().contains(QStringLiteral("sweep with counters")));
    // With no divergence the notes say what a divergence would have been, in figures.
    QCOMPARE(chart->notes().contains(QStringLiteral(
                 "No divergence: no point is 25 points more occupied yet 1.2x slower")),
             chart->sweeps().front().divergences.isEmpty());
    chart->setView(SweepChart::View::Roofline);
    QCOMPARE(chart->rooflines().size(), 1);
    QVERIFY(chart->notes().contains(QStringLiteral("datasheet figures, not measured")));
    QVERIFY(chart->plot()->graphCount() >= 2 * 12 + 1); // two points per run, and the roofs
    // For a look at the drawing (not a check): the chart at slide and hd sizes.
    const QString shots = qEnvironmentVariable("SLICESCOPE_SWEEP_SHOTS");
    if (!shots.isEmpty()) {
        for (const auto& [name, size] :
             {std::pair{"slide", QSize(1280, 720)}, std::pair{"hd", QSize(1920, 1080)}}) {
            for (auto view : {SweepChart::View::Time, SweepChart::View::Occupancy,
                              SweepChart::View::Roofline}) {
                chart->setView(view);
                chart->resize(size);
                chart->layout()->activate();
                QApplication::processEvents();
                chart->grab().save(QDir(shots).filePath(
                    QStringLiteral("sweep-%1-%2.png").arg(QLatin1String(name)).arg(int(view))));
            }
        }
    }
}

void TestSweepPanel::mixedSweepProgressNeverGoesBack() {
    // A measured sweep of a GPU and a CPU strategy over 2 points, as the CLI reports it
    // (app/cli/sweepcommand.cpp): the GPU worker's batch at every point first, then the CPU
    // strategy from the first point again. 4 runs in all.
    const QString line =
        QStringLiteral("echo 'progress {\"strategy\":\"%1\",\"index\":%2,\"count\":%3,\"stage\":"
                       "\"compute\",\"fraction\":%4,\"point\":%5,\"points\":2,\"param\":\"block\","
                       "\"value\":\"%6\",\"runs_done\":%7,\"runs\":4}'\n");
    QByteArray body;
    for (const auto& [strategy, index, count, fraction, point, runsDone] :
         {std::tuple{"gpu", 0, 1, 0.0, 0, 0.0}, std::tuple{"gpu", 0, 1, 1.0, 0, 1.0},
          std::tuple{"gpu", 0, 1, 0.5, 1, 1.5}, std::tuple{"gpu", 0, 1, 1.0, 1, 2.0},
          std::tuple{"cpu-serial", 1, 2, 0.0, 0, 2.0}, std::tuple{"cpu-serial", 1, 2, 1.0, 0, 3.0},
          std::tuple{"cpu-serial", 1, 2, 0.5, 1, 3.5}}) {
        body += line.arg(QLatin1String(strategy))
                    .arg(index)
                    .arg(count)
                    .arg(fraction)
                    .arg(point)
                    .arg(point == 0 ? QStringLiteral("32") : QStringLiteral("64"))
                    .arg(runsDone)
                    .toLatin1();
    }
    body += "cp \"" + QFile::encodeName(blockSweep_) + "\" \"$out\"";
    qputenv("SLICESCOPE_CLI", fakeCli(QStringLiteral("mixed"), body, false).toUtf8());
    MainWindow window(options(QStringLiteral("mixed")));
    window.show();
    window.start();
    chooseSweep(window);
    SweepPanel* panel = window.sweepPanel();
    auto* progress = panel->findChild<QProgressBar*>(QStringLiteral("sweepProgress"));
    QVERIFY(progress);
    QSignalSpy values(progress, &QProgressBar::valueChanged);
    QSignalSpy finished(window.controller(), &SessionController::runFinished);
    QTest::mouseClick(panel->findChild<QPushButton*>(QStringLiteral("sweepButton")),
                      Qt::LeftButton);
    QVERIFY(finished.wait(kGenerousMs));
    QVERIFY(values.count() >= 5);
    int previous = 0;
    for (const auto& args : values) {
        const int value = args.at(0).toInt();
        QVERIFY2(value >= previous,
                 qPrintable(
                     QStringLiteral("progress went back from %1 to %2").arg(previous).arg(value)));
        previous = value;
    }
    // Its furthest is the last line's: 3.5 of the 4 runs done.
    QCOMPARE(previous, 875);
}

void TestSweepPanel::cancelKeepsThePointsFinished() {
    // On SIGTERM the stand-in writes the points it finished and exits 130, as the CLI does.
    qputenv("SLICESCOPE_CLI",
            fakeCli(QStringLiteral("cancels"), "trap 'cp \"" + QFile::encodeName(blockSweep_) +
                                                   "\" \"$out\"; exit 130' TERM\necho ready\n"
                                                   "while true; do sleep 0.1; done")
                .toUtf8());
    MainWindow window(options(QStringLiteral("cancel")));
    window.show();
    window.start();
    chooseSweep(window);
    QSignalSpy finished(window.controller(), &SessionController::runFinished);
    QSignalSpy logged(window.controller(), &SessionController::logLine);
    QSignalSpy failed(window.controller(), &SessionController::runFailed);
    auto* cancel = window.sweepPanel()->findChild<QPushButton*>(QStringLiteral("sweepCancel"));
    QVERIFY(!cancel->isEnabled());
    window.startSweep();
    QTRY_VERIFY_WITH_TIMEOUT(std::any_of(logged.begin(), logged.end(),
                                         [](const QList<QVariant>& a) {
                                             return a.at(0).toString() == QStringLiteral("ready");
                                         }),
                             kGenerousMs);
    QVERIFY(cancel->isEnabled());
    QTest::mouseClick(cancel, Qt::LeftButton);
    QVERIFY(finished.wait(kGenerousMs));
    QCOMPARE(finished.at(0).at(0).toBool(), true);
    QVERIFY(failed.isEmpty());
    QTRY_COMPARE_WITH_TIMEOUT(window.controller()->session()->count(), 12, kGenerousMs);
    QVERIFY(std::any_of(logged.begin(), logged.end(), [](const QList<QVariant>& a) {
        return a.at(0).toString().contains(QStringLiteral("keeping the points finished"));
    }));
    QVERIFY(!cancel->isEnabled());
}

QTEST_MAIN(TestSweepPanel)
#include "tst_sweeppanel.moc"
