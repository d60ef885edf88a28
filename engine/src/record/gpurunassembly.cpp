#include "gpurunassembly.h"

#include <algorithm>
#include <unordered_map>

namespace slicescope::record {

namespace {

using trace::Activity;
using trace::ActivityKind;

std::uint16_t clampIteration(std::size_t i) {
    return std::uint16_t(std::min<std::size_t>(i, 0xffff));
}

} // namespace

void assembleGpuRun(const GpuRunRecords& in, trace::Run& run) {
    for (const auto& h : in.hostSpans) {
        Activity a;
        a.kind = ActivityKind::Host;
        a.startNs = h.startNs;
        a.endNs = h.endNs;
        a.nameId = run.intern(h.name);
        a.iteration = h.iteration;
        run.activities.push_back(a);
    }

    const auto iterationAt = [&](std::int64_t ns) {
        const auto& starts = in.iterationStarts;
        const auto after = std::upper_bound(starts.begin(), starts.end(), ns);
        return clampIteration(after == starts.begin() ? 0
                                                      : std::size_t(after - starts.begin()) - 1);
    };
    std::unordered_map<std::uint32_t, std::uint16_t> iterationByCorrelation;
    for (const auto& r : in.records) {
        if (r.activity.kind == ActivityKind::Api && r.timed) {
            iterationByCorrelation[r.activity.correlationId] = iterationAt(r.activity.startNs);
        }
    }
    trace::OccupancyInfo occ = in.occupancy;
    std::unordered_map<std::uint32_t, std::uint32_t> names; // decoder name id -> run name id
    std::size_t untimed = 0;
    std::vector<std::size_t> kernelIndices;
    for (const auto& r : in.records) {
        if (!r.timed) {
            ++untimed;
            continue;
        }
        Activity a = r.activity;
        auto [slot, inserted] = names.try_emplace(a.nameId, 0);
        if (inserted) {
            slot->second = a.nameId < in.names.size() ? run.intern(in.names[a.nameId]) : 0;
        }
        a.nameId = slot->second;
        const auto found = iterationByCorrelation.find(a.correlationId);
        a.iteration = found != iterationByCorrelation.end() && a.kind != ActivityKind::Api
                          ? found->second
                          : iterationAt(a.startNs);
        if (a.kind == ActivityKind::Kernel) {
            a.theoreticalOccupancy = float(occ.theoretical);
            kernelIndices.push_back(run.activities.size());
        }
        run.activities.push_back(a);
    }
    // Ranges are in launch order; so are the traced kernels by start time.
    std::sort(kernelIndices.begin(), kernelIndices.end(), [&](std::size_t a, std::size_t b) {
        return run.activities[a].startNs < run.activities[b].startNs;
    });
    if (!in.ranges.empty()) {
        double achieved = 0, busy = 0;
        for (const auto& r : in.ranges) {
            achieved += r.achievedOccupancy;
            busy += r.smBusyShare;
        }
        occ.achieved = achieved / double(in.ranges.size());
        occ.smBusyShare = busy / double(in.ranges.size());
        for (std::size_t i = 0; i < kernelIndices.size() && i < in.ranges.size(); ++i) {
            run.activities[kernelIndices[i]].achievedOccupancy =
                float(in.ranges[i].achievedOccupancy);
        }
        if (in.ranges.size() != kernelIndices.size()) {
            run.notes.push_back("the counted pass gave " + std::to_string(in.ranges.size()) +
                                " ranges for " + std::to_string(kernelIndices.size()) +
                                " traced kernels");
        }
    }
    run.occupancy = occ;

    if (in.sampled && in.samplesUnavailable.empty()) {
        // Cut the device-wide series to this run's span.
        const std::int64_t from =
            in.iterationStarts.empty() ? in.runStartNs : in.iterationStarts.front();
        std::int64_t to = from;
        for (const auto& a : run.activities) {
            if (trace::isDeviceActivity(a.kind)) {
                to = std::max(to, a.endNs);
            }
        }
        for (const auto& s : in.samples) {
            if (s.endNs >= from && s.startNs <= to) {
                run.occupancySeries.push_back({s.startNs, float(s.warpOccupancy)});
            }
        }
        if (in.samplesOverflowed) {
            run.notes.push_back(
                "the PM sampling buffer overflowed: the occupancy series is cut short");
        }
    } else if (in.sampled) {
        run.notes.push_back("no occupancy samples: " + in.samplesUnavailable);
    }

    if (in.cupti) {
        run.droppedRecords = in.droppedRecords;
        if (in.refusedBuffers > 0) {
            run.notes.push_back(
                std::to_string(in.refusedBuffers) +
                " CUPTI buffer requests were refused (pool full): records were dropped");
        }
        if (in.unknownRecords > 0) {
            run.notes.push_back(std::to_string(in.unknownRecords) +
                                " CUPTI records of kinds SliceScope does not read");
        }
        if (untimed > 0) {
            run.notes.push_back(std::to_string(untimed) +
                                " CUPTI records without timestamps were left out");
        }
    } else {
        run.notes.push_back("CUPTI off: the run has host activities only");
    }
    if (in.memory == backend::MemoryMode::Managed) {
        run.notes.push_back(
            "managed memory: the kernel reads and writes unified memory and pages migrate on "
            "demand, so the run has no copy activities");
    } else if (in.memory == backend::MemoryMode::Mapped) {
        run.notes.push_back(
            "mapped zero-copy memory: the kernel reads and writes pinned host memory across "
            "the bus, so the run has no copy activities");
    }
    std::sort(run.activities.begin(), run.activities.end(),
              [](const Activity& a, const Activity& b) { return a.startNs < b.startNs; });
}

} // namespace slicescope::record
