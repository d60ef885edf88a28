#include "gui/mainwindow.h"

#include "gui/exportimagedialog.h"
#include "gui/gputracepanel.h"
#include "gui/logpanel.h"
#include "gui/messagebanner.h"
#include "gui/occupancyview.h"
#include "gui/recentfilesmenu.h"
#include "gui/recorddialog.h"
#include "gui/reportrenderer.h"
#include "gui/runsetupwidget.h"
#include "gui/runspanel.h"
#include "gui/samplesmenu.h"
#include "gui/sessionprompts.h"
#include "gui/statusindicator.h"
#include "gui/sweepchart.h"
#include "gui/sweeppanel.h"
#include "gui/targetbox.h"
#include "gui/theme.h"
#include "gui/timelineview.h"
#include "models/devicelistmodel.h"
#include "models/session.h"
#include "models/sessioncontroller.h"
#include "models/strategylistmodel.h"
#include "models/viewstate.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QMimeData>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTextDocumentFragment>
#include <QVBoxLayout>
#include <algorithm>

namespace slicescope::gui {

namespace {

constexpr double kProjectorScale = 1.4;
using ExportFormat = models::SessionController::ExportFormat;

} // namespace

MainWindow::MainWindow(const StartOptions& options, QWidget* parent)
    : QMainWindow(parent), options_(options) {
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(tr("SliceScope"));
    setAcceptDrops(true);
    baseFont_ = QApplication::font();
    controller_ = new models::SessionController(options.sessionFile, this);
    state_ = new models::ViewState(this);
    strategies_ = new models::StrategyListModel(this);

    createCentralWidget();
    setup_ = new RunSetupWidget(strategies_, controller_->devices());
    createDocks();
    createActions();
    status_ = new StatusIndicator(statusBar(), cancelAction_);
    connectController();
    connect(setup_, &RunSetupWidget::runRequested, this, &MainWindow::startRun);
    connect(setup_, &RunSetupWidget::cancelRequested, this, &MainWindow::cancelRun);
    connect(setup_, &RunSetupWidget::targetChanged, controller_,
            [this](const QString& host) { controller_->queryDevices(host); });
    connect(controller_->session(), &models::Session::changed, this, &MainWindow::onSessionChanged);
    restoreSettings();
    if (options_.run) {
        setup_->setConfig(*options_.run);
    }
    if (!options_.device.isEmpty()) {
        setup_->selectDevice(options_.device);
    }
}

MainWindow::~MainWindow() = default;

void MainWindow::createCentralWidget() {
    // Banners over the timeline and, beside it, the occupancy view.
    auto* central = new QWidget(this);
    auto* centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(4, 4, 4, 0);
    centralLayout->setSpacing(4);
    infoBanner_ = new MessageBanner(central);
    infoBanner_->setObjectName(QStringLiteral("infoBanner"));
    errorBanner_ = new MessageBanner(central);
    errorBanner_->setObjectName(QStringLiteral("errorBanner"));
    restoreBanner_ = new MessageBanner(central);
    restoreBanner_->setObjectName(QStringLiteral("restoreBanner"));
    centralLayout->addWidget(restoreBanner_);
    centralLayout->addWidget(infoBanner_);
    centralLayout->addWidget(errorBanner_);
    auto* splitter = new QSplitter(Qt::Horizontal, central);
    splitter->setObjectName(QStringLiteral("centralSplitter"));
    timeline_ = new TimelineView(controller_->session(), state_, splitter);
    occupancy_ = new OccupancyView(controller_->session(), state_);
    auto* scroll = new QScrollArea(splitter);
    scroll->setObjectName(QStringLiteral("occupancyScroll"));
    scroll->setWidget(occupancy_);
    scroll->setWidgetResizable(true);
    scroll->setMinimumWidth(300);
    splitter->addWidget(timeline_);
    splitter->addWidget(scroll);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    centralLayout->addWidget(splitter, 1);
    setCentralWidget(central);
}

void MainWindow::createDocks() {
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks |
                   QMainWindow::AllowNestedDocks);
    // The run panel, and beside it the sweep panel (it sweeps the run panel's problem): scrolled.
    auto addLeftDock = [this](const QString& title, const QString& name, QWidget* panel) {
        auto* dock = new QDockWidget(title, this);
        dock->setObjectName(name);
        auto* scroll = new QScrollArea(dock);
        scroll->setWidget(panel);
        scroll->setWidgetResizable(true);
        dock->setWidget(scroll);
        addDockWidget(Qt::LeftDockWidgetArea, dock);
        return dock;
    };
    auto* setupDock = addLeftDock(tr("Run"), QStringLiteral("runDock"), setup_);
    setupDock->widget()->setMinimumWidth(330);
    sweepPanel_ = new SweepPanel(controller_->devices());
    auto* sweepDock = addLeftDock(tr("Sweep"), QStringLiteral("sweepDock"), sweepPanel_);
    tabifyDockWidget(setupDock, sweepDock);
    setupDock->raise();
    connect(sweepPanel_, &SweepPanel::sweepRequested, this, &MainWindow::startSweep);
    connect(sweepPanel_, &SweepPanel::cancelRequested, this, &MainWindow::cancelRun);

