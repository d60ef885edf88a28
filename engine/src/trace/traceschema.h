#pragma once

// The slicescope-trace schema (engine-internal, docs/trace-format.md): one description per
// structure of the format. Each field is one row: its JSON name, whether it is required, how its
// value is read (and validated against tracelimits.h), written, and checked before writing. The
// reader (tracereader.cpp), the writer (tracewriter.cpp) and the writer's refusal of what the
// reader would refuse (checkReadsBack) all walk these rows, so a new field is one row here and
// a writer cannot produce what its reader rejects.
#include "jsoncursor.h"
#include "jsontext.h"
#include "slicescope/trace/trace.h"
#include "slicescope/trace/tracelimits.h"

#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

namespace slicescope::trace::schema {

// What breaks a limit, in words naming the field, or nothing.
using Refusal = std::optional<std::string>;

// The reader's state that fields need beyond the text (TraceReader provides it).
class ReadContext {
  public:
    explicit ReadContext(JsonCursor& cursor) : json(cursor) {}
    ReadContext(const ReadContext&) = delete;
    ReadContext& operator=(const ReadContext&) = delete;
    virtual ~ReadContext() = default;

    // Between activities: the cancel flag and progress. False stops the read.
    virtual bool checkpoint() = 0;

    JsonCursor& json;
    NameTable* names = nullptr; // while a run's activities are read: the run's names
    long long activity = -1;    // index of the activity being read, for messages
    std::size_t namesCut = 0;   // names of the current run cut to kMaxNameBytes
    // The last few distinct device objects read, their text (in the trace's text) and what each
    // gave: the runs of a trace share a few devices (the GPU, the host), whose objects go through
    // nlohmann::json, so each text is read once (100,000 runs of two devices spent a fifth of
    // their reading there).
    struct DeviceRead {
        std::string_view text;
        device::DeviceSpec device;
        std::optional<Ceilings> ceilings;
    };
    static constexpr std::size_t kDevicesKept = 8;
    std::vector<DeviceRead> devicesRead; // the newest last
};

// The writer's state: where the text goes. drain, when set, is handed the text in ~1 MiB pieces
// (it must consume and clear them) and returns false to stop the writing (too large).
struct WriteContext {
    std::string& out;
    const std::function<bool(std::string&)>* drain = nullptr;
    const Run* run = nullptr; // the run whose activities are written (their names)
    bool stopped = false;

