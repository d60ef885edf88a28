#pragma once

#include <cstdint>

namespace slicescope {

// Nanoseconds on CLOCK_REALTIME: the clock CUPTI stamps device activity with by default, so host
// and device activities of one run share one time base without conversion.
std::int64_t hostNowNs();

} // namespace slicescope

#include <string>

namespace slicescope {

// The current time as ISO 8601 UTC with seconds, e.g. "2026-12-02T11:42:00Z".
std::string isoTimestampUtc();

} // namespace slicescope
