#pragma once

#include "slicescope/trace/trace.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

// What a run spent its time on, and a verdict in plain words: the analysis the CLI and the GUI
// both show under a run.
namespace slicescope::trace {

// Time per kind of work, summed over all measured repetitions of the run. Warm-up activities
// (Activity::warmup) are left out of every figure.
struct RunSummary {
    std::int64_t wallNs = 0; // host wall time of the whole run (Run::wallNs)
    std::int64_t spanNs = 0; // first activity start to last activity end
    std::int64_t htodNs = 0;
    std::int64_t dtohNs = 0;
    std::int64_t otherCopyNs = 0; // DtoD and HtoH copies
    std::int64_t kernelNs = 0;
    std::int64_t memsetNs = 0;
    std::int64_t apiNs = 0;
    std::int64_t hostComputeNs = 0; // host compute on the main host thread (CPU strategies)
    // Host passes a strategy needs besides the computation: transposes to another layout and
    // materialised (expanded) inputs, on the main host thread ("layout: ...", "materialize ...").
    std::int64_t hostLayoutNs = 0;
    std::int64_t hostExpandNs = 0; // the part of hostLayoutNs that expands inputs ("materialize")
    std::uint64_t htodBytes = 0;
    std::uint64_t dtohBytes = 0;
    std::size_t kernelCount = 0;
    std::size_t copyCount = 0;
    std::uint32_t repeat = 1;
    std::uint32_t warmup = 0; // warm-up iterations the run ran first (Run::warmup), not counted
    // Pipelines (strategy/pipeline.h): the run's chunks and streams, the time the device had any
    // copy, kernel or memset running (overlapping work counted once), and the HtoD and DtoH time
    // that ran while a kernel or a copy of the other direction ran.
    std::uint32_t chunks = 1;
    std::uint32_t streams = 1;
    std::int64_t deviceBusyNs = 0;
    std::int64_t copyHiddenNs = 0;

    std::int64_t copyNs() const { return htodNs + dtohNs + otherCopyNs; }
    // Copies, kernels and memsets: the device's work, serial on one stream.
    std::int64_t deviceNs() const { return copyNs() + kernelNs + memsetNs; }
    bool hasDeviceWork() const { return deviceNs() > 0; }
    // A GPU strategy's full cost: its device work and the host layout passes it needs (the
    // transposes of slice-middle, the expanded multBy of elementwise-materialized), which run in
    // every repetition as the seed's fix needed them.
    std::int64_t strategyNs() const { return deviceNs() + hostLayoutNs; }
    // The figure runs of one problem are compared by, per repetition: the strategy's full cost
    // (copies and host layout passes included, as the seed's gufunc call included them) for GPU
    // runs, host compute for CPU runs.
    std::int64_t perRepetitionNs() const;
    // Shares of the strategy's full cost, 0..1 (0 without device work).
    double copyShare() const;
    double kernelShare() const;
    double hostLayoutShare() const;
    // The share of HtoD and DtoH time hidden behind other work, 0..1 (0 without copies).
    double overlapShare() const;
    // A pipeline can go no faster than its busiest engine: the longest of total HtoD, total DtoH
    // and total kernel time.
    std::int64_t pipelineBoundNs() const;
    // Which one that is: "HtoD copies", "DtoH copies" or "kernels".
    std::string_view pipelineLimiter() const;
};

RunSummary summarize(const Run& run);

// Each measured repetition's time, the figure perRepetitionNs() averages (the strategy's full cost
// for GPU runs, host compute for CPU runs), from the activities of that repetition alone
// (Activity::iteration). Empty for a run of one repetition, or one whose activities do not say
// which repetition they belong to (a repetition without any). Their spread is the run's noise
// (sweep/crossover.h).
std::vector<std::int64_t> repetitionTimesNs(const Run& run);

struct SummarizedRun {
    const Run* run = nullptr;
    RunSummary summary;
    // The batch the run came in with: the runs measured, modelled or recorded together (one trace
    // file or one run request). Only runs of one batch are compared; runs of one file of
    // slicescope-cli all have the same (empty) batch.
    std::string batch;
    // The name the verdict gives the run when it compares with it; empty: the run's id.
    std::string name;

    const std::string& displayName() const { return name.empty() ? run->id : name; }
};

// The host a CPU run ran on (its device name, the host CPU); empty for other runs, whose host the
// trace does not record.
std::string hostOf(const Run& run);

// Whether a verdict may compare `a` with `b`: the same problem, the same batch, and, for CPU
// runs, the same host. A run modelled for one GPU is never set against a CPU of another trace.
bool comparable(const SummarizedRun& a, const SummarizedRun& b);

// A verdict on `subject` in plain words. Comparable runs in `all` (the subject may be among them)
// give the CPU-versus-GPU comparison and are named, e.g. "copies take 97 % of the run: at this
// arithmetic intensity (0.05 flop/byte) the CPU wins (cpu-parallel 6.1 ms against 13.2 ms here);
// raise work per element to see the GPU pull ahead". Modelled and projected runs say so first. A
// CPU run whose threads mostly waited ends with that warning (hostthreadwait.h), worked out from
// its activities.
std::string verdict(const SummarizedRun& subject, std::span<const SummarizedRun> all);
// verdict(all[i], all) for every run of `all`, in O(n log n) instead of n calls of O(n): the runs
// are grouped by problem and batch, and each verdict is given only the fastest CPU run and the
// fastest GPU run of its group, the only runs a verdict names. 100,000 runs of one problem took
// 43 s one by one.
std::vector<std::string> verdicts(std::span<const SummarizedRun> all);

// A GPU launch in plain words, from the run's launch geometry and device:
// "one block of 64 threads; 1 thread works; 131 of 132 SMs idle". Empty without a launch.
std::string describeLaunch(const Run& run);

// The launch's own occupancy of the whole GPU (occupancy/launchoccupancy.h), beside CUDA's
// theoretical occupancy, which is a per-SM limit. The seed's one-worker (1 block of 64 threads on
// 132 SMs): per-SM limit 100 %, launch occupancy 0.024 %, limited by the grid.
struct LaunchOccupancyFacts {
    double occupancy = 0;    // 0..1
    std::string limiter;     // "grid", "warps", "blocks", "registers", "shared-memory"
    std::string explanation; // plain words; empty when the launch geometry is unknown
};

// The run's launch occupancy: the stored "launch_occupancy" and "launch_limiter" where the trace
// has them, otherwise derived from the run's launch (grid and block), its per-SM occupancy and
// its device's SM count. Absent for runs without occupancy facts, or without the launch and
// device figures to derive them from. Every reader and the trace writer go through it.
std::optional<LaunchOccupancyFacts> launchOccupancyOf(const Run& run);
// The run's occupancy facts with the launch occupancy filled in where launchOccupancyOf knows it.
std::optional<OccupancyInfo> occupancyWithLaunch(const Run& run);

// Formatting shared by the verdicts and the GUI: "6.1 ms", "2,000,000", "97 %".
std::string formatDurationNs(std::int64_t ns);
std::string formatCount(std::uint64_t count);
std::string formatPercent(double fraction);
std::string formatBytes(std::uint64_t bytes);

} // namespace slicescope::trace
