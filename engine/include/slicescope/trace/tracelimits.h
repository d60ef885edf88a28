#pragma once

// The limits a trace must respect (docs/trace-format.md, "Limits"). A file is hostile input: a
// figure that no GPU has, such as 100,000,000 SMs, would make the SM map, the occupancy
// calculator or the timeline allocate or loop without end. The reader refuses a trace outside
// these limits, and the writer refuses to write one (it could not be read back). Each limit is
// well above today's largest GPU (the H200: 132 SMs, 2,048 threads and 228 KiB of shared memory
// per SM) so tomorrow's fit, and far below what would exhaust memory or time.
#include "slicescope/core/dim3.h"
#include "slicescope/device/devicespec.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace slicescope::trace {

struct Run;

// Files: a million-event trace is about 200 MB; this holds about five million.
inline constexpr std::uint64_t kMaxTraceFileBytes = std::uint64_t(1) << 30; // 1 GiB

// Text (bytes of UTF-8). Activity names longer than kMaxNameBytes are cut (with a run note);
// other text beyond its limit is refused.
inline constexpr std::size_t kMaxNameBytes = 4096;            // activity names
inline constexpr std::size_t kMaxShortTextBytes = 4096;       // ids, names, enumerations
inline constexpr std::size_t kMaxLongTextBytes = 1024 * 1024; // command, notes, explanation

// Devices.
inline constexpr std::uint32_t kMaxSmCount = 1024;
inline constexpr std::uint32_t kMaxWarpSize = 64;
inline constexpr std::uint32_t kMaxThreadsPerSm = 4096;
inline constexpr std::uint32_t kMaxWarpsPerSm = 128;
inline constexpr std::uint32_t kMaxBlocksPerSm = 128;
inline constexpr std::uint32_t kMaxRegistersPerSm = 1024 * 1024;        // also per block
inline constexpr std::uint64_t kMaxSharedMemoryBytes = 4 * 1024 * 1024; // per SM, per block
inline constexpr double kMaxClockMHz = 10'000;
inline constexpr double kMaxBandwidthGBps = 100'000; // device memory and host link
inline constexpr std::uint64_t kMaxGlobalMemoryBytes = std::uint64_t(1) << 44; // 16 TiB

// Launches (CUDA's own limits, the same since compute capability 3.0). Registers: CUDA's
// architectural limit is 255; 256 leaves room for a count rounded up to the allocation unit.
inline constexpr std::uint32_t kMaxGridX = 2'147'483'647;
inline constexpr std::uint32_t kMaxGridYZ = 65'535;
inline constexpr std::uint32_t kMaxBlockXY = 1024;
inline constexpr std::uint32_t kMaxBlockZ = 64;
inline constexpr std::uint32_t kMaxThreadsPerBlock = 1024;
inline constexpr std::uint32_t kMaxRegistersPerThread = 256;

// Runs and activities. kMaxDurationNs (2^53 ns, about 104 days) keeps every duration exact in a
// double, which the timeline and the exports compute with.
inline constexpr std::int64_t kMaxDurationNs = std::int64_t(1) << 53;
inline constexpr std::uint32_t kMaxRepeat = 65'536; // iterations are numbered in 16 bits
inline constexpr std::uint32_t kMaxWarmup = 65'536; // so are warm-up iterations
// Notes a run may carry (warnings for its reader: a few per run; 10^8 empty ones took 4.5 GB).
inline constexpr std::size_t kMaxNotes = 1024;

// Sweeps (slicescope-cli sweep) and roofline ceilings. A sweep's chart draws a marker per value
// and strategy: 4096 points is above any sweep the CLI plans (a range of x2 steps, or +1 steps of
// the block size), and far below what would stall a chart.
inline constexpr std::size_t kMaxSweeps = 64;          // per trace
inline constexpr std::size_t kMaxSweepValues = 4096;   // per sweep
inline constexpr std::size_t kMaxSweepStrategies = 64; // per sweep
inline constexpr double kMaxGflops = 10'000'000;       // FMA peak: 10 Pflop/s
// Chunks and streams of a pipelined run: the CLI's own limits (strategy/pipeline.h).
inline constexpr std::uint32_t kMaxChunks = 4096;
inline constexpr std::uint32_t kMaxStreams = 64;

// An activity name longer than kMaxNameBytes, cut at a character boundary to end in "..." (U+2026)
// within the limit (a 200 MB kernel name took the GUI's text layout down); shorter text as it is.
std::string cutName(std::string_view text);

// Each returns what breaks a limit, naming the field ("\"sm_count\" is 100000000, more than
// 1024"), or nothing.
std::optional<std::string> deviceLimitError(const device::DeviceSpec& device);
// grid (isBlock false) or block (true).
std::optional<std::string> dim3LimitError(const Dim3& extent, bool isBlock);
// A run as the writer holds it: every limit the reader checks, ids aside (unique per trace).
std::optional<std::string> runLimitError(const Run& run);

// An occupancy or share: 0..1.
inline bool isFraction(double value) {
    return value >= 0 && value <= 1;
}

} // namespace slicescope::trace
