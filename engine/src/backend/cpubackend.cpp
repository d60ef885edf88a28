#include "slicescope/backend/cpubackend.h"

#include "slicescope/compute/reference.h"
#include "slicescope/core/clock.h"
#include "slicescope/trace/hostthreadwait.h"
#include "slicescope/trace/tracelimits.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <mutex>
#include <new>
#include <omp.h>
#include <thread>

namespace slicescope::backend {

namespace {

using compute::compareOutputs;
using compute::Comparison;
using compute::computeSlice;
using compute::fillInputs;
using compute::referenceOutput;
using problem::Problem;
using strategy::StrategyId;
using trace::Activity;
using trace::ActivityKind;

class ActivityLog {
  public:
    explicit ActivityLog(trace::Run& run) : run_(run) {}
    void add(std::string_view name, std::int64_t startNs, std::int64_t endNs,
             std::uint16_t iteration, std::uint32_t threadId = 0, bool warmup = false) {
        const std::lock_guard lock(mutex_);
        Activity a;
        a.kind = ActivityKind::Host;
        a.startNs = startNs;
        a.endNs = endNs;
        a.nameId = run_.intern(name);
        a.iteration = iteration;
        a.threadId = threadId;
        a.warmup = warmup;
        run_.activities.push_back(a);
    }

  private:
    trace::Run& run_;
    std::mutex mutex_;
};

template <typename T>
Result<trace::Run> runTyped(StrategyId id, const RunRequest& request, const Progress& progress) {
    const Problem& p = request.problem;
    trace::Run run;
    run.id = std::string(strategy::toString(id));
    run.strategy = run.id;
    run.mode = trace::RunMode::MeasuredCpu;
    run.problem = p;
    run.device.name = hostCpuName();
    run.repeat = request.repeat;
    run.warmup = request.warmup;
    run.createdAt = isoTimestampUtc();
    ActivityLog log(run);

    const std::int64_t runStart = hostNowNs();
    std::vector<T> discount, multBy, cv, reference;
    std::int64_t t0 = hostNowNs();
    try {
        fillInputs(p, discount, multBy);
        cv.assign(p.elements(), std::numeric_limits<T>::quiet_NaN()); // poisoned until computed
    } catch (const std::bad_alloc&) {
        return fail(Error::Code::InsufficientMemory,
                    "could not allocate the host buffers for " + p.describe());
    }
    log.add("allocate and fill inputs", t0, hostNowNs(), 0);

    const int threads = id == StrategyId::CpuParallel ? omp_get_max_threads() : 1;
    // Warm-up iterations first (the OpenMP pool is created on the first parallel region, the
    // output's pages are touched on the first pass), then the measured ones.
    const std::uint64_t iterations = std::uint64_t(request.warmup) + request.repeat;
    for (std::uint64_t pass = 0; pass < iterations; ++pass) {
        if (progress.cancelled()) {
            return fail(Error::Code::Cancelled, "cancelled");
        }
        const bool warm = pass < request.warmup;
        const std::uint64_t iteration = warm ? pass : pass - request.warmup;
        progress(warm ? "warm-up" : "compute", warm ? 0.0 : double(iteration) / request.repeat);
        const auto it = std::uint16_t(std::min<std::uint64_t>(iteration, 0xffff));
        t0 = hostNowNs();
        if (id == StrategyId::CpuSerial) {
            // A cancel is seen between slices, not only between passes: a pass may take seconds.
            for (std::uint64_t r = 0; r < p.shape.r && !progress.cancelled(); ++r) {
                computeSlice(p, r, discount.data(), multBy.data(), cv.data());
            }
        } else {
            // One task per outer slice over all cores; each thread's busy span is one activity.
            const auto slices = std::int64_t(p.shape.r);
#pragma omp parallel num_threads(threads)
            {
                std::int64_t first = 0, last = 0;
                std::uint64_t done = 0;
#pragma omp for schedule(dynamic, 1) nowait
                for (std::int64_t r = 0; r < slices; ++r) {
                    if (progress.cancelled()) {
                        continue; // the rest of the pass is skipped
                    }
                    const std::int64_t start = hostNowNs();
                    first = done == 0 ? start : first;
                    computeSlice(p, std::uint64_t(r), discount.data(), multBy.data(), cv.data());
                    last = hostNowNs();
                    ++done;
                }
                if (done > 0) {
                    const int thread = omp_get_thread_num();
                    log.add("compute: thread " + std::to_string(thread) + ", " +
                                std::to_string(done) + (done == 1 ? " slice" : " slices"),
                            first, last, it, std::uint32_t(thread + 1), warm);
                }
            }
        }
        if (progress.cancelled()) {
            return fail(Error::Code::Cancelled, "cancelled");
        }
        log.add(id == StrategyId::CpuSerial ? "compute" : "compute (all threads)", t0, hostNowNs(),
                it, 0, warm);
    }

    t0 = hostNowNs();
    reference = referenceOutput<T>(p);
    const Comparison cmp = compareOutputs(reference, cv.data(), cv.size());
    log.add("verify against reference", t0, hostNowNs(), 0);
    run.verification = trace::Verification{cmp.withinTolerance, cmp.maxAbsError};
    run.wallNs = hostNowNs() - runStart;
    run.notes.push_back(std::to_string(threads) +
                        (threads == 1 ? " host thread" : " host threads"));
    std::sort(run.activities.begin(), run.activities.end(),
              [](const Activity& a, const Activity& b) { return a.startNs < b.startNs; });
    // A region held open by a descheduled thread is not the CPU's speed: the run says so
    // (trace/hostthreadwait.h).
    if (std::string wait = trace::hostThreadWaitNote(run); !wait.empty()) {
        run.notes.push_back(std::move(wait));
    }
    progress("done", 1.0);
    return run; // a failed verification is part of the result: callers decide what it costs
}

} // namespace

Result<trace::Run> runCpu(StrategyId id, const RunRequest& request, const Progress& progress) {
    if (strategy::isGpu(id)) {
        return fail(Error::Code::InvalidArgument,
                    std::string(strategy::toString(id)) + " is a GPU strategy, not a CPU one");
    }
    if (request.repeat < 1) {
        return fail(Error::Code::InvalidArgument, "repeat must be >= 1");
    }
    if (request.warmup > trace::kMaxWarmup) {
        return fail(Error::Code::InvalidArgument,
                    "warmup must be at most " + std::to_string(trace::kMaxWarmup));
    }
    const auto available = problem::availableHostMemoryBytes();
    if (available) {
        auto fits = strategy::checkFits(id, request.problem, *available,
                                        std::numeric_limits<std::uint64_t>::max());
        if (!fits) {
            return tl::unexpected(fits.error());
        }
    }
    if (request.problem.dtype == problem::Dtype::F64) {
        return runTyped<double>(id, request, progress);
    }
    return runTyped<float>(id, request, progress);
}

std::string hostCpuName() {
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos) {
                return line.substr(line.find_first_not_of(" \t", colon + 1));
            }
        }
    }
    return "host CPU";
}

} // namespace slicescope::backend
