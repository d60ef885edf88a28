// The Target box (gui/targetbox.h) in the Launch panel and the Record dialog: the hosts of an ssh
// configuration, recent hosts across starts, and the device list refreshed from the chosen host
// through a real OpenSSH server on 127.0.0.1 (tests/remote/sshd-fixture.sh).
#include "gui/recorddialog.h"
#include "gui/runsetupwidget.h"
#include "gui/targetbox.h"
#include "models/devicelistmodel.h"
#include "models/sessioncontroller.h"
#include "models/strategylistmodel.h"

#include <QFile>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace slicescope;
using gui::TargetBox;

namespace {

constexpr int kGenerousMs = 60000;

QStringList itemsOf(const TargetBox& box) {
    QStringList items;
    for (int i = 0; i < box.count(); ++i) {
        items << box.itemText(i);
    }
    return items;
}

QString fixtureScript() {
    return QStringLiteral(SLICESCOPE_TEST_DATA_DIR "/../remote/sshd-fixture.sh");
}

} // namespace

class TestTargetBox : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void cleanupTestCase();
    void listsTheHostsOfTheSshConfig();
    void recentHostsAreRememberedAcrossStarts();
    void refusesWhatIsNotAHost();
    void choosingAHostRefreshesTheDevicesFromIt();
    void anUnknownHostKeyIsSaidInPlainWords();
    void recordDialogOffersTheSameTarget();

  private:
    QTemporaryDir dir_;
    QString sshd_; // the fixture's directory
};

void TestTargetBox::initTestCase() {
    QVERIFY(dir_.isValid());
    // The user's own ~/.ssh is never read: HOME is a throwaway folder.
    qputenv("HOME", dir_.filePath(QStringLiteral("home")).toUtf8());
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope,
                       dir_.filePath(QStringLiteral("settings")));
    sshd_ = dir_.filePath(QStringLiteral("sshd"));
    QProcess fixture;
    fixture.start(QStringLiteral("sh"), {fixtureScript(), QStringLiteral("start"), sshd_});
    QVERIFY(fixture.waitForFinished(kGenerousMs));
    QVERIFY2(fixture.exitCode() == 0, fixture.readAllStandardError().constData());
    qputenv("SLICESCOPE_SSH", QStringLiteral("ssh -F %1/ssh_config").arg(sshd_).toUtf8());
    // The remote slicescope-cli: this build's, behind a script that logs each call, so a test can
    // see that the device list came through the host.
    const QString remoteCli = dir_.filePath(QStringLiteral("remote-cli"));
    QFile script(remoteCli);
    QVERIFY(script.open(QIODevice::WriteOnly));
    const QByteArray calls = dir_.filePath(QStringLiteral("calls")).toUtf8();
    script.write(QByteArray("#!/bin/sh\necho \"$*\" >>'") + calls +
                 QByteArray("'\nexec '" SLICESCOPE_CLI_PATH "' \"$@\"\n"));
    script.close();
    script.setPermissions(script.permissions() | QFileDevice::ExeOwner);
    qputenv("SLICESCOPE_REMOTE_CLI", remoteCli.toUtf8());
    qputenv("SLICESCOPE_CLI", SLICESCOPE_CLI_PATH);
}

void TestTargetBox::cleanupTestCase() {
    QProcess::execute(QStringLiteral("sh"), {fixtureScript(), QStringLiteral("stop"), sshd_});
}

void TestTargetBox::listsTheHostsOfTheSshConfig() {
    const QString config = dir_.filePath(QStringLiteral("config"));
    QFile file(config);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("Host gpu-box lab\n  HostName 10.0.0.7\nHost *\n  User me\nhost=cluster\n"
               "Host *.lab.org !bad\n");
    file.close();
    TargetBox box;
    box.setSshConfigPath(config);
    QCOMPARE(itemsOf(box), (QStringList{QStringLiteral("This machine"), QStringLiteral("gpu-box"),
                                        QStringLiteral("lab"), QStringLiteral("cluster"),
                                        TargetBox::addHostText()}));
    QCOMPARE(box.host(), QString());
    // The fixture's own config names its aliases too.
    box.setSshConfigPath(sshd_ + QStringLiteral("/ssh_config"));
    QVERIFY(box.configHosts().contains(QStringLiteral("slicescope-test")));
    QVERIFY(box.configHosts().contains(QStringLiteral("slicescope-unknown")));
}

