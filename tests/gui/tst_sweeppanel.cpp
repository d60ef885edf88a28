// The sweep panel and chart in the window, with a stand-in slicescope-cli: the panel's choices
// become one `sweep` invocation, its progress reaches the panel, its runs join the session and the
// chart draws them (time, occupancy, roofline); Cancel keeps the points the CLI wrote.
#include "gui/mainwindow.h"
#include "gui/sweepchart.h"
#include "gui/sweeppanel.h"
#include "gui/sweepplot.h"
#include "models/session.h"
#include "models/sweepdata.h"
#include "models/traceloader.h"
#include "testhelpers.h"

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLayout>
#include <QMouseEvent>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>
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
    void aPresetWithACpuStrategyIsAMixedSweep();
    void cpuStrategiesSweepWithNoDevice();
    void theSweepJustFinishedIsShown();
    void rooflinePointsSayWhatTheyAreUnderTheMouse();
    void crossingsWithinNoiseAreDrawnDotted();
    void logTimeAxesLabelEveryFewFold();

  private:
    // A stand-in CLI: `devices` is the real one's; `sweep` writes its arguments to args.txt,
    // prints a sweep progress line (unless told not to), then runs body with $out set to the -o
    // argument.
    QString fakeCli(const QString& name, const QByteArray& body, bool pointLine = true);
    StartOptions options(const QString& name) const;
    void chooseSweep(MainWindow& window);
    // Runs the panel's sweep through the stand-in `name`, which copies `result` to its -o file;
    // the arguments it was given.
    QByteArray sweepThrough(MainWindow& window, const QString& name, const QString& result);
    QTemporaryDir dir_;
    QString blockSweep_;
    QString mixedSweep_; // a GPU strategy modelled on the H200, a CPU strategy measured here
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
    mixedSweep_ = dir_.filePath(QStringLiteral("mixed-sweep.json"));
    QCOMPARE(testhelpers::runCli(
                 {QStringLiteral("sweep"), QStringLiteral("--param"), QStringLiteral("work"),
                  QStringLiteral("--values"), QStringLiteral("1,16,256"), QStringLiteral("--shape"),
                  QStringLiteral("10x200x5"), QStringLiteral("--strategy"),
                  QStringLiteral("elementwise-broadcast,cpu-serial"), QStringLiteral("--device"),
                  QStringLiteral("h200"), QStringLiteral("-q"), QStringLiteral("-o"), mixedSweep_}),
             0);
}

QByteArray TestSweepPanel::sweepThrough(MainWindow& window, const QString& name,
                                        const QString& result) {
    qputenv("SLICESCOPE_CLI",
            fakeCli(name, "cp \"" + QFile::encodeName(result) + "\" \"$out\"").toUtf8());
    window.controller()->setCliProgram(qEnvironmentVariable("SLICESCOPE_CLI"));
    QSignalSpy finished(window.controller(), &SessionController::runFinished);
    QSignalSpy refused(window.controller(), &SessionController::runRefused);
    window.startSweep();
    if (!refused.isEmpty() || !finished.wait(kGenerousMs)) {
        return refused.isEmpty() ? QByteArray("(did not finish)")
                                 : "(refused: " + refused.front().front().toString().toUtf8() + ")";
    }
    return contentOf(dir_.filePath(name + QStringLiteral(".args")));
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
    // Before any sweep: the note says so, and no empty axes are drawn around nothing.
    QVERIFY(window.sweepChart()->sweeps().isEmpty());
    QVERIFY(window.sweepChart()->notes().contains(QStringLiteral("No sweep in the session")));
    QVERIFY(!window.sweepChart()->plot()->axisRect()->visible());
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
    QVERIFY(chart->plot()->axisRect()->visible());
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
        if (args.at(0).toInt() == 0 && previous == progress->maximum()) {
            break; // emptied after the end
        }
        const int value = args.at(0).toInt();
        QVERIFY2(value >= previous,
                 qPrintable(
                     QStringLiteral("progress went back from %1 to %2").arg(previous).arg(value)));
        previous = value;
    }
    // The last line's 3.5 of the 4 runs done, then the end: full, and empty again a moment
    // later for the next sweep.
    QVERIFY(values.count() >= 2);
    QCOMPARE(values.at(values.count() - 2).at(0).toInt(), 875);
    QCOMPARE(previous, progress->maximum());
    QTRY_COMPARE_WITH_TIMEOUT(progress->value(), 0, 4 * SweepPanel::kProgressResetMs);
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

