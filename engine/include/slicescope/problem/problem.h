#pragma once

#include "slicescope/core/result.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace slicescope::problem {

enum class Dtype { F64, F32 };

std::string_view toString(Dtype dtype);
Result<Dtype> parseDtype(std::string_view text);
std::uint64_t sizeOf(Dtype dtype);

// R x C x N, the seed's cv[r][c][n] = multBy[c][n] * discount[r][c][n].
struct Shape {
    std::uint64_t r = 0;
    std::uint64_t c = 0;
    std::uint64_t n = 0;
    friend bool operator==(const Shape&, const Shape&) = default;
};

// A validated problem: every dimension >= 1, work >= 1, every size below fits in 64 bits.
struct Problem {
    Shape shape;
    Dtype dtype = Dtype::F64;
    std::uint32_t workPerElement = 1;

    std::uint64_t elements() const { return shape.r * shape.c * shape.n; }
    std::uint64_t elementBytes() const { return sizeOf(dtype); }
    // One full R x C x N array (discount, or the output cv).
    std::uint64_t arrayBytes() const { return elements() * elementBytes(); }
    // The broadcast operand multBy, C x N.
    std::uint64_t multByBytes() const { return shape.c * shape.n * elementBytes(); }
    // Floating-point operations per byte moved between host and device (one multiply, then
    // one multiply-add per extra unit of work, over discount + multBy in and cv out).
    double arithmeticIntensity() const;
    std::string describe() const; // "100x4000x5 f64, work 1"
    friend bool operator==(const Problem&, const Problem&) = default;
};

// The most operations (elements x work per element) a problem may ask for. The slowest figure a
// trace holds is one worker walking every operation as one dependent chain: about 41 ns an
// operation on the slowest preset (GeForce GTX 970, f64), so 2^47 operations take 5.8e15 ns, within
// the 2^53 ns a trace can hold (trace::kMaxDurationNs); 2^53 / 41 ns is 2.2e14 operations.
inline constexpr std::uint64_t kMaxOperations = std::uint64_t(1) << 47;

// Parses "RxCxN" (also "R,C,N" or "R*C*N"). Errors name the bad dimension.
Result<Shape> parseShape(std::string_view text);
// Validates a shape, dtype and work into a Problem; rejects zero dims, work < 1, any element
// count or byte size (including the largest buffer a strategy allocates) that would overflow 64
// bits, and more than kMaxOperations operations (elements x work).
Result<Problem> makeProblem(Shape shape, Dtype dtype, std::int64_t workPerElement);

// Bytes of host memory the machine has available now (MemAvailable), or an error.
Result<std::uint64_t> availableHostMemoryBytes();

} // namespace slicescope::problem
