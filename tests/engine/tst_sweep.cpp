// Sweep plans (--param, --values, --range), crossovers, and the sweep fields of the trace.
#include "slicescope/sweep/crossover.h"
#include "slicescope/sweep/sweepplan.h"
#include "slicescope/trace/tracejson.h"
#include "slicescope/trace/tracelimits.h"

#include <cmath>
#include <filesystem>
#include <gtest/gtest.h>

namespace slicescope::sweep {
namespace {

using Values = std::vector<std::string>;

TEST(SweepParam, ParsesEveryNameAndRefusesOthers) {
    for (auto name : {"block", "rows", "columns", "n", "work", "dtype", "memory"}) {
        auto param = parseSweepParam(name);
        ASSERT_TRUE(param) << name;
        EXPECT_EQ(toString(*param), name);
    }
    auto bad = parseSweepParam("registers");
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code, Error::Code::InvalidArgument);
    EXPECT_NE(bad.error().message.find("unknown sweep parameter 'registers'"), std::string::npos);
    EXPECT_TRUE(isNumeric(SweepParam::Block));
    EXPECT_FALSE(isNumeric(SweepParam::Dtype));
    EXPECT_FALSE(isNumeric(SweepParam::Memory));
}

TEST(SweepValues, ParsesAListInOrderWithCanonicalText) {
    EXPECT_EQ(*parseValues(SweepParam::Block, "32, 064,128"), (Values{"32", "64", "128"}));
    EXPECT_EQ(*parseValues(SweepParam::Dtype, "f64,f32"), (Values{"f64", "f32"}));
    EXPECT_EQ(*parseValues(SweepParam::Memory, "pageable,pinned"), (Values{"pageable", "pinned"}));
}

TEST(SweepValues, RefusesEmptyInvalidAndRepeatedValues) {
    struct Case {
        SweepParam param;
        const char* list;
        const char* why;
    };
    for (const auto& c :
         {Case{SweepParam::Block, "", "empty"}, Case{SweepParam::Block, "32,,64", "empty value"},
          Case{SweepParam::Block, "0", "from 1 to 1024"},
          Case{SweepParam::Block, "2000", "from 1 to 1024"},
          Case{SweepParam::Work, "0", "from 1 to 4294967295"},
          Case{SweepParam::Work, "4294967296", "from 1 to 4294967295"},
          Case{SweepParam::Rows, "-5", "whole number"},
          Case{SweepParam::Rows, "1.5", "whole number"}, Case{SweepParam::Dtype, "f16", "dtype"},
          Case{SweepParam::Memory, "swap", "memory"}, Case{SweepParam::N, "4,4", "twice"}}) {
        auto values = parseValues(c.param, c.list);
        ASSERT_FALSE(values) << c.list;
        EXPECT_EQ(values.error().code, Error::Code::InvalidArgument);
        EXPECT_NE(values.error().message.find(c.why), std::string::npos) << values.error().message;
    }
}

TEST(SweepValues, RefusesMoreThanTheMaximumPoints) {
    std::string list;
    for (std::size_t i = 1; i <= kMaxPoints + 1; ++i) {
        list += (i == 1 ? "" : ",") + std::to_string(i);
    }
    auto values = parseValues(SweepParam::Rows, list);
    ASSERT_FALSE(values);
    EXPECT_NE(values.error().message.find("at most 1000 points"), std::string::npos);
}

TEST(SweepRange, MultipliesAddsAndDefaultsToDoubling) {
    EXPECT_EQ(*parseRange(SweepParam::Block, "32:1024:x2"),
              (Values{"32", "64", "128", "256", "512", "1024"}));
    EXPECT_EQ(*parseRange(SweepParam::Block, "32:1024"),
              (Values{"32", "64", "128", "256", "512", "1024"}));
    EXPECT_EQ(*parseRange(SweepParam::Rows, "100:100000:x10"),
              (Values{"100", "1000", "10000", "100000"}));
    EXPECT_EQ(*parseRange(SweepParam::Work, "1:10:+4"), (Values{"1", "5", "9"}));
    EXPECT_EQ(*parseRange(SweepParam::Work, "7:7"), (Values{"7"}));
    // A factor too small to move past a whole number still advances by one.
    EXPECT_EQ(*parseRange(SweepParam::N, "1:4:x1.1"), (Values{"1", "2", "3", "4"}));
    EXPECT_EQ(parseRange(SweepParam::Block, "32:1024:+32")->size(), 32u);
}

TEST(SweepRange, RefusesRangesThatDoNotEndOrAreTooLong) {
    for (const auto* range : {"32:1024:x1", "32:1024:x0.5", "32:1024:+0", "1024:32", "32",
                              "1:2:3:4", "32:1024:*2", "0:64", "32:2048", "1:100000:+1"}) {
        auto values = parseRange(SweepParam::Block, range);
        EXPECT_FALSE(values) << range;
    }
    auto tooMany = parseRange(SweepParam::Rows, "1:100000:+1");
    ASSERT_FALSE(tooMany);
    EXPECT_NE(tooMany.error().message.find("more than 1000 points"), std::string::npos);
    auto notNumeric = parseRange(SweepParam::Dtype, "1:2");
    ASSERT_FALSE(notNumeric);
    EXPECT_NE(notNumeric.error().message.find("--values"), std::string::npos);
}

TEST(SweepApply, SetsTheParameterAndKeepsTheRest) {
    backend::RunRequest base;
    base.problem = *problem::makeProblem({100, 4000, 5}, problem::Dtype::F64, 1);
    base.repeat = 3;
    auto block = applyValue(SweepParam::Block, "256", base);
    ASSERT_TRUE(block);
    EXPECT_EQ(block->block.mode, strategy::BlockOption::Mode::Explicit);
    EXPECT_EQ(block->block.threads, 256u);
    EXPECT_EQ(block->problem, base.problem);
    EXPECT_EQ(block->repeat, 3u);
    EXPECT_EQ(applyValue(SweepParam::Rows, "7", base)->problem.shape, (problem::Shape{7, 4000, 5}));
    EXPECT_EQ(applyValue(SweepParam::Columns, "7", base)->problem.shape,
              (problem::Shape{100, 7, 5}));
    EXPECT_EQ(applyValue(SweepParam::N, "7", base)->problem.shape, (problem::Shape{100, 4000, 7}));
    EXPECT_EQ(applyValue(SweepParam::Work, "40", base)->problem.workPerElement, 40u);
    EXPECT_EQ(applyValue(SweepParam::Dtype, "f32", base)->problem.dtype, problem::Dtype::F32);
    EXPECT_EQ(applyValue(SweepParam::Memory, "pinned", base)->memory, backend::MemoryMode::Pinned);
    auto overflow = applyValue(SweepParam::Rows, "18446744073709551615", base);
    ASSERT_FALSE(overflow);
    EXPECT_NE(overflow.error().message.find("64 bits"), std::string::npos);
}

// --- Crossovers ---

TEST(Crossover, NoneWhenOneStrategyLeadsThroughout) {
    const Values x{"1", "2", "4"};
    auto c = findCrossovers("work", x, {{"a", {1, 2, 3}}, {"b", {5, 6, 7}}}, true);
    EXPECT_TRUE(c.empty());
}

TEST(Crossover, SinglePointHasNone) {
    auto c = findCrossovers("work", {"8"}, {{"a", {2}}, {"b", {1}}}, true);
    EXPECT_TRUE(c.empty());
}

TEST(Crossover, InterpolatesExactlyOnLogAxes) {
    // a = x ns, b = 100/x ns: straight lines on log-log axes, equal at x = 10.
    const Values x{"1", "100"};
    auto c = findCrossovers("work", x, {{"a", {1, 100}}, {"b", {100, 1}}}, true);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0].from, "a");
    EXPECT_EQ(c[0].to, "b");
    EXPECT_EQ(c[0].lowValue, "1");
    EXPECT_EQ(c[0].highValue, "100");
    EXPECT_TRUE(c[0].interpolated);
    EXPECT_NEAR(c[0].at, 10.0, 1e-9);
    EXPECT_NE(c[0].text.find("from work ≈ 10 b beats a (interpolated between 1 and 100)"),
              std::string::npos)
        << c[0].text;
}

