#pragma once

// `run --devices` and `sweep --devices`: several GPUs of one host at once, one GPU worker process
// a device (gpuworker.h), each started with its own --device. The plan (which points each device
// measures) and the merge back into one sweep are pure engine functions
// (slicescope/sweep/deviceplan.h); this file starts and reads the workers. docs/cli.md ("Several
// GPUs") says what is proven and what is not.

#include "runoptions.h"
#include "slicescope/core/result.h"
#include "slicescope/strategy/strategy.h"
#include "slicescope/trace/trace.h"

#include <string>
#include <vector>

namespace slicescope::cli {

// The devices `--devices LIST|all` names, checked against the CUDA devices of this machine
// (sweep::parseDeviceList's refusals: unknown or repeated index, no GPU at all). The parent asks
// the driver how many devices there are (cudaGetDeviceCount, no context); the workers make
// every context. testPresent >= 0 (hidden --test-devices-present, tests only) stands for that
// many devices, so that the workers' plumbing runs on a machine without a GPU: each worker then
// fails at once, saying why, on its device.
Result<std::vector<int>> resolveDevices(const std::string& list, std::int64_t testPresent);

// `--device` and `--devices` together are refused: one names a device (or a preset), the other
// several.
inline constexpr const char* kDeviceAndDevices =
    "--devices and --device cannot be given together: --devices names every GPU to use (a "
    "preset cannot be spread over GPUs)";

// `run --devices`: every GPU strategy on every device, side by side, each device's worker
// started at once. results[d][k]: strategy ids[k] on devices[d]; each run is tagged with its
// device (Run::deviceIndex) and an error says which device it came from.
std::vector<std::vector<Result<trace::Run>>>
runGpuOnDevices(const RunOptions& o, const std::vector<strategy::StrategyId>& ids,
                const std::vector<int>& devices);

// `sweep --devices`: the points dealt over the devices (sweep::planDevices), one worker a
// device measuring every GPU strategy at each of its points, all at once; an interrupt reaches
// every worker (interruptWorkers). results[point][strategy] in the sweep's order, as one worker
// on one GPU returns them (runGpuSweepInWorker): runs tagged with their device, a point no worker
// reached holding errors. o.sweepParam and o.sweepValues are the whole sweep's; sweepRuns as for
// runGpuSweepInWorker.
std::vector<std::vector<Result<trace::Run>>>
runGpuSweepOnDevices(const RunOptions& o, const std::vector<strategy::StrategyId>& ids,
                     const std::vector<std::string>& values, std::size_t sweepRuns,
                     const std::vector<int>& devices);

} // namespace slicescope::cli
