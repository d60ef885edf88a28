#include "slicescope/trace/runsummary.h"

#include "slicescope/occupancy/launchoccupancy.h"
#include "slicescope/trace/hostthreadwait.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

namespace slicescope::trace {

namespace {

bool isGpuRun(const Run& run, const RunSummary& summary) {
    return run.mode != RunMode::MeasuredCpu && summary.hasDeviceWork();
}

// ", modelled" or ", projected" after a run's time, where the model made it.
std::string predictedSuffix(const Run& run) {
    return isPredicted(run.mode) ? ", " + std::string(predictedWord(run.mode)) : std::string();
}

bool isCpuRun(const Run& run) {
    return run.mode == RunMode::MeasuredCpu;
}

bool sameProblem(const Run& a, const Run& b) {
    return a.problem && b.problem && *a.problem == *b.problem;
}

// The fastest run of the subject's problem (other than the subject) that `accept` takes.
template <typename Accept>
const SummarizedRun* fastest(const SummarizedRun& subject, std::span<const SummarizedRun> all,
                             Accept accept) {
    const SummarizedRun* best = nullptr;
    for (const auto& other : all) {
        if (other.run == nullptr || other.run == subject.run || !comparable(subject, other) ||
            !accept(other) || other.summary.perRepetitionNs() <= 0) {
            continue;
        }
        if (best == nullptr || other.summary.perRepetitionNs() < best->summary.perRepetitionNs()) {
            best = &other;
        }
    }
    return best;
}

std::string formatRatio(double ratio) {
    char text[32];
    std::snprintf(text, sizeof text, ratio >= 10 ? "%.0f" : "%.1f", ratio);
    return text;
}

std::string formatIntensity(double flopPerByte) {
    char text[32];
    std::snprintf(text, sizeof text,
                  flopPerByte >= 10  ? "%.0f"
                  : flopPerByte >= 1 ? "%.1f"
                                     : "%.2g",
                  flopPerByte);
    return text;
}

std::string launchBlocksWords(std::uint64_t blocks, std::uint64_t threadsPerBlock) {
    std::string text = blocks == 1 ? std::string("one block") : formatCount(blocks) + " blocks";
    return text + " of " + formatCount(threadsPerBlock) +
           (threadsPerBlock == 1 ? " thread" : " threads");
}

// "16 ms of host transposes", "10 ms of host expansion of multBy", or both, per repetition.
std::string hostLayoutWords(const RunSummary& s) {
    const std::int64_t reps = std::max<std::int64_t>(1, s.repeat);
    const std::int64_t transposeNs = (s.hostLayoutNs - s.hostExpandNs) / reps;
    const std::int64_t expandNs = s.hostExpandNs / reps;
    std::string text;
    if (transposeNs > 0) {
        text = formatDurationNs(transposeNs) + " of host transposes";
    }
    if (expandNs > 0) {
        text += (text.empty() ? "" : " and ") + formatDurationNs(expandNs) +
                " of host expansion of multBy";
    }
    return text;
}

std::string gpuComparison(const SummarizedRun& subject, std::span<const SummarizedRun> all) {
    const Run& run = *subject.run;
    const RunSummary& s = subject.summary;
    const SummarizedRun* cpu =
        fastest(subject, all, [](const SummarizedRun& r) { return isCpuRun(*r.run); });
    const std::string here = formatDurationNs(s.perRepetitionNs());
    const std::string intensity =
        run.problem ? formatIntensity(run.problem->arithmeticIntensity()) + " flop/byte"
                    : std::string();
    std::string text;
    if (s.hostLayoutShare() >= 0.5) {
        text = "host layout passes take " + formatPercent(s.hostLayoutShare()) + " of the run (" +
               hostLayoutWords(s) + (s.repeat > 1 ? " per repetition" : "") +
               "): the layout this kernel needs costs more than the copies and the kernel; a "
               "kernel that reads the original layout needs none";
        if (cpu && cpu->summary.perRepetitionNs() < s.perRepetitionNs()) {
            text += "; the CPU is faster (" + cpu->displayName() + " " +
                    formatDurationNs(cpu->summary.perRepetitionNs()) + " against " + here +
                    " here)";
        } else if (cpu) {
            text +=
                "; still " +
                formatRatio(double(cpu->summary.perRepetitionNs()) / double(s.perRepetitionNs())) +
                "x faster than the CPU (" + cpu->displayName() + ")";
        }
        return text;
    }
    if (s.copyShare() >= 0.5) {
        text = "copies take " + formatPercent(s.copyShare()) + " of the run: ";
        if (cpu && cpu->summary.perRepetitionNs() < s.perRepetitionNs()) {
            text += "at this arithmetic intensity";
            text += intensity.empty() ? std::string() : " (" + intensity + ")";
            text += " the CPU wins (" + cpu->displayName() + " " +
                    formatDurationNs(cpu->summary.perRepetitionNs()) + " against " + here +
                    " here); raise work per element to see the GPU pull ahead";
        } else if (cpu) {
            text += "the GPU still beats the CPU (" + here + " against " + cpu->displayName() +
                    " " + formatDurationNs(cpu->summary.perRepetitionNs()) +
                    "); pinned memory or fewer copies would widen the gap";
        } else {
            text += "the copies, not the kernel, decide the time";
            text += intensity.empty() ? std::string() : " at " + intensity;
            text += "; run a CPU strategy to compare, or raise work per element";
        }
        return text;
    }
    text = "the kernel takes " + formatPercent(s.kernelShare()) + " of the run";
    if (run.occupancy) {
        const double busy = run.occupancy->threadSlotsBusy;
        if (busy < 0.10) {
            text += " and only " + formatPercent(busy) +
                    " of the GPU's thread slots do useful work: cut the work into more workers "
                    "(one thread per element is the fix)";
        } else {
            text +=
                ", with " + formatPercent(busy) + " of the GPU's thread slots doing useful work";
        }
    }
    if (cpu && cpu->summary.perRepetitionNs() < s.perRepetitionNs()) {
        text += "; the CPU is faster (" + cpu->displayName() + " " +
                formatDurationNs(cpu->summary.perRepetitionNs()) + " against " + here + " here)";
    } else if (cpu) {
        text += "; " +
                formatRatio(double(cpu->summary.perRepetitionNs()) / double(s.perRepetitionNs())) +
                "x faster than the CPU (" + cpu->displayName() + ")";
    }
    return text;
}

// Time covered by sorted, disjoint intervals.
using Intervals = std::vector<std::pair<std::int64_t, std::int64_t>>;

Intervals merged(Intervals spans) {
    std::sort(spans.begin(), spans.end());
    Intervals out;
    for (const auto& [start, end] : spans) {
        if (end <= start) {
            continue;
        }
        if (!out.empty() && start <= out.back().second) {
            out.back().second = std::max(out.back().second, end);
        } else {
            out.emplace_back(start, end);
        }
    }
    return out;
}

std::int64_t covered(const Intervals& spans) {
    std::int64_t total = 0;
    for (const auto& [start, end] : spans) {
        total += end - start;
    }
    return total;
}

// Time covered by both of two merged lists.
std::int64_t intersection(const Intervals& a, const Intervals& b) {
    std::int64_t total = 0;
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const std::int64_t start = std::max(a[i].first, b[j].first);
        const std::int64_t end = std::min(a[i].second, b[j].second);
        total += std::max<std::int64_t>(0, end - start);
        (a[i].second < b[j].second ? i : j) += 1;
    }
    return total;
}

Intervals joined(const Intervals& a, const Intervals& b) {
    Intervals both = a;
    both.insert(both.end(), b.begin(), b.end());
    return merged(std::move(both));
}

// What a pipelined run (or one whose copies overlap anyway) adds to its verdict.
std::string pipelineWords(const Run& run, const RunSummary& s) {
    if (s.chunks <= 1 && s.copyHiddenNs == 0) {
        return {};
    }
    std::string text = s.chunks > 1
                           ? "; pipelined in " + formatCount(s.chunks) + " chunks on " +
                                 formatCount(s.streams) + (s.streams == 1 ? " stream" : " streams")
                           : std::string("; ");
    text += (s.chunks > 1 ? ", " : "") + formatPercent(s.overlapShare()) +
            " of the copy time is hidden behind other work";
    const std::int64_t bound = s.pipelineBoundNs();
    if (bound > 0 && s.deviceBusyNs > 0) {
        text += "; the " + std::string(s.pipelineLimiter()) + " (" + formatDurationNs(bound) +
                ") bound the pipeline and the device works " +
                formatRatio(double(s.deviceBusyNs) / double(bound)) + "x that";
    }
    if (s.chunks > 1 && run.memoryMode == "pageable") {
        text += "; pageable copies are staged through the driver while the host waits, so they "
                "cannot overlap: use pinned memory";
    } else if (s.chunks > 1 && s.streams == 1) {
        text += "; one stream runs its work in order: use more streams to overlap";
    }
    return text;
}

std::string gpuVerdict(const SummarizedRun& subject, std::span<const SummarizedRun> all) {
    std::string text = gpuComparison(subject, all);
    const RunSummary& s = subject.summary;
    if (s.hostLayoutNs > 0 && s.hostLayoutShare() < 0.5) {
        text += "; the " + formatDurationNs(s.perRepetitionNs()) + " here includes " +
                hostLayoutWords(s) + (s.repeat > 1 ? " per repetition" : "");
    }
    return text;
}

std::string cpuVerdict(const SummarizedRun& subject, std::span<const SummarizedRun> all) {
    const RunSummary& s = subject.summary;
    const SummarizedRun* gpu =
        fastest(subject, all, [](const SummarizedRun& r) { return isGpuRun(*r.run, r.summary); });
    std::string text = "host compute takes " + formatDurationNs(s.perRepetitionNs()) +
                       (s.repeat > 1 ? " per repetition" : "");
    if (gpu) {
        const std::int64_t gpuNs = gpu->summary.perRepetitionNs();
        const std::string withItsCopies = gpu->summary.hostLayoutNs > 0
                                              ? " with its copies and host layout passes"
                                              : " with its copies";
        if (s.perRepetitionNs() <= gpuNs) {
            text += ", faster than the fastest GPU run (" + gpu->displayName() + ", " +
                    formatDurationNs(gpuNs) + withItsCopies + predictedSuffix(*gpu->run) +
                    "): the data moves more than it is worked on";
        } else if (double(s.perRepetitionNs()) < 1.1 * double(gpuNs)) {
            text += ", about as fast as the fastest GPU run (" + gpu->displayName() + ", " +
                    formatDurationNs(gpuNs) + withItsCopies + predictedSuffix(*gpu->run) + ")";
        } else {
            text += ", " + formatRatio(double(s.perRepetitionNs()) / double(gpuNs)) +
                    "x slower than the fastest GPU run (" + gpu->displayName() + ", " +
                    formatDurationNs(gpuNs) + withItsCopies + predictedSuffix(*gpu->run) + ")";
        }
    } else {
        text += "; run GPU strategies of the same problem to compare";
    }
    // From the activities, so a trace recorded before runs carried this note warns as well.
    if (const std::string wait = hostThreadWaitNote(*subject.run); !wait.empty()) {
        text += "; " + wait;
    }
    return text;
}

} // namespace

