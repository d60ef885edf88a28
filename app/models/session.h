#pragma once

#include "models/runentry.h"
#include "models/runnaming.h"
#include "slicescope/trace/trace.h"

#include <QList>
#include <QObject>
#include <QSet>
#include <memory>
#include <vector>

namespace slicescope::models {

// The runs the window holds: measured, opened, restored and sample runs. Ids are unique; adding
// or removing a run recomputes every verdict (they compare runs of the same problem and batch):
// at once for up to kVerdictsAtOnce runs, on a worker for more (runsUpdated tells the views when
// they arrive; a newer change drops an older computation).
class Session : public QObject {
    Q_OBJECT
  public:
    explicit Session(QObject* parent = nullptr);

    int count() const { return int(runs_.size()); }
    bool isEmpty() const { return runs_.empty(); }
    const RunEntryPtr& at(int index) const { return runs_.at(std::size_t(index)); }
    const std::vector<RunEntryPtr>& runs() const { return runs_; }
    int indexOf(const QString& id) const;
    RunEntryPtr find(const QString& id) const;
    // Runs that are not shipped samples: what autosave keeps.
    int userRunCount() const;

    // Appends one batch of runs, named by RunNaming (runnaming.h): unique, never reused.
    void addRuns(std::vector<RunEntryPtr> entries);
    void removeRun(int index);
    void clear();
    void setVisible(int index, bool visible);

    // A copy for drawing other runs than the window shows (an export of runs chosen apart): the
    // same runs, ids and verdicts (the entries copied, their data shared), only those in `shown`
    // visible. This session is left as it was.
    std::unique_ptr<Session> copyShowing(const QSet<QString>& shown) const;

    // The runs as one trace (copies), ids as shown here; samples only when asked.
    trace::Trace toTrace(bool includeSamples) const;

    // Verdicts of more runs than this are made on a worker: 100,000 runs take over a second,
    // 2,000 a few milliseconds (docs/reliability.md).
    static constexpr std::size_t kVerdictsAtOnce = 2000;
    // A computation of verdicts is running: the runs show the verdicts they had before.
    bool verdictsPending() const { return appliedGeneration_ != verdictGeneration_; }

  signals:
    void aboutToAddRuns(int first, int last);
    void runsAdded(int first, int last);
    void aboutToRemoveRun(int index);
    void runRemoved(int index);
    void aboutToReset();
    void reset();
    // Verdicts or visibility of existing runs changed.
    void runsUpdated(int first, int last);
    // After any change: for views that redraw everything, and autosave.
    void changed();

  private:
    void updateVerdicts();
    void applyVerdicts(const QStringList& verdicts);

    std::vector<RunEntryPtr> runs_;
    RunNaming naming_;
    quint64 verdictGeneration_ = 0; // of the last computation started
    quint64 appliedGeneration_ = 0; // of the last one applied (or dropped as cleared)
};

} // namespace slicescope::models