void TestSweepPanel::aPresetWithACpuStrategyIsAMixedSweep() {
    // The Run panel mixes a preset's modelled GPU strategies with measured CPU ones; so does the
    // Sweep panel now: one `sweep` with --device PRESET and both strategies.
    qputenv("SLICESCOPE_CLI", fakeCli(QStringLiteral("mixed-start"), "true").toUtf8());
    MainWindow window(options(QStringLiteral("mixed-sweep")));
    window.show();
    window.start();
    SweepPanel* panel = window.sweepPanel();
    panel->setParam(QStringLiteral("work"));
    panel->setValues(QStringLiteral("1,16,256"));
    panel->setStrategies({QStringLiteral("elementwise-broadcast"), QStringLiteral("cpu-serial")});
    QTRY_VERIFY_WITH_TIMEOUT(panel->selectDevice(QStringLiteral("preset:h200")), kGenerousMs);
    const QByteArray args = sweepThrough(window, QStringLiteral("mixed-run"), mixedSweep_);
    QVERIFY2(args.startsWith("sweep --param work --values 1,16,256"), args.constData());
    QVERIFY2(args.contains("--strategy elementwise-broadcast,cpu-serial"), args.constData());
    QVERIFY2(args.contains("--device h200"), args.constData());
    // The chart labels what its times are, in the sweep's title (the export's caption) and first
    // in the verdict under it.
    SweepChart* chart = window.sweepChart();
    chart->setView(SweepChart::View::Time);
    QTRY_COMPARE_WITH_TIMEOUT(chart->sweeps().size(), 1, kGenerousMs);
    const QString basis = QStringLiteral("modelled GPU (NVIDIA H200) vs measured CPU on this host");
    QCOMPARE(chart->sweeps().front().basis, basis);
    auto* which = chart->findChild<QComboBox*>(QStringLiteral("sweepChartWhich"));
    QVERIFY(which);
    QVERIFY2(which->currentText().contains(basis), qPrintable(which->currentText()));
    QVERIFY2(chart->notes().startsWith(
                 QStringLiteral("Modelled GPU (NVIDIA H200) vs measured CPU on this host.\n")),
             qPrintable(chart->notes()));
    // The legend names the two kinds of line.
    QStringList names;
    for (int i = 0; i < chart->plot()->graphCount(); ++i) {
        names << chart->plot()->graph(i)->name();
    }
    QVERIFY2(names.contains(QStringLiteral("elementwise-broadcast (modelled)")),
             qPrintable(names.join(QLatin1Char('|'))));
    QVERIFY2(names.contains(QStringLiteral("cpu-serial (measured)")),
             qPrintable(names.join(QLatin1Char('|'))));
}

void TestSweepPanel::cpuStrategiesSweepWithNoDevice() {
    // CPU strategies alone: no GPU, no preset, whatever the GPU list shows.
    qputenv("SLICESCOPE_CLI", fakeCli(QStringLiteral("cpu-start"), "true").toUtf8());
    MainWindow window(options(QStringLiteral("cpu-sweep")));
    window.show();
    window.start();
    SweepPanel* panel = window.sweepPanel();
    panel->setParam(QStringLiteral("work"));
    panel->setValues(QStringLiteral("1,4"));
    panel->setStrategies({QStringLiteral("cpu-serial")});
    QTRY_VERIFY_WITH_TIMEOUT(panel->selectDevice(QStringLiteral("preset:h200")), kGenerousMs);
    const QByteArray args = sweepThrough(window, QStringLiteral("cpu-run"), mixedSweep_);
    QVERIFY2(args.startsWith("sweep --param work --values 1,4"), args.constData());
    QVERIFY2(!args.contains("--device"), args.constData());
}

