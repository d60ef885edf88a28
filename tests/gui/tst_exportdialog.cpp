// The Export image dialog: it comes back with the last export's preset, size, DPI and views, and
// offers the session's runs to draw.
#include "gui/exportimagedialog.h"
#include "gui/reportrenderer.h"
#include "models/session.h"
#include "models/viewstate.h"
#include "testhelpers.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QListView>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

using namespace slicescope;
using namespace slicescope::gui;

class TestExportDialog : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void firstOpeningOffersHd();
    void remembersThePresetAndViews();
    void remembersACustomSize();
    void runsStartAsTheWindowShowsThem();
    void chosenRunsAreDrawnAloneAndTheWindowKeepsItsOwn();

  private:
    QString fresh(const QString& name) const { return dir_.filePath(name); }
    QTemporaryDir dir_;
};

void TestExportDialog::initTestCase() {
    QVERIFY(dir_.isValid());
    // QSettings reads its folder on first use: this test's settings live and die with dir_.
    qputenv("XDG_CONFIG_HOME", dir_.filePath(QStringLiteral("config")).toLocal8Bit());
}

void TestExportDialog::firstOpeningOffersHd() {
    ExportImageDialog dialog(fresh(QStringLiteral("first.png")));
    QCOMPARE(dialog.presetChoice()->currentData().toString(), QStringLiteral("hd"));
    QCOMPARE(dialog.sizePx(), QSize(1920, 1080));
}

void TestExportDialog::remembersThePresetAndViews() {
    {
        ExportImageDialog dialog(fresh(QStringLiteral("a.png")));
        QComboBox* presets = dialog.presetChoice();
        presets->setCurrentIndex(presets->findData(QStringLiteral("paper")));
        emit presets->activated(presets->currentIndex());
        dialog.viewChoice()->setCurrentIndex(
            dialog.viewChoice()->findData(QStringLiteral("detail")));
        dialog.findChild<QCheckBox*>()->setChecked(true);
        dialog.accept();
        QCOMPARE(dialog.result(), int(QDialog::Accepted));
    }
    ExportImageDialog again(fresh(QStringLiteral("b.png")));
    QCOMPARE(again.presetChoice()->currentData().toString(), QStringLiteral("paper"));
    QCOMPARE(again.sizePx(), QSize(2100, 0));
    QCOMPARE(again.dpi(), 300.0);
    QCOMPARE(again.viewChoice()->currentData().toString(), QStringLiteral("detail"));
    QVERIFY(again.options().breakdownLog);
    QVERIFY(again.options().views.detail);
}

void TestExportDialog::remembersACustomSize() {
    {
        ExportImageDialog dialog(fresh(QStringLiteral("c.png")));
        QComboBox* presets = dialog.presetChoice();
        presets->setCurrentIndex(presets->findData(QString()));
        emit presets->activated(presets->currentIndex());
        const auto boxes = dialog.findChildren<QSpinBox*>();
        QCOMPARE(boxes.size(), 3); // width, height, DPI
        boxes[0]->setValue(1000);
        boxes[1]->setValue(500);
        boxes[2]->setValue(120);
        dialog.accept();
    }
    ExportImageDialog again(fresh(QStringLiteral("d.png")));
    QCOMPARE(again.presetChoice()->currentData().toString(), QString());
    QCOMPARE(again.sizePx(), QSize(1000, 500));
    QCOMPARE(again.dpi(), 120.0);
}

namespace {

// Three GPU runs, the second hidden as the Runs panel's box would.
std::unique_ptr<models::Session> threeRuns() {
    auto session = std::make_unique<models::Session>();
    std::vector<models::RunEntryPtr> entries;
    for (const char* id : {"slice-outer", "slice-middle", "one-worker"}) {
        entries.push_back(models::makeRunEntry(
            testhelpers::gpuShapedRun(id, trace::RunMode::Modelled), models::RunOrigin::Opened));
    }
    session->addRuns(std::move(entries));
    session->setVisible(1, false);
    return session;
}

} // namespace

