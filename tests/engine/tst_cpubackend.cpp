#include "slicescope/backend/cpubackend.h"
#include "slicescope/compute/reference.h"
#include "slicescope/compute/workchain.h"
#include "slicescope/trace/hostthreadwait.h"
#include "slicescope/trace/runsummary.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <set>

using namespace slicescope;
using namespace slicescope::backend;
using compute::compareOutputs;
using compute::referenceOutput;
using strategy::StrategyId;

namespace {

RunRequest request(problem::Shape shape, problem::Dtype dtype, std::int64_t work,
                   std::uint32_t repeat = 1) {
    RunRequest r;
    r.problem = *problem::makeProblem(shape, dtype, work);
    r.repeat = repeat;
    return r;
}

} // namespace

TEST(CpuBackend, ReferenceFollowsTheFormula) {
    auto p = *problem::makeProblem({2, 3, 4}, problem::Dtype::F64, 1);
    auto cv = referenceOutput<double>(p);
    ASSERT_EQ(cv.size(), 24u);
    // cv[r][c][n] = multBy[c][n] * discount[r][c][n], multBy broadcast over r.
    for (std::uint64_t r = 0; r < 2; ++r) {
        for (std::uint64_t cn = 0; cn < 12; ++cn) {
            const double expected =
                compute::multByValue<double>(cn) * compute::discountValue<double>(r * 12 + cn);
            EXPECT_DOUBLE_EQ(cv[r * 12 + cn], expected);
        }
    }
    auto k3 = *problem::makeProblem({2, 3, 4}, problem::Dtype::F64, 3);
    auto cv3 = referenceOutput<double>(k3);
    const double m = compute::multByValue<double>(5), d = compute::discountValue<double>(5);
    double v = m * d;
    v = v * 0.75 + d * 0.25;
    v = v * 0.75 + d * 0.25;
    EXPECT_DOUBLE_EQ(cv3[5], v);
}

TEST(CpuBackend, CompareFindsTheLargestErrorAndPoison) {
    std::vector<float> expected{1.f, 2.f, 3.f};
    std::vector<float> close{1.f, 2.00001f, 3.f};
    auto ok = compareOutputs(expected, close.data(), close.size());
    EXPECT_TRUE(ok.withinTolerance);
    EXPECT_NEAR(ok.maxAbsError, 1e-5, 2e-6);
    std::vector<float> off{1.f, 2.f, 3.5f};
    auto bad = compareOutputs(expected, off.data(), off.size());
    EXPECT_FALSE(bad.withinTolerance);
    EXPECT_DOUBLE_EQ(bad.maxAbsError, 0.5);
    std::vector<float> poisoned{1.f, std::numeric_limits<float>::quiet_NaN(), 3.f};
    EXPECT_FALSE(compareOutputs(expected, poisoned.data(), poisoned.size()).withinTolerance);
}

TEST(CpuBackend, CompareOnALargeOutputFindsTheSameErrorAndPoisonAsOnASmallOne) {
    // Large enough that the comparison is split over the host's threads.
    auto p = *problem::makeProblem({64, 4096, 5}, problem::Dtype::F64, 2);
    const auto expected = referenceOutput<double>(p);
    ASSERT_EQ(expected.size(), 64u * 4096 * 5);
    std::vector<double> discount, multBy;
    compute::fillInputs(p, discount, multBy);
    std::vector<double> serial(p.elements());
    for (std::uint64_t r = 0; r < 64; ++r) { // one thread, slice after slice
        compute::computeSlice(p, r, discount.data(), multBy.data(), serial.data());
    }
    EXPECT_TRUE(serial == expected) << "the reference depends on how it was split over threads";
    auto actual = expected;
    EXPECT_TRUE(compareOutputs(expected, actual.data(), actual.size()).withinTolerance);
    EXPECT_EQ(compareOutputs(expected, actual.data(), actual.size()).maxAbsError, 0.0);
    actual.back() += 0.25; // the largest error in the last thread's share
    actual[actual.size() / 3] += 0.125;
    auto off = compareOutputs(expected, actual.data(), actual.size());
    EXPECT_FALSE(off.withinTolerance);
    EXPECT_DOUBLE_EQ(off.maxAbsError, 0.25);
    actual[7] = std::numeric_limits<double>::quiet_NaN(); // poison in the first thread's share
    auto poisoned = compareOutputs(expected, actual.data(), actual.size());
    EXPECT_FALSE(poisoned.withinTolerance);
    EXPECT_TRUE(std::isinf(poisoned.maxAbsError));
}

struct CpuCase {
    StrategyId id;
    problem::Shape shape;
    problem::Dtype dtype;
    std::int64_t work;
};

class CpuRuns : public testing::TestWithParam<CpuCase> {};

