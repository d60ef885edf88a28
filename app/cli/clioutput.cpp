#include "clioutput.h"

#include "slicescope/core/progressline.h"
#include "slicescope/explain/numbalaunch.h"
#include "slicescope/trace/hostthreadwait.h"
#include "slicescope/trace/runsummary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace slicescope::cli {

namespace {

bool isUsage(Error::Code code) {
    return code == Error::Code::InvalidArgument || code == Error::Code::OutOfRange ||
           code == Error::Code::Overflow;
}

// "0.024%", "1.4%", "100%": the window's figures (trace::formatPercent: two significant digits
// below 1 %, so a one-block launch reads as more than zero; 1.48 % is 1.4 %, as the window says
// it, not 1.5 %), without the space.
std::string percentText(double fraction) {
    std::string text = trace::formatPercent(fraction);
    if (const auto space = text.rfind(" %"); space != std::string::npos) {
        text.erase(space, 1);
    }
    return text;
}

// "limited by the grid", "limited by registers", "limited by shared memory".
std::string limitedBy(std::string_view limiter) {
    if (limiter == "grid") {
        return "limited by the grid";
    }
    std::string words(limiter);
    std::replace(words.begin(), words.end(), '-', ' ');
    return "limited by " + words;
}

std::string formatNs(std::int64_t ns) {
    char text[32];
    if (ns >= 1'000'000'000) {
        std::snprintf(text, sizeof text, "%.3f s", double(ns) / 1e9);
    } else if (ns >= 1'000'000) {
        std::snprintf(text, sizeof text, "%.3f ms", double(ns) / 1e6);
    } else {
        std::snprintf(text, sizeof text, "%.3f us", double(ns) / 1e3);
    }
    return text;
}

} // namespace

int reportError(const Error& error) {
    std::cerr << "slicescope-cli: error: " << error.message << '\n';
    return isUsage(error.code) ? kExitUsage : kExitFailure;
}

int reportUsageError(std::string_view message) {
    std::cerr << "slicescope-cli: error: " << message << '\n';
    return kExitUsage;
}

void printWarning(std::string_view message) {
    std::cerr << "slicescope-cli: warning: " << message << '\n';
}

void printLaunchChoices(std::ostream& out, const trace::Run& run) {
    for (const explain::NumbaLaunch& launch : explain::numbaLaunchesOf(run)) {
        out << "  numba: " << launch.explanation << '\n';
    }
}

void printRunSummary(const trace::Run& run) {
    std::int64_t copyNs = 0, kernelNs = 0, hostNs = 0;
    std::size_t kernels = 0;
    for (const auto& a : run.activities) {
        if (a.warmup) {
            continue; // the figures are the measured repetitions
        }
        if (trace::isCopy(a.kind)) {
            copyNs += a.durationNs();
        } else if (a.kind == trace::ActivityKind::Kernel) {
            kernelNs += a.durationNs();
            ++kernels;
        } else if (a.kind == trace::ActivityKind::Host && a.threadId == 0) {
            hostNs += a.durationNs();
        }
    }
    std::ostringstream line;
    line << run.id << " [" << trace::toString(run.mode) << "] ";
    // An imported Nsight Compute CSV has no host timeline: no wall time to give, rather than 0.
    line << (run.wallNs > 0 ? "wall " + formatNs(run.wallNs) : std::string("no wall time"));
    if (kernels > 0) {
        line << ", kernels " << formatNs(kernelNs) << " (" << kernels << ")";
    }
    if (copyNs > 0) {
        line << ", copies " << formatNs(copyNs);
    }
    if (hostNs > 0 && run.mode == trace::RunMode::MeasuredCpu) {
        line << ", host " << formatNs(hostNs);
    }
    if (run.occupancy) {
        // The launch's own share of the GPU first; CUDA's figure is a per-SM limit.
        if (const auto launch = trace::launchOccupancyOf(run)) {
            line << ", occupancy " << percentText(launch->occupancy) << " of the GPU (launch, "
                 << limitedBy(launch->limiter) << "), per-SM limit";
        } else {
            line << ", per-SM limit";
        }
        line << ' ' << percentText(run.occupancy->theoretical) << " (CUDA's theoretical occupancy)";
        if (run.occupancy->achieved) {
            line << ' ' << percentText(*run.occupancy->achieved) << " (achieved)";
        }
        char occ[64];
        std::snprintf(occ, sizeof occ, ", thread slots busy %.3g%%",
                      run.occupancy->threadSlotsBusy * 100);
        line << occ;
    }
    if (run.verification) {
        line << (run.verification->passed ? ", verified" : ", VERIFICATION FAILED");
    }
    std::cout << line.str() << '\n';
    // A cpu-parallel figure that is mostly threads waiting (trace/hostthreadwait.h).
    if (const std::string wait = trace::hostThreadWaitNote(run); !wait.empty()) {
        std::cout << "  note: " << wait << '\n';
    }
    printLaunchChoices(std::cout, run);
    if (run.chunks > 1) {
        // What the pipeline achieved (trace/runsummary.h).
        const trace::RunSummary s = trace::summarize(run);
        char text[256];
        std::snprintf(text, sizeof text,
                      "  pipeline: %u chunks on %u streams, overlap %.1f%% of copy time, bound %s "
                      "(%s), device busy %s (%.2fx the bound)",
                      run.chunks, run.streams, s.overlapShare() * 100,
                      formatNs(s.pipelineBoundNs()).c_str(),
                      std::string(s.pipelineLimiter()).c_str(), formatNs(s.deviceBusyNs).c_str(),
                      s.pipelineBoundNs() > 0 ? double(s.deviceBusyNs) / s.pipelineBoundNs() : 0.0);
        std::cout << text << '\n';
    }
}

void printProgress(bool enabled, std::string_view strategy, std::size_t index, std::size_t count,
                   std::string_view stage, double fraction) {
    printSweepProgress(enabled, core::SweepProgressPoint{}, strategy, index, count, stage,
                       fraction);
}

void printSweepProgress(bool enabled, const core::SweepProgressPoint& point,
                        std::string_view strategy, std::size_t index, std::size_t count,
                        std::string_view stage, double fraction) {
    if (!enabled) {
        return;
    }
    const core::RunProgressLine line{std::string(strategy), index,    count,
                                     std::string(stage),    fraction, point};
    std::cout << core::formatProgressLine(line) << std::endl; // flushed: a parent reads it live
}

} // namespace slicescope::cli
