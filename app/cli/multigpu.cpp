#include "multigpu.h"

#include "gpuworker.h"
#include "slicescope/backend/gpubackend.h"
#include "slicescope/sweep/deviceplan.h"

#include <algorithm>
#include <thread>

namespace slicescope::cli {

namespace {

using strategy::StrategyId;

std::string joinValues(const std::vector<std::string>& values) {
    std::string list;
    for (const auto& v : values) {
        list += (list.empty() ? "" : ",") + v;
    }
    return list;
}

// A worker's results (one a strategy of ids), tagged with its device: runs carry the index,
// errors say the device after the strategy's name, which engine errors lead with ("slice-2d on
// device 1 cannot run: ..."), or first ("device 1: the GPU worker ended ...").
void tagWithDevice(std::vector<Result<trace::Run>>& results, const std::vector<StrategyId>& ids,
                   int device) {
    for (std::size_t k = 0; k < results.size(); ++k) {
        auto& result = results[k];
        if (result) {
            result->deviceIndex = std::uint32_t(device);
            continue;
        }
        std::string& message = result.error().message;
        const std::string name = k < ids.size() ? std::string(strategy::toString(ids[k])) : "";
        if (!name.empty() && message.rfind(name + " ", 0) == 0) {
            message.insert(name.size(), " on device " + std::to_string(device));
        } else {
            message = "device " + std::to_string(device) + ": " + message;
        }
    }
}

// Runs body(d) for every device on a thread of its own and waits for all. Each thread reads its
// worker's pipe; the worker itself is a process, so a device's fault or hang holds only its
// thread. A worker started from a thread is sent SIGTERM if that thread ends first
// (PR_SET_PDEATHSIG follows the thread): each thread waits for its worker (runWorker), except
// for one held by a hung kernel, which gets that SIGTERM a little earlier than it would at exit.
template <typename Body> void onEveryDevice(std::size_t devices, Body body) {
    std::vector<std::thread> threads;
    threads.reserve(devices);
    for (std::size_t d = 0; d < devices; ++d) {
        threads.emplace_back([&body, d] { body(d); });
    }
    for (auto& thread : threads) {
        thread.join();
    }
}

} // namespace

Result<std::vector<int>> resolveDevices(const std::string& list, std::int64_t testPresent) {
    if (testPresent >= 0) {
        return sweep::parseDeviceList(list, std::size_t(testPresent));
    }
    const auto detected = backend::detectDevices();
    return sweep::parseDeviceList(list, detected.devices.size(), detected.why);
}

std::vector<std::vector<Result<trace::Run>>> runGpuOnDevices(const RunOptions& o,
                                                             const std::vector<StrategyId>& ids,
                                                             const std::vector<int>& devices) {
    std::vector<std::vector<Result<trace::Run>>> results(devices.size());
    onEveryDevice(std::min(devices.size(), kMaxWorkers), [&](std::size_t d) {
        RunOptions worker = o;
        worker.device = devices[d];
        results[d] = runGpuInWorker(worker, ids, WorkerHooks{d, {}});
        tagWithDevice(results[d], ids, devices[d]);
    });
    return results;
}

std::vector<std::vector<Result<trace::Run>>>
runGpuSweepOnDevices(const RunOptions& o, const std::vector<StrategyId>& ids,
                     const std::vector<std::string>& values, std::size_t sweepRuns,
                     const std::vector<int>& devices) {
    const auto shares = sweep::planDevices(
        values.size(),
        std::vector<int>(devices.begin(),
                         devices.begin() + std::ptrdiff_t(std::min(devices.size(), kMaxWorkers))));
    using Row = std::vector<Result<trace::Run>>;
    std::vector<std::vector<Row>> parts(shares.size());
    // Each worker's GPU runs done, for the whole sweep's progress (read and written under the
    // workers' output lock: WorkerHooks::adjustProgress).
    std::vector<double> runsDone(shares.size(), 0.0);
    onEveryDevice(shares.size(), [&](std::size_t d) {
        const auto& share = shares[d];
        RunOptions worker = o;
        worker.device = share.device;
        worker.sweepValues = joinValues(sweep::shareValues(share, values));
        WorkerHooks hooks;
        hooks.slot = d;
        hooks.adjustProgress = [&, d](core::RunProgressLine& line) {
            runsDone[d] = line.sweep.runsDone;
            if (line.sweep.point < share.points.size()) {
                line.sweep.point = share.points[line.sweep.point];
            }
            line.sweep.points = values.size();
            line.sweep.runsDone = 0;
            for (const double done : runsDone) {
                line.sweep.runsDone += done;
            }
            line.sweep.runs = sweepRuns;
        };
        parts[d] = runGpuSweepInWorker(worker, ids, share.points.size(), sweepRuns, hooks);
        for (auto& row : parts[d]) {
            tagWithDevice(row, ids, share.device);
        }
    });
    const Row notRun(ids.size(), fail(Error::Code::DeviceFault,
                                      "no GPU worker reported this point (--devices)"));
    return sweep::mergeByPoint(shares, std::move(parts), values.size(), notRun);
}

} // namespace slicescope::cli
