#pragma once

#include "models/runentry.h"

#include <QString>
#include <QStringList>
#include <vector>

// Measured GPU runs of the session projected onto a device preset (backend/projection.h,
// docs/model.md "Projecting a measured run"): pure functions, run off the GUI thread.
namespace slicescope::models {

// Whether a run can be projected: measured on a GPU by SliceScope.
bool canProject(const RunEntry& entry);

struct ProjectionResult {
    std::vector<RunEntryPtr> runs; // the projected runs, one batch, ready to join the session
    QStringList errors;            // "slice-2d: why it could not be projected"
};

// Each of `sources` projected onto the preset `presetId`. A projected run keeps its source's id
// (the session makes it unique) and gets a batch of its own, the source's batch "projected onto"
// the preset, so that verdicts compare it with the runs projected with it and never with the
// measured ones.
ProjectionResult projectEntries(const std::vector<ConstRunEntryPtr>& sources,
                                const QString& presetId);

} // namespace slicescope::models
