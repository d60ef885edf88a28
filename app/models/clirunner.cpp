#include "models/clirunner.h"

#include "models/recordplan.h"
#include "models/sweepjob.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimer>
#include <algorithm>
#include <csignal>

#ifdef Q_OS_LINUX
#include <sys/prctl.h>
#include <unistd.h>
#endif

#include "slicescope/core/progressline.h"

namespace slicescope::models {

CliRunner::CliRunner(QObject* parent) : QObject(parent), program_(defaultProgram()) {
    qRegisterMetaType<CliJob>();
}

CliRunner::~CliRunner() {
    if (process_) {
        process_->disconnect(this);
        process_->kill();
        process_->waitForFinished(2000);
    }
}

QString CliRunner::defaultProgram() {
    const QString fromEnv = qEnvironmentVariable("SLICESCOPE_CLI");
    if (!fromEnv.isEmpty()) {
        return fromEnv;
    }
    return QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("slicescope-cli"));
}

void endWithThisProcess(QProcess& process, int signal) {
#ifdef Q_OS_LINUX
    process.setChildProcessModifier([parent = ::getpid(), signal] {
        ::prctl(PR_SET_PDEATHSIG, signal);
        if (::getppid() != parent) {
            ::_exit(127); // the parent died before the line above took effect
        }
    });
#else
    Q_UNUSED(process);
    Q_UNUSED(signal);
#endif
}

qint64 CliRunner::childPid() const {
    return process_ ? process_->processId() : 0;
}

bool CliRunner::start(const QList<CliJob>& jobs) {
    if (isRunning() || jobs.isEmpty()) {
        return false;
    }
    jobs_ = jobs;
    current_ = -1;
    cancelled_ = false;
    emit started();
    startNext();
    return true;
}

void CliRunner::startNext() {
    ++current_;
    if (cancelled_ || current_ >= jobs_.size()) {
        const bool cancelled = cancelled_;
        jobs_.clear();
        current_ = -1;
        emit finished(cancelled);
        return;
    }
    const CliJob& job = jobs_[current_];
    emit progress(double(current_) / jobs_.size(), job.label);
    emit logLine(QStringLiteral("$ slicescope-cli ") + job.arguments.join(QLatin1Char(' ')));
    QDir().mkpath(QFileInfo(job.outputPath).absolutePath());
    stdoutBuffer_.clear();
    stderrBuffer_.clear();
    stderrText_.clear();
    processDone_ = false;
    process_ = new QProcess(this);
    connect(process_, &QProcess::readyReadStandardOutput, this, &CliRunner::readOutput);
    connect(process_, &QProcess::readyReadStandardError, this, &CliRunner::readErrors);
    connect(process_, &QProcess::finished, this, &CliRunner::onProcessFinished);
    connect(process_, &QProcess::errorOccurred, this, &CliRunner::onProcessError);
    // Nobody would read what an orphan measures, and it would share the CPU or GPU with the next
    // start's runs and distort them. A child killed mid-run leaves no half-written trace (the CLI
    // writes a temporary file and renames it when complete). `record` gets SIGTERM instead: it
    // stops its program and writes what was recorded, which the next start offers back (the
    // trace lands in this GUI's folder of pending runs).
    endWithThisProcess(*process_, job.recording ? SIGTERM : SIGKILL);
    process_->start(program_, job.arguments);
}

void CliRunner::cancel() {
    if (!process_ || cancelled_) {
        return;
    }
    cancelled_ = true;
    emit logLine(QStringLiteral("cancelling: stopping slicescope-cli"));
    process_->terminate();
    // A child stuck in a driver call may ignore SIGTERM; SIGKILL cannot be ignored. `record`
    // gets longer: on SIGTERM it stops the program (SIGKILL after 5 s) and writes what it got.
    // A sweep finishes its GPU point and writes the points done.
    const bool keeps = current_ >= 0 && current_ < jobs_.size() &&
                       (jobs_[current_].recording || isSweepJob(jobs_[current_]));
    QTimer::singleShot(keeps ? 15'000 : 250, process_, [p = process_] {
        if (p->state() != QProcess::NotRunning) {
            p->kill();
        }
    });
}

void CliRunner::readOutput() {
    if (!process_) {
        return;
    }
    stdoutBuffer_ += process_->readAllStandardOutput();
    qsizetype newline;
    while ((newline = stdoutBuffer_.indexOf('\n')) >= 0) {
        handleLine(QString::fromUtf8(stdoutBuffer_.left(newline)).trimmed());
        stdoutBuffer_.remove(0, newline + 1);
    }
}

