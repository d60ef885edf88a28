#pragma once

#include "slicescope/trace/trace.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

// A run's activities arranged for drawing: one lane per kind of work (and per host thread or
// stream), events sorted by start so the visible ones are found by binary search.
namespace slicescope::models {

struct LaneEvent {
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    std::uint32_t activity = 0; // index into Run::activities
    bool warmup = false;        // of a warm-up iteration: drawn greyed, outside the measured part
};

// Events of one lane that a greedy pass could lay side by side. In a disjoint row no two events
// overlap, so ends are sorted too; the overflow row of a lane with deeply nested events is not
// disjoint and relies on maxEndNs.
struct LaneRow {
    std::vector<LaneEvent> events;      // sorted by startNs
    std::vector<std::int64_t> maxEndNs; // maxEndNs[i] = max(events[0..i].endNs): non-decreasing
    bool disjoint = true;
    std::size_t warmupEvents = 0; // events of warm-up iterations in this row
    // The events whose warm-up flag differs from the one before theirs, in order: where a drawing
    // that merges neighbours must stop, since warm-up and measured events never merge.
    std::vector<std::size_t> warmupChanges;

    // [first, last) of the events that may intersect [fromNs, toNs]: first is the first event
    // whose running maximum end reaches fromNs, last the first that starts after toNs.
    std::pair<std::size_t, std::size_t> visibleRange(std::int64_t fromNs, std::int64_t toNs) const;
    // The first event at or after `index` that starts at or after timeNs.
    std::size_t firstStartingAt(std::int64_t timeNs, std::size_t index) const;
    // The first event after `index` whose warm-up flag differs from that of event `index`;
    // events.size() when there is none.
    std::size_t nextWarmupChange(std::size_t index) const;
};

enum class LaneKind : std::uint8_t {
    Api,
    HtoD,
    Kernel,
    Memset,
    DtoD,
    HtoH,
    DtoH,
    Host,
    Sync,
    Overhead
};

// Lane::device and Lane::peerDevice of a lane that belongs to no one device.
inline constexpr int kAnyDevice = -1;

struct Lane {
    LaneKind kind = LaneKind::Host;
    std::uint32_t key = 0; // host thread (api, host, sync) or stream (device work)
    // A run whose device work spans several GPUs (a multi-GPU program, recorded): its copies,
    // kernels and memsets get one group of lanes a device, in device order after the host's
    // lanes, each labelled "GPU 1 · kernels"; copies between two devices get lanes of their own
    // in their source's group, "GPU 0 → GPU 1 copies". kAnyDevice in a run of one device.
    int device = kAnyDevice;
    int peerDevice = kAnyDevice; // copies between devices: the destination
    std::string label;           // "HtoD", "kernels", "host thread 2", "GPU 1 · kernels", ...
    std::vector<LaneRow> rows;
    std::size_t eventCount = 0;
};

// Which lanes a timeline shows by default. Work lanes (copies, kernels, the main thread's host
// work) tell the story; the others are there when asked for (pinned open).
enum class LaneGroup : std::uint8_t { Work, Api, Sync, Profiler, Memset, HostThreads };
inline constexpr LaneGroup kCollapsibleLaneGroups[] = {LaneGroup::Api, LaneGroup::Sync,
                                                       LaneGroup::Profiler, LaneGroup::Memset,
                                                       LaneGroup::HostThreads};

struct RunLanes {
    std::vector<Lane>
        lanes; // in drawing order: API, HtoD, kernels, memsets, DtoD, HtoH, DtoH, host...
    std::int64_t beginNs = 0; // earliest start
    std::int64_t endNs = 0;   // latest end
    std::size_t eventCount = 0;
    std::size_t warmupEventCount = 0; // events of warm-up iterations
    // The measured part: from the first copy, kernel, memset or host compute span of a measured
    // iteration to the end of the last. Set-up (filling inputs, the CPU reference), warm-up
    // iterations and checking (verify, profiler replay passes) lie outside it. With no such
    // activity it is the whole run and hasWork is false.
    std::int64_t workBeginNs = 0;
    std::int64_t workEndNs = 0;
    bool hasWork = false;
    // The main thread's host spans split for the one-row overview: each repetition's host work
    // (compute, layout passes: isRepetitionHostWork) and everything else (set-up and checking,
    // drawn muted). Copies of those events.
    Lane hostCompute;
    Lane hostOther;
    // Copies and kernels overlap in time (a pipelined run, several streams): one shared band
    // would hide them behind each other, so the overview gives each its strip (overviewStrip).
    bool overviewOverlaps = false;
    // The devices the run's device work ran on, ascending (Activity::device and peerDevice):
    // lanes are grouped by device when there are two or more.
    std::vector<int> devices;
};

// The overview's strips when its work overlaps: HtoD on top, kernels (and memsets, other copies)
// in the middle, DtoH below.
inline constexpr int kOverviewStrips = 3;
int overviewStrip(LaneKind kind);

inline constexpr std::size_t kMaxRowsPerLane = 4;

LaneKind laneKindOf(trace::ActivityKind kind);
// The lane an activity belongs to: its kind and its host thread (API, host, sync, profiler
// lanes) or stream (device lanes).
std::pair<LaneKind, std::uint32_t> laneOf(const trace::Activity& activity);
// Whether the activity is drawn in this lane of its run: its kind and thread or stream, and in a
// run grouped by device, its device (and a peer copy's destination).
bool laneHolds(const Lane& lane, const trace::Activity& activity);
std::string laneKindName(LaneKind kind); // "API", "HtoD", "kernels", ...
LaneGroup laneGroupOf(const Lane& lane);
// Lanes whose events the one-row overview of a run draws: copies, kernels and memsets.
bool isOverviewLane(const Lane& lane);
// Host work of each repetition, as the run summary's breakdown counts it (runsummary.cpp): the
// main thread's compute (worker threads' "compute: thread k" spans overlap it), and the GPU
// runs' layout passes ("layout: ...", "materialize ...").
bool isRepetitionHostWork(const trace::Run& run, const trace::Activity& activity);
// A GPU run's host layout pass on the main thread: a transpose ("layout: ...") or an expanded
// input ("materialize ..."), as the run summary's hostLayoutNs counts them. The timeline and the
// breakdown draw them in one colour apart from host compute.
bool isHostLayoutPass(const trace::Run& run, const trace::Activity& activity);

// The devices a run's copies, kernels and memsets ran on, ascending, peer copies' both ends.
std::vector<int> devicesOf(const trace::Run& run);
// "GPU 1"
std::string deviceLabel(int device);

// Arranges a run's activities; O(n log n). Activities with end < start are drawn as instants.
RunLanes buildLanes(const trace::Run& run);

} // namespace slicescope::models
