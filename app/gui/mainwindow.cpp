#include "gui/mainwindow.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCheckBox>
#include <QCloseEvent>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>
#include <QFontDatabase>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QRegularExpression>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProcess>
#include <QProgressBar>
#include <QScopeGuard>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStatusBar>
#include <QTableView>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

#include <filesystem>

#include "gui/exportimagedialog.h"
#include "gui/messagebanner.h"
#include "gui/occupancyview.h"
#include "gui/reportrenderer.h"
#include "gui/runsetupwidget.h"
#include "gui/theme.h"
#include "gui/timelineview.h"
#include "gui/recorddialog.h"
#include "models/clirunner.h"
#include "models/devicelistmodel.h"
#include "models/gputracemodel.h"
#include "models/gputraceproxy.h"
#include "models/pendingruns.h"
#include "models/runlistmodel.h"
#include "models/session.h"
#include "models/sessionstore.h"
#include "models/strategylistmodel.h"
#include "models/viewstate.h"
#include "slicescope/strategy/strategy.h"
#include "slicescope/trace/exporters.h"
#include "slicescope/trace/tracejson.h"

namespace slicescope::gui {

namespace {

constexpr int kMaxRecentFiles = 8;

QString whatIsOccupancy() {
    return QStringLiteral(
        "<h3>Occupancy</h3>"
        "<p>A GPU is made of streaming multiprocessors (SMs). Each SM keeps many warps (groups of 32 threads) "
        "resident at once and switches between them to hide memory latency. <b>Occupancy</b> is the share of "
        "an SM's warp slots a launch keeps filled.</p>"
        "<p><b>Theoretical occupancy</b> follows from the launch: the block size, the registers each thread "
        "needs and the shared memory each block needs. Whichever SM resource runs out first is the "
        "<b>limiter</b>: warps, block slots, registers or shared memory.</p>"
        "<p><b>Achieved occupancy</b> is what the hardware counters saw on average (only with counters).</p>"
        "<p><b>Thread slots doing work</b> is the seed's measure: threads that have work divided by all thread "
        "slots of the GPU. A launch of one 64-thread block with one busy thread has 50 % theoretical "
        "occupancy on the one SM it uses, yet leaves 99.99 % of the GPU idle.</p>"
        "<p>In the timeline, copies (green and orange) and kernels (blue) of each run sit in their own lanes; "
        "hatched bars are <b>modelled</b>, predicted from a device preset, never measured.</p>");
}

// A table of rows picked one at a time, sortable by clicking a header, unsorted at first.
QTableView* newRowTable(const QString& objectName, QAbstractItemModel* model, QWidget* parent) {
    auto* table = new QTableView(parent);
    table->setObjectName(objectName);
    table->setModel(model);
    table->setSortingEnabled(true);
    table->sortByColumn(-1, Qt::AscendingOrder);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    table->verticalHeader()->hide();
    return table;
}

} // namespace

MainWindow::MainWindow(const StartOptions& options, QWidget* parent)
    : QMainWindow(parent), options_(options) {
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(QStringLiteral("SliceScope"));
    setAcceptDrops(true);
    baseFont_ = QApplication::font();
    session_ = new models::Session(this);
    state_ = new models::ViewState(this);
    store_ = new models::SessionStore(
        options.sessionFile.isEmpty() ? models::SessionStore::defaultPath() : options.sessionFile, this);
    settingsWriter_.setMaxThreadCount(1); // settings writes land in the order they were made
    pendingRuns_ = std::make_unique<models::PendingRuns>(models::PendingRuns::rootFor(store_->path()));
    loader_ = new models::TraceLoader(this);
    runner_ = new models::CliRunner(this);
    strategies_ = new models::StrategyListModel(this);
    devices_ = new models::DeviceListModel(this);
    runList_ = new models::RunListModel(session_, this);
    runProxy_ = new QSortFilterProxyModel(this);
    runProxy_->setSourceModel(runList_);
    runProxy_->setSortRole(models::RunListModel::SortRole);
    traceModel_ = new models::GpuTraceModel(this);
    traceProxy_ = new models::GpuTraceProxy(this);
    traceProxy_->setSourceModel(traceModel_);

    // Central: banners over the timeline and, beside it, the occupancy view.
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
    timeline_ = new TimelineView(session_, state_, splitter);
    occupancy_ = new OccupancyView(session_, state_);
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

    setup_ = new RunSetupWidget(strategies_, devices_);
    createDocks();
    createActions();

    progress_ = new QProgressBar(this);
    progress_->setObjectName(QStringLiteral("runProgress"));
    progress_->setRange(0, 1000);
    progress_->setMaximumWidth(260);
    progress_->setVisible(false);
    cancelButton_ = new QToolButton(this);
    cancelButton_->setDefaultAction(cancelAction_);
    cancelButton_->setVisible(false);
    status_ = new QLabel(this);
    statusBar()->addWidget(status_, 1);
    statusBar()->addPermanentWidget(progress_);
    statusBar()->addPermanentWidget(cancelButton_);

    connect(setup_, &RunSetupWidget::runRequested, this, &MainWindow::startRun);
    connect(setup_, &RunSetupWidget::cancelRequested, this, &MainWindow::cancelRun);
    connect(loader_, &models::TraceLoader::loaded, this, &MainWindow::onLoaded);
    connect(loader_, &models::TraceLoader::progress, this, [this](double fraction, const QString& path) {
        if (!runner_->isRunning()) {
            progress_->setValue(int(fraction * 1000));
            status_->setText(QStringLiteral("Reading %1\u2026").arg(QFileInfo(path).fileName()));
        }
    });
    connect(loader_, &models::TraceLoader::busyChanged, this, [this](bool busy) {
        if (!runner_->isRunning()) {
            cancelAction_->setEnabled(busy);
            setBusy(busy, busy ? QStringLiteral("Reading traces\u2026") : QString());
        }
    });
    connect(session_, &models::Session::changed, this, &MainWindow::onSessionChanged);
    connect(session_, &models::Session::runsAdded, this, &MainWindow::onRunsAdded);
    connect(state_, &models::ViewState::selectedRunChanged, this, &MainWindow::onSelectedRunChanged);
    connect(state_, &models::ViewState::selectedActivityChanged, this, &MainWindow::onSelectedActivityChanged);
    connect(store_, &models::SessionStore::saveFailed, this, &MainWindow::showError);
    connect(store_, &models::SessionStore::saved, this, [this](const QString& path, int runs, quint64 ticket) {
        pendingRuns_->saved(ticket); // run traces whose runs are in the saved session now
        if (runs > 0) {
            appendLog(QStringLiteral("session saved: %1 runs in %2").arg(runs).arg(path));
        }
    });

    connect(runner_, &models::CliRunner::started, this, [this] {
        setup_->setRunning(true);
        runAction_->setEnabled(false);
        recordAction_->setEnabled(false);
        cancelAction_->setEnabled(true);
        setBusy(true, QStringLiteral("Running\u2026"));
    });
    connect(runner_, &models::CliRunner::progress, this, [this](double fraction, const QString& stage) {
        if (fraction < 0) {
            progress_->setRange(0, 0); // a recorded program: no known end, a busy bar
        } else {
            progress_->setRange(0, 1000);
            progress_->setValue(int(fraction * 1000));
        }
        status_->setText(stage);
    });
    connect(runner_, &models::CliRunner::logLine, this, &MainWindow::appendLog);
    connect(runner_, &models::CliRunner::jobSucceeded, this, [this](const models::CliJob&, const QString& path) {
        load(path, models::RunOrigin::Measured);
    });
    connect(runner_, &models::CliRunner::jobFailed, this, [this](const models::CliJob& job, const QString& message) {
        if (message.startsWith(QStringLiteral("Cancelled"))) {
            appendLog(message);
            return;
        }
        showError(QStringLiteral("<b>%1</b> failed: %2").arg(job.label.toHtmlEscaped(), message.toHtmlEscaped()));
    });
    connect(runner_, &models::CliRunner::finished, this, [this](bool cancelled) {
        setup_->setRunning(false);
        runAction_->setEnabled(true);
        recordAction_->setEnabled(true);
        progress_->setRange(0, 1000);
        cancelAction_->setEnabled(loader_->isBusy());
        setBusy(loader_->isBusy(), cancelled ? QStringLiteral("Run cancelled") : QString());
        status_->setText(cancelled ? QStringLiteral("Run cancelled.") : QStringLiteral("Run finished."));
        emit runFinished(cancelled);
    });

    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    if (!restoreState(settings.value(QStringLiteral("window/state")).toByteArray())) {
        // First start: most of the screen, the timeline widest of all.
        const QRect available = screen() ? screen()->availableGeometry() : QRect(0, 0, 1600, 960);
        resize(std::min(1800, int(available.width() * 0.94)), std::min(1100, int(available.height() * 0.92)));
    }
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
    recentFiles_ = settings.value(QStringLiteral("recentFiles")).toStringList();
    updateRecentMenu();
    if (options_.run) {
        setup_->setConfig(*options_.run);
    }
    if (!options_.device.isEmpty()) {
        setup_->selectDevice(options_.device);
    }
}

MainWindow::~MainWindow() {
    // Children die after this body: a device query finishing then must not call into a window
    // that is half gone.
    if (devicesProcess_) {
        devicesProcess_->disconnect(this);
        devicesProcess_->kill();
        devicesProcess_->waitForFinished(2000);
    }
    store_->waitForIdle();
    pendingRuns_->saved(store_->lastSavedTicket());
    settingsWriter_.waitForDone();
}

void MainWindow::createDocks() {
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks | QMainWindow::AllowNestedDocks);
    auto* setupDock = new QDockWidget(QStringLiteral("Run"), this);
    setupDock->setObjectName(QStringLiteral("runDock"));
    auto* setupScroll = new QScrollArea(setupDock);
    setupScroll->setWidget(setup_);
    setupScroll->setWidgetResizable(true);
    setupScroll->setMinimumWidth(330);
    setupDock->setWidget(setupScroll);
    addDockWidget(Qt::LeftDockWidgetArea, setupDock);

