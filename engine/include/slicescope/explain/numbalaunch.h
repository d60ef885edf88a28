#pragma once

// How numba chose the launch of a recorded kernel, read from the kernel's name, its argument
// types and its launch facts (docs/recording.md, "numba's launches"). numba-cuda names a
// @guvectorize kernel `MODULE::__gufunc_NAME[abi...](Array<T, D, L, ...>, ...)` and a @vectorize
// one `MODULE::__vectorized_NAME[...]`; the gufunc's arrays each carry one loop dimension in front
// of their core dimensions, and numba launches one thread per element of that loop, in blocks of
// the kernel's largest block (numba-cuda) or an occupancy-tuned one (numba 0.38).

#include "slicescope/core/dim3.h"
#include "slicescope/trace/trace.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace slicescope::explain {

struct NumbaArray {
    std::string elementType; // "double", "float", "int64", ...
    std::uint32_t dimensions = 0;
};

struct NumbaLaunch {
    enum class Kind { Guvectorize, Vectorize };
    Kind kind = Kind::Guvectorize;
    std::string function;           // the Python function's name, e.g. "whole_array"
    std::vector<NumbaArray> arrays; // the kernel's array arguments, in order
    std::uint64_t threads = 0;      // launched: grid x block
    // The loop's length lies in [minWorkers, maxWorkers]: numba launches ceil(length / block)
    // blocks, so the last block is the only one that can be part empty.
    std::uint64_t minWorkers = 0;
    std::uint64_t maxWorkers = 0;
    std::string explanation; // a paragraph in plain words
};

// The kernel's launch explained, or nothing when the name is not one of numba's ufunc kernels.
// activeLaneShare: the measured share of each warp's lanes that executed (counters), if known.
std::optional<NumbaLaunch> explainNumbaLaunch(std::string_view kernelName, const Dim3& grid,
                                              const Dim3& block,
                                              std::optional<double> activeLaneShare);

// Every numba kernel of a recorded run explained, once per kernel name and launch configuration
// (warm-up launches aside), in the order they first ran: what the CLI's summary and the GUI's
// occupancy view say about a numba program.
std::vector<NumbaLaunch> numbaLaunchesOf(const trace::Run& run);

} // namespace slicescope::explain
