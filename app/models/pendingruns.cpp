#include "models/pendingruns.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLockFile>
#include <algorithm>

namespace slicescope::models {

namespace {

const QString kLockName = QStringLiteral("lock");

QStringList traceFiles(const QString& folder) {
    // Final names only: a hidden ".NAME.tmp-..." is a write that never completed.
    QStringList files;
    const QDir dir(folder);
    for (const QString& name :
         dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Time | QDir::Reversed)) {
        files << dir.filePath(name);
    }
    return files;
}

} // namespace

PendingRuns::PendingRuns(QString root) : root_(std::move(root)) {
    // One folder per process, named so that no later process can take it over by pid reuse.
    directory_ = QDir(root_).filePath(QStringLiteral("%1-%2")
                                          .arg(QCoreApplication::applicationPid())
                                          .arg(QDateTime::currentMSecsSinceEpoch()));
    if (!QDir().mkpath(directory_)) {
        error_ = QStringLiteral("cannot create %1").arg(directory_);
        return;
    }
    auto lock = std::make_unique<QLockFile>(QDir(directory_).filePath(kLockName));
    lock->setStaleLockTime(0); // held for the process's whole life: stale only when it is gone
    if (!lock->tryLock(0)) {
        error_ = QStringLiteral("cannot lock %1").arg(directory_);
        return;
    }
    lock_ = std::move(lock);
    // Folders of dead processes that hold no finished trace (only their lock, perhaps the
    // temporary file of a write that never completed) have nothing to offer: remove them.
    for (const QString& folder : deadFolders()) {
        if (traceFiles(folder).isEmpty()) {
            QDir(folder).removeRecursively();
        }
    }
}

PendingRuns::~PendingRuns() {
    if (!lock_) {
        return;
    }
    if (traceFiles(directory_).isEmpty()) {
        lock_->unlock();
        QDir(directory_).removeRecursively();
        QDir().rmdir(root_); // only if no other process has a folder there
    }
    // Otherwise the folder stays, its lock released when lock_ goes: the next start offers it.
}

QString PendingRuns::rootFor(const QString& sessionFile) {
    const QFileInfo info(sessionFile);
    return info.absoluteDir().filePath(info.completeBaseName() + QStringLiteral("-runs"));
}

std::vector<QString> PendingRuns::deadFolders() const {
    std::vector<QString> folders;
    const QDir root(root_);
    for (const QString& name : root.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        const QString folder = root.filePath(name);
        if (folder == directory_) {
            continue;
        }
        QLockFile lock(QDir(folder).filePath(kLockName));
        lock.setStaleLockTime(0); // another live GUI's lock is never stale, however old
        if (lock.tryLock(0)) {
            lock.unlock(); // its owner is gone (tryLock removed the stale lock)
            folders.push_back(folder);
        }
    }
    return folders;
}

QStringList PendingRuns::orphans() const {
    QStringList files;
    for (const QString& folder : deadFolders()) {
        files << traceFiles(folder);
    }
    return files;
}

QStringList PendingRuns::adoptOrphans() {
    QStringList adopted;
    if (!isValid()) {
        return adopted;
    }
    for (const QString& folder : deadFolders()) {
        const QString prefix = QFileInfo(folder).fileName() + QLatin1Char('-');
        for (const QString& file : traceFiles(folder)) {
            const QString target = QDir(directory_).filePath(prefix + QFileInfo(file).fileName());
            if (QFile::rename(file, target)) {
                adopted << target;
            }
        }
        if (traceFiles(folder).isEmpty()) {
            QDir(folder).removeRecursively(); // the lock and any temporary file of a killed write
        }
    }
    return adopted;
}

void PendingRuns::discardOrphans() {
    for (const QString& folder : deadFolders()) {
        QDir(folder).removeRecursively();
    }
}

void PendingRuns::keepUntilSaved(const QString& path, quint64 ticket) {
    pending_.push_back({path, ticket});
}

void PendingRuns::saved(quint64 ticket) {
    const auto done = std::remove_if(pending_.begin(), pending_.end(), [ticket](const Pending& p) {
        if (p.ticket > ticket) {
            return false;
        }
        QFile::remove(p.path);
        return true;
    });
    pending_.erase(done, pending_.end());
}

QStringList PendingRuns::pending() const {
    QStringList paths;
    for (const Pending& p : pending_) {
        paths << p.path;
    }
    return paths;
}

} // namespace slicescope::models
