// Image export: PNG of the requested size and DPI, PDF and SVG, errors; and the headless
// `slicescope --export-image` of the real program.
#include "gui/exportimagedialog.h"
#include "gui/occupancyview.h"
#include "gui/qcp.h"
#include "gui/reportrenderer.h"
#include "gui/runheader.h"
#include "gui/sweepplot.h"
#include "gui/theme.h"
#include "gui/timelineview.h"
#include "models/session.h"
#include "models/sweepdata.h"
#include "models/traceloader.h"
#include "models/viewstate.h"
#include "testhelpers.h"
#include "textlayout.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QHash>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QSignalSpy>
#include <QTest>

using namespace slicescope;
using namespace slicescope::models;
using namespace slicescope::gui;

namespace {

// How many pixels inside area have exactly the colour: a bar or line drawn in it, where text
// (antialiased, in greys) never has it.
qint64 pixelsOf(const QImage& image, const QColor& colour, const QRectF& area,
                const QVector<QRectF>& skip = {}) {
    const QImage rgb = image.convertToFormat(QImage::Format_RGB32);
    const QRect pixels = area.toAlignedRect() & rgb.rect();
    const QRgb wanted = colour.rgb() | 0xff000000;
    qint64 count = 0;
    for (int y = pixels.top(); y <= pixels.bottom(); ++y) {
        const auto* line = reinterpret_cast<const QRgb*>(rgb.constScanLine(y));
        for (int x = pixels.left(); x <= pixels.right(); ++x) {
            if ((line[x] | 0xff000000) != wanted) {
                continue;
            }
            const QPointF centre(x + 0.5, y + 0.5);
            count += std::none_of(skip.begin(), skip.end(),
                                  [&centre](const QRectF& r) { return r.contains(centre); })
                         ? 1
                         : 0;
        }
    }
    return count;
}

const TextBox* findBox(const QVector<TextBox>& boxes, const QString& prefix) {
    const auto it = std::find_if(boxes.begin(), boxes.end(),
                                 [&](const TextBox& box) { return box.text.startsWith(prefix); });
    return it == boxes.end() ? nullptr : &*it;
}

// The text boxes of a `--text-boxes` file.
QVector<TextBox> readTextBoxes(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        return {};
    }
    QVector<TextBox> boxes;
    for (const auto& value : QJsonDocument::fromJson(file.readAll()).array()) {
        const QJsonObject o = value.toObject();
        boxes.push_back({o.value(QStringLiteral("text")).toString(),
                         QRectF(o.value(QStringLiteral("x")).toDouble(),
                                o.value(QStringLiteral("y")).toDouble(),
                                o.value(QStringLiteral("w")).toDouble(),
                                o.value(QStringLiteral("h")).toDouble()),
                         0, false});
    }
    return boxes;
}

// The page above the legend of the lanes' colours at its bottom (whose swatches carry those
// colours, drawn or not), found by the legend's entry for lane; empty without one.
QRectF aboveLaneLegend(const QVector<TextBox>& boxes, const QSize& size, LaneKind lane) {
    const TextBox* entry = findBox(boxes, toQString(laneKindName(lane)) + QStringLiteral(": "));
    return entry ? QRectF(0, 0, size.width(), entry->rect.top() - 2) : QRectF();
}

// Two runs, the GPU one selected; the renderer is made after them (it takes the selection).
bool fillScene(Session& session, ViewState& state) {
    session.addRuns(
        {makeRunEntry(testhelpers::gpuShapedRun("slice-outer", trace::RunMode::MeasuredGpu, 2),
                      RunOrigin::Opened),
         makeRunEntry(testhelpers::gpuShapedRun("modelled", trace::RunMode::Modelled),
                      RunOrigin::Opened)});
    state.setSelectedRun(QStringLiteral("slice-outer"));
    return true;
}

struct Scene {
    Session session;
    ViewState state;
    bool filled = fillScene(session, state);
    ReportRenderer renderer{&session, reportInputs(session, state)};
};

