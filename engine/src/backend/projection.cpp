#include "slicescope/backend/projection.h"

#include "slicescope/backend/measuredsetting.h"
#include "slicescope/backend/modelbackend.h"
#include "slicescope/core/clock.h"
#include "slicescope/trace/tracelimits.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <tuple>
#include <unordered_map>

// docs/model.md, "Projecting a measured run", describes these steps; keep the two in step.
namespace slicescope::backend {

namespace {

using trace::Activity;
using trace::ActivityKind;

// ---- What each device activity is scaled by -------------------------------------------------

// The model's kernels of one steady repetition (the second: the first pays managed memory's
// migration), in issue order: chunk by chunk for a pipeline.
std::vector<const Activity*> steadyKernels(const trace::Run& modelled) {
    std::vector<const Activity*> out;
    const std::uint16_t steady = modelled.repeat > 1 ? 1 : 0;
    for (const auto& a : modelled.activities) {
        if (a.kind == ActivityKind::Kernel && a.iteration == steady) {
            out.push_back(&a);
        }
    }
    return out;
}

double totalNs(const std::vector<const Activity*>& activities) {
    return std::accumulate(
        activities.begin(), activities.end(), 0.0,
        [](double sum, const Activity* a) { return sum + double(a->durationNs()); });
}

// The same request modelled on both devices: each launch's ratio target / source, and the
// target's launches for the projected kernels' descriptions.
struct KernelRatios {
    std::vector<const Activity*> source, target; // one steady repetition of each
    double mean = 1;                             // their totals' ratio
    trace::Run targetRun;
    trace::Run sourceRun;

