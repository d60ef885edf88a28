// slicescope: the GUI. It measures through slicescope-cli child processes; it never calls CUDA.
#include "gui/mainwindow.h"
#include "gui/outputfile.h"
#include "gui/reportrenderer.h"
#include "gui/wheelguard.h"
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
#include <cstdio>
#include <optional>

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

// The outputs of --export-image are checked before any trace is read, as the CLI checks its -o
// (docs/reliability.md, "Writing files"): each must be writable, and neither may replace an
// input trace or the other output (a FIFO or device written through replaces nothing).
QString checkExportOutputs(const QString& out, const QString& textBoxesPath,
                           const QStringList& traces) {
    QStringList outputs{out};
    if (!textBoxesPath.isEmpty()) {
        outputs << textBoxesPath;
    }
    for (const QString& output : outputs) {
        if (const QString refusal = gui::outputRefusal(output); !refusal.isEmpty()) {
            return refusal;
        }
        if (gui::overwritesOneOf(output, traces)) {
            return tr("cannot write %1: it is an input trace; choose another name").arg(output);
        }
    }
    if (outputs.size() == 2 && gui::overwritesOneOf(textBoxesPath, {out})) {
        return tr("cannot write %1: it is also the image's file; choose another name")
            .arg(textBoxesPath);
    }
    return {};
}

// --runs: only the runs named are drawn (the others are hidden, as in the window); an error
// naming the runs there are when one is not in the traces.
QString keepOnlyRuns(models::Session& session, const QStringList& runIds) {
    if (runIds.isEmpty()) {
        return {};
    }
    QStringList known;
    for (const auto& entry : session.runs()) {
        known << entry->id;
    }
    for (const QString& id : runIds) {
        if (!known.contains(id)) {
            return tr("--runs: no run '%1' in the traces; their runs are %2")
                .arg(id, known.join(tr(", ")));
        }
    }
    for (int i = 0; i < session.count(); ++i) {
        session.setVisible(i, runIds.contains(session.at(i)->id));
    }
    return {};
}

