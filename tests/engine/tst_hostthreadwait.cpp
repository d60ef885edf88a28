#include "slicescope/trace/hostthreadwait.h"
#include "slicescope/trace/runsummary.h"
#include "slicescope/trace/tracejson.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <string>
#include <vector>

using namespace slicescope;
using namespace slicescope::trace;

namespace {

// One repetition of a cpu-parallel region as the CPU backend logs it: the region on host thread
// 0, and per thread its busy span, given as the offset of its first slice from the region's start
// and its length.
struct ThreadSpan {
    std::int64_t offsetNs = 0;
    std::int64_t busyNs = 0;
};
struct Repetition {
    std::int64_t regionNs = 0;
    std::vector<ThreadSpan> threads;
};

Activity host(trace::Run& run, std::string_view name, std::int64_t startNs, std::int64_t endNs,
              std::uint32_t threadId, std::uint16_t iteration, bool warmup) {
    Activity a;
    a.kind = ActivityKind::Host;
    a.startNs = startNs;
    a.endNs = endNs;
    a.nameId = run.intern(name);
    a.threadId = threadId;
    a.iteration = iteration;
    a.warmup = warmup;
    return a;
}

trace::Run cpuRun(std::string strategy) {
    trace::Run run;
    run.id = strategy;
    run.strategy = std::move(strategy);
    run.mode = RunMode::MeasuredCpu;
    run.problem = *problem::makeProblem({100, 4000, 5}, problem::Dtype::F64, 1);
    run.device.name = "Test CPU";
    run.verification = Verification{true, 0};
    return run;
}

// Repetitions one after another, 1 ms apart; warm-up ones first, as the backend runs them.
trace::Run parallelRun(const std::vector<Repetition>& measured,
                       const std::vector<Repetition>& warmup = {}) {
    trace::Run run = cpuRun("cpu-parallel");
    run.warmup = std::uint32_t(warmup.size());
    run.repeat = std::uint32_t(measured.size());
    std::int64_t t = 1'000'000;
    run.activities.push_back(host(run, "allocate and fill inputs", 0, t, 0, 0, false));
    auto add = [&](const std::vector<Repetition>& reps, bool warm) {
        for (std::size_t i = 0; i < reps.size(); ++i) {
            const auto it = std::uint16_t(i);
            run.activities.push_back(
                host(run, "compute (all threads)", t, t + reps[i].regionNs, 0, it, warm));
            for (std::size_t k = 0; k < reps[i].threads.size(); ++k) {
                const ThreadSpan& s = reps[i].threads[k];
                run.activities.push_back(
                    host(run, "compute: thread " + std::to_string(k) + ", 7 slices", t + s.offsetNs,
                         t + s.offsetNs + s.busyNs, std::uint32_t(k + 1), it, warm));
            }
            t += reps[i].regionNs + 1'000'000;
        }
    };
    add(warmup, true);
    add(measured, false);
    run.activities.push_back(host(run, "verify against reference", t, t + 100, 0, 0, false));
    std::sort(run.activities.begin(), run.activities.end(),
              [](const Activity& a, const Activity& b) { return a.startNs < b.startNs; });
    run.wallNs = t + 100;
    run.notes.push_back("4 host threads");
    return run;
}

// The seed shape on the H200's host, quiet: regions of 0.25-0.5 ms, every thread busy
// 0.3-0.4 ms, starting within a few microseconds of each other.
std::vector<Repetition> quietSeed() {
    return {{250'000, {{2'000, 240'000}, {3'000, 230'000}, {4'000, 200'000}}},
            {410'000, {{2'000, 400'000}, {5'000, 300'000}, {6'000, 310'000}}},
            {500'000, {{3'000, 380'000}, {4'000, 390'000}, {90'000, 360'000}}},
            {330'000, {{2'000, 320'000}, {3'000, 300'000}, {4'000, 310'000}}}};
}

// The same, noisy: regions of 4-10 ms while every thread still worked 0.36-0.44 ms, some
// starting milliseconds late.
std::vector<Repetition> noisySeed() {
    return {{4'000'000, {{2'000, 360'000}, {3'500'000, 400'000}, {4'000, 380'000}}},
            {5'100'000, {{2'000, 420'000}, {3'000, 410'000}, {4'600'000, 440'000}}},
            {10'000'000, {{2'000, 440'000}, {9'500'000, 390'000}, {5'000, 370'000}}},
            {6'000'000, {{1'000'000, 400'000}, {3'000, 380'000}, {5'500'000, 420'000}}}};
}

// What the function should find, worked out here from the repetitions themselves.
HostThreadWait expected(const std::vector<Repetition>& reps) {
    HostThreadWait w;
    std::int64_t regions = 0, busiest = 0;
    for (const Repetition& r : reps) {
        std::int64_t most = 0, latest = 0, lastEnd = 0;
        for (const ThreadSpan& s : r.threads) {
            most = std::max(most, s.busyNs);
            latest = std::max(latest, s.offsetNs);
            lastEnd = std::max(lastEnd, s.offsetNs + s.busyNs);
        }
        regions += r.regionNs;
        busiest += most;
        w.lateStartNs = std::max(w.lateStartNs, latest);
        w.lateCloseNs = std::max(w.lateCloseNs, r.regionNs - lastEnd);
    }
    w.repetitions = reps.size();
    w.regionNs = regions / std::int64_t(reps.size());
    w.busiestThreadNs = busiest / std::int64_t(reps.size());
    return w;
}

void expectFigures(const HostThreadWait& got, const HostThreadWait& want) {
    EXPECT_EQ(got.repetitions, want.repetitions);
    EXPECT_EQ(got.regionNs, want.regionNs);
    EXPECT_EQ(got.busiestThreadNs, want.busiestThreadNs);
    EXPECT_EQ(got.lateStartNs, want.lateStartNs);
    EXPECT_EQ(got.lateCloseNs, want.lateCloseNs);
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

} // namespace

TEST(HostThreadWait, QuietSeedFiguresAreNotFlagged) {
    const trace::Run run = parallelRun(quietSeed());
    const auto wait = measureHostThreadWait(run);
    ASSERT_TRUE(wait);
    expectFigures(*wait, expected(quietSeed()));
    EXPECT_FALSE(wait->waited());
    EXPECT_EQ(describeHostThreadWait(*wait), "");
    EXPECT_EQ(hostThreadWaitNote(run), "");
}

TEST(HostThreadWait, NoisySeedFiguresAreFlaggedWithTheirFigures) {
    const trace::Run run = parallelRun(noisySeed());
    const auto wait = measureHostThreadWait(run);
    ASSERT_TRUE(wait);
    const HostThreadWait want = expected(noisySeed());
    expectFigures(*wait, want);
    EXPECT_TRUE(wait->waited());
    // The region figure is the run's per-repetition figure, the one a user compares.
    EXPECT_EQ(wait->regionNs, summarize(run).perRepetitionNs());
    const std::string note = hostThreadWaitNote(run);
    EXPECT_EQ(note.rfind("host threads waited: the parallel compute took " +
                             formatDurationNs(want.regionNs) + " a repetition (mean of 4)",
                         0),
              0u)
        << note;
    EXPECT_TRUE(contains(note, "busiest thread worked " + formatDurationNs(want.busiestThreadNs)))
        << note;
    EXPECT_TRUE(
        contains(note, "threads started up to " + formatDurationNs(want.lateStartNs) + " late"))
        << note;
    EXPECT_TRUE(contains(note, "descheduled by the OS or a hypervisor")) << note;
    EXPECT_TRUE(contains(note, "re-run on a quiet machine to compare")) << note;
}

TEST(HostThreadWait, NoisyRunsAtMoreWorkAreFlagged) {
    // Work 8, noisy: regions of 3-12 ms, every thread busy about 0.9 ms.
    const std::vector<Repetition> reps = {{3'000'000, {{2'000, 900'000}, {2'000'000, 880'000}}},
                                          {12'000'000, {{2'000, 910'000}, {11'000'000, 900'000}}},
                                          {7'000'000, {{2'000, 890'000}, {6'000'000, 900'000}}}};
    const auto wait = measureHostThreadWait(parallelRun(reps));
    ASSERT_TRUE(wait);
    expectFigures(*wait, expected(reps));
    EXPECT_TRUE(wait->waited());
}

TEST(HostThreadWait, WarmupPassesAreLeftOut) {
    // Noisy warm-up, quiet measured repetitions: not flagged, and only the measured counted.
    const trace::Run quiet = parallelRun(quietSeed(), noisySeed());
    const auto calm = measureHostThreadWait(quiet);
    ASSERT_TRUE(calm);
    expectFigures(*calm, expected(quietSeed()));
    EXPECT_FALSE(calm->waited());
    EXPECT_EQ(hostThreadWaitNote(quiet), "");
    // Quiet warm-up, noisy measured ones: flagged with the measured figures alone.
    const trace::Run noisy = parallelRun(noisySeed(), quietSeed());
    const auto waited = measureHostThreadWait(noisy);
    ASSERT_TRUE(waited);
    expectFigures(*waited, expected(noisySeed()));
    EXPECT_TRUE(waited->waited());
    // Only warm-up repetitions: nothing measured to judge.
    EXPECT_FALSE(measureHostThreadWait(parallelRun({}, noisySeed())));
}

TEST(HostThreadWait, SerialRunsAreNeverFlagged) {
    // cpu-serial logs its repetitions on host thread 0 alone, however long they take.
    trace::Run run = cpuRun("cpu-serial");
    run.repeat = 3;
    for (std::int64_t i = 0; i < 3; ++i) {
        const std::int64_t t = 1'000'000 + i * 20'000'000;
        run.activities.push_back(
            host(run, "compute", t, t + 10'000'000, 0, std::uint16_t(i), false));
    }
    EXPECT_FALSE(measureHostThreadWait(run));
    EXPECT_EQ(hostThreadWaitNote(run), "");
}

TEST(HostThreadWait, RunsWithoutThreadSpansAreNeverFlagged) {
    // The noisy regions with their thread spans taken out.
    trace::Run run = parallelRun(noisySeed());
    std::erase_if(run.activities, [](const Activity& a) { return a.threadId != 0; });
    EXPECT_FALSE(measureHostThreadWait(run));
    EXPECT_EQ(hostThreadWaitNote(run), "");
    // Thread spans outside every region belong to none.
    trace::Run stray = parallelRun(noisySeed());
    for (Activity& a : stray.activities) {
        if (a.threadId != 0) {
            a.startNs += 1'000'000'000;
            a.endNs += 1'000'000'000;
        }
    }
    EXPECT_FALSE(measureHostThreadWait(stray));
}

TEST(HostThreadWait, OnlyRunsMeasuredOnTheCpuAreJudged) {
    for (const RunMode mode : {RunMode::MeasuredGpu, RunMode::Modelled, RunMode::Recorded}) {
        trace::Run run = parallelRun(noisySeed());
        run.mode = mode;
        EXPECT_FALSE(measureHostThreadWait(run)) << toString(mode);
    }
}

TEST(HostThreadWait, BothTheRatioAndTheFloorMustHold) {
    // Twice the busiest span and 0.5 ms more, exactly: flagged.
    EXPECT_TRUE(measureHostThreadWait(parallelRun({{1'000'000, {{0, 500'000}}}}))->waited());
    // 0.5 ms more but under twice (1.9x): a long region that mostly worked.
    EXPECT_FALSE(measureHostThreadWait(parallelRun({{1'900'000, {{0, 1'000'000}}}}))->waited());
    // Far over twice but less than 0.5 ms of waiting: a tiny region's thread wake-up.
    EXPECT_FALSE(measureHostThreadWait(parallelRun({{499'000, {{400'000, 10}}}}))->waited());
    EXPECT_TRUE(measureHostThreadWait(parallelRun({{500'010, {{400'000, 10}}}}))->waited());
}

TEST(HostThreadWait, OneStalledRepetitionThatDoublesTheFigureIsFlagged) {
    // Nine quiet repetitions and one held 6 ms by a descheduled thread: the median region is
    // quiet, but the figure the run reports (the mean) is more than twice the threads' work.
    std::vector<Repetition> reps(9, {400'000, {{2'000, 380'000}, {3'000, 390'000}}});
    reps.push_back({6'000'000, {{2'000, 380'000}, {5'500'000, 390'000}}});
    const trace::Run run = parallelRun(reps);
    const auto wait = measureHostThreadWait(run);
    ASSERT_TRUE(wait);
    expectFigures(*wait, expected(reps));
    EXPECT_EQ(wait->regionNs, summarize(run).perRepetitionNs());
    EXPECT_TRUE(wait->waited());
}

TEST(HostThreadWait, ARegionClosedLateSaysSo) {
    // Every thread started at once and finished early, but the region closed 3 ms later: a
    // thread with no slice left reached the closing barrier late.
    const std::vector<Repetition> reps = {{3'500'000, {{2'000, 400'000}, {3'000, 390'000}}}};
    const trace::Run run = parallelRun(reps);
    const HostThreadWait want = expected(reps);
    const std::string note = hostThreadWaitNote(run);
    EXPECT_TRUE(contains(note, "the region closed up to " + formatDurationNs(want.lateCloseNs) +
                                   " after its last slice"))
        << note;
    EXPECT_FALSE(contains(note, "(mean of")) << "one repetition: " << note;
    // The noisy seed's threads started late and the region closed soon after: no such words.
    EXPECT_FALSE(contains(hostThreadWaitNote(parallelRun(noisySeed())), "closed up to"));
}

TEST(HostThreadWait, SpansAreMatchedToRegionsByTimeNotIteration) {
    // Past 65,535 repetitions every activity's iteration reads 65,535: the spans still find
    // their own regions.
    trace::Run run = parallelRun(noisySeed());
    for (Activity& a : run.activities) {
        a.iteration = 0xffff;
    }
    const auto wait = measureHostThreadWait(run);
    ASSERT_TRUE(wait);
    expectFigures(*wait, expected(noisySeed()));
}

TEST(HostThreadWait, TheCpuVerdictCarriesTheWarning) {
    const trace::Run noisy = parallelRun(noisySeed());
    const trace::Run quiet = parallelRun(quietSeed());
    const std::vector<SummarizedRun> all = {{&noisy, summarize(noisy), {}, {}},
                                            {&quiet, summarize(quiet), {}, {}}};
    const std::string noisyVerdict = verdict(all[0], all);
    EXPECT_TRUE(contains(noisyVerdict, "; " + hostThreadWaitNote(noisy))) << noisyVerdict;
    EXPECT_FALSE(contains(verdict(all[1], all), "host threads waited")) << verdict(all[1], all);
}

TEST(HostThreadWait, OnlyTheHeldRegionOfARealSweepIsFlagged) {
    // cpu-parallel at work 1-32 of a work sweep measured on the H200's host (16 threads, one
    // repetition a point, from resources/samples/sweep-work-1-4096.json). At work 4 the region
    // took 5.80 ms while no thread worked more than 0.46 ms; at work 32, 8.67 ms against 5.66 ms
    // (a thread started 3.25 ms late, but the region mostly worked): only work 4 is flagged.
    const auto t = readTrace(SLICESCOPE_TEST_DATA_DIR "/cpu-parallel-h200-work-sweep.json");
    ASSERT_TRUE(t) << t.error().message;
    ASSERT_EQ(t->runs.size(), 6u);
    for (const trace::Run& run : t->runs) {
        const auto wait = measureHostThreadWait(run);
        ASSERT_TRUE(wait) << run.id;
        EXPECT_EQ(wait->repetitions, 1u) << run.id;
        EXPECT_EQ(wait->regionNs, summarize(run).perRepetitionNs()) << run.id;
        EXPECT_EQ(wait->waited(), run.id == "cpu-parallel@work=4") << run.id;
        EXPECT_EQ(hostThreadWaitNote(run).empty(), !wait->waited()) << run.id;
    }
}