    auto addBottomDock = [this](const QString& title, const QString& name, QWidget* panel) {
        auto* dock = new QDockWidget(title, this);
        dock->setObjectName(name);
        panel->setParent(dock);
        dock->setWidget(panel);
        addDockWidget(Qt::BottomDockWidgetArea, dock);
        return dock;
    };
    runsPanel_ = new RunsPanel(controller_->session(), state_);
    auto* runsDock = addBottomDock(tr("Runs"), QStringLiteral("runsDock"), runsPanel_);
    tracePanel_ = new GpuTracePanel(controller_->session(), state_);
    auto* traceDock = addBottomDock(tr("GPU trace"), QStringLiteral("gpuTraceDock"), tracePanel_);
    connect(timeline_, &TimelineView::activityClicked, traceDock,
            [traceDock] { traceDock->raise(); });
    log_ = new LogPanel;
    auto* logDock = addBottomDock(tr("Log"), QStringLiteral("logDock"), log_);
    sweepChart_ = new SweepChart(controller_->session());
    // Scrolled, so that the chart's own minimum height (its axis titles) never makes the bottom
    // docks, and so the timeline's share of the window, smaller.
    auto* chartScroll = new QScrollArea;
    chartScroll->setWidgetResizable(true);
    chartScroll->setFrameShape(QFrame::NoFrame);
    chartScroll->setWidget(sweepChart_);
    auto* chartDock =
        addBottomDock(tr("Sweep chart"), QStringLiteral("sweepChartDock"), chartScroll);
    connect(sweepPanel_, &SweepPanel::sweepRequested, chartDock,
            [chartDock] { chartDock->raise(); });
    // The chart needs more height than the tables: the bottom docks grow when it is shown.
    connect(chartDock, &QDockWidget::visibilityChanged, this, [this, chartDock](bool visible) {
        if (visible && chartDock->height() < 420) {
            resizeDocks({chartDock}, {420}, Qt::Vertical);
        }
    });
    tabifyDockWidget(runsDock, traceDock);
    tabifyDockWidget(traceDock, chartDock);
    tabifyDockWidget(chartDock, logDock);
    runsDock->raise();
    resizeDocks({runsDock}, {260}, Qt::Vertical);
    resizeDocks({setupDock}, {380}, Qt::Horizontal);
}