// A crossover past 1000 reads as a number, never "1.8e+03": the sweep view's note and the CLI
// print this text to students.
TEST(Crossover, LargeValuesAreWrittenWithoutAnExponent) {
    // a = x, b = 1800^2 / x: equal at x = 1800.
    auto c =
        findCrossovers("rows", {"1000", "10000"}, {{"a", {1000, 10000}}, {"b", {3240, 324}}}, true);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_NEAR(c[0].at, 1800.0, 1e-6);
    EXPECT_NE(c[0].text.find("from rows ≈ 1800 b beats a"), std::string::npos) << c[0].text;
    // a = x, b = 12,300,000^2 / x: equal at x = 12,300,000.
    auto big = findCrossovers("n", {"1000000", "100000000"},
                              {{"a", {1e6, 1e8}}, {"b", {1.5129e8, 1.5129e6}}}, true);
    ASSERT_EQ(big.size(), 1u);
    EXPECT_NE(big[0].text.find("from n ≈ 12300000 b beats a"), std::string::npos) << big[0].text;
}

TEST(Crossover, InterpolatesExactlyOnLinearAxes) {
    // a = 10 + x, b = 40 - x: equal at x = 15.
    auto c = findCrossovers("rows", {"10", "20"}, {{"a", {20, 30}}, {"b", {30, 20}}}, false);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_NEAR(c[0].at, 15.0, 1e-12);
}

