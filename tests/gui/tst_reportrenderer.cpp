// Image export: PNG of the requested size and DPI, PDF and SVG, errors; and the headless
// `slicescope --export-image` of the real program.
#include "gui/occupancyview.h"
#include "gui/reportrenderer.h"
#include "gui/timelineview.h"
#include "models/session.h"
#include "models/viewstate.h"
#include "testhelpers.h"

#include <QFile>
#include <QImage>
#include <QProcess>
#include <QTest>

using namespace slicescope;
using namespace slicescope::models;
using namespace slicescope::gui;

namespace {

// Share of pixels that are not the white background: something was drawn across the image.
double inkShare(const QImage& image) {
    qint64 ink = 0;
    for (int y = 0; y < image.height(); y += 2) {
        for (int x = 0; x < image.width(); x += 2) {
            ink += (image.pixel(x, y) & 0xffffff) != 0xffffff ? 1 : 0;
        }
    }
    return double(ink) / (double(image.width() / 2) * double(image.height() / 2));
}

struct Scene {
    Session session;
    ViewState state;
    TimelineView timeline{&session, &state};
    OccupancyView occupancy{&session, &state};
    ReportRenderer renderer{&timeline, &occupancy, &session};
    Scene() {
        session.addRuns(
            {makeRunEntry(testhelpers::gpuShapedRun("slice-outer", trace::RunMode::MeasuredGpu, 2),
                          RunOrigin::Opened),
             makeRunEntry(testhelpers::gpuShapedRun("modelled", trace::RunMode::Modelled),
                          RunOrigin::Opened)});
        state.setSelectedRun(QStringLiteral("slice-outer"));
    }
};

QProcessEnvironment headlessEnvironment() {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("QT_QPA_PLATFORM")); // the program must pick offscreen itself
    env.remove(QStringLiteral("DISPLAY"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    return env;
}

} // namespace

class TestReportRenderer : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void pngHasTheRequestedSize_data();
    void pngHasTheRequestedSize();
    void dpiIsStoredAndScalesTheLayout();
    void pdfAndSvgAreVector();
    void badRequestsAreErrors();
    void headlessExportOfARealTrace();
    void headlessExportFailsCleanly();

  private:
    QTemporaryDir dir_;
};

void TestReportRenderer::initTestCase() {
    QVERIFY(dir_.isValid());
}

void TestReportRenderer::pngHasTheRequestedSize_data() {
    QTest::addColumn<QSize>("size");
    QTest::newRow("full HD") << QSize(1920, 1080);
    QTest::newRow("small") << QSize(800, 450);
    QTest::newRow("portrait") << QSize(1000, 1400);
}

void TestReportRenderer::pngHasTheRequestedSize() {
    QFETCH(QSize, size);
    Scene scene;
    const QString path =
        dir_.filePath(QStringLiteral("out-%1x%2.png").arg(size.width()).arg(size.height()));
    QString error;
    QVERIFY2(scene.renderer.exportTo(path, size, 96, &error), qPrintable(error));
    QImage image(path);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), size);
    QVERIFY2(inkShare(image) > 0.05, qPrintable(QString::number(inkShare(image))));
    QVERIFY(!QFile::exists(path + QStringLiteral(".part")));
}

void TestReportRenderer::dpiIsStoredAndScalesTheLayout() {
    Scene scene;
    const QImage normal = scene.renderer.renderImage(QSize(1600, 900), 96);
    const QImage doubled = scene.renderer.renderImage(QSize(1600, 900), 192);
    QCOMPARE(doubled.size(), QSize(1600, 900));
    QCOMPARE(doubled.dotsPerMeterX(), int(192 / 0.0254 + 0.5));
    // Drawn twice as large: the title's first line of text (dark ink from the top) is twice as
    // tall.
    auto titleHeight = [](const QImage& image) {
        auto inkRow = [&image](int y) {
            for (int x = 0; x < image.width() / 3; ++x) {
                if (qGray(image.pixel(x, y)) < 100) {
                    return true;
                }
            }
            return false;
        };
        int y = 0;
        while (y < image.height() && !inkRow(y)) {
            ++y;
        }
        const int top = y;
        while (y < image.height() && inkRow(y)) {
            ++y;
        }
        return y - top;
    };
    const int normalHeight = titleHeight(normal);
    const int doubledHeight = titleHeight(doubled);
    QVERIFY(normalHeight > 5);
    QVERIFY2(doubledHeight >= normalHeight * 1.7 && doubledHeight <= normalHeight * 2.3,
             qPrintable(QStringLiteral("%1 vs %2").arg(doubledHeight).arg(normalHeight)));
}