void MainWindow::connectController() {
    using C = models::SessionController;
    connect(controller_, &C::logLine, this, &MainWindow::appendLog);
    connect(controller_, &C::restoreOffered, this, &MainWindow::offerRestore);
    connect(controller_, &C::sessionNotice, this, [this](const QString& message) {
        infoBanner_->show(MessageBanner::Kind::Warning, message.toHtmlEscaped());
    });
    connect(controller_, &C::devicesListed, this, &MainWindow::onDevicesListed);
    connect(controller_, &C::traceLoaded, this, &MainWindow::onTraceLoaded);
    connect(controller_, &C::traceFailed, this, [this](const QString& path, const QString& error) {
        if (!error.isEmpty()) {
            showError(openErrorHtml(path, error));
        }
    });
    connect(controller_, &C::loadProgress, this, [this](double fraction, const QString& path) {
        if (!controller_->isRunning()) {
            status_->setProgress(fraction);
            status_->showMessage(tr("Reading %1\u2026").arg(QFileInfo(path).fileName()));
        }
    });
    connect(controller_, &C::loadingChanged, this, [this](bool busy) {
        if (!controller_->isRunning()) {
            cancelAction_->setEnabled(busy);
            status_->setBusy(busy, busy ? tr("Reading traces\u2026") : QString());
        }
    });
    connect(controller_, &C::runStarted, this, [this] {
        onRunRunning(true);
        status_->setBusy(true, tr("Running\u2026"));
    });
    connect(controller_, &C::runProgress, this, [this](double fraction, const QString& stage) {
        sweepPanel_->setProgress(fraction, stage);
        status_->setProgress(fraction);
        status_->showMessage(stage);
    });
    connect(controller_, &C::runFailed, this, [this](const QString& label, const QString& message) {
        showError(tr("<b>%1</b> failed: %2").arg(label.toHtmlEscaped(), message.toHtmlEscaped()));
    });
    connect(controller_, &C::runFinished, this, [this](bool cancelled) {
        onRunRunning(false, cancelled);
        status_->setBusy(controller_->isLoading());
        status_->showMessage(cancelled ? tr("Run cancelled.") : tr("Run finished."));
    });
    connect(controller_, &C::projected, this, [this](int added, const QStringList& errors) {
        status_->showMessage(
            tr("%n run(s) projected (hatched: predictions, not measurements)", nullptr, added));
        if (!errors.isEmpty()) {
            showError(errors.join(QLatin1Char('\n')).toHtmlEscaped());
        }
    });
    auto showPlainError = [this](const QString& message) { showError(message.toHtmlEscaped()); };
    connect(controller_, &C::runRefused, this, showPlainError);
    connect(controller_, &C::saveFailed, this, showPlainError);
    connect(controller_, &C::exportFailed, this, showPlainError);
    connect(controller_, &C::exported, this, [this](const QString& path, C::ExportFormat format) {
        status_->showMessage(tr("Wrote %1").arg(path));
        if (format == C::ExportFormat::Trace) {
            recentMenu_->add(path);
        }
    });
}

void MainWindow::restoreSettings() {
    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    if (!restoreState(settings.value(QStringLiteral("window/state")).toByteArray())) {
        // First start: most of the screen, the timeline widest of all.
        const QRect available = screen() ? screen()->availableGeometry() : QRect(0, 0, 1600, 960);
        resize(std::min(1800, int(available.width() * 0.94)),
               std::min(1100, int(available.height() * 0.92)));
    }
    auto* splitter = findChild<QSplitter*>(QStringLiteral("centralSplitter"));
    if (!splitter->restoreState(settings.value(QStringLiteral("window/splitter")).toByteArray())) {
        splitter->setSizes({1000, 480});
    }
    setup_->restoreSettings(settings);
    if (settings.value(QStringLiteral("view/absoluteTime")).toBool()) {
        alignAction_->setChecked(true);
    }
    if (settings.value(QStringLiteral("view/largeText")).toBool()) {
        presentationAction_->setChecked(true);
    }
}

