// slicescope-bench-gpu: the five figures of docs/performance.md, measured in one run on the GPU it
// finds.
//   1  elementwise-broadcast effective bandwidth (>= 2 GB problem) / device-to-device cudaMemcpy
//   2  pinned HtoD bandwidth of the run / a plain cudaMemcpy from pinned memory
//   3  wall time of `slicescope-cli run --strategy all` at the seed shape, CUPTI on vs off
//   4  CUPTI kernel duration vs cudaEvent timing of the same launch
//   5  `slicescope-cli run --strategy all` turnaround at the seed shape
//   6-8  a chunked pipeline (1000x4000x5 f64, pinned, elementwise-broadcast, 8 chunks on 4
//        streams): its time over its bound, its speed-up over one chunk, its measured overlap over
//        the model's (`--pipeline` prints these alone)
// Every figure is a median of repeated measurements taken by this program now; nothing is copied
// from elsewhere. `--grid-sweep` instead times the shipped elementwise-broadcast kernel over grids
// of 1, 2, 4 and 8 items per thread and one resident wave: the measurement behind the engine's
// choice of two items per thread. `--sweep` times `slicescope-cli sweep`: a 32-point block sweep
// of 3 strategies at the seed shape, with counters (target <= 15 s) and without (<= 5 s).
#include "gpuprobes.h"
#include "slicescope/backend/gpubackend.h"
#include "slicescope/backend/modelbackend.h"
#include "slicescope/record/childprocess.h"
#include "slicescope/trace/runsummary.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace slicescope;
using strategy::StrategyId;

namespace {

double median(std::vector<double> v) {
    if (v.empty()) {
        return std::nan("");
    }
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

struct Options {
    std::string cli;
    int cliRuns = 7; // 0: skip figures 3 and 5
    bool gridSweep = false;
    bool sweep = false;
    bool pipelineOnly = false;
    std::uint32_t block = 0; // 0: the fastest of 128, 256, 512, 1024
    // The seed's C x N (multBy 160 KB, as in the seed) with R scaled up: 12800 x 4000 x 5 f64 is
    // 2.048 GB per array.
    std::uint64_t rows = 12800;
    std::uint64_t columns = 4000;
};

// Runs the CLI and returns its wall time in seconds, or a negative number if it failed.
double timeCli(const std::string& cli, std::vector<std::string> args) {
    args.insert(args.begin(), cli);
    record::ChildSpec spec;
    spec.argv = std::move(args);
    spec.endWithParent = false;
    const int devNull = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    spec.stdoutFd = devNull;
    const auto start = std::chrono::steady_clock::now();
    auto child = record::ChildProcess::start(spec);
    if (devNull >= 0) {
        ::close(devNull);
    }
    if (!child) {
        std::fprintf(stderr, "could not start %s: %s\n", cli.c_str(),
                     child.error().message.c_str());
        return -1;
    }
    const int status = child->wait();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "%s exited with status %d\n", cli.c_str(),
                     WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return -1;
    }
    return seconds;
}

const char* verdict(bool met) {
    return met ? "met" : "NOT met";
}

// The shipped elementwise-broadcast kernel (f64, the seed's C x N) at 16 MB, 256 MB and the
// benchmark's size, over grids of K items per thread and of one resident wave; each cell is the
// median CUPTI duration of 10 launches as a fraction of a device-to-device copy of the same bytes.
int gridSweep(const Options& o, const device::DeviceSpec& device) {
    int failures = 0;
    const std::uint32_t itemsPerThread[] = {1, 2, 4, 8};
    for (std::uint64_t rows : {std::uint64_t(100), std::uint64_t(1600), o.rows}) {
        const auto p = *problem::makeProblem({rows, o.columns, 5}, problem::Dtype::F64, 1);
        const auto d2d = cuda::probes::deviceCopyGBps(0, p.arrayBytes(), 10);
        if (!d2d) {
            std::fprintf(stderr, "copy probe failed: %s\n", d2d.error().message.c_str());
            return 1;
        }
        const double bytesMoved = 2.0 * double(p.arrayBytes()) + double(p.multByBytes());
        const auto shipped = strategy::launchGeometry(StrategyId::ElementwiseBroadcast, p,
                                                      *strategy::parseBlockOption("256"), {});
        const std::uint64_t vectors = p.elements() / shipped->vectorWidth;
        std::printf("\n%s (%.0f MB per array): device-to-device copy %.0f GB/s\n",
                    p.describe().c_str(), double(p.arrayBytes()) / 1e6, *d2d);
        std::printf("| block | 1 item/thread | 2 (shipped) | 4 | 8 | one wave "
                    "|\n|---|---|---|---|---|---|\n");
        for (std::uint32_t block : {64u, 128u, 256u, 1024u}) {
            std::printf("| %u |", block);
            std::vector<std::uint64_t> grids;
            for (std::uint32_t k : itemsPerThread) {
                grids.push_back((vectors + std::uint64_t(block) * k - 1) /
                                (std::uint64_t(block) * k));
            }
            grids.push_back(std::uint64_t(device.smCount) * (device.maxThreadsPerSm / block));
            for (std::uint64_t blocks : grids) {
                const auto t = cuda::probes::kernelTimingCuptiVsEvents(0, p, block, 10, blocks);
                if (!t) {
                    std::fprintf(stderr, "block %u, grid %llu: %s\n", block,
                                 static_cast<unsigned long long>(blocks),
                                 t.error().message.c_str());
                    ++failures;
                    std::printf(" failed |");
                    continue;
                }
                std::vector<double> ns;
                for (const auto& k : *t) {
                    ns.push_back(double(k.cuptiNs));
                }
                const double ratio = bytesMoved / median(ns) / *d2d;
                std::printf(" %.1f us, %.3f |", median(ns) / 1e3, ratio);
            }
            std::printf("\n");
            std::fflush(stdout);
        }
    }
    return failures == 0 ? 0 : 1;
}

} // namespace