std::int64_t RunSummary::perRepetitionNs() const {
    const std::int64_t reps = std::max<std::int64_t>(1, repeat);
    if (hasDeviceWork()) {
        // The strategy's full cost (host layout passes included); device work that overlapped
        // (several streams) counts once.
        return ((deviceBusyNs > 0 ? std::min(deviceBusyNs, deviceNs()) : deviceNs()) +
                hostLayoutNs) /
               reps;
    }
    if (hostComputeNs > 0) {
        return hostComputeNs / reps;
    }
    return (wallNs > 0 ? wallNs : spanNs) / reps;
}

double RunSummary::copyShare() const {
    return hasDeviceWork() ? double(copyNs()) / double(strategyNs()) : 0.0;
}

double RunSummary::kernelShare() const {
    return hasDeviceWork() ? double(kernelNs) / double(strategyNs()) : 0.0;
}

double RunSummary::hostLayoutShare() const {
    return hasDeviceWork() ? double(hostLayoutNs) / double(strategyNs()) : 0.0;
}

double RunSummary::overlapShare() const {
    const std::int64_t copies = htodNs + dtohNs;
    return copies > 0 ? std::clamp(double(copyHiddenNs) / double(copies), 0.0, 1.0) : 0.0;
}

std::int64_t RunSummary::pipelineBoundNs() const {
    return std::max({htodNs, dtohNs, kernelNs});
}

