// Exports of a trace for other tools: CSV in nvprof --print-gpu-trace columns, Chrome Trace Event
// JSON, and nvprof's terminal table. docs/trace-format.md documents the columns and the mapping.
#include "slicescope/trace/exporters.h"

#include "jsontext.h"
#include "slicescope/trace/atomicfile.h"

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

namespace slicescope::trace {

namespace {

// The device activities of a run's measured iterations in start order (ties keep their order in
// the run). Warm-up activities are left out: nvprof's columns have no place to mark them, and a
// reader sums these rows.
std::vector<const Activity*> deviceActivities(const Run& run) {
    std::vector<const Activity*> rows;
    for (const auto& activity : run.activities) {
        if (isDeviceActivity(activity.kind) && !activity.warmup) {
            rows.push_back(&activity);
        }
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](const Activity* a, const Activity* b) { return a->startNs < b->startNs; });
    return rows;
}

// What nvprof calls the activity in its Name column.
std::string displayName(const Run& run, const Activity& a) {
    switch (a.kind) {
    case ActivityKind::HtoD:
        return "[CUDA memcpy HtoD]";
    case ActivityKind::DtoH:
        return "[CUDA memcpy DtoH]";
    case ActivityKind::DtoD:
        return "[CUDA memcpy DtoD]";
    case ActivityKind::HtoH:
        return "[CUDA memcpy HtoH]";
    case ActivityKind::Memset:
        return "[CUDA memset]";
    default:
        break;
    }
    const std::string_view name = run.name(a);
    return name.empty() ? "[" + std::string(toString(a.kind)) + "]" : std::string(name);
}

// nvprof's spelling of a memory kind ("Pageable", "Device", ...).
std::string memoryTypeName(MemoryKind kind) {
    std::string name(toString(kind));
    if (!name.empty()) {
        name[0] = char(name[0] - 'a' + 'A');
    }
    return name;
}

bool hasBytes(const Activity& a) {
    return isCopy(a.kind) || a.kind == ActivityKind::Memset;
}

// Bytes per nanosecond is GB/s (decimal); no figure for an activity of no duration.
std::optional<double> throughputGBps(const Activity& a) {
    if (!hasBytes(a) || a.durationNs() <= 0) {
        return std::nullopt;
    }
    return double(a.bytes) / double(a.durationNs());
}

std::string microseconds(std::int64_t ns) {
    std::string text;
    appendMicroseconds(text, ns);
    return text;
}

std::string csvField(std::string_view text) {
    // Control characters (NUL, ESC, tab, line breaks, DEL) become \xHH: names come from the
    // recorded program, and raw control bytes would reach the terminal or tool that shows the
    // file, or split a row. Then RFC 4180: quote a field holding a separator or a quote, and
    // double the quotes.
    std::string escaped;
    escaped.reserve(text.size());
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20 || byte == 0x7f) {
            char hex[5];
            std::snprintf(hex, sizeof hex, "\\x%02x", unsigned(byte));
            escaped += hex;
        } else {
            escaped += c;
        }
    }
    if (escaped.find_first_of(",\"") == std::string::npos) {
        return escaped;
    }
    std::string out = "\"";
    for (const char c : escaped) {
        out += c;
        if (c == '"') {
            out += '"';
        }
    }
    out += '"';
    return out;
}

// ---------------------------------------------------------------------------------------------
// nvprof-style human units: five significant digits, as nvprof prints them.

std::string significant5(double value, std::string_view unit) {
    const int integerDigits = value < 10 ? 1 : value < 100 ? 2 : 3;
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", 5 - integerDigits, value);
    return std::string(text) + std::string(unit);
}

// value in the smallest unit; units[i].first is how many smallest units make units[i].
template <std::size_t N>
std::string humanUnits(double value, const std::array<std::pair<double, const char*>, N>& units) {
    std::size_t unit = 0;
    while (unit + 1 < N && value >= units[unit + 1].first) {
        ++unit;
    }
    std::string text = unit == 0 ? "" : significant5(value / units[unit].first, units[unit].second);
    // Rounding can reach 1000 of a unit (999.996 us): say 1.0000 ms instead.
    if (unit > 0 && unit + 1 < N && text.rfind("1000", 0) == 0) {
        ++unit;
        text = significant5(value / units[unit].first, units[unit].second);
    }
    return text;
}

