#pragma once

// GPU strategies run in a worker process, a `slicescope-cli run --gpu-worker` child. A kernel fault
// poisons a CUDA context for good, and a kernel that never ends holds its process at exit until
// the driver tears the context down: in a worker, either costs that process only. The parent
// never touches CUDA, so it reports, writes the trace and exits on time whatever the GPU does.
//
// The worker speaks to its parent on stdout, one line each:
//   progress {json}        forwarded by the parent when it was asked for progress
//   worker-error {json}    a strategy that failed: {"strategy", "code", "message"}, and in a
//                          sweep "point" (the index of the value it failed at)
//   worker-done N          the worker's exit status; its runs are in the trace file it was given
// and closes stdout and stderr before it exits, so nothing waits for a process the driver holds.

#include "runoptions.h"
#include "slicescope/backend/gpubackend.h"
#include "slicescope/core/progressline.h"

#include <functional>
#include <sys/types.h>
#include <vector>

namespace slicescope::cli {

// The most workers that run at once (one a device with --devices).
inline constexpr std::size_t kMaxWorkers = 64;

// A worker among several running at once, one a GPU (multigpu.h); the defaults suit the one
// worker of a one-GPU run or sweep.
struct WorkerHooks {
    // Its place in the table of workers an interrupt reaches (interruptWorkers), below
    // kMaxWorkers; each worker running at once needs its own.
    std::size_t slot = 0;
    // A sweep's progress line from this worker, rewritten for the whole sweep before it is
    // printed (the worker numbers its own points and runs). Called on the reading thread, with
    // the output lock held: one call at a time over all the workers.
    std::function<void(core::RunProgressLine&)> adjustProgress;
};

// Parent side: runs the GPU strategies in a worker on device o.device; one result per
// strategy, in order.
std::vector<Result<trace::Run>> runGpuInWorker(const RunOptions& o,
                                               const std::vector<strategy::StrategyId>& ids,
                                               const WorkerHooks& hooks = {});

// Parent side of a sweep: one worker, one CUDA context, every point (o.sweepParam at each of
// o.sweepValues). results[point][strategy]; a point the worker did not reach (interrupted, or
// stopped by a fault) holds errors. Its runs carry their sweep point. While it runs, a SIGINT
// to this process is passed on to the worker (interruptWorkers), which finishes its point and
// reports the points done. sweepRuns: the runs of the whole sweep, CPU strategies' too, which
// the forwarded progress lines count towards (the worker counts its own only; its runs come first).
// Several may run at once on threads of their own, each with its own hooks.slot and o.device.
std::vector<std::vector<Result<trace::Run>>>
runGpuSweepInWorker(const RunOptions& o, const std::vector<strategy::StrategyId>& ids,
                    std::size_t points, std::size_t sweepRuns, const WorkerHooks& hooks = {});

// Passes SIGINT on to every worker running now; async-signal-safe, for a signal handler.
void interruptWorkers();

// Worker side: the body of `run --gpu-worker`.
int runGpuWorker(const RunOptions& o);

// Runs the GPU strategies in this process (the worker's work; also used without a CUDA backend,
// where every strategy fails at once saying why). Strategies that a kernel fault kept from
// running are re-run in a fresh child process.
backend::GpuResults runGpuHere(const RunOptions& o, const std::vector<strategy::StrategyId>& ids,
                               const backend::RunRequest& request);

} // namespace slicescope::cli