void TestTargetBox::recentHostsAreRememberedAcrossStarts() {
    {
        TargetBox box;
        QVERIFY(box.setHost(QStringLiteral("me@gpu-a:2222")));
        QVERIFY(box.setHost(QStringLiteral("gpu-b")));
        QCOMPARE(box.host(), QStringLiteral("gpu-b"));
        QSettings settings;
        box.saveSettings(settings);
    }
    TargetBox box;
    QSettings settings;
    box.restoreSettings(settings);
    QCOMPARE(box.recentHosts(),
             (QStringList{QStringLiteral("gpu-b"), QStringLiteral("me@gpu-a:2222")}));
    QVERIFY(itemsOf(box).contains(QStringLiteral("me@gpu-a:2222")));
    // A start never connects on its own: the choice is this machine again.
    QCOMPARE(box.host(), QString());
}

void TestTargetBox::refusesWhatIsNotAHost() {
    TargetBox box;
    for (const char* bad : {"-oProxyCommand=touch x", "a b", "host;id", "$(id)"}) {
        QVERIFY2(!box.setHost(QString::fromUtf8(bad)), bad);
    }
    QVERIFY(box.recentHosts().isEmpty());
    QCOMPARE(box.host(), QString());
}

void TestTargetBox::choosingAHostRefreshesTheDevicesFromIt() {
    models::StrategyListModel strategies;
    models::SessionController controller(dir_.filePath(QStringLiteral("session.json")));
    gui::RunSetupWidget panel(&strategies, controller.devices());
    QObject::connect(&panel, &gui::RunSetupWidget::targetChanged, &controller,
                     [&controller](const QString& host) { controller.queryDevices(host); });
    auto* box = panel.targetBox();
    box->setSshConfigPath(sshd_ + QStringLiteral("/ssh_config"));
    QFile::remove(dir_.filePath(QStringLiteral("calls")));
    QSignalSpy listed(&controller, &models::SessionController::devicesListed);
    const int row = box->findText(QStringLiteral("slicescope-test"));
    QVERIFY(row > 0);
    box->setCurrentIndex(row);
    emit box->activated(row); // what a user's click does
    QVERIFY(listed.wait(kGenerousMs));
    QCOMPARE(listed.at(0).at(0).toString(), QString());
    QCOMPARE(controller.deviceHost(), QStringLiteral("slicescope-test"));
    QVERIFY(controller.devices()->rowCount() > 0); // the presets, at least
    QFile calls(dir_.filePath(QStringLiteral("calls")));
    QVERIFY(calls.open(QIODevice::ReadOnly));
    const QByteArray log = calls.readAll();
    QVERIFY2(log.contains("--version --json") && log.contains("devices --json"), log.constData());
    // The runs go there too.
    QCOMPARE(panel.config().host, QStringLiteral("slicescope-test"));
    QCOMPARE(box->recentHosts().value(0), QStringLiteral("slicescope-test"));
}

void TestTargetBox::anUnknownHostKeyIsSaidInPlainWords() {
    models::SessionController controller(dir_.filePath(QStringLiteral("session2.json")));
    QSignalSpy listed(&controller, &models::SessionController::devicesListed);
    controller.queryDevices(QStringLiteral("slicescope-unknown"));
    QVERIFY(listed.wait(kGenerousMs));
    const QString error = listed.at(0).at(0).toString();
    QVERIFY2(error.contains(QStringLiteral("host key of slicescope-unknown is not known")),
             qPrintable(error));
    QVERIFY2(error.contains(QStringLiteral("Host key verification failed")), qPrintable(error));
    QCOMPARE(controller.devices()->rowCount(), 0);
}

void TestTargetBox::recordDialogOffersTheSameTarget() {
    gui::RecordDialog dialog;
    dialog.setTarget({QStringLiteral("gpu-b"), QStringLiteral("gpu-a")}, QStringLiteral("gpu-a"));
    auto* box = dialog.findChild<TargetBox*>(QStringLiteral("recordTarget"));
    QVERIFY(box);
    QVERIFY(itemsOf(*box).contains(QStringLiteral("gpu-b")));
    models::RecordConfig config;
    config.program = QStringLiteral("/opt/on-the-host-only/program");
    dialog.setConfig(config);
    // A program that exists only there is not refused here.
    QVERIFY2(dialog.problem().isEmpty(), qPrintable(dialog.problem()));
    QCOMPARE(dialog.config().host, QStringLiteral("gpu-a"));
    dialog.setTarget({}, QString());
    QVERIFY(!dialog.problem().isEmpty()); // on this machine it does not exist
}

QTEST_MAIN(TestTargetBox)
#include "tst_targetbox.moc"
