#include "slicescope/problem/problem.h"

#include <array>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>

namespace slicescope::problem {

namespace {

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

bool mulOverflows(std::uint64_t a, std::uint64_t b) {
    return b != 0 && a > kMax / b;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
        s.remove_prefix(1);
    }
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
        s.remove_suffix(1);
    }
    return s;
}

Result<std::uint64_t> parseDimension(std::string_view text, char label) {
    const std::string what = std::string("dimension ") + label;
    text = trim(text);
    if (text.empty()) {
        return fail(Error::Code::InvalidArgument, what + " is missing");
    }
    if (text.front() == '-') {
        return fail(Error::Code::InvalidArgument,
                    what + " is negative (" + std::string(text) + "); dimensions are >= 1");
    }
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc::result_out_of_range) {
        return fail(Error::Code::Overflow,
                    what + " (" + std::string(text) + ") does not fit in 64 bits");
    }
    if (ec != std::errc() || end != text.data() + text.size()) {
        return fail(Error::Code::InvalidArgument,
                    what + " is not a whole number: '" + std::string(text) + "'");
    }
    if (value == 0) {
        return fail(Error::Code::InvalidArgument, what + " is 0; dimensions are >= 1");
    }
    return value;
}

} // namespace

std::string_view toString(Dtype dtype) {
    return dtype == Dtype::F64 ? "f64" : "f32";
}

Result<Dtype> parseDtype(std::string_view text) {
    if (text == "f64" || text == "float64" || text == "double") {
        return Dtype::F64;
    }
    if (text == "f32" || text == "float32" || text == "float") {
        return Dtype::F32;
    }
    return fail(Error::Code::InvalidArgument,
                "unknown dtype '" + std::string(text) + "'; use f64 or f32");
}

std::uint64_t sizeOf(Dtype dtype) {
    return dtype == Dtype::F64 ? 8 : 4;
}

double Problem::arithmeticIntensity() const {
    const double flops = double(elements()) * (1.0 + 2.0 * double(workPerElement - 1));
    const double bytes = double(arrayBytes()) * 2.0 + double(multByBytes());
    return flops / bytes;
}

std::string Problem::describe() const {
    return std::to_string(shape.r) + "x" + std::to_string(shape.c) + "x" + std::to_string(shape.n) +
           " " + std::string(toString(dtype)) + ", work " + std::to_string(workPerElement);
}

Result<Shape> parseShape(std::string_view text) {
    const std::string original(text);
    if (trim(text).empty()) {
        return fail(Error::Code::InvalidArgument,
                    "the shape is empty; give three dimensions RxCxN, e.g. 100x4000x5");
    }
    std::array<std::string_view, 3> parts;
    std::size_t count = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= text.size(); ++i) {
        const bool separator = i == text.size() || text[i] == 'x' || text[i] == 'X' ||
                               text[i] == ',' || text[i] == '*';
        if (!separator) {
            continue;
        }
        if (count == parts.size()) {
            return fail(Error::Code::InvalidArgument,
                        "shape '" + original + "' has more than three dimensions; use RxCxN");
        }
        parts[count++] = text.substr(start, i - start);
        start = i + 1;
    }
    if (count < 3) {
        return fail(Error::Code::InvalidArgument, "shape '" + original +
                                                      "' needs three dimensions RxCxN (dimension " +
                                                      "RCN"[count] + " is missing)");
    }
    Shape shape;
    const char labels[] = {'R', 'C', 'N'};
    std::uint64_t* fields[] = {&shape.r, &shape.c, &shape.n};
    for (std::size_t i = 0; i < 3; ++i) {
        auto value = parseDimension(parts[i], labels[i]);
        if (!value) {
            return fail(value.error().code, "shape '" + original + "': " + value.error().message);
        }
        *fields[i] = *value;
    }
    return shape;
}

Result<Problem> makeProblem(Shape shape, Dtype dtype, std::int64_t workPerElement) {
    if (shape.r == 0 || shape.c == 0 || shape.n == 0) {
        return fail(Error::Code::InvalidArgument, "every dimension of the shape must be >= 1");
    }
    if (workPerElement < 1) {
        return fail(Error::Code::InvalidArgument,
                    "work per element must be >= 1 (got " + std::to_string(workPerElement) + ")");
    }
    if (workPerElement > std::numeric_limits<std::uint32_t>::max()) {
        return fail(Error::Code::OutOfRange, "work per element must be below 2^32");
    }
    if (mulOverflows(shape.r, shape.c) || mulOverflows(shape.r * shape.c, shape.n)) {
        return fail(Error::Code::Overflow,
                    "the element count " + std::to_string(shape.r) + "x" + std::to_string(shape.c) +
                        "x" + std::to_string(shape.n) + " does not fit in 64 bits");
    }
    const std::uint64_t elements = shape.r * shape.c * shape.n;
    // The largest total any strategy allocates is a few full arrays (see
    // strategy::memoryFootprint); 8 arrays of the element size must still be countable in 64 bits.
    if (mulOverflows(elements, sizeOf(dtype) * 8)) {
        return fail(Error::Code::Overflow, "the byte size of " + std::to_string(elements) +
                                               " elements does not fit in 64 bits");
    }
    // Every element costs `work` operations: the total must be countable (the model and the CPU
    // backend count it), and past kMaxOperations the slowest strategy's figures no longer fit in
    // a trace.
    if (mulOverflows(elements, std::uint64_t(workPerElement))) {
        return fail(Error::Code::Overflow, "the work of " + std::to_string(elements) +
                                               " elements x " + std::to_string(workPerElement) +
                                               " operations each does not fit in 64 bits");
    }
    if (elements * std::uint64_t(workPerElement) > kMaxOperations) {
        return fail(Error::Code::OutOfRange,
                    std::to_string(elements) + " elements x " + std::to_string(workPerElement) +
                        " operations each is more than a run can time: at most 2^47 (" +
                        std::to_string(kMaxOperations) +
                        ") operations in all; lower the work per element or the shape");
    }
    return Problem{shape, dtype, std::uint32_t(workPerElement)};
}

Result<std::uint64_t> availableHostMemoryBytes() {
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    std::uint64_t value = 0;
    std::string unit;
    while (meminfo >> key >> value) {
        std::getline(meminfo, unit);
        if (key == "MemAvailable:") {
            return value * 1024;
        }
    }
    return fail(Error::Code::Unsupported, "cannot read MemAvailable from /proc/meminfo");
}

} // namespace slicescope::problem
