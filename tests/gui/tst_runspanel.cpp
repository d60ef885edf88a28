// The Runs panel keeps the shipped samples apart from the user's runs: one box hides them all
// from the table and the timeline, new samples follow the choice, and the next start remembers it.
#include "gui/runspanel.h"
#include "models/runentry.h"
#include "models/session.h"
#include "models/viewstate.h"
#include "testhelpers.h"

#include <QCheckBox>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace slicescope;
using namespace slicescope::models;
using slicescope::gui::RunsPanel;

namespace {

RunEntryPtr run(const char* id, RunOrigin origin) {
    return makeRunEntry(testhelpers::gpuShapedRun(id, trace::RunMode::MeasuredGpu), origin);
}

} // namespace

class TestRunsPanel : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void samplesHideAtOnceAndStayHidden();

  private:
    QTemporaryDir dir_;
};

void TestRunsPanel::initTestCase() {
    QVERIFY(dir_.isValid());
    qputenv("XDG_CONFIG_HOME", dir_.filePath(QStringLiteral("config")).toLocal8Bit());
}

void TestRunsPanel::samplesHideAtOnceAndStayHidden() {
    Session session;
    ViewState state;
    {
        RunsPanel panel(&session, &state);
        QCheckBox* box = panel.samplesChoice();
        QVERIFY(box->isHidden()); // no sample yet: nothing to choose
        session.addRuns({run("seed", RunOrigin::Sample), run("mine", RunOrigin::Opened)});
        QVERIFY(!box->isHidden());
        QVERIFY(box->isChecked());
        QCOMPARE(panel.table()->model()->rowCount(), 2);

        box->setChecked(false);
        QCOMPARE(panel.table()->model()->rowCount(), 1);
        QCOMPARE(panel.table()->model()->index(0, 0).data().toString(), QStringLiteral("mine"));
        QVERIFY(!session.at(0)->visible); // off the timeline and the charts too
        QVERIFY(session.at(1)->visible);
        session.addRuns({run("block-sweep", RunOrigin::Sample)});
        QVERIFY(!session.at(2)->visible);
        QCOMPARE(panel.table()->model()->rowCount(), 1);
    }
    // The next start remembers: samples it opens stay hidden until the box is ticked.
    Session next;
    RunsPanel again(&next, &state);
    QVERIFY(!again.samplesChoice()->isChecked());
    next.addRuns({run("seed", RunOrigin::Sample)});
    QVERIFY(!next.at(0)->visible);
    again.samplesChoice()->setChecked(true);
    QVERIFY(next.at(0)->visible);
    QCOMPARE(again.table()->model()->rowCount(), 1);
}

QTEST_MAIN(TestRunsPanel)
#include "tst_runspanel.moc"
