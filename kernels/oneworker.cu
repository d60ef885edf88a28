// one-worker: the seed's gufunc with the whole array as one slice. One block is launched, as numba
// does, and the single worker (thread 0) walks all R x C x N elements serially.
#include "kernels/kerneltable.h"
#include "kernels/workerindex.cuh"
#include "slicescope/compute/workchain.h"

namespace slicescope::kernels {

template <typename T> __global__ void oneWorkerKernel(KernelArgs a) {
    if (workerIndex() >= a.workers) {
        return;
    }
    const T* __restrict__ discount = static_cast<const T*>(a.discount);
    const T* __restrict__ multBy = static_cast<const T*>(a.multBy);
    T* __restrict__ cv = static_cast<T*>(a.cv);
    const std::uint64_t cn = a.c * a.n;
    for (std::uint64_t r = 0; r < a.r; ++r) {
        for (std::uint64_t i = 0; i < cn; ++i) {
            cv[r * cn + i] =
                compute::workChain<T>(multBy[i], discount[r * cn + i], a.workPerElement);
        }
    }
}

// This file's entry in the strategy kernel table (kernels/CMakeLists.txt generates it).
namespace oneworker {
extern const KernelEntry kKernels{reinterpret_cast<const void*>(&oneWorkerKernel<double>),
                                  reinterpret_cast<const void*>(&oneWorkerKernel<float>)};
} // namespace oneworker

} // namespace slicescope::kernels
