#include "slicescope/strategy/pipeline.h"

#include <gtest/gtest.h>
#include <numeric>

using namespace slicescope;
using strategy::PipelineOptions;
using strategy::StrategyId;

namespace {

problem::Problem makeProblem(std::uint64_t r, std::uint64_t c, std::uint64_t n) {
    return *problem::makeProblem({r, c, n}, problem::Dtype::F64, 1);
}

// Chunks tile the outer extent in order, with no gap and no overlap, and their arrays tile the
// whole array.
void expectTiles(const strategy::PipelinePlan& plan, StrategyId id, const problem::Problem& p) {
    std::uint64_t outer = 0, elements = 0;
    for (const auto& c : plan.chunks) {
        EXPECT_EQ(c.outerBegin, outer);
        EXPECT_EQ(c.arrayOffset, elements);
        EXPECT_EQ(c.arrayElements, c.problem.elements());
        EXPECT_GE(c.outerCount, 1u);
        outer += c.outerCount;
        elements += c.arrayElements;
    }
    EXPECT_EQ(outer, strategy::outerExtent(id, p));
    EXPECT_EQ(elements, p.elements());
}

} // namespace

TEST(Pipeline, OneChunkIsTheWholeProblem) {
    const auto p = makeProblem(100, 4000, 5);
    const auto plan = strategy::planPipeline(StrategyId::SliceOuter, p, {1, 1});
    ASSERT_EQ(plan.chunks.size(), 1u);
    EXPECT_EQ(plan.streams, 1u);
    EXPECT_EQ(plan.chunks[0].problem, p);
    EXPECT_EQ(plan.chunks[0].arrayOffset, 0u);
    EXPECT_EQ(plan.chunks[0].arrayElements, p.elements());
    EXPECT_TRUE(plan.sharedMultBy);
    EXPECT_EQ(plan.sharedMultByElements, 4000u * 5);
}

TEST(Pipeline, UnevenLastChunkIsTheSmaller) {
    const auto p = makeProblem(10, 3, 2);
    const auto plan = strategy::planPipeline(StrategyId::ElementwiseBroadcast, p, {4, 2});
    ASSERT_EQ(plan.chunks.size(), 4u);
    // 10 rows in 4 chunks: 3, 3, 2, 2.
    EXPECT_EQ(plan.chunks[0].outerCount, 3u);
    EXPECT_EQ(plan.chunks[1].outerCount, 3u);
    EXPECT_EQ(plan.chunks[2].outerCount, 2u);
    EXPECT_EQ(plan.chunks[3].outerCount, 2u);
    EXPECT_EQ(plan.chunks[3].arrayOffset, 8u * 3 * 2);
    EXPECT_EQ(plan.chunks[3].problem.shape.r, 2u);
    EXPECT_EQ(plan.chunks[3].problem.shape.c, 3u);
    // Stream i mod S.
    EXPECT_EQ(plan.chunks[0].stream, 0u);
    EXPECT_EQ(plan.chunks[1].stream, 1u);
    EXPECT_EQ(plan.chunks[2].stream, 0u);
    EXPECT_EQ(plan.chunks[3].stream, 1u);
    expectTiles(plan, StrategyId::ElementwiseBroadcast, p);
}

TEST(Pipeline, MoreChunksThanRowsGivesOneChunkPerRow) {
    const auto p = makeProblem(5, 7, 3);
    const auto plan = strategy::planPipeline(StrategyId::Slice2d, p, {16, 4});
    ASSERT_EQ(plan.chunks.size(), 5u);
    for (const auto& c : plan.chunks) {
        EXPECT_EQ(c.outerCount, 1u);
    }
    EXPECT_EQ(plan.streams, 4u);
    expectTiles(plan, StrategyId::Slice2d, p);
}

TEST(Pipeline, MoreStreamsThanChunksUsesOnePerChunk) {
    const auto p = makeProblem(100, 40, 5);
    const auto plan = strategy::planPipeline(StrategyId::SliceOuter, p, {3, 8});
    ASSERT_EQ(plan.chunks.size(), 3u);
    EXPECT_EQ(plan.streams, 3u);
    EXPECT_EQ(plan.chunks[2].stream, 2u);
}

TEST(Pipeline, CrnLayoutCutsTheMiddleDimensionAndItsMultByRows) {
    const auto p = makeProblem(6, 10, 4);
    ASSERT_EQ(strategy::outerExtent(StrategyId::SliceMiddle, p), 10u);
    ASSERT_EQ(strategy::outerExtent(StrategyId::SliceMiddleStrided, p), 6u);
    const auto plan = strategy::planPipeline(StrategyId::SliceMiddle, p, {3, 3});
    ASSERT_EQ(plan.chunks.size(), 3u);
    EXPECT_FALSE(plan.sharedMultBy);
    // 10 columns: 4, 3, 3; each C x R x N block of R x N = 24 elements per column.
    EXPECT_EQ(plan.chunks[1].outerBegin, 4u);
    EXPECT_EQ(plan.chunks[1].problem.shape.c, 3u);
    EXPECT_EQ(plan.chunks[1].problem.shape.r, 6u);
    EXPECT_EQ(plan.chunks[1].arrayOffset, 4u * 24);
    EXPECT_EQ(plan.chunks[1].multByOffset, 4u * 4);
    EXPECT_EQ(plan.chunks[1].multByElements, 3u * 4);
    expectTiles(plan, StrategyId::SliceMiddle, p);
}

TEST(Pipeline, MaterializedMultByIsCutWithTheArrays) {
    const auto p = makeProblem(9, 4, 2);
    const auto plan = strategy::planPipeline(StrategyId::ElementwiseMaterialized, p, {2, 2});
    EXPECT_FALSE(plan.sharedMultBy);
    ASSERT_EQ(plan.chunks.size(), 2u);
    for (const auto& c : plan.chunks) {
        EXPECT_EQ(c.multByOffset, c.arrayOffset);
        EXPECT_EQ(c.multByElements, c.arrayElements);
    }
    expectTiles(plan, StrategyId::ElementwiseMaterialized, p);
}

TEST(Pipeline, RefusesZeroAndAbsurdCounts) {
    EXPECT_TRUE(strategy::checkPipeline({1, 1}));
    EXPECT_TRUE(strategy::checkPipeline({strategy::kMaxChunks, strategy::kMaxStreams}));
    for (const PipelineOptions bad : {PipelineOptions{0, 1}, PipelineOptions{1, 0},
                                      PipelineOptions{strategy::kMaxChunks + 1, 1},
                                      PipelineOptions{1, strategy::kMaxStreams + 1}}) {
        const auto checked = strategy::checkPipeline(bad);
        ASSERT_FALSE(checked);
        EXPECT_EQ(checked.error().code, Error::Code::InvalidArgument);
        EXPECT_NE(checked.error().message.find(bad.chunks != 1 ? "--chunks" : "--streams"),
                  std::string::npos)
            << checked.error().message;
    }
}
