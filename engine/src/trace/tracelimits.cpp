// The limits a trace must respect (tracelimits.h, docs/trace-format.md).
#include "slicescope/trace/tracelimits.h"

#include "slicescope/trace/trace.h"
#include "traceschema.h"

#include <cmath>
#include <sstream>

namespace slicescope::trace {

namespace schema {

std::string realText(double value) {
    std::ostringstream out;
    out.precision(17);
    out << value;
    return out.str();
}

Refusal tooLong(std::string_view name, std::size_t bytes, std::size_t max) {
    if (bytes <= max) {
        return std::nullopt;
    }
    return "\"" + std::string(name) + "\" is " + std::to_string(bytes) +
           " bytes long, more than the " + std::to_string(max) + " it may have";
}

// A fraction that may also be "not known" (NaN, written as null).
Refusal notFraction(std::string_view name, double value, bool nanAllowed) {
    if (isFraction(value) || (nanAllowed && std::isnan(value))) {
        return std::nullopt;
    }
    return "\"" + std::string(name) + "\" is " + realText(value) + ", not a fraction from 0 to 1";
}

} // namespace schema

std::string cutName(std::string_view text) {
    if (text.size() <= kMaxNameBytes) {
        return std::string(text);
    }
    constexpr std::string_view kEllipsis = "\u2026";
    std::size_t keep = kMaxNameBytes - kEllipsis.size();
    while (keep > 0 && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80) {
        --keep; // text[keep] continues a character: cut before that character
    }
    return std::string(text.substr(0, keep)) + std::string(kEllipsis);
}

namespace {

using schema::above;
using schema::Refusal;

Refusal realAbove(std::string_view name, double value, double max) {
    if (value <= max) {
        return std::nullopt;
    }
    return "\"" + std::string(name) + "\" is " + schema::realText(value) + ", more than " +
           schema::realText(max);
}

Refusal tooLong(std::string_view name, const std::string& value, std::size_t max) {
    return schema::tooLong(name, value.size(), max);
}

template <typename... Checks> Refusal first(const Checks&... checks) {
    Refusal found;
    ((found = found ? found : checks), ...);
    return found;
}

} // namespace

// "M.m", each part one to three digits: what the reader takes (deviceFromJson); 0.0 is unknown.
Refusal computeCapabilityError(const device::DeviceSpec& d) {
    if (d.computeMajor >= 0 && d.computeMajor <= 999 && d.computeMinor >= 0 &&
        d.computeMinor <= 999) {
        return std::nullopt;
    }
    return "\"compute_capability\" is " + d.computeCapability() + ", not M.m of 0 to 999 each";
}

std::optional<std::string> deviceLimitError(const device::DeviceSpec& d) {
    return first(
        computeCapabilityError(d), tooLong("id", d.id, kMaxShortTextBytes),
        tooLong("name", d.name, kMaxShortTextBytes), above("sm_count", d.smCount, kMaxSmCount),
        above("warp_size", d.warpSize, kMaxWarpSize),
        above("max_threads_per_sm", d.maxThreadsPerSm, kMaxThreadsPerSm),
        above("max_warps_per_sm", d.maxWarpsPerSm, kMaxWarpsPerSm),
        above("max_blocks_per_sm", d.maxBlocksPerSm, kMaxBlocksPerSm),
        above("max_threads_per_block", d.maxThreadsPerBlock, kMaxThreadsPerBlock),
        above("registers_per_sm", d.registersPerSm, kMaxRegistersPerSm),
        above("registers_per_block", d.registersPerBlock, kMaxRegistersPerSm),
        above("max_registers_per_thread", d.maxRegistersPerThread, kMaxRegistersPerThread),
        above("shared_memory_per_sm_bytes", d.sharedMemoryPerSmBytes, kMaxSharedMemoryBytes),
        above("shared_memory_per_block_bytes", d.sharedMemoryPerBlockBytes, kMaxSharedMemoryBytes),
        above("shared_memory_per_block_optin_bytes", d.sharedMemoryPerBlockOptinBytes,
              kMaxSharedMemoryBytes),
        above("reserved_shared_memory_per_block_bytes", d.reservedSharedMemoryPerBlockBytes,
              kMaxSharedMemoryBytes),
        realAbove("clock_mhz", d.clockMHz, kMaxClockMHz),
        realAbove("memory_bandwidth_gbps", d.memoryBandwidthGBps, kMaxBandwidthGBps),
        above("global_memory_bytes", d.globalMemoryBytes, kMaxGlobalMemoryBytes),
        realAbove("pageable_htod_gbps", d.pageableHtoDGBps, kMaxBandwidthGBps),
        realAbove("pageable_dtoh_gbps", d.pageableDtoHGBps, kMaxBandwidthGBps),
        realAbove("pinned_htod_gbps", d.pinnedHtoDGBps, kMaxBandwidthGBps),
        realAbove("pinned_dtoh_gbps", d.pinnedDtoHGBps, kMaxBandwidthGBps));
}

std::optional<std::string> dim3LimitError(const Dim3& e, bool isBlock) {
    const char* what = isBlock ? "block" : "grid";
    if (e.x == 0 || e.y == 0 || e.z == 0) {
        return std::string("a ") + what + " extent of 0 (each is at least 1)";
    }
    const std::uint32_t maxX = isBlock ? kMaxBlockXY : kMaxGridX;
    const std::uint32_t maxY = isBlock ? kMaxBlockXY : kMaxGridYZ;
    const std::uint32_t maxZ = isBlock ? kMaxBlockZ : kMaxGridYZ;
    if (e.x > maxX || e.y > maxY || e.z > maxZ) {
        return std::string("a ") + what + " of " + toString(e) + ", beyond CUDA's (" +
               std::to_string(maxX) + "," + std::to_string(maxY) + "," + std::to_string(maxZ) + ")";
    }
    if (isBlock && e.count() > kMaxThreadsPerBlock) {
        return "a block of " + std::to_string(e.count()) + " threads, more than " +
               std::to_string(kMaxThreadsPerBlock);
    }
    return std::nullopt;
}

} // namespace slicescope::trace
