#include "slicescope/strategy/pipeline.h"

#include <algorithm>
#include <string>

namespace slicescope::strategy {

Status checkPipeline(const PipelineOptions& options) {
    if (options.chunks < 1 || options.chunks > kMaxChunks) {
        return fail(Error::Code::InvalidArgument, "--chunks must be from 1 to " +
                                                      std::to_string(kMaxChunks) + " (got " +
                                                      std::to_string(options.chunks) + ")");
    }
    if (options.streams < 1 || options.streams > kMaxStreams) {
        return fail(Error::Code::InvalidArgument, "--streams must be from 1 to " +
                                                      std::to_string(kMaxStreams) + " (got " +
                                                      std::to_string(options.streams) + ")");
    }
    return {};
}

std::uint64_t outerExtent(StrategyId id, const problem::Problem& problem) {
    return decompose(id, problem).layout == Layout::CRN ? problem.shape.c : problem.shape.r;
}

PipelinePlan planPipeline(StrategyId id, const problem::Problem& problem,
                          const PipelineOptions& options) {
    PipelinePlan plan;
    const bool crn = decompose(id, problem).layout == Layout::CRN;
    const bool materialized = info(id).materializesMultBy;
    const auto& s = problem.shape;
    const std::uint64_t outer = crn ? s.c : s.r;
    const std::uint64_t count =
        std::max<std::uint64_t>(1, std::min<std::uint64_t>(options.chunks, outer));
    plan.streams =
        std::uint32_t(std::max<std::uint64_t>(1, std::min<std::uint64_t>(options.streams, count)));
    // One outer row in elements: C x N of R x C x N, R x N of C x R x N.
    const std::uint64_t rowElements = crn ? s.r * s.n : s.c * s.n;
    plan.sharedMultBy = !crn && !materialized;
    plan.sharedMultByElements = plan.sharedMultBy ? s.c * s.n : 0;
    const std::uint64_t base = outer / count;
    const std::uint64_t longer = outer % count; // chunks that take one row more
    std::uint64_t begin = 0;
    plan.chunks.reserve(count);
    for (std::uint64_t i = 0; i < count; ++i) {
        Chunk c;
        c.index = std::uint32_t(i);
        c.stream = std::uint32_t(i % plan.streams);
        c.outerBegin = begin;
        c.outerCount = base + (i < longer ? 1 : 0);
        c.problem = problem;
        (crn ? c.problem.shape.c : c.problem.shape.r) = c.outerCount;
        c.arrayOffset = begin * rowElements;
        c.arrayElements = c.outerCount * rowElements;
        if (crn) {
            // multBy is C x N: the chunk's columns are its own rows of multBy.
            c.multByOffset = begin * s.n;
            c.multByElements = c.outerCount * s.n;
        } else if (materialized) {
            c.multByOffset = c.arrayOffset;
            c.multByElements = c.arrayElements;
        }
        begin += c.outerCount;
        plan.chunks.push_back(c);
    }
    return plan;
}

} // namespace slicescope::strategy
