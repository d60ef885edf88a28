#include "models/sessioncontroller.h"

#include "models/clirunner.h"
#include "models/devicelistmodel.h"
#include "models/pendingruns.h"
#include "models/projectionjob.h"
#include "models/remotetargets.h"
#include "models/session.h"
#include "models/sessionstore.h"
#include "slicescope/strategy/strategy.h"
#include "slicescope/trace/exporters.h"
#include "slicescope/trace/tracejson.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QProcess>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <filesystem>

namespace slicescope::models {

SessionController::SessionController(const QString& sessionFile, QObject* parent)
    : QObject(parent) {
    session_ = new Session(this);
    store_ =
        new SessionStore(sessionFile.isEmpty() ? SessionStore::defaultPath() : sessionFile, this);
    // A refused session file (a device, a FIFO) gets no -runs folder beside it: run traces are
    // kept in the temporary folder instead.
    pendingRuns_ = std::make_unique<PendingRuns>(PendingRuns::rootFor(
        store_->refusal().isEmpty() ? store_->path()
                                    : QDir::temp().filePath(QStringLiteral("slicescope.json"))));
    loader_ = new TraceLoader(this);
    runner_ = new CliRunner(this);
    devices_ = new DeviceListModel(this);
    // The saved session is never overwritten before the user chose to restore or discard it.
    autosaveArmed_ = !hasSavedSession();
    if (store_->isFallback() || !store_->refusal().isEmpty()) {
        // Emitted once the caller has connected (the window does so right after constructing).
        const QString message =
            !store_->refusal().isEmpty()
                ? store_->refusal()
                : tr("Another SliceScope is using %1: this one saves its session to %2.")
                      .arg(store_->requestedPath(), store_->path());
        QMetaObject::invokeMethod(
            this,
            [this, message] {
                emit logLine(message);
                emit sessionNotice(message);
            },
            Qt::QueuedConnection);
    }

    connect(loader_, &TraceLoader::loaded, this, &SessionController::onLoaded);
    connect(loader_, &TraceLoader::busyChanged, this, &SessionController::loadingChanged);
    connect(loader_, &TraceLoader::progress, this, &SessionController::loadProgress);
    connect(session_, &Session::changed, this, &SessionController::onSessionChanged);
    connect(store_, &SessionStore::saveFailed, this, &SessionController::saveFailed);
    connect(store_, &SessionStore::saved, this,
            [this](const QString& path, int runs, quint64 ticket) {
                pendingRuns_->saved(ticket); // run traces whose runs are in the saved session now
                if (runs > 0) {
                    emit logLine(tr("session saved: %1 runs in %2").arg(runs).arg(path));
                }
            });

    connect(runner_, &CliRunner::started, this, [this] {
        cancelling_ = false;
        emit runStarted();
    });
    connect(runner_, &CliRunner::progress, this, &SessionController::runProgress);
    connect(runner_, &CliRunner::logLine, this, &SessionController::logLine);
    connect(runner_, &CliRunner::jobSucceeded, this,
            [this](const CliJob&, const QString& path) { load(path, RunOrigin::Measured); });
    connect(runner_, &CliRunner::jobFailed, this,
            [this](const CliJob& job, const QString& message) {
                if (cancelling_) {
                    emit logLine(message);
                    return;
                }
                emit runFailed(job.label, message);
            });
    connect(runner_, &CliRunner::finished, this, [this](bool cancelled) {
        cancelling_ = false;
        emit runFinished(cancelled);
    });
}

SessionController::~SessionController() {
    // Children die after this body: a device query finishing then must not call into an object
    // that is half gone.
    if (devicesProcess_) {
        devicesProcess_->disconnect(this);
        devicesProcess_->kill();
        devicesProcess_->waitForFinished(2000);
    }
    store_->waitForIdle();
    pendingRuns_->saved(store_->lastSavedTicket());
}

const QString& SessionController::sessionFile() const {
    return store_->path();
}

void SessionController::setMaxSessionBytes(std::uint64_t bytes) {
    store_->setMaxFileBytes(bytes);
}

QString SessionController::runsFolder() const {
    return PendingRuns::rootFor(store_->path());
}

QString SessionController::cliProgram() const {
    return runner_->program();
}

void SessionController::setCliProgram(const QString& program) {
    runner_->setProgram(program);
}

bool SessionController::isRunning() const {
    return runner_->isRunning();
}

bool SessionController::isLoading() const {
    return loader_->isBusy();
}

void SessionController::queryDevices(const QString& host) {
    if (devicesProcess_ && host == deviceHost_) {
        return;
    }
    if (devicesProcess_) { // asked for another host: its answer is stale
        devicesProcess_->disconnect(this);
        devicesProcess_->kill();
        devicesProcess_->deleteLater();
    }
    deviceHost_ = host;
    auto* process = new QProcess(this);
    devicesProcess_ = process;
    connect(process, &QProcess::finished, this,
            [this, process](int exitCode, QProcess::ExitStatus status) {
                process->deleteLater();
                onDevicesListed(status == QProcess::NormalExit ? exitCode : -1,
                                process->readAllStandardOutput(),
                                QString::fromUtf8(process->readAllStandardError()).trimmed());
            });
    connect(process, &QProcess::errorOccurred, this, [this, process](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart) {
            process->deleteLater();
            onDevicesListed(-1, {}, process->errorString());
        }
    });
    endWithThisProcess(*process);
    process->start(runner_->program(),
                   QStringList{QStringLiteral("devices"), QStringLiteral("--json")} +
                       hostArguments(host));
}