TEST(Crossover, FindsTwoCrossoversInOrder) {
    const Values x{"1", "10", "100", "1000"};
    auto c = findCrossovers("block", x, {{"a", {1, 5, 50, 2}}, {"b", {2, 3, 40, 30}}}, true);
    ASSERT_EQ(c.size(), 2u);
    EXPECT_EQ(c[0].from, "a");
    EXPECT_EQ(c[0].to, "b");
    EXPECT_EQ(c[0].lowValue, "1");
    EXPECT_EQ(c[0].highValue, "10");
    EXPECT_GT(c[0].at, 1.0);
    EXPECT_LT(c[0].at, 10.0);
    EXPECT_EQ(c[1].from, "b");
    EXPECT_EQ(c[1].to, "a");
    EXPECT_EQ(c[1].lowValue, "100");
    EXPECT_EQ(c[1].highValue, "1000");
}

TEST(Crossover, ATieIsNoCrossover) {
    // b ties a at the middle point and never beats it: no crossover.
    auto c = findCrossovers("work", {"1", "2", "4"}, {{"a", {1, 2, 3}}, {"b", {5, 2, 7}}}, true);
    EXPECT_TRUE(c.empty());
    // A tie first, then b ahead: one crossover, from the tie to the point b leads.
    auto later =
        findCrossovers("work", {"1", "2", "4"}, {{"a", {1, 2, 3}}, {"b", {5, 2, 1}}}, true);
    ASSERT_EQ(later.size(), 1u);
    EXPECT_EQ(later[0].lowValue, "2");
    EXPECT_EQ(later[0].highValue, "4");
}

TEST(Crossover, ALeadOfLessThanTheTieShareIsNoCrossover) {
    // b is 3 % faster at the second point: a tie, the lead stays with a; 20 % faster at the third
    // is a lead, so one crossover. The times themselves crossed between the first and the second
    // point, and that is where it lies, never outside the points it names.
    const std::vector<std::string> values{"1", "2", "4"};
    const std::vector<sweep::Series> series{{"a", {100, 100, 100}}, {"b", {110, 97, 80}}};
    const auto c = sweep::findCrossovers("work", values, series, true);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0].from, "a");
    EXPECT_EQ(c[0].to, "b");
    EXPECT_EQ(c[0].lowValue, "1");
    EXPECT_EQ(c[0].highValue, "2");
    EXPECT_GT(c[0].at, 1.0);
    EXPECT_LT(c[0].at, 2.0);
    // b only 3 % faster at every point after the first: never a crossover.
    const std::vector<sweep::Series> close{{"a", {100, 100, 100}}, {"b", {110, 97, 97}}};
    EXPECT_TRUE(sweep::findCrossovers("work", values, close, true).empty());
}

