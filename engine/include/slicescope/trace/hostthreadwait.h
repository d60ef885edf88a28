#pragma once

#include "slicescope/trace/trace.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

// Whether a multi-threaded host compute (cpu-parallel) mostly waited for its threads. Each
// measured repetition of cpu-parallel is one OpenMP region, logged on host thread 0 as
// "compute (all threads)", and each thread that computed slices in it logs its busy span,
// "compute: thread T, S slices" (first slice start to last slice end, threadId T + 1). The region
// closes when its last thread reaches the closing barrier, so a thread kept off its core by the
// OS or a hypervisor holds the region open while every thread's own work stays short. At the seed
// shape on a VM with steal time the regions took 4-10 ms while every thread worked 0.36-0.44 ms;
// on the same machine, quiet, regions took 0.25-0.5 ms. The per-repetition figure
// (runsummary.h) is the region's time, so such a run reports waiting as the CPU's speed.
namespace slicescope::trace {

struct HostThreadWait {
    // Measured (non-warm-up) repetitions that had a region and at least one thread span in it.
    std::size_t repetitions = 0;
    // Means over those repetitions, as the per-repetition figure (RunSummary::perRepetitionNs) is
    // the mean of the regions: the region's time, and the busy span of its busiest thread.
    std::int64_t regionNs = 0;
    std::int64_t busiestThreadNs = 0;
    // The largest, over the repetitions, of: the latest first-slice start of a thread after its
    // region opened (a thread started late), and the region's end after its last slice ended (a
    // thread with no slice left still had to reach the closing barrier).
    std::int64_t lateStartNs = 0;
    std::int64_t lateCloseNs = 0;

    // Whether the threads mostly waited: the region took at least twice its busiest thread's
    // span, and at least 0.5 ms more.
    bool waited() const;
};

// A thread's wait counts when the region lasts at least this many times its busiest thread's
// span: then more than half of the figure is waiting, not working (a busiest span that is long
// because its thread was descheduled in the middle makes the ratio smaller, never larger).
inline constexpr std::int64_t kThreadWaitRatio = 2;
// ... and at least this much longer, so that the microseconds an OpenMP pool takes to wake its
// threads at a region of a few microseconds never count: a thread that lost its core to another
// task waits for a scheduler time slice (milliseconds), and the quiet seed regions above
// (0.25-0.5 ms, work 0.3-0.4 ms) stay below it.
inline constexpr std::int64_t kThreadWaitMinNs = 500'000;

// The figures of a run measured on the CPU whose host compute logged thread spans (cpu-parallel);
// nullopt for any other run (cpu-serial, GPU, modelled or recorded runs, a run with no thread
// spans or with only warm-up repetitions). Thread spans are matched to the region that contains
// them in time.
std::optional<HostThreadWait> measureHostThreadWait(const Run& run);

// The warning in plain words, with its figures, e.g. "host threads waited: the parallel compute
// took 5.1 ms a repetition while its busiest thread worked 0.42 ms; ..."; empty when the threads
// did not wait (HostThreadWait::waited) or the run has no thread spans.
std::string describeHostThreadWait(const HostThreadWait& wait);
std::string hostThreadWaitNote(const Run& run);

} // namespace slicescope::trace
