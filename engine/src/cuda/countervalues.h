#pragma once

// Counter readings turned into the fractions a trace holds, and the trigger PM sampling can use on
// each GPU generation. CUDA-free: tests check them without a GPU (tests/engine/tst_gpurunassembly).

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace slicescope::cuda {

// A percentage counter (`...pct_of_peak_sustained_...`) as a fraction from 0 to 1. Counters can
// read a little above 100 (a range's edges, sampling jitter); a trace's fractions stop at 1
// (slicescope/trace/tracelimits.h), so the writer would refuse the whole run: clamp instead. A
// reading that is not a number (a range with no cycles) reads as 0.
inline double fractionOfPercent(double percent) {
    return std::isfinite(percent) ? std::clamp(percent / 100.0, 0.0, 1.0) : 0.0;
}

// How PM sampling is triggered. CUPTI's GPU_TIME_INTERVAL (an interval in ns) is not supported on
// Turing (compute capability 7.5) and GA100 (8.0); there the interval counts sys-clock cycles.
enum class PmTrigger { GpuTimeInterval, SysClockInterval };

struct PmTriggerPlan {
    PmTrigger trigger = PmTrigger::GpuTimeInterval;
    std::uint64_t interval = 0; // ns for GpuTimeInterval, cycles for SysClockInterval
};

// The trigger for a device and the interval that comes closest to intervalNs. The sys clock's
// rate is not exposed, so the cycle count assumes the SM clock (clockMHz; 1 GHz when unknown):
// the samples keep their own timestamps, so only their spacing is approximate.
inline PmTriggerPlan pmTriggerPlan(int computeMajor, int computeMinor, double clockMHz,
                                   std::uint64_t intervalNs) {
    const int cc = computeMajor * 10 + computeMinor;
    if (cc != 75 && cc != 80) {
        return {PmTrigger::GpuTimeInterval, intervalNs};
    }
    const double mhz = clockMHz > 0 ? clockMHz : 1000.0;
    const double cycles = std::max(1.0, std::round(double(intervalNs) * mhz / 1000.0));
    return {PmTrigger::SysClockInterval, std::uint64_t(cycles)};
}

// The samples a PM sampling decode must hold for a sampled span of spanNs at intervalNs: the span's
// samples and some slack (the first, dropped, spans enable to start, and a clock-cycle trigger's
// spacing is approximate), never more than maxSamples. A decode that fills its image loses the
// rest (pmsampler.cpp), and each sample takes about 7 KB of image on the H200, so the image is
// sized for the span it decodes rather than for the longest one.
inline std::uint32_t pmDecodeCapacity(std::int64_t spanNs, std::uint64_t intervalNs,
                                      std::uint32_t maxSamples) {
    constexpr double kSlack = 1.1;
    constexpr std::uint32_t kMinimum = 64;
    const double span = double(std::max<std::int64_t>(0, spanNs));
    const double wanted = span / double(std::max<std::uint64_t>(1, intervalNs)) * kSlack + kMinimum;
    return std::uint32_t(std::min(wanted, double(std::max(maxSamples, kMinimum))));
}

} // namespace slicescope::cuda