TEST(Crossover, CategoriesAreNotInterpolated) {
    auto c = findCrossovers("dtype", {"f64", "f32"}, {{"a", {1, 5}}, {"b", {2, 3}}}, false);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_FALSE(c[0].interpolated);
    EXPECT_TRUE(std::isnan(c[0].at));
    EXPECT_NE(c[0].text.find("between dtype f64 and f32 b overtakes a"), std::string::npos);
}

TEST(Crossover, MissingPointsAreSkipped) {
    // b did not run at the middle point; a leads until b's last point, and the crossing is
    // interpolated across the gap, between the points where both ran.
    auto c = findCrossovers("work", {"1", "2", "4"}, {{"a", {1, 2, 3}}, {"b", {5, NAN, 1}}}, true);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0].lowValue, "1");
    EXPECT_EQ(c[0].highValue, "4");
    EXPECT_TRUE(c[0].interpolated);
    EXPECT_GT(c[0].at, 1.0);
    EXPECT_LT(c[0].at, 4.0);
}

TEST(Noise, TheFloorIsTheTieShareAndASpreadWidensIt) {
    // 100 against 104: within the 5 % floor. 100 against 110: beyond it, unless a run's
    // repetitions spread by 10 or more.
    const Series a{"a", {100, 100, 100}, {NAN, NAN, 12}};
    const Series b{"b", {104, 110, 110}};
    EXPECT_TRUE(withinNoise(a, b, 0));
    EXPECT_FALSE(withinNoise(a, b, 1));
    EXPECT_TRUE(withinNoise(a, b, 2));
    EXPECT_TRUE(withinNoise(b, a, 2)); // either run's spread
    // A point where one did not run is never within noise.
    EXPECT_FALSE(withinNoise(a, Series{"c", {NAN}}, 0));
}

TEST(Crossover, ALeadWithinTheRepetitionsSpreadIsNoCrossover) {
    // b leads by 20 % at the last point: a crossover with one repetition a point, none when b's
    // repetitions there spread by more than the lead.
    const Values x{"1", "2"};
    EXPECT_EQ(findCrossovers("work", x, {{"a", {100, 100}}, {"b", {110, 80}}}, true).size(), 1u);
    EXPECT_TRUE(
        findCrossovers("work", x, {{"a", {100, 100}}, {"b", {110, 80}, {NAN, 25}}}, true).empty());
}

TEST(Crossover, StrictLeadsCountEveryCrossingOfTheLines) {
    // a and b 2 % apart, taking turns: four crossings of the lines, no crossover beyond noise.
    const Values x{"1", "2", "4", "8", "16"};
    const std::vector<Series> series{{"a", {100, 100, 100, 100, 100}},
                                     {"b", {102, 98, 102, 98, 102}}};
    EXPECT_TRUE(findCrossovers("block", x, series, true).empty());
    const auto strict = findCrossovers("block", x, series, true, Lead::Strict);
    ASSERT_EQ(strict.size(), 4u);
    EXPECT_EQ(strict[0].to, "b");
    EXPECT_EQ(strict[1].to, "a");
    EXPECT_EQ(strict[3].lowValue, "8");
    EXPECT_EQ(strict[3].highValue, "16");
}

// --- The sweep's verdict ---

TEST(Verdict, NoCrossoverNamesTheWinner) {
    const auto v = judgeSweep("work", {"1", "2", "4"}, {{"a", {1, 2, 3}}, {"b", {5, 6, 7}}}, true);
    EXPECT_TRUE(v.crossovers.empty());
    EXPECT_TRUE(v.withinNoise.empty());
    EXPECT_EQ(v.winner, "a");
    EXPECT_EQ(v.winnerPoints, 3u);
    ASSERT_EQ(v.lines.size(), 1u);
    EXPECT_EQ(v.lines[0], "No crossover: a is the fastest at every value.");
}