    double at(std::size_t position, bool positional) const {
        if (!positional) {
            return mean;
        }
        const double s = double(source[position]->durationNs());
        return s > 0 ? double(target[position]->durationNs()) / s : mean;
    }
};

Result<KernelRatios> modelBoth(const MeasuredSetting& setting, const device::DeviceSpec& target,
                               const ModelParameters& m) {
    RunRequest request = setting.request;
    request.repeat = 2; // one steady repetition after the first (see steadyKernels)
    request.warmup = 0;
    auto source = modelRun(setting.strategy, request, *setting.preset, m);
    if (!source) {
        return tl::unexpected(source.error());
    }
    auto onTarget = modelRun(setting.strategy, request, target, m);
    if (!onTarget) {
        return tl::unexpected(onTarget.error());
    }
    KernelRatios out;
    out.sourceRun = std::move(*source);
    out.targetRun = std::move(*onTarget);
    out.source = steadyKernels(out.sourceRun);
    out.target = steadyKernels(out.targetRun);
    if (out.source.empty() || out.source.size() != out.target.size() || totalNs(out.source) <= 0) {
        return fail(Error::Code::Internal,
                    "the model gave different kernels on the two devices for " +
                        std::string(strategy::toString(setting.strategy)));
    }
    out.mean = totalNs(out.target) / totalNs(out.source);
    return out;
}

// The host link a copy crosses, on one device: the direction's pageable or pinned figure by the
// memory at its host end (the run's memory mode where the record does not say).
double linkGBps(const Activity& a, const device::DeviceSpec& d, MemoryMode mode) {
    const trace::MemoryKind host = a.kind == ActivityKind::HtoD ? a.srcKind : a.dstKind;
    const bool pageable = host == trace::MemoryKind::Pageable ||
                          (host == trace::MemoryKind::Unknown && mode == MemoryMode::Pageable);
    if (a.kind == ActivityKind::HtoD) {
        return pageable ? d.pageableHtoDGBps : d.pinnedHtoDGBps;
    }
    return pageable ? d.pageableDtoHGBps : d.pinnedDtoHGBps;
}

struct Scaling {
    const MeasuredSetting& setting;
    const device::DeviceSpec& target;
    const ModelParameters& m;
    const KernelRatios& kernels;
    bool positional = false; // the measured repetitions launch as many kernels as the model's
};

double factorOf(const Scaling& s, const Activity& a, std::size_t kernelPosition) {
    const device::DeviceSpec& source = *s.setting.preset;
    switch (a.kind) {
    case ActivityKind::Kernel:
        return s.kernels.at(kernelPosition, s.positional);
    case ActivityKind::HtoD:
    case ActivityKind::DtoH:
        return modelCopyNs(a.bytes, linkGBps(a, s.target, s.setting.request.memory), s.m) /
               modelCopyNs(a.bytes, linkGBps(a, source, s.setting.request.memory), s.m);
    case ActivityKind::DtoD:
    case ActivityKind::Memset:
        return source.memoryBandwidthGBps / s.target.memoryBandwidthGBps;
    case ActivityKind::HtoH:
    case ActivityKind::Api:
    case ActivityKind::Sync:
    case ActivityKind::Host:
    case ActivityKind::Overhead:
        return 1;
    }
    return 1;
}

// Each activity's projected duration, and each kernel's position within its repetition (-1 for
// other activities). Kernels are counted per repetition (warm-up ones apart) in start order.
struct Durations {
    std::vector<std::int64_t> ns;
    std::vector<std::int64_t> kernelPosition;
};

std::vector<std::size_t> byStart(const std::vector<Activity>& in) {
    std::vector<std::size_t> order(in.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return in[a].startNs < in[b].startNs; });
    return order;
}

Durations projectDurations(const trace::Run& run, Scaling& s) {
    const auto& in = run.activities;
    Durations out;
    out.ns.resize(in.size());
    out.kernelPosition.assign(in.size(), -1);
    std::map<std::pair<bool, std::uint16_t>, std::int64_t> kernelsSeen; // per repetition
    for (std::size_t i : byStart(in)) {
        if (in[i].kind == ActivityKind::Kernel) {
            out.kernelPosition[i] = kernelsSeen[{in[i].warmup, in[i].iteration}]++;
        }
    }
    s.positional = !kernelsSeen.empty();
    for (const auto& [repetition, count] : kernelsSeen) {
        s.positional = s.positional && std::size_t(count) == s.kernels.source.size();
    }
    for (std::size_t i = 0; i < in.size(); ++i) {
        const double factor =
            factorOf(s, in[i], std::size_t(std::max<std::int64_t>(0, out.kernelPosition[i])));
        const std::int64_t measured = in[i].durationNs();
        out.ns[i] = factor == 1 ? measured
                                : std::min<std::int64_t>(trace::kMaxDurationNs,
                                                         std::llround(double(measured) * factor));
    }
    return out;
}

// ---- Re-laying the timeline -----------------------------------------------------------------

// The latest activity on a lane (a stream, a copy engine, a host thread): where it ended before
// and where it ends now.
struct LaneEnd {
    bool set = false;
    std::int64_t before = 0, now = 0;
};

void advance(LaneEnd& lane, std::int64_t before, std::int64_t now) {
    if (!lane.set || before >= lane.before) {
        lane = {true, before, now};
    }
}

// What each activity waits for: a synchronization (and the API call it belongs to) waits for the
// device activity that ended last within it (on its stream, where it names one); an API call that
// lasted through most of its own device activity waits for that. -1: it waits for nothing and
// keeps its duration.
std::vector<std::int64_t> waitTargets(const std::vector<Activity>& in) {
    std::vector<std::pair<std::int64_t, std::size_t>> allEnds;
    std::map<std::uint32_t, std::vector<std::pair<std::int64_t, std::size_t>>> streamEnds;
    std::unordered_map<std::uint32_t, std::size_t> syncOf, deviceOf;
    for (std::size_t i = 0; i < in.size(); ++i) {
        const Activity& a = in[i];
        if (trace::isDeviceActivity(a.kind)) {
            allEnds.emplace_back(a.endNs, i);
            streamEnds[a.stream].emplace_back(a.endNs, i);
            if (a.correlationId != 0) {
                deviceOf.emplace(a.correlationId, i);
            }
        } else if (a.kind == ActivityKind::Sync && a.correlationId != 0) {
            syncOf.emplace(a.correlationId, i);
        }
    }
    std::sort(allEnds.begin(), allEnds.end());
    for (auto& [stream, ends] : streamEnds) {
        std::sort(ends.begin(), ends.end());
    }
    // The device activity that ended last from `from` to `to`, on `stream` (0: any).
    const auto lastEndWithin = [&](std::int64_t from, std::int64_t to,
                                   std::uint32_t stream) -> std::int64_t {
        const auto found = streamEnds.find(stream);
        const auto& ends = stream == 0 || found == streamEnds.end() ? allEnds : found->second;
        auto it = std::upper_bound(ends.begin(), ends.end(),
                                   std::make_pair(to, std::numeric_limits<std::size_t>::max()));
        if (it == ends.begin() || std::prev(it)->first < from) {
            return -1;
        }
        return std::int64_t(std::prev(it)->second);
    };
    std::vector<std::int64_t> out(in.size(), -1);
    for (std::size_t i = 0; i < in.size(); ++i) {
        const Activity& a = in[i];
        if (a.kind == ActivityKind::Sync) {
            out[i] = lastEndWithin(a.startNs, a.endNs, a.stream);
        } else if (a.kind == ActivityKind::Api && a.correlationId != 0) {
            if (auto sync = syncOf.find(a.correlationId); sync != syncOf.end()) {
                out[i] = lastEndWithin(a.startNs, a.endNs, in[sync->second].stream);
            } else if (auto dev = deviceOf.find(a.correlationId); dev != deviceOf.end()) {
                // The call lasted through most of its work: it waited for it (a pageable copy
                // stages through the driver while the host waits; an asynchronous one returns
                // as its work starts).
                const Activity& d = in[dev->second];
                const std::int64_t covered =
                    std::min(a.endNs, d.endNs) - std::max(a.startNs, d.startNs);
                out[i] = d.durationNs() > 0 && 2 * covered >= d.durationNs()
                             ? std::int64_t(dev->second)
                             : -1;
            }
        }
    }
    return out;
}

class Relayer {
  public:
    Relayer(const std::vector<Activity>& in, const std::vector<std::int64_t>& durations)
        : in_(in), ns_(durations), waits_(waitTargets(in)), start_(in.size(), 0),
          end_(in.size(), 0), placed_(in.size(), false) {
        for (std::size_t i = 0; i < in.size(); ++i) {
            if (in[i].kind == ActivityKind::Api && in[i].correlationId != 0) {
                apiOf_.emplace(in[i].correlationId, i);
            }
        }
    }