// `slicescope --export-image OUT TRACE [--size WxH|slide|hd|4k|paper] [--dpi N] [--view V]
// [--text-boxes BOXES.json] [--runs ID,...]`: no window, an exit status.
int exportHeadless(const QString& out, const QStringList& traces, const QSize& size, double dpi,
                   const gui::ReportOptions& options, const QString& textBoxesPath,
                   const QStringList& runIds) {
    if (traces.isEmpty()) {
        return fail(
            tr("--export-image needs a trace file: slicescope --export-image OUT.png TRACE.json"),
            kExitUsage);
    }
    if (const QString refusal = checkExportOutputs(out, textBoxesPath, traces);
        !refusal.isEmpty()) {
        return fail(refusal);
    }
    models::Session session;
    models::ViewState state;
    for (const QString& path : traces) {
        models::LoadResult result = models::TraceLoader::loadNow(path, models::RunOrigin::Opened);
        if (!result.ok()) {
            return fail(
                tr("cannot read %1: %2").arg(path, models::reasonWithoutPath(path, result.error)));
        }
        if (result.runs.empty()) {
            return fail(tr("%1 holds no runs").arg(path));
        }
        session.addRuns(std::move(result.runs));
    }
    if (const QString unknown = keepOnlyRuns(session, runIds); !unknown.isEmpty()) {
        return fail(unknown, kExitUsage);
    }
    QString selected;
    for (const auto& entry : session.runs()) {
        if (entry->visible) {
            selected = entry->id;
            break;
        }
    }
    for (const auto& entry : session.runs()) {
        if (entry->visible && entry->isGpu()) {
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
    // Drawn from the session and the selection: no window, no TimelineView or OccupancyView.
    gui::ReportRenderer renderer(&session, gui::reportInputs(session, state));
    renderer.setOptions(options);
    QString error;
    QVector<gui::TextBox> boxes;
    if (!renderer.exportTo(out, size, dpi, &error, textBoxesPath.isEmpty() ? nullptr : &boxes)) {
        return fail(error);
    }
    if (!textBoxesPath.isEmpty()) {
        if (!gui::writeOutputFile(textBoxesPath, gui::textBoxesJson(boxes), &error)) {
            return fail(tr("%1 (the image %2 was written)").arg(error, out));
        }
    }
    const QSize written = renderer.resolvedSize(size, dpi);
    std::printf("wrote %s (%dx%d)\n", QFileInfo(out).absoluteFilePath().toLocal8Bit().constData(),
                written.width(), written.height());
    return 0;
}

// The headless export, --help and --version must work with no display: the offscreen platform is
// chosen before Qt looks for one, unless the user chose a platform.
void chooseOffscreenWhenHeadless(int argc, char** argv) {
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
}

// The command line's options: the headless export's, then the window's.
struct Options {
    QCommandLineOption exportImage{
        QStringLiteral("export-image"),
        tr("Write the report of the traces (the views --view names) to FILE "
           "(.png, .pdf or .svg) and exit; no window is shown."),
        QStringLiteral("FILE")};
    QCommandLineOption size{
        QStringLiteral("size"),
        tr("Image size for --export-image: WxH in pixels (default 1920x1080), or a preset: "
           "slide (1280x720), hd (1920x1080), 4k (3840x2160), each the same 16:9 slide, "
           "or paper (7 in wide, vector PDF/SVG or a 300 dpi PNG)."),
        QStringLiteral("SIZE"), QStringLiteral("1920x1080")};
    QCommandLineOption dpi{
        QStringLiteral("dpi"),
        tr("DPI for --export-image (default 96, or the preset's: hd 144, 4k 288, paper 300)."),
        QStringLiteral("N"), QStringLiteral("96")};
    QCommandLineOption view{QStringLiteral("view"), gui::exportViewsHelp(), QStringLiteral("VIEW"),
                            gui::defaultExportViews()};
    QCommandLineOption textBoxes{
        QStringLiteral("text-boxes"),
        tr("With --export-image: also write every text drawn, as a JSON array of "
           "{text, x, y, w, h} in output pixels, to FILE."),
        QStringLiteral("FILE")};
    QCommandLineOption runs{QStringLiteral("runs"),
                            tr("With --export-image: draw only these runs (comma-separated run "
                               "ids, in the traces' order); default: every run."),
                            QStringLiteral("IDS")};
    QCommandLineOption restore{QStringLiteral("restore-session"),
                               tr("Restore the autosaved session without asking.")};
    QCommandLineOption noSamples{QStringLiteral("no-samples"),
                                 tr("Do not open the shipped sample traces.")};
    QCommandLineOption sessionFile{QStringLiteral("session-file"),
                                   tr("Autosave the session to FILE instead of the default place."),
                                   QStringLiteral("FILE")};
    QCommandLineOption shape{QStringLiteral("shape"), tr("Problem shape for the run panel, RxCxN."),
                             QStringLiteral("RxCxN")};
    QCommandLineOption dtype{QStringLiteral("dtype"),
                             tr("Element type for the run panel: f64 or f32."),
                             QStringLiteral("TYPE")};
    QCommandLineOption work{QStringLiteral("work"), tr("Work per element for the run panel."),
                            QStringLiteral("K")};
    QCommandLineOption strategies{QStringLiteral("strategies"),
                                  tr("Comma-separated strategies to check in the run panel."),
                                  QStringLiteral("LIST")};
    QCommandLineOption device{
        QStringLiteral("device"),
        tr("GPU for GPU strategies: gpu:N, or a preset id such as h200 (modelled)."),
        QStringLiteral("DEVICE")};
    QCommandLineOption block{QStringLiteral("block"),
                             tr("Block size: numba, numba-cuda or 1..1024."),
                             QStringLiteral("BLOCK")};
    QCommandLineOption memory{QStringLiteral("memory"),
                              tr("Host memory: pageable, pinned, managed or mapped."),
                              QStringLiteral("MODE")};
    QCommandLineOption repeat{QStringLiteral("repeat"), tr("Repetitions of each run."),
                              QStringLiteral("N")};
    QCommandLineOption run{QStringLiteral("run"), tr("Start the run at once.")};

    void addTo(QCommandLineParser& parser) const {
        // --view and --text-boxes first: the order --help has always listed them in.
        parser.addOption(view);
        parser.addOption(textBoxes);
        for (const auto& option :
             {exportImage, size, dpi, runs, restore, noSamples, sessionFile, shape, dtype, work,
              strategies, device, block, memory, repeat, run}) {
            parser.addOption(option);
        }
    }
};

// `--export-image`: the size, DPI and views asked for, then the export; the exit status.
int exportFromCommandLine(const QCommandLineParser& parser, const Options& o) {
    QSize imageSize;
    double dpiValue = 96;
    if (const auto preset = gui::exportPreset(parser.value(o.size))) {
        imageSize = preset->sizePx;
        dpiValue = preset->dpi;
    } else if (!parseSize(parser.value(o.size), imageSize)) {
        return fail(tr("--size must look like 1920x1080 or be one of %1 (got '%2')")
                        .arg(gui::exportPresetNames().join(tr(", ")), parser.value(o.size)),
                    kExitUsage);
    }
    if (parser.isSet(o.dpi)) {
        bool ok = false;
        dpiValue = parser.value(o.dpi).toDouble(&ok);
        if (!ok) {
            return fail(tr("--dpi must be a number (got '%1')").arg(parser.value(o.dpi)),
                        kExitUsage);
        }
    }
    const auto views = gui::ReportViews::parse(parser.value(o.view));
    if (!views) {
        return fail(tr("--view must be one of %1, or a comma-separated list of them "
                       "(got '%2')")
                        .arg(gui::ReportViews::names().join(tr(", ")), parser.value(o.view)),
                    kExitUsage);
    }
    gui::ReportOptions reportOptions;
    reportOptions.views = *views;
    return exportHeadless(parser.value(o.exportImage), parser.positionalArguments(), imageSize,
                          dpiValue, reportOptions, parser.value(o.textBoxes),
                          parser.value(o.runs).split(QLatin1Char(','), Qt::SkipEmptyParts));
}

// The run panel's settings from --shape, --dtype, --work, --block, --memory, --repeat and
// --strategies, when any is given; an error message for a bad shape.
std::optional<models::RunConfig> runConfigFrom(const QCommandLineParser& parser, const Options& o,
                                               QString* error) {
    if (!parser.isSet(o.shape) && !parser.isSet(o.strategies) && !parser.isSet(o.dtype) &&
        !parser.isSet(o.work) && !parser.isSet(o.block) && !parser.isSet(o.memory) &&
        !parser.isSet(o.repeat)) {
        return std::nullopt;
    }
    models::RunConfig config;
    if (parser.isSet(o.shape)) {
        const auto parsed = problem::parseShape(parser.value(o.shape).toStdString());
        if (!parsed) {
            *error = tr("--shape: %1").arg(QString::fromStdString(parsed.error().message));
            return std::nullopt;
        }
        config.r = parsed->r;
        config.c = parsed->c;
        config.n = parsed->n;
    }
    if (parser.isSet(o.dtype)) {
        config.dtype = parser.value(o.dtype);
    }
    if (parser.isSet(o.work)) {
        config.work = parser.value(o.work).toInt();
    }
    if (parser.isSet(o.block)) {
        config.block = parser.value(o.block);
    }
    if (parser.isSet(o.memory)) {
        config.memory = parser.value(o.memory);
    }
    if (parser.isSet(o.repeat)) {
        config.repeat = parser.value(o.repeat).toInt();
    }
    config.strategies = parser.value(o.strategies).split(QLatin1Char(','), Qt::SkipEmptyParts);
    return config;
}

} // namespace

int main(int argc, char** argv) {
    chooseOffscreenWhenHeadless(argc, argv);
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
    const Options o;
    o.addTo(parser);
    parser.process(app);

    if (parser.isSet(o.exportImage)) {
        return exportFromCommandLine(parser, o);
    }
    gui::StartOptions options;
    options.traces = parser.positionalArguments();
    options.restoreSession = parser.isSet(o.restore);
    options.noSamples = parser.isSet(o.noSamples);
    options.sessionFile = parser.value(o.sessionFile);
    options.device = parser.value(o.device);
    options.runNow = parser.isSet(o.run);
    QString shapeError;
    options.run = runConfigFrom(parser, o, &shapeError);
    if (!shapeError.isEmpty()) {
        return fail(shapeError, kExitUsage);
    }
    gui::WheelGuard::installOnApplication();
    gui::MainWindow window(options);
    window.show();
    window.start();
    return QApplication::exec();
}
