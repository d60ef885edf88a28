// MainWindow's menus, toolbar and shortcuts (createActions), kept out of mainwindow.cpp so that
// the window's behaviour reads on its own; what each item does is in mainwindow.cpp.
#include "gui/helpmenu.h"
#include "gui/mainwindow.h"
#include "gui/recentfilesmenu.h"
#include "gui/runspanel.h"
#include "gui/samplesmenu.h"
#include "gui/timelineview.h"
#include "models/projectionjob.h"
#include "models/session.h"
#include "models/sessioncontroller.h"
#include "models/viewstate.h"
#include "slicescope/device/devicespec.h"

#include <QAction>
#include <QDockWidget>
#include <QMenuBar>
#include <QTableView>
#include <QToolBar>

namespace slicescope::gui {

namespace {

using ExportFormat = models::SessionController::ExportFormat;

} // namespace

void MainWindow::createActions() {
    // An action of a menu, with its shortcuts.
    auto add = [this](QMenu* menu, const QString& text, QList<QKeySequence> keys, auto slot) {
        auto* action = menu->addAction(text, this, slot);
        action->setShortcuts(keys);
        return action;
    };
    auto* file = menuBar()->addMenu(tr("&File"));
    auto* open = add(file, tr("&Open trace\u2026"), {QKeySequence::Open}, &MainWindow::openDialog);
    recentMenu_ = new RecentFilesMenu(tr("Open &recent"), file);
    file->addMenu(recentMenu_);
    connect(recentMenu_, &RecentFilesMenu::fileChosen, this, &MainWindow::openTrace);
    auto* samples = new SamplesMenu(tr("Open &sample (measured on an H200)"), file);
    file->addMenu(samples);
    connect(samples, &SamplesMenu::sampleChosen, this,
            [this](const QString& path) { controller_->openSample(path); });
    file->addSeparator();
    add(file, tr("&Save session as\u2026"), {QKeySequence::Save},
        [this] { exportSessionDialog(ExportFormat::Trace); });
    add(file, tr("&New session"), {QKeySequence::New}, &MainWindow::newSession);
    add(file, tr("C&lose all runs"), {QKeySequence(QStringLiteral("Ctrl+Shift+W"))},
        &MainWindow::closeAll)
        ->setObjectName(QStringLiteral("closeAllAction"));
    file->addSeparator();
    auto* image = add(file, tr("&Export image (PNG, PDF, SVG)\u2026"),
                      {QKeySequence(QStringLiteral("Ctrl+E"))}, &MainWindow::exportImageDialog);
    add(file, tr("Export &CSV (nvprof columns)\u2026"),
        {QKeySequence(QStringLiteral("Ctrl+Shift+E"))},
        [this] { exportSessionDialog(ExportFormat::Csv); });
    add(file, tr("Export C&hrome trace\u2026"), {},
        [this] { exportSessionDialog(ExportFormat::Chrome); });
    file->addSeparator();
    add(file, tr("&Quit"), {QKeySequence::Quit}, &QWidget::close);

    auto* runMenu = menuBar()->addMenu(tr("&Run"));
    runAction_ = add(runMenu, tr("&Run checked strategies"),
                     {QKeySequence(Qt::Key_F5), QKeySequence(QStringLiteral("Ctrl+R"))},
                     &MainWindow::startRun);
    recordAction_ =
        add(runMenu, tr("Record &program\u2026"), {QKeySequence(QStringLiteral("Ctrl+Shift+R"))},
            &MainWindow::recordProgramDialog);
    recordAction_->setObjectName(QStringLiteral("recordAction"));
    recordAction_->setToolTip(tr("Record an unmodified CUDA program (numba, C++, \u2026): its API "
                                 "calls, copies and kernels, with each kernel's occupancy"));
    cancelAction_ =
        add(runMenu, tr("&Cancel"), {QKeySequence(Qt::Key_Escape)}, &MainWindow::cancelRun);
    cancelAction_->setToolTip(
        tr("Stop the run (the child process ends at once) or the loading of traces"));
    cancelAction_->setEnabled(false);
    runMenu->addSeparator();
    auto* remove = add(runMenu, tr("Remove selected run"), {QKeySequence::Delete},
                       [this] { controller_->removeRun(state_->selectedRun()); });
    remove->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    runsPanel_->table()->addAction(remove);
    // The selected measured GPU run moved onto a preset by the model's ratios (docs/gui.md).
    auto* project = runMenu->addMenu(tr("&Project selected run onto"));
    project->setObjectName(QStringLiteral("projectMenu"));
    project->setToolTip(tr("Move the selected measured GPU run onto another GPU: its kernels by "
                           "the model's ratio of the two devices, its copies by their host "
                           "links, its host work as measured. The new run is marked projected"));
    for (const auto& preset : device::presets()) {
        const QString id = models::toQString(preset.id);
        project
            ->addAction(models::toQString(preset.name), this,
                        [this, id] { controller_->projectRuns({state_->selectedRun()}, id); })
            ->setData(id);
    }
    runsPanel_->table()->addAction(project->menuAction());
    const auto enableProject = [this, project] {
        const auto entry = controller_->session()->find(state_->selectedRun());
        project->setEnabled(entry && models::canProject(*entry));
    };
    connect(state_, &models::ViewState::selectedRunChanged, project, enableProject);
    connect(controller_->session(), &models::Session::changed, project, enableProject);
    enableProject();

    auto* view = menuBar()->addMenu(tr("&View"));
    const TimelineView::NavigationActions navigation = timeline_->createNavigationActions();
    view->addActions(navigation.menu);
    view->addActions(timeline_->laneActions()); // lane groups pinned open
    view->addSeparator();
    alignAction_ = view->addAction(tr("Runs on &absolute time"));
    alignAction_->setCheckable(true);
    alignAction_->setShortcut(QKeySequence(QStringLiteral("Ctrl+L")));
    alignAction_->setToolTip(tr("Off: every run starts at 0, to compare strategies. On: runs "
                                "where they happened in time."));
    connect(alignAction_, &QAction::toggled, this, [this](bool absolute) {
        state_->setAlignment(absolute ? models::Alignment::Absolute : models::Alignment::RunStart);
    });
    presentationAction_ = view->addAction(tr("&Large text (projector)"));
    presentationAction_->setCheckable(true);
    presentationAction_->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+P")));
    presentationAction_->setToolTip(tr("Larger text in every view and chart, for a projector"));
    connect(presentationAction_, &QAction::toggled, this, &MainWindow::setPresentationMode);
    view->addSeparator();
    for (auto* dock : findChildren<QDockWidget*>()) {
        view->addAction(dock->toggleViewAction());
    }
    menuBar()->addMenu(new HelpMenu(this));

    auto* toolbar = addToolBar(tr("Main"));
    toolbar->setObjectName(QStringLiteral("mainToolbar"));
    toolbar->addActions({open, runAction_, cancelAction_});
    toolbar->addSeparator();
    toolbar->addActions(
        {navigation.resetZoom, navigation.zoomIn, navigation.zoomOut, alignAction_});
    toolbar->addSeparator();
    toolbar->addAction(image);
    for (auto* action : {open, runAction_, cancelAction_, navigation.resetZoom, navigation.zoomIn,
                         navigation.zoomOut, image}) {
        action->setToolTip(
            tr("%1 (%2)").arg(action->text().remove(QLatin1Char('&')).remove(QChar(0x2026)),
                              action->shortcut().toString(QKeySequence::NativeText)));
    }
}

} // namespace slicescope::gui
