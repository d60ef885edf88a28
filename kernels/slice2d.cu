// slice-2d: R x C workers; worker (r, c) walks the N elements of one row.
#include "kernels/kerneltable.h"
#include "kernels/workerindex.cuh"
#include "slicescope/compute/workchain.h"

namespace slicescope::kernels {

template <typename T> __global__ void slice2dKernel(KernelArgs a) {
    const std::uint64_t w = workerIndex();
    if (w >= a.workers) {
        return;
    }
    const T* __restrict__ multBy = static_cast<const T*>(a.multBy) + (w % a.c) * a.n;
    const T* __restrict__ discount = static_cast<const T*>(a.discount) + w * a.n;
    T* __restrict__ cv = static_cast<T*>(a.cv) + w * a.n;
    for (std::uint64_t n = 0; n < a.n; ++n) {
        cv[n] = compute::workChain<T>(multBy[n], discount[n], a.workPerElement);
    }
}

// This file's entry in the strategy kernel table (kernels/CMakeLists.txt generates it).
namespace slice2d {
extern const KernelEntry kKernels{reinterpret_cast<const void*>(&slice2dKernel<double>),
                                  reinterpret_cast<const void*>(&slice2dKernel<float>)};
} // namespace slice2d

} // namespace slicescope::kernels
