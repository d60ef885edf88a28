// The slicescope-trace reader: a hand-written, schema-directed, single pass over the text.
//
// Why not a DOM: a measured trace can hold millions of activities, and a DOM of them costs
// several hundred bytes and many allocations per activity. The reader instead walks the text
// once with a JsonCursor (jsoncursor.h), filling Activity structs in place and interning names
// as it goes; integers are parsed exactly (timestamps are ~1.7e18 ns, beyond a double's 53
// bits). Only the small device object goes through nlohmann::json, so that devicejson.cpp stays
// the one mapping of a DeviceSpec.
//
// The reader faces hostile files (fuzz targets run on it and on the cursor): the cursor
// bounds-checks every read and limits nesting, nothing is allocated from a size the file
// declares, and the first problem stops it with a message giving the byte offset and the
// run/activity index.
#include "tracereader.h"

#include "../device/devicejson.h"
#include "jsoncursor.h"
#include "slicescope/trace/tracelimits.h"
#include "sweepjson.h"

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_set>

namespace slicescope::trace {

namespace {

// Activities between two looks at the cancel flag and two progress reports.
constexpr std::size_t kCheckEvery = 8192;

constexpr std::uint64_t kMaxU16 = std::numeric_limits<std::uint16_t>::max();
constexpr std::uint64_t kMaxU32 = std::numeric_limits<std::uint32_t>::max();
constexpr std::uint64_t kMaxU64 = std::numeric_limits<std::uint64_t>::max();

class TraceReader {
  public:
    TraceReader(std::string_view text, const ReadOptions& options)
        : json_(text), options_(options) {
        json_.setContext([this] { return context(); });
    }

    Result<Trace> read();

  private:
    // Every parse function returns false once the cursor has recorded the first error.
    std::string context() const;
    bool text(std::string& out, std::string_view name) {
        return json_.parseText(out, name, kMaxShortTextBytes);
    }
    bool longText(std::string& out, std::string_view name) {
        return json_.parseText(out, name, kMaxLongTextBytes);
    }
    bool parseTimestamp(std::int64_t& out, std::string_view name);
    bool parseDim3(Dim3& out, std::string_view name, bool isBlock);
    // An occupancy or share, 0..1; with nullIsNaN, null reads as NaN ("not known").
    template <typename T> bool parseFraction(T& out, std::string_view name, bool nullIsNaN);
    bool parseName(std::uint32_t& nameId, NameTable& names);

    bool parseTop(Trace& trace);
    bool parseRun(Run& run);
    bool parseActivity(Activity& activity, NameTable& names);
    bool parseProblem(std::optional<problem::Problem>& out);
    bool parseDevice(device::DeviceSpec& out, std::optional<Ceilings>& ceilings);
    // A small object or array of the sweep fields (sweepjson.h), through nlohmann::json.
    template <typename T, typename FromJson>
    bool parseSmallJson(T& out, std::string_view name, FromJson&& fromJson);
    bool parseLaunch(std::optional<LaunchInfo>& out);
    bool parseOccupancy(std::optional<OccupancyInfo>& out);
    bool parseVerification(std::optional<Verification>& out);
    bool parseSeries(std::vector<OccupancySample>& out);
    bool checkpoint();

