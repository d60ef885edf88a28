#include "slicescope/trace/hostthreadwait.h"

#include "slicescope/trace/runsummary.h"

#include <algorithm>
#include <vector>

namespace slicescope::trace {

namespace {

// One measured region and what its threads did in it.
struct Region {
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    std::int64_t busiestNs = 0;
    std::int64_t latestStartNs = 0;
    std::int64_t lastEndNs = 0;
    bool hasThreads = false;
};

bool isHostCompute(const Run& run, const Activity& a) {
    return a.kind == ActivityKind::Host && !a.warmup && run.name(a).starts_with("compute");
}

} // namespace

bool HostThreadWait::waited() const {
    return repetitions > 0 && regionNs >= kThreadWaitRatio * busiestThreadNs &&
           regionNs - busiestThreadNs >= kThreadWaitMinNs;
}

std::optional<HostThreadWait> measureHostThreadWait(const Run& run) {
    if (run.mode != RunMode::MeasuredCpu) {
        return std::nullopt;
    }
    // The regions are the compute spans of host thread 0, as RunSummary::hostComputeNs counts
    // them; thread spans are matched by time, not by `iteration`, which saturates at 65,535.
    std::vector<Region> regions;
    for (const Activity& a : run.activities) {
        if (a.threadId == 0 && isHostCompute(run, a)) {
            regions.push_back({a.startNs, a.endNs, 0, 0, 0, false});
        }
    }
    std::sort(regions.begin(), regions.end(),
              [](const Region& a, const Region& b) { return a.startNs < b.startNs; });
    for (const Activity& a : run.activities) {
        if (a.threadId == 0 || !isHostCompute(run, a)) {
            continue;
        }
        // The last region opened at or before the span's start, if it holds the whole span.
        auto it = std::upper_bound(
            regions.begin(), regions.end(), a.startNs,
            [](std::int64_t startNs, const Region& r) { return startNs < r.startNs; });
        if (it == regions.begin()) {
            continue;
        }
        Region& r = *std::prev(it);
        if (a.endNs > r.endNs) {
            continue;
        }
        r.busiestNs = std::max(r.busiestNs, a.durationNs());
        r.latestStartNs = r.hasThreads ? std::max(r.latestStartNs, a.startNs) : a.startNs;
        r.lastEndNs = r.hasThreads ? std::max(r.lastEndNs, a.endNs) : a.endNs;
        r.hasThreads = true;
    }
    HostThreadWait wait;
    std::int64_t regionSumNs = 0, busiestSumNs = 0;
    for (const Region& r : regions) {
        if (!r.hasThreads) {
            continue;
        }
        ++wait.repetitions;
        regionSumNs += r.endNs - r.startNs;
        busiestSumNs += r.busiestNs;
        wait.lateStartNs = std::max(wait.lateStartNs, r.latestStartNs - r.startNs);
        wait.lateCloseNs = std::max(wait.lateCloseNs, r.endNs - r.lastEndNs);
    }
    if (wait.repetitions == 0) {
        return std::nullopt;
    }
    const auto n = std::int64_t(wait.repetitions);
    wait.regionNs = regionSumNs / n;
    wait.busiestThreadNs = busiestSumNs / n;
    return wait;
}

std::string describeHostThreadWait(const HostThreadWait& wait) {
    if (!wait.waited()) {
        return {};
    }
    std::string text = "host threads waited: the parallel compute took " +
                       formatDurationNs(wait.regionNs) + " a repetition";
    if (wait.repetitions > 1) {
        text += " (mean of " + formatCount(wait.repetitions) + ")";
    }
    text += " while its busiest thread worked " + formatDurationNs(wait.busiestThreadNs) +
            "; threads started up to " + formatDurationNs(wait.lateStartNs) + " late";
    if (wait.lateCloseNs >= kThreadWaitMinNs) {
        text += " and the region closed up to " + formatDurationNs(wait.lateCloseNs) +
                " after its last slice";
    }
    return text + " (descheduled by the OS or a hypervisor); this CPU figure includes that wait: "
                  "re-run on a quiet machine to compare";
}

std::string hostThreadWaitNote(const Run& run) {
    const auto wait = measureHostThreadWait(run);
    return wait ? describeHostThreadWait(*wait) : std::string();
}

} // namespace slicescope::trace
