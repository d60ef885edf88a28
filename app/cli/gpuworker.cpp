#include "gpuworker.h"

#include "clioutput.h"
#include "slicescope/backend/ceilingsprobe.h"
#include "slicescope/core/progressline.h"
#include "slicescope/record/childprocess.h"
#include "slicescope/sweep/sweepplan.h"
#include "slicescope/trace/tracejson.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <tuple>
#include <unistd.h>

namespace slicescope::cli {

namespace {

using strategy::StrategyId;

// The workers running now, one slot each (WorkerHooks::slot): a SIGINT reaches every one.
std::array<std::atomic<pid_t>, kMaxWorkers> gWorkerPids{};
static_assert(std::atomic<pid_t>::is_always_lock_free); // read in a signal handler
// Set by interruptWorkers: a worker registered after the signal (one of several starting at once)
// is interrupted as soon as it is, rather than measuring its whole share.
std::atomic<bool> gInterruptAll{false};
static_assert(std::atomic<bool>::is_always_lock_free);
// Workers read on several threads at once (--devices) print whole lines, one at a time.
std::mutex gOutput;
volatile std::sig_atomic_t gWorkerInterrupted = 0;

void onWorkerInterrupt(int) {
    gWorkerInterrupted = 1;
}

std::string joinStrategies(const std::vector<StrategyId>& ids) {
    std::string list;
    for (auto id : ids) {
        list += (list.empty() ? "" : ",") + std::string(strategy::toString(id));
    }
    return list;
}

std::filesystem::path temporaryTrace(const std::string& what) {
    std::error_code ec;
    return std::filesystem::temp_directory_path(ec) /
           ("slicescope-" + what + "-" + std::to_string(::getpid()) + ".json");
}

// Starts this program with args; its stdout goes to stdoutFd when that is >= 0. The caller
// reaps it, except a worker held by a hung kernel, which is never waited for. The worker gets
// SIGTERM when this process ends however it ends (the GUI's Cancel kills the CLI): a worker left
// behind would hold the GPU while the next run measures.
Result<pid_t> spawnSelf(std::vector<std::string> args, int stdoutFd) {
    record::ChildSpec spec;
    spec.argv = std::move(args);
    spec.program = "/proc/self/exe";
    spec.stdoutFd = stdoutFd;
    spec.endWithParent = true;
    auto child = record::ChildProcess::start(spec);
    if (!child) {
        return fail(Error::Code::Internal,
                    "could not start slicescope-cli: " + child.error().message);
    }
    return child->release();
}

// Strategies a kernel fault kept from running, in a fresh `slicescope-cli run`.
Result<std::vector<trace::Run>> runInFreshProcess(const RunOptions& o,
                                                  const std::vector<StrategyId>& ids) {
    const auto output = temporaryTrace("rerun");
    auto child = spawnSelf(childRunArguments(o, joinStrategies(ids), output.string()), -1);
    if (!child) {
        return tl::unexpected(child.error());
    }
    int status = 0;
    while (::waitpid(*child, &status, 0) < 0 && errno == EINTR) {
    }
    auto trace = trace::readTrace(output);
    std::error_code ec;
    std::filesystem::remove(output, ec);
    if (!trace) {
        return fail(Error::Code::DeviceFault,
                    "the fresh process wrote no runs (exit status " +
                        std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                        "): " + trace.error().message);
    }
    for (auto& run : trace->runs) {
        run.notes.push_back(
            "run in a fresh process: an earlier kernel fault had made this process's CUDA "
            "context unusable");
    }
    return std::move(trace->runs);
}

// Waits up to limit for the child to end; false if it is still running then.
bool reapWithin(pid_t child, std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    int status = 0;
    while (true) {
        const pid_t done = waitpid(child, &status, WNOHANG);
        if (done == child || (done < 0 && errno != EINTR)) {
            return true;
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

} // namespace

std::vector<std::string> childRunArguments(const RunOptions& o, const std::string& strategies,
                                           const std::string& output) {
    std::vector<std::string> args{"slicescope-cli",
                                  "run",
                                  "--shape",
                                  o.shape,
                                  "--dtype",
                                  o.dtype,
                                  "--work",
                                  std::to_string(o.work),
                                  "--strategy",
                                  strategies,
                                  "--block",
                                  o.block,
                                  "--memory",
                                  o.memory,
                                  "--repeat",
                                  std::to_string(o.repeat),
                                  "--warmup",
                                  std::to_string(o.warmup),
                                  "--chunks",
                                  std::to_string(o.chunks),
                                  "--streams",
                                  std::to_string(o.streams),
                                  "--device",
                                  std::to_string(o.device),
                                  "--kernel-timeout",
                                  std::to_string(o.kernelTimeoutS),
                                  "-q",
                                  "-o",
                                  output};
    for (const auto& [on, flag] :
         {std::pair{o.counters, "--counters"}, std::pair{o.sampleOccupancy, "--sample-occupancy"},
          std::pair{o.noCupti, "--no-cupti"}, std::pair{o.progress, "--progress"},
          std::pair{o.roofline, "--roofline"}}) {
        if (on) {
            args.emplace_back(flag);
        }
    }
    if (!o.sweepParam.empty()) {
        args.insert(args.end(), {"--sweep-param", o.sweepParam, "--sweep-values", o.sweepValues});
    }
    return args;
}

backend::GpuResults runGpuHere(const RunOptions& o, const std::vector<StrategyId>& ids,
                               const backend::RunRequest& request) {
    backend::Progress progress;
    if (o.progress) {
        // The backend reports the fraction of the whole batch; a line says which strategy of
        // the batch it is at and how far that one is.
        progress.report = [count = ids.size()](std::string_view stage, double batchFraction) {
            const double runs = batchFraction * double(count);
            const auto index = std::min<std::size_t>(count - 1, std::size_t(std::max(0.0, runs)));
            printProgress(true, "gpu", index, count, stage, runs - double(index));
        };
    }
    backend::GpuOptions options;
    options.kernelTimeoutS = o.kernelTimeoutS;
    options.cupti = !o.noCupti;
    options.testFault = o.testFault == "trap"   ? backend::TestFault::Trap
                        : o.testFault == "spin" ? backend::TestFault::Spin
                                                : backend::TestFault::None;
    auto gpu = backend::runGpu(ids, request, options, progress);
    if (!gpu.notStarted.empty() && !gpu.deviceHung) {
        auto rerun = runInFreshProcess(o, gpu.notStarted);
        if (!rerun) {
            printWarning(rerun.error().message);
        } else {
            for (auto& run : *rerun) {
                auto id = strategy::parseStrategy(run.strategy);
                for (std::size_t k = 0; id && k < ids.size() && k < gpu.runs.size(); ++k) {
                    if (ids[k] == *id && !gpu.runs[k]) {
                        gpu.runs[k] = std::move(run);
                        break;
                    }
                }
            }
        }
    }
    return gpu;
}

int runGpuWorker(const RunOptions& o) {
    int status = kExitOk;
    // The parent validated the options already; parse them the same way, with the same function
    // (a field set by hand here was once forgotten: --warmup).
    auto parsed = parseRunOptions(o);
    // Measured once, before any run's CUPTI collection starts.
    std::optional<trace::Ceilings> ceilings;
    if (parsed && o.roofline) {
        auto measured = backend::measureCeilings(o.device);
        if (measured) {
            ceilings = *measured;
        } else {
            printWarning("roofline ceilings not measured: " + measured.error().message);
        }
    }
    if (parsed && !o.sweepParam.empty()) {
        // A sweep: every point in one session (one CUDA context). SIGINT or SIGTERM ends the
        // sweep after the point in progress; the points done are reported as usual. SIGTERM too:
        // a signal to the whole process group (a terminal's, or `timeout`'s) reaches the worker
        // directly, and its default action would lose every point finished.
        struct sigaction action {};
        action.sa_handler = onWorkerInterrupt;
        action.sa_flags = SA_RESTART; // a write to the parent's pipe is not cut short
        sigemptyset(&action.sa_mask);
        ::sigaction(SIGINT, &action, nullptr);
        ::sigaction(SIGTERM, &action, nullptr);
        const auto param = sweep::parseSweepParam(o.sweepParam);
        const auto values = param ? sweep::parseValues(*param, o.sweepValues)
                                  : Result<std::vector<std::string>>(tl::unexpected(param.error()));
        if (!values) {
            status = reportError(values.error());
        }
        std::vector<backend::RunRequest> requests;
        for (const auto& value : values ? *values : std::vector<std::string>{}) {
            auto request = sweep::applyValue(*param, value, parsed->request);
            if (!request) {
                status = reportError(request.error());
                requests.clear();
                break;
            }
            requests.push_back(*request);
        }
        const auto& ids = parsed->strategies;
        backend::GpuOptions options;
        options.kernelTimeoutS = o.kernelTimeoutS;
        options.cupti = !o.noCupti;
        trace::Trace trace;
        trace.generator = "slicescope-cli 0.1.0";
        (void)backend::runGpuPoints( // a hung device needs nothing more: this process _Exits
            ids, requests, options,
            [&](std::size_t point) {
                backend::Progress progress;
                if (o.progress) {
                    progress.report = [&, point](std::string_view stage, double fraction) {
                        // The batch at a point is ids.size() runs of the sweep's.
                        const double batch = double(ids.size());
                        printSweepProgress(true,
                                           {point, values->size(), o.sweepParam, (*values)[point],
                                            (double(point) + fraction) * batch,
                                            values->size() * ids.size()},
                                           "gpu", 0, ids.size(), stage, fraction);
                    };
                }
                return progress;
            },
            [&](std::size_t point, backend::GpuResults&& gpu) {
                for (std::size_t k = 0; k < gpu.runs.size() && k < ids.size(); ++k) {
                    if (gpu.runs[k]) {
                        auto& run = *gpu.runs[k];
                        // Unique per point: the CLI reads this file back, and a trace refuses
                        // two runs of one id.
                        run.id = sweep::pointRunId(run.strategy, o.sweepParam, (*values)[point]);
                        run.sweep =
                            trace::SweepPoint{o.sweepParam, (*values)[point], std::uint32_t(point)};
                        run.ceilings = ceilings;
                        trace.runs.push_back(std::move(run));
                        continue;
                    }
                    status = kExitFailure;
                    const nlohmann::json error = {{"strategy", strategy::toString(ids[k])},
                                                  {"point", point},
                                                  {"code", int(gpu.runs[k].error().code)},
                                                  {"message", gpu.runs[k].error().message}};
                    std::cout << "worker-error " << error.dump() << '\n';
                }
                return gWorkerInterrupted == 0;
            });
        if (auto written = trace::writeTrace(trace, o.output); !written) {
            status = reportError(written.error());
        }
    } else if (!parsed) {
        status = reportError(parsed.error());
    } else {
        const auto& ids = parsed->strategies;
        auto gpu = runGpuHere(o, ids, parsed->request);
        for (auto& run : gpu.runs) {
            if (run && ceilings) {
                run->ceilings = ceilings;
            }
        }
        trace::Trace trace;
        trace.generator = "slicescope-cli 0.1.0";
        for (std::size_t k = 0; k < gpu.runs.size() && k < ids.size(); ++k) {
            if (gpu.runs[k]) {
                trace.runs.push_back(std::move(*gpu.runs[k]));
                continue;
            }
            status = kExitFailure;
            const nlohmann::json error = {{"strategy", strategy::toString(ids[k])},
                                          {"code", int(gpu.runs[k].error().code)},
                                          {"message", gpu.runs[k].error().message}};
            std::cout << "worker-error " << error.dump() << '\n';
        }
        if (auto written = trace::writeTrace(trace, o.output); !written) {
            status = reportError(written.error());
        }
    }
    std::cout << "worker-done " << status << std::endl;
    // Nothing may wait on this process from here: a hung kernel can hold its exit for as long as
    // the driver takes to tear the context down.
    std::fflush(nullptr);
    const int devNull = ::open("/dev/null", O_RDWR);
    if (devNull >= 0) {
        ::dup2(devNull, STDOUT_FILENO);
        ::dup2(devNull, STDERR_FILENO);
    }
    // Every run's session is closed (CUPTI flushed, buffers freed) and the trace is written: what
    // is left is the CUDA runtime's exit-time teardown of the context, which the parent waits for
    // before it measures the CPU strategies (it reaps this process first, so that no teardown
    // competes with them for a core). The driver frees the context when the process ends
    // whichever way it ends, so skip the runtime's: with a hung kernel it would wait for the
    // kernel, and otherwise it costs every measured `run` its time (docs/performance.md).
    std::_Exit(status);
}

void interruptWorkers() {
    gInterruptAll.store(true);
    for (auto& pid : gWorkerPids) {
        if (const pid_t worker = pid.load(); worker > 0) {
            ::kill(worker, SIGINT); // it finishes its point and reports the points done
        }
    }
}

namespace {

// One worker for every point: results[point][strategy]. sweepRuns: see runGpuSweepInWorker.
std::vector<std::vector<Result<trace::Run>>> runWorker(const RunOptions& o,
                                                       const std::vector<StrategyId>& ids,
                                                       std::size_t points, std::size_t sweepRuns,
                                                       const WorkerHooks& hooks) {
    std::vector<std::vector<Result<trace::Run>>> grid(
        points, std::vector<Result<trace::Run>>(
                    ids.size(), fail(Error::Code::DeviceFault,
                                     "the GPU worker ended before it reported this strategy")));
    int pipeFds[2];
    if (::pipe2(pipeFds, O_CLOEXEC) != 0) {
        for (auto& results : grid) {
            results.assign(ids.size(), fail(Error::Code::Internal,
                                            std::string("pipe: ") + std::strerror(errno)));
        }
        return grid;
    }
    // One file a device: workers of several devices run at once (--devices).
    const auto output = temporaryTrace("gpu" + std::to_string(o.device));
    auto args = childRunArguments(o, joinStrategies(ids), output.string());
    args.emplace_back("--gpu-worker");
    if (!o.testFault.empty()) {
        args.insert(args.end(), {"--test-fault", o.testFault});
    }
    auto child = spawnSelf(std::move(args), pipeFds[1]);
    ::close(pipeFds[1]);
    if (!child) {
        ::close(pipeFds[0]);
        for (auto& results : grid) {
            results.assign(ids.size(), tl::unexpected(child.error()));
        }
        return grid;
    }
    std::atomic<pid_t>& slot = gWorkerPids[hooks.slot % kMaxWorkers];
    slot = *child;
    if (gInterruptAll.load()) {
        ::kill(*child, SIGINT); // the interrupt came while this worker was starting
    }

    std::optional<int> workerStatus;
    std::vector<std::tuple<std::string, std::size_t, Error>> errors;
    if (FILE* in = ::fdopen(pipeFds[0], "r")) {
        char* line = nullptr;
        std::size_t capacity = 0;
        ssize_t length = 0;
        while ((length = ::getline(&line, &capacity, in)) > 0) {
            std::string_view text(line, std::size_t(length));
            if (text.ends_with('\n')) {
                text.remove_suffix(1);
            }
            const std::lock_guard lock(gOutput);
            if (core::isProgressLine(text)) {
                auto progress = core::parseRunProgressLine(text);
                if (o.progress && progress && progress->sweep.runs > 0 && hooks.adjustProgress) {
                    hooks.adjustProgress(*progress); // one of several workers: the whole sweep's
                    std::cout << core::formatProgressLine(*progress) << std::endl;
                } else if (o.progress && progress && progress->sweep.runs > 0 && sweepRuns > 0) {
                    // The worker counts the GPU runs only; they come first in the sweep.
                    progress->sweep.runs = sweepRuns;
                    std::cout << core::formatProgressLine(*progress) << std::endl;
                } else if (o.progress) {
                    std::cout << text << std::endl;
                }
            } else if (text.starts_with("worker-error ")) {
                const auto j = nlohmann::json::parse(text.substr(13), nullptr, false);
                if (j.is_object() && j.contains("strategy") && j.contains("code") &&
                    j.contains("message")) {
                    const std::size_t point = j.contains("point") && j["point"].is_number_unsigned()
                                                  ? j["point"].get<std::size_t>()
                                                  : 0;
                    errors.emplace_back(
                        j["strategy"].get<std::string>(), point,
                        Error{Error::Code(j["code"].get<int>()), j["message"].get<std::string>()});
                }
            } else if (text.starts_with("worker-done ")) {
                workerStatus = std::atoi(std::string(text.substr(12)).c_str());
            } else {
                std::cout << text << '\n'; // anything else the worker printed
            }
        }
        std::free(line);
        std::fclose(in);
    } else {
        ::close(pipeFds[0]);
    }
    slot = 0;
    // The worker has said all it will. One still alive now is held by the driver (a hung
    // kernel): leave it to end on its own rather than wait for it.
    if (!reapWithin(*child, std::chrono::milliseconds(workerStatus ? 2000 : 10000))) {
        printWarning(
            "the GPU worker (pid " + std::to_string(*child) +
            ") is still ending: a kernel that did not finish holds it until the driver tears "
            "its context down");
    }

    std::error_code ec;
    auto trace =
        std::filesystem::exists(output, ec) ? trace::readTrace(output) : Result<trace::Trace>{};
    std::filesystem::remove(output, ec);
    if (trace) {
        for (auto& run : trace->runs) {
            const std::size_t point = run.sweep ? run.sweep->index : 0;
            for (std::size_t k = 0; point < points && k < ids.size(); ++k) {
                if (run.strategy == strategy::toString(ids[k]) && !grid[point][k]) {
                    grid[point][k] = std::move(run);
                    break;
                }
            }
        }
    }
    for (auto& [name, point, error] : errors) {
        for (std::size_t k = 0; point < points && k < ids.size(); ++k) {
            if (name == strategy::toString(ids[k])) {
                grid[point][k] = tl::unexpected(error);
            }
        }
    }
    if (!workerStatus) {
        for (auto& results : grid) {
            for (auto& r : results) {
                if (!r) {
                    r = fail(Error::Code::DeviceFault,
                             "the GPU worker ended without reporting (it crashed or was killed)");
                }
            }
        }
    }
    return grid;
}

} // namespace

std::vector<Result<trace::Run>>
runGpuInWorker(const RunOptions& o, const std::vector<StrategyId>& ids, const WorkerHooks& hooks) {
    return std::move(runWorker(o, ids, 1, 0, hooks).front());
}

std::vector<std::vector<Result<trace::Run>>>
runGpuSweepInWorker(const RunOptions& o, const std::vector<StrategyId>& ids, std::size_t points,
                    std::size_t sweepRuns, const WorkerHooks& hooks) {
    return runWorker(o, ids, points, sweepRuns, hooks);
}

} // namespace slicescope::cli