// `slicescope-cli sweep` wall time: 32 block sizes (32, 64, ..., 1024) of slice-2d, slice-outer
// and elementwise-broadcast at the seed shape, one worker process for the whole sweep; median of
// cliRuns (at least 1) after one warm-up, with and without counters.
int sweepTiming(const Options& o) {
    const auto scratch = std::filesystem::temp_directory_path() /
                         ("slicescope-bench-sweep-" + std::to_string(::getpid()) + ".json");
    const std::vector<std::string> args{
        "sweep",      "--param",     "block",
        "--range",    "32:1024:+32", "--shape",
        "100x4000x5", "--strategy",  "slice-2d,slice-outer,elementwise-broadcast",
        "-q",         "-o",          scratch.string()};
    auto withCounters = args;
    withCounters.push_back("--counters");
    const int runs = std::max(1, o.cliRuns);
    (void)timeCli(o.cli, args);
    std::vector<double> plain, counted;
    int failures = 0;
    for (int i = 0; i < runs; ++i) {
        const double a = timeCli(o.cli, args);
        const double b = timeCli(o.cli, withCounters);
        if (a < 0 || b < 0) {
            ++failures;
            break;
        }
        plain.push_back(a);
        counted.push_back(b);
    }
    std::filesystem::remove(scratch);
    const double plainS = median(plain), countedS = median(counted);
    std::printf("\n| # | figure | measured | target | |\n|---|---|---|---|---|\n");
    std::printf("| S1 | `sweep --param block --range 32:1024:+32`, 3 strategies at 100x4000x5, no "
                "counters (median of %d) | %.3f s | <= 5 s | %s |\n",
                runs, plainS, verdict(plainS <= 5.0));
    std::printf(
        "| S2 | the same sweep with `--counters` (median of %d) | %.3f s | <= 15 s | %s |\n", runs,
        countedS, verdict(countedS <= 15.0));
    return failures == 0 ? 0 : 1;
}