void SessionController::onDevicesListed(int exitCode, const QByteArray& output,
                                        const QString& error) {
    devicesProcess_ = nullptr;
    QString parseError;
    if (exitCode != 0 || !devices_->setFromJson(output, &parseError)) {
        devices_->setFromJson("{}");
        const QString why = error.isEmpty() ? parseError : error;
        emit devicesListed(why.isEmpty() ? tr("exit status %1").arg(exitCode) : why);
        return;
    }
    emit logLine(tr("devices: %1 GPU(s), %2 preset(s)")
                     .arg(devices_->detectedCount())
                     .arg(devices_->rowCount() - devices_->detectedCount()));
    emit devicesListed({});
}

bool SessionController::hasSavedSession() const {
    return store_->exists() || !store_->others().isEmpty() || !pendingRuns_->orphans().isEmpty() ||
           !adoptedRuns_.isEmpty();
}

void SessionController::offerRestore() {
    autosaveArmed_ = false; // keep the saved session until the user decides
    emit restoreOffered(store_->exists() || !store_->others().isEmpty(),
                        int(pendingRuns_->orphans().size() + adoptedRuns_.size()));
}

void SessionController::restoreSession() {
    autosaveArmed_ = false; // until every restored file is in
    loadingRestore_ = true;
    restoreFiles_.clear();
    if (store_->exists()) {
        restoreFiles_ << store_->path();
    }
    // Session files a second instance left: restored like run traces a killed GUI left, and
    // deleted once this session's autosave holds their runs.
    const QStringList others = store_->others();
    restoreFiles_ << others;
    adoptedRuns_ << others << pendingRuns_->adoptOrphans();
    adoptedRuns_.removeDuplicates();
    QStringList toLoad = restoreFiles_;
    for (const QString& path : std::as_const(adoptedRuns_)) {
        if (!toLoad.contains(path)) {
            toLoad << path;
        }
    }
    restoreLoadsLeft_ = int(toLoad.size());
    for (const QString& path : std::as_const(toLoad)) {
        load(path, RunOrigin::Restored);
    }
    if (restoreLoadsLeft_ == 0) {
        loadingRestore_ = false;
        armAutosave();
    }
}

void SessionController::discardSavedSession() {
    store_->discard();
    for (const QString& path : store_->others()) {
        QFile::remove(path);
    }
    for (const QString& path : std::as_const(adoptedRuns_)) {
        QFile::remove(path); // adopted by a restore that was cancelled
    }
    adoptedRuns_.clear();
    pendingRuns_->discardOrphans();
    if (session_->userRunCount() > 0) {
        autosavePending_ = true;
    }
    armAutosave();
}

void SessionController::armAutosave() {
    if (autosaveBlocked_) {
        return;
    }
    autosaveArmed_ = true;
    if (autosavePending_) {
        autosavePending_ = false;
        requestSave();
    }
}

void SessionController::restoreFailed(const QString& path, const QString& error) {
    // Never overwritten, never deleted: moved aside for the user to look at.
    QString why;
    const QString aside = SessionStore::moveAside(path, &why);
    adoptedRuns_.removeAll(path);
    QString message;
    if (aside.isEmpty()) {
        autosaveBlocked_ = path == store_->path();
        message = tr("The saved session %1 cannot be read (%2) nor moved aside (%3): the "
                     "session is not autosaved.")
                      .arg(path, error, why);
    } else {
        message = tr("The saved session %1 cannot be read (%2): moved aside to %3.")
                      .arg(path, error, aside);
    }
    emit logLine(message);
    emit sessionNotice(message);
}

void SessionController::openTrace(const QString& path) {
    emit logLine(tr("opening %1").arg(path));
    load(path, RunOrigin::Opened);
}

void SessionController::openSample(const QString& path) {
    load(path, RunOrigin::Sample);
}

