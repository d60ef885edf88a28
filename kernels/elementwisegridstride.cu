// elementwise-grid-stride: the grid-stride loop CUDA's programming guides recommend. The grid is
// sized to the GPU, not to the data: the engine launches SMs x resident blocks per SM blocks
// (strategy::LaunchStyle::GridStrideDevice), and each thread walks the array one grid apart, so
// one kernel covers any size with one wave of blocks. multBy is read through broadcast indexing.
#include "kernels/kerneltable.h"
#include "kernels/workerindex.cuh"
#include "slicescope/compute/workchain.h"

namespace slicescope::kernels {

template <typename T> __global__ void elementwiseGridStrideKernel(KernelArgs a) {
    const T* __restrict__ discount = static_cast<const T*>(a.discount);
    const T* __restrict__ multBy = static_cast<const T*>(a.multBy);
    T* __restrict__ cv = static_cast<T*>(a.cv);
    const std::uint64_t elements = a.r * a.c * a.n;
    const std::uint64_t rowElements = a.c * a.n; // multBy is one C x N row, shared by every r
    const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
    for (std::uint64_t i = workerIndex(); i < elements; i += stride) {
        cv[i] =
            compute::workChain<T>(__ldg(multBy + i % rowElements), discount[i], a.workPerElement);
    }
}

// This file's entry in the strategy kernel table (kernels/CMakeLists.txt generates it).
namespace elementwisegridstride {
extern const KernelEntry kKernels{
    reinterpret_cast<const void*>(&elementwiseGridStrideKernel<double>),
    reinterpret_cast<const void*>(&elementwiseGridStrideKernel<float>)};
} // namespace elementwisegridstride

} // namespace slicescope::kernels
