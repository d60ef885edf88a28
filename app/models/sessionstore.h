#pragma once

#include "slicescope/trace/trace.h"

#include <QObject>
#include <QString>
#include <QThreadPool>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace slicescope::models {

class Session;

// Keeps the session on disk so that a crash or a kill of the GUI loses no finished run. Every
// save writes the whole session as a trace file, atomically (temporary file, then rename), on a
// worker thread; saves asked for while one is writing coalesce into one more write.
class SessionStore : public QObject {
    Q_OBJECT
  public:
    explicit SessionStore(QString path, QObject* parent = nullptr);
    ~SessionStore() override;

    // <GenericDataLocation>/SliceScope/session.json: ~/.local/share/SliceScope/session.json on
    // Linux.
    static QString defaultPath();
    const QString& path() const { return path_; }
    bool exists() const;

    // Snapshots the session's non-sample runs now; writes them later on the worker. With no such
    // run, the file is removed. Returns the save's ticket (1, 2, ...): once saved() reports that
    // ticket or a later one, everything the session held at this call is on disk.
    quint64 save(const Session& session);
    // The ticket of the last save that is on disk (0 before any).
    quint64 lastSavedTicket() const;
    // Removes the file (the user declined to restore it, or started a new session).
    void discard();
    // Waits until every requested save is on disk; for shutdown and tests.
    bool waitForIdle(int timeoutMs = 30000);

  signals:
    // A save is on disk (written, or the file removed when there was nothing to keep); saves that
    // coalesced into it report its ticket, the latest asked for.
    void saved(const QString& path, int runs, quint64 ticket);
    void saveFailed(const QString& message);

  private:
    using Snapshot = std::vector<std::pair<std::string, std::shared_ptr<const trace::Run>>>;
    struct Shared {
        std::mutex mutex;
        std::optional<Snapshot> latest;
        quint64 latestTicket = 0;
        quint64 lastTicket = 0;  // handed out by save()
        quint64 savedTicket = 0; // on disk
        bool scheduled = false;
    };
    void drain();

    QString path_;
    std::shared_ptr<Shared> shared_ = std::make_shared<Shared>();
    QThreadPool pool_;
};

} // namespace slicescope::models
