#include "slicescope/compute/transpose.h"

#include <gtest/gtest.h>
#include <numeric>
#include <tuple>
#include <vector>

using slicescope::compute::transposeRows;
using slicescope::compute::transposeRowsNaive;

namespace {

// [a][b][k] -> [b][a][k] written out by index, the definition itself.
template <typename T>
std::vector<T> byDefinition(const std::vector<T>& from, std::uint64_t outer, std::uint64_t middle,
                            std::uint64_t n) {
    std::vector<T> to(from.size());
    for (std::uint64_t a = 0; a < outer; ++a) {
        for (std::uint64_t b = 0; b < middle; ++b) {
            for (std::uint64_t k = 0; k < n; ++k) {
                to[(b * outer + a) * n + k] = from[(a * middle + b) * n + k];
            }
        }
    }
    return to;
}

template <typename T> void checkShape(std::uint64_t outer, std::uint64_t middle, std::uint64_t n) {
    std::vector<T> from(outer * middle * n);
    std::iota(from.begin(), from.end(), T(1)); // every element distinct (exact up to 2^24 in f32)
    const auto expected = byDefinition(from, outer, middle, n);
    std::vector<T> blocked(from.size(), T(-1)), naive(from.size(), T(-1));
    transposeRows(from.data(), blocked.data(), outer, middle, n);
    transposeRowsNaive(from.data(), naive.data(), outer, middle, n);
    EXPECT_EQ(blocked, expected) << outer << "x" << middle << "x" << n;
    EXPECT_EQ(naive, expected) << outer << "x" << middle << "x" << n;
    // And back: the way back swaps the two outer dimensions.
    std::vector<T> back(from.size(), T(-1));
    transposeRows(blocked.data(), back.data(), middle, outer, n);
    EXPECT_EQ(back, from) << outer << "x" << middle << "x" << n << " and back";
}

} // namespace

class TransposeShapes
    : public ::testing::TestWithParam<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>> {};

TEST_P(TransposeShapes, MatchesTheDefinitionInBothTypesAndBack) {
    const auto [outer, middle, n] = GetParam();
    checkShape<double>(outer, middle, n);
    checkShape<float>(outer, middle, n);
}

// Tiles are 32 rows a side: shapes below, at and past a tile and not a multiple of it; single
// rows, columns and elements; and arrays large enough to be split over threads.
INSTANTIATE_TEST_SUITE_P(
    Shapes, TransposeShapes,
    ::testing::Values(std::make_tuple(1, 1, 1), std::make_tuple(1, 7, 3), std::make_tuple(7, 1, 3),
                      std::make_tuple(2, 3, 4), std::make_tuple(31, 33, 1),
                      std::make_tuple(32, 32, 5), std::make_tuple(33, 65, 2),
                      std::make_tuple(100, 4000, 5), std::make_tuple(4000, 100, 5),
                      std::make_tuple(513, 1031, 1), std::make_tuple(3, 70000, 2)));
