#include "slicescope/compute/transpose.h"

#include <algorithm>
#include <cstring>

namespace slicescope::compute {

namespace {

// A tile of kTileRows x kTileRows rows: at the seed's N = 5 doubles, 32 x 32 rows are 40 KB read
// and 40 KB written, within a core's L2.
constexpr std::uint64_t kTileRows = 32;
// Below this many elements the threads cost more than they save.
constexpr std::uint64_t kParallelElements = 1u << 18;

template <typename T> void copyRow(const T* from, T* to, std::uint64_t n) {
    for (std::uint64_t k = 0; k < n; ++k) {
        to[k] = from[k];
    }
}

template <typename T>
void transposeTile(const T* from, T* to, std::uint64_t outer, std::uint64_t middle, std::uint64_t n,
                   std::uint64_t a0, std::uint64_t b0) {
    const std::uint64_t a1 = std::min(a0 + kTileRows, outer);
    const std::uint64_t b1 = std::min(b0 + kTileRows, middle);
    // Written in order, read across the tile's outer rows: the writes stream, the reads hit cache.
    for (std::uint64_t b = b0; b < b1; ++b) {
        for (std::uint64_t a = a0; a < a1; ++a) {
            copyRow(from + (a * middle + b) * n, to + (b * outer + a) * n, n);
        }
    }
}

} // namespace

template <typename T>
void transposeRows(const T* from, T* to, std::uint64_t outer, std::uint64_t middle,
                   std::uint64_t n) {
    const auto tilesA = std::int64_t((outer + kTileRows - 1) / kTileRows);
    const auto tilesB = std::int64_t((middle + kTileRows - 1) / kTileRows);
    const bool parallel = outer * middle * n >= kParallelElements;
#pragma omp parallel for collapse(2) schedule(static) if (parallel)
    for (std::int64_t tb = 0; tb < tilesB; ++tb) {
        for (std::int64_t ta = 0; ta < tilesA; ++ta) {
            transposeTile(from, to, outer, middle, n, std::uint64_t(ta) * kTileRows,
                          std::uint64_t(tb) * kTileRows);
        }
    }
}

template <typename T>
void transposeRowsNaive(const T* from, T* to, std::uint64_t outer, std::uint64_t middle,
                        std::uint64_t n) {
    for (std::uint64_t a = 0; a < outer; ++a) {
        for (std::uint64_t b = 0; b < middle; ++b) {
            std::memcpy(to + (b * outer + a) * n, from + (a * middle + b) * n, n * sizeof(T));
        }
    }
}

template void transposeRows<double>(const double*, double*, std::uint64_t, std::uint64_t,
                                    std::uint64_t);
template void transposeRows<float>(const float*, float*, std::uint64_t, std::uint64_t,
                                   std::uint64_t);
template void transposeRowsNaive<double>(const double*, double*, std::uint64_t, std::uint64_t,
                                         std::uint64_t);
template void transposeRowsNaive<float>(const float*, float*, std::uint64_t, std::uint64_t,
                                        std::uint64_t);

} // namespace slicescope::compute
