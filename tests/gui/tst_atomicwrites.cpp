// No half-written file ever replaces a good one: every writer of the app (image export as PNG,
// PDF and SVG; session save as a trace; CSV and Chrome export; the session autosave; the CLI's
// run, record and export) writes a temporary file and renames it over the target when complete.
//
// Two checks per writer. A write that fails halfway (the file size limit RLIMIT_FSIZE stands in
// for a full disk, and works for root too) leaves the old file byte for byte and no temporary
// behind. A write that succeeds replaces the file by a rename: a hard link made to the old file
// beforehand still holds the old bytes (a writer that truncated and rewrote the file in place
// would have changed them too).
#include "gui/exportimagedialog.h"
#include "gui/mainwindow.h"
#include "models/session.h"
#include "models/sessioncontroller.h"
#include "models/sessionstore.h"
#include "testhelpers.h"

#include <QDir>
#include <QFile>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>
#include <csignal>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

using namespace slicescope;
using namespace slicescope::models;
using namespace slicescope::gui;

namespace {

constexpr int kGenerousMs = 240'000;
constexpr rlim_t kLimitBytes = 4096; // every output below is larger (a recording of nothing: 512)
const QByteArray kOldBytes = "a good file from before: it must survive a failed write\n";

// While it lives, this process cannot grow a file past `bytes`: writes fail with EFBIG (SIGXFSZ
// ignored), as on a disk that fills up in the middle of a write.
class FileSizeLimit {
  public:
    explicit FileSizeLimit(rlim_t bytes) {
        ::getrlimit(RLIMIT_FSIZE, &old_);
        oldHandler_ = std::signal(SIGXFSZ, SIG_IGN);
        rlimit limit = old_;
        limit.rlim_cur = bytes;
        ::setrlimit(RLIMIT_FSIZE, &limit);
    }
    ~FileSizeLimit() {
        ::setrlimit(RLIMIT_FSIZE, &old_);
        std::signal(SIGXFSZ, oldHandler_);
    }
    FileSizeLimit(const FileSizeLimit&) = delete;
    FileSizeLimit& operator=(const FileSizeLimit&) = delete;

  private:
    rlimit old_{};
    void (*oldHandler_)(int) = nullptr;
};

QByteArray readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool writeBytes(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) &&
           file.write(bytes) == bytes.size();
}

// A session big enough that every output passes the limit: real-shaped GPU runs, measured and
// modelled, with many repetitions.
trace::Trace bigTrace() {
    return trace::Trace{"test",
                        {testhelpers::gpuShapedRun("slice-outer", trace::RunMode::MeasuredGpu, 60),
                         testhelpers::gpuShapedRun("modelled", trace::RunMode::Modelled, 60)}};
}

// `slicescope ARGUMENTS` (a headless export): its exit code, and what it printed on stderr.
int runGui(const QStringList& arguments, QString* err) {
    QProcess process;
    process.start(testhelpers::guiPath(), arguments);
    if (!process.waitForFinished(kGenerousMs)) {
        process.kill();
        process.waitForFinished();
        return -1;
    }
    *err = QString::fromLocal8Bit(process.readAllStandardError());
    return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
}

bool isCharacterDevice(const QString& path) {
    struct stat st {};
    return ::lstat(QFile::encodeName(path).constData(), &st) == 0 && S_ISCHR(st.st_mode);
}

} // namespace

class TestAtomicWrites : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void cleanupTestCase();
    void writersReplaceWholeOrNotAtAll_data();
    void writersReplaceWholeOrNotAtAll();
    void headlessExportFollowsTheWritingRules();
    void exportDialogAsksBeforeReplacing();

  private:
    // Runs one writer on target; true when it reports success.
    bool write(const QString& writer, const QString& target, QString* error);

    QTemporaryDir dir_;
    std::unique_ptr<MainWindow> window_;
    QString input_; // the session's trace, for the CLI's export
};

void TestAtomicWrites::initTestCase() {
    QVERIFY(dir_.isValid());
    QStandardPaths::setTestModeEnabled(true);
    qputenv("SLICESCOPE_CLI", testhelpers::cliPath().toUtf8());
    QApplication::setOrganizationName(QStringLiteral("SliceScopeTest"));
    QApplication::setApplicationName(QStringLiteral("tst_atomicwrites"));
    QVERIFY(QDir().mkpath(dir_.filePath(QStringLiteral("input"))));
    input_ = testhelpers::writeTrace(dir_, QStringLiteral("input/big.json"), bigTrace());
    QVERIFY(!input_.isEmpty());
    StartOptions options;
    options.noSamples = true;
    options.sessionFile = dir_.filePath(QStringLiteral("unused/session.json"));
    window_ = std::make_unique<MainWindow>(options);
    window_->resize(1400, 900);
    window_->show();
    QSignalSpy loaded(window_->controller(), &SessionController::traceLoaded);
    window_->openTrace(input_);
    QVERIFY(loaded.wait(kGenerousMs));
    QCOMPARE(window_->controller()->session()->count(), 2);
}

