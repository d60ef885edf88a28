#pragma once

// The index numba gives a gufunc worker: one thread per worker, threads past the last worker idle.

#include <cstdint>

namespace slicescope::kernels {

__device__ __forceinline__ std::uint64_t workerIndex() {
    return std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
}

} // namespace slicescope::kernels
