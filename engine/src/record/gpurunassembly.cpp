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

// A pass's place: warm-up iteration `pass`, measured iteration `pass - warm-up passes`, or, for
// work outside the passes (kNoPass), no warm-up and iteration 0.
void placeInPass(Activity& a, std::size_t pass, std::uint32_t warmupIterations) {
    if (pass == kNoPass) {
        a.warmup = false;
        a.iteration = 0;
        return;
    }
    a.warmup = pass < warmupIterations;
    a.iteration = clampIteration(a.warmup ? pass : pass - warmupIterations);
}

} // namespace

void assembleGpuRun(const GpuRunRecords& in, trace::Run& run) {
    const std::uint32_t warmups = in.warmupIterations;
    for (const auto& h : in.hostSpans) {
        Activity a;
        a.kind = ActivityKind::Host;
        a.startNs = h.startNs;
        a.endNs = h.endNs;
        a.nameId = run.intern(h.name);
        placeInPass(a, h.iteration, warmups);
        run.activities.push_back(a);
    }

    const auto passAt = [&](std::int64_t ns) {
        const auto& starts = in.iterationStarts;
        const auto after = std::upper_bound(starts.begin(), starts.end(), ns);
        return after == starts.begin() ? std::size_t(kNoPass)
                                       : std::size_t(after - starts.begin()) - 1;
    };
    std::unordered_map<std::uint32_t, std::size_t> passByCorrelation;
    for (const auto& r : in.records) {
        if (r.activity.kind == ActivityKind::Api && r.timed) {
            passByCorrelation[r.activity.correlationId] = passAt(r.activity.startNs);
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
        const auto found = passByCorrelation.find(a.correlationId);
        placeInPass(a,
                    found != passByCorrelation.end() && a.kind != ActivityKind::Api
                        ? found->second
                        : passAt(a.startNs),
                    warmups);
        if (a.kind == ActivityKind::Kernel) {
            a.theoreticalOccupancy = float(occ.theoretical);
            if (!a.warmup) {
                kernelIndices.push_back(run.activities.size());
            }
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
            in.iterationStarts.size() > warmups ? in.iterationStarts[warmups] : in.runStartNs;
        std::int64_t to = from;
        for (const auto& a : run.activities) {
            if (trace::isDeviceActivity(a.kind) && !a.warmup) {
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
        // Measured on the H200: one-worker's kernel took 111 ms alone and 138 ms sampled.
        run.notes.push_back(
            "occupancy sampling (PM sampling) slows the sampled kernels (one-worker's kernel: "
            "111 ms alone, 138 ms sampled on the H200): compare kernel times with a run "
            "without it");
        if (in.samplesByClock) {
            run.notes.push_back(
                "this GPU cannot sample at a GPU-time interval (Turing, GA100): samples were "
                "taken every so many sys-clock cycles, so their spacing is approximate");
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
