#include "slicescope/explain/numbalaunch.h"
#include "slicescope/trace/tracejson.h"

#include <algorithm>
#include <gtest/gtest.h>

using namespace slicescope;
using slicescope::explain::explainNumbaLaunch;
using slicescope::explain::NumbaLaunch;

namespace {

// The kernels of resources/samples/recorded-numba.json (docs/recording/seed_numba.py on the H200).
constexpr std::string_view kWholeArray =
    "__main__::__gufunc_whole_array[abi:v2][abi:cw51cXTLSUwv1sDUaKthqaNgoKmjgOR3W3Cw6igA9duC0hkwnN"
    "GiHEkYkrqQBFBTDEwCyQe21eqwcFW3UoDGjzpQEsgzrtUEAA_3d_3d](Array<double, 3, A, mutable, "
    "aligned>, Array<double, 4, A, mutable, aligned>, Array<double, 4, A, mutable, aligned>)";
constexpr std::string_view kOuterSlice =
    "__main__::__gufunc_outer_slice[abi:v4][abi:cw51cXTL](Array<double, 3, A, mutable, aligned>, "
    "Array<double, 3, A, mutable, aligned>, Array<double, 3, A, mutable, aligned>)";
constexpr std::string_view kVectorized =
    "__main__::__vectorized_multiply[abi:v6][abi:cw51cXTLSU](Array<double, 1, C, mutable, "
    "aligned>, Array<double, 1, C, mutable, aligned>, Array<double, 1, C, mutable, aligned>)";

} // namespace

TEST(NumbaLaunch, TheSeedsWholeArrayGufuncHasALoopOfOneAndOneWorkingThread) {
    const auto launch = explainNumbaLaunch(kWholeArray, {1, 1, 1}, {1024, 1, 1}, 0.031253994);
    ASSERT_TRUE(launch);
    EXPECT_EQ(launch->kind, NumbaLaunch::Kind::Guvectorize);
    EXPECT_EQ(launch->function, "whole_array");
    ASSERT_EQ(launch->arrays.size(), 3u);
    EXPECT_EQ(launch->arrays[0].elementType, "double");
    EXPECT_EQ(launch->arrays[0].dimensions, 3u);
    EXPECT_EQ(launch->arrays[1].dimensions, 4u);
    EXPECT_EQ(launch->minWorkers, 1u);
    EXPECT_EQ(launch->maxWorkers, 1024u);
    const auto& text = launch->explanation;
    EXPECT_NE(text.find("3, 4 and 4 dimensions"), std::string::npos) << text;
    EXPECT_NE(text.find("1 block of 1,024 threads"), std::string::npos) << text;
    EXPECT_NE(text.find("one thread of its warp did the work"), std::string::npos) << text;
    EXPECT_NE(text.find("(c,n),(c,n)->(c,n) leaves R"), std::string::npos) << text;
}

TEST(NumbaLaunch, ASlicedGufuncIsNotCalledOneThreadWhenItsLanesWorked) {
    const auto launch = explainNumbaLaunch(kOuterSlice, {1, 1, 1}, {1024, 1, 1}, 0.78127587);
    ASSERT_TRUE(launch);
    EXPECT_EQ(launch->function, "outer_slice");
    EXPECT_EQ(launch->explanation.find("one thread of its warp"), std::string::npos);
    EXPECT_NE(launch->explanation.find("1 to 1,024 elements"), std::string::npos);
    // Without counters nothing is said of the lanes either.
    const auto unmeasured = explainNumbaLaunch(kWholeArray, {1, 1, 1}, {1024, 1, 1}, std::nullopt);
    ASSERT_TRUE(unmeasured);
    EXPECT_EQ(unmeasured->explanation.find("lane share"), std::string::npos);
}

TEST(NumbaLaunch, VectorizeIsOneThreadPerElementOverItsBlocks) {
    const auto launch = explainNumbaLaunch(kVectorized, {1954, 1, 1}, {1024, 1, 1}, 1.0);
    ASSERT_TRUE(launch);
    EXPECT_EQ(launch->kind, NumbaLaunch::Kind::Vectorize);
    EXPECT_EQ(launch->function, "multiply");
    EXPECT_EQ(launch->minWorkers, 1953u * 1024 + 1);
    EXPECT_EQ(launch->maxWorkers, 1954u * 1024);
    EXPECT_NE(launch->explanation.find("1,954 blocks of 1,024 threads cover 1,999,873 to "
                                       "2,000,896 elements"),
              std::string::npos)
        << launch->explanation;
}

TEST(NumbaLaunch, OtherKernelsAreNotNumbas) {
    EXPECT_FALSE(explainNumbaLaunch("void slicescope::kernels::oneWorkerKernel<double>(KernelArgs)",
                                    {1, 1, 1}, {64, 1, 1}, std::nullopt));
    EXPECT_FALSE(
        explainNumbaLaunch("my__gufunc_lookalike(float*)", {1, 1, 1}, {64, 1, 1}, std::nullopt));
    EXPECT_FALSE(explainNumbaLaunch("", {1, 1, 1}, {1, 1, 1}, std::nullopt));
    // A truncated name still explains what it can.
    const auto truncated =
        explainNumbaLaunch("m::__gufunc_f(Array<float, 2", {2, 1, 1}, {128, 1, 1}, std::nullopt);
    ASSERT_TRUE(truncated);
    EXPECT_EQ(truncated->function, "f");
    EXPECT_EQ(truncated->minWorkers, 129u);
}

// The shipped numba recording: its three kernels, each explained once, in the order they ran; a
// strategy's kernels (not numba's) get no paragraph.
TEST(NumbaLaunch, ARecordedRunExplainsEachNumbaKernelOnce) {
    auto trace =
        trace::readTrace(SLICESCOPE_TEST_DATA_DIR "/../../resources/samples/recorded-numba.json");
    ASSERT_TRUE(trace) << trace.error().message;
    trace::Run run = trace->runs.at(0);
    const auto kernel =
        std::find_if(run.activities.begin(), run.activities.end(),
                     [](const auto& a) { return a.kind == trace::ActivityKind::Kernel; });
    ASSERT_NE(kernel, run.activities.end());
    run.activities.push_back(*kernel); // launched again: told once
    const auto launches = explain::numbaLaunchesOf(run);
    ASSERT_EQ(launches.size(), 3u);
    EXPECT_EQ(launches[0].function, "whole_array");
    EXPECT_EQ(launches[1].function, "outer_slice");
    EXPECT_EQ(launches[2].function, "multiply");
    EXPECT_NE(launches[0].explanation.find("one thread of its warp did the work"),
              std::string::npos);
    auto seed = trace::readTrace(SLICESCOPE_TEST_DATA_DIR "/../../resources/samples/"
                                                          "seed-100x4000x5-f64-pageable.json");
    ASSERT_TRUE(seed);
    for (const trace::Run& strategyRun : seed->runs) {
        EXPECT_TRUE(explain::numbaLaunchesOf(strategyRun).empty()) << strategyRun.id;
    }
}