    // Runs: the per-run summary and the selected run's verdict.
    auto* runsDock = new QDockWidget(QStringLiteral("Runs"), this);
    runsDock->setObjectName(QStringLiteral("runsDock"));
    auto* runsWidget = new QWidget(runsDock);
    auto* runsLayout = new QVBoxLayout(runsWidget);
    runsLayout->setContentsMargins(4, 4, 4, 4);
    runTable_ = newRowTable(QStringLiteral("runTable"), runProxy_, runsWidget);
    runTable_->horizontalHeader()->setStretchLastSection(true);
    for (int column = 0; column < models::RunListModel::VerdictColumn; ++column) {
        runTable_->horizontalHeader()->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    }
    runTable_->setContextMenuPolicy(Qt::ActionsContextMenu);
    runTable_->setWordWrap(false);
    runsLayout->addWidget(runTable_, 1);
    verdict_ = new QLabel(runsWidget);
    verdict_->setObjectName(QStringLiteral("verdict"));
    verdict_->setWordWrap(true);
    verdict_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont verdictFont = verdict_->font();
    verdictFont.setPointSizeF(verdictFont.pointSizeF() * 1.2);
    verdict_->setFont(verdictFont);
    runsLayout->addWidget(verdict_);
    runsDock->setWidget(runsWidget);
    addDockWidget(Qt::BottomDockWidgetArea, runsDock);
    connect(runTable_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (current.isValid()) {
                    state_->setSelectedRun(current.data(models::RunListModel::RunIdRole).toString());
                }
            });

    // GPU trace: nvprof's columns for the selected run.
    auto* traceDock = new QDockWidget(QStringLiteral("GPU trace"), this);
    traceDock->setObjectName(QStringLiteral("gpuTraceDock"));
    auto* traceWidget = new QWidget(traceDock);
    auto* traceLayout = new QVBoxLayout(traceWidget);
    traceLayout->setContentsMargins(4, 4, 4, 4);
    auto* captionRow = new QHBoxLayout;
    traceCaption_ = new QLabel(traceWidget);
    traceShowAll_ = new QCheckBox(QStringLiteral("API and host rows too"), traceWidget);
    traceShowAll_->setObjectName(QStringLiteral("traceShowAll"));
    captionRow->addWidget(traceCaption_, 1);
    captionRow->addWidget(traceShowAll_);
    traceLayout->addLayout(captionRow);
    traceTable_ = newRowTable(QStringLiteral("gpuTraceTable"), traceProxy_, traceWidget);
    traceTable_->verticalHeader()->setDefaultSectionSize(traceTable_->fontMetrics().height() + 6);
    // Size columns by the rows in view only (Qt's default looks at 1,000 rows per column: tens of
    // milliseconds of text layout on every run change).
    traceTable_->verticalHeader()->setResizeContentsPrecision(0);
    traceTable_->horizontalHeader()->setStretchLastSection(true);
    traceLayout->addWidget(traceTable_, 1);
    traceDock->setWidget(traceWidget);
    addDockWidget(Qt::BottomDockWidgetArea, traceDock);
    connect(traceShowAll_, &QCheckBox::toggled, traceProxy_, &models::GpuTraceProxy::setShowAll);
    connect(traceShowAll_, &QCheckBox::toggled, this, [this] { onSelectedRunChanged(state_->selectedRun()); });
    // Big runs' rows are filtered and sorted on a worker: say so meanwhile; when they arrive,
    // count them and put the selected activity's row back.
    connect(traceProxy_, &models::GpuTraceProxy::busyChanged, this, [this](bool busy) {
        updateTraceCaption();
        if (!busy) {
            onSelectedActivityChanged();
        }
    });
    connect(timeline_, &TimelineView::activityClicked, traceDock, [traceDock] { traceDock->raise(); });
    connect(traceTable_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (!current.isValid() || !traceModel_->run()) {
                    return;
                }
                const int activity = current.data(models::GpuTraceModel::ActivityIndexRole).toInt();
                state_->setSelectedActivity({traceModel_->run()->id, activity});
            });

    auto* logDock = new QDockWidget(QStringLiteral("Log"), this);
    logDock->setObjectName(QStringLiteral("logDock"));
    log_ = new QPlainTextEdit(logDock);
    log_->setObjectName(QStringLiteral("log"));
    log_->setReadOnly(true);
    log_->setMaximumBlockCount(5000);
    log_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    logDock->setWidget(log_);
    addDockWidget(Qt::BottomDockWidgetArea, logDock);
    tabifyDockWidget(runsDock, traceDock);
    tabifyDockWidget(traceDock, logDock);
    runsDock->raise();
    resizeDocks({runsDock}, {260}, Qt::Vertical);
    resizeDocks({setupDock}, {380}, Qt::Horizontal);
}

