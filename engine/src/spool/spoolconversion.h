#pragma once

// The two conversions of an activity across the spool, kept together so that a field added to
// one is added to the other: the injection library turns each decoded CUPTI record into an
// ActivityFrame (toFrame), the recorder turns the frame back into a trace activity (toActivity).
// tests/engine/tst_spoolformat.cpp checks the round trip through an encoded spool.

#include "slicescope/trace/trace.h"
#include "spool/spoolformat.h"

#include <cstdint>

namespace slicescope::record {

// What CUPTI says about a record beside its trace activity.
struct ActivityOrigin {
    std::uint32_t deviceId = 0; // copies, kernels, memsets
    std::uint32_t contextId = 0;
    std::int64_t gridId = 0;       // kernels: unique per launch
    std::uint32_t returnValue = 0; // api and sync records: the call's result code
    bool timed = true;             // false when CUPTI could not time it
};

ActivityFrame toFrame(const trace::Activity& activity, const ActivityOrigin& origin);

// The frame's activity, its name given by the reader's own id for the frame's name.
trace::Activity toActivity(const ActivityFrame& frame, std::uint32_t nameId);

} // namespace slicescope::record