std::string formatTime(std::int64_t ns) {
    if (ns < 1000) {
        return std::to_string(ns) + "ns";
    }
    static constexpr std::array<std::pair<double, const char*>, 4> kUnits{
        {{1, "ns"}, {1e3, "us"}, {1e6, "ms"}, {1e9, "s"}}};
    return humanUnits(double(ns), kUnits);
}

std::string formatBytes(std::uint64_t bytes) {
    if (bytes < 1000) {
        return std::to_string(bytes) + "B";
    }
    static constexpr std::array<std::pair<double, const char*>, 5> kUnits{
        {{1, "B"}, {1e3, "KB"}, {1e6, "MB"}, {1e9, "GB"}, {1e12, "TB"}}};
    return humanUnits(double(bytes), kUnits);
}

std::string formatThroughput(double gbps) {
    const double bytesPerSecond = gbps * 1e9;
    if (bytesPerSecond < 1000) {
        char text[32];
        std::snprintf(text, sizeof text, "%.0fB/s", bytesPerSecond);
        return text;
    }
    static constexpr std::array<std::pair<double, const char*>, 5> kUnits{
        {{1, "B/s"}, {1e3, "KB/s"}, {1e6, "MB/s"}, {1e9, "GB/s"}, {1e12, "TB/s"}}};
    return humanUnits(bytesPerSecond, kUnits);
}

// ---------------------------------------------------------------------------------------------
// Chrome lanes: one thread per kind of work, split by stream (device) or host thread, so that
// no two events of one lane overlap unless they really ran concurrently on one queue.

struct Lane {
    int order = 0;        // position of the kind among lanes
    std::uint32_t id = 0; // stream or host thread
    friend bool operator<(const Lane& a, const Lane& b) {
        return std::tie(a.order, a.id) < std::tie(b.order, b.id);
    }
};

Lane laneOf(const Activity& a) {
    // API calls first, then the device work in the order data flows, then host work.
    int order = 0;
    switch (a.kind) {
    case ActivityKind::Api:
        order = 0;
        break;
    case ActivityKind::Sync:
        order = 1;
        break;
    case ActivityKind::HtoD:
        order = 2;
        break;
    case ActivityKind::Memset:
        order = 3;
        break;
    case ActivityKind::Kernel:
        order = 4;
        break;
    case ActivityKind::DtoD:
        order = 5;
        break;
    case ActivityKind::DtoH:
        order = 6;
        break;
    case ActivityKind::HtoH:
        order = 7;
        break;
    case ActivityKind::Host:
        order = 8;
        break;
    case ActivityKind::Overhead:
        order = 9;
        break;
    }
    return Lane{order, isDeviceActivity(a.kind) ? a.stream : a.threadId};
}

std::string laneName(const Lane& lane) {
    static constexpr std::array<const char*, 10> kNames{
        "API",         "Sync",        "Memcpy HtoD", "Memset", "Kernels",
        "Memcpy DtoD", "Memcpy DtoH", "Memcpy HtoH", "Host",   "Overhead"};
    const bool device = lane.order >= 2 && lane.order <= 7;
    return std::string(kNames[std::size_t(lane.order)]) + (device ? " (stream " : " (thread ") +
           std::to_string(lane.id) + ")";
}

// Starts the next element of traceEvents.
void beginEvent(std::string& out, bool& first) {
    out += first ? "\n{" : ",\n{";
    first = false;
}

void appendMetadata(std::string& out, bool& first, std::string_view name, int pid, int tid,
                    std::string_view key, std::string_view textValue, std::int64_t numberValue,
                    bool isText) {
    beginEvent(out, first);
    out += "\"ph\":\"M\",\"name\":";
    appendJsonString(out, name);
    out += ",\"pid\":";
    appendInteger(out, pid);
    out += ",\"tid\":";
    appendInteger(out, tid);
    out += ",\"args\":{";
    appendJsonString(out, key);
    out += ':';
    if (isText) {
        appendJsonString(out, textValue);
    } else {
        appendInteger(out, numberValue);
    }
    out += "}}";
}