    void drainIfLarge() {
        if (drain != nullptr && *drain && !stopped && out.size() >= (std::size_t(1) << 20)) {
            stopped = !(*drain)(out);
        }
    }
};

// How an object is laid out: a run's fields one a line, small objects on one line, activities
// compact (a million of them).
enum class Layout { Lines, Inline, Compact };

template <typename S> struct Field {
    std::string_view name;
    bool required = false;
    bool (*read)(ReadContext&, S&, std::string_view name) = nullptr;
    void (*write)(WriteContext&, const S&, Layout) = nullptr;
    // Whether the field is written; nullptr: always.
    bool (*written)(const WriteContext&, const S&) = nullptr;
    // What in the value the reader would refuse; nullptr: it takes every value.
    Refusal (*check)(const S&, std::string_view name) = nullptr;
};

// Limit messages, shared with tracelimits.cpp.
std::string realText(double value);
Refusal tooLong(std::string_view name, std::size_t bytes, std::size_t max);
Refusal notFraction(std::string_view name, double value, bool nanAllowed);
template <typename T> Refusal above(std::string_view name, T value, T max) {
    if (value <= max) {
        return std::nullopt;
    }
    return "\"" + std::string(name) + "\" is " + std::to_string(value) + ", more than " +
           std::to_string(max);
}

// ---- Value kinds: how one value is read, written and checked --------------------------------

// A whole number Min..Max.
template <std::uint64_t Max, std::uint64_t Min = 0> struct Unsigned {
    template <typename T> static constexpr bool kChecks = Min > 0 || Max < std::uint64_t(T(-1));
    template <typename T> static bool read(ReadContext& c, T& out, std::string_view name) {
        const char* at = c.json.position();
        return c.json.parseUnsignedAs(out, name, Max) &&
               (std::uint64_t(out) >= Min ||
                c.json.failAt(at, field(name) + " must be at least " + std::to_string(Min)));
    }
    template <typename T> static void write(WriteContext& c, T value, Layout) {
        appendUnsigned(c.out, value);
    }
    template <typename T> static Refusal check(T value, std::string_view name) {
        if (std::uint64_t(value) >= Min && std::uint64_t(value) <= Max) {
            return std::nullopt;
        }
        return field(name) + " is " + std::to_string(value) +
               (Min > 0 ? ", not from " + std::to_string(Min) + " to " : ", more than ") +
               std::to_string(Max);
    }
};

// A time in ns from 0 to Max. Timestamps are >= 0: then any two of them differ by at most
// INT64_MAX, so a duration fits in an int64 wherever it is computed (a fuzzed file with an
// activity from INT64_MIN to INT64_MAX made every consumer overflow).
template <std::int64_t Max> struct Nanoseconds {
    template <typename T> static constexpr bool kChecks = true;
    static bool read(ReadContext& c, std::int64_t& out, std::string_view name) {
        const char* at = c.json.position();
        std::int64_t value = 0;
        if (!c.json.parseSigned(value, name)) {
            return false;
        }
        if (value < 0 || value > Max) {
            return c.json.failAt(at,
                                 field(name) + (Max == std::numeric_limits<std::int64_t>::max()
                                                    ? " must be >= 0, not " + std::to_string(value)
                                                    : " must be from 0 to " + std::to_string(Max)));
        }
        out = value;
        return true;
    }
    static void write(WriteContext& c, std::int64_t value, Layout) { appendInteger(c.out, value); }
    static Refusal check(std::int64_t value, std::string_view name) {
        if (value < 0) {
            return field(name) + " (" + std::to_string(value) + ") is negative";
        }
        if (value > Max) {
            return field(name) + " is " + std::to_string(value) + ", more than " +
                   std::to_string(Max);
        }
        return std::nullopt;
    }
};
using Timestamp = Nanoseconds<std::numeric_limits<std::int64_t>::max()>;

// UTF-8 text of at most MaxBytes.
template <std::size_t MaxBytes> struct Text {
    template <typename T> static constexpr bool kChecks = true;
    static bool read(ReadContext& c, std::string& out, std::string_view name) {
        return c.json.parseText(out, name, MaxBytes);
    }
    static void write(WriteContext& c, const std::string& value, Layout) {
        appendJsonString(c.out, value);
    }
    static Refusal check(const std::string& value, std::string_view name) {
        return tooLong(name, value.size(), MaxBytes);
    }
};
using ShortText = Text<kMaxShortTextBytes>;
using LongText = Text<kMaxLongTextBytes>;

struct Flag {
    template <typename T> static constexpr bool kChecks = false;
    static bool read(ReadContext& c, bool& out, std::string_view name) {
        return c.json.parseBool(out, name);
    }
    static void write(WriteContext& c, bool value, Layout) { c.out += value ? "true" : "false"; }
    static Refusal check(bool, std::string_view) { return std::nullopt; }
};

template <typename T> void appendReal(std::string& out, T value) {
    if constexpr (std::is_same_v<T, float>) {
        appendFloat(out, value);
    } else {
        appendDouble(out, value);
    }
}

// An occupancy or share, 0..1; with NullIsNaN, null reads as NaN ("not known").
template <bool NullIsNaN> struct Fraction {
    template <typename T> static constexpr bool kChecks = true;
    template <typename T> static bool read(ReadContext& c, T& out, std::string_view name) {
        const char* start = c.json.position();
        if (!c.json.parseReal(out, name, NullIsNaN)) {
            return false;
        }
        if (!isFraction(double(out)) && !(NullIsNaN && std::isnan(out))) {
            return c.json.failAt(start, field(name) + " must be a fraction from 0 to 1, not " +
                                            std::string(start, c.json.position()));
        }
        return true;
    }
    template <typename T> static void write(WriteContext& c, T value, Layout) {
        appendReal(c.out, value);
    }
    template <typename T> static Refusal check(T value, std::string_view name) {
        return notFraction(name, double(value), NullIsNaN);
    }
};

// A fraction that may be absent (null).
struct OptionalFraction {
    template <typename T> static constexpr bool kChecks = true;
    static bool read(ReadContext& c, std::optional<double>& out, std::string_view name) {
        if (c.json.tryNull()) {
            out.reset();
            return true;
        }
        double value = 0;
        if (!Fraction<false>::read(c, value, name)) {
            return false;
        }
        out = value;
        return true;
    }
    static void write(WriteContext& c, const std::optional<double>& value, Layout) {
        if (value) {
            appendDouble(c.out, *value);
        } else {
            c.out += "null";
        }
    }
    static Refusal check(const std::optional<double>& value, std::string_view name) {
        return value ? notFraction(name, *value, false) : std::nullopt;
    }
};

// A number >= 0, or null (NaN: not known).
struct NonNegativeReal {
    template <typename T> static constexpr bool kChecks = true;
    static bool read(ReadContext& c, double& out, std::string_view name) {
        return c.json.parseReal(out, name, true) &&
               (!(out < 0) || c.json.failHere(field(name) + " must be >= 0"));
    }
    static void write(WriteContext& c, double value, Layout) { appendDouble(c.out, value); }
    static Refusal check(double value, std::string_view name) {
        return value < 0 ? Refusal(field(name) + " is negative") : std::nullopt;
    }
};

// A grid or block extent [x, y, z] within CUDA's limits.
template <bool IsBlock> struct Extent {
    template <typename T> static constexpr bool kChecks = true;
    static bool read(ReadContext& c, Dim3& out, std::string_view name) {
        JsonCursor& json = c.json;
        const char* start = json.position();
        if (!json.consume('[')) {
            return json.atEnd() ? json.failEnd(field(name))
                                : json.failHere(field(name) + " must be an array [x, y, z], not " +
                                                json.describeToken());
        }
        std::uint32_t* parts[] = {&out.x, &out.y, &out.z};
        for (int i = 0; i < 3; ++i) {
            json.skipSpace();
            if (i > 0) {
                if (json.peekIs(']')) {
                    return json.failHere(field(name) + " must have exactly 3 elements");
                }
                if (!json.consume(',') && !json.expect(',', field(name))) {
                    return false; // (the quoted name only for the message)
                }
                json.skipSpace();
            }
            if (!json.parseUnsignedAs(*parts[i], name, std::numeric_limits<std::uint32_t>::max())) {
                return false;
            }
        }
        json.skipSpace();
        if (json.peekIs(',')) {
            return json.failHere(field(name) + " must have exactly 3 elements");
        }
        if (!json.expect(']', field(name))) {
            return false;
        }
        auto problem = dim3LimitError(out, IsBlock);
        return !problem || json.failAt(start, field(name) + " is " + *problem);
    }
    static void write(WriteContext& c, const Dim3& value, Layout layout) {
        const char* separator = layout == Layout::Compact ? "," : ", ";
        c.out += '[';
        appendUnsigned(c.out, value.x);
        c.out += separator;
        appendUnsigned(c.out, value.y);
        c.out += separator;
        appendUnsigned(c.out, value.z);
        c.out += ']';
    }
    static Refusal check(const Dim3& value, std::string_view name) {
        auto problem = dim3LimitError(value, IsBlock);
        return problem ? Refusal(field(name) + " is " + *problem) : std::nullopt;
    }
};

// One of an enumeration's names (toString and Parse map them).
template <typename E, Result<E> (*Parse)(std::string_view)> struct Name {
    template <typename T> static constexpr bool kChecks = false;
    static bool read(ReadContext& c, E& out, std::string_view name) {
        const char* at = c.json.position();
        std::string_view text;
        // The quoted name only for the message of a value that is no string: this is the
        // activity's kind, read a million times.
        if (!c.json.parseString(text, c.json.peekIs('"') ? name : field(name))) {
            return false;
        }
        const auto parsed = Parse(text);
        if (!parsed) {
            return c.json.failAt(at, parsed.error().message);
        }
        out = *parsed;
        return true;
    }
    static void write(WriteContext& c, E value, Layout) {
        c.out += '"'; // the names are plain lower-case words: nothing to escape
        c.out += toString(value);
        c.out += '"';
    }
    static Refusal check(E, std::string_view) { return std::nullopt; }
};

// ---- Objects ---------------------------------------------------------------------------------

template <typename M> struct MemberOf;
template <typename S, typename T> struct MemberOf<T S::*> {
    using Owner = S;
    using Type = T;
};

enum class Presence { Optional, Required };

// A field held in one member, of one value kind.
template <auto Member, typename Kind, typename S = typename MemberOf<decltype(Member)>::Owner>
constexpr Field<S> member(std::string_view name, Presence presence = Presence::Optional,
                          bool (*written)(const WriteContext&,
                                          const std::type_identity_t<S>&) = nullptr) {
    using T = typename MemberOf<decltype(Member)>::Type;
    Field<S> row{
        name,
        presence == Presence::Required,
        [](ReadContext& c, S& s, std::string_view n) { return Kind::read(c, s.*Member, n); },
        [](WriteContext& c, const S& s, Layout layout) { Kind::write(c, s.*Member, layout); },
        written,
        nullptr};
    if constexpr (Kind::template kChecks<T>) {
        row.check = [](const S& s, std::string_view n) { return Kind::check(s.*Member, n); };
    }
    return row;
}

template <typename Schema>
constexpr std::size_t kFieldCount = std::tuple_size_v<std::remove_cv_t<decltype(Schema::kFields)>>;

template <typename Schema> auto keysOf() {
    std::array<std::string_view, kFieldCount<Schema>> keys{};
    for (std::size_t i = 0; i < keys.size(); ++i) {
        keys[i] = Schema::kFields[i].name;
    }
    return keys;
}

template <typename Schema> std::uint32_t requiredOf() {
    std::uint32_t required = 0;
    for (std::size_t i = 0; i < kFieldCount<Schema>; ++i) {
        required |= Schema::kFields[i].required ? 1U << i : 0U;
    }
    return required;
}

// Reads an object of Schema: its fields, the required ones, then the checks that span fields.
template <typename Schema> bool readObject(ReadContext& c, typename Schema::Type& s) {
    static const auto kKeys = keysOf<Schema>();
    static const std::uint32_t kRequired = requiredOf<Schema>();
    const char* start = c.json.position();
    std::uint32_t seen = 0;
    const bool ok = c.json.parseObject(kKeys, Schema::kWhat, seen, [&](std::size_t key) {
        return Schema::kFields[key].read(c, s, Schema::kFields[key].name);
    });
    if (!ok || !c.json.requireKeys(kKeys, seen, kRequired, start, Schema::kWhole)) {
        return false;
    }
    if (auto refusal = Schema::checkWhole(s)) {
        return c.json.failAt(start, *refusal);
    }
    return true;
}

// The text before each field's value in a layout: [0] as the first field, [1] after another.
template <typename Schema, Layout kLayout> const auto& keyTextOf() {
    static const auto texts = [] {
        std::array<std::array<std::string, 2>, kFieldCount<Schema>> out;
        const std::string_view between = kLayout == Layout::Lines    ? ",\n      "
                                         : kLayout == Layout::Inline ? ", "
                                                                     : ",";
        const std::string_view afterName = kLayout == Layout::Compact ? "\":" : "\": ";
        for (std::size_t i = 0; i < out.size(); ++i) {
            const std::string key =
                '"' + std::string(Schema::kFields[i].name) + std::string(afterName);
            out[i] = {key, std::string(between) + key};
        }
        return out;
    }();
    return texts;
}

template <typename Schema, Layout kLayout>
void writeObject(WriteContext& c, const typename Schema::Type& s) {
    const auto& keys = keyTextOf<Schema, kLayout>();
    c.out += kLayout == Layout::Lines ? "    {\n      " : "{";
    bool first = true;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        const auto& row = Schema::kFields[i];
        if (row.written != nullptr && !row.written(c, s)) {
            continue;
        }
        c.out += keys[i][first ? 0 : 1];
        first = false;
        row.write(c, s, kLayout);
    }
    c.out += kLayout == Layout::Lines ? "\n    }" : "}";
}

