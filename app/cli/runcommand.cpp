// `run` (measured runs) and `model` (modelled runs): the same problem and launch options.
#include <CLI/CLI.hpp>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "clioutput.h"
#include "commands.h"
#include "slicescope/backend/cpubackend.h"
#include "slicescope/backend/gpubackend.h"
#include "slicescope/backend/modelbackend.h"
#include "slicescope/trace/exporters.h"
#include "slicescope/trace/tracejson.h"

namespace slicescope::cli {

namespace {

using backend::RunRequest;
using strategy::StrategyId;

struct RunOptions {
    std::string shape;
    std::string dtype = "f64";
    std::int64_t work = 1;
    std::string strategies;
    std::string block = "numba";
    std::string memory = "pageable";
    std::int64_t repeat = 1;
    std::string output;
    bool printGpuTrace = false;
    bool counters = false;
    bool sampleOccupancy = false;
    int device = 0;
    bool progress = false;
    bool quiet = false;
    double kernelTimeoutS = 60;
    std::string testFault; // hidden, tests only: "trap" or "spin"
    bool noCupti = false;  // hidden, benchmarks only: measure without CUPTI
    std::string preset;    // model only
};

void addSharedOptions(CLI::App* cmd, RunOptions& o) {
    cmd->add_option("--shape", o.shape, "Array shape RxCxN, e.g. 100x4000x5 (the seed's)")
        ->required();
    cmd->add_option("--dtype", o.dtype, "Element type: f64 or f32")->capture_default_str();
    cmd->add_option("--work", o.work, "Work per element k >= 1 (dependent multiply-adds)")
        ->capture_default_str();
    cmd->add_option("--strategy", o.strategies,
                    "Comma-separated strategies, or 'all'. Known: one-worker, slice-outer, "
                    "slice-middle, slice-middle-strided, slice-2d, elementwise-materialized, "
                    "elementwise-broadcast, cpu-serial, cpu-parallel")
        ->required();
    cmd->add_option("--block", o.block,
                    "Block size: numba (64 threads, numba 0.38), numba-cuda (largest the kernel "
                    "allows) or 1..1024")
        ->capture_default_str();
    cmd->add_option("--memory", o.memory, "Host memory for copies: pageable, pinned, managed, mapped")
        ->capture_default_str();
    cmd->add_option("--repeat", o.repeat, "Repetitions of the copy/compute/copy sequence")
        ->capture_default_str();
    cmd->add_option("-o,--output", o.output, "Trace file to write (JSON)")->required();
    cmd->add_flag("--print-gpu-trace", o.printGpuTrace,
                  "Print an nvprof --print-gpu-trace style table of each run");
    cmd->add_flag("--progress", o.progress, "Print machine-readable progress lines on stdout");
    cmd->add_flag("-q,--quiet", o.quiet, "Print no run summaries");
}

struct Parsed {
    RunRequest request;
    std::vector<StrategyId> strategies;
};

Result<Parsed> parseOptions(const RunOptions& o) {
    auto shape = problem::parseShape(o.shape);
    if (!shape) {
        return tl::unexpected(shape.error());
    }
    auto dtype = problem::parseDtype(o.dtype);
    if (!dtype) {
        return tl::unexpected(dtype.error());
    }
    auto problem = problem::makeProblem(*shape, *dtype, o.work);
    if (!problem) {
        return tl::unexpected(problem.error());
    }
    auto strategies = strategy::parseStrategyList(o.strategies);
    if (!strategies) {
        return tl::unexpected(strategies.error());
    }
    auto block = strategy::parseBlockOption(o.block);
    if (!block) {
        return tl::unexpected(block.error());
    }
    auto memory = backend::parseMemoryMode(o.memory);
    if (!memory) {
        return tl::unexpected(memory.error());
    }
    if (o.repeat < 1 || o.repeat > 10000) {
        return fail(Error::Code::InvalidArgument,
                    "--repeat must be from 1 to 10000 (got " + std::to_string(o.repeat) + ")");
    }
    Parsed parsed;
    parsed.request.problem = *problem;
    parsed.request.block = *block;
    parsed.request.memory = *memory;
    parsed.request.repeat = std::uint32_t(o.repeat);
    parsed.request.counters = o.counters;
    parsed.request.sampleOccupancy = o.sampleOccupancy;
    parsed.request.deviceIndex = o.device;
    parsed.strategies = *strategies;
    return parsed;
}

// Writes the runs that succeeded, prints what the user asked for, and returns the exit status:
// 1 when any strategy failed or any run failed verification.
int finish(const RunOptions& o, const std::vector<StrategyId>& ids,
           std::vector<Result<trace::Run>>& results) {
    trace::Trace trace;
    trace.generator = "slicescope-cli 0.1.0";
    int failures = 0;
    for (std::size_t i = 0; i < results.size(); ++i) {
        if (!results[i]) {
            // Engine messages often start with the strategy's name already.
            const std::string name(strategy::toString(ids[i]));
            const std::string& message = results[i].error().message;
            reportError(Error{results[i].error().code,
                              message.rfind(name, 0) == 0 ? message : name + ": " + message});
            ++failures;
            continue;
        }
        if (results[i]->verification && !results[i]->verification->passed) {
            reportError(Error{Error::Code::VerificationFailed,
                              results[i]->id + ": output differs from the CPU reference (max abs error " +
                                  std::to_string(results[i]->verification->maxAbsError) + ")"});
            ++failures;
        }
        trace.runs.push_back(std::move(*results[i]));
    }
    if (!trace.runs.empty()) {
        if (auto written = trace::writeTrace(trace, o.output); !written) {
            return reportError(written.error());
        }
    }
    for (const auto& run : trace.runs) {
        if (!o.quiet) {
            printRunSummary(run);
        }
        if (o.printGpuTrace) {
            trace::printGpuTrace(run, std::cout);
        }
    }
    if (trace.runs.empty()) {
        std::cerr << "slicescope-cli: no run succeeded; " << o.output << " was not written\n";
    } else if (!o.quiet) {
        std::cout << "wrote " << trace.runs.size() << (trace.runs.size() == 1 ? " run" : " runs")
                  << " to " << o.output << '\n';
    }
    if (failures > 0) {
        std::cerr << "slicescope-cli: " << failures << " of " << ids.size()
                  << (ids.size() == 1 ? " strategy" : " strategies") << " failed\n";
        return kExitFailure;
    }
    return kExitOk;
}

// Runs GPU strategies that an earlier kernel fault kept from running, in a fresh slicescope-cli
// process (a fault poisons this process's CUDA context for good), and returns its runs.
Result<std::vector<trace::Run>> runInFreshProcess(const RunOptions& o, const std::vector<StrategyId>& ids) {
    std::string list;
    for (auto id : ids) {
        list += (list.empty() ? "" : ",") + std::string(strategy::toString(id));
    }
    std::error_code ec;
    const auto output = std::filesystem::temp_directory_path(ec) /
                        ("slicescope-rerun-" + std::to_string(::getpid()) + ".json");
    std::vector<std::string> args{"slicescope-cli", "run",      "--shape",  o.shape,         "--dtype",
                                  o.dtype,          "--work",   std::to_string(o.work),      "--strategy",
                                  list,             "--block",  o.block,    "--memory",      o.memory,
                                  "--repeat",       std::to_string(o.repeat), "--device",    std::to_string(o.device),
                                  "--kernel-timeout", std::to_string(o.kernelTimeoutS), "-q", "-o", output.string()};
    if (o.counters) {
        args.push_back("--counters");
    }
    if (o.sampleOccupancy) {
        args.push_back("--sample-occupancy");
    }
    if (o.noCupti) {
        args.push_back("--no-cupti");
    }
    if (o.progress) {
        args.push_back("--progress");
    }
    std::vector<char*> argv;
    for (auto& a : args) {
        argv.push_back(a.data());
    }
    argv.push_back(nullptr);
    pid_t child = 0;
    if (const int e = posix_spawn(&child, "/proc/self/exe", nullptr, nullptr, argv.data(), ::environ); e != 0) {
        return fail(Error::Code::Internal, std::string("could not start a fresh slicescope-cli: ") + std::strerror(e));
    }
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    auto trace = trace::readTrace(output);
    std::filesystem::remove(output, ec);
    if (!trace) {
        return fail(Error::Code::DeviceFault, "the fresh process wrote no runs (exit status " +
                                                  std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                                                  "): " + trace.error().message);
    }
    for (auto& run : trace->runs) {
        run.notes.push_back("run in a fresh process: an earlier kernel fault had made this process's CUDA "
                            "context unusable");
    }
    return std::move(trace->runs);
}

backend::Progress progressFor(const RunOptions& o, StrategyId id, std::size_t index, std::size_t count) {
    backend::Progress progress;
    if (o.progress) {
        progress.report = [&o, id, index, count](std::string_view stage, double fraction) {
            printProgress(o.progress, strategy::toString(id), index, count, stage, fraction);
        };
    }
    return progress;
}

int runMeasured(const RunOptions& o) {
    auto parsed = parseOptions(o);
    if (!parsed) {
        return reportError(parsed.error());
    }
    const auto& ids = parsed->strategies;
    std::vector<Result<trace::Run>> results(ids.size(), fail(Error::Code::Internal, "not run"));
    bool deviceHung = false;

    // GPU strategies share one process session (one context, one CUPTI subscription).
    std::vector<StrategyId> gpuIds;
    std::vector<std::size_t> gpuSlots;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (strategy::isGpu(ids[i])) {
            gpuIds.push_back(ids[i]);
            gpuSlots.push_back(i);
        }
    }
    if (!gpuIds.empty()) {
        backend::Progress progress;
        if (o.progress) {
            progress.report = [&o, count = ids.size()](std::string_view stage, double fraction) {
                printProgress(true, "gpu", 0, count, stage, fraction);
            };
        }
        backend::GpuOptions options;
        options.kernelTimeoutS = o.kernelTimeoutS;
        options.cupti = !o.noCupti;
        options.testFault = o.testFault == "trap"   ? backend::TestFault::Trap
                            : o.testFault == "spin" ? backend::TestFault::Spin
                                                    : backend::TestFault::None;
        auto gpu = backend::runGpu(gpuIds, parsed->request, options, progress);
        for (std::size_t k = 0; k < gpuSlots.size() && k < gpu.runs.size(); ++k) {
            results[gpuSlots[k]] = std::move(gpu.runs[k]);
        }
        deviceHung = gpu.deviceHung;
        if (!gpu.notStarted.empty()) {
            // Strategies after a fault: a fresh process has a fresh context.
            auto rerun = runInFreshProcess(o, gpu.notStarted);
            if (!rerun) {
                printWarning(rerun.error().message);
            } else {
                for (auto& run : *rerun) {
                    auto id = strategy::parseStrategy(run.strategy);
                    for (std::size_t k = 0; id && k < gpuSlots.size(); ++k) {
                        if (gpuIds[k] == *id && !results[gpuSlots[k]]) {
                            results[gpuSlots[k]] = std::move(run);
                            break;
                        }
                    }
                }
            }
        }
    }
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (!strategy::isGpu(ids[i])) {
            results[i] = backend::runCpu(ids[i], parsed->request, progressFor(o, ids[i], i, ids.size()));
        }
    }
    const int status = finish(o, ids, results);
    if (deviceHung) {
        // A kernel still runs on the GPU: CUDA's exit-time cleanup would wait for it. End now;
        // the driver tears the context down.
        std::cout.flush();
        std::cerr.flush();
        std::fflush(nullptr);
        std::_Exit(status);
    }
    return status;
}