void appendArg(std::string& out, bool& first, std::string_view key) {
    out += first ? "" : ",";
    first = false;
    appendJsonString(out, key);
    out += ':';
}

void appendEvent(std::string& out, bool& firstEvent, const Run& run, const Activity& a, int pid,
                 int tid, std::int64_t originNs) {
    beginEvent(out, firstEvent);
    out += "\"ph\":\"X\",\"name\":";
    appendJsonString(out, displayName(run, a));
    out += ",\"cat\":";
    // The category filter in both viewers then tells modelled and projected events apart at a
    // glance.
    appendJsonString(
        out, std::string(toString(a.kind)) +
                 (isPredicted(run.mode) ? "," + std::string(toString(run.mode)) : std::string()) +
                 (a.warmup ? ",warmup" : ""));
    out += ",\"pid\":";
    appendInteger(out, pid);
    out += ",\"tid\":";
    appendInteger(out, tid);
    out += ",\"ts\":";
    appendMicroseconds(out, a.startNs - originNs);
    out += ",\"dur\":";
    appendMicroseconds(out, a.durationNs());
    out += ",\"args\":{";
    bool first = true;
    appendArg(out, first, "Mode");
    appendJsonString(out, toString(run.mode));
    appendArg(out, first, "Start (ns)");
    // As text: a 1.7e18 ns timestamp is beyond what a JSON reader's double holds exactly.
    appendJsonString(out, std::to_string(a.startNs));
    appendArg(out, first, "Duration (ns)");
    appendInteger(out, a.durationNs());
    if (a.kind == ActivityKind::Kernel) {
        appendArg(out, first, "Grid");
        appendJsonString(out, toString(a.grid));
        appendArg(out, first, "Block");
        appendJsonString(out, toString(a.block));
        appendArg(out, first, "Registers Per Thread");
        appendUnsigned(out, a.registersPerThread);
        appendArg(out, first, "Static SMem (B)");
        appendUnsigned(out, a.staticSharedBytes);
        appendArg(out, first, "Dynamic SMem (B)");
        appendUnsigned(out, a.dynamicSharedBytes);
        if (!std::isnan(a.theoreticalOccupancy)) {
            appendArg(out, first, "Theoretical Occupancy");
            appendFloat(out, a.theoreticalOccupancy);
        }
        if (!std::isnan(a.achievedOccupancy)) {
            appendArg(out, first, "Achieved Occupancy");
            appendFloat(out, a.achievedOccupancy);
        }
    }
    if (hasBytes(a)) {
        appendArg(out, first, "Size (B)");
        appendUnsigned(out, a.bytes);
        if (const auto gbps = throughputGBps(a)) {
            appendArg(out, first, "Throughput (GB/s)");
            appendDouble(out, *gbps);
        }
        if (a.srcKind != MemoryKind::Unknown || isCopy(a.kind)) {
            appendArg(out, first, "SrcMemType");
            appendJsonString(out, memoryTypeName(a.srcKind));
        }
        if (a.dstKind != MemoryKind::Unknown || isCopy(a.kind)) {
            appendArg(out, first, "DstMemType");
            appendJsonString(out, memoryTypeName(a.dstKind));
        }
    }
    if (isDeviceActivity(a.kind)) {
        appendArg(out, first, "Device");
        appendJsonString(out, run.device.name);
        appendArg(out, first, "Stream");
        appendUnsigned(out, a.stream);
    } else {
        appendArg(out, first, "Thread");
        appendUnsigned(out, a.threadId);
    }
    if (a.correlationId != 0) {
        appendArg(out, first, "Correlation ID");
        appendUnsigned(out, a.correlationId);
    }
    if (a.iteration != 0) {
        appendArg(out, first, "Iteration");
        appendUnsigned(out, a.iteration);
    }
    if (a.warmup) {
        appendArg(out, first, "Warm-up");
        out += "true";
    }
    out += "}}";
}

template <typename Write> Status exportFile(const std::filesystem::path& path, Write&& write) {
    auto written = writeFileAtomically(path, write);
    if (!written) {
        return fail(Error::Code::Io, "export failed: " + written.error().message);
    }
    return {};
}

} // namespace

