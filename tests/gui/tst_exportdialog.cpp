// The Export image dialog: it comes back with the last export's preset, size, DPI and views.
#include "gui/exportimagedialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

using namespace slicescope::gui;

class TestExportDialog : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void firstOpeningOffersHd();
    void remembersThePresetAndViews();
    void remembersACustomSize();

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

QTEST_MAIN(TestExportDialog)
#include "tst_exportdialog.moc"
