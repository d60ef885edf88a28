#pragma once

#include "slicescope/core/result.h"
#include "slicescope/problem/problem.h"
#include "slicescope/strategy/strategy.h"

#include <cstdint>
#include <string_view>
#include <vector>

// Chunked multi-stream pipelines (docs/gpu-backend.md, "Pipelines"): the outer dimension of a GPU
// strategy (R, or C for the C x R x N layout) is cut into chunks, and chunk i's copy in, kernel and
// copy out go on stream i mod S, so one chunk's copy in can run while another's kernel does. Pure
// arithmetic, read alike by the GPU backend and the model.
namespace slicescope::strategy {

// Far above what pays (each chunk costs a launch and two copy latencies) and low enough that a
// typing slip is refused rather than run as a million tiny launches.
inline constexpr std::uint32_t kMaxChunks = 4096;
inline constexpr std::uint32_t kMaxStreams = 64;

struct PipelineOptions {
    std::uint32_t chunks = 1;  // K: 1 is one copy in, one kernel, one copy out
    std::uint32_t streams = 1; // S: more streams than chunks act as K streams
    friend bool operator==(const PipelineOptions&, const PipelineOptions&) = default;
};

// An InvalidArgument error naming the flag when chunks or streams is 0 or above its limit.
Status checkPipeline(const PipelineOptions& options);

// The dimension that is cut: C for the C x R x N layout (slice-middle), R otherwise.
std::uint64_t outerExtent(StrategyId id, const problem::Problem& problem);

// One chunk: a sub-problem of `outerCount` rows of the outer dimension starting at `outerBegin`,
// contiguous in discount and cv. Element offsets and counts are in elements of the arrays.
struct Chunk {
    std::uint32_t index = 0;
    std::uint32_t stream = 0; // index mod the streams in use
    std::uint64_t outerBegin = 0;
    std::uint64_t outerCount = 0;
    problem::Problem problem;         // the chunk as a problem of its own (R or C = outerCount)
    std::uint64_t arrayOffset = 0;    // into discount and cv
    std::uint64_t arrayElements = 0;  // of discount and of cv
    std::uint64_t multByOffset = 0;   // into multBy
    std::uint64_t multByElements = 0; // 0: the chunk reads the whole multBy, copied once
    friend bool operator==(const Chunk&, const Chunk&) = default;
};

struct PipelinePlan {
    std::vector<Chunk> chunks;
    std::uint32_t streams = 1; // streams in use: min(S, chunks)
    bool sharedMultBy = false; // multBy (C x N) is copied once, before the chunks
    std::uint64_t sharedMultByElements = 0;
};

// K chunks of the outer extent O: the first O mod K chunks take one row more, so the last chunk
// is the smaller one when K does not divide O. K above O gives O chunks of one row. K = 1 is one
// chunk holding the whole problem. Expects options that checkPipeline accepts.
PipelinePlan planPipeline(StrategyId id, const problem::Problem& problem,
                          const PipelineOptions& options);

} // namespace slicescope::strategy