void writeCsv(const Trace& trace, std::ostream& out) {
    out << "Start,Duration,Grid X,Grid Y,Grid Z,Block X,Block Y,Block Z,Registers Per Thread,"
           "Static SMem,Dynamic SMem,Size,Throughput,SrcMemType,DstMemType,Device,Context,Stream,"
           "Name,Run,Mode\n";
    // The units row, as nvprof writes one: times in microseconds, sizes in bytes.
    out << "us,us,,,,,,,,B,B,B,GB/s,,,,,,,,\n";
    std::string line;
    for (const auto& run : trace.runs) {
        const std::int64_t originNs = run.beginNs();
        const std::string device = csvField(run.device.name);
        const std::string id = csvField(run.id);
        const std::string_view mode = toString(run.mode);
        for (const Activity* a : deviceActivities(run)) {
            line.clear();
            line += microseconds(a->startNs - originNs);
            line += ',';
            line += microseconds(a->durationNs());
            if (a->kind == ActivityKind::Kernel) {
                for (const std::uint64_t value :
                     {std::uint64_t(a->grid.x), std::uint64_t(a->grid.y), std::uint64_t(a->grid.z),
                      std::uint64_t(a->block.x), std::uint64_t(a->block.y),
                      std::uint64_t(a->block.z), std::uint64_t(a->registersPerThread),
                      std::uint64_t(a->staticSharedBytes), std::uint64_t(a->dynamicSharedBytes)}) {
                    line += ',';
                    appendUnsigned(line, value);
                }
            } else {
                line += ",,,,,,,,,";
            }
            line += ',';
            if (hasBytes(*a)) {
                appendUnsigned(line, a->bytes);
            }
            line += ',';
            if (const auto gbps = throughputGBps(*a)) {
                char text[32];
                std::snprintf(text, sizeof text, "%.3f", *gbps);
                line += text;
            }
            line += ',';
            if (isCopy(a->kind) || a->srcKind != MemoryKind::Unknown) {
                line += memoryTypeName(a->srcKind);
            }
            line += ',';
            if (isCopy(a->kind) || a->dstKind != MemoryKind::Unknown) {
                line += memoryTypeName(a->dstKind);
            }
            line += ',';
            line += device;
            line += ",,"; // Context: SliceScope does not record CUDA contexts
            appendUnsigned(line, a->stream);
            line += ',';
            line += csvField(displayName(run, *a));
            line += ',';
            line += id;
            line += ',';
            line += mode;
            line += '\n';
            out << line;
        }
    }
}

void writeChromeTrace(const Trace& trace, std::ostream& out) {
    std::string text = "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":";
    appendJsonString(text, trace.generator);
    text += ",\"exported_from\":\"slicescope-trace\"},\n\"traceEvents\":[";
    bool first = true;
    for (std::size_t r = 0; r < trace.runs.size(); ++r) {
        const Run& run = trace.runs[r];
        const int pid = int(r) + 1;
        const std::string mode(toString(run.mode));
        appendMetadata(text, first, "process_name", pid, 0, "name", run.id + " [" + mode + "]", 0,
                       true);
        appendMetadata(text, first, "process_labels", pid, 0, "labels", mode, 0, true);
        appendMetadata(text, first, "process_sort_index", pid, 0, "sort_index", {}, pid, false);

        std::map<Lane, int> lanes;
        for (const auto& activity : run.activities) {
            lanes.emplace(laneOf(activity), 0);
        }
        int tid = 0;
        for (auto& [lane, laneTid] : lanes) {
            laneTid = ++tid;
            appendMetadata(text, first, "thread_name", pid, laneTid, "name", laneName(lane), 0,
                           true);
            appendMetadata(text, first, "thread_sort_index", pid, laneTid, "sort_index", {},
                           laneTid, false);
        }
        // Times are relative to the run's first activity: runs sit side by side from 0, and
        // microseconds keep nanosecond digits exactly within a double.
        const std::int64_t originNs = run.beginNs();
        for (const auto& activity : run.activities) {
            appendEvent(text, first, run, activity, pid, lanes[laneOf(activity)], originNs);
            if (text.size() >= (std::size_t(1) << 20)) {
                out.write(text.data(), std::streamsize(text.size()));
                text.clear();
            }
        }
    }
    text += "\n]}\n";
    out.write(text.data(), std::streamsize(text.size()));
}

