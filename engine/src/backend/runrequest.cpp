#include "slicescope/backend/runrequest.h"

namespace slicescope::backend {

std::string_view toString(MemoryMode mode) {
    switch (mode) {
    case MemoryMode::Pageable:
        return "pageable";
    case MemoryMode::Pinned:
        return "pinned";
    case MemoryMode::Managed:
        return "managed";
    case MemoryMode::Mapped:
        return "mapped";
    }
    return "pageable";
}

Result<MemoryMode> parseMemoryMode(std::string_view text) {
    for (auto mode :
         {MemoryMode::Pageable, MemoryMode::Pinned, MemoryMode::Managed, MemoryMode::Mapped}) {
        if (text == toString(mode)) {
            return mode;
        }
    }
    return fail(Error::Code::InvalidArgument, "unknown memory mode '" + std::string(text) +
                                                  "'; use pageable, pinned, managed or mapped");
}

} // namespace slicescope::backend