void MainWindow::start() {
    controller_->queryDevices();
    // A saved session, and runs that had finished but not reached it when a GUI died.
    const bool saved = controller_->hasSavedSession();
    for (const QString& path : options_.traces) {
        openTrace(path);
    }
    if (saved) {
        if (options_.restoreSession) {
            restoreSession();
        } else {
            controller_->offerRestore();
        }
    } else if (options_.traces.isEmpty()) {
        loadSamples();
    }
    if (options_.runNow) {
        startRun();
    }
}

void MainWindow::offerRestore(bool sessionSaved, int orphanRunFiles) {
    restoreBanner_->clearButtons();
    restoreBanner_->addButton(tr("Restore"), [this] { restoreSession(); });
    restoreBanner_->addButton(tr("Discard"), [this] { discardSavedSession(); });
    const QString saved = sessionSaved ? tr("Your last session's runs were saved (%1).")
                                             .arg(controller_->sessionFile().toHtmlEscaped())
                                       : tr("Your last session ended before its runs were saved.");
    const QString folder = controller_->runsFolder().toHtmlEscaped();
    const QString finished = orphanRunFiles == 0 ? QString()
                             : orphanRunFiles == 1
                                 ? tr(" 1 more run file finished as it ended (in %1).").arg(folder)
                                 : tr(" %1 more run files finished as it ended (in %2).")
                                       .arg(orphanRunFiles)
                                       .arg(folder);
    restoreBanner_->show(MessageBanner::Kind::Question, saved + finished + tr(" Restore them?"));
}

void MainWindow::restoreSession() {
    restoreBanner_->hide();
    controller_->restoreSession();
}

void MainWindow::discardSavedSession() {
    restoreBanner_->hide();
    controller_->discardSavedSession();
    if (controller_->session()->isEmpty()) {
        loadSamples();
    }
}

void MainWindow::loadSamples() {
    if (options_.noSamples) {
        return;
    }
    const QString sample = SamplesMenu::startSample();
    if (sample.isEmpty()) {
        appendLog(tr("no sample traces were shipped with this build"));
        return;
    }
    controller_->openSample(sample);
}

void MainWindow::onDevicesListed(const QString& error) {
    if (!error.isEmpty() && !controller_->deviceHost().isEmpty()) {
        // ssh's failure in plain words, as slicescope-cli --host says it (docs/remote.md).
        showError(tr("Could not list the devices of %1: %2")
                      .arg(controller_->deviceHost().toHtmlEscaped(), error.toHtmlEscaped()));
    } else if (!error.isEmpty()) {
        showError(tr("Could not ask %1 for devices (%2). Runs need slicescope-cli next to "
                     "slicescope; you can still open traces.")
                      .arg(controller_->cliProgram().toHtmlEscaped(), error.toHtmlEscaped()));
    } else if (const models::DeviceListModel* devices = controller_->devices();
               devices->detectedCount() == 0) {
        QString why = devices->noDevicesReason();
        if (!devices->cudaBackendBuilt()) {
            why = tr("this build has no CUDA backend");
        }
        infoBanner_->show(
            MessageBanner::Kind::Info,
            tr("<b>No NVIDIA GPU here</b>: GPU strategies are modelled on a device preset."),
            (why.isEmpty() ? QString() : tr("Why: %1. ").arg(why.toHtmlEscaped())) +
                tr("You can open traces%1, run the CPU strategies, and model GPU strategies on a "
                   "device preset: modelled runs are hatched and labelled \u201cmodelled\u201d.")
                    .arg(SamplesMenu::sampleTraces().isEmpty()
                             ? QString()
                             : tr(" (a shipped sample trace, measured on a real H200, opens "
                                  "at start; File > Open sample has the others)")));
    }
    // Whatever the outcome, a run that waited for the list goes now (and says what is missing).
    if (runAfterDevices_) {
        runAfterDevices_ = false;
        startRun();
    }
}

void MainWindow::openTrace(const QString& path) {
    controller_->openTrace(path);
}

