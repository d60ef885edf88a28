// The export views' registry: every view it holds is taken by `slicescope --export-image
// --view`, named in `slicescope --help` and offered by the Export image dialog; a name it does
// not hold is refused with the list of names.
#include "gui/exportimagedialog.h"
#include "gui/exportviews.h"
#include "testhelpers.h"

#include <QComboBox>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace slicescope;
using namespace slicescope::gui;

namespace {

const QString kSeed = QStringLiteral(SLICESCOPE_SAMPLES_DIR "/seed-100x4000x5-f64-pageable.json");

struct Finished {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

Finished runGui(const QStringList& arguments) {
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("QT_QPA_PLATFORM")); // the program picks offscreen itself
    process.setProcessEnvironment(env);
    process.start(testhelpers::guiPath(), arguments);
    if (!process.waitForFinished(120'000)) {
        return {};
    }
    return {process.exitCode(), process.readAllStandardOutput(), process.readAllStandardError()};
}

} // namespace

class TestExportViews : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }
    void namesAreUniqueAndFound();
    void everyViewChoosesSomething();
    void everyViewIsTakenByTheCommandLine();
    void everyViewIsInTheHelp();
    void everyViewIsOfferedByTheDialog();
    void anUnknownViewIsRefusedWithTheNames();

  private:
    QTemporaryDir dir_;
};

void TestExportViews::namesAreUniqueAndFound() {
    QStringList seen;
    for (const ExportView& view : exportViews()) {
        QVERIFY2(!seen.contains(view.name), qPrintable(view.name));
        seen << view.name;
        QCOMPARE(findExportView(view.name), &view);
        QCOMPARE(findExportView(QStringLiteral(" ") + view.name.toUpper()), &view);
        QVERIFY(!view.description.isEmpty());
    }
    QCOMPARE(ReportViews::names(), seen);
    QVERIFY(!findExportView(QStringLiteral("pie")));
    QVERIFY(ReportViews::parse(defaultExportViews()));
}

// Each view adds a part to the report: parsed alone, it is not the empty report.
void TestExportViews::everyViewChoosesSomething() {
    for (const ExportView& view : exportViews()) {
        const auto views = ReportViews::parse(view.name);
        QVERIFY2(views, qPrintable(view.name));
        QVERIFY2(views->timeline() || views->breakdown || views->occupancy || views->sweep ||
                     views->roofline || views->sweepsIfAny,
                 qPrintable(view.name));
    }
}

void TestExportViews::everyViewIsTakenByTheCommandLine() {
    for (const ExportView& view : exportViews()) {
        const QString out = dir_.filePath(view.name + QStringLiteral(".png"));
        const Finished done =
            runGui({QStringLiteral("--export-image"), out, kSeed, QStringLiteral("--size"),
                    QStringLiteral("slide"), QStringLiteral("--view"), view.name});
        QVERIFY2(done.exitCode == 0,
                 qPrintable(view.name + QLatin1Char(' ') + QString::fromUtf8(done.err)));
        QVERIFY2(QFileInfo(out).size() > 0, qPrintable(view.name));
    }
}

void TestExportViews::everyViewIsInTheHelp() {
    const Finished done = runGui({QStringLiteral("--help")});
    QCOMPARE(done.exitCode, 0);
    // QCommandLineParser wraps the help: compare it with the line breaks and indents removed.
    const QString help = QString::fromUtf8(done.out).simplified();
    for (const ExportView& view : exportViews()) {
        const QString item = view.name + QStringLiteral(" (") + view.description.left(1).toLower() +
                             view.description.mid(1) + QLatin1Char(')');
        QVERIFY2(help.contains(item), qPrintable(item + QStringLiteral("\n") + help));
    }
}

void TestExportViews::everyViewIsOfferedByTheDialog() {
    ExportImageDialog dialog(dir_.filePath(QStringLiteral("dialog.png")));
    QComboBox* choice = dialog.viewChoice();
    for (const ExportView& view : exportViews()) {
        const int index = choice->findData(view.name);
        QVERIFY2(index >= 0, qPrintable(view.name));
        QCOMPARE(choice->itemText(index), view.description);
        choice->setCurrentIndex(index);
        const ReportViews chosen = dialog.options().views;
        const ReportViews parsed = *ReportViews::parse(view.name);
        QCOMPARE(chosen.overview, parsed.overview);
        QCOMPARE(chosen.detail, parsed.detail);
        QCOMPARE(chosen.breakdown, parsed.breakdown);
        QCOMPARE(chosen.occupancy, parsed.occupancy);
        QCOMPARE(chosen.sweep, parsed.sweep);
        QCOMPARE(chosen.roofline, parsed.roofline);
        QCOMPARE(chosen.sweepsIfAny, parsed.sweepsIfAny);
    }
    // Every choice is a view or a list of views the command line takes.
    for (int i = 0; i < choice->count(); ++i) {
        QVERIFY2(ReportViews::parse(choice->itemData(i).toString()),
                 qPrintable(choice->itemData(i).toString()));
    }
}

void TestExportViews::anUnknownViewIsRefusedWithTheNames() {
    QVERIFY(!ReportViews::parse(QStringLiteral("pie")));
    QVERIFY(!ReportViews::parse(QStringLiteral("overview,pie")));
    const Finished done =
        runGui({QStringLiteral("--export-image"), dir_.filePath(QStringLiteral("pie.png")), kSeed,
                QStringLiteral("--view"), QStringLiteral("overview,pie")});
    QCOMPARE(done.exitCode, 2);
    QVERIFY2(done.err.contains("'overview,pie'"), done.err.constData());
    QVERIFY2(done.err.contains(ReportViews::names().join(QStringLiteral(", ")).toUtf8()),
             done.err.constData());
    QVERIFY(!QFileInfo::exists(dir_.filePath(QStringLiteral("pie.png"))));
}

QTEST_MAIN(TestExportViews)
#include "tst_exportviews.moc"