void TestExportDialog::runsStartAsTheWindowShowsThem() {
    const auto session = threeRuns();
    ExportImageDialog dialog(fresh(QStringLiteral("runs.png")), nullptr, session.get());
    QVERIFY(dialog.runChoice());
    QAbstractItemModel* list = dialog.runChoice()->model();
    QCOMPARE(list->rowCount(), 3);
    const auto check = [list](int row, Qt::CheckState state) {
        QVERIFY(list->setData(list->index(row, 0), state, Qt::CheckStateRole));
    };
    QCOMPARE(dialog.runs(),
             QStringList({QStringLiteral("slice-outer"), QStringLiteral("one-worker")}));
    auto* exportButton = dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
    const auto countSays = [&dialog](const QString& words) {
        for (const QLabel* label : dialog.findChildren<QLabel*>()) {
            if (label->text() == words) {
                return true;
            }
        }
        return false;
    };
    QVERIFY(countSays(QStringLiteral("2 of 3 runs")));
    dialog.findChild<QPushButton*>(QStringLiteral("exportAllRuns"))->click();
    QCOMPARE(dialog.runs().size(), 3);
    QVERIFY(countSays(QStringLiteral("3 of 3 runs")));
    for (int i = 0; i < list->rowCount(); ++i) {
        check(i, Qt::Unchecked);
    }
    QVERIFY(dialog.runs().isEmpty());
    QVERIFY(!exportButton->isEnabled()); // nothing to draw
    check(1, Qt::Checked);
    QVERIFY(exportButton->isEnabled());
    QCOMPARE(dialog.runs(), QStringList{QStringLiteral("slice-middle")});
    QVERIFY(countSays(QStringLiteral("1 of 3 runs")));
    const auto labels = dialog.findChildren<QLabel*>();
    QVERIFY(std::any_of(labels.cbegin(), labels.cend(), [](const QLabel* label) {
        return label->text().contains(QStringLiteral("spans the runs checked"));
    }));

    dialog.findChild<QPushButton*>(QStringLiteral("exportWindowRuns"))->click();
    QCOMPARE(dialog.runs(),
             QStringList({QStringLiteral("slice-outer"), QStringLiteral("one-worker")}));
    // Without a session (the headless export's own options): no run list.
    ExportImageDialog bare(fresh(QStringLiteral("bare.png")));
    QVERIFY(!bare.runChoice());
    QVERIFY(bare.runs().isEmpty());
}

void TestExportDialog::chosenRunsAreDrawnAloneAndTheWindowKeepsItsOwn() {
    // The hidden run and one shown: the export draws what the window would with only those two
    // shown (under the charts, the launch in words of the first GPU run drawn, not of the run
    // selected in the window and not chosen), and the window's session keeps its own visibility.
    const auto session = threeRuns();
    models::ViewState state;
    ReportInputs inputs = reportInputs(*session, state);
    inputs.timeline.timeRange = QCPRange(0, 1e-3);      // the window's zoom, chosen for its runs
    inputs.selectedRun = QStringLiteral("slice-outer"); // selected there, not chosen here
    const QStringList two{QStringLiteral("slice-middle"), QStringLiteral("one-worker")};
    ChosenRuns chosen = chooseRuns(*session, inputs, two);
    QVERIFY(chosen.session);
    QCOMPARE(chosen.inputs.timeline.runs.size(), std::size_t(2));
    QCOMPARE(chosen.inputs.timeline.runs.front()->id, QStringLiteral("slice-middle"));
    QVERIFY(!chosen.inputs.timeline.timeRange); // fitted to the runs drawn
    QVERIFY(!session->at(1)->visible);
    QVERIFY(session->at(0)->visible);

    const QSize size(1280, 720);
    ReportRenderer fromChoice(chosen.session.get(), chosen.inputs);
    const QImage drawn = fromChoice.renderImage(size, 96);
    models::Session& window = *session;
    window.setVisible(0, false);
    window.setVisible(1, true);
    window.setVisible(2, true);
    ReportRenderer asHidden(&window, reportInputs(window, state));
    QCOMPARE(drawn, asHidden.renderImage(size, 96));

    // The window's own runs: nothing copied.
    QVERIFY(!chooseRuns(window, reportInputs(window, state), two).session);
}

QTEST_MAIN(TestExportDialog)
#include "tst_exportdialog.moc"
