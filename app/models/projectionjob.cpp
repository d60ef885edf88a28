#include "models/projectionjob.h"

#include "models/runnaming.h"
#include "slicescope/backend/projection.h"
#include "slicescope/device/devicespec.h"

namespace slicescope::models {

bool canProject(const RunEntry& entry) {
    return entry.run->mode == trace::RunMode::MeasuredGpu;
}

ProjectionResult projectEntries(const std::vector<ConstRunEntryPtr>& sources,
                                const QString& presetId) {
    ProjectionResult out;
    auto preset = device::findPreset(presetId.toStdString());
    if (!preset) {
        out.errors << toQString(preset.error().message);
        return out;
    }
    for (const auto& source : sources) {
        if (!canProject(*source)) {
            out.errors << QStringLiteral("%1: only runs measured on a GPU can be projected; it is "
                                         "%2")
                              .arg(source->id, modeText(source->run->mode));
            continue;
        }
        auto projected = backend::projectRun(*source->run, *preset);
        if (!projected) {
            out.errors << source->id + QStringLiteral(": ") + toQString(projected.error().message);
            continue;
        }
        trace::Run run = std::move(projected->run);
        run.id = source->id.toStdString();
        run.projection->sourceRun = run.id; // as the session names it
        run.batch =
            QString(batchOf(*source) + QStringLiteral(" projected onto ") + presetId).toStdString();
        run.hidden = false;
        out.runs.push_back(makeRunEntry(std::move(run), RunOrigin::Opened));
    }
    return out;
}

} // namespace slicescope::models