std::string_view RunSummary::pipelineLimiter() const {
    if (kernelNs >= htodNs && kernelNs >= dtohNs) {
        return "kernels";
    }
    return htodNs >= dtohNs ? "HtoD copies" : "DtoH copies";
}

namespace {

// The figures of a set of activities, one at a time: summarize() takes every measured one,
// repetitionTimesNs() one repetition's.
class SummaryBuilder {
  public:
    explicit SummaryBuilder(const Run& run) : run_(run) {}

    void add(const Activity& a) {
        const std::int64_t d = std::max<std::int64_t>(0, a.durationNs());
        switch (a.kind) {
        case ActivityKind::HtoD:
            htod_.emplace_back(a.startNs, a.endNs);
            s_.htodNs += d;
            s_.htodBytes += a.bytes;
            ++s_.copyCount;
            break;
        case ActivityKind::DtoH:
            dtoh_.emplace_back(a.startNs, a.endNs);
            s_.dtohNs += d;
            s_.dtohBytes += a.bytes;
            ++s_.copyCount;
            break;
        case ActivityKind::DtoD:
        case ActivityKind::HtoH:
            memsets_.emplace_back(a.startNs, a.endNs);
            s_.otherCopyNs += d;
            ++s_.copyCount;
            break;
        case ActivityKind::Kernel:
            kernels_.emplace_back(a.startNs, a.endNs);
            s_.kernelNs += d;
            ++s_.kernelCount;
            break;
        case ActivityKind::Memset:
            memsets_.emplace_back(a.startNs, a.endNs);
            s_.memsetNs += d;
            break;
        case ActivityKind::Api:
            s_.apiNs += d;
            break;
        case ActivityKind::Host:
            addHost(a, d);
            break;
        case ActivityKind::Sync:
        case ActivityKind::Overhead:
            break;
        }
        if (!any_ || a.startNs < first_) {
            first_ = a.startNs;
        }
        if (!any_ || a.endNs > last_) {
            last_ = a.endNs;
        }
        any_ = true;
    }

