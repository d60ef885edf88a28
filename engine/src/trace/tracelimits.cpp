// The limits a trace must respect (tracelimits.h, docs/trace-format.md).
#include "slicescope/trace/tracelimits.h"

#include "slicescope/trace/trace.h"

#include <cmath>
#include <sstream>

namespace slicescope::trace {

namespace {

using Problem = std::optional<std::string>;

std::string text(double value) {
    std::ostringstream out;
    out.precision(17);
    out << value;
    return out.str();
}

template <typename T> Problem above(std::string_view name, T value, T max) {
    if (value <= max) {
        return std::nullopt;
    }
    return "\"" + std::string(name) + "\" is " + std::to_string(value) + ", more than " +
           std::to_string(max);
}

Problem realAbove(std::string_view name, double value, double max) {
    if (value <= max) {
        return std::nullopt;
    }
    return "\"" + std::string(name) + "\" is " + text(value) + ", more than " + text(max);
}

Problem tooLong(std::string_view name, const std::string& value, std::size_t max) {
    if (value.size() <= max) {
        return std::nullopt;
    }
    return "\"" + std::string(name) + "\" is " + std::to_string(value.size()) +
           " bytes long, more than the " + std::to_string(max) + " it may have";
}

// A fraction that may also be "not known" (NaN, written as null).
Problem notFraction(std::string_view name, double value, bool nanAllowed) {
    if (isFraction(value) || (nanAllowed && std::isnan(value))) {
        return std::nullopt;
    }
    return "\"" + std::string(name) + "\" is " + text(value) + ", not a fraction from 0 to 1";
}

template <typename... Checks> Problem first(const Checks&... checks) {
    Problem found;
    ((found = found ? found : checks), ...);
    return found;
}

} // namespace

std::optional<std::string> deviceLimitError(const device::DeviceSpec& d) {
    return first(
        tooLong("id", d.id, kMaxShortTextBytes), tooLong("name", d.name, kMaxShortTextBytes),
        above("sm_count", d.smCount, kMaxSmCount), above("warp_size", d.warpSize, kMaxWarpSize),
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

std::optional<std::string> runLimitError(const Run& run) {
    Problem found =
        first(tooLong("id", run.id, kMaxShortTextBytes),
              tooLong("strategy", run.strategy, kMaxShortTextBytes),
              tooLong("memory_mode", run.memoryMode, kMaxShortTextBytes),
              tooLong("created_at", run.createdAt, kMaxShortTextBytes),
              tooLong("batch", run.batch, kMaxShortTextBytes),
              tooLong("command", run.command, kMaxLongTextBytes), deviceLimitError(run.device));
    if (found) {
        return found;
    }
    if (run.repeat < 1 || run.repeat > kMaxRepeat) {
        return "\"repeat\" is " + std::to_string(run.repeat) + ", not from 1 to " +
               std::to_string(kMaxRepeat);
    }
    if (run.warmup > kMaxWarmup) {
        return "\"warmup\" is " + std::to_string(run.warmup) + ", more than " +
               std::to_string(kMaxWarmup);
    }
    if (run.chunks < 1 || run.chunks > kMaxChunks) {
        return "\"chunks\" is " + std::to_string(run.chunks) + ", not from 1 to " +
               std::to_string(kMaxChunks);
    }
    if (run.streams < 1 || run.streams > kMaxStreams) {
        return "\"streams\" is " + std::to_string(run.streams) + ", not from 1 to " +
               std::to_string(kMaxStreams);
    }
    if (run.wallNs < 0 || run.wallNs > kMaxDurationNs) {
        return "\"wall_ns\" is " + std::to_string(run.wallNs) + ", not from 0 to " +
               std::to_string(kMaxDurationNs);
    }
    for (const auto& note : run.notes) {
        if (auto problem = tooLong("notes", note, kMaxLongTextBytes)) {
            return problem;
        }
    }
    if (const auto& l = run.launch) {
        found = first(dim3LimitError(l->grid, false), dim3LimitError(l->block, true),
                      tooLong("layout", l->layout, kMaxShortTextBytes),
                      tooLong("block_option", l->blockOption, kMaxShortTextBytes),
                      above("registers_per_thread", l->registersPerThread, kMaxRegistersPerThread),
                      above("static_shared_bytes", std::uint64_t(l->staticSharedBytes),
                            kMaxSharedMemoryBytes),
                      above("dynamic_shared_bytes", std::uint64_t(l->dynamicSharedBytes),
                            kMaxSharedMemoryBytes));
        if (found) {
            return "\"launch\": " + *found;
        }
    }
    if (const auto& o = run.occupancy) {
        found = first(notFraction("theoretical", o->theoretical, true),
                      notFraction("achieved", o->achieved.value_or(0), false),
                      notFraction("thread_slots_busy", o->threadSlotsBusy, true),
                      notFraction("sm_busy_share", o->smBusyShare.value_or(0), false),
                      tooLong("limiter", o->limiter, kMaxShortTextBytes),
                      tooLong("explanation", o->explanation, kMaxLongTextBytes),
                      above("active_blocks_per_sm", o->activeBlocksPerSm, kMaxBlocksPerSm));
        if (found) {
            return "\"occupancy\": " + *found;
        }
    }
    if (run.verification && run.verification->maxAbsError < 0) {
        return "\"max_abs_error\" is negative";
    }
    for (std::size_t i = 0; i < run.occupancySeries.size(); ++i) {
        if (auto problem =
                notFraction("occupancy_series value", run.occupancySeries[i].value, false)) {
            return "sample " + std::to_string(i) + ": " + *problem;
        }
    }
    for (std::size_t i = 0; i < run.activities.size(); ++i) {
        const Activity& a = run.activities[i];
        // Only durations of valid intervals: checkReadsBack reports the others itself.
        const bool interval = a.startNs >= 0 && a.endNs >= a.startNs;
        found = first(
            interval && a.durationNs() > kMaxDurationNs
                ? Problem("a duration of " + std::to_string(a.durationNs()) + " ns, more than " +
                          std::to_string(kMaxDurationNs))
                : std::nullopt,
            dim3LimitError(a.grid, false), dim3LimitError(a.block, true),
            above("registers_per_thread", std::uint32_t(a.registersPerThread),
                  kMaxRegistersPerThread),
            above("static_shared_bytes", std::uint64_t(a.staticSharedBytes), kMaxSharedMemoryBytes),
            above("dynamic_shared_bytes", std::uint64_t(a.dynamicSharedBytes),
                  kMaxSharedMemoryBytes),
            notFraction("theoretical_occupancy", a.theoreticalOccupancy, true),
            notFraction("achieved_occupancy", a.achievedOccupancy, true),
            notFraction("active_lane_share", a.activeLaneShare, true));
        if (found) {
            return "activity " + std::to_string(i) + ": " + *found;
        }
    }
    return std::nullopt;
}

} // namespace slicescope::trace