void MainWindow::createActions() {
    auto* file = menuBar()->addMenu(QStringLiteral("&File"));
    auto* open = file->addAction(QStringLiteral("&Open trace\u2026"), this, &MainWindow::openDialog);
    open->setShortcut(QKeySequence::Open);
    recentMenu_ = file->addMenu(QStringLiteral("Open &recent"));
    auto* samplesMenu = file->addMenu(QStringLiteral("Open &sample (measured on an H200)"));
    for (const QString& path : sampleTraces()) {
        samplesMenu->addAction(QFileInfo(path).completeBaseName(), this,
                               [this, path] { load(path, models::RunOrigin::Sample); });
    }
    samplesMenu->setEnabled(!samplesMenu->isEmpty());
    file->addSeparator();
    auto* save = file->addAction(QStringLiteral("&Save session as\u2026"), this, &MainWindow::saveSessionAs);
    save->setShortcut(QKeySequence::Save);
    auto* fresh = file->addAction(QStringLiteral("&New session"), this, &MainWindow::newSession);
    fresh->setShortcut(QKeySequence::New);
    file->addSeparator();
    auto* image = file->addAction(QStringLiteral("&Export image (PNG, PDF, SVG)\u2026"), this, &MainWindow::exportImageDialog);
    image->setShortcut(QKeySequence(QStringLiteral("Ctrl+E")));
    auto* csv = file->addAction(QStringLiteral("Export &CSV (nvprof columns)\u2026"), this, [this] { exportTable(false); });
    csv->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+E")));
    file->addAction(QStringLiteral("Export C&hrome trace\u2026"), this, [this] { exportTable(true); });
    file->addSeparator();
    auto* quit = file->addAction(QStringLiteral("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    auto* runMenu = menuBar()->addMenu(QStringLiteral("&Run"));
    runAction_ = runMenu->addAction(QStringLiteral("&Run checked strategies"), this, &MainWindow::startRun);
    runAction_->setShortcuts({QKeySequence(Qt::Key_F5), QKeySequence(QStringLiteral("Ctrl+R"))});
    recordAction_ = runMenu->addAction(QStringLiteral("Record &program\u2026"), this, &MainWindow::recordProgramDialog);
    recordAction_->setObjectName(QStringLiteral("recordAction"));
    recordAction_->setToolTip(QStringLiteral("Record an unmodified CUDA program (numba, C++, \u2026): its API calls, "
                                             "copies and kernels, with each kernel's occupancy"));
    recordAction_->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+R")));
    cancelAction_ = runMenu->addAction(QStringLiteral("&Cancel"), this, &MainWindow::cancelRun);
    cancelAction_->setToolTip(QStringLiteral("Stop the run (the child process ends at once) or the loading of traces"));
    cancelAction_->setShortcut(QKeySequence(Qt::Key_Escape));
    cancelAction_->setEnabled(false);
    runMenu->addSeparator();
    auto* remove = runMenu->addAction(QStringLiteral("Remove selected run"), this, &MainWindow::removeSelectedRun);
    remove->setShortcut(QKeySequence::Delete);
    remove->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    runTable_->addAction(remove);

    viewMenu_ = menuBar()->addMenu(QStringLiteral("&View"));
    auto* reset = viewMenu_->addAction(QStringLiteral("&Reset zoom"), timeline_, &TimelineView::resetZoom);
    reset->setShortcuts({QKeySequence(QStringLiteral("Ctrl+0")), QKeySequence(Qt::Key_Home)});
    auto* zoomIn = viewMenu_->addAction(QStringLiteral("Zoom &in"), timeline_, [this] { timeline_->zoomBy(0.5); });
    zoomIn->setShortcuts({QKeySequence::ZoomIn, QKeySequence(QStringLiteral("Ctrl+="))});
    auto* zoomOut = viewMenu_->addAction(QStringLiteral("Zoom &out"), timeline_, [this] { timeline_->zoomBy(2.0); });
    zoomOut->setShortcut(QKeySequence::ZoomOut);
    auto* left = viewMenu_->addAction(QStringLiteral("Pan left"), timeline_, [this] { timeline_->panBy(-0.25); });
    left->setShortcut(QKeySequence(Qt::Key_Left));
    left->setShortcutContext(Qt::WidgetShortcut);
    timeline_->addAction(left);
    auto* right = viewMenu_->addAction(QStringLiteral("Pan right"), timeline_, [this] { timeline_->panBy(0.25); });
    right->setShortcut(QKeySequence(Qt::Key_Right));
    right->setShortcutContext(Qt::WidgetShortcut);
    timeline_->addAction(right);
    // Perfetto's keys, for people who live in trace viewers: W/S zoom, A/D pan.
    const std::pair<QKeySequence, std::function<void()>> wasd[] = {
        {QKeySequence(Qt::Key_W), [this] { timeline_->zoomBy(0.8); }},
        {QKeySequence(Qt::Key_S), [this] { timeline_->zoomBy(1.25); }},
        {QKeySequence(Qt::Key_A), [this] { timeline_->panBy(-0.1); }},
        {QKeySequence(Qt::Key_D), [this] { timeline_->panBy(0.1); }},
    };
    for (const auto& [key, action] : wasd) {
        auto* shortcut = new QAction(timeline_);
        shortcut->setShortcut(key);
        shortcut->setShortcutContext(Qt::WidgetShortcut);
        connect(shortcut, &QAction::triggered, this, action);
        timeline_->addAction(shortcut);
    }
    timeline_->setFocusPolicy(Qt::StrongFocus);
    auto* zoomEvent = viewMenu_->addAction(QStringLiteral("Zoom to selected event"), this,
                                           [this] { timeline_->zoomToActivity(state_->selectedActivity()); });
    zoomEvent->setShortcut(QKeySequence(QStringLiteral("Ctrl+F")));
    viewMenu_->addSeparator();
    alignAction_ = viewMenu_->addAction(QStringLiteral("Runs on &absolute time"));
    alignAction_->setCheckable(true);
    alignAction_->setShortcut(QKeySequence(QStringLiteral("Ctrl+L")));
    alignAction_->setToolTip(QStringLiteral("Off: every run starts at 0, to compare strategies. On: runs where "
                                            "they happened in time."));
    connect(alignAction_, &QAction::toggled, this, [this](bool absolute) {
        state_->setAlignment(absolute ? models::Alignment::Absolute : models::Alignment::RunStart);
    });
    presentationAction_ = viewMenu_->addAction(QStringLiteral("&Large text (projector)"));
    presentationAction_->setCheckable(true);
    presentationAction_->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+P")));
    presentationAction_->setToolTip(QStringLiteral("Larger text in every view and chart, for a projector"));
    connect(presentationAction_, &QAction::toggled, this, &MainWindow::setPresentationMode);
    viewMenu_->addSeparator();
    for (auto* dock : findChildren<QDockWidget*>()) {
        viewMenu_->addAction(dock->toggleViewAction());
    }

    auto* help = menuBar()->addMenu(QStringLiteral("&Help"));
    auto* occupancyHelp = help->addAction(QStringLiteral("What is &occupancy?"), this, [this] {
        QMessageBox box(QMessageBox::Information, QStringLiteral("What is occupancy?"), whatIsOccupancy(),
                        QMessageBox::Ok, this);
        box.exec();
    });
    occupancyHelp->setShortcut(QKeySequence::HelpContents);
    help->addAction(QStringLiteral("&About SliceScope"), this, [this] {
        QMessageBox::about(this, QStringLiteral("About SliceScope"),
                           QStringLiteral("<b>SliceScope 0.1.0</b><br>How the way GPU work is sliced decides its "
                                          "speed.<br>Measures with slicescope-cli (CUPTI on a GPU, a monotonic "
                                          "clock on the CPU); models GPUs you do not have."));
    });

    auto* toolbar = addToolBar(QStringLiteral("Main"));
    toolbar->setObjectName(QStringLiteral("mainToolbar"));
    toolbar->addAction(open);
    toolbar->addAction(runAction_);
    toolbar->addAction(cancelAction_);
    toolbar->addSeparator();
    toolbar->addAction(reset);
    toolbar->addAction(zoomIn);
    toolbar->addAction(zoomOut);
    toolbar->addAction(alignAction_);
    toolbar->addSeparator();
    toolbar->addAction(image);
    for (auto* action : {open, runAction_, cancelAction_, reset, zoomIn, zoomOut, image}) {
        if (!action->shortcut().isEmpty()) {
            action->setToolTip(action->text().remove(QLatin1Char('&')).remove(QStringLiteral("\u2026")) +
                               QStringLiteral(" (") + action->shortcut().toString(QKeySequence::NativeText) +
                               QLatin1Char(')'));
        }
    }
}

void MainWindow::start() {
    queryDevices();
    // A saved session, and runs that had finished but not reached it when a GUI died.
    const bool saved = store_->exists();
    const int orphans = int(pendingRuns_->orphans().size());
    for (const QString& path : options_.traces) {
        openTrace(path);
    }
    if (saved || orphans > 0) {
        if (options_.restoreSession) {
            restoreSession();
        } else {
            autosaveArmed_ = false; // keep the saved session until the user decides
            restoreBanner_->clearButtons();
            restoreBanner_->addButton(QStringLiteral("Restore"), [this] { restoreSession(); });
            restoreBanner_->addButton(QStringLiteral("Discard"), [this] { discardSavedSession(); });
            const QString finished =
                orphans == 0 ? QString()
                             : QStringLiteral(" %1 more run file%2 finished as it ended (in %3).")
                                   .arg(orphans)
                                   .arg(orphans == 1 ? QString() : QStringLiteral("s"))
                                   .arg(models::PendingRuns::rootFor(store_->path()).toHtmlEscaped());
            restoreBanner_->show(MessageBanner::Kind::Question,
                                 (saved ? QStringLiteral("Your last session's runs were saved (%1).")
                                              .arg(store_->path().toHtmlEscaped())
                                        : QStringLiteral("Your last session ended before its runs were saved.")) +
                                     finished + QStringLiteral(" Restore them?"));
        }
    } else if (options_.traces.isEmpty()) {
        loadSamples();
    }
    if (options_.runNow) {
        startRun();
    }
}

QStringList MainWindow::sampleTraces() {
    QStringList paths;
    const QDir dir(QStringLiteral(":/samples"));
    for (const QString& name : dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
        paths << dir.filePath(name);
    }
    return paths;
}

QString MainWindow::startSample() {
    // The seed's story on a real GPU; the other samples are a click away in File > Open sample.
    const QStringList samples = sampleTraces();
    for (const QString& path : samples) {
        if (path.endsWith(QStringLiteral("/seed-100x4000x5-f64-pageable.json"))) {
            return path;
        }
    }
    return samples.isEmpty() ? QString() : samples.first();
}

void MainWindow::loadSamples() {
    if (options_.noSamples) {
        return;
    }
    const QString sample = startSample();
    if (sample.isEmpty()) {
        appendLog(QStringLiteral("no sample traces were shipped with this build"));
        return;
    }
    load(sample, models::RunOrigin::Sample);
}

void MainWindow::restoreSession() {
    restoreBanner_->hide();
    loadingRestore_ = true;
    if (store_->exists()) {
        load(store_->path(), models::RunOrigin::Restored);
    }
    adoptedRuns_ = pendingRuns_->adoptOrphans();
    for (const QString& path : adoptedRuns_) {
        load(path, models::RunOrigin::Restored);
    }
    if (!store_->exists() && adoptedRuns_.isEmpty()) {
        loadingRestore_ = false;
        autosaveArmed_ = true;
    }
}

void MainWindow::discardSavedSession() {
    restoreBanner_->hide();
    store_->discard();
    pendingRuns_->discardOrphans();
    autosaveArmed_ = true;
    if (autosavePending_ || session_->userRunCount() > 0) {
        autosavePending_ = false;
        requestSave();
    }
    if (session_->isEmpty()) {
        loadSamples();
    }
}

void MainWindow::queryDevices() {
    auto* process = new QProcess(this);
    devicesProcess_ = process;
    connect(process, &QProcess::finished, this, [this, process](int exitCode, QProcess::ExitStatus status) {
        process->deleteLater();
        onDevicesListed(status == QProcess::NormalExit ? exitCode : -1, process->readAllStandardOutput(),
                        QString::fromUtf8(process->readAllStandardError()).trimmed());
    });
    connect(process, &QProcess::errorOccurred, this, [this, process](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart) {
            process->deleteLater();
            onDevicesListed(-1, {}, process->errorString());
        }
    });
    models::endWithThisProcess(*process);
    process->start(runner_->program(), {QStringLiteral("devices"), QStringLiteral("--json")});
}

void MainWindow::onDevicesListed(int exitCode, const QByteArray& output, const QString& error) {
    devicesProcess_ = nullptr;
    // Whatever the outcome, a run that waited for the list goes now (and says what is missing).
    const auto runIfWaiting = qScopeGuard([this] {
        if (runAfterDevices_) {
            runAfterDevices_ = false;
            startRun();
        }
    });
    QString parseError;
    if (exitCode != 0 || !devices_->setFromJson(output, &parseError)) {
        devices_->setFromJson("{}");
        showError(QStringLiteral("Could not ask %1 for devices (%2). Runs need slicescope-cli next to slicescope; "
                                 "you can still open traces.")
                      .arg(runner_->program().toHtmlEscaped(),
                           (error.isEmpty() ? parseError : error).toHtmlEscaped()));
        return;
    }
    if (devices_->detectedCount() == 0) {
        QString why = devices_->noDevicesReason();
        if (!devices_->cudaBackendBuilt()) {
            why = QStringLiteral("this build has no CUDA backend");
        }
        infoBanner_->show(MessageBanner::Kind::Info,
                          QStringLiteral("<b>No NVIDIA GPU here</b>%1. You can open traces%2, run the CPU strategies, "
                                         "and model GPU strategies on a device preset: modelled runs are hatched and "
                                         "labelled \u201cmodelled\u201d.")
                              .arg(why.isEmpty() ? QString() : QStringLiteral(" (") + why.toHtmlEscaped() + QLatin1Char(')'),
                                   sampleTraces().isEmpty()
                                       ? QString()
                                       : QStringLiteral(" (a shipped sample trace, measured on a real H200, opens at start; File > Open sample has the others)")));
    }
    appendLog(QStringLiteral("devices: %1 GPU(s), %2 preset(s)")
                  .arg(devices_->detectedCount())
                  .arg(devices_->rowCount() - devices_->detectedCount()));
}

void MainWindow::openTrace(const QString& path) {
    appendLog(QStringLiteral("opening %1").arg(path));
    load(path, models::RunOrigin::Opened);
}

void MainWindow::load(const QString& path, models::RunOrigin origin) {
    loadOrder_.push_back(loader_->load(path, origin));
}

void MainWindow::onLoaded(const models::LoadResult& result) {
    loadsArrived_.emplace(result.request, result);
    while (!loadOrder_.empty()) {
        const auto it = loadsArrived_.find(loadOrder_.front());
        if (it == loadsArrived_.end()) {
            return; // an earlier request is still loading
        }
        const models::LoadResult ready = std::move(it->second);
        loadsArrived_.erase(it);
        loadOrder_.pop_front();
        applyLoaded(ready);
    }
}

void MainWindow::applyLoaded(const models::LoadResult& result) {
    const bool restoring = result.origin == models::RunOrigin::Restored;
    if (restoring) {
        loadingRestore_ = false;
        autosaveArmed_ = true;
    }
    if (!result.ok()) {
        if (!result.cancelled) {
            showError(QStringLiteral("Could not open <b>%1</b>: %2")
                          .arg(QFileInfo(result.path).fileName().toHtmlEscaped(), result.error.toHtmlEscaped()));
        }
        if (result.origin == models::RunOrigin::Measured || adoptedRuns_.contains(result.path)) {
            QFile::remove(result.path); // unreadable: nothing in it to keep
        }
        emit traceLoaded(result.path, false);
        return;
    }
    if (result.runs.empty()) {
        appendLog(QStringLiteral("%1 holds no runs").arg(result.path));
    }
    if (result.origin == models::RunOrigin::Opened) {
        addRecentFile(result.path);
    }
    if (restoring && session_->count() > 0) {
        // Samples opened before the user chose to restore are replaced by the restored runs.
        for (int i = session_->count() - 1; i >= 0; --i) {
            if (session_->at(i)->origin == models::RunOrigin::Sample) {
                session_->removeRun(i);
            }
        }
    }
    appendLog(QStringLiteral("loaded %1 run(s) from %2").arg(result.runs.size()).arg(result.path));
    if (!runner_->isRunning()) {
        status_->setText(QStringLiteral("Loaded %1 %2 from %3")
                             .arg(result.runs.size())
                             .arg(result.runs.size() == 1 ? QStringLiteral("run") : QStringLiteral("runs"))
                             .arg(result.origin == models::RunOrigin::Measured ? QStringLiteral("the run")
                                                                                : QFileInfo(result.path).fileName()));
    }
    std::vector<models::RunEntryPtr> runs = result.runs;
    if (restoring) {
        // A run can be both in the saved session and in a trace a killed GUI left (it died after
        // the autosave, before deleting the trace): restore it once.
        runs.erase(std::remove_if(runs.begin(), runs.end(),
                                  [this](const models::RunEntryPtr& entry) {
                                      return std::any_of(session_->runs().begin(), session_->runs().end(),
                                                         [&](const models::RunEntryPtr& other) {
                                                             return models::isSameRun(*entry->run, *other->run);
                                                         });
                                  }),
                   runs.end());
    }
    const quint64 saveAfterAdding = lastSaveTicket_ + 1; // the first save asked for from now on
    const bool nothingNew = runs.empty();
    session_->addRuns(std::move(runs));
    if (nothingNew && adoptedRuns_.contains(result.path)) {
        QFile::remove(result.path); // every run in it came back with the saved session
        adoptedRuns_.removeAll(result.path);
    } else if (result.origin == models::RunOrigin::Measured || adoptedRuns_.contains(result.path)) {
        // The run's trace stays on disk until the autosave that holds it is: a GUI killed in
        // between finds it at its next start.
        pendingRuns_->keepUntilSaved(result.path, saveAfterAdding);
        adoptedRuns_.removeAll(result.path);
    }
    emit traceLoaded(result.path, true);
}

void MainWindow::onSessionChanged() {
    setWindowTitle(session_->isEmpty() ? QStringLiteral("SliceScope")
                                       : QStringLiteral("SliceScope \u2014 %1 %2")
                                             .arg(session_->count())
                                             .arg(session_->count() == 1 ? QStringLiteral("run") : QStringLiteral("runs")));
    if (!autosaveArmed_) {
        autosavePending_ = true;
    } else {
        requestSave();
    }
    if (!state_->selectedRun().isEmpty() && session_->indexOf(state_->selectedRun()) < 0) {
        state_->setSelectedRun(session_->isEmpty() ? QString() : session_->at(0)->id);
    }
    onSelectedRunChanged(state_->selectedRun());
}

void MainWindow::requestSave() { lastSaveTicket_ = store_->save(*session_); }

void MainWindow::onRunsAdded(int first, int last) {
    // Select the first GPU run among the new ones (its occupancy is what there is to see).
    QString pick;
    for (int i = first; i <= last; ++i) {
        if (session_->at(i)->isGpu()) {
            pick = session_->at(i)->id;
            break;
        }
    }
    if (pick.isEmpty()) {
        pick = session_->at(first)->id;
    }
    const bool newGpuRun = session_->at(session_->indexOf(pick))->isGpu();
    if (state_->selectedRun().isEmpty() || (newGpuRun && session_->at(first)->origin != models::RunOrigin::Sample)) {
        state_->setSelectedRun(pick);
    }
}

void MainWindow::onSelectedRunChanged(const QString& runId) {
    const models::RunEntryPtr entry = session_->find(runId);
    if (traceModel_->run() != entry) {
        traceModel_->setRun(entry);
    }
    if (entry && traceTable_->isVisible()) {
        traceTable_->resizeColumnsToContents(); // looks at the rows in view, not all of them
    }
    updateTraceCaption();
    verdict_->setText(entry ? QStringLiteral("<b>%1</b>: %2").arg(entry->id.toHtmlEscaped(), entry->verdict.toHtmlEscaped())
                            : QString());
    // Keep the runs table's current row on the selected run.
    for (int row = 0; row < runProxy_->rowCount(); ++row) {
        const QModelIndex index = runProxy_->index(row, 0);
        if (index.data(models::RunListModel::RunIdRole).toString() == runId) {
            if (runTable_->currentIndex().row() != row) {
                runTable_->setCurrentIndex(index);
            }
            break;
        }
    }
}

void MainWindow::updateTraceCaption() {
    const models::ConstRunEntryPtr& entry = traceModel_->run();
    if (!entry) {
        traceCaption_->setText(QStringLiteral("No run selected."));
        return;
    }
    const QString what = traceModel_->hasDeviceActivities() && !traceProxy_->showAll()
                             ? QStringLiteral("device activities (nvprof --print-gpu-trace)")
                             : QStringLiteral("activities");
    const QString count = traceProxy_->isBusy()
                              ? QStringLiteral("%1 %2, sorting\u2026")
                                    .arg(QLocale().toString(qulonglong(traceModel_->hasDeviceActivities() &&
                                                                               !traceProxy_->showAll()
                                                                           ? entry->deviceActivities
                                                                           : entry->run->activities.size())),
                                         what)
                              : QStringLiteral("%1 %2").arg(traceProxy_->rowCount()).arg(what);
    traceCaption_->setText(QStringLiteral("<b>%1</b>%2: %3")
                               .arg(entry->id.toHtmlEscaped(),
                                    entry->isModelled() ? QStringLiteral(" (<i>modelled</i>)") : QString(), count));
}

void MainWindow::onSelectedActivityChanged() {
    const auto& activity = state_->selectedActivity();
    if (!activity.isValid() || !traceModel_->run() || traceModel_->run()->id != activity.runId) {
        return;
    }
    int row = traceProxy_->rowOfActivity(activity.index);
    if (row < 0 && !traceShowAll_->isChecked()) {
        traceShowAll_->setChecked(true); // an API or host event: show those rows
        row = traceProxy_->rowOfActivity(activity.index);
    }
    if (row >= 0 && traceTable_->currentIndex().row() != row) {
        const QModelIndex index = traceProxy_->index(row, 0);
        traceTable_->setCurrentIndex(index);
        traceTable_->scrollTo(index, QAbstractItemView::PositionAtCenter);
    }
}

void MainWindow::startRun() {
    if (runner_->isRunning()) {
        return;
    }
    errorBanner_->hide();
    if (!pendingRuns_->isValid()) {
        showError(QStringLiteral("Cannot keep run traces: %1").arg(pendingRuns_->errorString().toHtmlEscaped()));
        return;
    }
    const models::RunConfig config = setup_->config();
    const bool wantsGpu = std::any_of(config.strategies.begin(), config.strategies.end(), [](const QString& name) {
        const auto id = strategy::parseStrategy(name.toStdString());
        return id && strategy::isGpu(*id);
    });
    if (wantsGpu && devicesProcess_ && config.device.kind == models::DeviceChoice::Kind::None) {
        // The device list is still on its way: run as soon as it is here.
        runAfterDevices_ = true;
        status_->setText(QStringLiteral("Waiting for slicescope-cli's device list\u2026"));
        return;
    }
    const models::RunPlan plan = models::planRun(config, pendingRuns_->directory(), ++runSequence_);
    if (!plan.error.isEmpty()) {
        showError(plan.error.toHtmlEscaped());
        return;
    }
    runner_->start(plan.jobs);
}

void MainWindow::recordProgramDialog() {
    if (runner_->isRunning()) {
        return;
    }
    RecordDialog dialog(this);
    dialog.setConfig(lastRecord_);
    if (dialog.exec() != QDialog::Accepted) {
        return;
    }
    startRecording(dialog.config());
}

void MainWindow::startRecording(const models::RecordConfig& config) {
    if (runner_->isRunning()) {
        return;
    }
    errorBanner_->hide();
    if (!pendingRuns_->isValid()) {
        showError(QStringLiteral("Cannot keep run traces: %1").arg(pendingRuns_->errorString().toHtmlEscaped()));
        return;
    }
    lastRecord_ = config;
    const models::RecordPlan plan = models::planRecord(config, pendingRuns_->directory(), ++runSequence_);
    if (!plan.error.isEmpty()) {
        showError(plan.error.toHtmlEscaped());
        return;
    }
    runner_->start({plan.job});
}

void MainWindow::cancelRun() {
    if (runner_->isRunning()) {
        runner_->cancel();
        return;
    }
    if (loader_->isBusy()) {
        // Loading traces: stop reading; nothing of it joins the session.
        loader_->cancelAll();
        loadOrder_.clear();
        loadsArrived_.clear();
        if (loadingRestore_) {
            loadingRestore_ = false;
            autosaveArmed_ = true;
        }
        status_->setText(QStringLiteral("Loading cancelled."));
        appendLog(QStringLiteral("loading cancelled"));
    }
}

void MainWindow::setPresentationMode(bool on) {
    constexpr double kProjectorScale = 1.4;
    theme::setPresentationScale(on ? kProjectorScale : 1.0);
    QFont font = baseFont_;
    font.setPointSizeF(baseFont_.pointSizeF() * (on ? kProjectorScale : 1.0));
    QApplication::setFont(font);
    QFont verdictFont = font;
    verdictFont.setPointSizeF(font.pointSizeF() * 1.2);
    verdict_->setFont(verdictFont);
    timeline_->applyTheme();
    occupancy_->applyTheme();
    if (auto* dock = findChild<QDockWidget*>(QStringLiteral("runDock"))) {
        resizeDocks({dock}, {int(380 * (on ? kProjectorScale : 1.0))}, Qt::Horizontal);
    }
}

void MainWindow::setBusy(bool busy, const QString& text) {
    progress_->setVisible(busy);
    cancelButton_->setVisible(busy);
    if (busy) {
        progress_->setValue(0);
    }
    if (!text.isEmpty()) {
        status_->setText(text);
    }
}

void MainWindow::showError(const QString& text) {
    errorBanner_->show(MessageBanner::Kind::Error, text);
    QString plain = text;
    plain.remove(QRegularExpression(QStringLiteral("<[^>]*>")));
    appendLog(QStringLiteral("error: ") + plain);
}

void MainWindow::appendLog(const QString& line) {
    log_->appendPlainText(QDateTime::currentDateTime().toString(QStringLiteral("HH:mm:ss  ")) + line);
}

void MainWindow::addRecentFile(const QString& path) {
    if (path.startsWith(QLatin1Char(':'))) {
        return;
    }
    const QString absolute = QFileInfo(path).absoluteFilePath();
    recentFiles_.removeAll(absolute);
    recentFiles_.prepend(absolute);
    while (recentFiles_.size() > kMaxRecentFiles) {
        recentFiles_.removeLast();
    }
    updateRecentMenu();
    // A QSettings writes its file, and fsyncs it, when it goes: on a worker, so that opening a
    // trace never waits for the disk (tens of milliseconds, more on a busy disk).
    settingsWriter_.start([files = recentFiles_] { QSettings().setValue(QStringLiteral("recentFiles"), files); });
}

void MainWindow::updateRecentMenu() {
    recentMenu_->clear();
    for (int i = 0; i < recentFiles_.size(); ++i) {
        auto* action = recentMenu_->addAction(QStringLiteral("&%1  %2").arg(i + 1).arg(recentFiles_[i]));
        connect(action, &QAction::triggered, this, [this, path = recentFiles_[i]] { openTrace(path); });
    }
    recentMenu_->setEnabled(!recentFiles_.isEmpty());
}

void MainWindow::openDialog() {
    const QStringList files = QFileDialog::getOpenFileNames(
        this, QStringLiteral("Open trace"), QSettings().value(QStringLiteral("lastDir")).toString(),
        QStringLiteral("SliceScope traces (*.json);;All files (*)"));
    for (const QString& file : files) {
        QSettings().setValue(QStringLiteral("lastDir"), QFileInfo(file).absolutePath());
        openTrace(file);
    }
}

QString MainWindow::askForPath(const QString& title, const QString& filter) {
    const QString path = QFileDialog::getSaveFileName(this, title, QSettings().value(QStringLiteral("lastDir")).toString(),
                                                      filter);
    if (!path.isEmpty()) {
        QSettings().setValue(QStringLiteral("lastDir"), QFileInfo(path).absolutePath());
    }
    return path;
}

void MainWindow::saveSessionAs() {
    const QString path = askForPath(QStringLiteral("Save session"), QStringLiteral("SliceScope traces (*.json)"));
    if (!path.isEmpty()) {
        exportSession(path, SessionFormat::Trace);
    }
}

QFuture<QString> MainWindow::exportSession(const QString& path, SessionFormat format) {
    if (session_->isEmpty()) {
        const QString message = QStringLiteral("There are no runs to save or export.");
        showError(message);
        return QtFuture::makeReadyFuture(message);
    }
    // Immutable runs are shared with the worker; it builds the trace and writes it.
    std::vector<std::pair<std::string, std::shared_ptr<const trace::Run>>> runs;
    for (const auto& entry : session_->runs()) {
        runs.emplace_back(entry->id.toStdString(), entry->run);
    }
    status_->setText(QStringLiteral("Writing %1\u2026").arg(path));
    QFuture<QString> future = QtConcurrent::run([runs = std::move(runs), path, format] {
        trace::Trace t;
        t.generator = "slicescope 0.1.0";
        for (const auto& [id, run] : runs) {
            t.runs.push_back(*run);
            t.runs.back().id = id;
        }
        const std::filesystem::path target = path.toStdString();
        const Status done = format == SessionFormat::Trace ? trace::writeTrace(t, target)
                            : format == SessionFormat::Csv ? trace::exportCsv(t, target)
                                                           : trace::exportChromeTrace(t, target);
        return done ? QString() : models::toQString(done.error().message);
    });
    auto* watcher = new QFutureWatcher<QString>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, path, format] {
        watcher->deleteLater();
        const QString error = watcher->result();
        if (!error.isEmpty()) {
            showError(QStringLiteral("Could not write %1: %2").arg(path.toHtmlEscaped(), error.toHtmlEscaped()));
            return;
        }
        status_->setText(QStringLiteral("Wrote %1").arg(path));
        appendLog(QStringLiteral("wrote %1").arg(path));
        if (format == SessionFormat::Trace) {
            addRecentFile(path);
        }
    });
    watcher->setFuture(future);
    return future;
}

