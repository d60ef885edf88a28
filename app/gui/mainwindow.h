#pragma once

#include <QFuture>
#include <QMainWindow>
#include <QPointer>
#include <QThreadPool>

#include <deque>
#include <map>
#include <memory>
#include <optional>

#include "gui/reportrenderer.h"
#include "models/cliplan.h"
#include "models/recordplan.h"
#include "models/traceloader.h"

class QLabel;
class QMenu;
class QPlainTextEdit;
class QProcess;
class QProgressBar;
class QSortFilterProxyModel;
class QTableView;
class QToolButton;
class QCheckBox;

namespace slicescope::models {
class CliRunner;
class DeviceListModel;
class GpuTraceModel;
class GpuTraceProxy;
class RunListModel;
class Session;
class SessionStore;
class StrategyListModel;
class ViewState;
} // namespace slicescope::models

namespace slicescope::models {
class PendingRuns;
}

namespace slicescope::gui {

class MessageBanner;
class OccupancyView;
class RunSetupWidget;
class TimelineView;

// What the command line asks the window to do at start.
struct StartOptions {
    QStringList traces;          // files to open
    bool restoreSession = false; // restore the autosaved session without asking
    bool noSamples = false;      // do not open the shipped samples
    QString sessionFile;         // autosave here instead of the default
    std::optional<models::RunConfig> run; // settings for the run panel
    QString device;              // "gpu:0", "preset:h200" or a preset id
    bool runNow = false;         // start the run at once
};

class MainWindow : public QMainWindow {
    Q_OBJECT
  public:
    explicit MainWindow(const StartOptions& options = {}, QWidget* parent = nullptr);
    ~MainWindow() override;

    // Starts what the options ask for (device query, restore offer, samples, files, run).
    void start();

    void openTrace(const QString& path);
    bool exportImage(const QString& path, const QSize& sizePx, double dpi, QString* error = nullptr,
                     const ReportOptions& options = {});
    void startRun();
    void cancelRun();
    // "Record program…": asks for the program (RecordDialog), then records it.
    void recordProgramDialog();
    // Records an outside program with `slicescope-cli record`; its run joins the session.
    void startRecording(const models::RecordConfig& config);
    // Writes the session's runs (samples included) as a trace, CSV or Chrome trace, on a worker
    // thread; the future holds the error message, empty on success. Errors also show in the window.
    enum class SessionFormat { Trace, Csv, Chrome };
    QFuture<QString> exportSession(const QString& path, SessionFormat format);

    models::Session* session() const { return session_; }
    models::ViewState* viewState() const { return state_; }
    models::SessionStore* sessionStore() const { return store_; }
    models::CliRunner* runner() const { return runner_; }
    models::TraceLoader* loader() const { return loader_; }
    TimelineView* timeline() const { return timeline_; }
    OccupancyView* occupancyView() const { return occupancy_; }
    RunSetupWidget* runSetup() const { return setup_; }
    MessageBanner* errorBanner() const { return errorBanner_; }
    MessageBanner* infoBanner() const { return infoBanner_; }
    MessageBanner* restoreBanner() const { return restoreBanner_; }
    QTableView* gpuTraceTable() const { return traceTable_; }
    models::GpuTraceProxy* gpuTraceProxy() const { return traceProxy_; }
    QPlainTextEdit* logView() const { return log_; }
    // Restores the autosaved session (the restore banner's button).
    void restoreSession();
    void discardSavedSession();
    // Shipped sample traces, from the program's resources (empty when none were shipped).
    static QStringList sampleTraces();
    // The sample opened at start: the seed's shape, every strategy, pageable memory.
    static QString startSample();

  signals:
    // A trace finished loading (or failed): for tests and the status bar.
    void traceLoaded(const QString& path, bool ok);
    void runFinished(bool cancelled);

  protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

  private:
    void createActions();
    void createDocks();
    void queryDevices();
    void onDevicesListed(int exitCode, const QByteArray& output, const QString& error);
    void onLoaded(const models::LoadResult& result);
    void applyLoaded(const models::LoadResult& result);
    void load(const QString& path, models::RunOrigin origin);
    void onSessionChanged();
    void requestSave();
    void onRunsAdded(int first, int last);
    void onSelectedRunChanged(const QString& runId);
    void onSelectedActivityChanged();
    void updateTraceCaption();
    void showError(const QString& text);
    void appendLog(const QString& line);
    void addRecentFile(const QString& path);
    void updateRecentMenu();
    void openDialog();
    void saveSessionAs();
    QString askForPath(const QString& title, const QString& filter);
    void exportImageDialog();
    void exportTable(bool chrome);
    void newSession();
    void removeSelectedRun();
    void loadSamples();
    void setBusy(bool busy, const QString& text = {});
    void setPresentationMode(bool on);

    StartOptions options_;
    models::Session* session_;
    models::ViewState* state_;
    models::SessionStore* store_;
    models::TraceLoader* loader_;
    models::CliRunner* runner_;
    models::StrategyListModel* strategies_;
    models::DeviceListModel* devices_;
    models::RunListModel* runList_;
    QSortFilterProxyModel* runProxy_;
    models::GpuTraceModel* traceModel_;
    models::GpuTraceProxy* traceProxy_;

    TimelineView* timeline_;
    OccupancyView* occupancy_;
    RunSetupWidget* setup_;
    MessageBanner* infoBanner_;
    MessageBanner* errorBanner_;
    MessageBanner* restoreBanner_;
    QTableView* runTable_ = nullptr;
    QLabel* verdict_ = nullptr;
    QTableView* traceTable_ = nullptr;
    QLabel* traceCaption_ = nullptr;
    QCheckBox* traceShowAll_ = nullptr;
    QPlainTextEdit* log_ = nullptr;
    QProgressBar* progress_;
    QToolButton* cancelButton_;
    QLabel* status_;
    QMenu* recentMenu_ = nullptr;
    QMenu* viewMenu_ = nullptr;

    QAction* runAction_ = nullptr;
    QAction* recordAction_ = nullptr;
    models::RecordConfig lastRecord_;
    QAction* cancelAction_ = nullptr;
    QAction* alignAction_ = nullptr;
    QAction* presentationAction_ = nullptr;
    QFont baseFont_;

    // Loads finish in any order; their runs join the session in the order they were asked for.
    std::deque<quint64> loadOrder_;
    std::map<quint64, models::LoadResult> loadsArrived_;
    QPointer<QProcess> devicesProcess_; // the `devices --json` query while it runs
    // Where slicescope-cli writes run traces; each is kept until an autosave holds its runs.
    std::unique_ptr<models::PendingRuns> pendingRuns_;
    QStringList adoptedRuns_;  // traces of runs a killed GUI left, being restored
    quint64 lastSaveTicket_ = 0; // of the last autosave asked for
    QStringList recentFiles_;
    QThreadPool settingsWriter_;
    int runSequence_ = 0;
    bool autosaveArmed_ = true;   // false while the restore offer is open
    bool autosavePending_ = false;
    bool loadingRestore_ = false;
    bool runAfterDevices_ = false; // Run was asked for before the device list arrived
    QString pendingSelectRun_;
};

} // namespace slicescope::gui
