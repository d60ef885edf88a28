// The roofline's compute ceiling: a kernel bound by fused multiply-adds alone. Each thread runs
// kFmaChains independent FMA chains (enough to hide the FMA latency) for workPerElement steps and
// touches memory once, at the end, so its time is FMA issue and nothing else.
#include "kernels/kerneltable.h"

namespace slicescope::kernels {

constexpr int kFmaChains = int(kFmaPeakChains);

template <typename T> __global__ void fmaPeakKernel(KernelArgs a) {
    const T seed = T(threadIdx.x) * T(1e-7);
    T x[kFmaChains];
#pragma unroll
    for (int c = 0; c < kFmaChains; ++c) {
        x[c] = seed + T(c);
    }
    const T m = T(0.999999);
    const T b = T(1e-6);
    for (std::uint32_t i = 0; i < a.workPerElement; ++i) {
#pragma unroll
        for (int c = 0; c < kFmaChains; ++c) {
            x[c] = fma(x[c], m, b);
        }
    }
    T sum = T(0);
#pragma unroll
    for (int c = 0; c < kFmaChains; ++c) {
        sum += x[c];
    }
    // Written only where it cannot happen, so the compiler keeps the chains and memory stays idle.
    if (sum == T(-1)) {
        static_cast<T*>(a.cv)[blockIdx.x * blockDim.x + threadIdx.x] = sum;
    }
}

extern const KernelEntry kFmaPeakKernels{reinterpret_cast<const void*>(&fmaPeakKernel<double>),
                                         reinterpret_cast<const void*>(&fmaPeakKernel<float>)};

} // namespace slicescope::kernels