bool MainWindow::exportImage(const QString& path, const QSize& sizePx, double dpi, QString* error,
                             const ReportOptions& options) {
    ReportRenderer renderer(timeline_, occupancy_, session_);
    renderer.setOptions(options);
    QString message;
    const bool ok = renderer.exportTo(path, sizePx, dpi, &message);
    if (!ok) {
        showError(QStringLiteral("Could not export the image: ") + message.toHtmlEscaped());
    } else {
        status_->setText(QStringLiteral("Exported %1").arg(path));
    }
    if (error) {
        *error = message;
    }
    return ok;
}

void MainWindow::exportImageDialog() {
    QSettings settings;
    const QString last = settings.value(QStringLiteral("lastExport"),
                                        QDir(QSettings().value(QStringLiteral("lastDir"), QDir::homePath()).toString())
                                            .filePath(QStringLiteral("slicescope.png")))
                             .toString();
    ExportImageDialog dialog(last, this);
    if (dialog.exec() != QDialog::Accepted) {
        return;
    }
    settings.setValue(QStringLiteral("lastExport"), dialog.path());
    exportImage(dialog.path(), dialog.sizePx(), dialog.dpi(), nullptr, dialog.options());
}

void MainWindow::exportTable(bool chrome) {
    const QString path = chrome ? askForPath(QStringLiteral("Export Chrome trace"),
                                             QStringLiteral("Chrome Trace Event JSON (*.json)"))
                                : askForPath(QStringLiteral("Export CSV"), QStringLiteral("CSV (*.csv)"));
    if (!path.isEmpty()) {
        exportSession(path, chrome ? SessionFormat::Chrome : SessionFormat::Csv);
    }
}

void MainWindow::newSession() {
    loader_->cancelAll();
    loadOrder_.clear();
    loadsArrived_.clear();
    session_->clear();
    state_->setSelectedRun({});
    errorBanner_->hide();
}

void MainWindow::removeSelectedRun() {
    const int index = session_->indexOf(state_->selectedRun());
    if (index >= 0) {
        session_->removeRun(index);
    }
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
    runner_->cancel();
    store_->waitForIdle();
    QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls()) {
        for (const QUrl& url : event->mimeData()->urls()) {
            if (url.isLocalFile()) {
                event->acceptProposedAction();
                return;
            }
        }
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
