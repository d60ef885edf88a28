// The run panel: live problem figures, the request it builds, and its settings across starts.
#include "gui/runsetupwidget.h"
#include "gui/wheelguard.h"
#include "models/devicelistmodel.h"
#include "models/strategylistmodel.h"

#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QWheelEvent>

using namespace slicescope::models;
using slicescope::gui::RunSetupWidget;

namespace {

const QByteArray kDevices =
    R"({"cuda_backend": false, "devices": [], "no_devices_reason": "no driver",
    "presets": [{"id": "h200", "name": "NVIDIA H200", "compute_capability": "9.0", "sm_count": 132},
                {"id": "t4", "name": "Tesla T4", "compute_capability": "7.5", "sm_count": 40}]})";

} // namespace

class TestRunSetupWidget : public QObject {
    Q_OBJECT
  private slots:
    void problemFiguresFollowTheInputs();
    void configCarriesEveryOption();
    void settingsRoundTrip();
    void deviceChosenBeforeTheListArrives();
    void wheelChangesOnlyTheFocusedSetting();
    void buttonsAskForARunAndItsCancel();
};

void TestRunSetupWidget::problemFiguresFollowTheInputs() {
    StrategyListModel strategies;
    DeviceListModel devices;
    RunSetupWidget panel(&strategies, &devices);
    // The seed's problem: 2,000,000 elements; discount and cv 16 MB each, multBy 160 KB.
    QVERIFY(panel.problemSummary().contains(QStringLiteral("2,000,000")));
    QVERIFY(panel.problemSummary().contains(QStringLiteral("30.7 MiB")));
    QVERIFY(panel.problemSummary().contains(QStringLiteral("0.0622")));
    panel.findChild<QSpinBox*>(QStringLiteral("shapeR"))->setValue(200);
    QVERIFY(panel.problemSummary().contains(QStringLiteral("4,000,000")));
    auto* dtype = panel.findChild<QComboBox*>(QStringLiteral("dtype"));
    dtype->setCurrentIndex(dtype->findData(QStringLiteral("f32")));
    QVERIFY(panel.problemSummary().contains(
        QStringLiteral("30.6 MiB"))); // twice the elements, half the bytes each (multBy shrinks)
    panel.findChild<QSpinBox*>(QStringLiteral("work"))->setValue(100);
    QVERIFY2(panel.problemSummary().contains(QStringLiteral("<b>24.8</b> flop/byte")),
             qPrintable(panel.problemSummary()));
}

void TestRunSetupWidget::configCarriesEveryOption() {
    StrategyListModel strategies;
    DeviceListModel devices;
    QVERIFY(devices.setFromJson(kDevices));
    RunSetupWidget panel(&strategies, &devices);
    RunConfig wanted;
    wanted.r = 7;
    wanted.c = 8;
    wanted.n = 9;
    wanted.dtype = QStringLiteral("f32");
    wanted.work = 3;
    wanted.strategies = {QStringLiteral("slice-2d"), QStringLiteral("cpu-parallel")};
    wanted.block = QStringLiteral("128");
    wanted.memory = QStringLiteral("pinned");
    wanted.repeat = 4;
    wanted.warmup = 2;
    wanted.chunks = 8;
    wanted.streams = 4;
    wanted.counters = true;
    wanted.sampleOccupancy = true;
    wanted.device = devices.at(1);
    panel.setConfig(wanted);
    const RunConfig got = panel.config();
    QCOMPARE(got.r, wanted.r);
    QCOMPARE(got.c, wanted.c);
    QCOMPARE(got.n, wanted.n);
    QCOMPARE(got.dtype, wanted.dtype);
    QCOMPARE(got.work, wanted.work);
    QCOMPARE(got.strategies, wanted.strategies);
    QCOMPARE(got.block, wanted.block);
    QCOMPARE(got.memory, wanted.memory);
    QCOMPARE(got.repeat, wanted.repeat);
    QCOMPARE(got.warmup, 2);
    QCOMPARE(got.chunks, 8);
    QCOMPARE(got.streams, 4);
    // The pipeline is explained where it is set.
    auto* chunks = panel.findChild<QSpinBox*>(QStringLiteral("chunks"));
    QVERIFY(chunks != nullptr);
    QVERIFY(chunks->toolTip().contains(QStringLiteral("at the same time")));
    QVERIFY(panel.findChild<QSpinBox*>(QStringLiteral("streams")) != nullptr);
    QCOMPARE(got.counters, true);
    QCOMPARE(got.sampleOccupancy, true);
    QVERIFY(got.device == wanted.device);
    wanted.block = QStringLiteral("numba-cuda");
    panel.setConfig(wanted);
    QCOMPARE(panel.config().block, QStringLiteral("numba-cuda"));
}