// What in s's fields the reader would refuse (the first refusal).
template <typename Schema> Refusal checkFields(const typename Schema::Type& s) {
    for (const auto& row : Schema::kFields) {
        if (row.check != nullptr) {
            if (auto refusal = row.check(s, row.name)) {
                return refusal;
            }
        }
    }
    return std::nullopt;
}

// What in s the reader would refuse: in a field, or spanning fields.
template <typename Schema> Refusal checkObject(const typename Schema::Type& s) {
    auto refusal = checkFields<Schema>(s);
    return refusal ? refusal : Schema::checkWhole(s);
}

// An object that may be absent (null): std::optional of a Schema's type.
template <typename Schema> struct Nested {
    template <typename T> static constexpr bool kChecks = true;
    using Value = std::optional<typename Schema::Type>;
    static bool read(ReadContext& c, Value& out, std::string_view) {
        if (c.json.tryNull()) {
            out.reset();
            return true;
        }
        typename Schema::Type value;
        if (!readObject<Schema>(c, value)) {
            return false;
        }
        out = std::move(value);
        return true;
    }
    static void write(WriteContext& c, const Value& value, Layout) {
        if (value) {
            writeObject<Schema, Layout::Inline>(c, *value);
        } else {
            c.out += "null";
        }
    }
    static Refusal check(const Value& value, std::string_view name) {
        if (!value) {
            return std::nullopt;
        }
        auto refusal = checkFields<Schema>(*value);
        return refusal ? Refusal(field(name) + ": " + *refusal) : Schema::checkWhole(*value);
    }
};

