// The device chooser's model, from `slicescope-cli devices --json` (the real CLI and fixed text).
#include "models/devicelistmodel.h"
#include "testhelpers.h"

#include <QAbstractItemModelTester>
#include <QTest>

using namespace slicescope::models;

class TestDeviceListModel : public QObject {
    Q_OBJECT
  private slots:
    void readsTheRealCli();
    void detectedFirstPresetsMarkedModelled();
    void malformedJsonEmptiesTheList();
};

void TestDeviceListModel::readsTheRealCli() {
    QByteArray out;
    QCOMPARE(testhelpers::runCli({QStringLiteral("devices"), QStringLiteral("--json")}, &out), 0);
    DeviceListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QString error;
    QVERIFY2(model.setFromJson(out, &error), qPrintable(error));
    for (int row = 0; row < model.rowCount(); ++row) {
        const DeviceChoice& d = model.at(row);
        QVERIFY(!d.name.isEmpty());
        if (d.kind == DeviceChoice::Kind::Preset) {
            QVERIFY(model.index(row).data().toString().endsWith(QStringLiteral("(modelled)")));
            QCOMPARE(model.rowOfKey(DeviceListModel::keyOf(d)), row);
        }
    }
    if (model.detectedCount() == 0) {
        QVERIFY(!model.noDevicesReason().isEmpty() || !model.cudaBackendBuilt());
    }
}

void TestDeviceListModel::detectedFirstPresetsMarkedModelled() {
    const QByteArray json = R"({"cuda_backend": true,
        "devices": [{"index": 0, "name": "NVIDIA H200", "compute_capability": "9.0", "sm_count": 132}],
        "no_devices_reason": "",
        "presets": [{"id": "gtx-970", "name": "NVIDIA GeForce GTX 970", "compute_capability": "5.2",
                     "sm_count": 13, "runnable_with_cuda13": false},
                    {"id": "h200", "name": "NVIDIA H200", "compute_capability": "9.0", "sm_count": 132,
                     "runnable_with_cuda13": true}]})";
    DeviceListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(model.setFromJson(json));
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.detectedCount(), 1);
    QCOMPARE(model.at(0).kind, DeviceChoice::Kind::Detected);
    QCOMPARE(model.index(0).data().toString(), QStringLiteral("NVIDIA H200 (GPU 0, measured)"));
    QCOMPARE(model.index(1).data().toString(), QStringLiteral("NVIDIA GeForce GTX 970 (modelled)"));
    QVERIFY(model.at(1).modelOnly);
    QVERIFY(model.index(1)
                .data(Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("CUDA 13 cannot run")));
    QCOMPARE(model.rowOfKey(QStringLiteral("preset:h200")), 2);
    QCOMPARE(model.rowOfKey(QStringLiteral("gpu:0")), 0);
    QCOMPARE(model.rowOfKey(QStringLiteral("preset:nope")), -1);
}

void TestDeviceListModel::malformedJsonEmptiesTheList() {
    DeviceListModel model;
    QVERIFY(model.setFromJson(R"({"presets": [{"id": "h200", "name": "H200"}]})"));
    QCOMPARE(model.rowCount(), 1);
    QString error;
    QVERIFY(!model.setFromJson("slicescope-cli: error: oops", &error));
    QVERIFY(error.contains(QStringLiteral("not JSON")));
    QCOMPARE(model.rowCount(), 0);
}

QTEST_GUILESS_MAIN(TestDeviceListModel)
#include "tst_devicelistmodel.moc"