void SessionController::load(const QString& path, RunOrigin origin) {
    loadOrder_.push_back(loader_->load(path, origin));
}

void SessionController::forgetLoads() {
    loader_->cancelAll();
    loadOrder_.clear();
    loadsArrived_.clear();
}

void SessionController::onLoaded(const LoadResult& result) {
    loadsArrived_.emplace(result.request, result);
    while (!loadOrder_.empty()) {
        const auto it = loadsArrived_.find(loadOrder_.front());
        if (it == loadsArrived_.end()) {
            return; // an earlier request is still loading
        }
        const LoadResult ready = std::move(it->second);
        loadsArrived_.erase(it);
        loadOrder_.pop_front();
        applyLoaded(ready);
    }
}

void SessionController::applyLoaded(const LoadResult& result) {
    const bool restoring = result.origin == RunOrigin::Restored;
    // The last restored file arms the autosave, after its runs joined the session.
    const bool restoreDone = restoring && loadingRestore_ && --restoreLoadsLeft_ <= 0;
    struct ArmAtEnd {
        SessionController* self;
        bool armIt;
        ~ArmAtEnd() {
            if (armIt) {
                self->loadingRestore_ = false;
                self->armAutosave();
            }
        }
    } armAtEnd{this, restoreDone};
    if (!result.ok()) {
        if (restoring && !result.cancelled && restoreFiles_.contains(result.path)) {
            restoreFailed(result.path, result.error);
            emit traceFailed(result.path, result.error);
            return;
        }
        if (result.origin == RunOrigin::Measured || adoptedRuns_.contains(result.path)) {
            QFile::remove(result.path); // unreadable: nothing in it to keep
        }
        emit traceFailed(result.path, result.cancelled ? QString() : result.error);
        return;
    }
    if (result.runs.empty()) {
        emit logLine(tr("%1 holds no runs").arg(result.path));
    }
    if (restoring && session_->count() > 0) {
        // Samples opened before the user chose to restore are replaced by the restored runs.
        for (int i = session_->count() - 1; i >= 0; --i) {
            if (session_->at(i)->origin == RunOrigin::Sample) {
                session_->removeRun(i);
            }
        }
    }
    emit logLine(tr("loaded %1 run(s) from %2").arg(result.runs.size()).arg(result.path));
    std::vector<RunEntryPtr> runs = result.runs;
    if (restoring) {
        // A run can be both in the saved session and in a trace a killed GUI left (it died after
        // the autosave, before deleting the trace): restore it once.
        const auto inSession = [this](const RunEntryPtr& entry) {
            return std::any_of(
                session_->runs().begin(), session_->runs().end(),
                [&](const RunEntryPtr& other) { return isSameRun(*entry->run, *other->run); });
        };
        runs.erase(std::remove_if(runs.begin(), runs.end(), inSession), runs.end());
    }
    const quint64 saveAfterAdding = lastSaveTicket_ + 1; // the first save asked for from now on
    const bool nothingNew = runs.empty();
    const int runCount = int(result.runs.size());
    session_->addRuns(std::move(runs));
    if (nothingNew && adoptedRuns_.contains(result.path)) {
        QFile::remove(result.path); // every run in it came back with the saved session
        adoptedRuns_.removeAll(result.path);
    } else if (result.origin == RunOrigin::Measured || adoptedRuns_.contains(result.path)) {
        // The run's trace stays on disk until the autosave that holds it is: a GUI killed in
        // between finds it at its next start.
        pendingRuns_->keepUntilSaved(result.path, saveAfterAdding);
        adoptedRuns_.removeAll(result.path);
    }
    emit traceLoaded(result.path, result.origin, runCount);
}

void SessionController::onSessionChanged() {
    if (!autosaveArmed_) {
        autosavePending_ = true;
    } else {
        requestSave();
    }
}

void SessionController::requestSave() {
    lastSaveTicket_ = store_->save(*session_);
}

void SessionController::clearSession() {
    forgetLoads();
    session_->clear();
}

void SessionController::removeRun(const QString& runId) {
    const int index = session_->indexOf(runId);
    if (index >= 0) {
        session_->removeRun(index);
    }
}

void SessionController::projectRuns(const QStringList& runIds, const QString& presetId) {
    std::vector<ConstRunEntryPtr> sources;
    for (const QString& id : runIds) {
        if (auto entry = session_->find(id)) {
            sources.push_back(entry);
        }
    }
    auto* watcher = new QFutureWatcher<ProjectionResult>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, presetId] {
        watcher->deleteLater();
        ProjectionResult result = watcher->result();
        const int added = int(result.runs.size());
        session_->addRuns(std::move(result.runs));
        emit logLine(tr("projected %1 run(s) onto %2").arg(added).arg(presetId));
        emit projected(added, result.errors);
    });
    watcher->setFuture(QtConcurrent::run(
        [sources = std::move(sources), presetId] { return projectEntries(sources, presetId); }));
}

