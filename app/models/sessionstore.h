#pragma once

#include "slicescope/trace/trace.h"
#include "slicescope/trace/tracelimits.h"

#include <QLockFile>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QThreadPool>
#include <atomic>
#include <cstdint>
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
// worker thread; saves asked for while one is writing coalesce into one more write. The file is
// the user's data: it is kept at mode 0600 whatever the umask (see docs/reliability.md).
//
// One process per session file: the store locks `<file>.lock` (QLockFile; a killed process's
// lock is stale and taken over, and so is a lock QLockFile cannot read: an empty one, or one
// naming only a process that is gone). When another live process holds the file asked for, the
// store uses the first free `<stem>-2.json`, `<stem>-3.json`, ... beside it instead (isFallback()),
// so two GUIs never overwrite each other's runs; others() lists those files, unlocked, that a
// process left, so that the next start can offer their runs too.
class SessionStore : public QObject {
    Q_OBJECT
  public:
    // requestedPath: the session file wanted; path() is the one locked and used.
    explicit SessionStore(const QString& requestedPath, QObject* parent = nullptr);
    ~SessionStore() override;

    // <GenericDataLocation>/SliceScope/session.json: ~/.local/share/SliceScope/session.json on
    // Linux.
    static QString defaultPath();
    const QString& path() const { return path_; }
    const QString& requestedPath() const { return requestedPath_; }
    // Why requestedPath() cannot hold a session (a character device, a FIFO, a socket), or
    // empty. A refused store touches nothing: no lock beside it, no save, no discard.
    const QString& refusal() const { return refusal_; }
    // Another live process holds requestedPath(): path() is a file of this process's own.
    bool isFallback() const { return path_ != requestedPath_; }
    // path() is there and not empty (an empty file is the placeholder of a first save).
    bool exists() const;
    // Session files of the same family (requestedPath() and its -N siblings) other than path(),
    // that no live process holds and that are not empty: runs of an earlier second instance.
    QStringList others() const;
    // Renames `file` (path() or one of others()) to `<file>.corrupt-<UTC time>`, e.g.
    // session.json.corrupt-20261203T091500Z; returns the new name, or empty with *error set.
    static QString moveAside(const QString& file, QString* error);

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
    // The largest session file written: the largest trace file the reader takes
    // (trace::kMaxTraceFileBytes), so that every session saved reads back. A save that would pass
    // it fails (saveFailed) and the file keeps the last session saved. Tests lower it.
    std::uint64_t maxFileBytes() const { return maxFileBytes_; }
    void setMaxFileBytes(std::uint64_t bytes) { maxFileBytes_ = bytes; }

  signals:
    // A save is on disk (written, or the file removed when there was nothing to keep); saves that
    // coalesced into it report its ticket, the latest asked for.
    void saved(const QString& path, int runs, quint64 ticket);
    void saveFailed(const QString& message);

  private:
    struct SavedRun {  // texts as Qt shares them: the worker makes them UTF-8
        QString id;    // as the session shows it
        QString batch; // batchOf(): a restore compares and places the run as before
        bool hidden;   // the user hid it: a restore keeps it hidden
        std::shared_ptr<const trace::Run> run;
    };
    using Snapshot = std::vector<SavedRun>;
    struct Shared {
        std::mutex mutex;
        std::optional<Snapshot> latest;
        quint64 latestTicket = 0;
        quint64 lastTicket = 0;  // handed out by save()
        quint64 savedTicket = 0; // on disk
        bool scheduled = false;
    };
    void drain();

    QString requestedPath_;
    QString path_;
    QString refusal_;
    std::atomic<std::uint64_t> maxFileBytes_ = trace::kMaxTraceFileBytes; // read by the worker
    std::unique_ptr<QLockFile> lock_;
    std::shared_ptr<Shared> shared_ = std::make_shared<Shared>();
    QThreadPool pool_;
};

} // namespace slicescope::models
