// elementwise-broadcast: the hand-written fix. One worker per element, multBy read through
// broadcast indexing (no materialized copy), a grid-stride loop over a grid of one thread per two
// items, and 16-byte vector accesses (double2 / float4) whenever every vector stays inside one
// multBy row (the engine sets vectorWidth accordingly; 1 means scalar accesses).
#include "kernels/kerneltable.h"
#include "kernels/workerindex.cuh"
#include "slicescope/compute/workchain.h"

namespace slicescope::kernels {

namespace {

template <typename T> struct Vector;
template <> struct Vector<double> {
    using Type = double2;
    static constexpr unsigned kWidth = 2;
    __device__ static Type apply(Type m, Type d, unsigned k) {
        return make_double2(compute::workChain(m.x, d.x, k), compute::workChain(m.y, d.y, k));
    }
};
template <> struct Vector<float> {
    using Type = float4;
    static constexpr unsigned kWidth = 4;
    __device__ static Type apply(Type m, Type d, unsigned k) {
        return make_float4(compute::workChain(m.x, d.x, k), compute::workChain(m.y, d.y, k),
                           compute::workChain(m.z, d.z, k), compute::workChain(m.w, d.w, k));
    }
};

// Walks `count` items (vectors or scalars) with a grid stride. The engine launches a thread per two
// items, so each thread normally takes two steps, more where the device's grid limit caps the grid.
// The broadcast column (index within one C x N row of multBy) advances by stride mod rowItems, so
// the loop needs no 64-bit division.
template <typename Item, typename Apply>
__device__ void gridStride(const Item* __restrict__ discount, const Item* __restrict__ multBy,
                           Item* __restrict__ cv, std::uint64_t count, std::uint64_t rowItems,
                           Apply apply) {
    const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
    const std::uint64_t strideColumn = stride % rowItems;
    std::uint64_t column = workerIndex() % rowItems;
    for (std::uint64_t i = workerIndex(); i < count; i += stride) {
        cv[i] =
            apply(__ldg(multBy + column), discount[i]); // multBy is re-read by every row: cache it
        column += strideColumn;
        if (column >= rowItems) {
            column -= rowItems;
        }
    }
}

} // namespace

template <typename T> __global__ void elementwiseBroadcastKernel(KernelArgs a) {
    using V = Vector<T>;
    const std::uint64_t elements = a.r * a.c * a.n;
    const std::uint64_t row = a.c * a.n;
    const unsigned k = a.workPerElement;
    if (a.vectorWidth == V::kWidth) {
        gridStride(static_cast<const typename V::Type*>(a.discount),
                   static_cast<const typename V::Type*>(a.multBy),
                   static_cast<typename V::Type*>(a.cv), elements / V::kWidth, row / V::kWidth,
                   [k](typename V::Type m, typename V::Type d) { return V::apply(m, d, k); });
    } else {
        gridStride(static_cast<const T*>(a.discount), static_cast<const T*>(a.multBy),
                   static_cast<T*>(a.cv), elements, row,
                   [k](T m, T d) { return compute::workChain<T>(m, d, k); });
    }
}

// This file's entry in the strategy kernel table (kernels/CMakeLists.txt generates it).
namespace elementwisebroadcast {
extern const KernelEntry kKernels{
    reinterpret_cast<const void*>(&elementwiseBroadcastKernel<double>),
    reinterpret_cast<const void*>(&elementwiseBroadcastKernel<float>)};
} // namespace elementwisebroadcast

} // namespace slicescope::kernels
