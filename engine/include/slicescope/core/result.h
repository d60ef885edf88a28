#pragma once

#include <string>
#include <string_view>
#include <tl/expected.hpp>

namespace slicescope {

// What went wrong, in a form both a program (code) and a person (message) can act on.
struct Error {
    enum class Code {
        InvalidArgument,    // the caller's input is wrong: fix the input
        OutOfRange,         // a value is outside what the hardware or format allows
        Overflow,           // a size does not fit in 64 bits
        InsufficientMemory, // the problem does not fit in host or device memory
        Io,                 // a file could not be read or written
        Parse,              // a file is malformed or truncated
        Unsupported,        // this build or machine cannot do it (no CUDA, no device, ...)
        DeviceFault,        // the GPU reported an error while running
        VerificationFailed, // results differ from the CPU reference
        Cancelled,          // the user asked to stop
        Internal,           // a bug: report it
    };
    Code code = Code::Internal;
    std::string message;
};

std::string_view toString(Error::Code code);

template <typename T> using Result = tl::expected<T, Error>;
using Status = tl::expected<void, Error>;

inline tl::unexpected<Error> fail(Error::Code code, std::string message) {
    return tl::unexpected<Error>(Error{code, std::move(message)});
}

} // namespace slicescope