void MainWindow::onTraceLoaded(const QString& path, models::RunOrigin origin, int runCount) {
    if (origin == models::RunOrigin::Opened) {
        recentMenu_->add(path);
        errorBanner_->hide(); // an earlier file's error is no longer what the window shows
    }
    if (!controller_->isRunning()) {
        const QString from =
            origin == models::RunOrigin::Measured ? tr("the run") : QFileInfo(path).fileName();
        status_->showMessage(runCount == 1 ? tr("Loaded 1 run from %1").arg(from)
                                           : tr("Loaded %1 runs from %2").arg(runCount).arg(from));
    }
}

void MainWindow::onSessionChanged() {
    const models::Session* session = controller_->session();
    setWindowTitle(session->isEmpty()      ? tr("SliceScope")
                   : session->count() == 1 ? tr("SliceScope \u2014 1 run")
                                           : tr("SliceScope \u2014 %1 runs").arg(session->count()));
}

void MainWindow::startRun() {
    if (controller_->isRunning()) {
        return;
    }
    errorBanner_->hide();
    if (controller_->startRun(setup_->config()) ==
        models::SessionController::RunStart::WaitingForDevices) {
        runAfterDevices_ = true; // onDevicesListed starts it
        status_->showMessage(tr("Waiting for slicescope-cli's device list\u2026"));
    }
}

void MainWindow::startSweep() {
    if (controller_->isRunning()) {
        return;
    }
    errorBanner_->hide();
    controller_->startSweep(sweepPanel_->config(setup_->config()));
}

void MainWindow::recordProgramDialog() {
    if (controller_->isRunning()) {
        return;
    }
    RecordDialog dialog(this);
    dialog.setConfig(lastRecord_);
    dialog.setTarget(setup_->targetBox()->recentHosts(), setup_->config().host);
    if (dialog.exec() == QDialog::Accepted) {
        startRecording(dialog.config());
    }
}

void MainWindow::startRecording(const models::RecordConfig& config) {
    if (controller_->isRunning()) {
        return;
    }
    errorBanner_->hide();
    lastRecord_ = config;
    controller_->startRecording(config);
}

void MainWindow::cancelRun() {
    const bool loading = !controller_->isRunning() && controller_->isLoading();
    controller_->cancel();
    if (loading) {
        status_->showMessage(tr("Loading cancelled."));
    }
}

void MainWindow::onRunRunning(bool running, bool cancelled) {
    setup_->setRunning(running);
    sweepPanel_->setRunning(running, cancelled);
    runAction_->setEnabled(!running);
    recordAction_->setEnabled(!running);
    cancelAction_->setEnabled(running || controller_->isLoading());
}

void MainWindow::setPresentationMode(bool on) {
    const double scale = on ? kProjectorScale : 1.0;
    theme::setPresentationScale(scale);
    QFont font = baseFont_;
    font.setPointSizeF(baseFont_.pointSizeF() * scale);
    QApplication::setFont(font);
    runsPanel_->applyTheme();
    timeline_->applyTheme();
    occupancy_->applyTheme();
    if (auto* dock = findChild<QDockWidget*>(QStringLiteral("runDock"))) {
        resizeDocks({dock}, {int(380 * scale)}, Qt::Horizontal);
    }
}

void MainWindow::showError(const QString& html) {
    errorBanner_->show(MessageBanner::Kind::Error, html);
    // The Log is plain text: tags dropped and entities (&quot;, &amp;) turned back into text.
    appendLog(tr("error: %1").arg(QTextDocumentFragment::fromHtml(html).toPlainText()));
}

void MainWindow::appendLog(const QString& line) {
    log_->appendLine(line);
}

void MainWindow::openDialog() {
    for (const QString& file : askForTracesToOpen(this)) {
        openTrace(file);
    }
}

QString MainWindow::askForPath(const QString& title, const QString& filter) {
    const QString path = QFileDialog::getSaveFileName(
        this, title, QSettings().value(QStringLiteral("lastDir")).toString(), filter);
    if (!path.isEmpty()) {
        QSettings().setValue(QStringLiteral("lastDir"), QFileInfo(path).absolutePath());
    }
    return path;
}

