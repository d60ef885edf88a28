#pragma once

// The host layout pass of slice-middle (the seed's fix): an A x B x N array in row-major order
// to B x A x N, N-element rows moving whole ([a][b][n] -> [b][a][n]). R x C x N to C x R x N is
// transposeRows(from, to, R, C, N); the way back swaps R and C.
//
// Cache-blocked: tiles of rows are read and written while both sides stay in cache, so neither
// side strides through memory a row at a time. Large arrays are split over the host's threads
// (OpenMP); the same bytes land in the same places whatever the split.

#include <cstdint>

namespace slicescope::compute {

template <typename T>
void transposeRows(const T* from, T* to, std::uint64_t outer, std::uint64_t middle,
                   std::uint64_t n);

// The same pass one row at a time, outer index first: the code it replaced, kept as the
// benchmark's baseline and the tests' reference.
template <typename T>
void transposeRowsNaive(const T* from, T* to, std::uint64_t outer, std::uint64_t middle,
                        std::uint64_t n);

} // namespace slicescope::compute
