#pragma once

#include "gui/reportrenderer.h"
#include "models/cliplan.h"
#include "models/recordplan.h"
#include "models/sessioncontroller.h"

#include <QMainWindow>
#include <optional>

namespace slicescope::models {
class StrategyListModel;
class ViewState;
} // namespace slicescope::models

namespace slicescope::gui {

class GpuTracePanel;
class LogPanel;
class MessageBanner;
class RecentFilesMenu;
class OccupancyView;
class RunSetupWidget;
class RunsPanel;
class StatusIndicator;
class SweepChart;
class SweepPanel;
class TimelineView;

// What the command line asks the window to do at start.
struct StartOptions {
    QStringList traces;                   // files to open
    bool restoreSession = false;          // restore the autosaved session without asking
    bool noSamples = false;               // do not open the shipped samples
    QString sessionFile;                  // autosave here instead of the default
    std::optional<models::RunConfig> run; // settings for the run panel
    QString device;                       // "gpu:0", "preset:h200" or a preset id
    bool runNow = false;                  // start the run at once
};

// The window: builds the views and docks, menus and shortcuts, asks the user (dialogs, banners)
// and hands what they chose to the SessionController, which does the work.
class MainWindow : public QMainWindow {
    Q_OBJECT
  public:
    explicit MainWindow(const StartOptions& options = {}, QWidget* parent = nullptr);
    ~MainWindow() override;

    // Starts what the options ask for (device query, restore offer, samples, files, run).
    void start();

    models::SessionController* controller() const { return controller_; }
    models::ViewState* viewState() const { return state_; }

    void openTrace(const QString& path);
    // runs: the runs to draw (the Export dialog's choice); none: those the window shows.
    bool exportImage(const QString& path, const QSize& sizePx, double dpi, QString* error = nullptr,
                     const ReportOptions& options = {},
                     const std::optional<QStringList>& runs = std::nullopt);
    // Runs the run panel's checked strategies.
    void startRun();
    void cancelRun();
    // Runs the sweep panel's sweep on the run panel's problem.
    void startSweep();
    SweepPanel* sweepPanel() const { return sweepPanel_; }
    SweepChart* sweepChart() const { return sweepChart_; }
    // "Record program…": asks for the program (RecordDialog), then records it.
    void recordProgramDialog();
    // Records an outside program with `slicescope-cli record`; its run joins the session.
    void startRecording(const models::RecordConfig& config);

  protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

  private:
    void createCentralWidget();
    void createDocks();
    void createActions(); // mainwindowmenus.cpp
    void connectController();
    void restoreSettings();
    void offerRestore(bool sessionSaved, int orphanRunFiles);
    void restoreSession();
    void discardSavedSession();
    void onDevicesListed(const QString& error);
    void onTraceLoaded(const QString& path, models::RunOrigin origin, int runCount);
    void onRunRunning(bool running, bool cancelled = false);
    void onSessionChanged();
    void showError(const QString& html);
    void appendLog(const QString& line);
    void openDialog();
    QString askForPath(const QString& title, const QString& filter);
    void exportSessionDialog(models::SessionController::ExportFormat format);
    void exportImageDialog();
    // File > New session and File > Close all runs: every run goes, and with them the autosaved
    // session; each asks first (sessionprompts.h) when the user has runs to lose.
    void newSession();
    void closeAll();
    void closeEveryRun();
    void loadSamples();
    void setPresentationMode(bool on);

    StartOptions options_;
    models::SessionController* controller_;
    models::ViewState* state_;
    models::StrategyListModel* strategies_;

    TimelineView* timeline_ = nullptr;
    OccupancyView* occupancy_ = nullptr;
    RunSetupWidget* setup_ = nullptr;
    RunsPanel* runsPanel_ = nullptr;
    SweepPanel* sweepPanel_ = nullptr;
    SweepChart* sweepChart_ = nullptr;
    GpuTracePanel* tracePanel_ = nullptr;
    LogPanel* log_ = nullptr;
    MessageBanner* infoBanner_ = nullptr;
    MessageBanner* errorBanner_ = nullptr;
    MessageBanner* restoreBanner_ = nullptr;
    StatusIndicator* status_ = nullptr;
    RecentFilesMenu* recentMenu_ = nullptr;

    QAction* runAction_ = nullptr;
    QAction* recordAction_ = nullptr;
    QAction* cancelAction_ = nullptr;
    QAction* alignAction_ = nullptr;
    QAction* presentationAction_ = nullptr;
    models::RecordConfig lastRecord_;
    QFont baseFont_;
    bool runAfterDevices_ = false; // Run was asked for before the device list arrived
};

} // namespace slicescope::gui