TEST(Verdict, CrossingsWithinNoiseAreListedAndTheUnbeatenStrategyWins) {
    // b 2 % faster at two of five points, a 2 % faster at the others, and 30 % at the last: a is
    // never beaten beyond noise.
    const Values x{"1", "2", "4", "8", "16"};
    const auto v = judgeSweep(
        "block", x, {{"a", {100, 100, 100, 100, 70}}, {"b", {102, 98, 102, 98, 100}}}, true);
    EXPECT_TRUE(v.crossovers.empty());
    ASSERT_EQ(v.withinNoise.size(), 4u);
    EXPECT_EQ(v.winner, "a");
    EXPECT_EQ(v.winnerPoints, 3u);
    EXPECT_EQ(v.points, 5u);
    ASSERT_EQ(v.lines.size(), 3u);
    EXPECT_NE(v.lines[0].find("No crossover beyond noise: the lines cross 4 times, at block ≈ "),
              std::string::npos)
        << v.lines[0];
    EXPECT_NE(v.lines[0].find(", each time within noise (5 % of the faster time)."),
              std::string::npos)
        << v.lines[0];
    EXPECT_EQ(v.lines[1], "a wins: no strategy is faster beyond noise at any value (a is the "
                          "fastest at 3 of 5).");
    // Measured once a point: the verdict says how to measure the noise.
    EXPECT_NE(v.lines[2].find("--repeat"), std::string::npos) << v.lines[2];
    // Modelled lines have no noise to measure: no such advice.
    const auto model = judgeSweep(
        "block", x,
        {{"a", {100, 100, 100, 100, 70}, {}, true}, {"b", {102, 98, 102, 98, 100}, {}, true}},
        true);
    ASSERT_EQ(model.lines.size(), 2u);
    EXPECT_EQ(model.lines[1], v.lines[1]);
}

TEST(Verdict, StrategiesWithinNoiseEverywhereHaveNoWinner) {
    const auto v = judgeSweep("block", {"1", "2", "4"},
                              {{"a", {100, 100, 100}}, {"b", {102, 98, 102}, {5, 5, 5}}}, true);
    EXPECT_TRUE(v.crossovers.empty());
    EXPECT_EQ(v.withinNoise.size(), 2u);
    EXPECT_TRUE(v.winner.empty());
    ASSERT_EQ(v.lines.size(), 2u); // b repeated: its noise was measured, no advice
    EXPECT_NE(v.lines[0].find("or the spread of a run's repetitions where larger)"),
              std::string::npos)
        << v.lines[0];
    EXPECT_EQ(v.lines[1], "No strategy wins beyond noise: a and b are each within noise of the "
                          "fastest at every value.");
}

TEST(Verdict, SeveralCrossoversAreCountedAndListed) {
    const Values x{"1", "10", "100", "1000", "10000"};
    const auto v =
        judgeSweep("work", x, {{"a", {1, 5, 50, 2, 2.02}}, {"b", {2, 3, 40, 30, 2}}}, true);
    ASSERT_EQ(v.crossovers.size(), 2u);
    ASSERT_EQ(v.withinNoise.size(), 1u); // b 1 % ahead at the last point
    EXPECT_EQ(v.withinNoise[0].lowValue, "1000");
    EXPECT_TRUE(v.winner.empty());
    ASSERT_EQ(v.lines.size(), 5u);
    EXPECT_NE(v.lines[0].find("The lines cross 3 times, at work ≈ "), std::string::npos)
        << v.lines[0];
    EXPECT_NE(v.lines[0].find("; twice beyond noise:"), std::string::npos) << v.lines[0];
    EXPECT_EQ(v.lines[1], "Crossover: " + v.crossovers[0].text + ".");
    EXPECT_EQ(v.lines[2], "Crossover: " + v.crossovers[1].text + ".");
    EXPECT_EQ(v.lines[3], "The other is within noise (5 % of the faster time).");
    // Without the crossing within noise: the crossovers, counted.
    const auto clear =
        judgeSweep("work", x, {{"a", {1, 5, 50, 2, 1}}, {"b", {2, 3, 40, 30, 2}}}, true);
    ASSERT_EQ(clear.lines.size(), 3u);
    EXPECT_EQ(clear.lines[0], "The fastest strategy changes twice:");
    EXPECT_EQ(clear.lines[2], "Crossover: " + clear.crossovers[1].text + ".");
}

