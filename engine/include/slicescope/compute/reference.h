#pragma once

// The CPU reference every measured output is checked against, computed serially in double or
// float exactly as the kernels do (compute/workchain.h), and the comparison that decides a run's
// verification. The CPU backend and the GPU backend share them.

#include "slicescope/problem/problem.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace slicescope::compute {

// The problem's inputs in R x C x N order: discount (R x C x N) and multBy (C x N).
template <typename T>
void fillInputs(const problem::Problem& problem, std::vector<T>& discount, std::vector<T>& multBy);

// out[i] = value(i % period) for i < count: the inputs' values (workchain.h) repeat with a
// short period, so a table of one period is copied instead of computing each element. Split over
// the host's threads for large buffers: the first touch of fresh pages is most of the cost.
template <typename T>
void fillPeriodic(T* out, std::uint64_t count, unsigned period, T (*value)(unsigned long long));

// Every byte of [out, out + bytes) set to 0xff (a NaN in every element of f32 or f64: unwritten
// output shows up in the comparison), over the host's threads for large buffers.
void poison(void* out, std::uint64_t bytes);

// One outer slice r: cv[r][c][n] for every c, n.
template <typename T>
void computeSlice(const problem::Problem& problem, std::uint64_t r, const T* discount,
                  const T* multBy, T* cv);

// cv for a problem, in R x C x N order.
template <typename T> std::vector<T> referenceOutput(const problem::Problem& problem);

// Largest |a - b| over two outputs, and whether it is within the tolerance for the dtype. An
// unwritten (NaN-poisoned) element or a count that differs makes the error infinite.
struct Comparison {
    double maxAbsError = 0;
    bool withinTolerance = false;
};
template <typename T>
Comparison compareOutputs(const std::vector<T>& expected, const T* actual, std::size_t count);

} // namespace slicescope::compute