    // The figures, for `repeat` repetitions over a run of wallNs; once, at the end.
    RunSummary finish(std::uint32_t repeat, std::int64_t wallNs) {
        RunSummary s = s_;
        s.wallNs = wallNs;
        s.repeat = std::max<std::uint32_t>(1, repeat);
        s.warmup = run_.warmup;
        s.chunks = std::max<std::uint32_t>(1, run_.chunks);
        s.streams = std::max<std::uint32_t>(1, run_.streams);
        s.spanNs = any_ ? last_ - first_ : 0;
        const Intervals h = merged(std::move(htod_));
        const Intervals d = merged(std::move(dtoh_));
        const Intervals k = merged(std::move(kernels_));
        s.copyHiddenNs = intersection(h, joined(k, d)) + intersection(d, joined(k, h));
        s.deviceBusyNs = covered(joined(joined(h, d), joined(k, merged(std::move(memsets_)))));
        return s;
    }

    bool empty() const { return !any_; }

  private:
    void addHost(const Activity& a, std::int64_t d) {
        // The CPU backend names its compute spans "compute" (thread 0) and "compute: thread k"
        // (worker threads, which overlap thread 0's span).
        if (a.threadId != 0) {
            return;
        }
        const std::string_view name = run_.name(a);
        if (name.starts_with("compute")) {
            s_.hostComputeNs += d;
        } else if (name.starts_with("layout")) {
            // The GPU backend's transposes ("layout: discount to C x R x N").
            s_.hostLayoutNs += d;
        } else if (name.starts_with("materialize")) {
            // Expanded inputs ("materialize multBy to R x C x N").
            s_.hostLayoutNs += d;
            s_.hostExpandNs += d;
        }
    }

    const Run& run_;
    RunSummary s_;
    std::int64_t first_ = 0, last_ = 0;
    bool any_ = false;
    Intervals htod_, dtoh_, kernels_, memsets_; // DtoD and HtoH copies go with the memsets
};

} // namespace