// A session of n runs: GPU runs on two devices, modelled runs, CPU runs and a recorded run with
// long mangled kernel names, so labels carry devices and kernels.
void fillSynthetic(Session& session, int n) {
    std::vector<RunEntryPtr> runs;
    const std::vector<std::string> strategies = {"one-worker", "slice-outer", "slice-middle",
                                                 "slice-2d", "elementwise-broadcast"};
    for (int i = 0; i < n; ++i) {
        const int kind = i % 4;
        if (kind == 3) {
            trace::Run cpu;
            cpu.id = i % 8 == 3 ? "cpu-serial" : "cpu-parallel";
            cpu.strategy = cpu.id;
            cpu.mode = trace::RunMode::MeasuredCpu;
            cpu.problem = *problem::makeProblem({100, 4000, 5}, problem::Dtype::F64, 1);
            cpu.device.name = "Intel(R) Xeon(R) Processor";
            auto a = testhelpers::activity(trace::ActivityKind::Host, 0, 5'000'000 + i * 10'000);
            a.nameId = cpu.intern("compute");
            cpu.activities.push_back(a);
            runs.push_back(makeRunEntry(std::move(cpu), RunOrigin::Opened));
            continue;
        }
        trace::Run run = testhelpers::gpuShapedRun(strategies[std::size_t(i) % strategies.size()],
                                                   kind == 1 ? trace::RunMode::Modelled
                                                             : trace::RunMode::MeasuredGpu);
        if (kind == 1) {
            run.device.id = "quadro-k2000";
            run.device.name = "Quadro K2000";
        }
        runs.push_back(makeRunEntry(std::move(run), RunOrigin::Opened));
    }
    session.addRuns(std::move(runs));
    LoadResult recorded = TraceLoader::loadNow(
        QStringLiteral(SLICESCOPE_SAMPLES_DIR "/recorded-numba.json"), RunOrigin::Sample);
    if (recorded.ok()) {
        session.addRuns(std::move(recorded.runs));
    }
}

// The trace files of a session of n real runs made by slicescope-cli: every GPU strategy modelled
// on one preset after another (one file, one batch, per preset) and the CPU strategies measured
// here, as a user would build a comparison. n is 12 or 30. Empty on failure.
QStringList cliSession(const QTemporaryDir& dir, int n) {
    static QHash<int, QStringList> made; // one session per size for every preset
    if (made.contains(n)) {
        return made.value(n);
    }
    const QString shape = QStringLiteral("100x4000x5");
    QStringList files;
    const QString cpu = testhelpers::measuredCpuTrace(dir, shape, 1);
    if (cpu.isEmpty()) {
        return {};
    }
    files << cpu;
    int runs = 2;
    for (const char* device : {"h200", "gtx-970", "a100-sxm4-80gb", "t4", "quadro-k2000"}) {
        if (runs >= n) {
            break;
        }
        const int take = std::min(7, n - runs); // the seven GPU strategies
        const QStringList all = {QStringLiteral("one-worker"),
                                 QStringLiteral("slice-outer"),
                                 QStringLiteral("slice-middle"),
                                 QStringLiteral("slice-middle-strided"),
                                 QStringLiteral("slice-2d"),
                                 QStringLiteral("elementwise-materialized"),
                                 QStringLiteral("elementwise-broadcast")};
        const QString path =
            dir.filePath(QStringLiteral("%1-%2.json").arg(n).arg(QLatin1String(device)));
        if (testhelpers::runCli({QStringLiteral("model"), QStringLiteral("--device"),
                                 QLatin1String(device), QStringLiteral("--shape"), shape,
                                 QStringLiteral("--strategy"),
                                 all.mid(0, take).join(QLatin1Char(',')), QStringLiteral("-q"),
                                 QStringLiteral("-o"), path}) != 0) {
            return {};
        }
        files << path;
        runs += take;
    }
    made.insert(n, files);
    return files;
}

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
    void pipelinedRunSaysItsChunksAndStreams();
    void badRequestsAreErrors();
    void headlessExportOfARealTrace();
    void headlessExportFailsCleanly();
    void textNeverOverlapsAtAnyPreset_data();
    void textNeverOverlapsAtAnyPreset();
    void everyViewAtSlideAndPaper_data();
    void everyViewAtSlideAndPaper();
    void presetsAndViewsParse();
    void headlessTextBoxesAndPaperPdf();
    void aLabelCutByItsPlotFailsTheLayoutCheck();
    void sweepViewsAtEveryPreset_data();
    void sweepViewsAtEveryPreset();
    void sweepViewsWithoutSweepsSaySo();
    void headlessSweepViews();
    void slidesKeepEachRunsFigure();
    void slideHeadersKeepWholeClauses();
    void narrowHeadersSayTheShareShort();
    void crossoverLabelsSayTheNotesFigure();
    void oneRunFillsTheSlide_data();
    void oneRunFillsTheSlide();
    void oneRunOfManyKernelsKeepsTheirFigures();
    void aSlideOfManyRunsKeepsEveryRunsFigures();
    void crossoverLabelsKeepClearOfEachOtherAndTheEdge();
    void sweepPanelsAreDrawnOnceAndLaidOutWithoutPainting();
    void exportDialogOffersTheSweepViews();
    void exportFromTheWindowLeavesItsTimelineAlone();
    void headlessExportMakesNoViewWidget();

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
    QVERIFY(!QFile::exists(path + QStringLiteral(".part")));
    // The runs' copies and kernels are drawn, in the timeline and in the breakdown chart, not
    // only named in the legend.
    const QVector<TextBox> boxes = scene.renderer.textBoxes(size);
    const QColor kernel = theme::laneColor(LaneKind::Kernel);
    const QColor htod = theme::laneColor(LaneKind::HtoD);
    const QRectF page = aboveLaneLegend(boxes, size, LaneKind::Kernel);
    QVERIFY(!page.isEmpty());
    const TextBox* breakdownTitle = findBox(boxes, QStringLiteral("Where one repetition"));
    QVERIFY(breakdownTitle);
    const QRectF charts(breakdownTitle->rect.topLeft(), page.bottomRight());
    QVERIFY(pixelsOf(image, kernel, charts) > 0);
    QVERIFY(pixelsOf(image, htod, charts) > 0);
    QVERIFY(pixelsOf(image, kernel, page, {charts}) > 0); // the timeline's
    QVERIFY(pixelsOf(image, htod, page, {charts}) > 0);
    // The same view of no runs has none of those colours: the check sees what is drawn.
    Session none;
    ViewState state;
    const QImage empty = ReportRenderer(&none, reportInputs(none, state)).renderImage(size);
    QCOMPARE(pixelsOf(empty, kernel, empty.rect()), 0);
    QCOMPARE(pixelsOf(empty, htod, empty.rect()), 0);
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

// A pipelined run's header names its chunks and streams, after its time.
void TestReportRenderer::pipelinedRunSaysItsChunksAndStreams() {
    Scene scene;
    trace::Run pipelined = testhelpers::gpuShapedRun("pipelined", trace::RunMode::Modelled);
    pipelined.chunks = 8;
    pipelined.streams = 4;
    scene.session.addRuns({makeRunEntry(std::move(pipelined), RunOrigin::Opened)});
    // The renderer takes the timeline's runs when it is made: one made after the run was added.
    const ReportRenderer renderer(&scene.session, reportInputs(scene.session, scene.state));
    QString error;
    const QString svg = dir_.filePath(QStringLiteral("pipelined.svg"));
    QVERIFY2(renderer.exportTo(svg, QSize(3200, 900), 96, &error), qPrintable(error));
    QFile s(svg);
    QVERIFY(s.open(QIODevice::ReadOnly));
    const QByteArray text = s.readAll();
    QVERIFY(text.contains("8 chunks on 4 streams"));
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
    const QString boxesPath = dir_.filePath(QStringLiteral("headless.json"));
    process.start(testhelpers::guiPath(),
                  {QStringLiteral("--export-image"), out, trace, QStringLiteral("--size"),
                   QStringLiteral("1280x720"), QStringLiteral("--text-boxes"), boxesPath});
    QVERIFY(process.waitForFinished(120'000));
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
    const QImage image(out);
    QCOMPARE(image.size(), QSize(1280, 720));
    // The CPU run's host work is drawn above the legend that names its colour.
    const QRectF page = aboveLaneLegend(readTextBoxes(boxesPath), image.size(), LaneKind::Host);
    QVERIFY(!page.isEmpty());
    QVERIFY(pixelsOf(image, theme::laneColor(LaneKind::Host), page) > 0);

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

void TestReportRenderer::textNeverOverlapsAtAnyPreset_data() {
    QTest::addColumn<QString>("sample"); // a file in resources/samples, or "synthetic-N"
    QTest::addColumn<QString>("preset");
    QStringList sources = QDir(QStringLiteral(SLICESCOPE_SAMPLES_DIR))
                              .entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
    QVERIFY(sources.size() >= 6);
    sources << QStringLiteral("synthetic-12") << QStringLiteral("synthetic-30")
            << QStringLiteral("modelled-12") << QStringLiteral("modelled-30");
    for (const QString& source : sources) {
        for (const QString& preset : exportPresetNames()) {
            QTest::newRow(qPrintable(source + QLatin1Char(' ') + preset)) << source << preset;
        }
    }
}

void TestReportRenderer::textNeverOverlapsAtAnyPreset() {
    QFETCH(QString, sample);
    QFETCH(QString, preset);
    Session session;
    ViewState state;
    if (sample.startsWith(QStringLiteral("synthetic-"))) {
        fillSynthetic(session, sample.mid(10).toInt());
    } else if (sample.startsWith(QStringLiteral("modelled-"))) {
        const int n = sample.mid(9).toInt();
        const QStringList files = cliSession(dir_, n);
        QVERIFY(!files.isEmpty());
        for (const QString& file : files) {
            LoadResult result = TraceLoader::loadNow(file, RunOrigin::Opened);
            QVERIFY2(result.ok(), qPrintable(result.error));
            session.addRuns(std::move(result.runs));
        }
        QCOMPARE(session.count(), n);
    } else {
        LoadResult result = TraceLoader::loadNow(
            QStringLiteral(SLICESCOPE_SAMPLES_DIR "/") + sample, RunOrigin::Sample);
        QVERIFY2(result.ok(), qPrintable(result.error));
        session.addRuns(std::move(result.runs));
    }
    state.setSelectedRun(session.at(0)->id);
    ReportRenderer renderer(&session, reportInputs(session, state));
    const auto p = exportPreset(preset);
    QVERIFY(p);
    const QSize size = renderer.resolvedSize(p->sizePx, p->dpi);
    QVERIFY(size.height() > 0);
    const QVector<TextBox> boxes = renderer.textBoxes(p->sizePx, p->dpi);
    const QString problem = testhelpers::textLayoutProblem(boxes, size);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    // Something of each part was drawn: the title, a run's name in the charts.
    bool title = false, run = false;
    for (const auto& box : boxes) {
        title = title || box.text.startsWith(QStringLiteral("SliceScope"));
        run = run || box.text.contains(session.at(0)->id.left(6));
    }
    QVERIFY(title);
    QVERIFY(run);
    // A 12-run session shows every run's timeline and bars at hd and larger: nothing left out.
    if (session.count() <= 12 && preset != QStringLiteral("slide") &&
        preset != QStringLiteral("paper")) {
        for (const auto& box : boxes) {
            QVERIFY2(!box.text.contains(QStringLiteral("not shown")) &&
                         !box.text.startsWith(QStringLiteral("Timeline: the first")),
                     qPrintable(box.text));
        }
    }
}

void TestReportRenderer::everyViewAtSlideAndPaper_data() {
    QTest::addColumn<QString>("view");
    QTest::addColumn<QString>("preset");
    // Every view of the registry, a new one with no change here, and two charts side by side.
    for (const QString& view :
         ReportViews::names() + QStringList{QStringLiteral("breakdown,occupancy")}) {
        for (const char* preset : {"slide", "paper"}) {
            QTest::newRow(qPrintable(QStringLiteral("%1 %2").arg(view, QLatin1String(preset))))
                << view << QString::fromLatin1(preset);
        }
    }
}

void TestReportRenderer::everyViewAtSlideAndPaper() {
    QFETCH(QString, view);
    QFETCH(QString, preset);
    Session session;
    ViewState state;
    fillSynthetic(session, 30);
    state.setSelectedRun(session.at(0)->id);
    ReportRenderer renderer(&session, reportInputs(session, state));
    ReportOptions options;
    options.views = *ReportViews::parse(view);
    options.breakdownLog = view == QStringLiteral("all");
    renderer.setOptions(options);
    const auto p = exportPreset(preset);
    const QString problem = testhelpers::textLayoutProblem(
        renderer.textBoxes(p->sizePx, p->dpi), renderer.resolvedSize(p->sizePx, p->dpi));
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
}

void TestReportRenderer::presetsAndViewsParse() {
    QCOMPARE(exportPreset(QStringLiteral("slide"))->sizePx, QSize(1280, 720));
    QCOMPARE(exportPreset(QStringLiteral("HD"))->sizePx, QSize(1920, 1080));
    QCOMPARE(exportPreset(QStringLiteral("4k"))->sizePx, QSize(3840, 2160));
    QCOMPARE(exportPreset(QStringLiteral("paper"))->sizePx.width(), 7 * 300);
    QVERIFY(!exportPreset(QStringLiteral("1920x1080")));
    const auto all = ReportViews::parse(QStringLiteral("all"));
    QVERIFY(all && all->detail && all->breakdown && all->occupancy && !all->overview);
    const auto two = ReportViews::parse(QStringLiteral("breakdown, occupancy"));
    QVERIFY(two && !two->timeline() && two->breakdown && two->occupancy);
    QVERIFY(!ReportViews::parse(QStringLiteral("pie")));
    QVERIFY(!ReportViews::parse(QString()));
    // The sweep chart and roofline: by name, alone or with the rest; `all` takes them only where
    // the runs have them (sweepsIfAny), never as a request that must say "none".
    QVERIFY(all->sweepsIfAny && !all->sweep && !all->roofline);
    const auto sweep = ReportViews::parse(QStringLiteral("sweep"));
    QVERIFY(sweep && sweep->sweep && !sweep->roofline && !sweep->timeline() && !sweep->breakdown &&
            !sweep->occupancy && !sweep->sweepsIfAny);
    const auto both = ReportViews::parse(QStringLiteral("Sweep, roofline"));
    QVERIFY(both && both->sweep && both->roofline && !both->timeline());
    const auto mixed = ReportViews::parse(QStringLiteral("overview,roofline"));
    QVERIFY(mixed && mixed->overview && mixed->roofline && !mixed->sweep && !mixed->breakdown);
    QVERIFY(!ReportViews::parse(QStringLiteral("sweeps")));
    QVERIFY(!ReportViews::parse(QStringLiteral("sweep,pie")));
    for (const QString& name : ReportViews::names()) {
        QVERIFY2(ReportViews::parse(name), qPrintable(name));
    }
    QVERIFY(ReportViews::names().contains(QStringLiteral("sweep")));
    QVERIFY(ReportViews::names().contains(QStringLiteral("roofline")));
}

void TestReportRenderer::headlessTextBoxesAndPaperPdf() {
    const QString sample =
        QStringLiteral(SLICESCOPE_SAMPLES_DIR "/seed-100x4000x5-f64-pageable.json");
    const QString out = dir_.filePath(QStringLiteral("slide.png"));
    const QString boxes = dir_.filePath(QStringLiteral("slide.json"));
    QProcess process;
    process.setProcessEnvironment(headlessEnvironment());
    process.start(testhelpers::guiPath(),
                  {QStringLiteral("--export-image"), out, sample, QStringLiteral("--size"),
                   QStringLiteral("slide"), QStringLiteral("--text-boxes"), boxes});
    QVERIFY(process.waitForFinished(120'000));
    QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
    QCOMPARE(QImage(out).size(), QSize(1280, 720));
    QFile file(boxes);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonArray array = QJsonDocument::fromJson(file.readAll()).array();
    QVERIFY(array.size() > 20);
    bool breakdownTitle = false;
    for (const auto& value : array) {
        const QJsonObject o = value.toObject();
        QVERIFY(o.contains(QStringLiteral("text")) && o.contains(QStringLiteral("x")) &&
                o.contains(QStringLiteral("y")) && o.contains(QStringLiteral("w")) &&
                o.contains(QStringLiteral("h")));
        QVERIFY(o.value(QStringLiteral("x")).toDouble() >= -0.5);
        QVERIFY(o.value(QStringLiteral("x")).toDouble() + o.value(QStringLiteral("w")).toDouble() <=
                1280.5);
        breakdownTitle =
            breakdownTitle ||
            o.value(QStringLiteral("text")).toString().contains(QStringLiteral("time goes"));
    }
    QVERIFY(breakdownTitle);

    const QString pdf = dir_.filePath(QStringLiteral("paper.pdf"));
    process.start(testhelpers::guiPath(),
                  {QStringLiteral("--export-image"), pdf, sample, QStringLiteral("--size"),
                   QStringLiteral("paper"), QStringLiteral("--view"), QStringLiteral("breakdown")});
    QVERIFY(process.waitForFinished(120'000));
    QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
    QFile p(pdf);
    QVERIFY(p.open(QIODevice::ReadOnly));
    const QByteArray bytes = p.readAll();
    QVERIFY(bytes.startsWith("%PDF"));
    // A page 7 in (504 pt) wide.
    QVERIFY2(bytes.contains("/MediaBox [0 0 504"), bytes.left(600).constData());

    process.start(testhelpers::guiPath(), {QStringLiteral("--export-image"), out, sample,
                                           QStringLiteral("--view"), QStringLiteral("pie")});
    QVERIFY(process.waitForFinished(120'000));
    QCOMPARE(process.exitCode(), 2);
}

void TestReportRenderer::aLabelCutByItsPlotFailsTheLayoutCheck() {
    // A label clipped to its plot's area, as QCustomPlot clips: inside, it is whole; moved near
    // the right edge, most of it is hidden and the check must say so, not see a smaller box.
    QCustomPlot plot;
    plot.xAxis->setRange(0, 10);
    plot.yAxis->setRange(0, 10);
    auto* label = new QCPItemText(&plot);
    label->setClipToAxisRect(true);
    label->setFont(theme::plotFont(12));
    label->setText(QStringLiteral("a label of some length"));
    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    const QSize size(400, 300);
    auto labelAt = [&](double x, TextBox* box) {
        label->position->setCoords(x, 5);
        const QVector<TextBox> boxes = recordTextBoxes(size, [&](QCPPainter& painter) {
            plot.toPainter(&painter, size.width(), size.height());
        });
        for (const auto& b : boxes) {
            if (b.text == label->text()) {
                *box = b;
            }
        }
        return boxes;
    };
    TextBox whole;
    const QVector<TextBox> inside = labelAt(1, &whole);
    QVERIFY(!whole.text.isEmpty());
    QVERIFY(!whole.cut);
    QVERIFY2(testhelpers::textLayoutProblem(inside, size, 0).isEmpty(),
             qPrintable(testhelpers::textLayoutProblem(inside, size, 0)));

    TextBox cut;
    const QVector<TextBox> outside = labelAt(9, &cut);
    QVERIFY(!cut.text.isEmpty());
    QVERIFY(cut.cut);
    QVERIFY(cut.rect.width() < whole.rect.width() / 2); // the part drawn
    QVERIFY(cut.rect.right() <= plot.axisRect()->rect().right() + 1);
    const QString problem = testhelpers::textLayoutProblem(outside, size, 0);
    QVERIFY2(problem.contains(QStringLiteral("cut")), qPrintable(problem));
    QVERIFY(textBoxesJson(outside).contains("\"cut\": true"));
    QVERIFY(!textBoxesJson(inside).contains("\"cut\""));
}

void TestReportRenderer::sweepViewsAtEveryPreset_data() {
    QTest::addColumn<QString>("sample");
    QTest::addColumn<QString>("view");
    QTest::addColumn<QString>("preset");
    const struct {
        const char* sample;
        const char* view;
    } cases[] = {{"sweep-work-1-4096.json", "sweep"},
                 {"sweep-block-32-1024-counters.json", "sweep"},
                 {"roofline-seed.json", "roofline"},
                 {"sweep-work-1-4096.json", "sweep,roofline"},
                 {"roofline-seed.json", "overview,roofline"},
                 {"sweep-block-32-1024-counters.json", "all"},
                 {"roofline-seed.json", "all"}};
    for (const auto& c : cases) {
        for (const QString& preset : exportPresetNames()) {
            QTest::newRow(
                qPrintable(QStringLiteral("%1 %2 %3")
                               .arg(QLatin1String(c.sample), QLatin1String(c.view), preset)))
                << QString::fromLatin1(c.sample) << QString::fromLatin1(c.view) << preset;
        }
    }
}

// The sweep chart and roofline of the shipped samples at every preset: the export is written,
// its axes are titled, the crossovers and ceilings are labelled on the plot and listed under it,
// and the text keeps the report's rules (inside the image, none cut, none over another, 9 pt).
void TestReportRenderer::sweepViewsAtEveryPreset() {
    QFETCH(QString, sample);
    QFETCH(QString, view);
    QFETCH(QString, preset);
    Session session;
    ViewState state;
    LoadResult result = TraceLoader::loadNow(QStringLiteral(SLICESCOPE_SAMPLES_DIR "/") + sample,
                                             RunOrigin::Sample);
    QVERIFY2(result.ok(), qPrintable(result.error));
    session.addRuns(std::move(result.runs));
    state.setSelectedRun(session.at(0)->id);
    ReportRenderer renderer(&session, reportInputs(session, state));
    ReportOptions options;
    options.views = *ReportViews::parse(view);
    renderer.setOptions(options);
    const auto p = exportPreset(preset);
    QVERIFY(p);
    const QString out = dir_.filePath(
        QStringLiteral("%1-%2-%3.png")
            .arg(sample.chopped(5), view.split(QLatin1Char(',')).join(QLatin1Char('+')), preset));
    QString error;
    QVector<TextBox> boxes;
    QVERIFY2(renderer.exportTo(out, p->sizePx, p->dpi, &error, &boxes), qPrintable(error));
    const QSize size = renderer.resolvedSize(p->sizePx, p->dpi);
    QCOMPARE(QImage(out).size(), size);
    if (preset == QStringLiteral("paper")) {
        const QString pdf = dir_.filePath(QStringLiteral("sweep-paper.pdf"));
        QVERIFY2(renderer.exportTo(pdf, p->sizePx, p->dpi, &error), qPrintable(error));
        QFile file(pdf);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(file.read(5).startsWith("%PDF"));
    }
    const QString problem = testhelpers::textLayoutProblem(boxes, size);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    auto has = [&boxes](const std::function<bool(const QString&)>& match) {
        return std::any_of(boxes.begin(), boxes.end(),
                           [&](const TextBox& box) { return match(box.text); });
    };
    auto hasText = [&has](const QString& text) {
        return has([&](const QString& t) { return t == text; });
    };
    // Panel titles whole: a sweep's file name gives way before anything is cut with "…".
    for (const TextBox& box : boxes) {
        if (box.text.startsWith(QStringLiteral("Time per repetition:")) ||
            box.text.startsWith(QStringLiteral("Occupancy and time:"))) {
            QVERIFY2(!box.text.endsWith(QChar(0x2026)), qPrintable(box.text));
        }
    }
    const bool roofline = sample.startsWith(QStringLiteral("roofline"));
    // `all` with the rest of the report on a slide leaves the sweep chart half the page: at
    // least it says what it left out.
    if (view == QStringLiteral("all") && (preset != QStringLiteral("paper"))) {
        QVERIFY(has([](const QString& t) {
            return t.startsWith(QStringLiteral("Roofline with the copies")) ||
                   t.startsWith(QStringLiteral("Time per repetition:")) ||
                   t.contains(QStringLiteral("need more room"));
        }));
        return;
    }
    if (roofline) {
        QVERIFY(hasText(QStringLiteral("arithmetic intensity (flop/byte)")));
        QVERIFY(hasText(QStringLiteral("Gflop/s")));
        // The ceilings on the plot (its legend) and in the notes under it.
        QVERIFY(has([](const QString& t) {
            return t.startsWith(QStringLiteral("DRAM roof, ")) &&
                   t.contains(QStringLiteral("GB/s"));
        }));
        QVERIFY(has([](const QString& t) {
            return t.contains(QStringLiteral("host link roof, ")) &&
                   t.contains(QStringLiteral("(measured)"));
        }));
        QVERIFY(has([](const QString& t) { return t.contains(QStringLiteral("FMA peak, ")); }));
        // The notes under it: the ceilings' line first, or, where the rest of the report leaves
        // the plot too little room for it, a line saying how many notes are left out.
        QVERIFY(has([&view](const QString& t) {
            return t.startsWith(QStringLiteral("Ceilings: ")) ||
                   (view != QStringLiteral("roofline") &&
                    t.contains(QStringLiteral("more lines not shown")));
        }));
        // Each run named by its colour in the legend.
        QVERIFY(hasText(QStringLiteral("elementwise-broadcast")));
    } else {
        const bool block = sample.contains(QStringLiteral("block"));
        QVERIFY(hasText(QStringLiteral("time per repetition (ms)")));
        QVERIFY(hasText(block ? QStringLiteral("threads per block")
                              : QStringLiteral("work per element")));
        if (block) {
            QVERIFY(hasText(QStringLiteral("occupancy (%)")));
            QVERIFY(
                has([](const QString& t) { return t.endsWith(QStringLiteral(": theoretical")); }));
        }
        // A crossover on the plot and in words under it.
        QVERIFY(has([](const QString& t) {
            return t.startsWith(QStringLiteral("\u2248 ")) &&
                   t.endsWith(QStringLiteral("(interpolated)"));
        }));
        QVERIFY(
            has([](const QString& t) { return t.startsWith(QStringLiteral("Crossover: from ")); }));
        if (view.contains(QStringLiteral("roofline"))) {
            // Asked for on a sweep measured without ceilings: said in words, not drawn empty.
            QVERIFY(has([](const QString& t) {
                return t.startsWith(QStringLiteral("Roofline: no GPU run here"));
            }));
            QVERIFY(!hasText(QStringLiteral("arithmetic intensity (flop/byte)")));
        }
    }
    // The chart's data is drawn, not a bare frame: the first line's (or run's) colour lies on
    // the plot away from every text, the legend's icons beside their names left out.
    const double scale = p->dpi / 96;
    QVector<QRectF> nearText;
    for (const TextBox& box : boxes) {
        nearText << box.rect.adjusted(-48 * scale, -box.rect.height() / 2, 0,
                                      box.rect.height() / 2);
    }
    const TextBox* panel = findBox(boxes, roofline ? QStringLiteral("Roofline with the copies")
                                                   : QStringLiteral("Time per repetition:"));
    QVERIFY(panel);
    const QImage image(out);
    const QRectF plots(0, panel->rect.top(), image.width(), image.height() - panel->rect.top());
    QVERIFY(pixelsOf(image, sweepplot::lineColor(0), plots, nearText) > 0);
    // The same view of no runs draws no line: the check sees the data.
    Session none;
    ReportRenderer empty(&none, reportInputs(none, state));
    empty.setOptions(options);
    const QImage emptyImage = empty.renderImage(size, p->dpi);
    QCOMPARE(pixelsOf(emptyImage, sweepplot::lineColor(0), emptyImage.rect()), 0);
}

// Asked for by name on runs with no sweep point and no ceilings: a line in words each, no chart;
// `all` on the same runs adds neither.
void TestReportRenderer::sweepViewsWithoutSweepsSaySo() {
    Scene scene; // one measured GPU run, one modelled on a preset without ceilings in the trace
    auto texts = [&scene](const QString& view, const QString& preset) {
        ReportOptions options;
        options.views = *ReportViews::parse(view);
        scene.renderer.setOptions(options);
        const auto p = exportPreset(preset);
        const QVector<TextBox> boxes = scene.renderer.textBoxes(p->sizePx, p->dpi);
        const QString problem =
            testhelpers::textLayoutProblem(boxes, scene.renderer.resolvedSize(p->sizePx, p->dpi));
        QStringList out;
        for (const auto& box : boxes) {
            out << box.text;
        }
        return std::pair{out.join(QLatin1Char('\n')), problem};
    };
    for (const QString& preset : exportPresetNames()) {
        const auto [sweep, problem] = texts(QStringLiteral("sweep"), preset);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QVERIFY2(sweep.contains(QStringLiteral("no run here carries a sweep point")),
                 qPrintable(sweep));
        QVERIFY(!sweep.contains(QStringLiteral("time per repetition (ms)")));
        QVERIFY(!sweep.contains(QStringLiteral("Crossover")));
    }
    const auto [all, problem] = texts(QStringLiteral("all"), QStringLiteral("hd"));
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QVERIFY(!all.contains(QStringLiteral("no run here carries a sweep point")));
    QVERIFY(!all.contains(QStringLiteral("Time per repetition:")));
}

// `slicescope --export-image --view sweep|roofline`: the views by name, a warning where the
// traces have none, and the views in --view's error message.
void TestReportRenderer::headlessSweepViews() {
    const QString out = dir_.filePath(QStringLiteral("headless-sweep.png"));
    const QString boxes = dir_.filePath(QStringLiteral("headless-sweep.json"));
    QProcess process;
    process.setProcessEnvironment(headlessEnvironment());
    process.start(testhelpers::guiPath(),
                  {QStringLiteral("--export-image"), out,
                   QStringLiteral(SLICESCOPE_SAMPLES_DIR "/sweep-work-1-4096.json"),
                   QStringLiteral("--size"), QStringLiteral("slide"), QStringLiteral("--view"),
                   QStringLiteral("sweep"), QStringLiteral("--text-boxes"), boxes});
    QVERIFY(process.waitForFinished(120'000));
    QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
    QVERIFY(!process.readAllStandardError().contains("warning"));
    QFile file(boxes);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray json = file.readAll();
    QVERIFY(json.contains("\"work per element\""));
    QVERIFY(json.contains("(interpolated)"));
    QVERIFY(!json.contains("\"cut\""));

    // The exit status and stderr of an export of a sample with --view.
    auto exportWith = [&](const char* sample, const QString& view) {
        process.start(testhelpers::guiPath(),
                      {QStringLiteral("--export-image"), out,
                       QStringLiteral(SLICESCOPE_SAMPLES_DIR "/") + QLatin1String(sample),
                       QStringLiteral("--view"), view});
        const bool finished = process.waitForFinished(120'000);
        return std::pair{finished ? process.exitCode() : -1, process.readAllStandardError()};
    };
    // No sweep point in the seed: the image says so, and so does stderr; exit 0.
    const auto [seedExit, err] =
        exportWith("seed-100x4000x5-f64-pageable.json", QStringLiteral("sweep,roofline"));
    QCOMPARE(seedExit, 0);
    QVERIFY2(err.contains("warning: --view sweep: no run in") &&
                 err.contains("warning: --view roofline: no GPU run in"),
             err.constData());
    const auto [usageExit, usage] = exportWith("roofline-seed.json", QStringLiteral("sweeps"));
    QCOMPARE(usageExit, 2);
    QVERIFY2(usage.contains("sweep, roofline"), usage.constData());
    process.start(testhelpers::guiPath(), {QStringLiteral("--help")});
    QVERIFY(process.waitForFinished(120'000));
    const QByteArray help = process.readAllStandardOutput();
    QVERIFY2(help.contains("roofline") && help.contains("sweep"), help.constData());
}

// Crossover labels close together go on rows of their own; one near the right edge turns to
// the left of its line instead of being cut by the plot's edge.
void TestReportRenderer::crossoverLabelsKeepClearOfEachOtherAndTheEdge() {
    models::SweepView sweep;
    sweep.key = QStringLiteral("test|work");
    sweep.title = QStringLiteral("work sweep");
    sweep.param = QStringLiteral("work");
    sweep.values = {QStringLiteral("1"), QStringLiteral("2"), QStringLiteral("4"),
                    QStringLiteral("8")};
    sweep.numbers = {1, 2, 4, 8};
    models::SweepLine a, b;
    a.strategy = QStringLiteral("a");
    b.strategy = QStringLiteral("b");
    a.timesNs = {1e6, 3e6, 1e6, 3e6};
    b.timesNs = {2e6, 2e6, 2e6, 2e6};
    sweep.lines = {a, b};
    for (double at : {1.4, 1.5, 7.6}) {
        trace::Crossover c;
        c.at = at;
        c.interpolated = true;
        c.lowValue = "1";
        c.highValue = "2";
        c.text = "from work " + std::to_string(at);
        sweep.crossovers.push_back(c);
    }
    sweep.verdict = {QStringLiteral("The verdict, as the model wrote it.")};
    QCustomPlot plot;
    sweepplot::setUp(&plot);
    sweepplot::reset(&plot);
    // The notes under the plot are the sweep's verdict (models::collectSweeps).
    QCOMPARE(sweepplot::drawTime(&plot, sweep), sweep.verdict);
    const QSize size(480, 320);
    QCOMPARE(sweepplot::layOut(&plot, size), 0);
    const QVector<TextBox> boxes = recordTextBoxes(
        size, [&](QCPPainter& painter) { plot.toPainter(&painter, size.width(), size.height()); });
    int labels = 0;
    for (const auto& box : boxes) {
        labels += box.text.endsWith(QStringLiteral("(interpolated)")) ? 1 : 0;
    }
    QCOMPARE(labels, 3);
    const QString problem = testhelpers::textLayoutProblem(boxes, size);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));

    // A crossover the engine could not interpolate (a point without a time) on a numeric axis
    // stands between its two values, on the plot, not at their indices.
    sweep.crossovers.clear();
    trace::Crossover between;
    between.interpolated = false;
    between.lowValue = "4";
    between.highValue = "8";
    between.text = "between work 4 and 8";
    sweep.crossovers.push_back(between);
    sweepplot::reset(&plot);
    sweepplot::drawTime(&plot, sweep);
    QCOMPARE(plot.itemCount(), 2); // its line and its label
    auto* line = qobject_cast<QCPItemStraightLine*>(plot.item(0));
    QVERIFY(line);
    const double x = line->point1->coords().x();
    QVERIFY2(x > 4 && x < 8, qPrintable(QString::number(x)));
}

// An export draws each sweep panel once, however often it is sized and painted (a paper page is
// sized first, then painted, which sizes again), and layOut only measures: it does not paint.
void TestReportRenderer::sweepPanelsAreDrawnOnceAndLaidOutWithoutPainting() {
    Session session;
    ViewState state;
    for (const char* sample : {"sweep-block-32-1024-counters.json", "roofline-seed.json"}) {
        LoadResult result = TraceLoader::loadNow(
            QStringLiteral(SLICESCOPE_SAMPLES_DIR "/") + QLatin1String(sample), RunOrigin::Sample);
        QVERIFY2(result.ok(), qPrintable(result.error));
        session.addRuns(std::move(result.runs));
    }
    state.setSelectedRun(session.at(0)->id);
    ReportRenderer renderer(&session, reportInputs(session, state));
    ReportOptions options;
    options.views = *ReportViews::parse(QStringLiteral("sweep,roofline"));
    renderer.setOptions(options);
    // The panels: each sweep's time, a block sweep's occupancy beside it, each roofline.
    const auto sweeps = models::collectSweeps(session.runs());
    int panels = int(models::collectRooflines(session.runs()).size());
    for (const auto& sweep : sweeps) {
        panels += sweep.param == QStringLiteral("block") ? 2 : 1;
    }
    QVERIFY(panels >= 3);
    const auto paper = exportPreset(QStringLiteral("paper"));
    QVERIFY(paper);
    QString error;
    QVERIFY2(renderer.exportTo(dir_.filePath(QStringLiteral("once.png")), paper->sizePx, paper->dpi,
                               &error),
             qPrintable(error));
    QCOMPARE(renderer.sweepPanelsBuilt(), panels);
    // A change to the session draws them again, once.
    session.setVisible(0, false);
    session.setVisible(0, true);
    QVERIFY2(renderer.exportTo(dir_.filePath(QStringLiteral("again.png")), paper->sizePx,
                               paper->dpi, &error),
             qPrintable(error));
    QCOMPARE(renderer.sweepPanelsBuilt(), 2 * panels);

    QCustomPlot plot;
    sweepplot::setUp(&plot);
    sweepplot::reset(&plot);
    sweepplot::drawTime(&plot, sweeps.front());
    QSignalSpy replots(&plot, &QCustomPlot::beforeReplot);
    for (const QSize size : {QSize(480, 320), QSize(1200, 700), QSize(300, 600)}) {
        sweepplot::layOut(&plot, size);
        // Measured all the same: the axes fill the viewport less the legend and the tick labels.
        QVERIFY(plot.axisRect()->width() > size.width() / 2);
        QVERIFY(plot.axisRect()->rect().bottom() < size.height());
    }
    QCOMPARE(replots.count(), 0);
}

// The Export image dialog offers the views --view takes, the sweep chart and roofline among them.
void TestReportRenderer::exportDialogOffersTheSweepViews() {
    ExportImageDialog dialog(dir_.filePath(QStringLiteral("dialog.png")));
    QComboBox* views = dialog.viewChoice();
    for (int i = 0; i < views->count(); ++i) {
        QVERIFY2(ReportViews::parse(views->itemData(i).toString()),
                 qPrintable(views->itemData(i).toString()));
    }
    for (const char* name : {"sweep", "roofline", "sweep,roofline"}) {
        const int index = views->findData(QString::fromLatin1(name));
        QVERIFY2(index >= 0, name);
        views->setCurrentIndex(index);
        const ReportViews chosen = dialog.options().views;
        QCOMPARE(chosen.sweep, QByteArray(name).contains("sweep"));
        QCOMPARE(chosen.roofline, QByteArray(name).contains("roofline"));
        QVERIFY(!chosen.timeline() && !chosen.breakdown && !chosen.occupancy);
    }
}

QTEST_MAIN(TestReportRenderer)
// The window's export draws what its timeline shows (its zoom), on a plot of its own: the live
// timeline keeps its time range, rows, expanded runs, fonts and tick count.
void TestReportRenderer::exportFromTheWindowLeavesItsTimelineAlone() {
    Scene scene;
    TimelineView timeline(&scene.session, &scene.state);
    OccupancyView occupancy(&scene.session, &scene.state);
    timeline.resize(900, 400);
    // At the window's first zoom, the window's export is the headless one.
    ReportRenderer fromWindow(&scene.session, reportInputs(timeline, occupancy));
    const QSize size(1280, 720);
    QCOMPARE(fromWindow.renderImage(size), scene.renderer.renderImage(size));

    timeline.zoomBy(0.25);
    timeline.setRunExpanded(QStringLiteral("modelled"), true);
    const QCPRange keys = timeline.xAxis->range();
    const QCPRange rows = timeline.yAxis->range();
    const QFont tickFont = timeline.xAxis->tickLabelFont();
    const QString label = timeline.xAxis->label();
    const int tickCount = timeline.xAxis->ticker()->tickCount();
    QSignalSpy keySpy(timeline.xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged));
    QSignalSpy rowSpy(timeline.yAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged));
    ReportRenderer zoomed(&scene.session, reportInputs(timeline, occupancy));
    for (const QString& view : {QStringLiteral("overview"), QStringLiteral("all")}) {
        ReportOptions options;
        options.views = *ReportViews::parse(view);
        zoomed.setOptions(options);
        QString error;
        QVERIFY2(
            zoomed.exportTo(dir_.filePath(view + QStringLiteral("-zoomed.png")), size, 96, &error),
            qPrintable(error));
    }
    QCOMPARE(keySpy.count(), 0);
    QCOMPARE(rowSpy.count(), 0);
    QCOMPARE(timeline.xAxis->range(), keys);
    QCOMPARE(timeline.yAxis->range(), rows);
    QVERIFY(timeline.isRunExpanded(QStringLiteral("modelled")));
    QVERIFY(!timeline.isRunExpanded(QStringLiteral("slice-outer")));
    QCOMPARE(timeline.xAxis->tickLabelFont(), tickFont);
    QCOMPARE(timeline.xAxis->label(), label);
    QCOMPARE(timeline.xAxis->ticker()->tickCount(), tickCount);
    // ... and the export shows the window's zoom, not the full range.
    zoomed.setOptions(ReportOptions());
    QVERIFY(zoomed.renderImage(size) != scene.renderer.renderImage(size));
}

namespace {

// Counts the events any TimelineView or OccupancyView receives (its making sends some: the
// children it adds).
class ViewWidgetWatch : public QObject {
  public:
    int events = 0;
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (qobject_cast<TimelineView*>(watched) || qobject_cast<OccupancyView*>(watched)) {
            ++events;
        }
        return QObject::eventFilter(watched, event);
    }
};

} // namespace

// A headless export is drawn from the session and the selection alone: no view widget is made.
void TestReportRenderer::headlessExportMakesNoViewWidget() {
    ViewWidgetWatch watch;
    qApp->installEventFilter(&watch);
    {
        Session session;
        ViewState state;
        fillScene(session, state);
        ReportRenderer renderer(&session, reportInputs(session, state));
        ReportOptions options;
        options.views = *ReportViews::parse(QStringLiteral("all"));
        renderer.setOptions(options);
        QString error;
        QVector<TextBox> boxes;
        QVERIFY2(renderer.exportTo(dir_.filePath(QStringLiteral("no-widgets.png")),
                                   QSize(1280, 720), 96, &error, &boxes),
                 qPrintable(error));
        QVERIFY(!boxes.isEmpty());
    }
    QCOMPARE(watch.events, 0);
    // The watch sees a view being made.
    {
        Session session;
        ViewState state;
        const TimelineView timeline(&session, &state);
    }
    qApp->removeEventFilter(&watch);
    QVERIFY(watch.events > 0);
}

#include "tst_reportrenderer.moc"

// At slide size every run's header begins with its name, its time per repetition and its
// verdict's first clause (what a narrow header keeps); the axis title is shortened, not cut; the
// legend names only the lanes drawn (the seed's API, sync and profiler lanes stay closed); and
// --runs exports only the runs named, refusing a name the traces do not hold.
void TestReportRenderer::slidesKeepEachRunsFigure() {
    const QString sample =
        QStringLiteral(SLICESCOPE_SAMPLES_DIR "/seed-100x4000x5-f64-pageable.json");
    const QString out = dir_.filePath(QStringLiteral("slide-figures.png"));
    const QString boxes = dir_.filePath(QStringLiteral("slide-figures.json"));
    const auto exportSlide = [&](const QStringList& more) {
        QProcess process;
        process.setProcessEnvironment(headlessEnvironment());
        process.start(testhelpers::guiPath(),
                      QStringList{QStringLiteral("--export-image"), out, sample,
                                  QStringLiteral("--size"), QStringLiteral("slide"),
                                  QStringLiteral("--text-boxes"), boxes} +
                          more);
        const bool finished = process.waitForFinished(120'000);
        return std::pair{finished ? process.exitCode() : -1, process.readAllStandardError()};
    };
    const auto texts = [&] {
        QStringList all;
        for (const auto& box : readTextBoxes(boxes)) {
            all << box.text;
        }
        return all;
    };
    QCOMPARE(exportSlide({}).first, 0);
    const QStringList all = texts();
    static const QRegularExpression header(
        QStringLiteral("^\\x{25b8} [a-z0-9-]+  \\x{00b7}  [0-9.]+ (ns|\\x{00b5}s|ms|s)  \\x{00b7}  "
                       "[a-z]+ [a-z ]+"));
    int headers = 0;
    for (const QString& text : all) {
        if (text.startsWith(QChar(0x25b8))) {
            ++headers;
            QVERIFY2(header.match(text).hasMatch(), qPrintable(text));
        }
    }
    QCOMPARE(headers, 9);
    QVERIFY(all.contains(QStringLiteral("time since each run's first copy, kernel or compute")));
    QVERIFY(all.contains(QStringLiteral("HtoD: copies host to device")));
    for (const QString& text : all) {
        QVERIFY2(!text.startsWith(QStringLiteral("API:")) &&
                     !text.startsWith(QStringLiteral("sync:")) &&
                     !text.startsWith(QStringLiteral("profiler:")),
                 qPrintable(text));
    }

    QCOMPARE(
        exportSlide({QStringLiteral("--runs"), QStringLiteral("slice-middle,cpu-serial")}).first,
        0);
    int shown = 0;
    for (const QString& text : texts()) {
        shown += text.startsWith(QChar(0x25b8)) ? 1 : 0;
    }
    QCOMPARE(shown, 2);

    // The host's colour is in the legend where host compute is drawn in it (cpu-serial), the
    // layout colour where layout passes are (slice-middle's transposes, in the breakdown's
    // colour for them), neither for GPU runs whose only host spans are set-up and checks, drawn
    // muted.
    const auto inLegend = [&](const QString& start) {
        const QStringList written = texts();
        return std::any_of(written.cbegin(), written.cend(),
                           [&start](const QString& text) { return text.startsWith(start); });
    };
    const QString host = QStringLiteral("host: ");
    const QString layout = QStringLiteral("layout: ");
    QCOMPARE(exportSlide({QStringLiteral("--runs"), QStringLiteral("one-worker,slice-2d")}).first,
             0);
    QVERIFY(!inLegend(host) && !inLegend(layout));
    QCOMPARE(
        exportSlide({QStringLiteral("--runs"), QStringLiteral("one-worker,slice-middle")}).first,
        0);
    QVERIFY(!inLegend(host) && inLegend(layout));
    const QImage image(out);
    const QRectF page(0, 0, image.width(), findBox(readTextBoxes(boxes), layout)->rect.top() - 2);
    QVERIFY(pixelsOf(image, theme::hostLayoutColor(), page) > 100);
    QCOMPARE(pixelsOf(image, theme::laneColor(LaneKind::Host), page), 0);
    QCOMPARE(
        exportSlide({QStringLiteral("--runs"), QStringLiteral("cpu-serial,slice-middle")}).first,
        0);
    QVERIFY(inLegend(host) && inLegend(layout));
    const QImage both(out);
    const QRectF above = aboveLaneLegend(readTextBoxes(boxes), both.size(), LaneKind::Host);
    QVERIFY(pixelsOf(both, theme::laneColor(LaneKind::Host), above) > 100);

    const auto [exit, err] = exportSlide({QStringLiteral("--runs"), QStringLiteral("nope")});
    QCOMPARE(exit, 2);
    QVERIFY2(err.contains("--runs: no run 'nope'") && err.contains("slice-middle"),
             err.constData());
}

// Issue 27: a header too narrow for its verdict's first clause says the share short ("kernel
// 97 %"), so a slide of a sweep's 28 runs with long names still says what dominates each; with
// room, the clause is whole.
void TestReportRenderer::narrowHeadersSayTheShareShort() {
    const QFontMetricsF metrics(theme::plotFont(9.5, true));
    const QString dot = QStringLiteral("  \u00b7  ");
    const QStringList clauses{QStringLiteral("one-worker@rows=100") + dot +
                                  QStringLiteral("114 ms"),
                              QStringLiteral("the kernel takes 97 % of the run"),
                              QStringLiteral("measured on NVIDIA H200")};
    const QString brief = clauses[0] + dot + QStringLiteral("kernel 97 %");
    const QString whole = clauses[0] + dot + clauses[1];
    QCOMPARE(fitClauses(clauses, metrics, metrics.horizontalAdvance(brief) + 2), brief);
    QCOMPARE(fitClauses(clauses, metrics, metrics.horizontalAdvance(whole) + 2), whole);
    QCOMPARE(fitClauses(clauses, metrics, metrics.horizontalAdvance(clauses[0]) + 2), clauses[0]);
    // A clause is never cut inside its parenthesis: the warm-up's "(greyed, not counted)" read
    // "(greyed" at the slide's right edge.
    const QStringList warmUp{clauses[0],
                             QStringLiteral("1 warm-up iteration before it (greyed, not counted)")};
    const QString opened =
        clauses[0] + dot + QStringLiteral("1 warm-up iteration before it (greyed");
    QCOMPARE(fitClauses(warmUp, metrics, metrics.horizontalAdvance(opened) + 2), clauses[0]);

    // The sweep of 28 runs at slide size: every header of the 14 drawn says its verdict's share;
    // before, none did, then the element-wise runs' did not (their long names left no room: a
    // collapsed run's row is labelled with its name, so its header may leave the name out).
    Session session;
    ViewState state;
    LoadResult result = TraceLoader::loadNow(
        QStringLiteral(SLICESCOPE_SAMPLES_DIR "/sweep-rows-100-100000.json"), RunOrigin::Opened);
    QVERIFY2(result.ok(), qPrintable(result.error));
    session.addRuns(std::move(result.runs));
    QTRY_VERIFY(!session.at(session.count() - 1)->verdict.isEmpty());
    ReportRenderer renderer(&session, reportInputs(session, state));
    const auto p = exportPreset(QStringLiteral("slide"));
    int headers = 0;
    int withShare = 0;
    const QVector<TextBox> boxes = renderer.textBoxes(p->sizePx, p->dpi);
    for (const TextBox& box : boxes) {
        if (box.text.startsWith(QChar(0x25b8))) {
            ++headers;
            withShare += box.text.endsWith(QStringLiteral(" %")) ||
                                 box.text.endsWith(QStringLiteral(" % of the run"))
                             ? 1
                             : 0;
            if (box.text.startsWith(QStringLiteral("\u25b8 slice-")) ||
                box.text.startsWith(QStringLiteral("\u25b8 one-worker"))) {
                QVERIFY2(box.text.endsWith(QStringLiteral(" %")), qPrintable(box.text));
            }
        }
    }
    QCOMPARE(headers, 14);
    QCOMPARE(withShare, 14);
    QVERIFY(findBox(boxes, QStringLiteral("\u25b8 6.20 ms  \u00b7  copies take 76 % of the run")));
    QVERIFY(findBox(boxes, QStringLiteral("elementwise-materialized@rows=100")));

    // The breakdown scales its bars to the runs it draws (the longest 1.47 s), not to the runs
    // it leaves out (one of 147 s: every bar drawn was a sliver), and the timeline's note says
    // what it left out in whole words.
    const TextBox* breakdownTitle = findBox(boxes, QStringLiteral("Where one repetition"));
    const TextBox* axisTitle = findBox(boxes, QStringLiteral("time per repetition"));
    QVERIFY(breakdownTitle && axisTitle);
    const TextBox* lastTick = nullptr;
    for (const TextBox& box : boxes) {
        const bool tick = box.rect.left() >= breakdownTitle->rect.left() &&
                          box.rect.bottom() <= axisTitle->rect.top() + 1 &&
                          box.rect.top() > axisTitle->rect.top() - 2 * axisTitle->rect.height() &&
                          box.text.endsWith(QStringLiteral(" s"));
        if (tick && (!lastTick || box.rect.left() > lastTick->rect.left())) {
            lastTick = &box;
        }
    }
    QVERIFY(lastTick);
    const double top = lastTick->text.chopped(2).toDouble();
    QVERIFY2(top >= 1.47 && top < 3, qPrintable(lastTick->text));
    const TextBox* note = findBox(boxes, QStringLiteral("Timeline: the first 14 of 28 runs"));
    QVERIFY(note);
    QVERIFY2(!note->text.contains(QChar(0x2026)), qPrintable(note->text));
    // hd and 4k are the slide's layout scaled: the note sends the user to the run choice, not
    // to a larger size that shows the same 14 runs.
    QVERIFY2(note->text.contains(QStringLiteral("--runs")) &&
                 !note->text.contains(QStringLiteral("larger size")),
             qPrintable(note->text));
    for (const TextBox& box : boxes) {
        QVERIFY2(!box.text.contains(QStringLiteral("larger size")), qPrintable(box.text));
    }
}

// The rows sweep's crossovers, on the chart and in the note under it, in the same figures and
// without an exponent: the note said "rows ≈ 1.8e+03" beside a label "≈ 1,801".
void TestReportRenderer::crossoverLabelsSayTheNotesFigure() {
    Session session;
    ViewState state;
    LoadResult result = TraceLoader::loadNow(
        QStringLiteral(SLICESCOPE_SAMPLES_DIR "/sweep-rows-100-100000.json"), RunOrigin::Opened);
    QVERIFY2(result.ok(), qPrintable(result.error));
    session.addRuns(std::move(result.runs));
    ReportRenderer renderer(&session, reportInputs(session, state));
    ReportOptions options;
    options.views = *ReportViews::parse(QStringLiteral("sweep"));
    renderer.setOptions(options);
    const auto p = exportPreset(QStringLiteral("slide"));
    const QVector<TextBox> boxes = renderer.textBoxes(p->sizePx, p->dpi);
    QVERIFY(findBox(boxes, QStringLiteral("\u2248 359 (interpolated)")));
    QVERIFY(findBox(boxes, QStringLiteral("\u2248 1,800 (interpolated)")));
    QVERIFY(findBox(boxes, QStringLiteral("Crossover: from rows \u2248 359 ")));
    QVERIFY(findBox(boxes, QStringLiteral("Crossover: from rows \u2248 1800 ")));
}

// Issue 27: a run header longer than its lane keeps whole clauses at slide size, never half of
// one cut with "…", and a projected run says "projected onto" once (its verdict began with it
// too). The seed projected onto the T4 by the CLI, beside its measured runs.
void TestReportRenderer::slideHeadersKeepWholeClauses() {
    const QString seed =
        QStringLiteral(SLICESCOPE_SAMPLES_DIR "/seed-100x4000x5-f64-pageable.json");
    const QString projected = dir_.filePath(QStringLiteral("seed-on-t4.json"));
    QCOMPARE(testhelpers::runCli({QStringLiteral("project"), seed, QStringLiteral("--device"),
                                  QStringLiteral("t4"), QStringLiteral("-o"), projected}),
             0);
    Session session;
    for (const QString& file : {seed, projected}) {
        LoadResult result = TraceLoader::loadNow(file, RunOrigin::Opened);
        QVERIFY2(result.ok(), qPrintable(result.error));
        session.addRuns(std::move(result.runs));
    }
    QTRY_VERIFY(!session.at(session.count() - 1)->verdict.isEmpty());
    ViewState state;
    ReportRenderer renderer(&session, reportInputs(session, state));
    const auto p = exportPreset(QStringLiteral("slide"));
    const QVector<TextBox> boxes = renderer.textBoxes(p->sizePx, p->dpi);
    QSet<QString> projectedIds;
    for (int i = 0; i < session.count(); ++i) {
        if (session.at(i)->run->mode == trace::RunMode::Projected) {
            projectedIds.insert(session.at(i)->id);
        }
    }
    QVERIFY(!projectedIds.isEmpty());
    int headers = 0, projectedHeaders = 0;
    for (const auto& box : boxes) {
        if (!box.text.startsWith(QChar(0x25b8)) && !box.text.startsWith(QChar(0x25be))) {
            continue;
        }
        ++headers;
        QVERIFY2(!box.text.endsWith(QChar(0x2026)), qPrintable(box.text));
        const QString id = box.text.mid(2).section(QStringLiteral("  \u00b7  "), 0, 0);
        const int says = box.text.count(QStringLiteral("projected onto"), Qt::CaseInsensitive);
        // A projected run says so once, in the first clause a slide keeps; no other run does. A
        // header that leaves the name to its row's label is counted below.
        const bool named = session.indexOf(id) >= 0;
        QVERIFY2(says == (projectedIds.contains(id) ? 1 : 0) || (!named && says == 1),
                 qPrintable(box.text));
        projectedHeaders += says;
    }
    QVERIFY2(headers >= 2, qPrintable(QString::number(headers)));
    QVERIFY(projectedHeaders >= 1);
    if (headers == session.count()) {
        QCOMPARE(projectedHeaders, int(projectedIds.size()));
    }
}

void TestReportRenderer::oneRunFillsTheSlide_data() {
    QTest::addColumn<QString>("sample");
    QTest::addColumn<QString>("run"); // the one run left visible; empty: the sample's only run
    QTest::addColumn<QString>("preset");
    for (const char* preset : {"slide", "hd", "4k"}) {
        QTest::newRow(qPrintable(QStringLiteral("slice-middle %1").arg(QLatin1String(preset))))
            << QStringLiteral("seed-100x4000x5-f64-pageable.json") << QStringLiteral("slice-middle")
            << QString::fromLatin1(preset);
        QTest::newRow(qPrintable(QStringLiteral("numba %1").arg(QLatin1String(preset))))
            << QStringLiteral("recorded-numba.json") << QString() << QString::fromLatin1(preset);
    }
    // Two and three runs (issue 27): the lower third was left blank (two runs: 42 of 64 cells).
    QTest::newRow("two runs slide")
        << QStringLiteral("seed-100x4000x5-f64-pageable.json")
        << QStringLiteral("slice-middle,cpu-serial") << QStringLiteral("slide");
    QTest::newRow("three runs slide")
        << QStringLiteral("seed-100x4000x5-f64-pageable.json")
        << QStringLiteral("one-worker,slice-middle,cpu-serial") << QStringLiteral("slide");
}

// A slide of one run is laid out for it, not ¾ empty (the timeline in 60 % of the width with the
// rest under it left blank): the timeline across the page with the run's lanes, the charts side
// by side under it, the run's verdict and its launch in words. Measured as the cells of an 8x8
// grid over the page between the title and the lanes' legend that have something drawn in them:
// the old layout drew in 23 (slice-middle) and 30 (numba) of the 64, this one in 51 or 52; at
// least 48 are asked for. A slide of two or three runs is held to the same (it left the lower
// third blank: see the rows' comment).
void TestReportRenderer::oneRunFillsTheSlide() {
    QFETCH(QString, sample);
    QFETCH(QString, run);
    QFETCH(QString, preset);
    Session session;
    ViewState state;
    LoadResult result = TraceLoader::loadNow(QStringLiteral(SLICESCOPE_SAMPLES_DIR "/") + sample,
                                             RunOrigin::Opened);
    QVERIFY2(result.ok(), qPrintable(result.error));
    session.addRuns(std::move(result.runs));
    const QStringList runs = run.split(QLatin1Char(','), Qt::SkipEmptyParts);
    for (int i = 0; i < session.count(); ++i) {
        session.setVisible(i, runs.isEmpty() || runs.contains(session.at(i)->id));
    }
    const RunEntryPtr shown = runs.isEmpty() ? session.at(0) : session.find(runs.front());
    QVERIFY(shown);
    QTRY_VERIFY(!shown->verdict.isEmpty()); // the session's verdicts come from a worker
    ReportRenderer renderer(&session, reportInputs(session, state)); // no run selected
    const auto p = exportPreset(preset);
    const QImage image = renderer.renderImage(p->sizePx, p->dpi);
    const QVector<TextBox> boxes = renderer.textBoxes(p->sizePx, p->dpi);
    const QString problem = testhelpers::textLayoutProblem(boxes, image.size());
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    // Something drawn in at least 48 of the 64 cells of an 8x8 grid between the title and the
    // legend.
    const TextBox* title = findBox(boxes, QStringLiteral("SliceScope"));
    QVERIFY(title);
    const QRectF page = aboveLaneLegend(boxes, image.size(), LaneKind::HtoD)
                            .adjusted(0, title->rect.bottom() + 4, 0, 0);
    QVERIFY(page.height() > image.height() * 0.7);
    const QImage rgb = image.convertToFormat(QImage::Format_RGB32);
    int filled = 0;
    QStringList empty;
    constexpr int kCells = 8;
    for (int row = 0; row < kCells; ++row) {
        for (int column = 0; column < kCells; ++column) {
            const QRect cell = QRectF(page.left() + page.width() * column / kCells,
                                      page.top() + page.height() * row / kCells,
                                      page.width() / kCells, page.height() / kCells)
                                   .toRect();
            qint64 drawn = 0;
            for (int y = cell.top(); y <= cell.bottom(); ++y) {
                const auto* line = reinterpret_cast<const QRgb*>(rgb.constScanLine(y));
                for (int x = cell.left(); x <= cell.right(); ++x) {
                    drawn += (line[x] & 0xffffff) != 0xffffff ? 1 : 0;
                }
            }
            if (double(drawn) >= 0.005 * double(cell.width()) * double(cell.height())) {
                ++filled;
            } else {
                empty << QStringLiteral("(%1,%2)").arg(row).arg(column);
            }
        }
    }
    QVERIFY2(filled >= 48, qPrintable(QStringLiteral("%1 of 64 cells drawn in; empty: %2")
                                          .arg(filled)
                                          .arg(empty.join(QLatin1Char(' ')))));
    // The figures and the words: the run's header with its time, its lanes, its verdict and its
    // launch in words; of a few runs, each one's verdict and the first GPU run's launch.
    QVERIFY(findBox(boxes, QStringLiteral("HtoD")));
    QVERIFY(findBox(boxes, QStringLiteral("This launch fills")) ||
            findBox(boxes, QStringLiteral("1 block of")));
    if (runs.size() <= 1) {
        QVERIFY(findBox(boxes, QString(QChar(0x25be)) + QLatin1Char(' ') + shown->id)); // opened
        QVERIFY(findBox(boxes, QStringLiteral("Verdict on ") + shown->id));
        if (sample == QStringLiteral("recorded-numba.json")) {
            // A recorded program's kernels each get their launch occupancy, and the lesson of
            // numba's launch is said at every preset (it went below a full column, unseen).
            QVERIFY(findBox(boxes, QStringLiteral("launch occupancy")));
            QVERIFY(findBox(boxes, QStringLiteral("0.38 %")));
            QVERIFY(findBox(boxes, QStringLiteral("numba's @guvectorize kernel")));
        }
        return;
    }
    QVERIFY(findBox(boxes, QStringLiteral("Verdicts")));
    for (const QString& id : runs) {
        QVERIFY2(findBox(boxes, id + QStringLiteral(": ")), qPrintable(id));
    }
    QVERIFY(findBox(boxes, shown->id + QStringLiteral(" on ")));
}

// The words about a run's launch that an export of one run offers under its occupancy chart
// never push the chart's rows into their compact form (no value texts): a PyTorch trace of 11
// kernels at hd keeps each kernel's figure, and the words take the room left under them.
// Issue 27: the seed's nine runs at slide size draw their charts' rows compact, and each row
// still says its figures: one-worker's 114 ms in the breakdown and its 0.024 %, 100 % and
// 0.00037 % in the occupancy chart, as paper does.
void TestReportRenderer::aSlideOfManyRunsKeepsEveryRunsFigures() {
    Session session;
    ViewState state;
    LoadResult result = TraceLoader::loadNow(
        QStringLiteral(SLICESCOPE_SAMPLES_DIR "/seed-100x4000x5-f64-pageable.json"),
        RunOrigin::Opened);
    QVERIFY2(result.ok(), qPrintable(result.error));
    session.addRuns(std::move(result.runs));
    ReportRenderer renderer(&session, reportInputs(session, state));
    const auto p = exportPreset(QStringLiteral("slide"));
    const QVector<TextBox> boxes = renderer.textBoxes(p->sizePx, p->dpi);
    const QString problem = testhelpers::textLayoutProblem(boxes, p->sizePx);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    const TextBox* breakdownTitle = findBox(boxes, QStringLiteral("Where one repetition"));
    QVERIFY(breakdownTitle);
    int times = 0;
    for (const auto& box : boxes) {
        // A chart's figures are right of its title's start, below it; the timeline's headers are
        // left of it.
        const bool inCharts = box.rect.left() > breakdownTitle->rect.left() &&
                              box.rect.top() > breakdownTitle->rect.bottom();
        times += inCharts && box.text.endsWith(QStringLiteral(" ms")) &&
                         !box.text.contains(QStringLiteral("0 ms"))
                     ? 1
                     : 0;
    }
    QVERIFY2(times >= 7, qPrintable(QString::number(times))); // 114 ms, 6.02 ms, 17.5 ms, ...
    QVERIFY(findBox(boxes, QStringLiteral("0.024 % \u00b7 100 % \u00b7 0.00037 %")));
}

void TestReportRenderer::oneRunOfManyKernelsKeepsTheirFigures() {
    Session session;
    ViewState state;
    LoadResult result = TraceLoader::loadNow(
        QStringLiteral(SLICESCOPE_TEST_DATA_DIR "/import/kineto-cnn.json"), RunOrigin::Opened);
    QVERIFY2(result.ok(), qPrintable(result.error));
    session.addRuns(std::move(result.runs));
    QCOMPARE(session.count(), 1);
    ReportRenderer renderer(&session, reportInputs(session, state));
    ReportOptions options;
    options.views = *ReportViews::parse(QStringLiteral("occupancy"));
    renderer.setOptions(options);
    const auto p = exportPreset(QStringLiteral("hd"));
    const QVector<TextBox> boxes = renderer.textBoxes(p->sizePx, p->dpi);
    const QString problem = testhelpers::textLayoutProblem(boxes, p->sizePx);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    int figures = 0;
    for (const auto& box : boxes) {
        figures += box.text.endsWith(QStringLiteral(" %")) && box.text.size() <= 6 ? 1 : 0;
    }
    QVERIFY2(figures >= 11 + 3, qPrintable(QString::number(figures))); // and the axis's ticks
    QVERIFY(findBox(boxes, QStringLiteral("This launch fills")));
}
