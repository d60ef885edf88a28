// Replays the GUI fuzz target's seed corpus (tests/data/fuzz-corpus/guirender/) and its past
// findings (tests/data/fuzz-regressions/guirender/) through checkGuiRenderInput, so the load and
// draw path of every one of them stays clean in the normal suite and under the asan preset.
#include "guirendercheck.h"

#include <QDir>
#include <QFile>
#include <QTest>

class TestFuzzReplayGui : public QObject {
    Q_OBJECT
  private slots:
    void replay_data();
    void replay();
};

void TestFuzzReplayGui::replay_data() {
    QTest::addColumn<QString>("path");
    int seeds = 0;
    for (const char* folder : {"fuzz-corpus", "fuzz-regressions"}) {
        const QDir dir(
            QStringLiteral(SLICESCOPE_TEST_DATA_DIR "/%1/guirender").arg(QLatin1String(folder)));
        for (const QString& name : dir.entryList(QDir::Files, QDir::Name)) {
            QTest::newRow(qPrintable(QLatin1String(folder) + QLatin1Char('/') + name))
                << dir.filePath(name);
            seeds += folder == std::string_view("fuzz-corpus") ? 1 : 0;
        }
    }
    // A wrong data path must not turn the replay into a test of nothing.
    QVERIFY2(seeds > 0, "no seeds under tests/data/fuzz-corpus/guirender");
}

void TestFuzzReplayGui::replay() {
    QFETCH(QString, path);
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray data = file.readAll();
    const std::string failure =
        slicescope::fuzz::checkGuiRenderInput(std::string_view(data.constData(), data.size()));
    QVERIFY2(failure.empty(), failure.c_str());
}

QTEST_MAIN(TestFuzzReplayGui)
#include "tst_fuzzreplaygui.moc"