bool SessionController::canKeepRuns() {
    if (!pendingRuns_->isValid()) {
        emit runRefused(tr("Cannot keep run traces: %1").arg(pendingRuns_->errorString()));
        return false;
    }
    return true;
}

SessionController::RunStart SessionController::startRun(const RunConfig& config) {
    if (runner_->isRunning()) {
        return RunStart::Busy;
    }
    if (!canKeepRuns()) {
        return RunStart::Refused;
    }
    const bool wantsGpu =
        std::any_of(config.strategies.begin(), config.strategies.end(), [](const QString& name) {
            const auto id = strategy::parseStrategy(name.toStdString());
            return id && strategy::isGpu(*id);
        });
    if (wantsGpu && devicesProcess_ && config.device.kind == DeviceChoice::Kind::None) {
        return RunStart::WaitingForDevices;
    }
    const RunPlan plan = planRun(config, pendingRuns_->directory(), ++runSequence_);
    if (!plan.error.isEmpty()) {
        emit runRefused(plan.error);
        return RunStart::Refused;
    }
    runner_->start(plan.jobs);
    return RunStart::Started;
}

SessionController::RunStart SessionController::startSweep(const SweepConfig& config) {
    if (runner_->isRunning()) {
        return RunStart::Busy;
    }
    if (!canKeepRuns()) {
        return RunStart::Refused;
    }
    const RunPlan plan = planSweep(config, pendingRuns_->directory(), ++runSequence_);
    if (!plan.error.isEmpty()) {
        emit runRefused(plan.error);
        return RunStart::Refused;
    }
    runner_->start(plan.jobs);
    return RunStart::Started;
}

SessionController::RunStart SessionController::startRecording(const RecordConfig& config) {
    if (runner_->isRunning()) {
        return RunStart::Busy;
    }
    if (!canKeepRuns()) {
        return RunStart::Refused;
    }
    const RecordPlan plan = planRecord(config, pendingRuns_->directory(), ++runSequence_);
    if (!plan.error.isEmpty()) {
        emit runRefused(plan.error);
        return RunStart::Refused;
    }
    runner_->start({plan.job});
    return RunStart::Started;
}

void SessionController::cancel() {
    if (runner_->isRunning()) {
        cancelling_ = true;
        runner_->cancel();
        return;
    }
    if (loader_->isBusy()) {
        forgetLoads();
        emit logLine(tr("loading cancelled"));
        if (loadingRestore_) {
            // Not a choice to discard: the saved session stays as it is, offered again.
            loadingRestore_ = false;
            restoreLoadsLeft_ = 0;
            offerRestore();
        }
    }
}

QFuture<QString> SessionController::exportSession(const QString& path, ExportFormat format) {
    if (session_->isEmpty()) {
        const QString message = tr("There are no runs to save or export.");
        emit exportFailed(message);
        return QtFuture::makeReadyFuture(message);
    }
    // Immutable runs are shared with the worker; it builds the trace and writes it.
    std::vector<std::pair<std::string, std::shared_ptr<const trace::Run>>> runs;
    for (const auto& entry : session_->runs()) {
        runs.emplace_back(entry->id.toStdString(), entry->run);
    }
    QFuture<QString> future = QtConcurrent::run([runs = std::move(runs), path, format] {
        trace::Trace t;
        t.generator = "slicescope 0.1.0";
        for (const auto& [id, run] : runs) {
            t.runs.push_back(*run);
            t.runs.back().id = id;
        }
        const std::filesystem::path target = path.toStdString();
        const Status done = format == ExportFormat::Trace ? trace::writeTrace(t, target)
                            : format == ExportFormat::Csv ? trace::exportCsv(t, target)
                                                          : trace::exportChromeTrace(t, target);
        return done ? QString() : toQString(done.error().message);
    });
    auto* watcher = new QFutureWatcher<QString>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, path, format] {
        watcher->deleteLater();
        const QString error = watcher->result();
        if (!error.isEmpty()) {
            emit exportFailed(tr("Could not write %1: %2").arg(path, error));
            return;
        }
        emit logLine(tr("wrote %1").arg(path));
        emit exported(path, format);
    });
    watcher->setFuture(future);
    return future;
}

void SessionController::shutDown() {
    runner_->cancel();
    store_->waitForIdle();
}

bool SessionController::waitForSaved(int timeoutMs) {
    return store_->waitForIdle(timeoutMs);
}

} // namespace slicescope::models
