// `run` (measured runs) and `model` (modelled runs): the same problem and launch options.
#include "clioutput.h"
#include "commands.h"
#include "gpuworker.h"
#include "multigpu.h"
#include "runoptions.h"
#include "slicescope/backend/cpubackend.h"
#include "slicescope/backend/gpubackend.h"
#include "slicescope/backend/modelbackend.h"
#include "slicescope/sweep/deviceplan.h"
#include "slicescope/sweep/roofline.h"
#include "slicescope/trace/atomicfile.h"
#include "slicescope/trace/exporters.h"
#include "slicescope/trace/tracejson.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>

namespace slicescope::cli {

namespace {

using backend::RunRequest;
using strategy::StrategyId;

void addSharedOptions(CLI::App* cmd, RunOptions& o) {
    cmd->add_option("--shape", o.shape, "Array shape RxCxN, e.g. 100x4000x5 (the seed's)")
        ->required();
    cmd->add_option("--dtype", o.dtype, "Element type: f64 or f32")->capture_default_str();
    cmd->add_option("--work", o.work, "Work per element k >= 1 (dependent multiply-adds)")
        ->capture_default_str();
    cmd->add_option("--strategy", o.strategies,
                    "Comma-separated strategies, or 'all'. Known: " +
                        strategy::knownStrategyNames())
        ->required();
    cmd->add_option("--block", o.block,
                    "Block size: numba (64 threads, numba 0.38), numba-cuda (largest the kernel "
                    "allows) or 1..1024")
        ->capture_default_str();
    cmd->add_option("--memory", o.memory,
                    "Host memory for copies: pageable, pinned, managed, mapped")
        ->capture_default_str();
    cmd->add_option("--repeat", o.repeat, "Repetitions of the copy/compute/copy sequence")
        ->capture_default_str();
    cmd->add_option("--chunks", o.chunks,
                    "GPU strategies: cut the outer dimension (R, or C for slice-middle) into this "
                    "many chunks, each copied in, computed and copied out on its own (1 to " +
                        std::to_string(strategy::kMaxChunks) +
                        "; more chunks than rows give one "
                        "per row)")
        ->capture_default_str();
    cmd->add_option("--streams", o.streams,
                    "GPU strategies: CUDA streams the chunks go on, chunk i on stream i mod S, so "
                    "one chunk's copies overlap another's kernel with pinned memory (1 to " +
                        std::to_string(strategy::kMaxStreams) + "; at most one per chunk is used)")
        ->capture_default_str();
    cmd->add_option("-o,--output", o.output, "Trace file to write (JSON)")->required();
    cmd->add_flag("--print-gpu-trace", o.printGpuTrace,
                  "Print an nvprof --print-gpu-trace style table of each run");
    cmd->add_flag("--progress", o.progress, "Print machine-readable progress lines on stdout");
    cmd->add_flag("-q,--quiet", o.quiet, "Print no run summaries");
    addRemoteOptions(cmd, o.remote);
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
                              results[i]->id +
                                  ": output differs from the CPU reference (max abs error " +
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

backend::Progress progressFor(const RunOptions& o, StrategyId id, std::size_t index,
                              std::size_t count) {
    backend::Progress progress;
    if (o.progress) {
        progress.report = [&o, id, index, count](std::string_view stage, double fraction) {
            printProgress(o.progress, strategy::toString(id), index, count, stage, fraction);
        };
    }
    return progress;
}

// `run --devices`: the GPU strategies on every device at once (one worker each), then the CPU
// strategies once. The runs in the order of the strategies given, each GPU strategy's side by
// side in device order, ids saying the device ("slice-2d@gpu0", "slice-2d@gpu1").
int runMeasuredOnDevices(const RunOptions& o, const ParsedRun& parsed) {
    const auto& ids = parsed.strategies;
    std::vector<StrategyId> gpuIds;
    std::copy_if(ids.begin(), ids.end(), std::back_inserter(gpuIds), strategy::isGpu);
    if (gpuIds.empty()) {
        return reportUsageError("--devices needs a GPU strategy: the CPU strategies run on this "
                                "host's cores, not on a GPU");
    }
    auto devices = resolveDevices(o.devices, o.testDevicesPresent);
    if (!devices) {
        return reportError(devices.error());
    }
    auto gpu = runGpuOnDevices(o, gpuIds, *devices);
    std::vector<StrategyId> rowIds;
    std::vector<Result<trace::Run>> results;
    for (std::size_t i = 0, k = 0; i < ids.size(); ++i) {
        if (!strategy::isGpu(ids[i])) {
            rowIds.push_back(ids[i]);
            results.push_back(
                backend::runCpu(ids[i], parsed.request, progressFor(o, ids[i], i, ids.size())));
            continue;
        }
        for (std::size_t d = 0; d < gpu.size(); ++d) {
            rowIds.push_back(ids[i]);
            auto& run = results.emplace_back(std::move(gpu[d][k]));
            if (run) {
                run->id = sweep::deviceRunId(run->strategy, (*devices)[d]);
            }
        }
        ++k;
    }
    return finish(o, rowIds, results);
}

int runMeasured(const RunOptions& o) {
    if (o.gpuWorker) {
        return runGpuWorker(o);
    }
    if (!o.devices.empty() && o.deviceGiven) {
        return reportUsageError(kDeviceAndDevices);
    }
    auto parsed = parseRunOptions(o);
    if (!parsed) {
        return reportError(parsed.error());
    }
    if (!o.devices.empty()) {
        return runMeasuredOnDevices(o, *parsed);
    }
    const auto& ids = parsed->strategies;
    std::vector<Result<trace::Run>> results(ids.size(), fail(Error::Code::Internal, "not run"));

    // GPU strategies run in a worker process (gpuworker.h): a fault, a crash or a kernel that
    // never ends costs that process, never this one or the CPU strategies' runs.
    std::vector<StrategyId> gpuIds;
    std::vector<std::size_t> gpuSlots;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (strategy::isGpu(ids[i])) {
            gpuIds.push_back(ids[i]);
            gpuSlots.push_back(i);
        }
    }
    if (!gpuIds.empty()) {
        auto gpu = backend::gpuBackendBuilt() ? runGpuInWorker(o, gpuIds)
                                              : runGpuHere(o, gpuIds, parsed->request).runs;
        for (std::size_t k = 0; k < gpuSlots.size() && k < gpu.size(); ++k) {
            results[gpuSlots[k]] = std::move(gpu[k]);
        }
    }
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (!strategy::isGpu(ids[i])) {
            results[i] =
                backend::runCpu(ids[i], parsed->request, progressFor(o, ids[i], i, ids.size()));
        }
    }
    return finish(o, ids, results);
}

int runModelled(RunOptions o) {
    auto preset = device::findPreset(o.preset);
    if (!preset) {
        return reportError(preset.error());
    }
    o.strategies = modelledStrategyList(o.strategies);
    auto parsed = parseRunOptions(o);
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
    // A model has no cold start to warm: --warmup is accepted (one command line serves `run` and
    // `model`), and every modelled run records "warmup": 0, with a note when some were asked for.
    const std::uint32_t warmupAsked = parsed->request.warmup;
    parsed->request.warmup = 0;
    std::vector<Result<trace::Run>> results;
    for (std::size_t i = 0; i < parsed->strategies.size(); ++i) {
        const auto id = parsed->strategies[i];
        printProgress(o.progress, strategy::toString(id), i, parsed->strategies.size(), "model",
                      0.0);
        results.push_back(backend::modelRun(id, parsed->request, *preset));
        if (results.back() && warmupAsked > 0) {
            results.back()->notes.push_back(
                "no warm-up: a modelled run has no cold start (--warmup " +
                std::to_string(warmupAsked) + " was not applied)");
        }
        // A problem too large to model (work x elements x repeats beyond 64 bits) is refused like
        // an overflowing --shape: a usage error, nothing written.
        if (!results.back() && results.back().error().code == Error::Code::Overflow) {
            return reportError(results.back().error());
        }
        if (results.back() && o.roofline) {
            results.back()->ceilings = sweep::datasheetCeilings(*preset);
        }
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
    run->add_option("--warmup", runOptions->warmup,
                    "Warm-up iterations before the measured repetitions, in the same process; "
                    "kept in the trace, marked warm-up, and left out of every figure")
        ->capture_default_str();
    run->add_flag("--counters", runOptions->counters,
                  "Measure achieved occupancy with CUPTI counters (a second, replayed pass)");
    run->add_flag("--sample-occupancy", runOptions->sampleOccupancy,
                  "Sample occupancy over time with CUPTI PM sampling");
    auto* device = run->add_option("--device", runOptions->device, "CUDA device ordinal")
                       ->capture_default_str();
    run->add_option("--devices", runOptions->devices,
                    "Several GPUs of this host at once: 'all' or CUDA device ordinals, e.g. 0,1. "
                    "Every GPU strategy runs on each, side by side (run ids say the device: "
                    "slice-2d@gpu1)");
    run->add_option("--test-devices-present", runOptions->testDevicesPresent,
                    "Tests: pretend this many GPUs for --devices")
        ->group("");
    run->add_option(
           "--kernel-timeout", runOptions->kernelTimeoutS,
           "Seconds a kernel or copy may run before the run is reported as hung (0: no limit)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    // Hidden: for tests (a kernel that traps or spins) and benchmarks (CUPTI off).
    run->add_option("--test-fault", runOptions->testFault,
                    "Replace the first GPU kernel with a faulty one")
        ->check(CLI::IsMember({"trap", "spin"}))
        ->group("");
    run->add_flag("--no-cupti", runOptions->noCupti, "Measure without CUPTI (host activities only)")
        ->group("");
    run->add_flag("--roofline", runOptions->roofline,
                  "Measure the roofline's ceilings once (copies, FMA peak) and store them with the "
                  "GPU runs (see 'slicescope-cli roofline')");
    run->add_flag("--gpu-worker", runOptions->gpuWorker,
                  "Internal: run GPU strategies for a parent")
        ->group("");
    run->add_option("--sweep-param", runOptions->sweepParam, "Internal: the GPU worker's sweep")
        ->group("");
    run->add_option("--sweep-values", runOptions->sweepValues, "Internal: the GPU worker's sweep")
        ->group("");
    run->callback([runOptions, run, device, &exitStatus] {
        runOptions->deviceGiven = device->count() > 0;
        exitStatus = runOptions->remote.host.empty()
                         ? runMeasured(*runOptions)
                         : runOnHost(runOptions->remote, *run, runOptions->output);
    });

    auto modelOptions = std::make_shared<RunOptions>();
    auto* model = app.add_subcommand(
        "model",
        "Model GPU strategies on a device preset (no GPU needed); runs are marked modelled");
    addSharedOptions(model, *modelOptions);
    modelOptions->warmup = 0;
    model
        ->add_option("--warmup", modelOptions->warmup,
                     "Accepted for `run`'s command line; a model has no warm-up, so modelled runs "
                     "record 0")
        ->capture_default_str();
    model
        ->add_option("--device", modelOptions->preset,
                     "Device preset, e.g. h200, a100-sxm4-80gb, gtx-970 (see 'devices')")
        ->required();
    model->add_flag("--roofline", modelOptions->roofline,
                    "Store the preset's datasheet roofline ceilings with the runs");
    model->callback([modelOptions, model, &exitStatus] {
        exitStatus = modelOptions->remote.host.empty()
                         ? runModelled(*modelOptions)
                         : runOnHost(modelOptions->remote, *model, modelOptions->output);
    });
}

std::string modelledStrategyList(const std::string& list) {
    std::string gpuStrategies;
    for (const auto& s : strategy::allStrategies()) {
        if (s.target == strategy::Target::Gpu) {
            gpuStrategies += (gpuStrategies.empty() ? "" : ",") + std::string(s.name);
        }
    }
    std::string expanded;
    for (std::size_t start = 0; start <= list.size();) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        const std::string name = list.substr(start, comma - start);
        expanded += (start == 0 ? "" : ",") + (name == "all" ? gpuStrategies : name);
        start = comma + 1;
    }
    return expanded;
}

Result<backend::RunRequest> parseRequest(const RunOptions& o) {
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
    if (o.warmup < 0 || o.warmup > 10000) {
        return fail(Error::Code::InvalidArgument,
                    "--warmup must be from 0 to 10000 (got " + std::to_string(o.warmup) + ")");
    }
    if (o.chunks < 1 || o.chunks > strategy::kMaxChunks || o.streams < 1 ||
        o.streams > strategy::kMaxStreams) {
        // checkPipeline's words, with the value the user gave (which may not fit 32 bits).
        const bool chunks = o.chunks < 1 || o.chunks > strategy::kMaxChunks;
        return fail(Error::Code::InvalidArgument,
                    std::string(chunks ? "--chunks" : "--streams") + " must be from 1 to " +
                        std::to_string(chunks ? strategy::kMaxChunks : strategy::kMaxStreams) +
                        " (got " + std::to_string(chunks ? o.chunks : o.streams) + ")");
    }
    // Refused now rather than after the runs: a directory, a read-only file, a missing folder.
    if (auto target = trace::resolveOutput(o.output); !target) {
        return tl::unexpected(target.error());
    }
    backend::RunRequest request;
    request.problem = *problem;
    request.block = *block;
    request.memory = *memory;
    request.repeat = std::uint32_t(o.repeat);
    request.warmup = std::uint32_t(o.warmup);
    request.pipeline = {std::uint32_t(o.chunks), std::uint32_t(o.streams)};
    request.counters = o.counters;
    request.sampleOccupancy = o.sampleOccupancy;
    request.deviceIndex = o.device;
    return request;
}

Result<ParsedRun> parseRunOptions(const RunOptions& o) {
    auto request = parseRequest(o);
    if (!request) {
        return tl::unexpected(request.error());
    }
    auto strategies = strategy::parseStrategyList(o.strategies);
    if (!strategies) {
        return tl::unexpected(strategies.error());
    }
    return ParsedRun{*request, *strategies};
}

} // namespace slicescope::cli
