#include "models/viewstate.h"

namespace slicescope::models {

ViewState::ViewState(QObject* parent) : QObject(parent) {}

void ViewState::setAlignment(Alignment alignment) {
    if (alignment_ != alignment) {
        alignment_ = alignment;
        emit alignmentChanged(alignment);
    }
}

void ViewState::setSelectedRun(const QString& runId) {
    if (selectedRun_ == runId) {
        return;
    }
    selectedRun_ = runId;
    emit selectedRunChanged(runId);
    if (selectedActivity_.isValid() && selectedActivity_.runId != runId) {
        selectedActivity_ = {};
        emit selectedActivityChanged(selectedActivity_);
    }
}

void ViewState::setSelectedActivity(const ActivityRef& activity) {
    if (activity.isValid()) {
        setSelectedRun(activity.runId);
    }
    if (selectedActivity_ == activity) {
        return;
    }
    selectedActivity_ = activity;
    emit selectedActivityChanged(activity);
}

} // namespace slicescope::models
