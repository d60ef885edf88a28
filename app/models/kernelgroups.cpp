#include "models/kernelgroups.h"

#include "models/runentry.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace slicescope::models {

namespace {

using Key = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t,
                       std::uint32_t, std::uint32_t, std::uint16_t, std::uint32_t, std::uint32_t>;

Key keyOf(const trace::Activity& a) {
    return {a.nameId,
            a.grid.x,
            a.grid.y,
            a.grid.z,
            a.block.x,
            a.block.y,
            a.block.z,
            a.registersPerThread,
            a.staticSharedBytes,
            a.dynamicSharedBytes};
}

QString dims(const Dim3& d) {
    return QStringLiteral("%1\u00d7%2\u00d7%3").arg(d.x).arg(d.y).arg(d.z);
}

} // namespace

QString KernelGroup::label() const {
    return QStringLiteral("%1: grid %2, block %3, %4 launch%5")
        .arg(name, dims(grid), dims(block))
        .arg(launches)
        .arg(launches == 1 ? QString() : QStringLiteral("es"));
}

QVector<KernelGroup> kernelGroups(const trace::Run& run) {
    QVector<KernelGroup> groups;
    std::map<Key, int> index;
    std::vector<int> measured;
    std::vector<int> laneMeasured;
    for (std::size_t i = 0; i < run.activities.size(); ++i) {
        const trace::Activity& a = run.activities[i];
        if (a.kind != trace::ActivityKind::Kernel || a.warmup) {
            continue; // warm-up launches are not counted (groupOfActivity still finds them)
        }
        auto [it, inserted] = index.try_emplace(keyOf(a), int(groups.size()));
        if (inserted) {
            KernelGroup g;
            g.name = toQString(run.name(a));
            g.grid = a.grid;
            g.block = a.block;
            g.registersPerThread = a.registersPerThread;
            g.staticSharedBytes = a.staticSharedBytes;
            g.dynamicSharedBytes = a.dynamicSharedBytes;
            g.firstActivity = int(i);
            if (!std::isnan(a.theoreticalOccupancy)) {
                g.theoretical = a.theoreticalOccupancy;
            }
            if (a.estimatedOccupancyPercent != trace::kNoPercent) {
                g.estimated = a.estimatedOccupancyPercent / 100.0;
            }
            groups.push_back(g);
            measured.push_back(0);
            laneMeasured.push_back(0);
        }
        KernelGroup& g = groups[it->second];
        ++g.launches;
        g.totalNs += a.durationNs();
        if (!std::isnan(a.achievedOccupancy)) {
            const int n = ++measured[std::size_t(it->second)];
            g.achieved =
                g.achieved.value_or(0.0) + (a.achievedOccupancy - g.achieved.value_or(0.0)) / n;
        }
        if (!std::isnan(a.activeLaneShare)) {
            const int n = ++laneMeasured[std::size_t(it->second)];
            g.activeLaneShare = g.activeLaneShare.value_or(0.0) +
                                (a.activeLaneShare - g.activeLaneShare.value_or(0.0)) / n;
        }
    }
    return groups;
}

QVector<KernelGroup> longestKernelGroups(const QVector<KernelGroup>& groups, int count) {
    if (groups.size() <= count) {
        return groups;
    }
    QVector<KernelGroup> longest = groups;
    std::stable_sort(
        longest.begin(), longest.end(),
        [](const KernelGroup& a, const KernelGroup& b) { return a.totalNs > b.totalNs; });
    longest.resize(std::max(0, count));
    std::sort(longest.begin(), longest.end(), [](const KernelGroup& a, const KernelGroup& b) {
        return a.firstActivity < b.firstActivity;
    });
    return longest;
}

int groupOfActivity(const QVector<KernelGroup>& groups, const trace::Run& run, int index) {
    if (index < 0 || std::size_t(index) >= run.activities.size() ||
        run.activities[std::size_t(index)].kind != trace::ActivityKind::Kernel) {
        return -1;
    }
    const trace::Activity& a = run.activities[std::size_t(index)];
    for (int g = 0; g < groups.size(); ++g) {
        const trace::Activity& first = run.activities[std::size_t(groups[g].firstActivity)];
        if (keyOf(first) == keyOf(a)) {
            return g;
        }
    }
    return -1;
}

} // namespace slicescope::models
