#include "slicescope/compute/reference.h"

#include "slicescope/compute/workchain.h"

#include <cmath>
#include <limits>
#include <type_traits>

namespace slicescope::compute {

namespace {

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
    for (std::uint64_t i = 0; i < discount.size(); ++i) {
        discount[i] = discountValue<T>(i);
    }
    for (std::uint64_t i = 0; i < multBy.size(); ++i) {
        multBy[i] = multByValue<T>(i);
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
    for (std::uint64_t r = 0; r < p.shape.r; ++r) {
        computeSlice(p, r, discount.data(), multBy.data(), cv.data());
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
    bool finite = true;
    for (std::size_t i = 0; i < count; ++i) {
        const double diff = std::fabs(double(expected[i]) - double(actual[i]));
        if (!(diff <= c.maxAbsError)) { // NaN (a poisoned, unwritten element) fails too
            if (std::isnan(diff)) {
                finite = false;
                continue;
            }
            c.maxAbsError = diff;
        }
    }
    if (!finite) {
        c.maxAbsError = std::numeric_limits<double>::infinity();
    }
    c.withinTolerance = finite && c.maxAbsError <= tolerance<T>();
    return c;
}

template void fillInputs<double>(const problem::Problem&, std::vector<double>&,
                                 std::vector<double>&);
template void fillInputs<float>(const problem::Problem&, std::vector<float>&, std::vector<float>&);
template void computeSlice<double>(const problem::Problem&, std::uint64_t, const double*,
                                   const double*, double*);
template void computeSlice<float>(const problem::Problem&, std::uint64_t, const float*,
                                  const float*, float*);
template std::vector<double> referenceOutput<double>(const problem::Problem&);
template std::vector<float> referenceOutput<float>(const problem::Problem&);
template Comparison compareOutputs<double>(const std::vector<double>&, const double*, std::size_t);
template Comparison compareOutputs<float>(const std::vector<float>&, const float*, std::size_t);

} // namespace slicescope::compute
