#include "slicescope/compute/reference.h"

#include "slicescope/compute/workchain.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <omp.h>
#include <type_traits>

namespace slicescope::compute {

namespace {

// Below this many elements a parallel region costs more than the loop it would split.
constexpr std::uint64_t kParallelElements = 1u << 18;

template <typename T> constexpr double tolerance() {
    // Values stay within [0, 2]; GPUs contract the chain into FMAs, the host may not, so allow a
    // few units in the last place of the value range.
    return std::is_same_v<T, double> ? 1e-12 : 2e-5;
}

} // namespace

template <typename T>
void fillInputs(const problem::Problem& p, std::vector<T>& discount, std::vector<T>& multBy) {
    discount.resize(p.elements());
    multBy.resize(p.shape.c * p.shape.n);
    fillPeriodic(discount.data(), discount.size(), kDiscountPeriod, &discountValue<T>);
    fillPeriodic(multBy.data(), multBy.size(), kMultByPeriod, &multByValue<T>);
}

template <typename T>
void fillPeriodic(T* out, std::uint64_t count, unsigned period, T (*value)(unsigned long long)) {
    std::vector<T> table(period);
    for (unsigned k = 0; k < period; ++k) {
        table[k] = value(k);
    }
    // Each thread starts its share at its own phase of the period.
    const auto n = std::int64_t(count);
#pragma omp parallel if (count >= kParallelElements)
    {
        const std::int64_t threads = omp_get_num_threads(), thread = omp_get_thread_num();
        const std::int64_t begin = n * thread / threads, end = n * (thread + 1) / threads;
        for (std::int64_t i = begin, k = begin % period; i < end; ++i) {
            out[i] = table[std::size_t(k)];
            k = k + 1 == period ? 0 : k + 1;
        }
    }
}

void poison(void* out, std::uint64_t bytes) {
    constexpr std::uint64_t kChunkBytes = 1u << 20;
    const auto chunks = std::int64_t((bytes + kChunkBytes - 1) / kChunkBytes);
    auto* base = static_cast<unsigned char*>(out);
#pragma omp parallel for schedule(static) if (bytes >= kParallelElements * sizeof(double))
    for (std::int64_t chunk = 0; chunk < chunks; ++chunk) {
        const std::uint64_t begin = std::uint64_t(chunk) * kChunkBytes;
        std::memset(base + begin, 0xff, std::min(kChunkBytes, bytes - begin));
    }
}

template <typename T>
void computeSlice(const problem::Problem& p, std::uint64_t r, const T* discount, const T* multBy,
                  T* cv) {
    const std::uint64_t cn = p.shape.c * p.shape.n;
    const T* d = discount + r * cn;
    T* out = cv + r * cn;
    for (std::uint64_t i = 0; i < cn; ++i) {
        out[i] = workChain<T>(multBy[i], d[i], p.workPerElement);
    }
}

template <typename T> std::vector<T> referenceOutput(const problem::Problem& p) {
    std::vector<T> discount, multBy;
    fillInputs(p, discount, multBy);
    std::vector<T> cv(p.elements());
    // Every slice is computed by the same serial chain whichever thread takes it, so the result
    // is the same on any number of threads; only the wait for it shrinks.
    const auto rows = std::int64_t(p.shape.r);
#pragma omp parallel for schedule(static) if (p.elements() >= kParallelElements)
    for (std::int64_t r = 0; r < rows; ++r) {
        computeSlice(p, std::uint64_t(r), discount.data(), multBy.data(), cv.data());
    }
    return cv;
}

template <typename T>
Comparison compareOutputs(const std::vector<T>& expected, const T* actual, std::size_t count) {
    Comparison c;
    if (count != expected.size()) {
        c.maxAbsError = std::numeric_limits<double>::infinity();
        return c;
    }
    // max is exact, so the threads' partial maxima give the serial loop's answer.
    bool finite = true;
    double maxAbsError = 0;
    const auto n = std::int64_t(count);
#pragma omp parallel for schedule(static) reduction(max : maxAbsError) reduction(&& : finite) \
    if (count >= kParallelElements)
    for (std::int64_t i = 0; i < n; ++i) {
        const double diff = std::fabs(double(expected[std::size_t(i)]) - double(actual[i]));
        if (std::isnan(diff)) { // a poisoned, unwritten element
            finite = false;
        } else if (diff > maxAbsError) {
            maxAbsError = diff;
        }
    }
    c.maxAbsError = maxAbsError;
    if (!finite) {
        c.maxAbsError = std::numeric_limits<double>::infinity();
    }
    c.withinTolerance = finite && c.maxAbsError <= tolerance<T>();
    return c;
}

template void fillInputs<double>(const problem::Problem&, std::vector<double>&,
                                 std::vector<double>&);
template void fillInputs<float>(const problem::Problem&, std::vector<float>&, std::vector<float>&);
template void fillPeriodic<double>(double*, std::uint64_t, unsigned,
                                   double (*)(unsigned long long));
template void fillPeriodic<float>(float*, std::uint64_t, unsigned, float (*)(unsigned long long));
template void computeSlice<double>(const problem::Problem&, std::uint64_t, const double*,
                                   const double*, double*);
template void computeSlice<float>(const problem::Problem&, std::uint64_t, const float*,
                                  const float*, float*);
template std::vector<double> referenceOutput<double>(const problem::Problem&);
template std::vector<float> referenceOutput<float>(const problem::Problem&);
template Comparison compareOutputs<double>(const std::vector<double>&, const double*, std::size_t);
template Comparison compareOutputs<float>(const std::vector<float>&, const float*, std::size_t);

} // namespace slicescope::compute