TEST_P(CpuRuns, AreVerifiedAndTimed) {
    const auto& c = GetParam();
    auto run = runCpu(c.id, request(c.shape, c.dtype, c.work, 2));
    ASSERT_TRUE(run) << run.error().message;
    EXPECT_EQ(run->mode, trace::RunMode::MeasuredCpu);
    EXPECT_EQ(run->strategy, strategy::toString(c.id));
    ASSERT_TRUE(run->verification);
    EXPECT_TRUE(run->verification->passed);
    EXPECT_LE(run->verification->maxAbsError, 1e-5);
    EXPECT_GT(run->wallNs, 0);
    EXPECT_FALSE(run->device.name.empty());
    // Two iterations of compute, each a host activity inside the run's wall time.
    std::set<std::uint16_t> iterations;
    for (const auto& a : run->activities) {
        EXPECT_EQ(a.kind, trace::ActivityKind::Host);
        EXPECT_LE(a.startNs, a.endNs);
        if (a.threadId == 0 && run->name(a).rfind("compute", 0) == 0) {
            iterations.insert(a.iteration);
        }
    }
    EXPECT_EQ(iterations, (std::set<std::uint16_t>{0, 1}));
    EXPECT_LE(run->endNs() - run->beginNs(), run->wallNs);
}

INSTANTIATE_TEST_SUITE_P(
    ShapesAndTypes, CpuRuns,
    testing::Values(CpuCase{StrategyId::CpuSerial, {100, 4000, 5}, problem::Dtype::F64, 1},
                    CpuCase{StrategyId::CpuParallel, {100, 4000, 5}, problem::Dtype::F64, 1},
                    CpuCase{StrategyId::CpuSerial, {1, 1, 1}, problem::Dtype::F32, 1},
                    CpuCase{StrategyId::CpuParallel, {7, 3, 1}, problem::Dtype::F32, 4},
                    CpuCase{StrategyId::CpuParallel, {3, 1000, 17}, problem::Dtype::F64, 16},
                    CpuCase{StrategyId::CpuSerial, {64, 64, 64}, problem::Dtype::F32, 2}));

TEST(CpuBackend, ParallelRunsEveryThreadOnSlices) {
    auto run = runCpu(StrategyId::CpuParallel, request({64, 1000, 5}, problem::Dtype::F64, 1));
    ASSERT_TRUE(run);
    std::size_t slices = 0;
    for (const auto& a : run->activities) {
        const auto name = run->name(a);
        if (a.threadId != 0) {
            // "compute: thread T, S slices"
            const auto comma = name.find(", ");
            slices += std::stoul(std::string(name.substr(comma + 2)));
        }
    }
    EXPECT_EQ(slices, 64u);
}

TEST(CpuBackend, WarmupIterationsAreMarkedAndLeftOutOfTheFigures) {
    for (const StrategyId id : {StrategyId::CpuSerial, StrategyId::CpuParallel}) {
        RunRequest r = request({50, 400, 5}, problem::Dtype::F64, 1, 3);
        r.warmup = 2;
        auto run = runCpu(id, r);
        ASSERT_TRUE(run) << run.error().message;
        EXPECT_EQ(run->warmup, 2u);
        EXPECT_EQ(run->repeat, 3u);
        EXPECT_TRUE(run->verification && run->verification->passed);
        std::set<std::uint16_t> warm, measured;
        std::int64_t measuredComputeNs = 0;
        std::int64_t lastWarmEndNs = 0, firstMeasuredStartNs = run->endNs();
        for (const auto& a : run->activities) {
            if (a.threadId != 0 || run->name(a).rfind("compute", 0) != 0) {
                continue;
            }
            if (a.warmup) {
                warm.insert(a.iteration);
                lastWarmEndNs = std::max(lastWarmEndNs, a.endNs);
            } else {
                measured.insert(a.iteration);
                measuredComputeNs += a.durationNs();
                firstMeasuredStartNs = std::min(firstMeasuredStartNs, a.startNs);
            }
        }
        EXPECT_EQ(warm, (std::set<std::uint16_t>{0, 1}));
        EXPECT_EQ(measured, (std::set<std::uint16_t>{0, 1, 2}));
        EXPECT_LE(lastWarmEndNs, firstMeasuredStartNs) << "warm-up runs first";
        // The per-repetition figure is the measured iterations' alone.
        const auto summary = trace::summarize(*run);
        EXPECT_EQ(summary.hostComputeNs, measuredComputeNs);
        EXPECT_EQ(summary.perRepetitionNs(), measuredComputeNs / 3);
        if (id == StrategyId::CpuParallel) {
            // Worker threads' spans of a warm-up iteration are warm-up too.
            for (const auto& a : run->activities) {
                if (a.threadId != 0 && a.startNs < firstMeasuredStartNs) {
                    EXPECT_TRUE(a.warmup) << run->name(a);
                }
            }
        }
    }
}

