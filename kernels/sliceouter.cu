// slice-outer: R workers; worker r walks its C x N slice of the R x C x N arrays.
#include "kernels/kerneltable.h"
#include "kernels/workerindex.cuh"
#include "slicescope/compute/workchain.h"

namespace slicescope::kernels {

template <typename T> __global__ void sliceOuterKernel(KernelArgs a) {
    const std::uint64_t r = workerIndex();
    if (r >= a.workers) {
        return;
    }
    const T* __restrict__ multBy = static_cast<const T*>(a.multBy);
    const std::uint64_t cn = a.c * a.n;
    const T* __restrict__ discount = static_cast<const T*>(a.discount) + r * cn;
    T* __restrict__ cv = static_cast<T*>(a.cv) + r * cn;
    for (std::uint64_t i = 0; i < cn; ++i) {
        cv[i] = compute::workChain<T>(multBy[i], discount[i], a.workPerElement);
    }
}

// This file's entry in the strategy kernel table (kernels/CMakeLists.txt generates it).
namespace sliceouter {
extern const KernelEntry kKernels{reinterpret_cast<const void*>(&sliceOuterKernel<double>),
                                  reinterpret_cast<const void*>(&sliceOuterKernel<float>)};
} // namespace sliceouter

} // namespace slicescope::kernels