void MainWindow::exportSessionDialog(models::SessionController::ExportFormat chosen) {
    const QString path =
        chosen == ExportFormat::Trace
            ? askForPath(tr("Save session"), tr("SliceScope traces (*.json)"))
        : chosen == ExportFormat::Csv
            ? askForPath(tr("Export CSV"), tr("CSV (*.csv)"))
            : askForPath(tr("Export Chrome trace"), tr("Chrome Trace Event JSON (*.json)"));
    if (!path.isEmpty()) {
        status_->showMessage(tr("Writing %1\u2026").arg(path));
        controller_->exportSession(path, chosen);
    }
}

bool MainWindow::exportImage(const QString& path, const QSize& sizePx, double dpi, QString* error,
                             const ReportOptions& options, const std::optional<QStringList>& runs) {
    ReportInputs inputs = reportInputs(*timeline_, *occupancy_);
    ChosenRuns chosen;
    if (runs) {
        chosen = chooseRuns(*controller_->session(), std::move(inputs), *runs);
        inputs = std::move(chosen.inputs);
    }
    ReportRenderer renderer(chosen.session ? chosen.session.get() : controller_->session(),
                            std::move(inputs));
    renderer.setOptions(options);
    QString message;
    const bool ok = renderer.exportTo(path, sizePx, dpi, &message);
    if (!ok) {
        showError(tr("Could not export the image: %1").arg(message.toHtmlEscaped()));
    } else {
        status_->showMessage(tr("Exported %1").arg(path));
    }
    if (error) {
        *error = message;
    }
    return ok;
}

void MainWindow::exportImageDialog() {
    QSettings settings;
    const QString folder = settings.value(QStringLiteral("lastDir"), QDir::homePath()).toString();
    const QString last = settings
                             .value(QStringLiteral("lastExport"),
                                    QDir(folder).filePath(QStringLiteral("slicescope.png")))
                             .toString();
    ExportImageDialog dialog(last, this, controller_->session());
    if (dialog.exec() != QDialog::Accepted) {
        return;
    }
    settings.setValue(QStringLiteral("lastExport"), dialog.path());
    exportImage(dialog.path(), dialog.sizePx(), dialog.dpi(), nullptr, dialog.options(),
                dialog.runs());
}

void MainWindow::newSession() {
    // Every run of the window goes, and with them the autosaved session: asked first.
    if (confirmNewSession(this, controller_->session()->userRunCount(),
                          controller_->sessionFile())) {
        closeEveryRun();
    }
}

void MainWindow::closeAll() {
    if (confirmCloseAll(this, controller_->session()->userRunCount(), controller_->sessionFile())) {
        closeEveryRun();
    }
}

void MainWindow::closeEveryRun() {
    controller_->clearSession();
    state_->setSelectedRun({});
    errorBanner_->hide();
}

void MainWindow::closeEvent(QCloseEvent* event) {
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    if (auto* splitter = findChild<QSplitter*>(QStringLiteral("centralSplitter"))) {
        settings.setValue(QStringLiteral("window/splitter"), splitter->saveState());
    }
    settings.setValue(QStringLiteral("view/absoluteTime"), alignAction_->isChecked());
    settings.setValue(QStringLiteral("view/largeText"), presentationAction_->isChecked());
    setup_->saveSettings(settings);
    controller_->shutDown();
    QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    const QList<QUrl> urls = event->mimeData()->urls();
    if (std::any_of(urls.begin(), urls.end(), [](const QUrl& url) { return url.isLocalFile(); })) {
        event->acceptProposedAction();
    }
}

void MainWindow::dropEvent(QDropEvent* event) {
    for (const QUrl& url : event->mimeData()->urls()) {
        if (url.isLocalFile()) {
            openTrace(url.toLocalFile());
        }
    }
    event->acceptProposedAction();
}

} // namespace slicescope::gui