// One repetition's device work: its span (first start to last end), its pipeline bound (the
// longest of its total HtoD, DtoH and kernel time) and its floor for K equal chunks. A chunk's
// copy out waits for its copy in, and each direction has one engine: the last chunk's copy out
// starts after every copy in, and the first chunk's copy in ends before any copy out, so no
// schedule beats the larger of HtoD + DtoH / K and DtoH + HtoD / K. With equal copies both ways
// that is the bound times 1 + 1/K.
struct IterationTimes {
    std::vector<double> spanNs, boundNs, floorNs;
};

IterationTimes iterationTimes(const trace::Run& run) {
    std::vector<std::int64_t> begin(run.repeat, INT64_MAX), end(run.repeat, INT64_MIN);
    std::vector<std::int64_t> htod(run.repeat), dtoh(run.repeat), kernel(run.repeat);
    for (const auto& a : run.activities) {
        if (!trace::isDeviceActivity(a.kind) || a.warmup || a.iteration >= run.repeat) {
            continue;
        }
        begin[a.iteration] = std::min(begin[a.iteration], a.startNs);
        end[a.iteration] = std::max(end[a.iteration], a.endNs);
        if (a.kind == trace::ActivityKind::HtoD) {
            htod[a.iteration] += a.durationNs();
        } else if (a.kind == trace::ActivityKind::DtoH) {
            dtoh[a.iteration] += a.durationNs();
        } else if (a.kind == trace::ActivityKind::Kernel) {
            kernel[a.iteration] += a.durationNs();
        }
    }
    IterationTimes out;
    for (std::uint32_t i = 0; i < run.repeat; ++i) {
        if (end[i] > begin[i]) {
            out.spanNs.push_back(double(end[i] - begin[i]));
            out.boundNs.push_back(double(std::max({htod[i], dtoh[i], kernel[i]})));
            const double k = std::max<std::uint32_t>(run.chunks, 1);
            out.floorNs.push_back(
                std::max({htod[i] + dtoh[i] / k, dtoh[i] + htod[i] / k, double(kernel[i])}));
        }
    }
    return out;
}