void TestSweepPanel::theSweepJustFinishedIsShown() {
    qputenv("SLICESCOPE_CLI", fakeCli(QStringLiteral("shown-start"), "true").toUtf8());
    MainWindow window(options(QStringLiteral("shown")));
    window.show();
    window.start();
    chooseSweep(window);
    SweepChart* chart = window.sweepChart();
    chart->setView(SweepChart::View::Time);
    QVERIFY(!sweepThrough(window, QStringLiteral("first"), blockSweep_).startsWith("("));
    QTRY_COMPARE_WITH_TIMEOUT(chart->sweeps().size(), 1, kGenerousMs);
    const QString first = chart->currentSweepKey();
    QVERIFY(!first.isEmpty());
    // A second sweep: the chart switches to it.
    QVERIFY(!sweepThrough(window, QStringLiteral("second"), blockSweep_).startsWith("("));
    QTRY_COMPARE_WITH_TIMEOUT(chart->sweeps().size(), 2, kGenerousMs);
    QVERIFY(chart->currentSweepKey() != first);
    QCOMPARE(chart->currentSweepKey(), chart->sweeps().back().key);
    // The user's choice then holds across redraws and view changes.
    auto* which = chart->findChild<QComboBox*>(QStringLiteral("sweepChartWhich"));
    which->setCurrentIndex(which->findData(first));
    emit which->activated(which->currentIndex());
    chart->setView(SweepChart::View::Occupancy);
    chart->setView(SweepChart::View::Time);
    QCOMPARE(chart->currentSweepKey(), first);
}

void TestSweepPanel::rooflinePointsSayWhatTheyAreUnderTheMouse() {
    qputenv("SLICESCOPE_CLI", fakeCli(QStringLiteral("tips-start"), "true").toUtf8());
    MainWindow window(options(QStringLiteral("tips")));
    window.show();
    window.start();
    chooseSweep(window);
    QVERIFY(!sweepThrough(window, QStringLiteral("tips"), blockSweep_).startsWith("("));
    SweepChart* chart = window.sweepChart();
    chart->setView(SweepChart::View::Roofline);
    QTRY_COMPARE_WITH_TIMEOUT(chart->rooflines().size(), 1, kGenerousMs);
    QCustomPlot* plot = chart->plot();
    plot->resize(900, 600);
    sweepplot::layOut(plot, plot->size());
    plot->replot();
    // The key to the two marks, in the legend.
    QStringList names;
    for (int i = 0; i < plot->legend->itemCount(); ++i) {
        if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot->legend->item(i))) {
            names << item->plottable()->name();
        }
    }
    QVERIFY2(
        names.contains(QStringLiteral("kernel against device memory (flop per DRAM byte)")) &&
            names.contains(QStringLiteral("whole run against the host link (copies included)")),
        qPrintable(names.join(QLatin1Char('|'))));
    // A sweep's many runs: coloured and named by strategy.
    QVERIFY(names.contains(QStringLiteral("slice-2d")));
    QVERIFY(names.contains(QStringLiteral("elementwise-broadcast")));
    // Each mark's words under the mouse: the run and its figures; none away from the marks.
    const models::RooflineMark& mark = chart->rooflines().front().marks.front();
    const QPointF at(plot->xAxis->coordToPixel(mark.roof.wholeRun.intensity),
                     plot->yAxis->coordToPixel(mark.roof.wholeRun.achievedGflops));
    const QString tip = sweepplot::pointTip(plot, at + QPointF(2, -2));
    // Runs of one problem stack their whole-run marks: the words name one of those under it.
    const auto& marks = chart->rooflines().front().marks;
    const bool namesOneThere = std::any_of(marks.begin(), marks.end(), [&](const auto& m) {
        const QPointF p(plot->xAxis->coordToPixel(m.roof.wholeRun.intensity),
                        plot->yAxis->coordToPixel(m.roof.wholeRun.achievedGflops));
        return QLineF(p, at).length() <= sweepplot::kTipRadiusPx &&
               tip.startsWith(m.runId + QStringLiteral(" (modelled): whole run against the "));
    });
    QVERIFY2(namesOneThere && tip.contains(QStringLiteral("Gflop/s achieved of ")),
             qPrintable(tip));
    QVERIFY(sweepplot::pointTip(plot, QPointF(2, 2)).isEmpty());
    // The window shows it as a tooltip when the mouse moves there.
    QMouseEvent move(QEvent::MouseMove, at, plot->mapToGlobal(at), Qt::NoButton, Qt::NoButton,
                     Qt::NoModifier);
    QApplication::sendEvent(plot, &move);
    QTRY_VERIFY_WITH_TIMEOUT(QToolTip::isVisible(), 5'000);
    QCOMPARE(QToolTip::text(), sweepplot::pointTip(plot, at));
}