void TestReportRenderer::pdfAndSvgAreVector() {
    Scene scene;
    QString error;
    const QString pdf = dir_.filePath(QStringLiteral("out.pdf"));
    const QString svg = dir_.filePath(QStringLiteral("out.svg"));
    QVERIFY2(scene.renderer.exportTo(pdf, QSize(1600, 900), 96, &error), qPrintable(error));
    QVERIFY2(scene.renderer.exportTo(svg, QSize(1600, 900), 96, &error), qPrintable(error));
    QFile p(pdf);
    QVERIFY(p.open(QIODevice::ReadOnly));
    QVERIFY(p.read(5).startsWith("%PDF"));
    QVERIFY(p.size() > 2000);
    QFile s(svg);
    QVERIFY(s.open(QIODevice::ReadOnly));
    const QByteArray text = s.readAll();
    QVERIFY(text.contains("<svg"));
    QVERIFY(text.contains("slice-outer")); // text stays text
    QVERIFY(text.contains("MODELLED"));    // and the modelled run says so
}

void TestReportRenderer::badRequestsAreErrors() {
    Scene scene;
    QString error;
    QVERIFY(!scene.renderer.exportTo(dir_.filePath(QStringLiteral("x.bmpx")), QSize(800, 600), 96,
                                     &error));
    QVERIFY(error.contains(QStringLiteral("unknown image format")));
    QVERIFY(!scene.renderer.exportTo(dir_.filePath(QStringLiteral("x.png")), QSize(10, 10), 96,
                                     &error));
    QVERIFY(!scene.renderer.exportTo(dir_.filePath(QStringLiteral("x.png")), QSize(800, 600), 5000,
                                     &error));
    QVERIFY(!scene.renderer.exportTo(QStringLiteral("/nonexistent-dir/x.png"), QSize(800, 600), 96,
                                     &error));
    QVERIFY(error.contains(QStringLiteral("cannot write")));
}

void TestReportRenderer::headlessExportOfARealTrace() {
    const QString trace = testhelpers::measuredCpuTrace(dir_);
    QVERIFY(!trace.isEmpty());
    const QString out = dir_.filePath(QStringLiteral("headless.png"));
    QProcess process;
    process.setProcessEnvironment(headlessEnvironment());
    process.start(testhelpers::guiPath(), {QStringLiteral("--export-image"), out, trace,
                                           QStringLiteral("--size"), QStringLiteral("1280x720")});
    QVERIFY(process.waitForFinished(120'000));
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
    const QImage image(out);
    QCOMPARE(image.size(), QSize(1280, 720));
    QVERIFY(inkShare(image) > 0.05);

    // The default size is 1920x1080.
    const QString defaultOut = dir_.filePath(QStringLiteral("default.png"));
    process.start(testhelpers::guiPath(), {QStringLiteral("--export-image"), defaultOut, trace});
    QVERIFY(process.waitForFinished(120'000));
    QCOMPARE(process.exitCode(), 0);
    QCOMPARE(QImage(defaultOut).size(), QSize(1920, 1080));
}

void TestReportRenderer::headlessExportFailsCleanly() {
    const QString corrupt = dir_.filePath(QStringLiteral("corrupt.json"));
    QFile file(corrupt);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("{\"format\": \"slicescope-trace\", \"version\"");
    file.close();
    struct Case {
        QStringList args;
        int exit;
        const char* message;
    };
    const QString out = dir_.filePath(QStringLiteral("never.png"));
    const Case cases[] = {
        {{QStringLiteral("--export-image"), out, corrupt}, 1, "cannot read"},
        {{QStringLiteral("--export-image"), out, dir_.filePath(QStringLiteral("missing.json"))},
         1,
         "missing.json"},
        {{QStringLiteral("--export-image"), out}, 2, "needs a trace file"},
        {{QStringLiteral("--export-image"), out, corrupt, QStringLiteral("--size"),
          QStringLiteral("big")},
         2,
         "--size"},
    };
    for (const Case& c : cases) {
        QProcess process;
        process.setProcessEnvironment(headlessEnvironment());
        process.start(testhelpers::guiPath(), c.args);
        QVERIFY(process.waitForFinished(120'000));
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), c.exit);
        const QByteArray err = process.readAllStandardError();
        QVERIFY2(err.contains("slicescope: error:") && err.contains(c.message), err.constData());
        QVERIFY(!QFile::exists(out));
    }
}

QTEST_MAIN(TestReportRenderer)
#include "tst_reportrenderer.moc"