// Figures 6-8: the pipeline of docs/gpu-backend.md ("Pipelines") against its bound, one chunk and
// the model. Returns the failures (runs that failed or did not verify).
int pipelineFigures(std::uint32_t block, const device::DeviceSpec& device) {
    backend::RunRequest request;
    request.problem = *problem::makeProblem({1000, 4000, 5}, problem::Dtype::F64, 1);
    request.memory = backend::MemoryMode::Pinned;
    request.repeat = 5;
    request.warmup = 1; // the first launch and the first touch of pinned memory, not timed
    request.block = {strategy::BlockOption::Mode::Explicit, block};
    auto one = backend::runGpu({StrategyId::ElementwiseBroadcast}, request);
    request.pipeline = {8, 4};
    auto eight = backend::runGpu({StrategyId::ElementwiseBroadcast}, request);
    auto sixteenRequest = request;
    sixteenRequest.pipeline = {16, 4};
    auto sixteen = backend::runGpu({StrategyId::ElementwiseBroadcast}, sixteenRequest);
    for (const auto* r : {&one[0], &eight[0], &sixteen[0]}) {
        if (!*r) {
            std::fprintf(stderr, "pipeline run failed: %s\n", r->error().message.c_str());
            return 1;
        }
    }
    int failures = (one[0]->verification->passed ? 0 : 1) +
                   (eight[0]->verification->passed ? 0 : 1) +
                   (sixteen[0]->verification->passed ? 0 : 1);
    const IterationTimes t1 = iterationTimes(*one[0]);
    const IterationTimes t8 = iterationTimes(*eight[0]);
    const IterationTimes t16 = iterationTimes(*sixteen[0]);
    const double span1 = median(t1.spanNs), span8 = median(t8.spanNs), bound8 = median(t8.boundNs);
    const double floor8 = median(t8.floorNs);
    const double span16 = median(t16.spanNs), bound16 = median(t16.boundNs);
    const double measuredOverlap = trace::summarize(*eight[0]).overlapShare();
    // The model of the same run, on the preset named as this device (else the H200's).
    const device::DeviceSpec* preset = nullptr;
    for (const auto& candidate : device::presets()) {
        if (candidate.name == device.name || (preset == nullptr && candidate.id == "h200")) {
            preset = &candidate;
        }
    }
    double modelledOverlap = std::nan("");
    if (preset != nullptr) {
        if (auto modelled = backend::modelRun(StrategyId::ElementwiseBroadcast, request, *preset)) {
            modelledOverlap = trace::summarize(*modelled).overlapShare();
        }
    }
    std::printf("pipeline: %s, pinned, elementwise-broadcast, block %u, repeat %u: one chunk "
                "%.3f ms, 8 chunks on 4 streams %.3f ms, bound %.3f ms (medians per repetition; "
                "verified %s/%s)\n",
                request.problem.describe().c_str(), block, request.repeat, span1 / 1e6, span8 / 1e6,
                bound8 / 1e6, one[0]->verification->passed ? "yes" : "NO",
                eight[0]->verification->passed ? "yes" : "NO");
    const double f6 = span8 / bound8, f7 = span1 / span8;
    const double f8 = measuredOverlap / modelledOverlap - 1.0;
    std::printf("| 6 | 1000x4000x5 f64 pinned elementwise-broadcast, 8 chunks on 4 streams: time / "
                "pipeline bound | %.3f / %.3f ms = %.3f | <= 1.10 | %s |\n",
                span8 / 1e6, bound8 / 1e6, f6, verdict(f6 <= 1.10));
    std::printf("| 6a | the same: its floor for 8 equal chunks (copy in + copy out / 8) / bound; "
                "time / floor | %.3f / %.3f ms = %.3f; %.3f | %s | - |\n",
                floor8 / 1e6, bound8 / 1e6, floor8 / bound8, span8 / floor8,
                floor8 / bound8 > 1.10
                    ? "figure 6's 1.10 is below the floor: no schedule reaches it"
                    : "figure 6's 1.10 is above the floor");
    std::printf("| 6b | the same with 16 chunks on 4 streams: time / pipeline bound | %.3f / %.3f "
                "ms = %.3f | <= 1.10 | %s |\n",
                span16 / 1e6, bound16 / 1e6, span16 / bound16, verdict(span16 / bound16 <= 1.10));
    std::printf(
        "| 7 | the same: speed-up over --chunks 1 | %.3f / %.3f ms = %.2fx | >= 1.6 | %s |\n",
        span1 / 1e6, span8 / 1e6, f7, verdict(f7 >= 1.6));
    std::printf("| 8 | the same: measured overlap vs the model's (%s preset) | %.1f %% vs %.1f %%: "
                "%+.1f %% | within 10 %% | %s |\n",
                preset ? preset->id.c_str() : "no", measuredOverlap * 100, modelledOverlap * 100,
                f8 * 100, verdict(std::fabs(f8) <= 0.10));
    return failures;
}

