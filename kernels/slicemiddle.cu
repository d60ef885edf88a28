// slice-middle: C workers on data the host laid out as C x R x N (the seed's fix); worker c walks
// one contiguous R x N block.
#include "kernels/kerneltable.h"
#include "kernels/workerindex.cuh"
#include "slicescope/compute/workchain.h"

namespace slicescope::kernels {

template <typename T> __global__ void sliceMiddleKernel(KernelArgs a) {
    const std::uint64_t c = workerIndex();
    if (c >= a.workers) {
        return;
    }
    const T* __restrict__ multBy = static_cast<const T*>(a.multBy) + c * a.n;
    const std::uint64_t rn = a.r * a.n;
    const T* __restrict__ discount = static_cast<const T*>(a.discount) + c * rn;
    T* __restrict__ cv = static_cast<T*>(a.cv) + c * rn;
    for (std::uint64_t r = 0; r < a.r; ++r) {
        for (std::uint64_t n = 0; n < a.n; ++n) {
            cv[r * a.n + n] =
                compute::workChain<T>(multBy[n], discount[r * a.n + n], a.workPerElement);
        }
    }
}

// This file's entry in the strategy kernel table (kernels/CMakeLists.txt generates it).
namespace slicemiddle {
extern const KernelEntry kKernels{reinterpret_cast<const void*>(&sliceMiddleKernel<double>),
                                  reinterpret_cast<const void*>(&sliceMiddleKernel<float>)};
} // namespace slicemiddle

} // namespace slicescope::kernels