void TestAtomicWrites::cleanupTestCase() {
    window_.reset();
}

void TestAtomicWrites::writersReplaceWholeOrNotAtAll_data() {
    QTest::addColumn<QString>("writer");
    QTest::addColumn<QString>("file");
    QTest::addColumn<qulonglong>("limit");
    QTest::newRow("image export, PNG")
        << QStringLiteral("png") << QStringLiteral("report.png") << qulonglong(kLimitBytes);
    QTest::newRow("image export, PDF")
        << QStringLiteral("pdf") << QStringLiteral("report.pdf") << qulonglong(kLimitBytes);
    QTest::newRow("image export, SVG")
        << QStringLiteral("svg") << QStringLiteral("report.svg") << qulonglong(kLimitBytes);
    QTest::newRow("save session as trace")
        << QStringLiteral("trace") << QStringLiteral("saved.json") << qulonglong(kLimitBytes);
    QTest::newRow("CSV export") << QStringLiteral("csv") << QStringLiteral("export.csv")
                                << qulonglong(kLimitBytes);
    QTest::newRow("Chrome trace export")
        << QStringLiteral("chrome") << QStringLiteral("export-chrome.json")
        << qulonglong(kLimitBytes);
    QTest::newRow("session autosave")
        << QStringLiteral("autosave") << QStringLiteral("session.json") << qulonglong(kLimitBytes);
    QTest::newRow("slicescope-cli run -o")
        << QStringLiteral("cli-run") << QStringLiteral("cli-run.json") << qulonglong(kLimitBytes);
    QTest::newRow("slicescope-cli record -o")
        << QStringLiteral("cli-record") << QStringLiteral("cli-record.json") << qulonglong(512);
    QTest::newRow("slicescope-cli export --csv")
        << QStringLiteral("cli-csv") << QStringLiteral("cli.csv") << qulonglong(kLimitBytes);
    QTest::newRow("slicescope-cli export --chrome")
        << QStringLiteral("cli-chrome") << QStringLiteral("cli-chrome.json")
        << qulonglong(kLimitBytes);
}

bool TestAtomicWrites::write(const QString& writer, const QString& target, QString* error) {
    if (writer == QStringLiteral("png") || writer == QStringLiteral("pdf") ||
        writer == QStringLiteral("svg")) {
        return window_->exportImage(target, QSize(1920, 1080), 96, error);
    }
    if (writer == QStringLiteral("trace") || writer == QStringLiteral("csv") ||
        writer == QStringLiteral("chrome")) {
        using Format = SessionController::ExportFormat;
        const auto format = writer == QStringLiteral("trace") ? Format::Trace
                            : writer == QStringLiteral("csv") ? Format::Csv
                                                              : Format::Chrome;
        QFuture<QString> done = window_->controller()->exportSession(target, format);
        done.waitForFinished();
        *error = done.result();
        return error->isEmpty();
    }
    if (writer == QStringLiteral("autosave")) {
        SessionStore store(target);
        QSignalSpy saved(&store, &SessionStore::saved);
        QSignalSpy failed(&store, &SessionStore::saveFailed);
        store.save(*window_->controller()->session());
        store.waitForIdle();
        // Its signals are queued from the writer thread: let them arrive.
        for (int i = 0; i < 100 && saved.count() + failed.count() == 0; ++i) {
            QTest::qWait(20);
        }
        *error = failed.isEmpty() ? QString() : failed.first().first().toString();
        return !saved.isEmpty();
    }
    // The CLI in a child process, which inherits the limit in force now.
    QStringList arguments;
    if (writer == QStringLiteral("cli-record")) {
        // A program that never uses CUDA: the recording holds a run and no activity.
        arguments = {QStringLiteral("record"), QStringLiteral("-o"), target, QStringLiteral("--"),
                     QStringLiteral("/bin/true")};
    } else if (writer == QStringLiteral("cli-run")) {
        arguments = {QStringLiteral("run"),        QStringLiteral("--shape"),
                     QStringLiteral("20x400x5"),   QStringLiteral("--strategy"),
                     QStringLiteral("cpu-serial"), QStringLiteral("--repeat"),
                     QStringLiteral("40"),         QStringLiteral("-q"),
                     QStringLiteral("-o"),         target};
    } else {
        arguments = {QStringLiteral("export"), input_,
                     writer == QStringLiteral("cli-csv") ? QStringLiteral("--csv")
                                                         : QStringLiteral("--chrome"),
                     target};
    }
    QProcess cli;
    cli.start(testhelpers::cliPath(), arguments);
    if (!cli.waitForFinished(kGenerousMs)) {
        *error = QStringLiteral("slicescope-cli did not finish");
        return false;
    }
    *error = QString::fromLocal8Bit(cli.readAllStandardError());
    return cli.exitStatus() == QProcess::NormalExit && cli.exitCode() == 0;
}

