#include "models/sessionstore.h"

#include "models/session.h"
#include "slicescope/trace/atomicfile.h"
#include "slicescope/trace/tracejson.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <cerrno>
#include <csignal>
#include <sys/stat.h>

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

// What is at path when it is a device or a FIFO, which a session file must never be: writing
// the session would rename a temporary file over the node (/dev/null, as root) or feed a reader.
// Empty otherwise (a directory there is an unreadable session, moved aside like any other).
QString unfitForSession(const QString& path) {
    struct stat st {};
    if (::stat(QFile::encodeName(path).constData(), &st) != 0 || S_ISREG(st.st_mode) ||
        S_ISDIR(st.st_mode)) {
        return {};
    }
    const QString what = S_ISCHR(st.st_mode)    ? QStringLiteral("a character device")
                         : S_ISFIFO(st.st_mode) ? QStringLiteral("a FIFO")
                         : S_ISBLK(st.st_mode)  ? QStringLiteral("a block device")
                                                : QStringLiteral("not a regular file");
    return QStringLiteral("%1 is %2, not a session file: this session is not saved (give "
                          "--session-file a regular file)")
        .arg(path, what);
}

// A lock QLockFile cannot judge stays forever (setStaleLockTime(0): never by age), hiding the
// session file behind it: an empty lock (its writer died before writing its PID, or a disk filled
// up), or one that names only a PID, of a process that is gone. Such a lock is removed. An empty
// lock younger than a few seconds may be one that another process is writing now: it is kept.
void removeAbandonedLock(const QString& lockPath) {
    QFile lock(lockPath);
    const QFileInfo info(lockPath);
    if (!info.isFile() || info.size() > 4096 || !lock.open(QIODevice::ReadOnly)) {
        return;
    }
    const QByteArray firstLine = lock.readLine().trimmed();
    lock.close();
    if (firstLine.isEmpty()) {
        if (info.lastModified().secsTo(QDateTime::currentDateTime()) > 5) {
            QFile::remove(lockPath);
        }
        return;
    }
    bool isNumber = false;
    const qint64 pid = firstLine.toLongLong(&isNumber);
    if (isNumber && pid > 0 && ::kill(pid_t(pid), 0) != 0 && errno == ESRCH) {
        QFile::remove(lockPath);
    }
}

// A session the reader would refuse is not written: what the user is told.
QString tooLargeMessage(const QString& path, int runs, std::uint64_t maxBytes) {
    const QString limit = maxBytes % (std::uint64_t(1) << 20) == 0
                              ? QStringLiteral("%1 MiB").arg(maxBytes >> 20)
                              : QStringLiteral("%1 bytes").arg(maxBytes);
    const QString kept = isNonEmpty(path)
                             ? QStringLiteral("%1 keeps the session saved before.").arg(path)
                             : QStringLiteral("Nothing is saved in %1 yet.").arg(path);
    return QStringLiteral("Could not save the session: its %1 runs would take more than %2, the "
                          "most a session file may have and still be read back. %3 Close runs "
                          "you no longer need (or save them as a trace) and the session is "
                          "saved again.")
        .arg(runs)
        .arg(limit, kept);
}

} // namespace

SessionStore::SessionStore(const QString& requestedPath, QObject* parent)
    : QObject(parent), requestedPath_(requestedPath), path_(requestedPath) {
    pool_.setMaxThreadCount(1); // one writer: saves land in the order they were asked for
    refusal_ = unfitForSession(requestedPath_);
    if (!refusal_.isEmpty()) {
        return;
    }
    QDir().mkpath(QFileInfo(requestedPath_).absolutePath());
    for (int n = 1; n <= kMaxFamily; ++n) {
        removeAbandonedLock(lockPathFor(familyMember(requestedPath_, n)));
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
    return refusal_.isEmpty() && isNonEmpty(path_);
}

QStringList SessionStore::others() const {
    QStringList found;
    for (int n = 1; n <= kMaxFamily && refusal_.isEmpty(); ++n) {
        const QString file = familyMember(requestedPath_, n);
        if (file == path_ || !isNonEmpty(file)) {
            continue;
        }
        removeAbandonedLock(lockPathFor(file));
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
    if (!refusal_.isEmpty()) {
        return 0; // nothing is written to a device or FIFO
    }
    Snapshot snapshot;
    snapshot.reserve(session.runs().size());
    for (const auto& entry : session.runs()) {
        if (entry->origin != RunOrigin::Sample) {
            snapshot.push_back({entry->id, batchOf(*entry), !entry->visible, entry->run});
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
        // A dangling link's placeholder is made where the link points, as the write will be.
        constexpr auto kOwnerOnly = QFileDevice::ReadOwner | QFileDevice::WriteOwner;
        if (!QFileInfo::exists(path)) {
            const auto target = trace::resolveOutput(QFile::encodeName(path).toStdString());
            QFile placeholder(target ? QFile::decodeName(target->path.c_str()) : path);
            if (placeholder.open(QIODevice::WriteOnly | QIODevice::NewOnly)) {
                placeholder.setPermissions(kOwnerOnly);
            }
        } else if (QFileInfo(path).isFile()) {
            QFile::setPermissions(path, kOwnerOnly);
        }
        // Each run lent under the id, batch and visibility the session gives it, refilled into
        // one scratch run: copying every run into a Trace was most of an autosave's time at
        // 100,000 runs, in fresh memory competing with the window for the cores.
        trace::Run scratch;
        const trace::RunsToWrite t{"slicescope 0.1.0 (session)", snapshot.size(),
                                   [&snapshot, &scratch](std::size_t i) -> const trace::Run& {
                                       const SavedRun& saved = snapshot[i];
                                       scratch = *saved.run;
                                       scratch.id = saved.id.toStdString();
                                       scratch.batch = saved.batch.toStdString();
                                       scratch.hidden = saved.hidden;
                                       return scratch;
                                   }};
        const int runs = int(t.count);
        const std::uint64_t maxBytes = maxFileBytes_;
        const auto written = trace::writeTrace(t, path.toStdString(), maxBytes);
        if (written) {
            done();
            QMetaObject::invokeMethod(
                this, [this, path, runs, ticket] { emit saved(path, runs, ticket); },
                Qt::QueuedConnection);
        } else {
            // The writer's message names the file ("cannot write PATH: why"). A session the
            // reader would refuse is not written (OutOfRange): the file keeps the last one.
            const QString message = written.error().code == Error::Code::OutOfRange
                                        ? tooLargeMessage(path, runs, maxBytes)
                                        : QStringLiteral("Could not save the session: %1")
                                              .arg(QString::fromStdString(written.error().message));
            QMetaObject::invokeMethod(
                this, [this, message] { emit saveFailed(message); }, Qt::QueuedConnection);
        }
    }
}

void SessionStore::discard() {
    waitForIdle();
    if (refusal_.isEmpty()) {
        QFile::remove(path_);
    }
}

bool SessionStore::waitForIdle(int timeoutMs) {
    return pool_.waitForDone(timeoutMs);
}

} // namespace slicescope::models
