#pragma once

#include "remotecli.h"
#include "slicescope/backend/runrequest.h"
#include "slicescope/core/result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace slicescope::cli {

// The options of `run` and `model`, as given on the command line.
struct RunOptions {
    std::string shape;
    std::string dtype = "f64";
    std::int64_t work = 1;
    std::string strategies;
    std::string block = "numba";
    std::string memory = "pageable";
    std::int64_t repeat = 1;
    std::int64_t warmup = 1; // `run`: warm-up iterations first; `model`: accepted, recorded as 0
    std::int64_t chunks = 1;
    std::int64_t streams = 1;
    std::string output;
    bool printGpuTrace = false;
    bool counters = false;
    bool sampleOccupancy = false;
    int device = 0;
    bool deviceGiven = false; // --device was on the command line (refused beside --devices)
    // --devices LIST|all: several GPUs of this host at once (multigpu.h); empty: one, `device`.
    std::string devices;
    std::int64_t testDevicesPresent = -1; // hidden, tests only: pretend this many GPUs (multigpu.h)
    bool progress = false;
    bool quiet = false;
    double kernelTimeoutS = 60;
    std::string testFault;  // hidden, tests only: "trap" or "spin"
    bool noCupti = false;   // hidden, benchmarks only: measure without CUPTI
    bool gpuWorker = false; // hidden: this process is a parent's GPU worker (gpuworker.h)
    std::string preset;     // model only
    bool roofline = false;  // measure the roofline's ceilings once and store them with the runs
    // sweep: the parameter and its checked values (comma-separated); the GPU worker runs every
    // point in one session.
    std::string sweepParam;
    std::string sweepValues;
    std::int64_t testInterruptAfter = 0; // hidden, tests only: SIGINT after this many points
    RemoteOptions remote;                // --host: run, model and sweep on another machine
};

// The arguments of a child `slicescope-cli run` for these strategies with the same problem and
// launch options, quiet, writing its trace to output.
std::vector<std::string> childRunArguments(const RunOptions& o, const std::string& strategies,
                                           const std::string& output);

// The request `run`, `model` and `sweep` share: the problem, block, memory, repetitions,
// warm-up, pipeline, counters and device of the options, each checked (the CLI's words for what
// it refuses), and the output file refused now rather than after the runs.
Result<backend::RunRequest> parseRequest(const RunOptions& o);

// The request and the strategy list of `run`, each checked: what `run` and its GPU worker both
// parse (one function, so the worker cannot drop an option the parent kept).
struct ParsedRun {
    backend::RunRequest request;
    std::vector<strategy::StrategyId> strategies;
};
Result<ParsedRun> parseRunOptions(const RunOptions& o);

// A strategy list for a model: 'all' (anywhere in the list) means every GPU strategy, since CPU
// ones cannot be modelled; other names stay as given.
std::string modelledStrategyList(const std::string& list);

} // namespace slicescope::cli