    // Walks the activities' starts (and the ends of waits) in time order and places each.
    void run() {
        struct Event {
            std::int64_t ns;
            int rank; // at one instant: device starts, wait starts, wait ends, other starts
            std::size_t index;
            bool end;
        };
        std::vector<Event> events;
        events.reserve(in_.size() + in_.size() / 4);
        for (std::size_t i = 0; i < in_.size(); ++i) {
            const bool device = trace::isDeviceActivity(in_[i].kind);
            const bool wait = waits_[i] >= 0;
            events.push_back({in_[i].startNs, device ? 0 : wait ? 1 : 3, i, false});
            if (wait) {
                events.push_back({in_[i].endNs, 2, i, true});
            }
        }
        std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
            return std::tie(a.ns, a.rank, a.index) < std::tie(b.ns, b.rank, b.index);
        });
        for (const Event& e : events) {
            if (e.end) {
                endWait(e.index);
            } else if (trace::isDeviceActivity(in_[e.index].kind)) {
                placeDevice(e.index);
            } else {
                placeHost(e.index);
            }
        }
    }

    std::int64_t startOf(std::size_t i) const { return start_[i]; }
    std::int64_t endOf(std::size_t i) const { return end_[i]; }

  private:
    // A device activity starts as long after what held it back (the call that issued it, the
    // activity before it on its stream and on its copy engine) as it did.
    void placeDevice(std::size_t i) {
        const Activity& a = in_[i];
        std::int64_t boundBefore = a.startNs, boundNow = a.startNs + shift_;
        if (auto api = apiOf_.find(a.correlationId);
            a.correlationId != 0 && api != apiOf_.end() && placed_[api->second]) {
            boundBefore = in_[api->second].startNs;
            boundNow = start_[api->second];
        }
        LaneEnd* lanes[2] = {&streams_[a.stream], engineOf(a.kind)};
        for (LaneEnd* lane : lanes) {
            if (lane != nullptr && lane->set && a.startNs >= lane->before) {
                boundBefore = std::max(boundBefore, lane->before);
                boundNow = std::max(boundNow, lane->now);
            }
        }
        std::int64_t start = boundNow + (a.startNs - boundBefore);
        for (LaneEnd* lane : lanes) {
            if (lane != nullptr && lane->set && a.startNs >= lane->before) {
                start = std::max(start, lane->now);
            }
        }
        place(i, std::max<std::int64_t>(0, start), ns_[i]);
        for (LaneEnd* lane : lanes) {
            if (lane != nullptr) {
                advance(*lane, a.endNs, end_[i]);
            }
        }
    }

    // Host work keeps its place relative to the waits before it, never overlapping the work
    // before it on its thread.
    void placeHost(std::size_t i) {
        const Activity& a = in_[i];
        std::int64_t start = std::max<std::int64_t>(0, a.startNs + shift_);
        LaneEnd* lane = threadLane(a);
        if (lane != nullptr && lane->set && a.startNs >= lane->before) {
            start = std::max(start, lane->now);
        }
        if (waits_[i] >= 0) {
            start_[i] = start;
            placed_[i] = true;
            return; // its end comes with endWait
        }
        place(i, start, ns_[i]);
        if (lane != nullptr) {
            advance(*lane, a.endNs, end_[i]);
        }
    }

    // A wait ends as long after the device work it waited for as it did; later host work moves
    // with it.
    void endWait(std::size_t i) {
        const Activity& a = in_[i];
        const auto target = std::size_t(waits_[i]);
        const std::int64_t end = std::max(end_[target], start_[i]) + (a.endNs - in_[target].endNs);
        end_[i] = std::max(end, start_[i]);
        shift_ = end_[i] - a.endNs;
        if (LaneEnd* lane = threadLane(a); lane != nullptr) {
            advance(*lane, a.endNs, end_[i]);
        }
    }

    void place(std::size_t i, std::int64_t start, std::int64_t duration) {
        start_[i] = start;
        end_[i] = start + duration;
        placed_[i] = true;
    }

    LaneEnd* engineOf(ActivityKind kind) {
        return kind == ActivityKind::HtoD   ? &htodEngine_
               : kind == ActivityKind::DtoH ? &dtohEngine_
                                            : nullptr;
    }

    // API calls and SliceScope's host work, each on their host thread.
    LaneEnd* threadLane(const Activity& a) {
        if (a.kind != ActivityKind::Api && a.kind != ActivityKind::Host) {
            return nullptr;
        }
        return &threads_[{a.kind == ActivityKind::Host, a.threadId}];
    }

    const std::vector<Activity>& in_;
    const std::vector<std::int64_t>& ns_;
    std::vector<std::int64_t> waits_;
    std::vector<std::int64_t> start_, end_;
    std::vector<bool> placed_;
    std::unordered_map<std::uint32_t, std::size_t> apiOf_;
    std::map<std::uint32_t, LaneEnd> streams_;
    std::map<std::pair<bool, std::uint32_t>, LaneEnd> threads_;
    LaneEnd htodEngine_, dtohEngine_;
    std::int64_t shift_ = 0; // where host work now starts, against where it started
};