void TestRunSetupWidget::settingsRoundTrip() {
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("settings.ini"));
    StrategyListModel strategies;
    DeviceListModel devices;
    QVERIFY(devices.setFromJson(kDevices));
    {
        RunSetupWidget panel(&strategies, &devices);
        QSettings fresh(file, QSettings::IniFormat);
        panel.restoreSettings(fresh); // nothing saved yet: the seed's story is ticked
        QVERIFY(strategies.checkedNames().contains(QStringLiteral("one-worker")));
        QVERIFY(strategies.checkedNames().contains(QStringLiteral("cpu-serial")));
        RunConfig c = panel.config();
        QCOMPARE(c.warmup, 1); // the Launch box's default
        c.warmup = 0;
        c.r = 11;
        c.work = 5;
        c.strategies = {QStringLiteral("slice-outer")};
        c.device = devices.at(1);
        panel.setConfig(c);
        QSettings settings(file, QSettings::IniFormat);
        panel.saveSettings(settings);
    }
    StrategyListModel strategies2;
    RunSetupWidget again(&strategies2, &devices);
    QSettings settings(file, QSettings::IniFormat);
    again.restoreSettings(settings);
    QCOMPARE(again.config().r, quint64(11));
    QCOMPARE(again.config().work, 5);
    QCOMPARE(again.config().warmup, 0);
    QCOMPARE(again.config().strategies, QStringList{QStringLiteral("slice-outer")});
    QCOMPARE(again.config().device.presetId, QStringLiteral("t4"));
}

void TestRunSetupWidget::deviceChosenBeforeTheListArrives() {
    StrategyListModel strategies;
    DeviceListModel devices;
    RunSetupWidget panel(&strategies, &devices);
    QVERIFY(!panel.selectDevice(QStringLiteral("t4"))); // no list yet: remembered
    QVERIFY(panel.config().device.kind == DeviceChoice::Kind::None);
    QVERIFY(devices.setFromJson(kDevices));
    QCOMPARE(panel.config().device.presetId, QStringLiteral("t4"));
}

// The Run and Cancel buttons are what a mouse user presses: each click asks once.
void TestRunSetupWidget::buttonsAskForARunAndItsCancel() {
    StrategyListModel strategies;
    DeviceListModel devices;
    QVERIFY(devices.setFromJson(kDevices));
    RunSetupWidget panel(&strategies, &devices);
    auto* run = panel.findChild<QPushButton*>(QStringLiteral("runButton"));
    auto* cancel = panel.findChild<QPushButton*>(QStringLiteral("cancelButton"));
    QVERIFY(run && cancel);
    QSignalSpy runs(&panel, &RunSetupWidget::runRequested);
    QSignalSpy cancels(&panel, &RunSetupWidget::cancelRequested);
    run->click();
    QCOMPARE(runs.count(), 1);
    cancel->setEnabled(true);
    cancel->click();
    QCOMPARE(cancels.count(), 1);
    QCOMPARE(runs.count(), 1);
}

namespace {

// One notch of the wheel, down, over the middle of widget.
void wheelDown(QWidget* widget) {
    const QPointF at(widget->width() / 2.0, widget->height() / 2.0);
    QWheelEvent event(at, widget->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(widget, &event);
}

} // namespace

// Scrolling the panel with the wheel scrolls it: the settings under the pointer change only when
// they have the keyboard focus.
void TestRunSetupWidget::wheelChangesOnlyTheFocusedSetting() {
    slicescope::gui::WheelGuard::installOnApplication();
    StrategyListModel strategies;
    DeviceListModel devices;
    QVERIFY(devices.setFromJson(kDevices));
    QScrollArea scroll;
    auto* panel = new RunSetupWidget(&strategies, &devices);
    scroll.setWidget(panel);
    scroll.setWidgetResizable(true);
    scroll.resize(360, 300); // shorter than the panel: it scrolls
    scroll.show();
    QVERIFY(QTest::qWaitForWindowExposed(&scroll));
    auto* block = panel->findChild<QSpinBox*>(QStringLiteral("blockThreads"));
    auto* memory = panel->findChild<QComboBox*>(QStringLiteral("memory"));
    QVERIFY(block && memory);
    block->setEnabled(true);
    // The wheel does not give them focus, and over them unfocused it scrolls the panel.
    QCOMPARE(block->focusPolicy(), Qt::StrongFocus);
    QCOMPARE(memory->focusPolicy(), Qt::StrongFocus);
    const int threads = block->value();
    const int memoryIndex = memory->currentIndex();
    QScrollBar* bar = scroll.verticalScrollBar();
    QVERIFY(bar->maximum() > 0);
    int scrolled = bar->value();
    for (QWidget* setting : {static_cast<QWidget*>(block), static_cast<QWidget*>(memory)}) {
        wheelDown(setting);
        QVERIFY2(bar->value() > scrolled, setting->objectName().toUtf8());
        scrolled = bar->value();
        bar->setValue(0);
        scrolled = 0;
    }
    QCOMPARE(block->value(), threads);
    QCOMPARE(memory->currentIndex(), memoryIndex);
    // Focused, the wheel steps the value as ever.
    scroll.activateWindow();
    block->setFocus();
    QTRY_VERIFY(block->hasFocus());
    wheelDown(block);
    QCOMPARE(block->value(), threads - block->singleStep());
}

QTEST_MAIN(TestRunSetupWidget)
#include "tst_runsetupwidget.moc"
