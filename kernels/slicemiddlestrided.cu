// slice-middle-strided: C workers on the original R x C x N layout; worker c reads N elements,
// then jumps C x N elements to the next r, so neighbouring threads touch addresses N apart.
#include "kernels/kerneltable.h"
#include "kernels/workerindex.cuh"
#include "slicescope/compute/workchain.h"

namespace slicescope::kernels {

template <typename T> __global__ void sliceMiddleStridedKernel(KernelArgs a) {
    const std::uint64_t c = workerIndex();
    if (c >= a.workers) {
        return;
    }
    const T* __restrict__ multBy = static_cast<const T*>(a.multBy) + c * a.n;
    const T* __restrict__ discount = static_cast<const T*>(a.discount);
    T* __restrict__ cv = static_cast<T*>(a.cv);
    const std::uint64_t cn = a.c * a.n;
    for (std::uint64_t r = 0; r < a.r; ++r) {
        const std::uint64_t base = r * cn + c * a.n;
        for (std::uint64_t n = 0; n < a.n; ++n) {
            cv[base + n] = compute::workChain<T>(multBy[n], discount[base + n], a.workPerElement);
        }
    }
}

// This file's entry in the strategy kernel table (kernels/CMakeLists.txt generates it).
namespace slicemiddlestrided {
extern const KernelEntry kKernels{reinterpret_cast<const void*>(&sliceMiddleStridedKernel<double>),
                                  reinterpret_cast<const void*>(&sliceMiddleStridedKernel<float>)};
} // namespace slicemiddlestrided

} // namespace slicescope::kernels
