#pragma once

// The computation every strategy performs, shared by the CPU reference, the CPU backend and the
// CUDA kernels so that all of them compute exactly the same thing (docs/design.md, "Vocabulary"):
//   cv[r][c][n] = multBy[c][n] * discount[r][c][n], then k-1 dependent multiply-adds.
// The chain keeps values bounded (|factor| < 1), so errors do not grow with k.

#if defined(__CUDACC__)
#define SLICESCOPE_HD __host__ __device__ __forceinline__
#else
#define SLICESCOPE_HD inline
#endif

namespace slicescope::compute {

template <typename T> SLICESCOPE_HD T workChain(T multBy, T discount, unsigned workPerElement) {
    T value = multBy * discount;
    for (unsigned i = 1; i < workPerElement; ++i) {
        value = value * T(0.75) + discount * T(0.25);
    }
    return value;
}

// Deterministic inputs, so every run of one problem sees the same data on host and device.
// Each repeats with its period: value(i) == value(i % period).
inline constexpr unsigned kDiscountPeriod = 97;
inline constexpr unsigned kMultByPeriod = 13;
template <typename T> SLICESCOPE_HD T discountValue(unsigned long long flatIndex) {
    return T(1) / T(1 + (flatIndex % kDiscountPeriod));
}
template <typename T> SLICESCOPE_HD T multByValue(unsigned long long flatIndex) {
    return T(0.5) + T(flatIndex % kMultByPeriod) * T(0.125);
}

} // namespace slicescope::compute