int main(int argc, char** argv) {
    Options o;
    o.cli = (std::filesystem::path(argv[0]).parent_path() / SLICESCOPE_CLI_NAME).string();
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--cli" && i + 1 < argc) {
            o.cli = argv[++i];
        } else if (a == "--cli-runs" && i + 1 < argc) {
            o.cliRuns = std::max(0, std::atoi(argv[++i]));
        } else if (a == "--pipeline") {
            o.pipelineOnly = true;
        } else if (a == "--grid-sweep") {
            o.gridSweep = true;
        } else if (a == "--sweep") {
            o.sweep = true;
        } else if (a == "--block" && i + 1 < argc) {
            o.block = std::uint32_t(std::atoi(argv[++i]));
        } else if (a == "--rows" && i + 1 < argc) {
            o.rows = std::uint64_t(std::atoll(argv[++i]));
        } else if (a == "--columns" && i + 1 < argc) {
            o.columns = std::uint64_t(std::atoll(argv[++i]));
        } else {
            std::fprintf(
                stderr,
                "usage: slicescope-bench-gpu [--cli PATH] [--cli-runs N] [--block "
                "THREADS] [--rows R] [--columns C] [--grid-sweep] [--sweep] [--pipeline]\n");
            return 2;
        }
    }
    const auto detected = backend::detectDevices();
    if (detected.devices.empty()) {
        std::fprintf(stderr, "slicescope-bench-gpu: %s\n", detected.why.c_str());
        return 1;
    }
    const auto& device = detected.devices.front();
    std::printf("device: %s (cc %s, %u SMs)\n", device.name.c_str(),
                device.computeCapability().c_str(), device.smCount);
    if (o.gridSweep) {
        return gridSweep(o, device);
    }
    if (o.sweep) {
        return sweepTiming(o);
    }
    if (o.pipelineOnly) {
        std::printf("\n| # | figure | measured | target | |\n|---|---|---|---|---|\n");
        return pipelineFigures(o.block == 0 ? 256 : o.block, device) == 0 ? 0 : 1;
    }
    int failures = 0;

    const auto big = *problem::makeProblem({o.rows, o.columns, 5}, problem::Dtype::F64, 1);
    const double bytesMoved = 2.0 * double(big.arrayBytes()) + double(big.multByBytes());
    // The block size for figure 1: the fastest of a few, each timed by CUPTI over 10 launches.
    if (o.block == 0) {
        double best = 0;
        for (std::uint32_t block : {128u, 256u, 512u, 1024u}) {
            const auto t = cuda::probes::kernelTimingCuptiVsEvents(0, big, block, 10);
            if (!t) {
                std::fprintf(stderr, "block %u: %s\n", block, t.error().message.c_str());
                continue;
            }
            std::vector<double> ns;
            for (const auto& k : *t) {
                ns.push_back(double(k.cuptiNs));
            }
            const double gbps = bytesMoved / median(ns);
            std::printf("block %4u: elementwise-broadcast kernel median %.3f ms, %.0f GB/s\n",
                        block, median(ns) / 1e6, gbps);
            if (gbps > best) {
                best = gbps;
                o.block = block;
            }
        }
        if (o.block == 0) {
            o.block = 256;
        }
    }

    // 1 and 2: one measured, verified run of elementwise-broadcast on a >= 2 GB problem, pinned.
    backend::RunRequest request;
    request.problem = big;
    request.memory = backend::MemoryMode::Pinned;
    request.repeat = 5;
    request.block = {strategy::BlockOption::Mode::Explicit, o.block};
    auto runs = backend::runGpu({StrategyId::ElementwiseBroadcast}, request);
    double kernelBandwidth = std::nan(""), runHtoD = std::nan("");
    if (!runs[0]) {
        std::fprintf(stderr, "elementwise-broadcast run failed: %s\n",
                     runs[0].error().message.c_str());
        ++failures;
    } else {
        std::vector<double> kernelS, htodS;
        for (const auto& a : runs[0]->activities) {
            if (a.kind == trace::ActivityKind::Kernel) {
                kernelS.push_back(double(a.durationNs()) / 1e9);
            } else if (a.kind == trace::ActivityKind::HtoD && a.bytes == big.arrayBytes()) {
                htodS.push_back(double(a.durationNs()) / 1e9);
            }
        }
        kernelBandwidth = bytesMoved / median(kernelS) / 1e9;
        runHtoD = double(big.arrayBytes()) / median(htodS) / 1e9;
        std::printf("run: %s, %s, block %u, verified %s, kernel median %.3f ms over %zu launches\n",
                    big.describe().c_str(), "pinned", o.block,
                    runs[0]->verification->passed ? "yes" : "NO", median(kernelS) * 1e3,
                    kernelS.size());
        failures += runs[0]->verification->passed ? 0 : 1;
    }
    const auto d2d = cuda::probes::deviceCopyGBps(0, big.arrayBytes(), 10);
    const auto plainHtoD = cuda::probes::pinnedHtoDGBps(0, big.arrayBytes(), 5);
    if (!d2d || !plainHtoD) {
        std::fprintf(stderr, "copy probes failed: %s\n",
                     (!d2d ? d2d.error() : plainHtoD.error()).message.c_str());
        ++failures;
    }

    // 4: CUPTI vs events on the same launches.
    const auto timing = cuda::probes::kernelTimingCuptiVsEvents(0, big, o.block, 20);
    double cuptiMs = std::nan(""), eventMs = std::nan(""), worst = std::nan("");
    if (!timing) {
        std::fprintf(stderr, "kernel timing probe failed: %s\n", timing.error().message.c_str());
        ++failures;
    } else {
        std::vector<double> c, e;
        worst = 0;
        for (const auto& t : *timing) {
            c.push_back(double(t.cuptiNs) / 1e6);
            e.push_back(double(t.eventNs) / 1e6);
            worst = std::max(worst, std::fabs(double(t.cuptiNs - t.eventNs)) / double(t.eventNs));
        }
        cuptiMs = median(c);
        eventMs = median(e);
    }

    // 3 and 5: the CLI at the seed shape, CUPTI on and off, alternating; one warm-up first.
    const auto scratch = std::filesystem::temp_directory_path() /
                         ("slicescope-bench-" + std::to_string(::getpid()) + ".json");
    const std::vector<std::string> seedArgs{"run", "--shape", "100x4000x5", "--strategy",
                                            "all", "-q",      "-o",         scratch.string()};
    auto withoutCupti = seedArgs;
    withoutCupti.push_back("--no-cupti");
    if (o.cliRuns > 0) {
        (void)timeCli(o.cli, seedArgs);
    }
    std::vector<double> on, off;
    for (int i = 0; i < o.cliRuns; ++i) {
        const double a = timeCli(o.cli, seedArgs);
        const double b = timeCli(o.cli, withoutCupti);
        if (a < 0 || b < 0) {
            ++failures;
            break;
        }
        on.push_back(a);
        off.push_back(b);
    }
    std::filesystem::remove(scratch);
    const double onS = median(on), offS = median(off);

    const double f1 = kernelBandwidth / (d2d ? *d2d : std::nan(""));
    const double f2 = runHtoD / (plainHtoD ? *plainHtoD : std::nan(""));
    const double f3 = onS / offS - 1.0;
    const double f4 = cuptiMs / eventMs - 1.0;
    std::printf("\n| # | figure | measured | target | |\n|---|---|---|---|---|\n");
    std::printf("| 1 | elementwise-broadcast effective bandwidth / device-to-device cudaMemcpy | "
                "%.0f / %.0f GB/s = %.3f | >= 0.95 | %s |\n",
                kernelBandwidth, d2d ? *d2d : std::nan(""), f1, verdict(f1 >= 0.95));
    std::printf("| 2 | pinned HtoD in the run / plain cudaMemcpy from pinned memory | %.1f / %.1f "
                "GB/s = %.3f | >= 0.95 | %s |\n",
                runHtoD, plainHtoD ? *plainHtoD : std::nan(""), f2, verdict(f2 >= 0.95));
    if (o.cliRuns > 0) {
        std::printf(
            "| 3 | `run --strategy all` at 100x4000x5, CUPTI on vs off (median of %d each) | "
            "%.3f s vs %.3f s: %+.1f %% | <= 5 %% | %s |\n",
            o.cliRuns, onS, offS, f3 * 100, verdict(f3 <= 0.05));
    }
    std::printf("| 4 | CUPTI kernel duration vs cudaEvent timing, same launches (median of %zu) | "
                "%.4f ms vs %.4f ms: %+.2f %% (worst launch %.2f %%) | within 5 %% | %s |\n",
                timing ? timing->size() : 0, cuptiMs, eventMs, f4 * 100, worst * 100,
                verdict(std::fabs(f4) <= 0.05));
    if (o.cliRuns > 0) {
        std::printf("| 5 | `run --strategy all` turnaround at 100x4000x5 (median of %d) | %.3f s | "
                    "<= 1.0 s | %s |\n",
                    o.cliRuns, onS, verdict(onS <= 1.0));
    }
    failures += pipelineFigures(o.block, device);
    return failures == 0 ? 0 : 1;
}
