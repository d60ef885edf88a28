// PLACEHOLDER: replaced by the exporters work (issue 2). Not done.
#include "slicescope/trace/exporters.h"

namespace slicescope::trace {
void writeCsv(const Trace&, std::ostream&) {}
void writeChromeTrace(const Trace&, std::ostream&) {}
void printGpuTrace(const Run&, std::ostream&) {}
Status exportCsv(const Trace&, const std::filesystem::path&) {
    return fail(Error::Code::Internal, "not implemented yet");
}
Status exportChromeTrace(const Trace&, const std::filesystem::path&) {
    return fail(Error::Code::Internal, "not implemented yet");
}
} // namespace slicescope::trace
