// PLACEHOLDER: replaced by the trace JSON work (issue 2). Not done.
#include "slicescope/trace/tracejson.h"

namespace slicescope::trace {
Result<Trace> parseTrace(std::string_view, const ReadOptions&) {
    return fail(Error::Code::Internal, "not implemented yet");
}
Result<Trace> readTrace(const std::filesystem::path&, const ReadOptions&) {
    return fail(Error::Code::Internal, "not implemented yet");
}
std::string toJson(const Trace&) { return {}; }
Status writeTrace(const Trace&, const std::filesystem::path&) {
    return fail(Error::Code::Internal, "not implemented yet");
}
} // namespace slicescope::trace
