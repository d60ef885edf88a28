// Files of other tools (traceimport.h): telling the formats apart, and what the importers share.
#include "slicescope/trace/traceimport.h"

#include "importers.h"
#include "jsoncursor.h"
#include "jsontext.h"
#include "slicescope/core/clock.h"
#include "slicescope/occupancy/occupancycalculator.h"
#include "slicescope/trace/tracelimits.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <tuple>
#include <utility>

namespace slicescope::trace {

namespace {

struct FormatRow {
    TraceFormat format;
    std::string_view name;
    std::string_view words;
};

constexpr std::array<FormatRow, 3> kFormats{{
    {TraceFormat::SliceScope, "slicescope-trace", "SliceScope trace"},
    {TraceFormat::Kineto, "kineto", "PyTorch profiler (Kineto) trace"},
    {TraceFormat::NcuCsv, "ncu-csv", "Nsight Compute CSV"},
}};

// The header line `ncu --csv` starts its table with, on both of its pages.
constexpr std::string_view kNcuHeader = "\"ID\",\"Process ID\",";

bool hasNcuHeader(std::string_view text) {
    if (text.starts_with(kNcuHeader)) {
        return true;
    }
    for (std::size_t at = text.find(kNcuHeader); at != std::string_view::npos;
         at = text.find(kNcuHeader, at + 1)) {
        if (at > 0 && (text[at - 1] == '\n' || text[at - 1] == '\r')) {
            return true;
        }
    }
    return false;
}

// The first of "format" (a SliceScope trace) and "traceEvents" (a Kineto trace) among the keys of
// the top-level object; the values before it are skipped. Nothing when neither comes first or
// the text stops being JSON.
std::optional<TraceFormat> jsonFormat(std::string_view text) {
    JsonCursor json(text);
    json.skipByteOrderMark();
    json.skipSpace();
    if (!json.consume('{')) {
        return std::nullopt;
    }
    for (;;) {
        json.skipSpace();
        std::string_view key;
        if (!json.parseString(key, "a key")) {
            return std::nullopt;
        }
        if (key == "format") {
            return TraceFormat::SliceScope;
        }
        if (key == "traceEvents") {
            return TraceFormat::Kineto;
        }
        if (!json.expect(':', "the trace") || !json.skipValue(0)) {
            return std::nullopt;
        }
        json.skipSpace();
        if (!json.consume(',')) {
            return std::nullopt;
        }
    }
}

} // namespace

std::string_view toString(TraceFormat format) {
    for (const auto& row : kFormats) {
        if (row.format == format) {
            return row.name;
        }
    }
    return "unknown";
}

std::string describeFormat(std::string_view format) {
    for (const auto& row : kFormats) {
        if (row.name == format) {
            return std::string(row.words);
        }
    }
    return std::string(format);
}

TraceFormat detectFormat(std::string_view text) {
    std::size_t first = text.starts_with("\xEF\xBB\xBF") ? 3 : 0;
    first = std::min(text.find_first_not_of(" \t\r\n", first), text.size());
    if (first < text.size() && text[first] == '{') {
        if (auto format = jsonFormat(text)) {
            return *format;
        }
    }
    // ncu prints its own lines and the program's output before the table: look for its header.
    return hasNcuHeader(text) ? TraceFormat::NcuCsv : TraceFormat::SliceScope;
}

Result<Trace> importTrace(std::string_view text, TraceFormat format, const ReadOptions& options) {
    switch (format) {
    case TraceFormat::Kineto:
        return importers::importKineto(text, options);
    case TraceFormat::NcuCsv:
        return importers::importNcuCsv(text, options);
    case TraceFormat::SliceScope:
        break;
    }
    return fail(
        Error::Code::InvalidArgument,
        "importTrace converts other tools' files; a SliceScope trace is read by parseTrace");
}

namespace importers {

Run importedRun(TraceFormat format, const ReadOptions& options, std::string_view suffix) {
    Run run;
    run.mode = RunMode::Imported;
    run.strategy = "imported";
    run.source = ImportSource{std::string(toString(format)),
                              validUtf8(options.sourceFile.substr(0, kMaxShortTextBytes))};
    run.createdAt = isoTimestampUtc();
    std::string stem = validUtf8(std::filesystem::path(options.sourceFile).stem().string());
    if (stem.empty() || stem.size() > 200) {
        stem = std::string(toString(format));
    }
    run.id = stem + std::string(suffix);
    return run;
}

namespace {

OccupancyLimiter limiterOf(occupancy::Limiter limiter) {
    switch (limiter) {
    case occupancy::Limiter::Warps:
        return OccupancyLimiter::Warps;
    case occupancy::Limiter::Blocks:
        return OccupancyLimiter::Blocks;
    case occupancy::Limiter::Registers:
        return OccupancyLimiter::Registers;
    case occupancy::Limiter::SharedMemory:
        return OccupancyLimiter::SharedMemory;
    }
    return OccupancyLimiter::Unknown;
}

} // namespace

OccupancyTally applyOccupancy(Run& run, const std::vector<KernelOnDevice>& kernels,
                              const std::map<std::uint32_t, device::DeviceSpec>& devices) {
    OccupancyTally tally;
    // Launches of one kernel repeat their configuration: each is worked out once.
    using Key = std::tuple<std::uint32_t, std::uint64_t, std::uint32_t, std::uint64_t>;
    std::map<Key, std::pair<float, OccupancyLimiter>> cache;
    for (const auto& k : kernels) {
        Activity& a = run.activities[k.activity];
        if (!std::isnan(a.theoreticalOccupancy) && a.limiter != OccupancyLimiter::Unknown) {
            ++tally.computed; // the file gave both
            continue;
        }
        const auto device = devices.find(k.device);
        if (device == devices.end() || device->second.maxWarpsPerSm == 0) {
            ++tally.failed;
            if (tally.firstFailure.empty()) {
                tally.firstFailure = "no figures for device " + std::to_string(k.device);
            }
            continue;
        }
        const std::uint64_t shared = std::uint64_t(a.staticSharedBytes) + a.dynamicSharedBytes;
        const Key key{k.device, a.block.count(), a.registersPerThread, shared};
        auto cached = cache.find(key);
        if (cached == cache.end()) {
            occupancy::KernelResources resources;
            resources.blockSize = std::uint32_t(std::min<std::uint64_t>(a.block.count(), 1u << 31));
            resources.registersPerThread = a.registersPerThread;
            resources.sharedMemoryPerBlockBytes = shared;
            // A launch with more than the default limit ran, so the kernel had opted in.
            resources.sharedMemoryOptIn = shared > device->second.sharedMemoryPerBlockBytes;
            const auto result = occupancy::calculate(device->second, resources);
            std::pair<float, OccupancyLimiter> value{kNoValue, OccupancyLimiter::Unknown};
            if (result) {
                value = {float(result->occupancy), limiterOf(result->limiter)};
            } else if (tally.firstFailure.empty()) {
                tally.firstFailure = result.error().message;
            }
            cached = cache.emplace(key, value).first;
        }
        if (std::isnan(cached->second.first)) {
            ++tally.failed;
            continue;
        }
        if (std::isnan(a.theoreticalOccupancy)) {
            a.theoreticalOccupancy = cached->second.first;
        }
        if (a.limiter == OccupancyLimiter::Unknown) {
            a.limiter = cached->second.second;
        }
        ++tally.computed;
    }
    return tally;
}

void chooseRunDevice(Run& run, const std::vector<KernelOnDevice>& kernels,
                     const std::map<std::uint32_t, device::DeviceSpec>& devices) {
    std::map<std::uint32_t, std::uint64_t> perDevice;
    for (const auto& k : kernels) {
        ++perDevice[k.device];
    }
    if (perDevice.empty()) {
        if (!devices.empty()) {
            run.device = devices.begin()->second;
        }
        return;
    }
    const auto most =
        std::max_element(perDevice.begin(), perDevice.end(),
                         [](const auto& a, const auto& b) { return a.second < b.second; });
    if (const auto it = devices.find(most->first); it != devices.end()) {
        run.device = it->second;
    }
    if (perDevice.size() > 1) {
        addNote(run, "kernels ran on " + std::to_string(perDevice.size()) +
                         " devices; the run shows device " + std::to_string(most->first) +
                         ", and each kernel's occupancy uses its own device");
    }
}

void sortByStart(Run& run) {
    const auto earlier = [](const Activity& a, const Activity& b) { return a.startNs < b.startNs; };
    if (!std::is_sorted(run.activities.begin(), run.activities.end(), earlier)) {
        std::stable_sort(run.activities.begin(), run.activities.end(), earlier);
    }
}

void setFigure(device::DeviceSpec& d, DeviceFigure figure, std::uint64_t value) {
    const auto u32 = std::uint32_t(std::min<std::uint64_t>(value, 0xFFFF'FFFFu));
    switch (figure) {
    case DeviceFigure::ComputeMajor:
        d.computeMajor = int(u32 > 1000 ? 1000 : u32);
        break;
    case DeviceFigure::ComputeMinor:
        d.computeMinor = int(u32 > 1000 ? 1000 : u32);
        break;
    case DeviceFigure::SmCount:
        d.smCount = u32;
        break;
    case DeviceFigure::WarpSize:
        d.warpSize = u32;
        break;
    case DeviceFigure::ThreadsPerSm:
        d.maxThreadsPerSm = u32;
        break;
    case DeviceFigure::WarpsPerSm:
        d.maxWarpsPerSm = u32;
        break;
    case DeviceFigure::BlocksPerSm:
        d.maxBlocksPerSm = u32;
        break;
    case DeviceFigure::ThreadsPerBlock:
        d.maxThreadsPerBlock = u32;
        break;
    case DeviceFigure::RegistersPerSm:
        d.registersPerSm = u32;
        break;
    case DeviceFigure::RegistersPerBlock:
        d.registersPerBlock = u32;
        break;
    case DeviceFigure::RegistersPerThread:
        d.maxRegistersPerThread = u32;
        break;
    case DeviceFigure::SharedPerSm:
        d.sharedMemoryPerSmBytes = value;
        break;
    case DeviceFigure::SharedPerBlock:
        d.sharedMemoryPerBlockBytes = value;
        break;
    case DeviceFigure::SharedPerBlockOptin:
        d.sharedMemoryPerBlockOptinBytes = value;
        break;
    case DeviceFigure::ReservedSharedPerBlock:
        d.reservedSharedMemoryPerBlockBytes = value;
        break;
    case DeviceFigure::ClockKHz:
        d.clockMHz = double(value) / 1000;
        break;
    case DeviceFigure::GlobalMemory:
        d.globalMemoryBytes = value;
        break;
    }
}

std::string validUtf8(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t length = utf8SequenceLength(text, i);
        if (length == 0) {
            out += "\uFFFD";
            ++i;
        } else {
            out.append(text.substr(i, length));
            i += length;
        }
    }
    return out;
}

std::string counted(std::uint64_t count, std::string_view one, std::string_view many) {
    return std::to_string(count) + " " + std::string(count == 1 ? one : many);
}

void addNote(Run& run, std::string note) {
    if (run.notes.size() < kMaxNotes) {
        run.notes.push_back(std::move(note));
    }
}

} // namespace importers

} // namespace slicescope::trace