void TestAtomicWrites::writersReplaceWholeOrNotAtAll() {
    QFETCH(QString, writer);
    QFETCH(QString, file);
    QFETCH(qulonglong, limit);
    if (writer == QStringLiteral("cli-record")) {
        // `record` needs the CUPTI injection library, built with the CUDA backend only.
        QString probe;
        if (!write(writer, dir_.filePath(QStringLiteral("probe.json")), &probe) &&
            probe.contains(QStringLiteral("injection library"))) {
            QSKIP("this build has no CUPTI injection library");
        }
    }
    const QString folder = dir_.filePath(writer);
    QVERIFY(QDir().mkpath(folder));
    const QString target = QDir(folder).filePath(file);
    const QString witness = QDir(folder).filePath(QStringLiteral("witness"));
    QVERIFY(writeBytes(target, kOldBytes));
    QCOMPARE(::link(QFile::encodeName(target).constData(), QFile::encodeName(witness).constData()),
             0);
    const QStringList before = QDir(folder).entryList(QDir::Files | QDir::Hidden);

    // 1. The disk fills up halfway: the write fails, and the old file is untouched.
    QString error;
    bool ok = false;
    {
        const FileSizeLimit sizeLimit(rlim_t{limit});
        ok = write(writer, target, &error);
    }
    QVERIFY2(!ok, "the write should have failed past the size limit");
    QVERIFY2(!error.isEmpty(), "a failed write says why");
    QCOMPARE(readAll(target), kOldBytes);
    QCOMPARE(QDir(folder).entryList(QDir::Files | QDir::Hidden),
             before); // no temporary left behind

    // 2. It succeeds: the target is new and whole, and was renamed into place (the old inode,
    // still linked as the witness, kept the old bytes).
    ok = write(writer, target, &error);
    QVERIFY2(ok, qPrintable(error));
    const QByteArray written = readAll(target);
    QVERIFY(written.size() > qsizetype(limit));
    QVERIFY(written != kOldBytes);
    QCOMPARE(readAll(witness), kOldBytes);
    QCOMPARE(QDir(folder).entryList(QDir::Files | QDir::Hidden), before);
    if (writer == QStringLiteral("trace") || writer == QStringLiteral("autosave") ||
        writer == QStringLiteral("cli-run") || writer == QStringLiteral("cli-record")) {
        const LoadResult back = TraceLoader::loadNow(target, RunOrigin::Opened);
        QVERIFY2(back.ok(), qPrintable(back.error));
    }
}

