#pragma once

#include "models/runentry.h"
#include "slicescope/trace/tracejson.h"

#include <QObject>
#include <QString>
#include <atomic>
#include <functional>
#include <memory>
#include <vector>

namespace slicescope::models {

// What loading one trace file gave: its runs, ready to join the session, or an error.
struct LoadResult {
    quint64 request = 0; // what load() returned
    QString path;
    RunOrigin origin = RunOrigin::Opened;
    std::vector<RunEntryPtr> runs;
    QString error; // empty on success
    bool cancelled = false;
    bool ok() const { return error.isEmpty() && !cancelled; }
};

// A load's error without the file's name in front ("cannot read PATH: ", "cannot open PATH: ",
// "PATH: "), for messages that name the file themselves: the reader's errors name it already.
QString reasonWithoutPath(const QString& path, const QString& error);

// Reads trace files on worker threads (QtConcurrent) and builds the runs' lanes and summaries
// there too; the GUI thread only receives finished, immutable results. Each load carries the
// generation it started in: cancelAll() starts a new generation and results of older ones are
// dropped, so a slow load never lands in a session the user has since cleared.
class TraceLoader : public QObject {
    Q_OBJECT
  public:
    explicit TraceLoader(QObject* parent = nullptr);
    ~TraceLoader() override;

    // Starts loading a file (or a Qt resource, ":/..."); returns at once with the request's
    // number, which its result carries (loads finish in any order).
    quint64 load(const QString& path, RunOrigin origin);
    // Stops every load in flight; none of them reports.
    void cancelAll();
    bool isBusy() const { return inFlight_ > 0; }
    int inFlight() const { return inFlight_; }

    // The worker's body, callable directly (headless export, tests).
    static LoadResult loadNow(const QString& path, RunOrigin origin,
                              const trace::ReadOptions& options = {});
    // What the workers call to read a file: loadNow unless a test hands in another (one that
    // throws, as a read that runs out of memory does). A reader that throws ends in a result
    // with an error: every load reports, so none waits forever behind it.
    using Reader = std::function<LoadResult(const QString&, RunOrigin, const trace::ReadOptions&)>;
    void setReader(Reader reader) { reader_ = std::move(reader); }

  signals:
    void busyChanged(bool busy);
    // Progress of the loads in flight, 0..1, and the file being read.
    void progress(double fraction, const QString& path);
    void loaded(const slicescope::models::LoadResult& result);

  private:
    struct Job;
    quint64 generation_ = 0;
    quint64 nextRequest_ = 1;
    int inFlight_ = 0;
    std::vector<std::shared_ptr<std::atomic<bool>>> cancelFlags_;
    Reader reader_ = &TraceLoader::loadNow;
};

} // namespace slicescope::models

Q_DECLARE_METATYPE(slicescope::models::LoadResult)
