// The slicescope-trace schema (traceschema.h): the rows of each structure, and the few fields
// whose value is more than one number or text (the device, the sweep point, the occupancy
// series, the activities).
#include "traceschema.h"

#include "../core/jsontext.h"
#include "../device/devicejson.h"
#include "slicescope/trace/runsummary.h"
#include "sweepjson.h"

#include <nlohmann/json.hpp>

namespace slicescope::trace::schema {

namespace {

// Activities between two looks at the cancel flag and two progress reports.
constexpr std::size_t kCheckEvery = 8192;

constexpr std::uint64_t kMaxU16 = std::numeric_limits<std::uint16_t>::max();
constexpr std::uint64_t kMaxU32 = std::numeric_limits<std::uint32_t>::max();
constexpr std::uint64_t kMaxU64 = std::numeric_limits<std::uint64_t>::max();

std::string dump(const nlohmann::json& json) {
    return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A small value (the device, a sweep point) from start to the cursor, which skipValue has checked
// (bounded depth, UTF-8), handed to nlohmann::json so that devicejson.cpp and sweepjson.cpp stay
// the one mapping of those structures; they must not be able to throw on text that passed.
bool parseSmallJson(ReadContext& c, const char* start, nlohmann::json& out, std::string_view name) {
    auto parsed = parseJsonText(std::string_view(start, std::size_t(c.json.position() - start)));
    if (!parsed) {
        // A number beyond a double, which the cursor takes and nlohmann::json does not, is named.
        return c.json.failAt(start, parsed.error().code == Error::Code::OutOfRange
                                        ? "invalid " + field(name) + ": " + parsed.error().message
                                        : field(name) + " is not valid JSON");
    }
    out = std::move(*parsed);
    return true;
}

bool readSmallJson(ReadContext& c, nlohmann::json& out, std::string_view name) {
    const char* start = c.json.position();
    return c.json.skipValue(0) && parseSmallJson(c, start, out, name);
}

// The shape [R, C, N] of a problem (makeProblem checks it with the rest: ProblemSchema).
struct ShapeValue {
    template <typename T> static constexpr bool kChecks = false;
    static bool read(ReadContext& c, problem::Shape& out, std::string_view) {
        if (!c.json.peekIs('[')) {
            return c.json.failHere("\"shape\" must be an array [R, C, N], not " +
                                   c.json.describeToken());
        }
        std::uint64_t* parts[] = {&out.r, &out.c, &out.n};
        std::size_t count = 0;
        const bool done = c.json.parseArray("\"shape\"", [&](std::size_t index) {
            if (index >= 3) {
                return c.json.failHere("\"shape\" must have exactly 3 elements");
            }
            ++count;
            return c.json.parseUnsigned(*parts[index], "shape", kMaxU64);
        });
        return done && (count == 3 || c.json.failHere("\"shape\" must have exactly 3 elements"));
    }
    static void write(WriteContext& c, const problem::Shape& shape, Layout) {
        c.out += '[';
        appendUnsigned(c.out, shape.r);
        c.out += ", ";
        appendUnsigned(c.out, shape.c);
        c.out += ", ";
        appendUnsigned(c.out, shape.n);
        c.out += ']';
    }
    static Refusal check(const problem::Shape&, std::string_view) { return std::nullopt; }
};

// A recorded program's exit status, or null.
struct ExitStatus {
    template <typename T> static constexpr bool kChecks = false;
    static bool read(ReadContext& c, std::optional<int>& out, std::string_view name) {
        if (c.json.tryNull()) {
            out.reset();
            return true;
        }
        const char* at = c.json.position();
        std::int64_t status = 0;
        if (!c.json.parseSigned(status, name)) {
            return false;
        }
        if (status < std::numeric_limits<int>::min() || status > std::numeric_limits<int>::max()) {
            return c.json.failAt(at, field(name) + " is out of range");
        }
        out = int(status);
        return true;
    }
    static void write(WriteContext& c, const std::optional<int>& value, Layout) {
        if (value) {
            appendInteger(c.out, *value);
        } else {
            c.out += "null";
        }
    }
    static Refusal check(const std::optional<int>&, std::string_view) { return std::nullopt; }
};

// The CUDA device index of a run measured on one of several GPUs (Run::deviceIndex).
struct DeviceIndex {
    static constexpr std::uint64_t kMax = 1023;
    template <typename T> static constexpr bool kChecks = true;
    static bool read(ReadContext& c, std::optional<std::uint32_t>& out, std::string_view name) {
        std::uint32_t index = 0;
        if (!c.json.parseUnsignedAs(index, name, kMax)) {
            return false;
        }
        out = index;
        return true;
    }
    static void write(WriteContext& c, const std::optional<std::uint32_t>& value, Layout) {
        appendUnsigned(c.out, value.value_or(0));
    }
    static Refusal check(const std::optional<std::uint32_t>& value, std::string_view name) {
        return value ? above<std::uint64_t>(name, *value, kMax) : std::nullopt;
    }
};

// The run's notes: at most kMaxNotes texts of at most kMaxLongTextBytes each.
struct Notes {
    template <typename T> static constexpr bool kChecks = true;
    static bool read(ReadContext& c, std::vector<std::string>& out, std::string_view name) {
        return c.json.parseArray(field(name), [&](std::size_t index) {
            if (index >= kMaxNotes) {
                return c.json.failHere(field(name) + " has more than the " +
                                       std::to_string(kMaxNotes) + " notes a run may have");
            }
            return c.json.parseText(out.emplace_back(), name, kMaxLongTextBytes);
        });
    }
    static void write(WriteContext& c, const std::vector<std::string>& notes, Layout) {
        c.out += '[';
        for (std::size_t i = 0; i < notes.size(); ++i) {
            c.out += i == 0 ? "" : ", ";
            appendJsonString(c.out, notes[i]);
        }
        c.out += ']';
    }
    static Refusal check(const std::vector<std::string>& notes, std::string_view name) {
        if (notes.size() > kMaxNotes) {
            return field(name) + " has " + std::to_string(notes.size()) + " notes, more than " +
                   std::to_string(kMaxNotes);
        }
        for (const auto& note : notes) {
            if (auto refusal = tooLong(name, note.size(), kMaxLongTextBytes)) {
                return refusal;
            }
        }
        return std::nullopt;
    }
};

// Achieved occupancy over time: [[time_ns, value], ...].
struct Series {
    template <typename T> static constexpr bool kChecks = true;
    static bool read(ReadContext& c, std::vector<OccupancySample>& out, std::string_view) {
        auto& json = c.json;
        return json.parseArray("\"occupancy_series\"", [&](std::size_t) {
            OccupancySample& sample = out.emplace_back();
            if (!json.consume('[')) {
                return json.atEnd()
                           ? json.failEnd("\"occupancy_series\"")
                           : json.failHere(
                                 "an \"occupancy_series\" sample must be [time_ns, value], not " +
                                 json.describeToken());
            }
            json.skipSpace();
            if (!Timestamp::read(c, sample.timeNs, "occupancy_series time") ||
                !json.expect(',', "a sample")) {
                return false;
            }
            json.skipSpace();
            if (!Fraction<false>::read(c, sample.value, "occupancy_series value")) {
                return false;
            }
            json.skipSpace();
            if (json.peekIs(',')) {
                return json.failHere("an \"occupancy_series\" sample must be [time_ns, value]");
            }
            return json.expect(']', "a sample");
        });
    }
    static void write(WriteContext& c, const std::vector<OccupancySample>& series, Layout) {
        c.out += '[';
        for (std::size_t i = 0; i < series.size() && !c.stopped; ++i) {
            c.out += i == 0 ? "[" : ", [";
            appendInteger(c.out, series[i].timeNs);
            c.out += ", ";
            appendFloat(c.out, series[i].value);
            c.out += ']';
            c.drainIfLarge();
        }
        c.out += ']';
    }
    static Refusal check(const std::vector<OccupancySample>& series, std::string_view) {
        for (std::size_t i = 0; i < series.size(); ++i) {
            auto refusal = first(Timestamp::check(series[i].timeNs, "occupancy_series time"),
                                 notFraction("occupancy_series value", series[i].value, false));
            if (refusal) {
                return "sample " + std::to_string(i) + ": " + *refusal;
            }
        }
        return std::nullopt;
    }
    static Refusal first(Refusal a, Refusal b) { return a ? a : b; }
};

// A whole percent 0..100, or absent (kNoPercent; null reads as absent).
struct OptionalPercent {
    template <typename T> static constexpr bool kChecks = true;
    static bool read(ReadContext& c, std::uint8_t& out, std::string_view name) {
        if (c.json.tryNull()) {
            out = kNoPercent;
            return true;
        }
        return c.json.parseUnsignedAs(out, name, 100);
    }
    static void write(WriteContext& c, std::uint8_t value, Layout) { appendUnsigned(c.out, value); }
    static Refusal check(std::uint8_t value, std::string_view name) {
        return value <= 100 || value == kNoPercent
                   ? std::nullopt
                   : Refusal(field(name) + " is " + std::to_string(value) + ", more than 100");
    }
};

// Names longer than kMaxNameBytes (a 200 MB kernel name took the GUI's text layout down) are cut
// at a character boundary and end in "...", and the run gets a note saying so (TraceReader).
struct ActivityName {
    static bool read(ReadContext& c, Activity& a, NameTable& names) {
        std::string_view text;
        if (!c.json.parseString(text, "\"name\"")) {
            return false;
        }
        if (text.size() <= kMaxNameBytes) {
            a.nameId = names.intern(text);
            return true;
        }
        a.nameId = names.intern(cutName(text));
        ++c.namesCut;
        return true;
    }
};

bool isCopyOrMemset(const Activity& a) {
    return isCopy(a.kind) || a.kind == ActivityKind::Memset;
}
bool isKernel(const Activity& a) {
    return a.kind == ActivityKind::Kernel;
}

// Write a field when it applies to the kind (so other tools find it where they expect it) or
// holds something other than its default (so nothing is lost on a round trip).
template <auto Member> bool notDefault(const Activity& a) {
    using T = typename MemberOf<decltype(Member)>::Type;
    if constexpr (std::is_floating_point_v<T>) {
        return !std::isnan(a.*Member);
    } else {
        return a.*Member != T{};
    }
}
template <bool (*AppliesTo)(const Activity&), auto Member>
bool writtenFor(const WriteContext&, const Activity& a) {
    return AppliesTo(a) || notDefault<Member>(a);
}
template <auto Member> bool writtenIfSet(const WriteContext&, const Activity& a) {
    return notDefault<Member>(a);
}

struct Activities {
    static bool read(ReadContext& c, Run& run, std::string_view name) {
        NameTable names(run);
        c.names = &names;
        const bool done = c.json.parseArray(field(name), [&](std::size_t index) {
            c.activity = (long long)index;
            if (index % kCheckEvery == 0 && index > 0 && !c.checkpoint()) {
                return false;
            }
            return readObject<ActivitySchema>(c, run.activities.emplace_back());
        });
        c.names = nullptr;
        c.activity = -1;
        // Growth by doubling can leave up to half the array unused; a loaded trace stays.
        if (done && run.activities.capacity() > run.activities.size() + run.activities.size() / 8) {
            run.activities.shrink_to_fit();
        }
        return done;
    }
    static void write(WriteContext& c, const Run& run, Layout) {
        c.out += '[';
        c.run = &run;
        for (std::size_t i = 0; i < run.activities.size() && !c.stopped; ++i) {
            c.out += i == 0 ? "\n        " : ",\n        ";
            writeObject<ActivitySchema, Layout::Compact>(c, run.activities[i]);
            c.drainIfLarge();
        }
        c.out += run.activities.empty() ? "]" : "\n      ]";
    }
    static Refusal check(const Run& run, std::string_view) {
        for (std::size_t i = 0; i < run.activities.size(); ++i) {
            if (auto refusal = checkObject<ActivitySchema>(run.activities[i])) {
                return "activity " + std::to_string(i) + ": " + *refusal;
            }
        }
        return std::nullopt;
    }
};

struct DeviceValue {
    static bool read(ReadContext& c, Run& run, std::string_view name) {
        if (!c.json.peekIs('{')) {
            return c.json.atEnd() ? c.json.failEnd(field(name))
                                  : c.json.failHere(field(name) + " must be an object, not " +
                                                    c.json.describeToken());
        }
        // Runs share a few devices: a text read before is matched byte for byte, not read again
        // (at 100,000 runs, reading each device's text was a third of the parse).
        for (const auto& read : c.devicesRead) {
            if (c.json.skipIfNext(read.text)) {
                run.device = read.device;
                run.ceilings = read.ceilings;
                return true;
            }
        }
        const char* start = c.json.position();
        if (!c.json.skipValue(0)) {
            return false;
        }
        const std::string_view text(start, std::size_t(c.json.position() - start));
        nlohmann::json object;
        if (!parseSmallJson(c, start, object, name)) {
            return false;
        }
        if (object.is_object() && object.contains("ceilings")) {
            auto read = ceilingsFromJson(object["ceilings"]);
            if (!read) {
                return c.json.failAt(start, "invalid \"device\": " + read.error().message);
            }
            run.ceilings = std::move(*read);
            object.erase("ceilings");
        }
        auto device = device::deviceFromJson(object);
        if (!device) {
            return c.json.failAt(start, "invalid \"device\": " + device.error().message);
        }
        if (auto problem = deviceLimitError(*device)) {
            return c.json.failAt(start,
                                 "invalid \"device\": " + *problem +
                                     " (beyond any GPU; docs/trace-format.md lists the limits)");
        }
        run.device = std::move(*device);
        run.device.sources.clear(); // traces carry no sources
        if (c.devicesRead.size() == ReadContext::kDevicesKept) {
            c.devicesRead.erase(c.devicesRead.begin());
        }
        c.devicesRead.push_back({text, run.device, run.ceilings});
        return true;
    }
    static void write(WriteContext& c, const Run& run, Layout) {
        auto json = device::deviceToJson(run.device, false);
        if (run.ceilings) {
            json["ceilings"] = ceilingsToJson(*run.ceilings);
        }
        c.out += dump(json);
    }
    // The reader maps the device through deviceFromJson: ask it.
    static Refusal check(const Run& run, std::string_view) {
        if (auto device = device::deviceFromJson(device::deviceToJson(run.device, false));
            !device) {
            return "invalid \"device\": " + device.error().message;
        }
        if (auto problem = deviceLimitError(run.device)) {
            return problem;
        }
        if (run.ceilings) {
            if (auto ceilings = ceilingsFromJson(ceilingsToJson(*run.ceilings)); !ceilings) {
                return "invalid \"ceilings\": " + ceilings.error().message;
            }
        }
        return std::nullopt;
    }
};

struct SweepPointValue {
    static bool read(ReadContext& c, Run& run, std::string_view name) {
        const char* start = c.json.position();
        nlohmann::json json;
        if (!readSmallJson(c, json, name)) {
            return false;
        }
        if (json.is_null()) {
            run.sweep.reset();
            return true;
        }
        auto point = sweepPointFromJson(json);
        if (!point) {
            return c.json.failAt(start, "invalid " + field(name) + ": " + point.error().message);
        }
        run.sweep = std::move(*point);
        return true;
    }
    static void write(WriteContext& c, const Run& run, Layout) {
        c.out += dump(sweepPointToJson(*run.sweep));
    }
    static bool written(const WriteContext&, const Run& run) { return run.sweep.has_value(); }
    static Refusal check(const Run& run, std::string_view) {
        if (run.sweep) {
            if (auto point = sweepPointFromJson(sweepPointToJson(*run.sweep)); !point) {
                return "invalid \"sweep\": " + point.error().message;
            }
        }
        return std::nullopt;
    }
};

// A row whose reading, writing and checking are a struct's own functions on the whole S.
template <typename S, typename Value>
constexpr Field<S> whole(std::string_view name, Presence presence,
                         bool (*written)(const WriteContext&, const S&) = nullptr) {
    return Field<S>{
        name, presence == Presence::Required, &Value::read, &Value::write, written, &Value::check};
}

using P = problem::Problem;
using A = Activity;
using L = LaunchInfo;
using O = OccupancyInfo;
constexpr auto kRequired = Presence::Required;
constexpr auto kOptional = Presence::Optional;

} // namespace

const std::array<Field<P>, 3> ProblemSchema::kFields{
    member<&P::shape, ShapeValue>("shape", kRequired),
    member<&P::dtype, Name<problem::Dtype, problem::parseDtype>>("dtype"),
    member<&P::workPerElement, Unsigned<kMaxU32>>("work_per_element"),
};

Refusal ProblemSchema::checkWhole(const P& p) {
    auto made = problem::makeProblem(p.shape, p.dtype, p.workPerElement);
    return made ? std::nullopt : Refusal("invalid \"problem\": " + made.error().message);
}

const std::array<Field<L>, 10> LaunchSchema::kFields{
    member<&L::grid, Extent<false>>("grid", kRequired),
    member<&L::block, Extent<true>>("block", kRequired),
    member<&L::workers, Unsigned<kMaxU64>>("workers", kRequired),
    member<&L::elementsPerWorker, Unsigned<kMaxU64>>("elements_per_worker"),
    member<&L::layout, ShortText>("layout"),
    member<&L::blockOption, ShortText>("block_option"),
    member<&L::gridStride, Flag>("grid_stride"),
    member<&L::registersPerThread, Unsigned<kMaxRegistersPerThread>>("registers_per_thread"),
    member<&L::staticSharedBytes, Unsigned<kMaxSharedMemoryBytes>>("static_shared_bytes"),
    member<&L::dynamicSharedBytes, Unsigned<kMaxSharedMemoryBytes>>("dynamic_shared_bytes"),
};

const std::array<Field<O>, 9> OccupancySchema::kFields{
    member<&O::theoretical, Fraction<true>>("theoretical", kRequired),
    member<&O::achieved, OptionalFraction>("achieved"),
    member<&O::threadSlotsBusy, Fraction<true>>("thread_slots_busy", kRequired),
    member<&O::limiter, ShortText>("limiter", kRequired),
    member<&O::explanation, LongText>("explanation"),
    member<&O::activeBlocksPerSm, Unsigned<kMaxBlocksPerSm>>("active_blocks_per_sm"),
    member<&O::smBusyShare, OptionalFraction>("sm_busy_share"),
    // Optional on read (older traces lack them: launchOccupancyOf derives them); the writer fills
    // them in through occupancyWithLaunch wherever the run's launch and device give them.
    member<&O::launchOccupancy, OptionalFraction>(
        "launch_occupancy", kOptional,
        [](const WriteContext&, const O& o) { return o.launchOccupancy.has_value(); }),
    member<&O::launchLimiter, ShortText>(
        "launch_limiter", kOptional,
        [](const WriteContext&, const O& o) { return !o.launchLimiter.empty(); }),
};

const std::array<Field<Verification>, 2> VerificationSchema::kFields{
    member<&Verification::passed, Flag>("passed", kRequired),
    member<&Verification::maxAbsError, NonNegativeReal>("max_abs_error", kRequired),
};

// In the order written, which is also the order the reader looks keys up in.
const std::array<Field<A>, 24> ActivitySchema::kFields{
    member<&A::kind, Name<ActivityKind, parseActivityKind>>("kind", kRequired),
    member<&A::startNs, Timestamp>("start_ns", kRequired),
    member<&A::endNs, Timestamp>("end_ns", kRequired),
    Field<A>{
        "name", false,
        [](ReadContext& c, A& a, std::string_view) { return ActivityName::read(c, a, *c.names); },
        [](WriteContext& c, const A& a, Layout) { appendJsonString(c.out, c.run->name(a)); },
        [](const WriteContext& c, const A& a) { return !c.run->name(a).empty(); }, nullptr},
    member<&A::bytes, Unsigned<kMaxU64>>("bytes", kOptional, writtenFor<isCopyOrMemset, &A::bytes>),
    member<&A::srcKind, Name<MemoryKind, parseMemoryKind>>("src_kind", kOptional,
                                                           [](const WriteContext&, const A& a) {
                                                               return isCopy(a.kind) ||
                                                                      a.srcKind !=
                                                                          MemoryKind::Unknown;
                                                           }),
    member<&A::dstKind, Name<MemoryKind, parseMemoryKind>>("dst_kind", kOptional,
                                                           writtenFor<isCopyOrMemset, &A::dstKind>),
    member<&A::grid, Extent<false>>(
        "grid", kOptional,
        [](const WriteContext&, const A& a) { return isKernel(a) || a.grid != Dim3{}; }),
    member<&A::block, Extent<true>>(
        "block", kOptional,
        [](const WriteContext&, const A& a) { return isKernel(a) || a.block != Dim3{}; }),
    member<&A::registersPerThread, Unsigned<kMaxRegistersPerThread>>(
        "registers_per_thread", kOptional, writtenFor<isKernel, &A::registersPerThread>),
    member<&A::staticSharedBytes, Unsigned<kMaxSharedMemoryBytes>>(
        "static_shared_bytes", kOptional, writtenFor<isKernel, &A::staticSharedBytes>),
    member<&A::dynamicSharedBytes, Unsigned<kMaxSharedMemoryBytes>>(
        "dynamic_shared_bytes", kOptional, writtenFor<isKernel, &A::dynamicSharedBytes>),
    member<&A::stream, Unsigned<kMaxU32>>(
        "stream", kOptional,
        [](const WriteContext&, const A& a) { return isDeviceActivity(a.kind) || a.stream != 0; }),
    member<&A::correlationId, Unsigned<kMaxU32>>("correlation_id", kOptional,
                                                 [](const WriteContext&, const A& a) {
                                                     return isDeviceActivity(a.kind) ||
                                                            a.kind == ActivityKind::Api ||
                                                            a.correlationId != 0;
                                                 }),
    member<&A::threadId, Unsigned<kMaxU32>>("thread_id", kOptional,
                                            [](const WriteContext&, const A& a) {
                                                return !isDeviceActivity(a.kind) || a.threadId != 0;
                                            }),
    member<&A::iteration, Unsigned<kMaxU16>>("iteration", kOptional, writtenIfSet<&A::iteration>),
    member<&A::theoreticalOccupancy, Fraction<true>>("theoretical_occupancy", kOptional,
                                                     writtenIfSet<&A::theoreticalOccupancy>),
    member<&A::achievedOccupancy, Fraction<true>>("achieved_occupancy", kOptional,
                                                  writtenIfSet<&A::achievedOccupancy>),
    member<&A::activeLaneShare, Fraction<true>>("active_lane_share", kOptional,
                                                writtenIfSet<&A::activeLaneShare>),
    member<&A::warmup, Flag>("warmup", kOptional, writtenIfSet<&A::warmup>),
    member<&A::limiter, Name<OccupancyLimiter, parseOccupancyLimiter>>("limiter", kOptional,
                                                                       writtenIfSet<&A::limiter>),
    member<&A::estimatedOccupancyPercent, OptionalPercent>(
        "estimated_occupancy_percent", kOptional,
        [](const WriteContext&, const A& a) { return a.estimatedOccupancyPercent != kNoPercent; }),
    member<&A::device, Unsigned<kMaxActivityDevice>>("device_id", kOptional,
                                                     writtenIfSet<&A::device>),
    member<&A::peerDevice, Unsigned<kNoDevice>>(
        "peer_device_id", kOptional,
        [](const WriteContext&, const A& a) { return a.peerDevice != kNoDevice; }),
};

Refusal ActivitySchema::checkWhole(const A& a) {
    if (a.endNs < a.startNs) {
        return "\"end_ns\" (" + std::to_string(a.endNs) + ") is before \"start_ns\" (" +
               std::to_string(a.startNs) + ")";
    }
    if (a.durationNs() > kMaxDurationNs) {
        return "the activity lasts " + std::to_string(a.durationNs()) + " ns, more than the " +
               std::to_string(kMaxDurationNs) + " ns (about 104 days) of the longest duration " +
               "a trace holds";
    }
    return std::nullopt;
}

const std::array<Field<ImportSource>, 2> SourceSchema::kFields{
    member<&ImportSource::format, ShortText>("format", kRequired),
    member<&ImportSource::file, LongText>("file"),
};

const std::array<Field<Projection>, 4> ProjectionSchema::kFields{
    member<&Projection::sourceRun, ShortText>("source_run", kRequired),
    member<&Projection::sourceDevice, ShortText>("source_device", kRequired),
    member<&Projection::sourcePreset, ShortText>("source_preset", kRequired),
    member<&Projection::targetPreset, ShortText>("target_preset", kRequired),
};

const std::array<Field<Run>, 27> RunSchema::kFields{
    member<&Run::id, ShortText>("id", kRequired),
    member<&Run::strategy, ShortText>("strategy", kRequired),
    member<&Run::mode, Name<RunMode, parseRunMode>>("mode", kRequired),
    member<&Run::problem, Nested<ProblemSchema>>("problem"),
    whole<Run, DeviceValue>("device", kRequired),
    member<&Run::launch, Nested<LaunchSchema>>("launch"),
    Field<Run>{"occupancy", false,
               [](ReadContext& c, Run& run, std::string_view name) {
                   return Nested<OccupancySchema>::read(c, run.occupancy, name);
               },
               [](WriteContext& c, const Run& run, Layout layout) {
                   Nested<OccupancySchema>::write(c, occupancyWithLaunch(run), layout);
               },
               nullptr,
               [](const Run& run, std::string_view name) {
                   return Nested<OccupancySchema>::check(run.occupancy, name);
               }},
    member<&Run::verification, Nested<VerificationSchema>>("verification"),
    member<&Run::memoryMode, ShortText>("memory_mode"),
    member<&Run::repeat, Unsigned<kMaxRepeat, 1>>("repeat"),
    member<&Run::warmup, Unsigned<kMaxWarmup>>(
        "warmup", kOptional, [](const WriteContext&, const Run& run) { return run.warmup != 0; }),
    member<&Run::chunks, Unsigned<kMaxChunks, 1>>("chunks"),
    member<&Run::streams, Unsigned<kMaxStreams, 1>>("streams"),
    member<&Run::wallNs, Nanoseconds<kMaxDurationNs>>("wall_ns"),
    member<&Run::createdAt, ShortText>("created_at"),
    // Most traces are one batch: the field is left out.
    member<&Run::batch, ShortText>(
        "batch", kOptional, [](const WriteContext&, const Run& run) { return !run.batch.empty(); }),
    member<&Run::hidden, Flag>("hidden", kOptional,
                               [](const WriteContext&, const Run& run) { return run.hidden; }),
    member<&Run::command, LongText>("command"),
    member<&Run::exitStatus, ExitStatus>("exit_status"),
    member<&Run::droppedRecords, Unsigned<kMaxU64>>("dropped_records"),
    member<&Run::notes, Notes>("notes"),
    whole<Run, SweepPointValue>("sweep", kOptional, &SweepPointValue::written),
    // Runs of --devices only: which of the host's GPUs it ran on.
    member<&Run::deviceIndex, DeviceIndex>(
        "device_index", kOptional,
        [](const WriteContext&, const Run& run) { return run.deviceIndex.has_value(); }),
    // Imported runs only: where the run was converted from.
    member<&Run::source, Nested<SourceSchema>>(
        "source", kOptional,
        [](const WriteContext&, const Run& run) { return run.source.has_value(); }),
    // Projected runs only: the measured run and the devices.
    member<&Run::projection, Nested<ProjectionSchema>>(
        "projection", kOptional,
        [](const WriteContext&, const Run& run) { return run.projection.has_value(); }),
    member<&Run::occupancySeries, Series>("occupancy_series"),
    whole<Run, Activities>("activities", kRequired),
};

} // namespace slicescope::trace::schema

namespace slicescope::trace {

std::optional<std::string> runLimitError(const Run& run) {
    return schema::checkObject<schema::RunSchema>(run);
}

} // namespace slicescope::trace