// `slicescope --export-image OUT --text-boxes F` writes by the CLI's rules (docs/reliability.md,
// "Writing files"): a link is followed, a device written through, a read-only file refused, and
// an output that is an input or the other output refused before anything is written.
void TestAtomicWrites::headlessExportFollowsTheWritingRules() {
    const QDir folder(dir_.filePath(QStringLiteral("headless")));
    QVERIFY(QDir().mkpath(folder.path()));
    const QString input = testhelpers::writeTrace(
        dir_, QStringLiteral("headless/small.json"),
        trace::Trace{"test", {testhelpers::gpuShapedRun("small", trace::RunMode::Modelled, 2)}});
    QVERIFY(!input.isEmpty());
    const QByteArray inputBytes = readAll(input);
    const auto exportTo = [&](const QString& out, const QString& boxes, QString* err) {
        QStringList arguments{QStringLiteral("--export-image"), out, input};
        if (!boxes.isEmpty()) {
            arguments << QStringLiteral("--text-boxes") << boxes;
        }
        return runGui(arguments, err);
    };
    QString err;

    // A link to a null device: written through, the device and the link kept. Where this test
    // may make device nodes (root), it links to a copy of /dev/null in its own folder, so that a
    // regression replaces that node, not the machine's; elsewhere /dev/null cannot be replaced.
    QString device = folder.filePath(QStringLiteral("null-device"));
    if (::mknod(QFile::encodeName(device).constData(), S_IFCHR | 0666, makedev(1, 3)) != 0) {
        device = QStringLiteral("/dev/null");
    }
    const QString toNull = folder.filePath(QStringLiteral("null.png"));
    const QString boxesToNull = folder.filePath(QStringLiteral("null-boxes.json"));
    QVERIFY(QFile::link(device, toNull));
    QVERIFY(QFile::link(device, boxesToNull));
    QCOMPARE(exportTo(toNull, boxesToNull, &err), 0);
    QVERIFY2(QFileInfo(toNull).isSymLink() && QFileInfo(boxesToNull).isSymLink(), "links kept");
    QVERIFY(isCharacterDevice(device));

    // A link to a regular file: the file is replaced, the link stays a link.
    const QString real = folder.filePath(QStringLiteral("real.png"));
    const QString link = folder.filePath(QStringLiteral("link.png"));
    QVERIFY(writeBytes(real, kOldBytes));
    QVERIFY(QFile::link(real, link));
    QCOMPARE(exportTo(link, QString(), &err), 0);
    QVERIFY(QFileInfo(link).isSymLink());
    QVERIFY(readAll(real).startsWith("\x89PNG"));

    // A read-only file is refused and kept.
    const QString readOnly = folder.filePath(QStringLiteral("readonly.png"));
    QVERIFY(writeBytes(readOnly, kOldBytes));
    QVERIFY(QFile::setPermissions(readOnly, QFile::ReadOwner | QFile::ReadGroup));
    QCOMPARE(exportTo(readOnly, QString(), &err), 1);
    QVERIFY2(err.contains(QStringLiteral("read-only")), qPrintable(err));
    QCOMPARE(readAll(readOnly), kOldBytes);

    // --text-boxes naming the input trace, or the image's own file: refused, nothing written.
    QVERIFY(exportTo(folder.filePath(QStringLiteral("a.png")), input, &err) != 0);
    QVERIFY2(err.contains(QStringLiteral("input trace")), qPrintable(err));
    QCOMPARE(readAll(input), inputBytes);
    QVERIFY(!QFile::exists(folder.filePath(QStringLiteral("a.png"))));
    const QString same = folder.filePath(QStringLiteral("same.png"));
    QVERIFY(exportTo(same, same, &err) != 0);
    QVERIFY2(err.contains(QStringLiteral("image's file")), qPrintable(err));
    QVERIFY(!QFile::exists(same));
    // The same new file named through a dangling link: refused too, nothing created.
    const QString dangling = folder.filePath(QStringLiteral("dangling.json"));
    const QString image = folder.filePath(QStringLiteral("image.png"));
    QVERIFY(QFile::link(QStringLiteral("image.png"), dangling));
    QVERIFY(exportTo(image, dangling, &err) != 0);
    QVERIFY2(err.contains(QStringLiteral("image's file")), qPrintable(err));
    QVERIFY(!QFile::exists(image));
    QVERIFY(exportTo(dangling, image, &err) != 0);
    QVERIFY(!QFile::exists(image));

    // A trace that cannot be read: its name said once, then where and why.
    const QString corrupt = folder.filePath(QStringLiteral("corrupt.json"));
    QVERIFY(
        writeBytes(corrupt, QByteArrayLiteral("{\"format\": \"slicescope-trace\", \"runs\": [")));
    QStringList arguments{QStringLiteral("--export-image"),
                          folder.filePath(QStringLiteral("c.png")), corrupt};
    QVERIFY(runGui(arguments, &err) != 0);
    QCOMPARE(err.count(QStringLiteral("corrupt.json")), 1);
    QVERIFY2(err.contains(QStringLiteral("byte ")), qPrintable(err));
}

// The Export image dialog asks before it replaces a file typed in (No keeps the dialog open).
void TestAtomicWrites::exportDialogAsksBeforeReplacing() {
    const QString existing = dir_.filePath(QStringLiteral("exists.png"));
    QVERIFY(writeBytes(existing, kOldBytes));
    for (const auto button : {QMessageBox::No, QMessageBox::Yes}) {
        ExportImageDialog dialog(existing);
        bool asked = false;
        QTimer::singleShot(0, [&asked, button] {
            for (QWidget* widget : QApplication::topLevelWidgets()) {
                if (auto* box = qobject_cast<QMessageBox*>(widget); box && box->isVisible()) {
                    asked = true;
                    box->button(button)->click();
                }
            }
        });
        dialog.accept();
        QVERIFY2(asked, "the dialog asks before replacing an existing file");
        QCOMPARE(dialog.result(),
                 button == QMessageBox::Yes ? int(QDialog::Accepted) : int(QDialog::Rejected));
    }
    ExportImageDialog fresh(dir_.filePath(QStringLiteral("new.png")));
    fresh.accept(); // nothing to replace: no question (a question here would block the test)
    QCOMPARE(fresh.result(), int(QDialog::Accepted));
}

QTEST_MAIN(TestAtomicWrites)
#include "tst_atomicwrites.moc"