// ---- The projected run ----------------------------------------------------------------------

// The factors over the measured repetitions (warm-up left out): projected time over measured.
ProjectionFactors factorsOf(const trace::Run& measured, const trace::Run& projected) {
    std::map<ActivityKind, std::pair<double, double>> sums;
    for (std::size_t i = 0; i < measured.activities.size(); ++i) {
        const Activity& a = measured.activities[i];
        if (!a.warmup) {
            auto& [before, after] =
                sums[a.kind == ActivityKind::DtoD ? ActivityKind::Memset : a.kind];
            before += double(a.durationNs());
            after += double(projected.activities[i].durationNs());
        }
    }
    const auto ratio = [&](ActivityKind kind) {
        const auto it = sums.find(kind);
        return it == sums.end() || it->second.first <= 0 ? 1.0
                                                         : it->second.second / it->second.first;
    };
    return {ratio(ActivityKind::Kernel), ratio(ActivityKind::HtoD), ratio(ActivityKind::DtoH),
            ratio(ActivityKind::Memset)};
}

std::string factorText(double factor) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3g", factor);
    return text;
}

void describeProjection(trace::Run& run, const trace::Run& measured, const MeasuredSetting& setting,
                        const KernelRatios& kernels, const ProjectionFactors& f, bool positional) {
    const std::string& from = measured.device.name;
    const std::string& onto = kernels.targetRun.device.name;
    std::vector<std::string> notes;
    notes.push_back(
        "projected, not measured: run '" + measured.id + "' measured on the " + from +
        " moved onto the " + onto + " by the model's ratios: kernels x" + factorText(f.kernel) +
        " (the model's time on the " + onto + " over its time on the " + from +
        (positional ? ", launch by launch)" : ", all launches together)") + ", HtoD copies x" +
        factorText(f.htod) + " and DtoH copies x" + factorText(f.dtoh) +
        " (the model's copy times over the two host links), memsets x" +
        factorText(f.deviceMemory) + " (device memory bandwidths); host work as measured");
    if (!kernels.targetRun.notes.empty()) { // its first note says what bounds the kernel
        notes.push_back("the model on the " + onto + ": " + kernels.targetRun.notes.front());
    }
    for (const auto& note : measured.notes) {
        notes.push_back("measured run: " + note);
    }
    if (notes.size() > trace::kMaxNotes) {
        notes.resize(trace::kMaxNotes);
    }
    run.notes = std::move(notes);
    run.projection =
        trace::Projection{measured.id, from, setting.preset->id, kernels.targetRun.device.id};
}

} // namespace