TEST(CpuBackend, NotesThreadWaitExactlyWhenItsActivitiesShowIt) {
    // Whether threads wait depends on the machine's load, so the test holds the run to its own
    // activities: the note is there, once and word for word, when they show the wait, and not
    // otherwise; cpu-serial never has it.
    for (const StrategyId id : {StrategyId::CpuSerial, StrategyId::CpuParallel}) {
        auto run = runCpu(id, request({64, 1000, 5}, problem::Dtype::F64, 1, 5));
        ASSERT_TRUE(run) << run.error().message;
        const std::string expected = trace::hostThreadWaitNote(*run);
        const auto waitNotes =
            std::count_if(run->notes.begin(), run->notes.end(), [](const std::string& note) {
                return note.starts_with("host threads waited");
            });
        EXPECT_EQ(waitNotes, expected.empty() ? 0 : 1);
        if (!expected.empty()) {
            EXPECT_NE(std::find(run->notes.begin(), run->notes.end(), expected), run->notes.end());
        }
        EXPECT_EQ(trace::measureHostThreadWait(*run).has_value(), id == StrategyId::CpuParallel);
    }
}

TEST(CpuBackend, NoWarmupIsTheRunAsBefore) {
    auto run = runCpu(StrategyId::CpuParallel, request({50, 400, 5}, problem::Dtype::F64, 1, 2));
    ASSERT_TRUE(run);
    EXPECT_EQ(run->warmup, 0u);
    EXPECT_TRUE(std::none_of(run->activities.begin(), run->activities.end(),
                             [](const trace::Activity& a) { return a.warmup; }));
}

TEST(CpuBackend, RejectsGpuStrategies) {
    auto run = runCpu(StrategyId::SliceOuter, request({1, 1, 1}, problem::Dtype::F64, 1));
    ASSERT_FALSE(run);
    EXPECT_EQ(run.error().code, Error::Code::InvalidArgument);
}

TEST(CpuBackend, RefusesAProblemLargerThanMemoryBeforeAllocating) {
    // 2^40 doubles (8 TiB) per array: more than any test machine has.
    auto run =
        runCpu(StrategyId::CpuSerial, request({1ull << 20, 1ull << 20, 1}, problem::Dtype::F64, 1));
    ASSERT_FALSE(run);
    EXPECT_EQ(run.error().code, Error::Code::InsufficientMemory);
    EXPECT_NE(run.error().message.find("host memory"), std::string::npos);
}

TEST(CpuBackend, CancelStopsTheRun) {
    std::atomic<bool> cancel{true};
    Progress progress;
    progress.cancel = &cancel;
    auto run =
        runCpu(StrategyId::CpuSerial, request({10, 10, 10}, problem::Dtype::F64, 1), progress);
    ASSERT_FALSE(run);
    EXPECT_EQ(run.error().code, Error::Code::Cancelled);
}

// A cancel during the last pass stops it between slices (a pass of a large problem takes
// seconds; a remote cancel must end within two): the run is refused, not finished.
TEST(CpuBackend, CancelDuringThePassStopsIt) {
    for (const auto id : {StrategyId::CpuSerial, StrategyId::CpuParallel}) {
        std::atomic<bool> cancel{false};
        Progress progress;
        progress.cancel = &cancel;
        progress.report = [&cancel](std::string_view stage, double) {
            if (stage == "compute") {
                cancel.store(true);
            }
        };
        auto r = request({64, 10, 10}, problem::Dtype::F64, 1);
        r.warmup = 0;
        r.repeat = 1;
        auto run = runCpu(id, r, progress);
        ASSERT_FALSE(run) << strategy::toString(id);
        EXPECT_EQ(run.error().code, Error::Code::Cancelled);
    }
}

TEST(CpuBackend, PeriodicFillAndPoisonCoverEveryElementAtAnySplit) {
    for (const std::uint64_t count : {0ull, 1ull, 96ull, 97ull, 1000003ull}) {
        std::vector<double> out(count, -1.0);
        compute::fillPeriodic(out.data(), count, compute::kDiscountPeriod,
                              &compute::discountValue<double>);
        for (std::uint64_t i = 0; i < count; ++i) {
            ASSERT_EQ(out[i], compute::discountValue<double>(i))
                << "element " << i << " of " << count;
        }
        compute::poison(out.data(), count * sizeof(double));
        for (std::uint64_t i = 0; i < count; ++i) {
            ASSERT_TRUE(std::isnan(out[i])) << "element " << i << " of " << count;
        }
    }
}