int runModelled(RunOptions o) {
    auto preset = device::findPreset(o.preset);
    if (!preset) {
        return reportError(preset.error());
    }
    if (o.strategies == "all") {
        o.strategies.clear();
        for (const auto& s : strategy::allStrategies()) {
            if (s.target == strategy::Target::Gpu) {
                o.strategies += (o.strategies.empty() ? "" : ",") + std::string(s.name);
            }
        }
    }
    auto parsed = parseOptions(o);
    if (!parsed) {
        return reportError(parsed.error());
    }
    for (auto id : parsed->strategies) {
        if (!strategy::isGpu(id)) {
            return reportUsageError(std::string(strategy::toString(id)) +
                                    " runs on the CPU and cannot be modelled; measure it with "
                                    "'slicescope-cli run'");
        }
    }
    std::vector<Result<trace::Run>> results;
    for (std::size_t i = 0; i < parsed->strategies.size(); ++i) {
        const auto id = parsed->strategies[i];
        printProgress(o.progress, strategy::toString(id), i, parsed->strategies.size(), "model", 0.0);
        results.push_back(backend::modelRun(id, parsed->request, *preset));
    }
    return finish(o, parsed->strategies, results);
}

} // namespace

void addRunCommands(CLI::App& app, int& exitStatus) {
    auto runOptions = std::make_shared<RunOptions>();
    auto* run = app.add_subcommand(
        "run", "Measure strategies: GPU strategies on a CUDA device under CUPTI, CPU strategies on "
               "this machine");
    addSharedOptions(run, *runOptions);
    run->add_flag("--counters", runOptions->counters,
                  "Measure achieved occupancy with CUPTI counters (a second, replayed pass)");
    run->add_flag("--sample-occupancy", runOptions->sampleOccupancy,
                  "Sample occupancy over time with CUPTI PM sampling");
    run->add_option("--device", runOptions->device, "CUDA device ordinal")->capture_default_str();
    run->add_option("--kernel-timeout", runOptions->kernelTimeoutS,
                    "Seconds a kernel or copy may run before the run is reported as hung (0: no limit)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    // Hidden: for tests (a kernel that traps or spins) and benchmarks (CUPTI off).
    run->add_option("--test-fault", runOptions->testFault, "Replace the first GPU kernel with a faulty one")
        ->check(CLI::IsMember({"trap", "spin"}))
        ->group("");
    run->add_flag("--no-cupti", runOptions->noCupti, "Measure without CUPTI (host activities only)")->group("");
    run->callback([runOptions, &exitStatus] { exitStatus = runMeasured(*runOptions); });

    auto modelOptions = std::make_shared<RunOptions>();
    auto* model = app.add_subcommand(
        "model", "Model GPU strategies on a device preset (no GPU needed); runs are marked modelled");
    addSharedOptions(model, *modelOptions);
    model->add_option("--device", modelOptions->preset,
                      "Device preset, e.g. h200, a100-sxm4-80gb, gtx-970 (see 'devices')")
        ->required();
    model->callback([modelOptions, &exitStatus] { exitStatus = runModelled(*modelOptions); });
}

} // namespace slicescope::cli
