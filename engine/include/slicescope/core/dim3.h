#pragma once

#include <cstdint>
#include <string>

namespace slicescope {

// A CUDA-style 3-D extent (grid or block); plain data so the engine needs no CUDA headers.
struct Dim3 {
    std::uint32_t x = 1;
    std::uint32_t y = 1;
    std::uint32_t z = 1;

    std::uint64_t count() const { return std::uint64_t(x) * y * z; }
    friend bool operator==(const Dim3&, const Dim3&) = default;
};

std::string toString(const Dim3& d); // "(7813,1,1)"

} // namespace slicescope
