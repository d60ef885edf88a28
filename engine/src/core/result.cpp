#include "slicescope/core/result.h"

namespace slicescope {

std::string_view toString(Error::Code code) {
    switch (code) {
    case Error::Code::InvalidArgument:
        return "invalid argument";
    case Error::Code::OutOfRange:
        return "out of range";
    case Error::Code::Overflow:
        return "overflow";
    case Error::Code::InsufficientMemory:
        return "insufficient memory";
    case Error::Code::Io:
        return "i/o error";
    case Error::Code::Parse:
        return "parse error";
    case Error::Code::Unsupported:
        return "unsupported";
    case Error::Code::DeviceFault:
        return "device fault";
    case Error::Code::VerificationFailed:
        return "verification failed";
    case Error::Code::Cancelled:
        return "cancelled";
    case Error::Code::Internal:
        return "internal error";
    }
    return "unknown error";
}

} // namespace slicescope
