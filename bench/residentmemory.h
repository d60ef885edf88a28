#pragma once

#include <cstdint>

// The process's memory as the kernel counts it (Linux /proc/self), for benchmarks.
namespace slicescope::bench {

// Resident set size now: /proc/self/statm's second field times the page size. 0 if unreadable.
std::uint64_t residentBytes();
// The highest resident set size so far: VmHWM in /proc/self/status. 0 if unreadable.
std::uint64_t peakResidentBytes();

} // namespace slicescope::bench
