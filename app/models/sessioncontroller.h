#pragma once

#include "models/cliplan.h"
#include "models/recordplan.h"
#include "models/sweepjob.h"
#include "models/traceloader.h"

#include <QFuture>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>

class QProcess;

namespace slicescope::models {

class CliRunner;
class DeviceListModel;
class PendingRuns;
class Session;
class SessionStore;

// The session's pipeline, with no widgets: runs through slicescope-cli children (CliRunner),
// their traces read off the GUI thread (TraceLoader) and joined to the session in the order they
// were asked for, the autosave (SessionStore) and the run traces kept until it holds them
// (PendingRuns), the restore of what an earlier start left, and the `devices --json` query.
// The window asks the user and calls this; this reports through signals and never shows
// anything itself (see docs/design.md, "Architecture").
class SessionController : public QObject {
    Q_OBJECT
  public:
    enum class ExportFormat { Trace, Csv, Chrome };
    enum class RunStart {
        Started,
        WaitingForDevices, // GPU strategies and no device yet: the device list is on its way
        Busy,              // a run is going
        Refused,           // runRefused said why
    };
    Q_ENUM(ExportFormat)
    Q_ENUM(RunStart)

    // sessionFile: where the session is autosaved; empty for SessionStore::defaultPath().
    explicit SessionController(const QString& sessionFile = {}, QObject* parent = nullptr);
    ~SessionController() override;

    Session* session() const { return session_; }
    DeviceListModel* devices() const { return devices_; }
    const QString& sessionFile() const;
    TraceLoader* loader() const { return loader_; }
    // The folder beside the session file that holds run traces not yet autosaved.
    QString runsFolder() const;
    // slicescope-cli; CliRunner::defaultProgram() unless set.
    QString cliProgram() const;
    void setCliProgram(const QString& program);

    bool isRunning() const;
    bool isLoading() const;

    // Asks slicescope-cli for the devices of host (empty: this machine; else `devices --host`,
    // through ssh); devicesListed reports. A query still running for another host is dropped.
    void queryDevices(const QString& host = {});
    // The host whose devices devices() lists (or is being asked for); empty: this machine.
    const QString& deviceHost() const { return deviceHost_; }

    // What an earlier start left: an autosaved session (this one's, or one a second instance left
    // beside it), and run traces that finished as it died. While there is one, nothing is
    // autosaved until the user chose: restoreSession() (once every restored file is in) or
    // discardSavedSession(). A cancelled restore offers it again.
    bool hasSavedSession() const;
    // restoreOffered says what there is.
    void offerRestore();
    void restoreSession();
    void discardSavedSession();

    void openTrace(const QString& path);
    void openSample(const QString& path);
    // Empties the session; traces still loading never join it.
    void clearSession();
    void removeRun(const QString& runId);
    // The measured GPU runs among runIds projected onto a device preset, off the GUI thread; they
    // join the session as one batch (projectionjob.h). projected reports.
    void projectRuns(const QStringList& runIds, const QString& presetId);

    RunStart startRun(const RunConfig& config);
    // One `slicescope-cli sweep`; its runs join the session as one batch. Cancel keeps the points
    // finished.
    RunStart startSweep(const SweepConfig& config);
    RunStart startRecording(const RecordConfig& config);
    // Stops the run, or else the loading of traces (nothing of which joins the session).
    void cancel();

    // Writes the session's runs (samples included) on a worker thread; the future holds the
    // error message, empty on success. exported or exportFailed report too.
    QFuture<QString> exportSession(const QString& path, ExportFormat format);

    // Stops the run and waits until every save is on disk: the window is closing.
    void shutDown();
    // Waits until every save asked for is on disk.
    bool waitForSaved(int timeoutMs = 30000);
    // The largest session file the autosave writes (SessionStore::maxFileBytes: the reader's
    // limit); tests lower it.
    void setMaxSessionBytes(std::uint64_t bytes);

  signals:
    void restoreOffered(bool sessionSaved, int orphanRunFiles);
    void traceLoaded(const QString& path, slicescope::models::RunOrigin origin, int runCount);
    // message is empty when the load was cancelled.
    void traceFailed(const QString& path, const QString& message);
    void loadingChanged(bool loading);
    void loadProgress(double fraction, const QString& path);

    void runStarted();
    // 0..1, or -1 when the end is unknown (a recorded program).
    void runProgress(double fraction, const QString& stage);
    // One job of the run failed (a cancel is not a failure); the others go on.
    void runFailed(const QString& label, const QString& message);
    void runFinished(bool cancelled);
    // Nothing was started: why.
    void runRefused(const QString& message);

    // The device list arrived (devices() holds it), or could not be had: error says why.
    void devicesListed(const QString& error);
    void saveFailed(const QString& message);
    void exported(const QString& path, slicescope::models::SessionController::ExportFormat format);
    void exportFailed(const QString& message);
    void logLine(const QString& line);
    // A projection finished: how many runs joined, and why the others could not be projected.
    void projected(int added, const QStringList& errors);
    // Something about the session file the user must know: another instance holds it (this one
    // saves elsewhere), or a saved session could not be read and was moved aside.
    void sessionNotice(const QString& message);

  private:
    void load(const QString& path, RunOrigin origin);
    void onLoaded(const LoadResult& result);
    void applyLoaded(const LoadResult& result);
    void onSessionChanged();
    void requestSave();
    void onDevicesListed(int exitCode, const QByteArray& output, const QString& error);
    bool canKeepRuns();
    void armAutosave();
    void restoreFailed(const QString& path, const QString& error);
    void forgetLoads();

    Session* session_;
    SessionStore* store_;
    TraceLoader* loader_;
    CliRunner* runner_;
    DeviceListModel* devices_;
    // Where slicescope-cli writes run traces; each is kept until an autosave holds its runs.
    std::unique_ptr<PendingRuns> pendingRuns_;
    QPointer<QProcess> devicesProcess_; // the `devices --json` query while it runs
    QString deviceHost_;

    // Loads finish in any order; their runs join the session in the order they were asked for.
    std::deque<quint64> loadOrder_;
    std::map<quint64, LoadResult> loadsArrived_;
    QStringList adoptedRuns_;  // traces of runs a killed GUI left, being restored
    QStringList restoreFiles_; // session files being restored (this one's and others())
    int restoreLoadsLeft_ = 0;
    quint64 lastSaveTicket_ = 0; // of the last autosave asked for
    int runSequence_ = 0;
    bool autosaveArmed_ = true;    // false until the user chose to restore or discard
    bool autosaveBlocked_ = false; // an unreadable session could not be moved aside
    bool autosavePending_ = false;
    bool loadingRestore_ = false;
    bool cancelling_ = false; // the run's remaining job failures are the cancel
};

} // namespace slicescope::models