// A modelled GPU line beside a CPU line measured once a point, in a block sweep: the CPU does the
// same work at every block size, so its times' 6-8 % swings are noise, not three crossovers (the
// GUI's mixed block sweep reported them; a rerun of the CLI found none).
TEST(Verdict, ACpuLineInABlockSweepCountsItsSwingsAsNoise) {
    const Values x{"32", "64", "128", "256"};
    const std::vector<Series> lines{{"slice-2d", {100, 100, 100, 100}, {}, true},
                                    {"cpu-parallel", {94, 107, 93, 108}}};
    // Over rows the CPU's work changes: the same times are three crossovers.
    EXPECT_EQ(judgeSweep("rows", x, lines, true).crossovers.size(), 3u);
    const auto v = judgeSweep("block", x, lines, true);
    EXPECT_TRUE(v.crossovers.empty());
    EXPECT_EQ(v.withinNoise.size(), 3u);
    ASSERT_FALSE(v.lines.empty());
    EXPECT_EQ(v.lines[0], "cpu-parallel does the same work at every block: its times span 15 ns "
                          "(16 %), counted as its noise.");
    for (const auto& line : v.lines) {
        EXPECT_EQ(line.find("--repeat"), std::string::npos) << line; // its noise is measured
    }
    // A GPU line's swings over block sizes are its own: measured, they still cross.
    const std::vector<Series> gpus{{"slice-2d", {100, 100, 100, 100}},
                                   {"slice-outer", {94, 107, 93, 108}}};
    EXPECT_EQ(judgeSweep("block", x, gpus, true).crossovers.size(), 3u);
}

TEST(SweepParam, BlockAndMemoryChangeOnlyTheGpuStrategiesWork) {
    EXPECT_FALSE(changesWorkOf("block", "cpu-parallel"));
    EXPECT_FALSE(changesWorkOf("memory", "cpu-serial"));
    EXPECT_TRUE(changesWorkOf("block", "slice-2d"));
    EXPECT_TRUE(changesWorkOf("rows", "cpu-parallel"));
    EXPECT_TRUE(changesWorkOf("block", "no-such-strategy"));
}

TEST(Verdict, TheBasisLeadsTheLines) {
    const auto v = judgeSweep("work", {"1", "2"}, {{"a", {1, 2}}, {"b", {5, 6}}}, true,
                              "modelled GPU (NVIDIA H200) vs measured CPU on this host");
    ASSERT_EQ(v.lines.size(), 2u);
    EXPECT_EQ(v.lines[0], "Modelled GPU (NVIDIA H200) vs measured CPU on this host.");
}

TEST(Verdict, CategoriesListTheirCrossingsBetweenValues) {
    const auto v = judgeSweep("memory", {"pageable", "pinned", "managed"},
                              {{"a", {100, 100, 100}}, {"b", {101, 99, 101}}}, false);
    ASSERT_EQ(v.withinNoise.size(), 2u);
    EXPECT_NE(v.lines[0].find("at memory between pageable and pinned and between pinned and "
                              "managed"),
              std::string::npos)
        << v.lines[0];
}

TEST(SweepBasis, ModelledGpuBesideMeasuredCpuIsSaid) {
    trace::Run gpu, cpu, measured;
    gpu.mode = trace::RunMode::Modelled;
    gpu.device.id = "h200";
    gpu.device.name = "NVIDIA H200";
    cpu.mode = trace::RunMode::MeasuredCpu;
    cpu.device.name = "Some CPU";
    measured.mode = trace::RunMode::MeasuredGpu;
    EXPECT_EQ(sweepBasis({&gpu, &cpu}, "Some CPU"),
              "modelled GPU (NVIDIA H200) vs measured CPU on this host");
    // Opened on another machine: the CPU is named, not called this host.
    EXPECT_EQ(sweepBasis({&cpu, &gpu}, "Other CPU"),
              "modelled GPU (NVIDIA H200) vs measured CPU on Some CPU");
    EXPECT_EQ(sweepBasis({&measured, &cpu}, "Some CPU"), "");
    EXPECT_EQ(sweepBasis({&gpu}, "Some CPU"), "");
}

// --- The trace's sweep fields ---

