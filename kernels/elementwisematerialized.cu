// elementwise-materialized: numba's @vectorize. One thread per element; multBy arrives already
// expanded to the full R x C x N shape, so the kernel reads two full arrays.
#include "kernels/kerneltable.h"
#include "kernels/workerindex.cuh"
#include "slicescope/compute/workchain.h"

namespace slicescope::kernels {

template <typename T> __global__ void elementwiseMaterializedKernel(KernelArgs a) {
    const std::uint64_t i = workerIndex();
    if (i >= a.workers) {
        return;
    }
    const T* __restrict__ multBy = static_cast<const T*>(a.multBy);
    const T* __restrict__ discount = static_cast<const T*>(a.discount);
    T* __restrict__ cv = static_cast<T*>(a.cv);
    cv[i] = compute::workChain<T>(multBy[i], discount[i], a.workPerElement);
}

// This file's entry in the strategy kernel table (kernels/CMakeLists.txt generates it).
namespace elementwisematerialized {
extern const KernelEntry kKernels{
    reinterpret_cast<const void*>(&elementwiseMaterializedKernel<double>),
    reinterpret_cast<const void*>(&elementwiseMaterializedKernel<float>)};
} // namespace elementwisematerialized

} // namespace slicescope::kernels
