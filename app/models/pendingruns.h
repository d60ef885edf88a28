#pragma once

#include <QString>
#include <QStringList>
#include <memory>
#include <vector>

class QLockFile;

namespace slicescope::models {

// Trace files of finished runs that may not be in the autosaved session yet, kept on disk so that
// a GUI killed at any moment loses none of them.
//
// Every GUI process writes its slicescope-cli traces into a folder of its own under root (beside
// the session file), locked while the process lives. A trace is deleted only once an autosave
// that was asked for after its runs joined the session is on disk (keepUntilSaved, saved). So
// after a crash or a SIGKILL, the folders whose lock is stale hold exactly the finished runs the
// session file may lack: orphans() lists them, adoptOrphans() takes them over for restoring,
// discardOrphans() deletes them. The trace files themselves are written atomically by the CLI:
// a child killed mid-write leaves a hidden temporary file, never a half-written trace.
class PendingRuns {
  public:
    // root: e.g. ~/.local/share/SliceScope/session-runs for session.json there. Removes the
    // folders of dead processes that hold no finished trace.
    explicit PendingRuns(QString root);
    ~PendingRuns(); // removes this process's folder, and its lock, when nothing is pending
    PendingRuns(const PendingRuns&) = delete;
    PendingRuns& operator=(const PendingRuns&) = delete;

    // The folder beside `sessionFile` that holds every process's pending traces.
    static QString rootFor(const QString& sessionFile);

    // False when the folder or its lock could not be made (then runs cannot start).
    bool isValid() const { return lock_ != nullptr; }
    const QString& directory() const { return directory_; }
    QString errorString() const { return error_; }

    // Finished traces left by GUI processes that are gone, oldest folder first.
    QStringList orphans() const;
    // Moves the orphans into this process's folder (they become its pending files until saved)
    // and removes the dead folders; returns the new paths.
    QStringList adoptOrphans();
    void discardOrphans();

    // The runs of `path` joined the session before the save with this ticket was asked for.
    void keepUntilSaved(const QString& path, quint64 ticket);
    // Every save up to `ticket` is on disk: delete what they hold.
    void saved(quint64 ticket);
    QStringList pending() const;

  private:
    struct Pending {
        QString path;
        quint64 ticket = 0;
    };
    // Dead processes' folders: their lock is taken now (and released by the caller's unlock).
    std::vector<QString> deadFolders() const;

    QString root_;
    QString directory_;
    QString error_;
    std::unique_ptr<QLockFile> lock_;
    std::vector<Pending> pending_;
};

} // namespace slicescope::models
