// The `progress {json}` line protocol (engine/include/slicescope/core/progressline.h): what the
// CLI writes, the models read back unchanged; malformed lines are errors, never garbage values.
#include "slicescope/core/progressline.h"

#include <gtest/gtest.h>

namespace slicescope::core {
namespace {

TEST(ProgressLine, RunProgressRoundTrips) {
    const RunProgressLine written{"slice-outer", 2, 5, "slice-outer: iteration 3 of 4", 0.5, {}};
    const std::string line = formatProgressLine(written);
    EXPECT_TRUE(line.starts_with("progress {"));
    EXPECT_EQ(line.find('\n'), std::string::npos);
    EXPECT_TRUE(isProgressLine(line));
    const auto read = parseRunProgressLine(line);
    ASSERT_TRUE(read) << read.error().message;
    EXPECT_EQ(read->strategy, written.strategy);
    EXPECT_EQ(read->index, written.index);
    EXPECT_EQ(read->count, written.count);
    EXPECT_EQ(read->stage, written.stage);
    EXPECT_DOUBLE_EQ(read->fraction, written.fraction);
}

TEST(ProgressLine, SweepPointRidesAlongARunLine) {
    const RunProgressLine written{"slice-2d", 1, 3, "kernel", 0.25, {4, 32, "block", "160"}};
    const std::string line = formatProgressLine(written);
    for (const char* key : {"\"point\":", "\"points\":", "\"param\":", "\"value\":"}) {
        EXPECT_NE(line.find(key), std::string::npos) << key;
    }
    const auto read = parseRunProgressLine(line);
    ASSERT_TRUE(read) << read.error().message;
    EXPECT_EQ(read->strategy, "slice-2d");
    EXPECT_EQ(read->sweep.point, 4u);
    EXPECT_EQ(read->sweep.points, 32u);
    EXPECT_EQ(read->sweep.param, "block");
    EXPECT_EQ(read->sweep.value, "160");
    // A run line has no sweep keys, and reads as no sweep (points 0).
    const std::string plain = formatProgressLine(RunProgressLine{"x", 0, 1, "compute", 0, {}});
    EXPECT_EQ(plain.find("\"points\":"), std::string::npos);
    EXPECT_EQ(parseRunProgressLine(plain)->sweep.points, 0u);
    // A point past the end is clamped like index.
    const auto past = parseRunProgressLine(R"(progress {"point":40,"points":32})");
    ASSERT_TRUE(past);
    EXPECT_EQ(past->sweep.point, 31u);
    EXPECT_FALSE(parseRunProgressLine(R"(progress {"point":"one"})"));
}

TEST(ProgressLine, SweepRunsDoneRideAlongWhenGiven) {
    const RunProgressLine written{"cpu-serial", 1,   2,
                                  "compute",    0.5, {0, 2, "block", "32", 2.5, 4}};
    const std::string line = formatProgressLine(written);
    EXPECT_NE(line.find("\"runs_done\":2.5"), std::string::npos) << line;
    EXPECT_NE(line.find("\"runs\":4"), std::string::npos) << line;
    const auto read = parseRunProgressLine(line);
    ASSERT_TRUE(read) << read.error().message;
    EXPECT_DOUBLE_EQ(read->sweep.runsDone, 2.5);
    EXPECT_EQ(read->sweep.runs, 4u);
    // Not given: no keys, and 0 runs (a reader falls back to the point).
    const std::string plain =
        formatProgressLine(RunProgressLine{"x", 0, 1, "compute", 0, {1, 2, "block", "64"}});
    EXPECT_EQ(plain.find("\"runs"), std::string::npos) << plain;
    EXPECT_EQ(parseRunProgressLine(plain)->sweep.runs, 0u);
    // More done than there are runs is clamped; a wrong type is an error.
    const auto past = parseRunProgressLine(R"(progress {"runs_done":9,"runs":4})");
    ASSERT_TRUE(past);
    EXPECT_DOUBLE_EQ(past->sweep.runsDone, 4.0);
    EXPECT_FALSE(parseRunProgressLine(R"(progress {"runs":"four"})"));
}

TEST(ProgressLine, RecordProgressRoundTrips) {
    const RecordProgressLine written{"counters", 2.54, 3, 40000000000, 7, 6, 5, 4};
    const std::string line = formatProgressLine(written);
    EXPECT_TRUE(isProgressLine(line));
    const auto read = parseRecordProgressLine(line);
    ASSERT_TRUE(read) << read.error().message;
    EXPECT_EQ(read->stage, "counters");
    EXPECT_DOUBLE_EQ(read->elapsedS, 2.54);
    EXPECT_EQ(read->processes, 3u);
    EXPECT_EQ(read->apiCalls, 40000000000u);
    EXPECT_EQ(read->kernels, 7u);
    EXPECT_EQ(read->copies, 6u);
    EXPECT_EQ(read->memsets, 5u);
    EXPECT_EQ(read->droppedRecords, 4u);
}

TEST(ProgressLine, TheKeysAreTheProtocols) {
    // A reader in another language relies on these names: changing one is a protocol change.
    const std::string run =
        formatProgressLine(RunProgressLine{"cpu-serial", 0, 1, "compute", 0, {}});
    for (const char* key :
         {"\"strategy\":", "\"index\":", "\"count\":", "\"stage\":", "\"fraction\":"}) {
        EXPECT_NE(run.find(key), std::string::npos) << key;
    }
    const std::string record = formatProgressLine(RecordProgressLine{});
    for (const char* key :
         {"\"stage\":", "\"elapsed_s\":", "\"processes\":", "\"api_calls\":", "\"kernels\":",
          "\"copies\":", "\"memsets\":", "\"dropped_records\":"}) {
        EXPECT_NE(record.find(key), std::string::npos) << key;
    }
}

TEST(ProgressLine, TheJsonAloneIsReadToo) {
    const auto read = parseRecordProgressLine(R"({"stage":"trace","kernels":5})");
    ASSERT_TRUE(read) << read.error().message;
    EXPECT_EQ(read->stage, "trace");
    EXPECT_EQ(read->kernels, 5u);
    EXPECT_EQ(read->copies, 0u); // missing keys keep their defaults
}

TEST(ProgressLine, ValuesAReaderDividesOrIndexesByAreMadeSafe) {
    const auto read =
        parseRunProgressLine(R"(progress {"strategy":"x","index":9,"count":0,"fraction":7.5})");
    ASSERT_TRUE(read) << read.error().message;
    EXPECT_EQ(read->count, 1u);
    EXPECT_EQ(read->index, 0u);
    EXPECT_DOUBLE_EQ(read->fraction, 1.0);
    const auto below = parseRunProgressLine(R"(progress {"index":3,"count":4,"fraction":-1})");
    ASSERT_TRUE(below);
    EXPECT_EQ(below->index, 3u);
    EXPECT_DOUBLE_EQ(below->fraction, 0.0);
}

TEST(ProgressLine, MalformedLinesAreErrors) {
    EXPECT_FALSE(isProgressLine("slice-outer: 1.2 ms"));
    EXPECT_FALSE(isProgressLine("progress"));
    EXPECT_FALSE(isProgressLine("progressive {}"));
    for (const char* line :
         {"progress ", "progress {", "progress {\"stage\":\"compute\"", "progress [1,2]",
          "progress 42", "progress \"text\"", "progress {} trailing", "slice-outer: 1.2 ms", ""}) {
        const auto run = parseRunProgressLine(line);
        ASSERT_FALSE(run) << line;
        EXPECT_EQ(run.error().code, Error::Code::Parse) << line;
        EXPECT_FALSE(parseRecordProgressLine(line)) << line;
    }
}

TEST(ProgressLine, ValuesOfTheWrongTypeAreErrors) {
    for (const char* line :
         {R"(progress {"strategy":3})", R"(progress {"index":"two"})", R"(progress {"count":-1})",
          R"(progress {"fraction":"half"})", R"(progress {"stage":null})"}) {
        const auto read = parseRunProgressLine(line);
        ASSERT_FALSE(read) << line;
        EXPECT_EQ(read.error().code, Error::Code::Parse);
    }
    EXPECT_FALSE(parseRecordProgressLine(R"(progress {"kernels":1.5})"));
    EXPECT_FALSE(parseRecordProgressLine(R"(progress {"elapsed_s":"1"})"));
    EXPECT_FALSE(parseRecordProgressLine(R"(progress {"dropped_records":-2})"));
}

} // namespace
} // namespace slicescope::core
