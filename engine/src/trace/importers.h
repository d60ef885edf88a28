#pragma once

// The importers behind traceimport.h (engine-internal): one per format, and what they share.
#include "slicescope/device/devicespec.h"
#include "slicescope/trace/traceimport.h"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace slicescope::trace::importers {

Result<Trace> importKineto(std::string_view text, const ReadOptions& options); // kinetoimport.cpp
Result<Trace> importNcuCsv(std::string_view text, const ReadOptions& options); // ncuimport.cpp

// A word of a file and what it means: the importers' tables.
template <typename T> struct Word {
    std::string_view word;
    T value;
};
template <typename T, std::size_t N>
std::optional<T> lookUp(const std::array<Word<T>, N>& table, std::string_view word) {
    for (const auto& row : table) {
        if (row.word == word) {
            return row.value;
        }
    }
    return std::nullopt;
}

// A figure of a device another tool describes (cudaDeviceProp, Nsight Compute's attributes).
enum class DeviceFigure {
    ComputeMajor,
    ComputeMinor,
    SmCount,
    WarpSize,
    ThreadsPerSm,
    WarpsPerSm,
    BlocksPerSm,
    ThreadsPerBlock,
    RegistersPerSm,
    RegistersPerBlock,
    RegistersPerThread,
    SharedPerSm,
    SharedPerBlock,
    SharedPerBlockOptin,
    ReservedSharedPerBlock,
    ClockKHz,
    GlobalMemory,
};
// Sets it; a value beyond 32 bits is kept as 2^32 - 1 in a 32-bit figure, which
// deviceLimitError then refuses as it refuses any figure beyond a GPU.
void setFigure(device::DeviceSpec& device, DeviceFigure figure, std::uint64_t value);

// A run converted from a file: mode Imported, strategy "imported", its source, the time of the
// import, and an id from the file's name ("kineto-cnn" for kineto-cnn.json; the format's name
// when the file has none) with `suffix` after it.
Run importedRun(TraceFormat format, const ReadOptions& options, std::string_view suffix = {});

// A kernel of an imported run and the device it ran on (the key of `devices`).
struct KernelOnDevice {
    std::size_t activity = 0;
    std::uint32_t device = 0;
};

struct OccupancyTally {
    std::uint64_t computed = 0;
    std::uint64_t failed = 0; // no device figures, or a launch the calculator refuses
    std::string firstFailure;
};

// Theoretical occupancy and its limiter for each kernel from its launch (block, registers, shared
// memory) and its device, by the occupancy calculator; a kernel whose file gave them keeps them.
OccupancyTally applyOccupancy(Run& run, const std::vector<KernelOnDevice>& kernels,
                              const std::map<std::uint32_t, device::DeviceSpec>& devices);

// The device with the most kernels becomes the run's (a note when there are several); the kernels
// of a device without figures are counted in the occupancy tally's failures.
void chooseRunDevice(Run& run, const std::vector<KernelOnDevice>& kernels,
                     const std::map<std::uint32_t, device::DeviceSpec>& devices);

// Activities ordered by start (stable: the file's order among equal starts), as the timeline and
// the summaries expect; a vector already in order is left as it is.
void sortByStart(Run& run);

// Text from a file as valid UTF-8, as trace text must be: stray bytes become U+FFFD.
std::string validUtf8(std::string_view text);

// "1 kernel", "30 kernels".
std::string counted(std::uint64_t count, std::string_view one, std::string_view many);

// The note a run gets when the file's names were cut, events were left out, and so on: adds it
// unless the run holds kMaxNotes already.
void addNote(Run& run, std::string note);

} // namespace slicescope::trace::importers
