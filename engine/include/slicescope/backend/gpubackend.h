#pragma once

#include "slicescope/backend/runrequest.h"
#include "slicescope/device/devicespec.h"
#include "slicescope/trace/trace.h"

#include <functional>
#include <string>
#include <vector>

namespace slicescope::backend {

// True when this build has the CUDA backend compiled in.
bool gpuBackendBuilt();

// The CUDA devices present; empty with no driver or no device. `why` says why none.
struct DetectedDevices {
    std::vector<device::DeviceSpec> devices;
    std::string why; // empty when devices were found
};
DetectedDevices detectDevices();

// Runs GPU strategies on a real device under CUPTI, in one process session (one context, one
// CUPTI subscription). One result per strategy, in order: one failing strategy does not lose the
// others. Without the CUDA backend or a device, every result is an Error::Code::Unsupported
// error that says which. Strategies that could not start after a kernel fault are
// Error::Code::DeviceFault errors here; the overload below says which they are.
std::vector<Result<trace::Run>> runGpu(const std::vector<strategy::StrategyId>& ids,
                                       const RunRequest& request, const Progress& progress = {});

// Faults a test can ask for (docs/gpu-backend.md, "Faults"): the first strategy's kernel is
// replaced by one that traps (a sticky error that poisons the process's CUDA context) or spins past
// the timeout.
enum class TestFault { None, Trap, Spin };

struct GpuOptions {
    // A kernel or copy still running after this long is reported as hung; 0 waits forever.
    double kernelTimeoutS = 60;
    // Collect CUPTI activity records. Off only to measure CUPTI's own cost: such runs carry
    // host activities alone, and say so in a note.
    bool cupti = true;
    TestFault testFault = TestFault::None; // tests only
};

struct GpuResults {
    std::vector<Result<trace::Run>> runs; // one per strategy, in order
    // Strategies not started because an earlier kernel fault left this process's CUDA context
    // unusable; a fresh process can run them.
    std::vector<strategy::StrategyId> notStarted;
    // A kernel did not finish within the timeout and still occupies the device. The process
    // must end without CUDA's exit-time cleanup (std::_Exit), which would wait for the kernel;
    // the driver then tears the context down.
    bool deviceHung = false;
};

GpuResults runGpu(const std::vector<strategy::StrategyId>& ids, const RunRequest& request,
                  const GpuOptions& options, const Progress& progress = {});

// Runs the GPU strategies at each request in turn (the points of a sweep) in one session: one
// context and one CUPTI subscription for every point. onPoint(i, results) gets point i's results
// as soon as they are done and returns false to stop there (a cancelled sweep); progressFor(i)
// gives point i's progress. After a kernel fault or a hang no later point starts: the result of
// the point that failed says why (its notStarted and deviceHung as runGpu sets them). Returns
// whether the device hung (the caller must then end the process with std::_Exit).
bool runGpuPoints(const std::vector<strategy::StrategyId>& ids,
                  const std::vector<RunRequest>& requests, const GpuOptions& options,
                  const std::function<Progress(std::size_t point)>& progressFor,
                  const std::function<bool(std::size_t point, GpuResults&& results)>& onPoint);

} // namespace slicescope::backend