RunSummary summarize(const Run& run) {
    SummaryBuilder builder(run);
    for (const Activity& a : run.activities) {
        if (!a.warmup) { // warming the caches, the pool and the first launch: not a repetition
            builder.add(a);
        }
    }
    return builder.finish(run.repeat, run.wallNs);
}

std::vector<std::int64_t> repetitionTimesNs(const Run& run) {
    if (run.repeat < 2) {
        return {};
    }
    std::vector<SummaryBuilder> repetitions(run.repeat, SummaryBuilder(run));
    for (const Activity& a : run.activities) {
        if (!a.warmup && a.iteration < repetitions.size()) {
            repetitions[a.iteration].add(a);
        }
    }
    std::vector<std::int64_t> times;
    for (auto& repetition : repetitions) {
        if (repetition.empty()) {
            return {}; // activities without their repetition's number: no spread to tell
        }
        times.push_back(repetition.finish(1, 0).perRepetitionNs());
    }
    return times;
}

std::string hostOf(const Run& run) {
    return run.mode == RunMode::MeasuredCpu ? run.device.name : std::string();
}

bool comparable(const SummarizedRun& a, const SummarizedRun& b) {
    if (a.run == nullptr || b.run == nullptr || !sameProblem(*a.run, *b.run) ||
        a.batch != b.batch) {
        return false;
    }
    const std::string hostA = hostOf(*a.run);
    const std::string hostB = hostOf(*b.run);
    return hostA.empty() || hostB.empty() || hostA == hostB;
}

std::string verdict(const SummarizedRun& subject, std::span<const SummarizedRun> all) {
    if (subject.run == nullptr) {
        return {};
    }
    const Run& run = *subject.run;
    std::string text;
    if (run.verification && !run.verification->passed) {
        char error[64];
        std::snprintf(error, sizeof error, "%.3g", run.verification->maxAbsError);
        text = "the output is WRONG (largest error " + std::string(error) +
               "): do not trust these times; ";
    }
    if (isGpuRun(run, subject.summary)) {
        text += gpuVerdict(subject, all) + pipelineWords(run, subject.summary);
    } else if (isCpuRun(run)) {
        text += cpuVerdict(subject, all);
    } else if (run.activities.empty()) {
        text += "no activities were recorded";
    } else {
        text += "no copies or kernels were recorded; the host took " +
                formatDurationNs(subject.summary.spanNs);
    }
    if (run.mode == RunMode::Modelled) {
        text = "modelled for " +
               (run.device.name.empty() ? std::string("a GPU") : run.device.name) + ": " + text;
    }
    if (run.mode == RunMode::Projected) {
        text = "projected onto the " +
               (run.device.name.empty() ? std::string("GPU") : run.device.name) +
               (run.projection ? " from " + run.projection->sourceRun + " measured on the " +
                                     run.projection->sourceDevice
                               : std::string()) +
               ": " + text;
    }
    return text;
}

