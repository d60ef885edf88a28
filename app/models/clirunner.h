#pragma once

#include "models/cliplan.h"

#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QProcess>
#include <csignal>

namespace slicescope::models {

// Runs CLI jobs one after another as slicescope-cli child processes. Reads their progress lines,
// and turns every way a child can end into a signal: a trace written (jobSucceeded, possibly
// with a jobFailed for the strategies that did not make it), a usage error, a crash, a failure
// to start. Cancel ends the child at once (SIGTERM, SIGKILL after 250 ms; 15 s for `record`,
// which stops its program and keeps what was recorded, and for `sweep`, which keeps the points
// finished) and skips the rest. On Linux a child also
// ends when the GUI does, even when the GUI is SIGKILLed (PR_SET_PDEATHSIG: SIGKILL, or SIGTERM
// for `record`, which then keeps what was recorded).
// Measuring in a child keeps CUPTI state per run and keeps a faulting kernel out of the GUI.
class CliRunner : public QObject {
    Q_OBJECT
  public:
    explicit CliRunner(QObject* parent = nullptr);
    ~CliRunner() override;

    // slicescope-cli beside the running program; $SLICESCOPE_CLI overrides it.
    static QString defaultProgram();
    void setProgram(const QString& program) { program_ = program; }
    const QString& program() const { return program_; }

    // False (and nothing started) when a run is already going or there is nothing to run.
    bool start(const QList<CliJob>& jobs);
    void cancel();
    bool isRunning() const { return process_ != nullptr; }
    // The child's process id while one runs (tests), else 0.
    qint64 childPid() const;

  signals:
    void started();
    // Overall progress 0..1 and what the child is doing, e.g. "cpu-serial: compute"; -1 when the
    // fraction is unknown (a recorded program runs as long as it runs).
    void progress(double fraction, const QString& stage);
    void jobSucceeded(const slicescope::models::CliJob& job, const QString& tracePath);
    void jobFailed(const slicescope::models::CliJob& job, const QString& message);
    void logLine(const QString& line);
    // All jobs done, failed or cancelled; the runner is idle again.
    void finished(bool cancelled);

  private:
    void startNext();
    void readOutput();
    void readErrors();
    void onProcessFinished(int exitCode, QProcess::ExitStatus status);
    void onProcessError(QProcess::ProcessError error);
    void handleLine(const QString& line);
    void handleErrorLine(const QByteArray& line);
    void finishProcess();

    QString program_;
    QList<CliJob> jobs_;
    int current_ = -1;
    QProcess* process_ = nullptr;
    QByteArray stdoutBuffer_;
    QByteArray stderrBuffer_;
    QString stderrText_;
    bool cancelled_ = false;
    bool processDone_ = false;
};

// Makes a child started by `process` get `signal` when this process dies, however it ends
// (SIGKILL included): PR_SET_PDEATHSIG on Linux, nothing elsewhere. Call before start().
void endWithThisProcess(QProcess& process, int signal = SIGKILL);

} // namespace slicescope::models
