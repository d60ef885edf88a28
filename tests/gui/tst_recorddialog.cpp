// "Record program…": the dialog's fields make the RecordConfig, and "Record" stays disabled with
// the reason shown until they make a command that can run.
#include "gui/recorddialog.h"
#include "testhelpers.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTest>

using namespace slicescope::gui;
using namespace slicescope::models;

class TestRecordDialog : public QObject {
    Q_OBJECT
  private slots:
    void fieldsMakeTheConfig();
    void recordIsDisabledUntilTheFieldsCanRun();
    void setConfigRoundTrips();

  private:
    static QPushButton* recordButton(RecordDialog& d) {
        return d.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
    }
};

void TestRecordDialog::fieldsMakeTheConfig() {
    QTemporaryDir dir;
    RecordDialog d;
    d.findChild<QLineEdit*>(QStringLiteral("recordProgram"))->setText(QStringLiteral("sh"));
    d.findChild<QLineEdit*>(QStringLiteral("recordArguments"))
        ->setText(QStringLiteral(R"(-c "echo two words" last)"));
    d.findChild<QLineEdit*>(QStringLiteral("recordWorkingDirectory"))->setText(dir.path());
    d.findChild<QPlainTextEdit*>(QStringLiteral("recordEnvironment"))
        ->setPlainText(QStringLiteral("A=1\nPYTHONPATH=/tmp/fix\n"));
    d.findChild<QCheckBox*>(QStringLiteral("recordCounters"))->setChecked(true);
    QVERIFY2(d.problem().isEmpty(), qPrintable(d.problem()));
    QVERIFY(recordButton(d)->isEnabled());
    const RecordConfig c = d.config();
    QCOMPARE(c.program, QStringLiteral("sh"));
    QCOMPARE(c.arguments, (QStringList{QStringLiteral("-c"), QStringLiteral("echo two words"),
                                       QStringLiteral("last")}));
    QCOMPARE(c.workingDirectory, dir.path());
    QCOMPARE(c.environment,
             (QStringList{QStringLiteral("A=1"), QStringLiteral("PYTHONPATH=/tmp/fix")}));
    QVERIFY(c.counters);
}

void TestRecordDialog::recordIsDisabledUntilTheFieldsCanRun() {
    RecordDialog d;
    auto* program = d.findChild<QLineEdit*>(QStringLiteral("recordProgram"));
    auto* problem = d.findChild<QLabel*>(QStringLiteral("recordProblem"));
    QVERIFY(!recordButton(d)->isEnabled());
    QVERIFY(problem->text().contains(QStringLiteral("program")));
    program->setText(QStringLiteral("slicescope-no-such-program"));
    QVERIFY(!recordButton(d)->isEnabled());
    QVERIFY(d.problem().contains(QStringLiteral("not a program on the PATH")));
    program->setText(QStringLiteral("/nonexistent/prog"));
    QVERIFY(d.problem().contains(QStringLiteral("does not exist")));
    program->setText(QStringLiteral("sh"));
    QVERIFY(recordButton(d)->isEnabled());
    d.findChild<QPlainTextEdit*>(QStringLiteral("recordEnvironment"))
        ->setPlainText(QStringLiteral("NOVALUE"));
    QVERIFY(!recordButton(d)->isEnabled());
    QVERIFY(d.problem().contains(QStringLiteral("NOVALUE")));
    d.findChild<QPlainTextEdit*>(QStringLiteral("recordEnvironment"))->clear();
    d.findChild<QLineEdit*>(QStringLiteral("recordWorkingDirectory"))
        ->setText(QStringLiteral("/nonexistent/dir"));
    QVERIFY(!recordButton(d)->isEnabled());
    QVERIFY(d.problem().contains(QStringLiteral("working directory")));
}

void TestRecordDialog::setConfigRoundTrips() {
    RecordConfig c;
    c.program = QStringLiteral("sh");
    c.arguments = {QStringLiteral("-c"), QStringLiteral(R"(echo "quoted" and 'single')"),
                   QStringLiteral("x")};
    c.environment = {QStringLiteral("X=1")};
    c.counters = true;
    RecordDialog d;
    d.setConfig(c);
    const RecordConfig back = d.config();
    QCOMPARE(back.program, c.program);
    QCOMPARE(back.arguments, c.arguments);
    QCOMPARE(back.environment, c.environment);
    QCOMPARE(back.counters, true);
}

QTEST_MAIN(TestRecordDialog)
#include "tst_recorddialog.moc"