Result<ProjectedRun> projectRun(const trace::Run& measured, const device::DeviceSpec& target,
                                const ModelParameters& m) {
    auto setting = measuredSetting(measured);
    if (!setting) {
        return tl::unexpected(setting.error());
    }
    if (target.id.empty()) {
        return fail(Error::Code::InvalidArgument,
                    "a run is projected onto a device preset; '" + target.name + "' is none");
    }
    auto kernels = modelBoth(*setting, target, m);
    if (!kernels) {
        return fail(kernels.error().code, "cannot project run '" + measured.id + "' onto the " +
                                              target.name + ": " + kernels.error().message);
    }
    Scaling scaling{*setting, target, m, *kernels};
    const Durations durations = projectDurations(measured, scaling);
    Relayer relayer(measured.activities, durations.ns);
    relayer.run();

    ProjectedRun out;
    trace::Run& run = out.run;
    run = measured;
    run.mode = trace::RunMode::Projected;
    run.device = kernels->targetRun.device;
    run.launch = kernels->targetRun.launch;
    run.occupancy = kernels->targetRun.occupancy;
    run.verification.reset();
    run.ceilings.reset();
    run.occupancySeries.clear();
    run.createdAt = isoTimestampUtc();
    std::int64_t lastBefore = 0, lastNow = 0;
    for (std::size_t i = 0; i < run.activities.size(); ++i) {
        Activity& a = run.activities[i];
        lastBefore = std::max(lastBefore, a.endNs);
        a.startNs = relayer.startOf(i);
        a.endNs = relayer.endOf(i);
        lastNow = std::max(lastNow, a.endNs);
        if (a.kind == ActivityKind::Kernel) {
            // The target's launch at the same place in the repetition; counters were the source's.
            const auto position = std::size_t(durations.kernelPosition[i]);
            const Activity& launch =
                *kernels->target[std::min(position, kernels->target.size() - 1)];
            a.grid = launch.grid;
            a.block = launch.block;
            a.registersPerThread = launch.registersPerThread;
            a.theoreticalOccupancy = launch.theoreticalOccupancy;
            a.achievedOccupancy = trace::kNoValue;
            a.activeLaneShare = trace::kNoValue;
        }
    }
    run.wallNs = std::clamp<std::int64_t>(measured.wallNs + (lastNow - lastBefore), 0,
                                          trace::kMaxDurationNs);
    out.factors = factorsOf(measured, run);
    describeProjection(run, measured, *setting, *kernels, out.factors, scaling.positional);
    return out;
}

Result<ProjectedTrace> projectTrace(const trace::Trace& in, const device::DeviceSpec& target,
                                    const ModelParameters& m) {
    ProjectedTrace out;
    out.trace.generator = in.generator;
    for (const auto& run : in.runs) {
        if (run.mode == trace::RunMode::MeasuredCpu) {
            out.trace.runs.push_back(run);
        } else if (run.mode != trace::RunMode::MeasuredGpu) {
            out.leftOut.push_back(run.id + " (" + std::string(trace::toString(run.mode)) + ")");
        } else {
            auto projected = projectRun(run, target, m);
            if (!projected) {
                return tl::unexpected(projected.error());
            }
            out.factors.push_back(projected->factors);
            out.trace.runs.push_back(std::move(projected->run));
        }
    }
    if (out.factors.empty()) {
        std::map<std::string_view, std::size_t> modes;
        for (const auto& run : in.runs) {
            ++modes[trace::toString(run.mode)];
        }
        std::string held;
        for (const auto& [mode, count] : modes) {
            held += (held.empty() ? "" : ", ") + std::to_string(count) + " " + std::string(mode);
        }
        return fail(Error::Code::Unsupported,
                    "the trace has no measured GPU run to project (it holds " +
                        (held.empty() ? std::string("no runs") : held) +
                        "); only runs measured on a GPU can be projected");
    }
    return out;
}

} // namespace slicescope::backend
