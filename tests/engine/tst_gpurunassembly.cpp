// The GPU session's run assembly (engine/src/record/gpurunassembly.h) from hand-made records, as
// tst_recorder.cpp does for the recorder's run builder: no GPU, no CUPTI.
#include "cuda/countervalues.h"
#include "record/gpurunassembly.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace slicescope::record {
namespace {

using trace::Activity;
using trace::ActivityKind;

// The decoder's name table: [0] is the empty name.
const std::vector<std::string> kNames = {"", "cudaLaunchKernel", "cudaMemcpyAsync",
                                         "seedKernel<double>"};

MeasuredActivity api(std::uint32_t nameId, std::int64_t startNs, std::int64_t endNs,
                     std::uint32_t correlationId) {
    MeasuredActivity m;
    m.activity.kind = ActivityKind::Api;
    m.activity.nameId = nameId;
    m.activity.startNs = startNs;
    m.activity.endNs = endNs;
    m.activity.correlationId = correlationId;
    return m;
}

MeasuredActivity device(ActivityKind kind, std::int64_t startNs, std::int64_t endNs,
                        std::uint32_t correlationId) {
    MeasuredActivity m = api(kind == ActivityKind::Kernel ? 3 : 0, startNs, endNs, correlationId);
    m.activity.kind = kind;
    return m;
}

// Two iterations starting at 1000 and 2000 ns, each with a kernel issued by an API call. The
// first kernel is issued at 1100 but runs late, from 2050, inside the second iteration's span.
GpuRunRecords twoIterations() {
    GpuRunRecords r;
    r.runStartNs = 500;
    r.iterationStarts = {1000, 2000};
    r.hostSpans = {{"fill inputs", 600, 900, 0},
                   {"verify against the CPU reference", 1900, 1950, 0}};
    r.names = kNames;
    r.occupancy.theoretical = 0.5;
    r.records = {
        api(2, 1010, 1020, 1),
        device(ActivityKind::HtoD, 1030, 1090, 1),
        api(1, 1100, 1110, 2),
        device(ActivityKind::Kernel, 2050, 2300, 2), // issued in iteration 0, ran late
        api(1, 2100, 2110, 3),
        device(ActivityKind::Kernel, 2400, 2500, 3),
    };
    return r;
}

std::vector<const Activity*> ofKind(const trace::Run& run, ActivityKind kind) {
    std::vector<const Activity*> out;
    for (const auto& a : run.activities) {
        if (a.kind == kind) {
            out.push_back(&a);
        }
    }
    return out;
}

TEST(GpuRunAssembly, ActivitiesAreSortedNamedAndPlacedInTheirIteration) {
    trace::Run run;
    assembleGpuRun(twoIterations(), run);
    ASSERT_EQ(run.activities.size(), 8u);
    EXPECT_TRUE(
        std::is_sorted(run.activities.begin(), run.activities.end(),
                       [](const Activity& a, const Activity& b) { return a.startNs < b.startNs; }));
    const auto kernels = ofKind(run, ActivityKind::Kernel);
    ASSERT_EQ(kernels.size(), 2u);
    // Device work belongs to the iteration of the call that issued it, not of its start time.
    EXPECT_EQ(kernels[0]->iteration, 0u);
    EXPECT_EQ(kernels[1]->iteration, 1u);
    EXPECT_EQ(run.strings[kernels[0]->nameId], "seedKernel<double>");
    const auto calls = ofKind(run, ActivityKind::Api);
    ASSERT_EQ(calls.size(), 3u);
    EXPECT_EQ(run.strings[calls[0]->nameId], "cudaMemcpyAsync");
    EXPECT_EQ(run.strings[calls[1]->nameId], "cudaLaunchKernel");
    EXPECT_EQ(calls[1]->nameId, calls[2]->nameId); // interned once
    const auto host = ofKind(run, ActivityKind::Host);
    ASSERT_EQ(host.size(), 2u);
    EXPECT_EQ(run.strings[host[0]->nameId], "fill inputs");
    // Without counters: the theoretical figure on every kernel, no achieved one.
    for (const auto* k : kernels) {
        EXPECT_FLOAT_EQ(k->theoreticalOccupancy, 0.5f);
        EXPECT_TRUE(std::isnan(k->achievedOccupancy));
    }
    ASSERT_TRUE(run.occupancy);
    EXPECT_DOUBLE_EQ(run.occupancy->theoretical, 0.5);
    EXPECT_FALSE(run.occupancy->achieved);
    EXPECT_TRUE(run.occupancySeries.empty());
    EXPECT_TRUE(run.notes.empty());
}

TEST(GpuRunAssembly, RangesGoToKernelsInLaunchOrder) {
    GpuRunRecords r = twoIterations();
    r.ranges = {{0.25, 0.5}, {0.75, 1.0}};
    // CUPTI hands records over in any order: the later kernel first.
    std::swap(r.records[3], r.records[5]);
    trace::Run run;
    assembleGpuRun(r, run);
    const auto kernels = ofKind(run, ActivityKind::Kernel);
    ASSERT_EQ(kernels.size(), 2u);
    EXPECT_FLOAT_EQ(kernels[0]->achievedOccupancy, 0.25f);
    EXPECT_FLOAT_EQ(kernels[1]->achievedOccupancy, 0.75f);
    ASSERT_TRUE(run.occupancy);
    ASSERT_TRUE(run.occupancy->achieved);
    EXPECT_DOUBLE_EQ(*run.occupancy->achieved, 0.5);
    ASSERT_TRUE(run.occupancy->smBusyShare);
    EXPECT_DOUBLE_EQ(*run.occupancy->smBusyShare, 0.75);
    EXPECT_TRUE(run.notes.empty());
}

TEST(GpuRunAssembly, AMismatchedRangeCountIsNoted) {
    GpuRunRecords r = twoIterations();
    r.ranges = {{0.25, 0.5}};
    trace::Run run;
    assembleGpuRun(r, run);
    ASSERT_EQ(run.notes.size(), 1u);
    EXPECT_EQ(run.notes[0], "the counted pass gave 1 ranges for 2 traced kernels");
    EXPECT_FLOAT_EQ(ofKind(run, ActivityKind::Kernel)[0]->achievedOccupancy, 0.25f);
    EXPECT_TRUE(std::isnan(ofKind(run, ActivityKind::Kernel)[1]->achievedOccupancy));
}

TEST(GpuRunAssembly, UntimedUnknownDroppedAndRefusedAreCountedNotKept) {
    GpuRunRecords r = twoIterations();
    MeasuredActivity untimed = device(ActivityKind::Kernel, 0, 0, 9);
    untimed.timed = false;
    r.records.push_back(untimed);
    r.unknownRecords = 3;
    r.droppedRecords = 7;
    r.refusedBuffers = 2;
    trace::Run run;
    assembleGpuRun(r, run);
    EXPECT_EQ(ofKind(run, ActivityKind::Kernel).size(), 2u);
    EXPECT_EQ(run.droppedRecords, 7u);
    const std::vector<std::string> expected = {
        "2 CUPTI buffer requests were refused (pool full): records were dropped",
        "3 CUPTI records of kinds SliceScope does not read",
        "1 CUPTI records without timestamps were left out"};
    EXPECT_EQ(run.notes, expected);
}

TEST(GpuRunAssembly, WithoutCuptiTheRunSaysItHasHostActivitiesOnly) {
    GpuRunRecords r = twoIterations();
    r.cupti = false;
    r.records.clear();
    r.droppedRecords = 7; // not counted without CUPTI
    r.memory = backend::MemoryMode::Mapped;
    trace::Run run;
    assembleGpuRun(r, run);
    EXPECT_EQ(run.activities.size(), 2u);
    EXPECT_EQ(run.droppedRecords, 0u);
    ASSERT_EQ(run.notes.size(), 2u);
    EXPECT_EQ(run.notes[0], "CUPTI off: the run has host activities only");
    EXPECT_NE(run.notes[1].find("mapped zero-copy memory"), std::string::npos);
}

TEST(GpuRunAssembly, TheSampledSeriesIsCutToTheRunsDeviceWork) {
    GpuRunRecords r = twoIterations();
    r.sampled = true;
    // Device work spans 1030 to 2500: samples ending before the first iteration or starting
    // after the last device activity are someone else's.
    r.samples = {
        {0, 900, 0.1}, {900, 1100, 0.2}, {1100, 2400, 0.3}, {2400, 2600, 0.4}, {2600, 2800, 0.5}};
    r.samplesOverflowed = true;
    trace::Run run;
    assembleGpuRun(r, run);
    ASSERT_EQ(run.occupancySeries.size(), 3u);
    EXPECT_EQ(run.occupancySeries[0].timeNs, 900);
    EXPECT_FLOAT_EQ(run.occupancySeries[0].value, 0.2f);
    EXPECT_EQ(run.occupancySeries[2].timeNs, 2400);
    ASSERT_EQ(run.notes.size(), 2u);
    EXPECT_NE(run.notes[0].find("overflowed"), std::string::npos);
    // Sampling slows the sampled kernels: the run says so.
    EXPECT_NE(run.notes[1].find("slows the sampled kernels"), std::string::npos) << run.notes[1];
}

TEST(GpuRunAssembly, SamplesByClockSayTheirSpacingIsApproximate) {
    GpuRunRecords r = twoIterations();
    r.sampled = true;
    r.samples = {{1100, 2400, 0.3}};
    r.samplesByClock = true;
    trace::Run run;
    assembleGpuRun(r, run);
    ASSERT_EQ(run.notes.size(), 2u);
    EXPECT_NE(run.notes[1].find("sys-clock cycles"), std::string::npos) << run.notes[1];
}

// One warm-up pass (from 1000) before the two measured ones (from 2000 and 3000).
GpuRunRecords warmupThenTwo() {
    GpuRunRecords r;
    r.runStartNs = 500;
    r.iterationStarts = {1000, 2000, 3000};
    r.warmupIterations = 1;
    r.hostSpans = {{"fill inputs", 600, 900, kNoPass},
                   {"layout: discount to C x R x N", 1000, 1010, 0},
                   {"layout: discount to C x R x N", 2000, 2010, 1},
                   {"layout: discount to C x R x N", 3000, 3010, 2}};
    r.names = kNames;
    r.records = {
        api(2, 700, 710, 9), // before the first pass: set-up
        api(1, 1100, 1110, 1), device(ActivityKind::Kernel, 1200, 1900, 1), // warm-up
        api(1, 2100, 2110, 2), device(ActivityKind::Kernel, 2200, 2400, 2),
        api(1, 3100, 3110, 3), device(ActivityKind::Kernel, 3200, 3400, 3),
    };
    return r;
}

TEST(GpuRunAssembly, WarmupPassesAreMarkedAndNumberedApart) {
    trace::Run run;
    assembleGpuRun(warmupThenTwo(), run);
    const auto kernels = ofKind(run, ActivityKind::Kernel);
    ASSERT_EQ(kernels.size(), 3u);
    EXPECT_TRUE(kernels[0]->warmup);
    EXPECT_EQ(kernels[0]->iteration, 0);
    EXPECT_FALSE(kernels[1]->warmup);
    EXPECT_EQ(kernels[1]->iteration, 0);
    EXPECT_FALSE(kernels[2]->warmup);
    EXPECT_EQ(kernels[2]->iteration, 1);
    const auto host = ofKind(run, ActivityKind::Host);
    ASSERT_EQ(host.size(), 4u);
    EXPECT_FALSE(host[0]->warmup) << "set-up belongs to no iteration";
    const auto calls = ofKind(run, ActivityKind::Api);
    ASSERT_EQ(calls.size(), 4u);
    EXPECT_FALSE(calls[0]->warmup) << "an API call before the first pass is set-up";
    EXPECT_EQ(calls[0]->iteration, 0);
    EXPECT_TRUE(calls[1]->warmup);
    EXPECT_TRUE(host[1]->warmup);
    EXPECT_FALSE(host[2]->warmup);
    EXPECT_EQ(host[3]->iteration, 1);
}

TEST(GpuRunAssembly, RangesJoinTheMeasuredKernelsOnly) {
    // The counted pass replays the measured launches: its ranges skip the warm-up kernel.
    GpuRunRecords r = warmupThenTwo();
    r.ranges = {{0.25, 0.5}, {0.75, 1.0}};
    trace::Run run;
    assembleGpuRun(r, run);
    const auto kernels = ofKind(run, ActivityKind::Kernel);
    ASSERT_EQ(kernels.size(), 3u);
    EXPECT_TRUE(std::isnan(kernels[0]->achievedOccupancy));
    EXPECT_FLOAT_EQ(kernels[1]->achievedOccupancy, 0.25f);
    EXPECT_FLOAT_EQ(kernels[2]->achievedOccupancy, 0.75f);
    for (const auto& note : run.notes) {
        EXPECT_EQ(note.find("ranges for"), std::string::npos) << note;
    }
}

TEST(GpuRunAssembly, TheSeriesStartsAtTheFirstMeasuredIteration) {
    GpuRunRecords r = warmupThenTwo();
    r.sampled = true;
    r.samples = {{1100, 1800, 0.1}, {2100, 2300, 0.2}, {3200, 3300, 0.3}};
    trace::Run run;
    assembleGpuRun(r, run);
    ASSERT_EQ(run.occupancySeries.size(), 2u);
    EXPECT_EQ(run.occupancySeries[0].timeNs, 2100);
}

TEST(CounterValues, PercentagesBecomeFractionsThatAWriterAccepts) {
    EXPECT_DOUBLE_EQ(cuda::fractionOfPercent(50.0), 0.5);
    EXPECT_DOUBLE_EQ(cuda::fractionOfPercent(100.4), 1.0); // a counter a little over 100 %
    EXPECT_DOUBLE_EQ(cuda::fractionOfPercent(-0.1), 0.0);
    EXPECT_DOUBLE_EQ(cuda::fractionOfPercent(std::nan("")), 0.0);
}

TEST(CounterValues, PmSamplingFallsBackToClockCyclesOnTuringAndGa100) {
    const auto turing = cuda::pmTriggerPlan(7, 5, 1590, 10'000);
    EXPECT_EQ(turing.trigger, cuda::PmTrigger::SysClockInterval);
    EXPECT_EQ(turing.interval, 15'900u); // 10 us at 1590 MHz
    EXPECT_EQ(cuda::pmTriggerPlan(8, 0, 0, 10'000).trigger, cuda::PmTrigger::SysClockInterval);
    EXPECT_EQ(cuda::pmTriggerPlan(8, 0, 0, 10'000).interval, 10'000u); // 1 GHz when unknown
    for (const auto& [major, minor] : {std::pair{8, 6}, std::pair{8, 9}, std::pair{9, 0}}) {
        const auto plan = cuda::pmTriggerPlan(major, minor, 1980, 10'000);
        EXPECT_EQ(plan.trigger, cuda::PmTrigger::GpuTimeInterval);
        EXPECT_EQ(plan.interval, 10'000u);
    }
}

// The decode's image holds the sampled span's samples with some slack, within its bounds.
TEST(CounterValues, PmDecodeImageIsSizedForTheSpan) {
    // one-worker's 110 ms kernel at 10 us: 11,000 samples, and room to spare.
    const auto oneWorker = cuda::pmDecodeCapacity(110'000'000, 10'000, 50'000);
    EXPECT_GE(oneWorker, 11'000u);
    EXPECT_LE(oneWorker, 13'000u);
    EXPECT_EQ(cuda::pmDecodeCapacity(5'000'000'000, 10'000, 50'000), 50'000u); // capped
    EXPECT_EQ(cuda::pmDecodeCapacity(0, 10'000, 50'000), 64u);                 // never empty
    EXPECT_EQ(cuda::pmDecodeCapacity(-5, 10'000, 50'000), 64u);                // clock skew
    EXPECT_GE(cuda::pmDecodeCapacity(1'000'000, 0, 50'000), 64u);              // no division by 0
}

TEST(GpuRunAssembly, SamplesThatCouldNotBeTakenAreNoted) {
    GpuRunRecords r = twoIterations();
    r.sampled = true;
    r.samples = {{1100, 2400, 0.3}};
    r.samplesUnavailable = "PM sampling is not supported";
    trace::Run run;
    assembleGpuRun(r, run);
    EXPECT_TRUE(run.occupancySeries.empty());
    ASSERT_EQ(run.notes.size(), 1u);
    EXPECT_EQ(run.notes[0], "no occupancy samples: PM sampling is not supported");
}

} // namespace
} // namespace slicescope::record
