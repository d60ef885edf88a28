// `sweep` (one parameter over many values, every strategy at each, with crossovers) and
// `roofline` (the roofline with the copies, from a trace).
#include "clioutput.h"
#include "commands.h"
#include "gpuworker.h"
#include "multigpu.h"
#include "runoptions.h"
#include "slicescope/backend/cpubackend.h"
#include "slicescope/backend/gpubackend.h"
#include "slicescope/backend/modelbackend.h"
#include "slicescope/launch/slurmjob.h"
#include "slicescope/sweep/crossover.h"
#include "slicescope/sweep/roofline.h"
#include "slicescope/sweep/sweepplan.h"
#include "slicescope/trace/atomicfile.h"
#include "slicescope/trace/runsummary.h"
#include "slicescope/trace/tracejson.h"
#include "slurmlauncher.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <signal.h>
#include <unistd.h>

namespace slicescope::cli {

namespace {

using strategy::StrategyId;

volatile std::sig_atomic_t gInterrupted = 0;
// The CPU run in progress stops at once on an interrupt (a lock-free atomic is safe to set from a
// signal handler); a run stopped so is dropped, never reported as a failure.
std::atomic<bool> gCancelRun{false};
static_assert(std::atomic<bool>::is_always_lock_free);

void onInterrupt(int) {
    gInterrupted = 1;
    gCancelRun.store(true, std::memory_order_relaxed);
    interruptWorkers(); // each finishes its point and reports the points done
}

struct SweepOptions {
    RunOptions run;
    std::string param;
    std::string values;
    std::string range;
    std::string device;                   // a CUDA ordinal (measured) or a preset (modelled)
    std::string testSignal = "interrupt"; // hidden, tests only: "interrupt", "terminate", "hangup"
    // Where the points run: "local" (this process) or "slurm" (a job array, docs/remote.md).
    std::string launcher = "local";
    std::string partition;         // slurm: empty for the cluster's default
    std::int64_t gpusPerTask = -1; // slurm: -1 for 1 when a GPU strategy is measured, else 0
    std::int64_t maxTasks = 0;     // slurm: 0 for one task a point
    std::string timeLimit;         // slurm: empty for the partition's default
    std::string slurmDir;          // slurm: the work folder; empty for OUTPUT.slurm
};

struct Plan {
    sweep::SweepParam param;
    std::vector<std::string> values;
    std::vector<StrategyId> strategies;
    std::vector<backend::RunRequest> requests; // one per value
    std::optional<device::DeviceSpec> preset;  // modelled
    std::vector<int> devices;                  // --devices: the GPUs the points are spread over
};

Result<Plan> makePlan(SweepOptions& s) {
    RunOptions& o = s.run;
    Plan plan;
    auto param = sweep::parseSweepParam(s.param);
    if (!param) {
        return tl::unexpected(param.error());
    }
    plan.param = *param;
    if (s.values.empty() == s.range.empty()) {
        return fail(Error::Code::InvalidArgument,
                    "give the sweep's values with either --values or --range");
    }
    auto values = s.values.empty() ? sweep::parseRange(*param, s.range)
                                   : sweep::parseValues(*param, s.values);
    if (!values) {
        return tl::unexpected(values.error());
    }
    plan.values = *values;
    const bool digits =
        !s.device.empty() && s.device.find_first_not_of("0123456789") == std::string::npos;
    if (!s.device.empty() && !digits) {
        auto preset = device::findPreset(s.device);
        if (!preset) {
            return tl::unexpected(preset.error());
        }
        plan.preset = *preset;
    } else if (digits) {
        o.device = std::stoi(s.device.substr(0, 9));
    }
    // With a preset, 'all' means the GPU strategies (modelled); a CPU strategy named beside them
    // is measured here, as the GUI's Run panel mixes them.
    auto strategies = strategy::parseStrategyList(plan.preset ? modelledStrategyList(o.strategies)
                                                              : o.strategies);
    if (!strategies) {
        return tl::unexpected(strategies.error());
    }
    plan.strategies = *strategies;
    const bool anyGpu =
        std::any_of(plan.strategies.begin(), plan.strategies.end(), strategy::isGpu);
    if (plan.param == sweep::SweepParam::Block && !anyGpu) {
        return fail(Error::Code::InvalidArgument,
                    "--param block needs a GPU strategy: the CPU strategies have no block size");
    }
    if (plan.param == sweep::SweepParam::Memory && !anyGpu) {
        return fail(Error::Code::InvalidArgument,
                    "--param memory needs a GPU strategy: the CPU strategies make no copies");
    }
    auto parsed = parseRequest(o);
    if (!parsed) {
        return tl::unexpected(parsed.error());
    }
    const backend::RunRequest& base = *parsed;
    for (const auto& value : plan.values) {
        auto request = sweep::applyValue(plan.param, value, base);
        if (!request) {
            return tl::unexpected(request.error());
        }
        plan.requests.push_back(*request);
    }
    return plan;
}

std::string joinValues(const std::vector<std::string>& values) {
    std::string list;
    for (const auto& v : values) {
        list += (list.empty() ? "" : ",") + v;
    }
    return list;
}

// Ctrl+C, SIGTERM (the GUI's Cancel) and SIGHUP (a closed terminal): keep the points finished.
void keepFinishedPointsOnInterrupt() {
    struct sigaction action {};
    action.sa_handler = onInterrupt;
    action.sa_flags = SA_RESTART; // the worker's pipe keeps being read
    sigemptyset(&action.sa_mask);
    for (const int signal : {SIGINT, SIGTERM, SIGHUP}) {
        ::sigaction(signal, &action, nullptr);
    }
}

int testSignalNumber(const std::string& name) {
    return name == "terminate" ? SIGTERM : name == "hangup" ? SIGHUP : SIGINT;
}

// results[point][strategy]; a point not reached stays "not run".
using ResultGrid = std::vector<std::vector<std::optional<Result<trace::Run>>>>;

// Where the measured GPU strategies sit among the sweep's strategies (none with a preset: they are
// modelled).
struct GpuSlots {
    std::vector<StrategyId> ids;
    std::vector<std::size_t> slots; // index of ids[i] among the plan's strategies
};

GpuSlots gpuSlotsOf(const Plan& plan) {
    GpuSlots gpu;
    for (std::size_t k = 0; k < plan.strategies.size(); ++k) {
        if (strategy::isGpu(plan.strategies[k]) && !plan.preset) {
            gpu.ids.push_back(plan.strategies[k]);
            gpu.slots.push_back(k);
        }
    }
    return gpu;
}

// Measured GPU strategies: one worker for the whole sweep (one CUDA context).
void runGpuPoints(const RunOptions& o, const Plan& plan, const GpuSlots& gpu, ResultGrid& grid) {
    const std::size_t points = plan.values.size();
    RunOptions worker = o;
    worker.sweepParam = std::string(sweep::toString(plan.param));
    worker.sweepValues = joinValues(plan.values);
    if (backend::gpuBackendBuilt() || !plan.devices.empty()) {
        const std::size_t sweepRuns = points * plan.strategies.size();
        auto results =
            plan.devices.empty()
                ? runGpuSweepInWorker(worker, gpu.ids, points, sweepRuns)
                : runGpuSweepOnDevices(worker, gpu.ids, plan.values, sweepRuns, plan.devices);
        for (std::size_t p = 0; p < points && p < results.size(); ++p) {
            for (std::size_t k = 0; k < gpu.slots.size(); ++k) {
                if (results[p][k] || !gInterrupted) {
                    grid[p][gpu.slots[k]] = std::move(results[p][k]);
                }
            }
        }
        return;
    }
    for (std::size_t p = 0; p < points; ++p) {
        auto runs = runGpuHere(worker, gpu.ids, plan.requests[p]).runs;
        for (std::size_t k = 0; k < gpu.slots.size() && k < runs.size(); ++k) {
            grid[p][gpu.slots[k]] = std::move(runs[k]);
        }
    }
}

// CPU strategies (measured, with a preset too) and modelled runs, point by point; an interrupt
// stops after the run in progress. Their progress counts on from the GPU runs, all done by now: the
// sweep's runs_done.
void runHostPoints(const SweepOptions& s, const Plan& plan, const GpuSlots& gpu, ResultGrid& grid) {
    const RunOptions& o = s.run;
    const auto& ids = plan.strategies;
    const std::size_t points = plan.values.size();
    const std::size_t cpuCount = ids.size() - gpu.ids.size();
    std::vector<std::size_t> cpuOrdinal(ids.size(), 0); // which of the CPU strategies ids[k] is
    for (std::size_t k = 0, c = 0; k < ids.size(); ++k) {
        cpuOrdinal[k] = c;
        if (std::find(gpu.slots.begin(), gpu.slots.end(), k) == gpu.slots.end()) {
            ++c;
        }
    }
    const std::string param(sweep::toString(plan.param));
    for (std::size_t p = 0; p < points && !gInterrupted; ++p) {
        for (std::size_t k = 0; k < ids.size() && !gInterrupted; ++k) {
            if (grid[p][k]) {
                continue;
            }
            const std::string name(strategy::toString(ids[k]));
            backend::Progress progress;
            progress.cancel = &gCancelRun;
            if (o.progress) {
                progress.report = [&, p, k](std::string_view stage, double fraction) {
                    const double runsDone =
                        double(points * gpu.ids.size() + p * cpuCount + cpuOrdinal[k]) + fraction;
                    printSweepProgress(
                        true, {p, points, param, plan.values[p], runsDone, points * ids.size()},
                        name, k, ids.size(), stage, fraction);
                };
            }
            if (plan.preset && strategy::isGpu(ids[k])) {
                progress("model", 0.0);
                backend::RunRequest request = plan.requests[p];
                request.warmup = 0; // a modelled point has no cold start; measured ones warm up
                grid[p][k] = backend::modelRun(ids[k], request, *plan.preset);
            } else {
                grid[p][k] = backend::runCpu(ids[k], plan.requests[p], progress);
            }
            if (gInterrupted && !*grid[p][k]) {
                grid[p][k].reset(); // stopped by the interrupt: not a finished point
            }
        }
        if (o.testInterruptAfter > 0 && p + 1 == std::size_t(o.testInterruptAfter)) {
            ::raise(testSignalNumber(s.testSignal));
        }
    }
}

struct SweepTrace {
    trace::Trace trace;
    int failures = 0;                 // runs that failed or did not verify, each reported on stderr
    std::vector<std::string> verdict; // sweep::judgeSweep's lines
};

// One trace: the runs point by point, each with its sweep point; the crossovers on top.
SweepTrace assembleTrace(const RunOptions& o, const Plan& plan, ResultGrid& grid) {
    const auto& ids = plan.strategies;
    const std::size_t points = plan.values.size();
    const std::string param(sweep::toString(plan.param));
    std::optional<trace::Ceilings> datasheet;
    if (plan.preset && o.roofline) {
        datasheet = sweep::datasheetCeilings(*plan.preset);
    }
    SweepTrace out;
    out.trace.generator = "slicescope-cli 0.1.0";
    std::vector<sweep::Series> series(ids.size());
    for (std::size_t k = 0; k < ids.size(); ++k) {
        series[k].strategy = std::string(strategy::toString(ids[k]));
        series[k].timesNs.assign(points, NAN);
        series[k].spreadNs.assign(points, NAN);
        series[k].modelled = plan.preset && strategy::isGpu(ids[k]);
    }
    bool complete = !gInterrupted;
    for (std::size_t p = 0; p < points; ++p) {
        for (std::size_t k = 0; k < ids.size(); ++k) {
            auto& slot = grid[p][k];
            if (!slot) {
                complete = false;
                continue;
            }
            if (!*slot) {
                reportError(Error{slot->error().code, param + " " + plan.values[p] + ": " +
                                                          series[k].strategy + ": " +
                                                          slot->error().message});
                ++out.failures;
                continue;
            }
            trace::Run run = std::move(**slot);
            run.id = sweep::pointRunId(series[k].strategy, param, plan.values[p]);
            run.sweep = trace::SweepPoint{param, plan.values[p], std::uint32_t(p)};
            if (datasheet && run.mode == trace::RunMode::Modelled) {
                run.ceilings = datasheet;
            }
            if (run.verification && !run.verification->passed) {
                reportError(Error{Error::Code::VerificationFailed,
                                  run.id + ": output differs from the CPU reference"});
                ++out.failures;
            }
            series[k].timesNs[p] = double(trace::summarize(run).perRepetitionNs());
            series[k].spreadNs[p] = sweep::repetitionSpreadNs(run);
            out.trace.runs.push_back(std::move(run));
        }
    }
    trace::Sweep& summary = out.trace.sweeps.emplace_back();
    summary.param = param;
    summary.values = plan.values;
    summary.scale = sweep::isNumeric(plan.param) ? "log" : "category";
    for (const auto& line : series) {
        summary.strategies.push_back(line.strategy);
    }
    summary.complete = complete;
    std::vector<const trace::Run*> runs;
    for (const auto& run : out.trace.runs) {
        runs.push_back(&run);
    }
    auto verdict = sweep::judgeSweep(param, plan.values, series, sweep::isNumeric(plan.param),
                                     sweep::sweepBasis(runs, backend::hostCpuName()));
    summary.crossovers = std::move(verdict.crossovers);
    out.verdict = std::move(verdict.lines);
    return out;
}

// Writes the trace (when a run succeeded) and says what the sweep found; the exit status.
int finishSweep(const RunOptions& o, const Plan& plan, const SweepTrace& result) {
    const trace::Trace& trace = result.trace;
    const trace::Sweep& summary = trace.sweeps.front();
    const std::size_t points = plan.values.size();
    const std::size_t strategies = plan.strategies.size();
    if (!trace.runs.empty()) {
        if (auto written = trace::writeTrace(trace, o.output); !written) {
            return reportError(written.error());
        }
    }
    if (!o.quiet) {
        for (const auto& run : trace.runs) {
            printRunSummary(run);
        }
        std::cout << "sweep of " << summary.param << " over " << points
                  << (points == 1 ? " point" : " points") << ", " << strategies
                  << (strategies == 1 ? " strategy" : " strategies") << '\n';
    }
    // The verdict (crossovers, or the strategy that wins) is the sweep's answer: printed even
    // with --quiet.
    for (const auto& line : result.verdict) {
        std::cout << line << '\n';
    }
    if (trace.runs.empty()) {
        std::cerr << "slicescope-cli: no run succeeded; " << o.output << " was not written\n";
    } else if (!o.quiet) {
        std::cout << "wrote " << trace.runs.size() << (trace.runs.size() == 1 ? " run" : " runs")
                  << " to " << o.output << '\n';
    }
    if (gInterrupted) {
        std::cerr << "slicescope-cli: interrupted: " << trace.runs.size()
                  << " runs of the points finished were kept\n";
        return kExitInterrupted;
    }
    if (result.failures > 0 || trace.runs.empty()) {
        std::cerr << "slicescope-cli: " << result.failures << " of " << points * strategies
                  << " runs failed\n";
        return kExitFailure;
    }
    return kExitOk;
}

// The arguments of the `slicescope-cli sweep` that runs points [slice.first, slice.end) of the
// plan, writing part: the same options, the slice's values. Each option and its value in one
// argument, so a value starting with '-' stays a value.
std::vector<std::string> taskArguments(const SweepOptions& s, const Plan& plan,
                                       launch::PointSlice slice,
                                       const std::filesystem::path& part) {
    const RunOptions& o = s.run;
    const std::vector<std::string> values(plan.values.begin() + std::ptrdiff_t(slice.first),
                                          plan.values.begin() + std::ptrdiff_t(slice.end));
    char timeout[32];
    std::snprintf(timeout, sizeof timeout, "%.17g", o.kernelTimeoutS);
    std::vector<std::string> args = {"sweep",
                                     "--param=" + std::string(sweep::toString(plan.param)),
                                     "--values=" + joinValues(values),
                                     "--shape=" + o.shape,
                                     "--dtype=" + o.dtype,
                                     "--work=" + std::to_string(o.work),
                                     "--strategy=" + o.strategies,
                                     "--block=" + o.block,
                                     "--memory=" + o.memory,
                                     "--repeat=" + std::to_string(o.repeat),
                                     "--warmup=" + std::to_string(o.warmup),
                                     "--kernel-timeout=" + std::string(timeout),
                                     "--output=" + part.string()};
    if (!s.device.empty()) {
        args.push_back("--device=" + s.device);
    }
    for (const auto& [flag, set] :
         {std::pair{"--counters", o.counters}, std::pair{"--sample-occupancy", o.sampleOccupancy},
          std::pair{"--roofline", o.roofline}}) {
        if (set) {
            args.emplace_back(flag);
        }
    }
    return args;
}

// A finished task's part: its runs placed at their points (a part's point indices count from
// its slice's first point). Runs that do not match the plan are left out, with a warning.
void placePart(const Plan& plan, launch::PointSlice slice, const trace::Trace& part,
               ResultGrid& grid) {
    for (const auto& run : part.runs) {
        const auto k =
            std::find_if(plan.strategies.begin(), plan.strategies.end(),
                         [&](StrategyId id) { return strategy::toString(id) == run.strategy; });
        const std::size_t p = slice.first + (run.sweep ? run.sweep->index : 0);
        if (!run.sweep || k == plan.strategies.end() || p >= slice.end ||
            run.sweep->value != plan.values[p]) {
            printWarning("a part holds run '" + run.id + "', which is no point of this sweep");
            continue;
        }
        grid[p][std::size_t(k - plan.strategies.begin())] = run;
    }
}

// A failed task by its index, its slice, how it ended and the last lines of its stderr.
void reportFailedTask(const Plan& plan, launch::PointSlice slice, std::size_t task,
                      const SlurmArrayRun& job, const std::filesystem::path& workDir) {
    const auto stderrFile = launch::taskStderrPath(workDir, task);
    std::cerr << "slicescope-cli: error: task " << task << " of job " << job.jobId << " ("
              << sweep::toString(plan.param) << " " << plan.values[slice.first] << " to "
              << plan.values[slice.end - 1] << ") failed: " << job.tasks[task].how
              << "; the end of " << stderrFile.string() << ":\n";
    const std::string tail = fileTail(stderrFile, 10);
    for (std::size_t at = 0; at < tail.size();) {
        const std::size_t end = tail.find('\n', at);
        std::cerr << "  | " << tail.substr(at, end - at) << '\n';
        at = end + 1;
    }
}

// The points spread over a Slurm job array: one task a slice, each a `slicescope-cli sweep`
// writing its part; the parts merged into the trace one process would have written.
int runSweepOnSlurm(const SweepOptions& s, const Plan& plan) {
    const auto slices = launch::slicePoints(plan.values.size(), std::size_t(s.maxTasks));
    launch::SlurmArraySpec spec;
    spec.workDir =
        std::filesystem::absolute(s.slurmDir.empty() ? s.run.output + ".slurm" : s.slurmDir);
    spec.script = spec.workDir / "sweep.sbatch";
    spec.tasks = slices.size();
    spec.partition = s.partition;
    spec.timeLimit = s.timeLimit;
    spec.gpusPerTask = int(s.gpusPerTask >= 0             ? s.gpusPerTask
                           : gpuSlotsOf(plan).ids.empty() ? 0
                                                          : 1);
    std::vector<std::vector<std::string>> arguments;
    for (std::size_t t = 0; t < slices.size(); ++t) {
        arguments.push_back(taskArguments(s, plan, slices[t], launch::partPath(spec.workDir, t)));
    }
    auto job = runSlurmArray(launch::SlurmCommands{}, spec, arguments, gCancelRun);
    if (!job) {
        return reportError(job.error());
    }
    ResultGrid grid(plan.values.size(),
                    std::vector<std::optional<Result<trace::Run>>>(plan.strategies.size()));
    std::size_t failed = 0;
    for (std::size_t t = 0; t < slices.size(); ++t) {
        const auto partFile = launch::partPath(spec.workDir, t);
        if (std::filesystem::exists(partFile)) {
            if (auto part = trace::readTrace(partFile)) {
                placePart(plan, slices[t], *part, grid);
            } else {
                reportError(part.error());
            }
        }
        if (job->tasks[t].succeeded || job->cancelled) {
            continue;
        }
        ++failed;
        reportFailedTask(plan, slices[t], t, *job, spec.workDir);
    }
    const int status = finishSweep(s.run, plan, assembleTrace(s.run, plan, grid));
    if (failed > 0) {
        std::cerr << "slicescope-cli: " << failed << " of " << slices.size()
                  << " Slurm tasks failed; their parts and logs are in " << spec.workDir.string()
                  << '\n';
        return status == kExitOk ? kExitFailure : status;
    }
    return status;
}

// The Slurm options say where the points run: without --launcher slurm they are a mistake.
Status checkLauncherOptions(const SweepOptions& s) {
    if (s.launcher == "slurm") {
        return {};
    }
    for (const auto& [name, given] :
         {std::pair{"--partition", !s.partition.empty()},
          std::pair{"--gpus-per-task", s.gpusPerTask >= 0},
          std::pair{"--max-tasks", s.maxTasks > 0}, std::pair{"--time", !s.timeLimit.empty()},
          std::pair{"--slurm-dir", !s.slurmDir.empty()}}) {
        if (given) {
            return fail(Error::Code::InvalidArgument,
                        std::string(name) + " needs --launcher slurm");
        }
    }
    return {};
}

// --devices: the GPUs of this host the GPU strategies' points are spread over (multigpu.h).
Status resolveDevicesOption(const SweepOptions& s, Plan& plan) {
    if (s.run.devices.empty()) {
        return {};
    }
    if (s.launcher == "slurm") {
        return fail(Error::Code::InvalidArgument,
                    "--devices spreads a sweep over the GPUs of this host; with --launcher slurm "
                    "each task asks for its GPUs (--gpus-per-task)");
    }
    if (gpuSlotsOf(plan).ids.empty()) {
        return fail(Error::Code::InvalidArgument,
                    "--devices needs a measured GPU strategy: the CPU strategies run on this "
                    "host's cores, not on a GPU");
    }
    auto devices = resolveDevices(s.run.devices, s.run.testDevicesPresent);
    if (!devices) {
        return tl::unexpected(devices.error());
    }
    plan.devices = std::move(*devices);
    return {};
}

int runSweep(SweepOptions& s) {
    if (auto checked = checkLauncherOptions(s); !checked) {
        return reportError(checked.error());
    }
    if (!s.run.devices.empty() && !s.device.empty()) {
        return reportUsageError(kDeviceAndDevices);
    }
    auto plan = makePlan(s);
    if (!plan) {
        return reportError(plan.error());
    }
    if (auto devices = resolveDevicesOption(s, *plan); !devices) {
        return reportError(devices.error());
    }
    keepFinishedPointsOnInterrupt();
    if (s.launcher == "slurm") {
        return runSweepOnSlurm(s, *plan);
    }
    ResultGrid grid(plan->values.size(),
                    std::vector<std::optional<Result<trace::Run>>>(plan->strategies.size()));
    const GpuSlots gpu = gpuSlotsOf(*plan);
    if (!gpu.ids.empty()) {
        runGpuPoints(s.run, *plan, gpu, grid);
    }
    runHostPoints(s, *plan, gpu, grid);
    return finishSweep(s.run, *plan, assembleTrace(s.run, *plan, grid));
}

std::string formatNumber(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.4g", value);
    return text;
}

int printRoofline(const std::string& path, bool csv) {
    auto trace = trace::readTrace(path);
    if (!trace) {
        return reportError(trace.error());
    }
    const char* header =
        csv ? "Run,Mode,Point,Intensity (flop/B),Achieved (Gflop/s),Attainable (Gflop/s),"
              "Roof (GB/s),Peak (Gflop/s),Ridge (flop/B),Bound,Ceilings\n"
            : "";
    std::cout << header;
    std::size_t placed = 0;
    for (const auto& run : trace->runs) {
        const std::optional<trace::Ceilings> ceilings = sweep::ceilingsOf(run);
        if (!ceilings) {
            continue;
        }
        auto roof = sweep::runRoofline(run, *ceilings);
        if (!roof) {
            continue;
        }
        ++placed;
        for (const auto& [label, point] :
             {std::pair{std::string("kernel (DRAM)"), roof->kernel},
              std::pair{"whole run (" + roof->hostLink + " link)", roof->wholeRun}}) {
            const std::string bound =
                point.bound == sweep::Bound::Compute ? "compute" : "bandwidth";
            if (csv) {
                std::cout << run.id << ',' << trace::toString(run.mode) << ',' << label << ','
                          << formatNumber(point.intensity) << ','
                          << formatNumber(point.achievedGflops) << ','
                          << formatNumber(point.attainableGflops) << ','
                          << formatNumber(point.bandwidthGBps) << ','
                          << formatNumber(point.peakGflops) << ','
                          << formatNumber(point.ridgeIntensity) << ',' << bound << ','
                          << roof->ceilingsSource << '\n';
            } else {
                std::cout << run.id << " [" << trace::toString(run.mode) << "] " << label << ": "
                          << formatNumber(point.intensity) << " flop/B, achieved "
                          << formatNumber(point.achievedGflops) << " Gflop/s of "
                          << formatNumber(point.attainableGflops) << " attainable under "
                          << formatNumber(point.bandwidthGBps) << " GB/s and "
                          << formatNumber(point.peakGflops) << " Gflop/s (" << bound
                          << "-bound; ridge at " << formatNumber(point.ridgeIntensity)
                          << " flop/B; " << roof->ceilingsSource << " ceilings)\n";
            }
        }
    }
    if (placed == 0) {
        std::cerr
            << "slicescope-cli: " << path
            << " has no GPU run with roofline ceilings (measure with 'run --roofline' or 'sweep "
               "--roofline', or model with a preset)\n";
        return kExitFailure;
    }
    return kExitOk;
}

} // namespace

void addSweepCommands(CLI::App& app, int& exitStatus) {
    auto s = std::make_shared<SweepOptions>();
    auto* cmd = app.add_subcommand(
        "sweep", "Run strategies over many values of one parameter (one GPU worker for the whole "
                 "sweep) and report where the fastest strategy changes");
    RunOptions& o = s->run;
    cmd->add_option("--param", s->param,
                    "The parameter to vary: block, rows, columns, n, work, dtype, memory")
        ->required();
    cmd->add_option("--values", s->values, "Comma-separated values, e.g. 32,64,128 or f64,f32");
    cmd->add_option(
        "--range", s->range,
        "START:STOP[:xFACTOR|:+STEP] for numeric parameters, e.g. 32:1024:x2 (default x2)");
    cmd->add_option("--shape", o.shape, "Array shape RxCxN, e.g. 100x4000x5 (the seed's)")
        ->required();
    cmd->add_option("--dtype", o.dtype, "Element type: f64 or f32")->capture_default_str();
    cmd->add_option("--work", o.work, "Work per element k >= 1")->capture_default_str();
    cmd->add_option("--strategy", o.strategies, "Comma-separated strategies, or 'all' (as for run)")
        ->required();
    cmd->add_option("--block", o.block, "Block size: numba, numba-cuda or 1..1024")
        ->capture_default_str();
    cmd->add_option("--memory", o.memory,
                    "Host memory for copies: pageable, pinned, managed, mapped")
        ->capture_default_str();
    cmd->add_option("--repeat", o.repeat, "Repetitions at each point")->capture_default_str();
    cmd->add_option("--warmup", o.warmup,
                    "Warm-up iterations before each measured point, not counted (as for run)")
        ->capture_default_str();
    cmd->add_option(
        "--device", s->device,
        "A CUDA device ordinal (measured, the default: 0) or a device preset, e.g. h200: the GPU "
        "strategies are modelled on it, CPU strategies still measured here");
    cmd->add_option("--devices", o.devices,
                    "Spread the GPU strategies' points over several GPUs of this host: 'all' or "
                    "CUDA device ordinals, e.g. 0,1; one worker a GPU, points dealt in turn, the "
                    "trace as one GPU writes it (each run says its device_index)");
    cmd->add_option("--test-devices-present", o.testDevicesPresent,
                    "Tests: pretend this many GPUs for --devices")
        ->group("");
    cmd->add_option("-o,--output", o.output, "Trace file to write (JSON)")->required();
    cmd->add_flag("--counters", o.counters, "Measure achieved occupancy with CUPTI counters");
    cmd->add_flag("--sample-occupancy", o.sampleOccupancy,
                  "Sample occupancy over time (CUPTI PM sampling)");
    cmd->add_flag(
        "--roofline", o.roofline,
        "Store roofline ceilings with the runs: measured once on the GPU, or the preset's "
        "datasheet figures");
    cmd->add_option("--kernel-timeout", o.kernelTimeoutS,
                    "Seconds a kernel or copy may run (0: no limit)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    cmd->add_flag("--progress", o.progress, "Print machine-readable progress lines on stdout");
    cmd->add_flag("-q,--quiet", o.quiet, "Print no run summaries (crossovers are still printed)");
    cmd->add_option("--launcher", s->launcher,
                    "Where the points run: local (this process) or slurm (one job array; "
                    "docs/remote.md)")
        ->check(CLI::IsMember({"local", "slurm"}))
        ->capture_default_str();
    cmd->add_option("--partition", s->partition, "Slurm: the partition (default: the cluster's)");
    cmd->add_option("--gpus-per-task", s->gpusPerTask,
                    "Slurm: GPUs each task asks for (default: 1 when a GPU strategy is "
                    "measured, else none)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--max-tasks", s->maxTasks,
                    "Slurm: the most array tasks; the points are cut into that many contiguous "
                    "slices (default: one task a point)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--time", s->timeLimit,
                    "Slurm: each task's time limit, as sbatch --time takes it (default: the "
                    "partition's)");
    cmd->add_option("--slurm-dir", s->slurmDir,
                    "Slurm: the work folder for the batch script, the parts and the tasks' logs, "
                    "on a file system the compute nodes share (default: OUTPUT.slurm; with "
                    "--host, a folder on that host)");
    cmd->add_option("--test-interrupt-after", o.testInterruptAfter, "Tests: SIGINT after N points")
        ->group("");
    cmd->add_option("--test-interrupt-signal", s->testSignal, "Tests: the signal to send")
        ->check(CLI::IsMember({"interrupt", "terminate", "hangup"}))
        ->group("");
    addRemoteOptions(cmd, o.remote);
    cmd->callback([s, cmd, &exitStatus] {
        exitStatus = s->run.remote.host.empty() ? runSweep(*s)
                                                : runOnHost(s->run.remote, *cmd, s->run.output);
    });

    auto path = std::make_shared<std::string>();
    auto csv = std::make_shared<bool>(false);
    auto* roof = app.add_subcommand(
        "roofline",
        "The roofline with the copies: each GPU run's kernel (flop per DRAM byte) and whole "
        "run (flop per byte over the host link) against the trace's ceilings");
    roof->add_option("trace", *path, "Trace file")->required();
    roof->add_flag("--csv", *csv, "Print CSV instead of sentences");
    roof->callback([path, csv, &exitStatus] { exitStatus = printRoofline(*path, *csv); });
}

} // namespace slicescope::cli
