#include "models/timelinelanes.h"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <set>
#include <tuple>

namespace slicescope::models {

using trace::ActivityKind;

std::pair<std::size_t, std::size_t> LaneRow::visibleRange(std::int64_t fromNs,
                                                          std::int64_t toNs) const {
    const auto first =
        std::lower_bound(maxEndNs.begin(), maxEndNs.end(), fromNs) - maxEndNs.begin();
    const auto last =
        std::upper_bound(events.begin() + first, events.end(), toNs,
                         [](std::int64_t t, const LaneEvent& e) { return t < e.startNs; }) -
        events.begin();
    return {std::size_t(first), std::size_t(last)};
}

std::size_t LaneRow::nextWarmupChange(std::size_t index) const {
    const auto it = std::upper_bound(warmupChanges.begin(), warmupChanges.end(), index);
    return it == warmupChanges.end() ? events.size() : *it;
}

std::size_t LaneRow::firstStartingAt(std::int64_t timeNs, std::size_t index) const {
    return std::size_t(
        std::lower_bound(events.begin() + std::ptrdiff_t(std::min(index, events.size())),
                         events.end(), timeNs,
                         [](const LaneEvent& e, std::int64_t t) { return e.startNs < t; }) -
        events.begin());
}

LaneKind laneKindOf(ActivityKind kind) {
    switch (kind) {
    case ActivityKind::Api:
        return LaneKind::Api;
    case ActivityKind::HtoD:
        return LaneKind::HtoD;
    case ActivityKind::Kernel:
        return LaneKind::Kernel;
    case ActivityKind::Memset:
        return LaneKind::Memset;
    case ActivityKind::DtoD:
        return LaneKind::DtoD;
    case ActivityKind::HtoH:
        return LaneKind::HtoH;
    case ActivityKind::DtoH:
        return LaneKind::DtoH;
    case ActivityKind::Host:
        return LaneKind::Host;
    case ActivityKind::Sync:
        return LaneKind::Sync;
    case ActivityKind::Overhead:
        return LaneKind::Overhead;
    }
    return LaneKind::Host;
}

std::string laneKindName(LaneKind kind) {
    switch (kind) {
    case LaneKind::Api:
        return "API";
    case LaneKind::HtoD:
        return "HtoD";
    case LaneKind::Kernel:
        return "kernels";
    case LaneKind::Memset:
        return "memsets";
    case LaneKind::DtoD:
        return "DtoD";
    case LaneKind::HtoH:
        return "HtoH";
    case LaneKind::DtoH:
        return "DtoH";
    case LaneKind::Host:
        return "host";
    case LaneKind::Sync:
        return "sync";
    case LaneKind::Overhead:
        return "profiler";
    }
    return "?";
}

LaneGroup laneGroupOf(const Lane& lane) {
    switch (lane.kind) {
    case LaneKind::Api:
        return LaneGroup::Api;
    case LaneKind::Sync:
        return LaneGroup::Sync;
    case LaneKind::Overhead:
        return LaneGroup::Profiler;
    case LaneKind::Memset:
        return LaneGroup::Memset;
    case LaneKind::Host:
        return lane.key == 0 ? LaneGroup::Work : LaneGroup::HostThreads;
    default:
        return LaneGroup::Work;
    }
}

bool isOverviewLane(const Lane& lane) {
    switch (lane.kind) {
    case LaneKind::HtoD:
    case LaneKind::Kernel:
    case LaneKind::Memset:
    case LaneKind::DtoD:
    case LaneKind::HtoH:
    case LaneKind::DtoH:
        return true;
    default:
        return false;
    }
}

bool isRepetitionHostWork(const trace::Run& run, const trace::Activity& activity) {
    if (activity.kind != ActivityKind::Host || activity.threadId != 0) {
        return false;
    }
    return run.name(activity).starts_with("compute") || isHostLayoutPass(run, activity);
}

bool isHostLayoutPass(const trace::Run& run, const trace::Activity& activity) {
    if (activity.kind != ActivityKind::Host || activity.threadId != 0) {
        return false;
    }
    const std::string_view name = run.name(activity);
    return name.starts_with("layout") || name.starts_with("materialize");
}

namespace {

// API calls, host work and waits belong to a host thread; profiler overhead is one lane per run
// (which CUPTI thread paid it teaches nothing).
bool keyedByThread(LaneKind kind) {
    return kind == LaneKind::Api || kind == LaneKind::Host || kind == LaneKind::Sync;
}

// Threads are named by their order in the run (1, 2, ...), not by the operating system's long ids;
// one number means the same thread in every lane of the run.
std::string laneLabel(LaneKind kind, std::uint32_t key, std::size_t keysOfKind,
                      const std::map<std::uint32_t, std::size_t>& threadOrdinals) {
    std::string label = laneKindName(kind);
    if (keysOfKind <= 1) {
        return label;
    }
    if (keyedByThread(kind)) {
        return key == 0 ? label + " (main)"
                        : label + " thread " + std::to_string(threadOrdinals.at(key));
    }
    return label + " stream " + std::to_string(key);
}

} // namespace

std::pair<LaneKind, std::uint32_t> laneOf(const trace::Activity& activity) {
    const LaneKind kind = laneKindOf(activity.kind);
    return {kind, keyedByThread(kind) ? activity.threadId : activity.stream};
}

std::vector<int> devicesOf(const trace::Run& run) {
    std::array<bool, 256> seen{};
    for (const trace::Activity& a : run.activities) {
        if (trace::isDeviceActivity(a.kind)) {
            seen[a.device] = true;
            if (a.peerDevice != trace::kNoDevice) {
                seen[a.peerDevice] = true;
            }
        }
    }
    std::vector<int> devices;
    for (std::size_t d = 0; d < seen.size(); ++d) {
        if (seen[d]) {
            devices.push_back(int(d));
        }
    }
    return devices;
}

std::string deviceLabel(int device) {
    return "GPU " + std::to_string(device);
}

namespace {

// Where an activity's lane sits: its device group (0: the host's lanes, or every lane of a run of
// one device; 1 + d: device d's), its kind, the other device of a copy between two (kAnyDevice
// otherwise), and its thread or stream. Ordered so that a map of them is the drawing order.
struct LaneKey {
    int group = 0;
    LaneKind kind = LaneKind::Host;
    int peer = kAnyDevice;
    std::uint32_t key = 0;
    auto operator<=>(const LaneKey&) const = default;
};

LaneKey laneKeyOf(const trace::Activity& a, bool byDevice) {
    const auto [kind, key] = laneOf(a);
    if (!byDevice || !trace::isDeviceActivity(a.kind)) {
        return {0, kind, kAnyDevice, key};
    }
    const bool peer = a.peerDevice != trace::kNoDevice && a.peerDevice != a.device;
    return {1 + a.device, kind, peer ? int(a.peerDevice) : kAnyDevice, key};
}

} // namespace

bool laneHolds(const Lane& lane, const trace::Activity& activity) {
    const auto [kind, key] = laneOf(activity);
    if (lane.kind != kind || lane.key != key) {
        return false;
    }
    if (lane.device == kAnyDevice) {
        return true;
    }
    const bool peer =
        activity.peerDevice != trace::kNoDevice && activity.peerDevice != activity.device;
    return lane.device == activity.device &&
           lane.peerDevice == (peer ? int(activity.peerDevice) : kAnyDevice);
}

namespace {

void fillRows(Lane& lane, std::vector<LaneEvent>& events) {
    std::stable_sort(events.begin(), events.end(),
                     [](const LaneEvent& a, const LaneEvent& b) { return a.startNs < b.startNs; });
    std::vector<std::int64_t> rowEnd;
    for (const LaneEvent& e : events) {
        std::size_t row = 0;
        while (row < rowEnd.size() && rowEnd[row] > e.startNs) {
            ++row;
        }
        if (row == rowEnd.size()) {
            if (rowEnd.size() < kMaxRowsPerLane) {
                rowEnd.push_back(e.endNs);
                lane.rows.emplace_back();
            } else {
                row = kMaxRowsPerLane - 1; // overflow: events overlap in this row
                lane.rows[row].disjoint = false;
            }
        }
        rowEnd[row] = std::max(rowEnd[row], e.endNs);
        LaneRow& r = lane.rows[row];
        r.maxEndNs.push_back(r.maxEndNs.empty() ? e.endNs : std::max(r.maxEndNs.back(), e.endNs));
        if (!r.events.empty() && r.events.back().warmup != e.warmup) {
            r.warmupChanges.push_back(r.events.size());
        }
        r.events.push_back(e);
        r.warmupEvents += e.warmup ? 1 : 0;
    }
    lane.eventCount = events.size();
}

} // namespace

int overviewStrip(LaneKind kind) {
    return kind == LaneKind::HtoD ? 0 : kind == LaneKind::DtoH ? 2 : 1;
}

RunLanes buildLanes(const trace::Run& run) {
    RunLanes result;
    result.devices = devicesOf(run);
    const bool byDevice = result.devices.size() > 1;
    std::map<LaneKey, std::vector<LaneEvent>> byLane;
    std::vector<LaneEvent> hostCompute;
    std::vector<LaneEvent> hostOther;
    bool any = false;
    for (std::size_t i = 0; i < run.activities.size(); ++i) {
        const trace::Activity& a = run.activities[i];
        const std::int64_t end = std::max(a.startNs, a.endNs);
        const LaneKey lane = laneKeyOf(a, byDevice);
        const LaneEvent event{a.startNs, end, std::uint32_t(i), a.warmup};
        byLane[lane].push_back(event);
        result.beginNs = any ? std::min(result.beginNs, a.startNs) : a.startNs;
        result.endNs = any ? std::max(result.endNs, end) : end;
        any = true;
        result.warmupEventCount += a.warmup ? 1 : 0;
        const bool hostWork = isRepetitionHostWork(run, a);
        // A repetition's work: what the breakdown counts, so a layout pass (81 % of slice-middle's
        // time at the seed shape) is inside the run's span, not washed out as set-up.
        if (!a.warmup && (hostWork || trace::isDeviceActivity(a.kind))) {
            result.workBeginNs =
                result.hasWork ? std::min(result.workBeginNs, a.startNs) : a.startNs;
            result.workEndNs = result.hasWork ? std::max(result.workEndNs, end) : end;
            result.hasWork = true;
        }
        if (hostWork) {
            hostCompute.push_back(event);
        } else if (lane.kind == LaneKind::Host && lane.key == 0) {
            hostOther.push_back(event);
        }
    }
    if (!result.hasWork) {
        result.workBeginNs = result.beginNs;
        result.workEndNs = result.endNs;
    }
    result.hostCompute.kind = LaneKind::Host;
    result.hostCompute.label = "host work";
    fillRows(result.hostCompute, hostCompute);
    result.hostOther.kind = LaneKind::Host;
    result.hostOther.label = "host set-up and checks";
    fillRows(result.hostOther, hostOther);
    // Lanes of one kind in one device group (and between one pair of devices) are told apart by
    // their thread or stream.
    std::map<std::tuple<int, LaneKind, int>, std::size_t> keysPerKind;
    std::map<std::uint32_t, std::size_t> threadOrdinals;
    for (const auto& [k, events] : byLane) {
        ++keysPerKind[{k.group, k.kind, k.peer}];
        if (keyedByThread(k.kind) && k.key != 0) {
            threadOrdinals.emplace(k.key, 0);
        }
    }
    std::size_t ordinal = 0;
    for (auto& [thread, number] : threadOrdinals) {
        number = ++ordinal;
    }
    // std::map orders by (group, kind, peer, key): the host's lanes (every lane with one device),
    // then each device's; kinds in LaneKind order, threads and streams ascending.
    for (auto& [k, events] : byLane) {
        Lane lane;
        lane.kind = k.kind;
        lane.key = k.key;
        lane.device = k.group == 0 ? kAnyDevice : k.group - 1;
        lane.peerDevice = k.peer;
        const std::size_t keys = keysPerKind[{k.group, k.kind, k.peer}];
        lane.label = laneLabel(k.kind, k.key, keys, threadOrdinals);
        if (k.peer != kAnyDevice) {
            lane.label = deviceLabel(lane.device) + " → " + deviceLabel(k.peer) + " copies" +
                         (keys > 1 ? " stream " + std::to_string(k.key) : "");
        } else if (lane.device != kAnyDevice) {
            lane.label = deviceLabel(lane.device) + " · " + lane.label;
        }
        fillRows(lane, events);
        result.eventCount += lane.eventCount;
        result.lanes.push_back(std::move(lane));
    }
    // Does any overview event start before an earlier one ends? Events are sorted per lane row;
    // merge them all by start.
    std::vector<std::pair<std::int64_t, std::int64_t>> overview;
    for (const Lane& lane : result.lanes) {
        if (!isOverviewLane(lane)) {
            continue;
        }
        for (const LaneRow& row : lane.rows) {
            for (const LaneEvent& e : row.events) {
                overview.emplace_back(e.startNs, e.endNs);
            }
        }
    }
    std::sort(overview.begin(), overview.end());
    std::int64_t reach = std::numeric_limits<std::int64_t>::min();
    for (const auto& [start, end] : overview) {
        if (start < reach) {
            result.overviewOverlaps = true;
            break;
        }
        reach = std::max(reach, end);
    }
    return result;
}

} // namespace slicescope::models