void printGpuTrace(const Run& run, std::ostream& out) {
    const auto rows = deviceActivities(run);
    out << "==slicescope== GPU trace of " << run.id << " [" << toString(run.mode) << "] on "
        << (run.device.name.empty() ? std::string("an unnamed device") : run.device.name) << '\n';
    if (run.mode == RunMode::Modelled) {
        out << "==slicescope== modelled: predicted times from the device preset, not "
               "measurements\n";
    }
    if (run.mode == RunMode::Projected && run.projection) {
        out << "==slicescope== projected: run " << run.projection->sourceRun << " measured on the "
            << run.projection->sourceDevice
            << ", moved onto this preset by the model's ratios: predictions, not measurements\n";
    }
    const auto warmups =
        std::count_if(run.activities.begin(), run.activities.end(),
                      [](const Activity& a) { return a.warmup && isDeviceActivity(a.kind); });
    if (warmups > 0) {
        out << "==slicescope== " << warmups << " device activities of " << run.warmup
            << " warm-up iteration" << (run.warmup == 1 ? "" : "s") << " not listed\n";
    }
    if (rows.empty()) {
        out << "==slicescope== no GPU activities in this run\n";
        return;
    }
    static const std::vector<std::string> kHeader{
        "Start", "Duration",   "Grid Size",  "Block Size", "Regs*",  "SSMem*", "DSMem*",
        "Size",  "Throughput", "SrcMemType", "DstMemType", "Device", "Stream", "Name"};
    std::vector<std::vector<std::string>> table;
    table.push_back(kHeader);
    const std::int64_t originNs = run.beginNs();
    const auto dim = [](const Dim3& d) {
        return "(" + std::to_string(d.x) + " " + std::to_string(d.y) + " " + std::to_string(d.z) +
               ")";
    };
    for (const Activity* a : rows) {
        const bool kernel = a->kind == ActivityKind::Kernel;
        const auto gbps = throughputGBps(*a);
        table.push_back({
            formatTime(a->startNs - originNs),
            formatTime(a->durationNs()),
            kernel ? dim(a->grid) : "-",
            kernel ? dim(a->block) : "-",
            kernel ? std::to_string(a->registersPerThread) : "-",
            kernel ? formatBytes(a->staticSharedBytes) : "-",
            kernel ? formatBytes(a->dynamicSharedBytes) : "-",
            hasBytes(*a) ? formatBytes(a->bytes) : "-",
            gbps ? formatThroughput(*gbps) : "-",
            isCopy(a->kind) ? memoryTypeName(a->srcKind) : "-",
            hasBytes(*a) ? memoryTypeName(a->dstKind) : "-",
            run.device.name.empty() ? "-" : run.device.name,
            std::to_string(a->stream),
            displayName(run, *a),
        });
    }
    // Right-aligned columns as wide as their widest cell; the name runs free at the end.
    std::vector<std::size_t> widths(kHeader.size(), 0);
    for (const auto& row : table) {
        for (std::size_t c = 0; c + 1 < row.size(); ++c) {
            widths[c] = std::max(widths[c], row[c].size());
        }
    }
    for (const auto& row : table) {
        std::string line;
        for (std::size_t c = 0; c + 1 < row.size(); ++c) {
            line.append(widths[c] - row[c].size() + (c == 0 ? 0 : 2), ' ');
            line += row[c];
        }
        line += "  ";
        line += row.back();
        out << line << '\n';
    }
    out << "\nRegs: registers per CUDA thread. SSMem: static shared memory per block. "
           "DSMem: dynamic shared memory per block.\n"
           "Start is relative to the run's first activity; sizes and throughput in decimal units "
           "(1 MB = 10^6 B, 1 GB/s = 10^9 B/s).\n";
}

Status exportCsv(const Trace& trace, const std::filesystem::path& path) {
    return exportFile(path, [&trace](std::ostream& stream) { writeCsv(trace, stream); });
}

Status exportChromeTrace(const Trace& trace, const std::filesystem::path& path) {
    return exportFile(path, [&trace](std::ostream& stream) { writeChromeTrace(trace, stream); });
}

} // namespace slicescope::trace
