#include "models/sessionstore.h"

#include "models/session.h"
#include "slicescope/trace/tracejson.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

namespace slicescope::models {

namespace {

// requestedPath with n >= 2: <dir>/<stem>-<n>.<suffix>; n == 1: requestedPath itself.
QString familyMember(const QString& requestedPath, int n) {
    if (n <= 1) {
        return requestedPath;
    }
    const QFileInfo info(requestedPath);
    const QString suffix =
        info.completeSuffix().isEmpty() ? QString() : QLatin1Char('.') + info.completeSuffix();
    return info.dir().filePath(info.baseName() + QLatin1Char('-') + QString::number(n) + suffix);
}

QString lockPathFor(const QString& sessionFile) {
    return sessionFile + QStringLiteral(".lock");
}

// Fallback files are numbered from 2; a gap of this many unused numbers ends the search.
constexpr int kMaxFamily = 64;

bool isNonEmpty(const QString& path) {
    const QFileInfo info(path);
    return info.exists() && (!info.isFile() || info.size() > 0);
}

} // namespace

SessionStore::SessionStore(const QString& requestedPath, QObject* parent)
    : QObject(parent), requestedPath_(requestedPath), path_(requestedPath) {
    pool_.setMaxThreadCount(1); // one writer: saves land in the order they were asked for
    QDir().mkpath(QFileInfo(requestedPath_).absolutePath());
    for (int n = 1; n <= kMaxFamily; ++n) {
        auto lock = std::make_unique<QLockFile>(lockPathFor(familyMember(requestedPath_, n)));
        lock->setStaleLockTime(0); // only a dead holder makes it stale, never its age
        if (lock->tryLock(0)) {
            path_ = familyMember(requestedPath_, n);
            lock_ = std::move(lock);
            return;
        }
        if (lock->error() != QLockFile::LockFailedError) {
            break; // the folder cannot hold a lock: use the file asked for, unlocked
        }
    }
}

SessionStore::~SessionStore() {
    pool_.waitForDone();
}

QString SessionStore::defaultPath() {
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) +
           QStringLiteral("/SliceScope/session.json");
}

bool SessionStore::exists() const {
    return isNonEmpty(path_);
}

QStringList SessionStore::others() const {
    QStringList found;
    for (int n = 1; n <= kMaxFamily; ++n) {
        const QString file = familyMember(requestedPath_, n);
        if (file == path_ || !isNonEmpty(file)) {
            continue;
        }
        QLockFile lock(lockPathFor(file));
        lock.setStaleLockTime(0);
        if (lock.tryLock(0)) { // no live process holds it
            lock.unlock();
            found << file;
        }
    }
    return found;
}

QString SessionStore::moveAside(const QString& file, QString* error) {
    const QString target =
        file + QStringLiteral(".corrupt-") +
        QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd'T'HHmmss'Z'"));
    if (!QFile::rename(file, target) && !QDir().rename(file, target)) {
        if (error) {
            *error = QStringLiteral("cannot rename %1 to %2").arg(file, target);
        }
        return {};
    }
    return target;
}

quint64 SessionStore::save(const Session& session) {
    Snapshot snapshot;
    for (const auto& entry : session.runs()) {
        if (entry->origin != RunOrigin::Sample) {
            snapshot.push_back(
                {entry->id.toStdString(), batchOf(*entry).toStdString(), entry->run});
        }
    }
    const std::lock_guard lock(shared_->mutex);
    shared_->latest = std::move(snapshot);
    shared_->latestTicket = ++shared_->lastTicket;
    if (!shared_->scheduled) {
        shared_->scheduled = true;
        pool_.start([this] { drain(); });
    }
    return shared_->latestTicket;
}

quint64 SessionStore::lastSavedTicket() const {
    const std::lock_guard lock(shared_->mutex);
    return shared_->savedTicket;
}

void SessionStore::drain() {
    for (;;) {
        Snapshot snapshot;
        quint64 ticket = 0;
        {
            const std::lock_guard lock(shared_->mutex);
            if (!shared_->latest) {
                shared_->scheduled = false;
                return;
            }
            snapshot = std::move(*shared_->latest);
            ticket = shared_->latestTicket;
            shared_->latest.reset();
        }
        const QString path = path_;
        auto done = [this, ticket] {
            const std::lock_guard lock(shared_->mutex);
            shared_->savedTicket = ticket;
        };
        if (snapshot.empty()) {
            QFile::remove(path);
            done();
            QMetaObject::invokeMethod(
                this, [this, path, ticket] { emit saved(path, 0, ticket); }, Qt::QueuedConnection);
            continue;
        }
        QDir().mkpath(QFileInfo(path).absolutePath());
        // The session is the user's data: 0600 whatever the umask. A first save creates an empty
        // placeholder of that mode, which the atomic write then replaces keeping its mode (an
        // empty file counts as no session); a file of another mode is set to 0600 first.
        constexpr auto kOwnerOnly = QFileDevice::ReadOwner | QFileDevice::WriteOwner;
        if (!QFileInfo::exists(path)) {
            QFile placeholder(path);
            if (placeholder.open(QIODevice::WriteOnly | QIODevice::NewOnly)) {
                placeholder.setPermissions(kOwnerOnly);
            }
        } else if (QFileInfo(path).isFile()) {
            QFile::setPermissions(path, kOwnerOnly);
        }
        trace::Trace t;
        t.generator = "slicescope 0.1.0 (session)";
        for (auto& saved : snapshot) {
            t.runs.push_back(*saved.run);
            t.runs.back().id = saved.id;
            t.runs.back().batch = saved.batch;
        }
        const int runs = int(t.runs.size());
        const auto written = trace::writeTrace(t, path.toStdString());
        if (written) {
            done();
            QMetaObject::invokeMethod(
                this, [this, path, runs, ticket] { emit saved(path, runs, ticket); },
                Qt::QueuedConnection);
        } else {
            const QString message = QStringLiteral("Could not save the session to %1: %2")
                                        .arg(path, QString::fromStdString(written.error().message));
            QMetaObject::invokeMethod(
                this, [this, message] { emit saveFailed(message); }, Qt::QueuedConnection);
        }
    }
}

void SessionStore::discard() {
    waitForIdle();
    QFile::remove(path_);
}

bool SessionStore::waitForIdle(int timeoutMs) {
    return pool_.waitForDone(timeoutMs);
}

} // namespace slicescope::models