void CliRunner::handleLine(const QString& line) {
    if (line.isEmpty()) {
        return;
    }
    const std::string text = line.toStdString();
    const auto p = core::parseRunProgressLine(text);
    if (!core::isProgressLine(text) || !p) {
        emit logLine(line);
        return;
    }
    double withinJob = (double(p->index) + p->fraction) / double(p->count);
    QString stage = QString::fromStdString(p->strategy) + QStringLiteral(": ") +
                    QString::fromStdString(p->stage);
    if (p->sweep.points > 0) {
        // A sweep's line: the runs of the whole sweep done when the CLI says (its GPU strategies
        // run at every point before its CPU ones start again at the first point); else the
        // point it is at, then the strategy within the point.
        withinJob = p->sweep.runs > 0
                        ? p->sweep.runsDone / double(p->sweep.runs)
                        : (double(p->sweep.point) + withinJob) / double(p->sweep.points);
        stage =
            QStringLiteral("%1 %2 (point %3 of %4), %5")
                .arg(QString::fromStdString(p->sweep.param), QString::fromStdString(p->sweep.value))
                .arg(p->sweep.point + 1)
                .arg(p->sweep.points)
                .arg(stage);
    }
    const double overall = (current_ + withinJob) / std::max<qsizetype>(1, jobs_.size());
    emit progress(overall, stage);
}

void CliRunner::readErrors() {
    if (!process_) {
        return;
    }
    stderrBuffer_ += process_->readAllStandardError();
    qsizetype newline;
    while ((newline = stderrBuffer_.indexOf('\n')) >= 0) {
        handleErrorLine(stderrBuffer_.left(newline));
        stderrBuffer_.remove(0, newline + 1);
    }
}

void CliRunner::handleErrorLine(const QByteArray& line) {
    // `record` keeps stdout for the recorded program and reports progress on stderr; its
    // fraction is unknown (a program runs as long as it runs): -1.
    if (core::isProgressLine(std::string_view(line.constData(), std::size_t(line.size())))) {
        emit progress(-1.0, recordProgressText(line));
        return;
    }
    const QString text = QString::fromUtf8(line);
    stderrText_ += text + QLatin1Char('\n');
    if (!text.trimmed().isEmpty()) {
        emit logLine(text);
    }
}

void CliRunner::onProcessError(QProcess::ProcessError error) {
    if (error != QProcess::FailedToStart || !process_) {
        return; // crashes and exits arrive through finished()
    }
    const CliJob job = jobs_[current_];
    const QString message =
        QStringLiteral("Could not start %1: %2").arg(program_, process_->errorString());
    finishProcess();
    emit jobFailed(job, message);
    startNext();
}

void CliRunner::onProcessFinished(int exitCode, QProcess::ExitStatus status) {
    if (!process_) {
        return;
    }
    readOutput();
    readErrors();
    if (!stdoutBuffer_.isEmpty()) {
        handleLine(QString::fromUtf8(stdoutBuffer_).trimmed());
        stdoutBuffer_.clear();
    }
    if (!stderrBuffer_.isEmpty()) {
        handleErrorLine(stderrBuffer_);
        stderrBuffer_.clear();
    }
    const CliJob job = jobs_[current_];
    const QString errors = stderrText_.trimmed();
    const bool crashed = status == QProcess::CrashExit;
    finishProcess();
    if (job.recording && !crashed && QFileInfo::exists(job.outputPath)) {
        // The trace of a recording is kept however the program ended (its exit status and any
        // cancellation are in the run's notes).
        if (cancelled_) {
            emit logLine(QStringLiteral("Cancelled: %1; keeping what was recorded").arg(job.label));
        } else if (exitCode != 0) {
            emit logLine(QStringLiteral("the recorded program ended with status %1").arg(exitCode));
        }
        emit jobSucceeded(job, job.outputPath);
    } else if (job.recording && !cancelled_ && !crashed) {
        // No trace: the program could not be started (127, 126) or record itself failed.
        emit jobFailed(
            job, errors.isEmpty()
                     ? QStringLiteral("slicescope-cli record exited with status %1").arg(exitCode)
                     : errors);
    } else if (isSweepJob(job) && cancelled_ && !crashed && exitCode == 130 &&
               QFileInfo::exists(job.outputPath)) {
        // A cancelled sweep wrote the points it finished: they join the session.
        emit logLine(QStringLiteral("Cancelled: %1; keeping the points finished").arg(job.label));
        emit jobSucceeded(job, job.outputPath);
    } else if (cancelled_) {
        emit jobFailed(job, QStringLiteral("Cancelled: %1").arg(job.label));
    } else if (crashed) {
        emit jobFailed(
            job, QStringLiteral("slicescope-cli crashed while running %1%2")
                     .arg(job.label, errors.isEmpty() ? QString() : QStringLiteral(": ") + errors));
    } else {
        // Exit 1 can still leave a trace of the strategies that succeeded.
        const bool wrote = (exitCode == 0 || exitCode == 1) && QFileInfo::exists(job.outputPath);
        if (wrote) {
            emit jobSucceeded(job, job.outputPath);
        }
        if (exitCode != 0) {
            emit jobFailed(
                job, errors.isEmpty()
                         ? QStringLiteral("slicescope-cli exited with status %1 while running %2")
                               .arg(exitCode)
                               .arg(job.label)
                         : errors);
        }
    }
    startNext();
}

void CliRunner::finishProcess() {
    if (process_) {
        process_->disconnect(this);
        process_->deleteLater();
        process_ = nullptr;
    }
}

} // namespace slicescope::models
