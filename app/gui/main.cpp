// slicescope: the GUI. It measures through slicescope-cli child processes; it never calls CUDA.
#include "gui/mainwindow.h"
#include "gui/occupancyview.h"
#include "gui/reportrenderer.h"
#include "gui/timelineview.h"
#include "models/session.h"
#include "models/sweepdata.h"
#include "models/traceloader.h"
#include "models/viewstate.h"
#include "slicescope/problem/problem.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QIcon>
#include <QRegularExpression>
#include <QSaveFile>
#include <cstdio>

namespace {

using namespace slicescope;

constexpr int kExitUsage = 2;

// main() has no QObject to translate through: the program's own context.
QString tr(const char* text) {
    return QCoreApplication::translate("slicescope", text);
}

int fail(const QString& message, int status = 1) {
    std::fprintf(stderr, "slicescope: error: %s\n", message.toLocal8Bit().constData());
    return status;
}

void warn(const QString& message) {
    std::fprintf(stderr, "slicescope: warning: %s\n", message.toLocal8Bit().constData());
}

bool parseSize(const QString& text, QSize& size) {
    static const QRegularExpression pattern(QStringLiteral("^(\\d{2,5})[xX](\\d{2,5})$"));
    const auto match = pattern.match(text);
    if (!match.hasMatch()) {
        return false;
    }
    size = QSize(match.captured(1).toInt(), match.captured(2).toInt());
    return true;
}

// `slicescope --export-image OUT TRACE [--size WxH|slide|hd|4k|paper] [--dpi N] [--view V]
// [--text-boxes BOXES.json]`: no window, an exit status.
int exportHeadless(const QString& out, const QStringList& traces, const QSize& size, double dpi,
                   const gui::ReportOptions& options, const QString& textBoxesPath) {
    if (traces.isEmpty()) {
        return fail(
            tr("--export-image needs a trace file: slicescope --export-image OUT.png TRACE.json"),
            kExitUsage);
    }
    models::Session session;
    models::ViewState state;
    for (const QString& path : traces) {
        models::LoadResult result = models::TraceLoader::loadNow(path, models::RunOrigin::Opened);
        if (!result.ok()) {
            return fail(tr("cannot read %1: %2").arg(path, result.error));
        }
        if (result.runs.empty()) {
            return fail(tr("%1 holds no runs").arg(path));
        }
        session.addRuns(std::move(result.runs));
    }
    QString selected = session.at(0)->id;
    for (const auto& entry : session.runs()) {
        if (entry->isGpu()) {
            selected = entry->id;
            break;
        }
    }
    state.setSelectedRun(selected);
    // A sweep chart or roofline asked for by name on runs that have none: the image says so in
    // a line, and so does the program, so that a script notices.
    if (options.views.sweep && models::collectSweeps(session.runs()).isEmpty()) {
        warn(tr("--view sweep: no run in %1 carries a sweep point; the image says so instead "
                "of drawing a sweep chart")
                 .arg(traces.join(tr(", "))));
    }
    if (options.views.roofline && models::collectRooflines(session.runs()).isEmpty()) {
        warn(tr("--view roofline: no GPU run in %1 has roofline ceilings; the image says so "
                "instead of drawing a roofline")
                 .arg(traces.join(tr(", "))));
    }
    gui::TimelineView timeline(&session, &state);
    gui::OccupancyView occupancy(&session, &state);
    gui::ReportRenderer renderer(&timeline, &occupancy, &session);
    renderer.setOptions(options);
    QString error;
    QVector<gui::TextBox> boxes;
    if (!renderer.exportTo(out, size, dpi, &error, textBoxesPath.isEmpty() ? nullptr : &boxes)) {
        return fail(error);
    }
    if (!textBoxesPath.isEmpty()) {
        QSaveFile file(textBoxesPath);
        const QByteArray json = gui::textBoxesJson(boxes);
        if (!file.open(QIODevice::WriteOnly) || file.write(json) != json.size() || !file.commit()) {
            return fail(tr("cannot write %1").arg(textBoxesPath));
        }
    }
    const QSize written = renderer.resolvedSize(size, dpi);
    std::printf("wrote %s (%dx%d)\n", QFileInfo(out).absoluteFilePath().toLocal8Bit().constData(),
                written.width(), written.height());
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    // The headless export, --help and --version must work with no display: choose the offscreen
    // platform before Qt looks for one, unless the user chose a platform.
    bool headless = false;
    for (int i = 1; i < argc && qstrcmp(argv[i], "--") != 0; ++i) {
        for (const char* option :
             {"--export-image", "--help", "--help-all", "-h", "-?", "--version", "-v"}) {
            headless = headless || qstrcmp(argv[i], option) == 0;
        }
        headless = headless || qstrncmp(argv[i], "--export-image=", 15) == 0;
    }
    if (headless && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("SliceScope"));
    QApplication::setOrganizationName(
        QStringLiteral("SliceScope")); // ~/.config/SliceScope/SliceScope.conf
    QApplication::setApplicationVersion(QStringLiteral("0.1.0"));
    QApplication::setDesktopFileName(QStringLiteral("slicescope"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/slicescope.svg")));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        tr("SliceScope: how the way GPU work is sliced decides its speed. Opens "
           "traces, runs strategies through "
           "slicescope-cli, and shows timelines and occupancy side by side."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("traces"), tr("Trace files to open."),
                                 QStringLiteral("[TRACE.json...]"));
    const QCommandLineOption exportImage(
        QStringLiteral("export-image"),
        tr("Write the report of the traces (the views --view names) to FILE "
           "(.png, .pdf or .svg) and exit; no window is shown."),
        QStringLiteral("FILE"));
    const QCommandLineOption size(
        QStringLiteral("size"),
        tr("Image size for --export-image: WxH in pixels (default 1920x1080), or a preset: "
           "slide (1280x720), hd (1920x1080), 4k (3840x2160), each the same 16:9 slide, "
           "or paper (7 in wide, vector PDF/SVG or a 300 dpi PNG)."),
        QStringLiteral("SIZE"), QStringLiteral("1920x1080"));
    const QCommandLineOption dpi(
        QStringLiteral("dpi"),
        tr("DPI for --export-image (default 96, or the preset's: hd 144, 4k 288, paper 300)."),
        QStringLiteral("N"), QStringLiteral("96"));
    const QCommandLineOption view(
        QStringLiteral("view"),
        tr("What --export-image shows: overview, detail, breakdown, occupancy, sweep (the "
           "sweep chart: time per repetition, and occupancy for block sweeps), roofline or all "
           "(every view; sweep and roofline only where the traces have them), or a "
           "comma-separated list (default overview,breakdown,occupancy)."),
        QStringLiteral("VIEW"), QStringLiteral("overview,breakdown,occupancy"));
    const QCommandLineOption textBoxes(
        QStringLiteral("text-boxes"),
        tr("With --export-image: also write every text drawn, as a JSON array of "
           "{text, x, y, w, h} in output pixels, to FILE."),
        QStringLiteral("FILE"));
    parser.addOption(view);
    parser.addOption(textBoxes);
    const QCommandLineOption restore(QStringLiteral("restore-session"),
                                     tr("Restore the autosaved session without asking."));
    const QCommandLineOption noSamples(QStringLiteral("no-samples"),
                                       tr("Do not open the shipped sample traces."));
    const QCommandLineOption sessionFile(
        QStringLiteral("session-file"),
        tr("Autosave the session to FILE instead of the default place."), QStringLiteral("FILE"));
    const QCommandLineOption shape(QStringLiteral("shape"),
                                   tr("Problem shape for the run panel, RxCxN."),
                                   QStringLiteral("RxCxN"));
    const QCommandLineOption dtype(QStringLiteral("dtype"),
                                   tr("Element type for the run panel: f64 or f32."),
                                   QStringLiteral("TYPE"));
    const QCommandLineOption work(QStringLiteral("work"), tr("Work per element for the run panel."),
                                  QStringLiteral("K"));
    const QCommandLineOption strategies(QStringLiteral("strategies"),
                                        tr("Comma-separated strategies to check in the run panel."),
                                        QStringLiteral("LIST"));
    const QCommandLineOption device(
        QStringLiteral("device"),
        tr("GPU for GPU strategies: gpu:N, or a preset id such as h200 (modelled)."),
        QStringLiteral("DEVICE"));
    const QCommandLineOption block(QStringLiteral("block"),
                                   tr("Block size: numba, numba-cuda or 1..1024."),
                                   QStringLiteral("BLOCK"));
    const QCommandLineOption memory(QStringLiteral("memory"),
                                    tr("Host memory: pageable, pinned, managed or mapped."),
                                    QStringLiteral("MODE"));
    const QCommandLineOption repeat(QStringLiteral("repeat"), tr("Repetitions of each run."),
                                    QStringLiteral("N"));
    const QCommandLineOption run(QStringLiteral("run"), tr("Start the run at once."));
    for (const auto& option : {exportImage, size, dpi, restore, noSamples, sessionFile, shape,
                               dtype, work, strategies, device, block, memory, repeat, run}) {
        parser.addOption(option);
    }
    parser.process(app);

    if (parser.isSet(exportImage)) {
        QSize imageSize;
        double dpiValue = 96;
        if (const auto preset = gui::exportPreset(parser.value(size))) {
            imageSize = preset->sizePx;
            dpiValue = preset->dpi;
        } else if (!parseSize(parser.value(size), imageSize)) {
            return fail(tr("--size must look like 1920x1080 or be one of %1 (got '%2')")
                            .arg(gui::exportPresetNames().join(tr(", ")), parser.value(size)),
                        kExitUsage);
        }
        if (parser.isSet(dpi)) {
            bool ok = false;
            dpiValue = parser.value(dpi).toDouble(&ok);
            if (!ok) {
                return fail(tr("--dpi must be a number (got '%1')").arg(parser.value(dpi)),
                            kExitUsage);
            }
        }
        const auto views = gui::ReportViews::parse(parser.value(view));
        if (!views) {
            return fail(tr("--view must be one of %1, or a comma-separated list of them "
                           "(got '%2')")
                            .arg(gui::ReportViews::names().join(tr(", ")), parser.value(view)),
                        kExitUsage);
        }
        gui::ReportOptions reportOptions;
        reportOptions.views = *views;
        return exportHeadless(parser.value(exportImage), parser.positionalArguments(), imageSize,
                              dpiValue, reportOptions, parser.value(textBoxes));
    }

    gui::StartOptions options;
    options.traces = parser.positionalArguments();
    options.restoreSession = parser.isSet(restore);
    options.noSamples = parser.isSet(noSamples);
    options.sessionFile = parser.value(sessionFile);
    options.device = parser.value(device);
    options.runNow = parser.isSet(run);
    if (parser.isSet(shape) || parser.isSet(strategies) || parser.isSet(dtype) ||
        parser.isSet(work) || parser.isSet(block) || parser.isSet(memory) || parser.isSet(repeat)) {
        models::RunConfig config;
        if (parser.isSet(shape)) {
            const auto parsed = problem::parseShape(parser.value(shape).toStdString());
            if (!parsed) {
                return fail(tr("--shape: %1").arg(QString::fromStdString(parsed.error().message)),
                            kExitUsage);
            }
            config.r = parsed->r;
            config.c = parsed->c;
            config.n = parsed->n;
        }
        if (parser.isSet(dtype)) {
            config.dtype = parser.value(dtype);
        }
        if (parser.isSet(work)) {
            config.work = parser.value(work).toInt();
        }
        if (parser.isSet(block)) {
            config.block = parser.value(block);
        }
        if (parser.isSet(memory)) {
            config.memory = parser.value(memory);
        }
        if (parser.isSet(repeat)) {
            config.repeat = parser.value(repeat).toInt();
        }
        config.strategies = parser.value(strategies).split(QLatin1Char(','), Qt::SkipEmptyParts);
        options.run = config;
    }
    gui::MainWindow window(options);
    window.show();
    window.start();
    return QApplication::exec();
}