// ---- The structures --------------------------------------------------------------------------
// Each names its type, how messages call it (kWhat: not an object; kWhole: a field missing), its
// rows (traceschema.cpp), and checkWhole: what the reader refuses across fields.

template <typename T> struct ObjectOf {
    using Type = T;
    static Refusal checkWhole(const T&) { return std::nullopt; }
};

struct ProblemSchema : ObjectOf<problem::Problem> {
    static constexpr std::string_view kWhat = "\"problem\"", kWhole = kWhat;
    static const std::array<Field<Type>, 3> kFields;
    static Refusal checkWhole(const Type& problem); // makeProblem's rules
};

struct LaunchSchema : ObjectOf<LaunchInfo> {
    static constexpr std::string_view kWhat = "\"launch\"", kWhole = kWhat;
    static const std::array<Field<Type>, 10> kFields;
};

struct OccupancySchema : ObjectOf<OccupancyInfo> {
    static constexpr std::string_view kWhat = "\"occupancy\"", kWhole = kWhat;
    static const std::array<Field<Type>, 9> kFields;
};

struct VerificationSchema : ObjectOf<Verification> {
    static constexpr std::string_view kWhat = "\"verification\"", kWhole = kWhat;
    static const std::array<Field<Type>, 2> kFields;
};

struct ActivitySchema : ObjectOf<Activity> {
    static constexpr std::string_view kWhat = "an activity", kWhole = "the activity";
    static const std::array<Field<Type>, 24> kFields;
    static Refusal checkWhole(const Type& activity); // the interval: end >= start, duration
};

struct SourceSchema : ObjectOf<ImportSource> {
    static constexpr std::string_view kWhat = "\"source\"", kWhole = kWhat;
    static const std::array<Field<Type>, 2> kFields;
};

struct ProjectionSchema : ObjectOf<Projection> {
    static constexpr std::string_view kWhat = "\"projection\"", kWhole = kWhat;
    static const std::array<Field<Type>, 4> kFields;
};

struct RunSchema : ObjectOf<Run> {
    static constexpr std::string_view kWhat = "a run", kWhole = "the run";
    static const std::array<Field<Type>, 27> kFields;
};

} // namespace slicescope::trace::schema