std::vector<std::string> verdicts(std::span<const SummarizedRun> all) {
    // A verdict names at most the fastest comparable run of the other kind (fastest(): a GPU
    // run's CPU rival, a CPU run's GPU rival). Comparable runs share a problem and a batch; the
    // host rule of comparable() never parts a CPU run from a GPU run (a GPU run has no host), so
    // within one group of problem and batch the fastest CPU run and the fastest GPU run, the first
    // of their time as fastest() finds them, are all a verdict needs.
    const auto key = [&all](std::size_t i) {
        const Run* run = all[i].run;
        const bool has = run != nullptr && run->problem.has_value();
        const problem::Problem p = has ? *run->problem : problem::Problem{};
        return std::make_tuple(has, p.shape.r, p.shape.c, p.shape.n, int(p.dtype), p.workPerElement,
                               std::string_view(all[i].batch));
    };
    std::vector<std::size_t> order(all.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        order[i] = i;
    }
    // Stable: within a group the runs stay in the order of `all`.
    std::stable_sort(order.begin(), order.end(),
                     [&key](std::size_t a, std::size_t b) { return key(a) < key(b); });
    // Runs without a problem compare with nothing: each is a group of its own.
    const auto sameGroup = [&key](std::size_t a, std::size_t b) {
        return std::get<0>(key(a)) && key(a) == key(b);
    };
    std::vector<std::string> out(all.size());
    std::vector<SummarizedRun> rivals;
    for (std::size_t begin = 0; begin < order.size();) {
        std::size_t end = begin + 1;
        while (end < order.size() && sameGroup(order[begin], order[end])) {
            ++end;
        }
        // In the order of `all`, as fastest() looks: of equal times the first wins.
        const SummarizedRun* cpu = nullptr;
        const SummarizedRun* gpu = nullptr;
        for (std::size_t k = begin; k < end && std::get<0>(key(order[begin])); ++k) {
            const SummarizedRun& r = all[order[k]];
            const std::int64_t ns = r.summary.perRepetitionNs();
            const SummarizedRun** best = isCpuRun(*r.run)              ? &cpu
                                         : isGpuRun(*r.run, r.summary) ? &gpu
                                                                       : nullptr;
            if (best != nullptr && ns > 0 &&
                (*best == nullptr || ns < (*best)->summary.perRepetitionNs())) {
                *best = &r;
            }
        }
        rivals.clear();
        for (const SummarizedRun* r : {cpu, gpu}) {
            if (r != nullptr) {
                rivals.push_back(*r);
            }
        }
        for (std::size_t k = begin; k < end; ++k) {
            out[order[k]] = verdict(all[order[k]], rivals);
        }
        begin = end;
    }
    return out;
}

namespace {

std::optional<occupancy::Limiter> perSmLimiter(std::string_view text) {
    for (auto limiter : {occupancy::Limiter::Warps, occupancy::Limiter::Blocks,
                         occupancy::Limiter::Registers, occupancy::Limiter::SharedMemory}) {
        if (occupancy::toString(limiter) == text) {
            return limiter;
        }
    }
    return std::nullopt;
}

// The per-SM figures launchOccupancy needs, rebuilt from what a trace stores; nullopt where the
// launch, the device or the per-SM limiter is unknown.
std::optional<occupancy::OccupancyResult> perSmOf(const Run& run) {
    const auto& occupancy = *run.occupancy;
    const std::uint64_t blockThreads =
        std::uint64_t(run.launch->block.x) * run.launch->block.y * run.launch->block.z;
    const std::uint32_t warpSize = run.device.warpSize ? run.device.warpSize : 32;
    const std::uint32_t maxWarpsPerSm =
        run.device.maxWarpsPerSm ? run.device.maxWarpsPerSm : run.device.maxThreadsPerSm / warpSize;
    const auto limiter = perSmLimiter(occupancy.limiter);
    if (blockThreads == 0 || maxWarpsPerSm == 0 || !limiter) {
        return std::nullopt;
    }
    occupancy::OccupancyResult perSm;
    perSm.warpsPerBlock = std::uint32_t((blockThreads + warpSize - 1) / warpSize);
    perSm.maxWarpsPerSm = maxWarpsPerSm;
    perSm.limiter = *limiter;
    perSm.occupancy = occupancy.theoretical;
    // Older traces may leave active_blocks_per_sm out: the theoretical occupancy gives it back.
    perSm.activeBlocksPerSm = occupancy.activeBlocksPerSm
                                  ? occupancy.activeBlocksPerSm
                                  : std::uint32_t(std::lround(occupancy.theoretical *
                                                              maxWarpsPerSm / perSm.warpsPerBlock));
    return perSm;
}

} // namespace

std::optional<LaunchOccupancyFacts> launchOccupancyOf(const Run& run) {
    if (!run.occupancy) {
        return std::nullopt;
    }
    std::optional<LaunchOccupancyFacts> facts;
    const auto perSm = run.launch && run.device.smCount
                           ? perSmOf(run)
                           : std::optional<occupancy::OccupancyResult>();
    if (perSm) {
        const Dim3& grid = run.launch->grid;
        const auto launch = occupancy::launchOccupancy(
            *perSm, std::uint64_t(grid.x) * grid.y * grid.z, run.device.smCount);
        facts = LaunchOccupancyFacts{
            launch.occupancy, std::string(occupancy::toString(launch.limiter)), launch.explanation};
    }
    // What the trace states wins over what is derived from it.
    if (run.occupancy->launchOccupancy && !run.occupancy->launchLimiter.empty()) {
        if (!facts) {
            facts = LaunchOccupancyFacts{};
        }
        facts->occupancy = *run.occupancy->launchOccupancy;
        facts->limiter = run.occupancy->launchLimiter;
    }
    return facts;
}

