#pragma once

// Writing a file so that a reader sees the old content or the complete new content, never a
// half-written file (engine-internal; trace files and exports).
#include "slicescope/core/result.h"

#include <filesystem>
#include <functional>
#include <ostream>

namespace slicescope::trace {

// Creates a temporary file beside path, lets write fill it through a stream, flushes and
// fsyncs it, then renames it over path. On any failure the temporary file is removed, path is
// left as it was, and the Error::Code::Io message names path and the system's reason.
Status writeFileAtomically(const std::filesystem::path& path,
                           const std::function<void(std::ostream&)>& write);

} // namespace slicescope::trace
