#pragma once

#include <QObject>
#include <QString>

namespace slicescope::models {

// How runs share the timeline's one time axis.
enum class Alignment {
    RunStart, // every run starts at 0: compare strategies
    Absolute, // runs where they happened: see what ran when
};

struct ActivityRef {
    QString runId;
    int index = -1; // into the run's activities
    bool isValid() const { return !runId.isEmpty() && index >= 0; }
    friend bool operator==(const ActivityRef&, const ActivityRef&) = default;
};

// The view state every view shares: alignment, the selected run and the selected activity. One
// object with change signals, so the timeline, the occupancy view and the tables never disagree.
class ViewState : public QObject {
    Q_OBJECT
  public:
    explicit ViewState(QObject* parent = nullptr);

    Alignment alignment() const { return alignment_; }
    void setAlignment(Alignment alignment);

    const QString& selectedRun() const { return selectedRun_; }
    void setSelectedRun(const QString& runId);

    const ActivityRef& selectedActivity() const { return selectedActivity_; }
    // Also selects the activity's run.
    void setSelectedActivity(const ActivityRef& activity);

  signals:
    void alignmentChanged(slicescope::models::Alignment alignment);
    void selectedRunChanged(const QString& runId);
    void selectedActivityChanged(const slicescope::models::ActivityRef& activity);

  private:
    Alignment alignment_ = Alignment::RunStart;
    QString selectedRun_;
    ActivityRef selectedActivity_;
};

} // namespace slicescope::models
