#include "models/sessionstore.h"

#include "models/session.h"
#include "slicescope/trace/tracejson.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

namespace slicescope::models {

SessionStore::SessionStore(QString path, QObject* parent)
    : QObject(parent), path_(std::move(path)) {
    pool_.setMaxThreadCount(1); // one writer: saves land in the order they were asked for
}

SessionStore::~SessionStore() {
    pool_.waitForDone();
}

QString SessionStore::defaultPath() {
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) +
           QStringLiteral("/SliceScope/session.json");
}

bool SessionStore::exists() const {
    return QFileInfo::exists(path_);
}

quint64 SessionStore::save(const Session& session) {
    Snapshot snapshot;
    for (const auto& entry : session.runs()) {
        if (entry->origin != RunOrigin::Sample) {
            snapshot.emplace_back(entry->id.toStdString(), entry->run);
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
        trace::Trace t;
        t.generator = "slicescope 0.1.0 (session)";
        for (auto& [id, run] : snapshot) {
            t.runs.push_back(*run);
            t.runs.back().id = id;
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