std::optional<OccupancyInfo> occupancyWithLaunch(const Run& run) {
    auto occupancy = run.occupancy;
    if (auto launch = launchOccupancyOf(run)) {
        occupancy->launchOccupancy = launch->occupancy;
        occupancy->launchLimiter = launch->limiter;
    }
    return occupancy;
}

std::string describeLaunch(const Run& run) {
    if (!run.launch) {
        return {};
    }
    const LaunchInfo& l = *run.launch;
    const std::uint64_t blocks = l.grid.count();
    const std::uint64_t threadsPerBlock = l.block.count();
    const std::uint64_t launched = blocks * threadsPerBlock;
    const std::uint64_t busy = std::min(l.workers, launched);
    std::string text = launchBlocksWords(blocks, threadsPerBlock) + "; ";
    if (busy == launched && launched > 1) {
        text += "all " + formatCount(busy) + " threads work";
    } else {
        text += formatCount(busy) + (busy == 1 ? " thread works" : " threads work");
    }
    const std::uint32_t sms = run.device.smCount;
    if (sms > 0) {
        const std::uint64_t used = std::min<std::uint64_t>(blocks, sms);
        const std::uint64_t idle = sms - used;
        text += "; ";
        text +=
            idle == 0 ? "no SM idle" : formatCount(idle) + " of " + formatCount(sms) + " SMs idle";
    }
    return text;
}

std::string formatDurationNs(std::int64_t ns) {
    const double v = double(ns);
    const double a = std::fabs(v);
    char text[48];
    auto three = [&text](double value, const char* unit) {
        const double m = std::fabs(value);
        std::snprintf(text, sizeof text,
                      m >= 100  ? "%.0f %s"
                      : m >= 10 ? "%.1f %s"
                                : "%.2f %s",
                      value, unit);
    };
    if (a < 1e3) {
        std::snprintf(text, sizeof text, "%lld ns", static_cast<long long>(ns));
    } else if (a < 1e6) {
        three(v / 1e3, "\xC2\xB5s");
    } else if (a < 1e9) {
        three(v / 1e6, "ms");
    } else {
        three(v / 1e9, "s");
    }
    return text;
}

std::string formatCount(std::uint64_t count) {
    std::string digits = std::to_string(count);
    std::string out;
    const std::size_t n = digits.size();
    for (std::size_t i = 0; i < n; ++i) {
        out += digits[i];
        const std::size_t left = n - i - 1;
        if (left > 0 && left % 3 == 0) {
            out += ',';
        }
    }
    return out;
}

std::string formatPercent(double fraction) {
    const double pct = fraction * 100.0;
    char text[32];
    if (pct == 0) {
        return "0 %";
    }
    if (pct >= 10 && (pct < 99.5 || pct >= 100)) {
        std::snprintf(text, sizeof text, "%.0f %%", pct);
    } else if (pct >= 1) {
        // Floor, not round: 99.96 % must not read as 100 %.
        std::snprintf(text, sizeof text, "%.1f %%", std::floor(pct * 10) / 10);
    } else {
        std::snprintf(text, sizeof text, "%.2g %%", pct);
    }
    return text;
}

std::string formatBytes(std::uint64_t bytes) {
    const double v = double(bytes);
    char text[32];
    if (bytes < 1024) {
        std::snprintf(text, sizeof text, "%llu B", static_cast<unsigned long long>(bytes));
    } else if (v < 1024.0 * 1024) {
        std::snprintf(text, sizeof text, "%.1f KiB", v / 1024);
    } else if (v < 1024.0 * 1024 * 1024) {
        std::snprintf(text, sizeof text, "%.1f MiB", v / (1024.0 * 1024));
    } else {
        std::snprintf(text, sizeof text, "%.2f GiB", v / (1024.0 * 1024 * 1024));
    }
    return text;
}

} // namespace slicescope::trace