void TestSweepPanel::crossingsWithinNoiseAreDrawnDotted() {
    // The shipped block sweep, whose lines cross several times: each crossover a dashed line with
    // its label, each crossing within noise a dotted one, keyed once in the legend; the notes
    // are the verdict.
    LoadResult loaded = TraceLoader::loadNow(
        QStringLiteral(SLICESCOPE_SAMPLES_DIR "/sweep-block-32-1024-counters.json"),
        RunOrigin::Sample);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error));
    const auto sweeps = collectSweeps(loaded.runs);
    QCOMPARE(sweeps.size(), 1);
    const SweepView& sweep = sweeps.front();
    QVERIFY(!sweep.withinNoise.empty());
    QCustomPlot plot;
    sweepplot::setUp(&plot);
    sweepplot::reset(&plot);
    QCOMPARE(sweepplot::drawTime(&plot, sweep), sweep.verdict);
    int dotted = 0, dashed = 0, labels = 0;
    for (int i = 0; i < plot.itemCount(); ++i) {
        if (auto* line = qobject_cast<QCPItemStraightLine*>(plot.item(i))) {
            dotted += line->pen().style() == Qt::DotLine ? 1 : 0;
            dashed += line->pen().style() == Qt::DashLine ? 1 : 0;
        }
        labels += qobject_cast<QCPItemText*>(plot.item(i)) ? 1 : 0;
    }
    QCOMPARE(dotted, int(sweep.withinNoise.size()));
    QCOMPARE(dashed, int(sweep.crossovers.size()));
    QCOMPARE(labels, int(sweep.crossovers.size()));
    int keys = 0;
    for (int i = 0; i < plot.graphCount(); ++i) {
        keys += plot.graph(i)->name() == QStringLiteral("lines cross within noise") ? 1 : 0;
    }
    QCOMPARE(keys, 1);
}

void TestSweepPanel::logTimeAxesLabelEveryFewFold() {
    // A log time axis of a few decades or less was labelled at too few places: at its powers of
    // ten only (nothing between 1 and 10 ms), or, thinned in a short plot, at one linear tick
    // ("2" alone for 0.7 to 3 ms). At the window's size and a small one, at least three labels
    // and, within three decades, none more than five-fold from the next.
    const QList<QCPRange> ranges = {{0.7, 3.0},    {0.62, 3.2},   {2.04, 5.82}, {0.3, 30},
                                    {0.2, 2342.6}, {1.7, 235435}, {0.012, 0.9}, {40, 90}};
    for (const QCPRange& range : ranges) {
        for (const QSize size : {QSize(900, 560), QSize(480, 320), QSize(360, 220)}) {
            QCustomPlot plot;
            sweepplot::setUp(&plot);
            sweepplot::reset(&plot);
            sweepplot::useLogAxis(plot.yAxis);
            plot.yAxis->setRange(range);
            sweepplot::layOut(&plot, size);
            QVector<double> labelled;
            const QVector<double> ticks = plot.yAxis->tickVector();
            const QVector<QString> labels = plot.yAxis->tickVectorLabels();
            for (int i = 0; i < ticks.size(); ++i) {
                if (range.contains(ticks[i]) && !labels.value(i).isEmpty()) {
                    labelled << ticks[i];
                }
            }
            const QString where =
                QStringLiteral("%1..%2 at %3x%4: labels at %5")
                    .arg(range.lower)
                    .arg(range.upper)
                    .arg(size.width())
                    .arg(size.height())
                    .arg(QStringList(labels.begin(), labels.end()).join(QStringLiteral(" ")));
            QVERIFY2(labelled.size() >= 3, qPrintable(where));
            if (std::log10(range.upper / range.lower) <= 3) {
                for (int i = 1; i < labelled.size(); ++i) {
                    QVERIFY2(labelled[i] / labelled[i - 1] <= 5.01, qPrintable(where));
                }
            }
        }
    }
}

QTEST_MAIN(TestSweepPanel)
#include "tst_sweeppanel.moc"