TEST(SweepTrace, RoundTripsSweepPointsCeilingsAndSweeps) {
    trace::Trace t;
    t.generator = "test";
    for (int i = 0; i < 2; ++i) {
        trace::Run run;
        run.id = "slice-2d-" + std::to_string(i);
        run.strategy = "slice-2d";
        run.mode = trace::RunMode::Modelled;
        run.device.name = "NVIDIA H200";
        run.sweep = trace::SweepPoint{"block", i == 0 ? "32" : "64", std::uint32_t(i)};
        t.runs.push_back(run);
    }
    t.runs[1].ceilings = trace::Ceilings{4229.5, 55, 54.5, 6.7, 13.9, 33454.1, 66908.2, "measured"};
    trace::Run dtypeRun = t.runs[0];
    dtypeRun.id = "x";
    dtypeRun.sweep = trace::SweepPoint{"dtype", "f32", 1};
    t.runs.push_back(dtypeRun);
    trace::Sweep sweep;
    sweep.param = "block";
    sweep.values = {"32", "64"};
    sweep.scale = "log";
    sweep.strategies = {"slice-2d", "cpu-parallel"};
    sweep.complete = false;
    trace::Crossover c;
    c.from = "cpu-parallel";
    c.to = "slice-2d";
    c.lowValue = "32";
    c.highValue = "64";
    c.at = 40.5;
    c.interpolated = true;
    c.text = "from block ≈ 40.5 slice-2d beats cpu-parallel";
    sweep.crossovers.push_back(c);
    c.at = NAN;
    c.interpolated = false;
    sweep.crossovers.push_back(c);
    t.sweeps.push_back(sweep);

    const std::string text = trace::toJson(t);
    EXPECT_NE(text.find("\"sweep\": {\"index\":0,\"param\":\"block\",\"value\":32}"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("\"value\":\"f32\""), std::string::npos);
    EXPECT_NE(text.find("\"source\":\"measured\""), std::string::npos);
    auto back = trace::parseTrace(text);
    ASSERT_TRUE(back) << back.error().message;
    ASSERT_EQ(back->runs.size(), 3u);
    EXPECT_EQ(back->runs[0].sweep, t.runs[0].sweep);
    EXPECT_EQ(back->runs[1].sweep, t.runs[1].sweep);
    EXPECT_EQ(back->runs[2].sweep, dtypeRun.sweep);
    EXPECT_FALSE(back->runs[0].ceilings);
    EXPECT_EQ(back->runs[1].ceilings, t.runs[1].ceilings);
    EXPECT_EQ(back->runs[1].device.name, "NVIDIA H200");
    ASSERT_EQ(back->sweeps.size(), 1u);
    const auto& s = back->sweeps[0];
    EXPECT_EQ(s.param, "block");
    EXPECT_EQ(s.values, sweep.values);
    EXPECT_EQ(s.scale, "log");
    EXPECT_EQ(s.strategies, sweep.strategies);
    EXPECT_EQ(s.metric, "per_repetition_ns");
    EXPECT_FALSE(s.complete);
    ASSERT_EQ(s.crossovers.size(), 2u);
    EXPECT_EQ(s.crossovers[0].from, "cpu-parallel");
    EXPECT_EQ(s.crossovers[0].highValue, "64");
    EXPECT_EQ(s.crossovers[0].at, 40.5);
    EXPECT_TRUE(s.crossovers[0].interpolated);
    EXPECT_EQ(s.crossovers[0].text, c.text);
    EXPECT_TRUE(std::isnan(s.crossovers[1].at));
    EXPECT_FALSE(s.crossovers[1].interpolated);
    // Written again, the text is the same.
    EXPECT_EQ(trace::toJson(*back), text);
}

// The GPU worker writes every point of a sweep to one file that the CLI reads back: one
// strategy at several points must give a readable trace.
TEST(SweepTrace, OneStrategyAtEveryPointReadsBack) {
    trace::Trace t;
    t.generator = "test";
    for (const char* value : {"32", "64", "128"}) {
        trace::Run run;
        run.id = sweep::pointRunId("slice-2d", "block", value);
        run.strategy = "slice-2d";
        run.mode = trace::RunMode::Modelled;
        run.device.name = "NVIDIA H200";
        run.sweep = trace::SweepPoint{"block", value, std::uint32_t(t.runs.size())};
        t.runs.push_back(run);
    }
    EXPECT_EQ(t.runs[1].id, "slice-2d@block=64");
    auto back = trace::parseTrace(trace::toJson(t));
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(back->runs.size(), 3u);
}

TEST(SweepTrace, TracesWithoutSweepsHaveNoSweepFields) {
    trace::Trace t;
    trace::Run run;
    run.id = "a";
    run.strategy = "cpu-serial";
    run.device.name = "cpu";
    t.runs.push_back(run);
    const std::string text = trace::toJson(t);
    EXPECT_EQ(text.find("sweep"), std::string::npos);
    EXPECT_EQ(text.find("ceilings"), std::string::npos);
}

TEST(SweepTrace, RejectsMalformedSweepFields) {
    const std::string head =
        R"({"format":"slicescope-trace","version":1,"runs":[{"id":"a","strategy":"x","mode":"modelled","device":{"name":"d")";
    for (
        const auto& [tail, why] : std::vector<std::pair<std::string, std::string>>{
            {R"(},"activities":[],"sweep":{"value":3}}]})", "\"param\" is missing"},
            {R"(},"activities":[],"sweep":{"param":"block","value":-3}}]})", "\"value\""},
            {R"(},"activities":[],"sweep":{"param":"block"}}]})", "\"value\" is missing"},
            {R"(,"ceilings":{"dram_gbps":-1,"source":"measured"}},"activities":[]}]})",
             "dram_gbps"},
            {R"(,"ceilings":{"dram_gbps":1,"source":"guess"}},"activities":[]}]})", "\"source\""},
            {R"(},"activities":[]}],"sweeps":{}})", "\"sweeps\" must be an array"},
            {R"(},"activities":[]}],"sweeps":[{"values":[1]}]})", "\"param\" is missing"},
            {R"(},"activities":[]}],"sweeps":[{"param":"work","crossovers":[{"from":"a","to":"b","low_value":1}]}]})",
             "\"high_value\" is missing"}}) {
        auto parsed = trace::parseTrace(head + tail);
        ASSERT_FALSE(parsed) << tail;
        EXPECT_EQ(parsed.error().code, Error::Code::Parse);
        EXPECT_NE(parsed.error().message.find(why), std::string::npos) << parsed.error().message;
    }
}

// A file is hostile input: the reader refuses figures and sizes beyond tracelimits.h, and the
// writer refuses to write what could not be read back.
TEST(SweepTrace, RefusesSweepFieldsBeyondTheLimits) {
    const std::string head =
        R"({"format":"slicescope-trace","version":1,"runs":[{"id":"a","strategy":"x","mode":"modelled","device":{"name":"d")";
    std::string manyValues;
    for (std::size_t i = 0; i <= trace::kMaxSweepValues; ++i) {
        manyValues += (i == 0 ? "" : ",") + std::to_string(i + 1);
    }
    const std::string longText(trace::kMaxShortTextBytes + 1, 'x');
    for (const auto& [tail, why] : std::vector<std::pair<std::string, std::string>>{
             {R"(,"ceilings":{"dram_gbps":1e9,"source":"measured"}},"activities":[]}]})",
              "dram_gbps"},
             {R"(,"ceilings":{"fp64_gflops":1e300,"source":"measured"}},"activities":[]}]})",
              "fp64_gflops"},
             {R"(},"activities":[]}],"sweeps":[{"param":"rows","values":[)" + manyValues + "]}]}",
              "more than 4096"},
             {R"(},"activities":[],"sweep":{"param":")" + longText + R"(","value":1}}]})",
              "longer than"}}) {
        auto parsed = trace::parseTrace(head + tail);
        ASSERT_FALSE(parsed) << tail.substr(0, 80);
        EXPECT_NE(parsed.error().message.find(why), std::string::npos) << parsed.error().message;
    }
    trace::Trace t;
    trace::Run run;
    run.id = "a";
    run.strategy = "slice-2d";
    run.device.name = "d";
    run.ceilings = trace::Ceilings{};
    run.ceilings->source = "measured";
    run.ceilings->dramGBps = 2 * trace::kMaxBandwidthGBps;
    t.runs.push_back(run);
    const auto path = std::filesystem::temp_directory_path() / "slicescope-tst-sweep-limits.json";
    auto written = trace::writeTrace(t, path);
    ASSERT_FALSE(written);
    EXPECT_NE(written.error().message.find("dram_gbps"), std::string::npos)
        << written.error().message;
    EXPECT_FALSE(std::filesystem::exists(path));
}

} // namespace
} // namespace slicescope::sweep
