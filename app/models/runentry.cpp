#include "models/runentry.h"

#include "models/runnaming.h"

#include <algorithm>

namespace slicescope::models {

RunEntryPtr makeRunEntry(trace::Run run, RunOrigin origin, const QString& source) {
    auto entry = std::make_shared<RunEntry>();
    entry->id = toQString(run.id);
    entry->lanes = std::make_shared<const RunLanes>(buildLanes(run));
    entry->summary = trace::summarize(run);
    if (!run.launch && run.mode != trace::RunMode::MeasuredCpu) {
        const QVector<KernelGroup> all = kernelGroups(run);
        entry->kernelConfigurations = all.size();
        entry->kernels = longestKernelGroups(all, kMaxKernelGroups);
    }
    entry->deviceActivities = std::size_t(
        std::count_if(run.activities.begin(), run.activities.end(),
                      [](const trace::Activity& a) { return trace::isDeviceActivity(a.kind); }));
    entry->warmupDeviceActivities = std::size_t(
        std::count_if(run.activities.begin(), run.activities.end(), [](const trace::Activity& a) {
            return a.warmup && trace::isDeviceActivity(a.kind);
        }));
    entry->launchWords = toQString(trace::describeLaunch(run));
    entry->deviceTag = models::deviceTag(run.device);
    entry->settings = runSettings(run);
    entry->visible = !run.hidden;
    entry->origin = origin;
    entry->source = source;
    entry->run = std::make_shared<const trace::Run>(std::move(run));
    return entry;
}

bool isSameRun(const trace::Run& a, const trace::Run& b) {
    return a.strategy == b.strategy && a.mode == b.mode && a.createdAt == b.createdAt &&
           a.wallNs == b.wallNs && a.activities.size() == b.activities.size() &&
           a.beginNs() == b.beginNs() && a.endNs() == b.endNs();
}

QString toQString(std::string_view text) {
    return QString::fromUtf8(text.data(), qsizetype(text.size()));
}

QString modeText(trace::RunMode mode) {
    switch (mode) {
    case trace::RunMode::MeasuredGpu:
        return QStringLiteral("measured on the GPU");
    case trace::RunMode::MeasuredCpu:
        return QStringLiteral("measured on the CPU");
    case trace::RunMode::Modelled:
        return QStringLiteral("modelled");
    case trace::RunMode::Recorded:
        return QStringLiteral("recorded from a program");
    case trace::RunMode::Imported:
        return QStringLiteral("imported from another tool's file");
    case trace::RunMode::Projected:
        return QStringLiteral("projected from a measured GPU run (not measured)");
    }
    return {};
}

QString shortModeText(trace::RunMode mode) {
    switch (mode) {
    case trace::RunMode::MeasuredGpu:
        return QStringLiteral("GPU");
    case trace::RunMode::MeasuredCpu:
        return QStringLiteral("CPU");
    case trace::RunMode::Modelled:
        return QStringLiteral("modelled");
    case trace::RunMode::Recorded:
        return QStringLiteral("recorded");
    case trace::RunMode::Imported:
        return QStringLiteral("imported");
    case trace::RunMode::Projected:
        return QStringLiteral("projected");
    }
    return {};
}

QString RunEntry::predictedWord() const {
    return toQString(trace::predictedWord(run->mode));
}

} // namespace slicescope::models
