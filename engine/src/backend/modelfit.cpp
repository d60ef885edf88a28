#include "slicescope/backend/modelfit.h"

#include "slicescope/backend/modelbackend.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace slicescope::backend {

namespace {

// Each constant is searched over whole cycles within these bounds: wide enough for any GPU's L2
// latency (a few hundred cycles) and per-line cost, and for a block start of up to 1000 cycles.
struct Range {
    int low = 0, high = 0;
};
constexpr Range kL2MissRange{50, 1500};
constexpr Range kLineMissRange{0, 200};
constexpr Range kBlockLaunchRange{1, 1000};

// A coarse pass every `step` cycles, then every cycle around the coarse best. The error is
// smooth in each constant (sums of latencies), so the whole-cycle optimum lies within one coarse
// step of the coarse one.
template <typename Error> std::pair<int, int> searchTwo(Range a, Range b, const Error& error) {
    constexpr int kStep = 8;
    double best = std::numeric_limits<double>::infinity();
    std::pair<int, int> at{a.low, b.low};
    const auto scan = [&](Range ra, Range rb, int step) {
        for (int x = ra.low; x <= ra.high; x += step) {
            for (int y = rb.low; y <= rb.high; y += step) {
                const double e = error(x, y);
                if (e < best) {
                    best = e;
                    at = {x, y};
                }
            }
        }
    };
    scan(a, b, kStep);
    const auto around = [](int v, Range r) {
        return Range{std::max(r.low, v - kStep), std::min(r.high, v + kStep)};
    };
    const auto coarse = at;
    scan(around(coarse.first, a), around(coarse.second, b), 1);
    return at;
}

} // namespace

Result<ModelFit> fitModelConstants(const trace::Trace& sample) {
    std::map<std::string, const trace::Run*> runs;
    for (const auto& run : sample.runs) {
        if (run.mode == trace::RunMode::MeasuredGpu) {
            runs.emplace(run.strategy, &run);
        }
    }
    const char* const latencyFitted[] = {"one-worker", "slice-middle", "slice-middle-strided"};
    const char* const blockFitted = "elementwise-materialized";
    for (const char* name : {latencyFitted[0], latencyFitted[1], latencyFitted[2], blockFitted}) {
        if (runs.count(name) == 0) {
            return fail(Error::Code::InvalidArgument,
                        std::string("the calibration sample has no measured GPU run of ") + name);
        }
        if (auto c = compareWithModel(*runs[name]); !c) {
            return tl::unexpected(c.error());
        }
    }
    const auto logRatio = [&](const char* name, const ModelParameters& m) {
        const auto c = compareWithModel(*runs.at(name), m); // checked above: the run compares
        return std::log(c->ratio());
    };

    ModelFit fit;
    const auto [l2Miss, lineMiss] = searchTwo(kL2MissRange, kLineMissRange, [&](int x, int y) {
        ModelParameters m = fit.parameters;
        m.l2MissCycles = x;
        m.lineMissCycles = y;
        double sum = 0;
        for (const char* name : latencyFitted) {
            const double r = logRatio(name, m);
            sum += r * r;
        }
        return sum;
    });
    fit.parameters.l2MissCycles = l2Miss;
    fit.parameters.lineMissCycles = lineMiss;

    const auto blockError = [&](int x) {
        ModelParameters m = fit.parameters;
        m.blockLaunchCycles = x;
        return std::abs(logRatio(blockFitted, m));
    };
    double best = std::numeric_limits<double>::infinity();
    for (int x = kBlockLaunchRange.low; x <= kBlockLaunchRange.high; ++x) {
        if (const double e = blockError(x); e < best) {
            best = e;
            fit.parameters.blockLaunchCycles = x;
        }
    }
    // Where block scheduling is not what bounds the kernel, its time does not move with the
    // constant: the scan then stops at the range's first value, which would be no fit at all.
    const int block = int(fit.parameters.blockLaunchCycles);
    if (block == kBlockLaunchRange.low || blockError(block - 1) == best) {
        return fail(Error::Code::InvalidArgument,
                    std::string("the calibration sample's ") + blockFitted +
                        " is not bound by block scheduling in the model, so it does not determine "
                        "blockLaunchCycles");
    }

    for (const char* name : {latencyFitted[0], latencyFitted[1], latencyFitted[2], blockFitted}) {
        const auto c = compareWithModel(*runs.at(name), fit.parameters);
        fit.residuals.push_back({name, c->measuredKernelNs, c->modelledKernelNs});
    }
    return fit;
}

} // namespace slicescope::backend