    JsonCursor json_;
    const ReadOptions& options_;
    long long run_ = -1;       // index of the run being read, for messages
    long long activity_ = -1;  // index of the activity being read, for messages
    std::size_t namesCut_ = 0; // names of the current run cut to kMaxNameBytes
};

std::string TraceReader::context() const {
    if (run_ < 0) {
        return {};
    }
    std::string where = " (run " + std::to_string(run_);
    if (activity_ >= 0) {
        where += ", activity " + std::to_string(activity_);
    }
    return where + ")";
}

// Timestamps are >= 0: then any two of them differ by at most INT64_MAX, so a duration, or a time
// relative to a run's first activity, fits in an int64 wherever it is computed. (A fuzzed file
// with an activity from INT64_MIN to INT64_MAX made every consumer overflow.)
bool TraceReader::parseTimestamp(std::int64_t& out, std::string_view name) {
    const char* start = json_.position();
    std::int64_t value = 0;
    if (!json_.parseSigned(value, name)) {
        return false;
    }
    if (value < 0) {
        return json_.failAt(start, field(name) + " must be >= 0, not " + std::to_string(value));
    }
    out = value;
    return true;
}

bool TraceReader::parseDim3(Dim3& out, std::string_view name, bool isBlock) {
    const char* start = json_.position();
    if (!json_.consume('[')) {
        return json_.atEnd() ? json_.failEnd(field(name))
                             : json_.failHere(field(name) + " must be an array [x, y, z], not " +
                                              json_.describeToken());
    }
    std::uint32_t* parts[] = {&out.x, &out.y, &out.z};
    for (int i = 0; i < 3; ++i) {
        json_.skipSpace();
        if (i > 0) {
            if (json_.peekIs(']')) {
                return json_.failHere(field(name) + " must have exactly 3 elements");
            }
            if (!json_.expect(',', field(name))) {
                return false;
            }
            json_.skipSpace();
        }
        if (!json_.parseUnsignedAs(*parts[i], name, kMaxU32)) {
            return false;
        }
    }
    json_.skipSpace();
    if (json_.peekIs(',')) {
        return json_.failHere(field(name) + " must have exactly 3 elements");
    }
    if (!json_.expect(']', field(name))) {
        return false;
    }
    if (auto problem = dim3LimitError(out, isBlock)) {
        return json_.failAt(start, field(name) + " is " + *problem);
    }
    return true;
}

template <typename T>
bool TraceReader::parseFraction(T& out, std::string_view name, bool nullIsNaN) {
    const char* start = json_.position();
    if (!json_.parseReal(out, name, nullIsNaN)) {
        return false;
    }
    if (!isFraction(double(out)) && !(nullIsNaN && std::isnan(out))) {
        return json_.failAt(start, field(name) + " must be a fraction from 0 to 1, not " +
                                       std::string(start, json_.position()));
    }
    return true;
}

// Names longer than kMaxNameBytes (a 200 MB kernel name took the GUI's text layout down) are cut
// at a character boundary and end in "...", and the run gets a note saying so.
bool TraceReader::parseName(std::uint32_t& nameId, NameTable& names) {
    std::string_view text;
    if (!json_.parseString(text, "\"name\"")) {
        return false;
    }
    if (text.size() <= kMaxNameBytes) {
        nameId = names.intern(text);
        return true;
    }
    constexpr std::string_view kEllipsis = "\u2026";
    std::size_t keep = kMaxNameBytes - kEllipsis.size();
    while (keep > 0 && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80) {
        --keep; // text[keep] continues a character: cut before that character
    }
    nameId = names.intern(std::string(text.substr(0, keep)) + std::string(kEllipsis));
    ++namesCut_;
    return true;
}

bool TraceReader::checkpoint() {
    if (options_.cancel != nullptr && options_.cancel->load(std::memory_order_relaxed)) {
        return json_.fail(Error{Error::Code::Cancelled, "reading the trace was cancelled"});
    }
    if (options_.progress) {
        options_.progress(json_.fraction());
    }
    return true;
}

Result<Trace> TraceReader::read() {
    Trace trace;
    json_.skipByteOrderMark();
    json_.skipSpace();
    if (json_.atEnd()) {
        json_.failHere("the file is empty (expected a slicescope-trace JSON object)");
    } else if (!json_.peekIs('{')) {
        json_.failHere("expected a JSON object with \"format\": \"slicescope-trace\", found " +
                       json_.describeToken());
    } else if (parseTop(trace)) {
        json_.skipSpace();
        if (!json_.atEnd()) {
            json_.failHere("unexpected text (" + json_.describeToken() +
                           ") after the end of the trace");
        }
    }
    if (json_.error()) {
        return tl::unexpected(*json_.error());
    }
    if (options_.progress) {
        options_.progress(1.0);
    }
    return trace;
}

bool TraceReader::parseTop(Trace& trace) {
    static constexpr std::array<std::string_view, 5> kKeys{"format", "version", "generator", "runs",
                                                           "sweeps"};
    const char* start = json_.position();
    std::uint32_t seen = 0;
    std::unordered_set<std::string> ids;
    const bool ok = json_.parseObject(kKeys, "the trace", seen, [&](std::size_t key) {
        switch (key) {
        case 0: {
            const char* at = json_.position();
            std::string_view format;
            if (!json_.parseString(format, "\"format\"")) {
                return false;
            }
            if (format != kFormatName) {
                return json_.failAt(at, "not a SliceScope trace: \"format\" is " + quoted(format) +
                                            ", expected \"" + std::string(kFormatName) + "\"");
            }
            return true;
        }
        case 1: {
            const char* at = json_.position();
            std::int64_t version = 0;
            if (!json_.parseSigned(version, "version")) {
                return false;
            }
            if (version != kFormatVersion) {
                return json_.failAt(at, "unsupported trace version " + std::to_string(version) +
                                            " (this build reads version " +
                                            std::to_string(kFormatVersion) + ")");
            }
            return true;
        }
        case 2:
            return longText(trace.generator, "generator");
        case 4:
            return parseSmallJson(trace.sweeps, "sweeps", sweepsFromJson);
        default:
            return json_.parseArray("\"runs\"", [&](std::size_t index) {
                run_ = (long long)index;
                if (!checkpoint()) {
                    return false;
                }
                const char* runStart = json_.position();
                Run& run = trace.runs.emplace_back();
                if (!parseRun(run)) {
                    return false;
                }
                // Runs are told apart by id (the GUI's session, the exports' Run column).
                if (!ids.insert(run.id).second) {
                    return json_.failAt(runStart, "duplicate run id " + trace::quoted(run.id) +
                                                      " (ids are unique within a trace)");
                }
                run_ = -1;
                return true;
            });
        }
    });
    return ok && json_.requireKeys(kKeys, seen, 0b1011, start, "the trace");
}

bool TraceReader::parseRun(Run& run) {
    static constexpr std::array<std::string_view, 23> kKeys{
        "id",      "strategy",         "mode",         "problem",     "device",
        "launch",  "occupancy",        "verification", "memory_mode", "repeat",
        "wall_ns", "created_at",       "command",      "exit_status", "dropped_records",
        "notes",   "occupancy_series", "activities",   "sweep",       "batch",
        "warmup",  "chunks",           "streams"};
    // id, strategy, mode, device, activities
    constexpr std::uint32_t kRequired = (1U << 0) | (1U << 1) | (1U << 2) | (1U << 4) | (1U << 17);
    const char* start = json_.position();
    std::uint32_t seen = 0;
    namesCut_ = 0;
    const bool ok = json_.parseObject(kKeys, "a run", seen, [&](std::size_t key) {
        const char* valueAt = json_.position();
        switch (key) {
        case 0:
            return text(run.id, "id");
        case 1:
            return text(run.strategy, "strategy");
        case 2: {
            const char* at = json_.position();
            std::string_view text;
            if (!json_.parseString(text, "\"mode\"")) {
                return false;
            }
            const auto mode = parseRunMode(text);
            if (!mode) {
                return json_.failAt(at, mode.error().message);
            }
            run.mode = *mode;
            return true;
        }
        case 3:
            return parseProblem(run.problem);
        case 4:
            return parseDevice(run.device, run.ceilings);
        case 5:
            return parseLaunch(run.launch);
        case 6:
            return parseOccupancy(run.occupancy);
        case 7:
            return parseVerification(run.verification);
        case 8:
            return text(run.memoryMode, "memory_mode");
        case 9:
            return json_.parseUnsignedAs(run.repeat, "repeat", kMaxRepeat) &&
                   (run.repeat >= 1 || json_.failAt(valueAt, "\"repeat\" must be at least 1"));
        case 10:
            return json_.parseSigned(run.wallNs, "wall_ns") &&
                   ((run.wallNs >= 0 && run.wallNs <= kMaxDurationNs) ||
                    json_.failAt(valueAt, "\"wall_ns\" must be from 0 to " +
                                              std::to_string(kMaxDurationNs)));
        case 11:
            return text(run.createdAt, "created_at");
        case 12:
            return longText(run.command, "command");
        case 13: {
            if (json_.tryNull()) {
                run.exitStatus.reset();
                return true;
            }
            const char* at = json_.position();
            std::int64_t status = 0;
            if (!json_.parseSigned(status, "exit_status")) {
                return false;
            }
            if (status < std::numeric_limits<int>::min() ||
                status > std::numeric_limits<int>::max()) {
                return json_.failAt(at, "\"exit_status\" is out of range");
            }
            run.exitStatus = int(status);
            return true;
        }
        case 14:
            return json_.parseUnsigned(run.droppedRecords, "dropped_records", kMaxU64);
        case 15:
            return json_.parseArray("\"notes\"", [&](std::size_t) {
                return longText(run.notes.emplace_back(), "notes");
            });
        case 16:
            return parseSeries(run.occupancySeries);
        case 18: {
            std::optional<SweepPoint> point;
            if (!parseSmallJson(point, "sweep",
                                [](const nlohmann::json& j) -> Result<std::optional<SweepPoint>> {
                                    if (j.is_null()) {
                                        return std::optional<SweepPoint>();
                                    }
                                    auto p = sweepPointFromJson(j);
                                    if (!p) {
                                        return tl::unexpected(p.error());
                                    }
                                    return std::optional<SweepPoint>(*p);
                                })) {
                return false;
            }
            run.sweep = std::move(point);
            return true;
        }
        case 19:
            return text(run.batch, "batch");
        case 20:
            return json_.parseUnsignedAs(run.warmup, "warmup", kMaxWarmup);
        case 21:
            return json_.parseUnsignedAs(run.chunks, "chunks", kMaxChunks) &&
                   (run.chunks >= 1 || json_.failAt(valueAt, "\"chunks\" must be at least 1"));
        case 22:
            return json_.parseUnsignedAs(run.streams, "streams", kMaxStreams) &&
                   (run.streams >= 1 || json_.failAt(valueAt, "\"streams\" must be at least 1"));
        default: {
            NameTable names(run);
            const bool done = json_.parseArray("\"activities\"", [&](std::size_t index) {
                activity_ = (long long)index;
                if (index % kCheckEvery == 0 && index > 0 && !checkpoint()) {
                    return false;
                }
                return parseActivity(run.activities.emplace_back(), names);
            });
            activity_ = -1;
            // Growth by doubling can leave up to half the array unused; a loaded trace stays.
            if (done &&
                run.activities.capacity() > run.activities.size() + run.activities.size() / 8) {
                run.activities.shrink_to_fit();
            }
            return done;
        }
        }
    });
    if (!ok || !json_.requireKeys(kKeys, seen, kRequired, start, "the run")) {
        return false;
    }
    if (namesCut_ > 0) {
        run.notes.push_back(std::to_string(namesCut_) + " activity name(s) longer than " +
                            std::to_string(kMaxNameBytes) +
                            " bytes were cut to that length when the trace was read");
    }
    return true;
}

bool TraceReader::parseActivity(Activity& a, NameTable& names) {
    // Ordered by how often they occur, since the lookup is linear.
    static constexpr std::array<std::string_view, 20> kKeys{"kind",
                                                            "start_ns",
                                                            "end_ns",
                                                            "name",
                                                            "stream",
                                                            "correlation_id",
                                                            "bytes",
                                                            "src_kind",
                                                            "dst_kind",
                                                            "grid",
                                                            "block",
                                                            "registers_per_thread",
                                                            "static_shared_bytes",
                                                            "dynamic_shared_bytes",
                                                            "thread_id",
                                                            "iteration",
                                                            "theoretical_occupancy",
                                                            "achieved_occupancy",
                                                            "active_lane_share",
                                                            "warmup"};
    constexpr std::uint32_t kRequired = 0b111; // kind, start_ns, end_ns
    const char* start = json_.position();
    std::uint32_t seen = 0;
    const auto memoryKind = [&](MemoryKind& out, std::string_view name) {
        const char* at = json_.position();
        std::string_view text;
        if (!json_.parseString(text, field(name))) {
            return false;
        }
        const auto kind = parseMemoryKind(text);
        if (!kind) {
            return json_.failAt(at, kind.error().message);
        }
        out = *kind;
        return true;
    };
    const bool ok = json_.parseObject(kKeys, "an activity", seen, [&](std::size_t key) {
        switch (key) {
        case 0: {
            const char* at = json_.position();
            std::string_view text;
            if (!json_.parseString(text, "\"kind\"")) {
                return false;
            }
            const auto kind = parseActivityKind(text);
            if (!kind) {
                return json_.failAt(at, kind.error().message);
            }
            a.kind = *kind;
            return true;
        }
        case 1:
            return parseTimestamp(a.startNs, "start_ns");
        case 2:
            return parseTimestamp(a.endNs, "end_ns");
        case 3:
            return parseName(a.nameId, names);
        case 4:
            return json_.parseUnsignedAs(a.stream, "stream", kMaxU32);
        case 5:
            return json_.parseUnsignedAs(a.correlationId, "correlation_id", kMaxU32);
        case 6:
            return json_.parseUnsigned(a.bytes, "bytes", kMaxU64);
        case 7:
            return memoryKind(a.srcKind, "src_kind");
        case 8:
            return memoryKind(a.dstKind, "dst_kind");
        case 9:
            return parseDim3(a.grid, "grid", false);
        case 10:
            return parseDim3(a.block, "block", true);
        case 11:
            return json_.parseUnsignedAs(a.registersPerThread, "registers_per_thread",
                                         kMaxRegistersPerThread);
        case 12:
            return json_.parseUnsignedAs(a.staticSharedBytes, "static_shared_bytes",
                                         kMaxSharedMemoryBytes);
        case 13:
            return json_.parseUnsignedAs(a.dynamicSharedBytes, "dynamic_shared_bytes",
                                         kMaxSharedMemoryBytes);
        case 14:
            return json_.parseUnsignedAs(a.threadId, "thread_id", kMaxU32);
        case 15:
            return json_.parseUnsignedAs(a.iteration, "iteration", kMaxU16);
        case 16:
            return parseFraction(a.theoreticalOccupancy, "theoretical_occupancy", true);
        case 17:
            return parseFraction(a.achievedOccupancy, "achieved_occupancy", true);
        case 18:
            return parseFraction(a.activeLaneShare, "active_lane_share", true);
        default:
            return json_.parseBool(a.warmup, "warmup");
        }
    });
    if (!ok || !json_.requireKeys(kKeys, seen, kRequired, start, "the activity")) {
        return false;
    }
    if (a.endNs < a.startNs) {
        return json_.failAt(start, "\"end_ns\" (" + std::to_string(a.endNs) +
                                       ") is before \"start_ns\" (" + std::to_string(a.startNs) +
                                       ")");
    }
    if (a.durationNs() > kMaxDurationNs) {
        return json_.failAt(start, "the activity lasts " + std::to_string(a.durationNs()) +
                                       " ns, more than the " + std::to_string(kMaxDurationNs) +
                                       " (about 104 days) an activity may");
    }
    return true;
}

bool TraceReader::parseProblem(std::optional<problem::Problem>& out) {
    if (json_.tryNull()) {
        out.reset();
        return true;
    }
    static constexpr std::array<std::string_view, 3> kKeys{"shape", "dtype", "work_per_element"};
    const char* start = json_.position();
    std::uint64_t shape[3] = {0, 0, 0};
    problem::Dtype dtype = problem::Dtype::F64;
    std::uint64_t work = 1;
    std::uint32_t seen = 0;
    const bool ok = json_.parseObject(kKeys, "\"problem\"", seen, [&](std::size_t key) {
        if (key == 0) {
            if (!json_.peekIs('[')) {
                return json_.failHere("\"shape\" must be an array [R, C, N], not " +
                                      json_.describeToken());
            }
            std::size_t count = 0;
            const bool done = json_.parseArray("\"shape\"", [&](std::size_t index) {
                if (index >= 3) {
                    return json_.failHere("\"shape\" must have exactly 3 elements");
                }
                ++count;
                return json_.parseUnsigned(shape[index], "shape", kMaxU64);
            });
            return done && (count == 3 || json_.failHere("\"shape\" must have exactly 3 elements"));
        }
        if (key == 1) {
            const char* at = json_.position();
            std::string_view text;
            if (!json_.parseString(text, "\"dtype\"")) {
                return false;
            }
            const auto parsed = problem::parseDtype(text);
            if (!parsed) {
                return json_.failAt(at, parsed.error().message);
            }
            dtype = *parsed;
            return true;
        }
        return json_.parseUnsigned(work, "work_per_element", kMaxU32);
    });
    if (!ok || !json_.requireKeys(kKeys, seen, 0b001, start, "\"problem\"")) {
        return false;
    }
    auto made = problem::makeProblem({shape[0], shape[1], shape[2]}, dtype, std::int64_t(work));
    if (!made) {
        return json_.failAt(start, "invalid \"problem\": " + made.error().message);
    }
    out = *made;
    return true;
}

template <typename T, typename FromJson>
bool TraceReader::parseSmallJson(T& out, std::string_view name, FromJson&& fromJson) {
    const char* start = json_.position();
    if (!json_.skipValue(0)) {
        return false;
    }
    const auto object = nlohmann::json::parse(start, json_.position(), nullptr, false);
    if (object.is_discarded()) {
        return json_.failAt(start, field(name) + " is not valid JSON");
    }
    auto value = fromJson(object);
    if (!value) {
        return json_.failAt(start, "invalid " + field(name) + ": " + value.error().message);
    }
    out = std::move(*value);
    return true;
}

bool TraceReader::parseDevice(device::DeviceSpec& out, std::optional<Ceilings>& ceilings) {
    if (!json_.peekIs('{')) {
        return json_.atEnd()
                   ? json_.failEnd("\"device\"")
                   : json_.failHere("\"device\" must be an object, not " + json_.describeToken());
    }
    // Validate the text here (bounded depth, UTF-8), then let devicejson.cpp map the small
    // object; it must not be able to throw on text that passed.
    const char* start = json_.position();
    if (!json_.skipValue(0)) {
        return false;
    }
    auto object = nlohmann::json::parse(start, json_.position(), nullptr, false);
    if (object.is_discarded()) {
        return json_.failAt(start, "\"device\" is not valid JSON");
    }
    if (object.is_object() && object.contains("ceilings")) {
        auto read = ceilingsFromJson(object["ceilings"]);
        if (!read) {
            return json_.failAt(start, "invalid \"device\": " + read.error().message);
        }
        ceilings = std::move(*read);
        object.erase("ceilings");
    }
    auto device = device::deviceFromJson(object);
    if (!device) {
        return json_.failAt(start, "invalid \"device\": " + device.error().message);
    }
    if (auto problem = deviceLimitError(*device)) {
        return json_.failAt(start, "invalid \"device\": " + *problem +
                                       " (beyond any GPU; docs/trace-format.md lists the limits)");
    }
    out = std::move(*device);
    out.sources.clear(); // traces carry no sources
    return true;
}

bool TraceReader::parseLaunch(std::optional<LaunchInfo>& out) {
    if (json_.tryNull()) {
        out.reset();
        return true;
    }
    static constexpr std::array<std::string_view, 10> kKeys{"grid",
                                                            "block",
                                                            "workers",
                                                            "elements_per_worker",
                                                            "layout",
                                                            "block_option",
                                                            "grid_stride",
                                                            "registers_per_thread",
                                                            "static_shared_bytes",
                                                            "dynamic_shared_bytes"};
    const char* start = json_.position();
    LaunchInfo launch;
    std::uint32_t seen = 0;
    const bool ok = json_.parseObject(kKeys, "\"launch\"", seen, [&](std::size_t key) {
        switch (key) {
        case 0:
            return parseDim3(launch.grid, "grid", false);
        case 1:
            return parseDim3(launch.block, "block", true);
        case 2:
            return json_.parseUnsigned(launch.workers, "workers", kMaxU64);
        case 3:
            return json_.parseUnsigned(launch.elementsPerWorker, "elements_per_worker", kMaxU64);
        case 4:
            return text(launch.layout, "layout");
        case 5:
            return text(launch.blockOption, "block_option");
        case 6:
            return json_.parseBool(launch.gridStride, "grid_stride");
        case 7:
            return json_.parseUnsignedAs(launch.registersPerThread, "registers_per_thread",
                                         kMaxRegistersPerThread);
        case 8:
            return json_.parseUnsignedAs(launch.staticSharedBytes, "static_shared_bytes",
                                         kMaxSharedMemoryBytes);
        default:
            return json_.parseUnsignedAs(launch.dynamicSharedBytes, "dynamic_shared_bytes",
                                         kMaxSharedMemoryBytes);
        }
    });
    if (!ok || !json_.requireKeys(kKeys, seen, 0b111, start, "\"launch\"")) {
        return false;
    }
    out = std::move(launch);
    return true;
}

bool TraceReader::parseOccupancy(std::optional<OccupancyInfo>& out) {
    if (json_.tryNull()) {
        out.reset();
        return true;
    }
    static constexpr std::array<std::string_view, 7> kKeys{
        "theoretical",          "achieved",     "thread_slots_busy", "limiter", "explanation",
        "active_blocks_per_sm", "sm_busy_share"};
    const char* start = json_.position();
    OccupancyInfo occupancy;
    std::uint32_t seen = 0;
    const auto optionalReal = [&](std::optional<double>& value, std::string_view name) {
        if (json_.tryNull()) {
            value.reset();
            return true;
        }
        double number = 0;
        if (!parseFraction(number, name, false)) {
            return false;
        }
        value = number;
        return true;
    };
    const bool ok = json_.parseObject(kKeys, "\"occupancy\"", seen, [&](std::size_t key) {
        switch (key) {
        case 0:
            return parseFraction(occupancy.theoretical, "theoretical", true);
        case 1:
            return optionalReal(occupancy.achieved, "achieved");
        case 2:
            return parseFraction(occupancy.threadSlotsBusy, "thread_slots_busy", true);
        case 3:
            return text(occupancy.limiter, "limiter");
        case 4:
            return longText(occupancy.explanation, "explanation");
        case 5:
            return json_.parseUnsignedAs(occupancy.activeBlocksPerSm, "active_blocks_per_sm",
                                         kMaxBlocksPerSm);
        default:
            return optionalReal(occupancy.smBusyShare, "sm_busy_share");
        }
    });
    if (!ok || !json_.requireKeys(kKeys, seen, 0b1101, start, "\"occupancy\"")) {
        return false;
    }
    out = std::move(occupancy);
    return true;
}

bool TraceReader::parseVerification(std::optional<Verification>& out) {
    if (json_.tryNull()) {
        out.reset();
        return true;
    }
    static constexpr std::array<std::string_view, 2> kKeys{"passed", "max_abs_error"};
    const char* start = json_.position();
    Verification verification;
    std::uint32_t seen = 0;
    const bool ok = json_.parseObject(kKeys, "\"verification\"", seen, [&](std::size_t key) {
        return key == 0 ? json_.parseBool(verification.passed, "passed")
                        : json_.parseReal(verification.maxAbsError, "max_abs_error", true) &&
                              (!(verification.maxAbsError < 0) ||
                               json_.failHere("\"max_abs_error\" must be >= 0"));
    });
    if (!ok || !json_.requireKeys(kKeys, seen, 0b11, start, "\"verification\"")) {
        return false;
    }
    out = verification;
    return true;
}

bool TraceReader::parseSeries(std::vector<OccupancySample>& out) {
    return json_.parseArray("\"occupancy_series\"", [&](std::size_t) {
        OccupancySample& sample = out.emplace_back();
        if (!json_.consume('[')) {
            return json_.atEnd()
                       ? json_.failEnd("\"occupancy_series\"")
                       : json_.failHere(
                             "an \"occupancy_series\" sample must be [time_ns, value], not " +
                             json_.describeToken());
        }
        json_.skipSpace();
        if (!parseTimestamp(sample.timeNs, "occupancy_series time") ||
            !json_.expect(',', "a sample")) {
            return false;
        }
        json_.skipSpace();
        if (!parseFraction(sample.value, "occupancy_series value", false)) {
            return false;
        }
        json_.skipSpace();
        if (json_.peekIs(',')) {
            return json_.failHere("an \"occupancy_series\" sample must be [time_ns, value]");
        }
        return json_.expect(']', "a sample");
    });
}

} // namespace

Result<Trace> readTraceText(std::string_view text, const ReadOptions& options) {
    return TraceReader(text, options).read();
}

} // namespace slicescope::trace
