// The slicescope-trace reader: a hand-written, schema-directed, single pass over the text.
//
// Why not a DOM: a measured trace can hold millions of activities, and a DOM of them costs
// several hundred bytes and many allocations per activity. The reader instead walks the text
// once, filling Activity structs in place and interning names as it goes; integers are parsed
// exactly (timestamps are ~1.7e18 ns, beyond a double's 53 bits). Only the small device object
// goes through nlohmann::json, so that devicejson.cpp stays the one mapping of a DeviceSpec.
//
// The reader faces hostile files (a fuzz target runs on it): every read is bounds-checked,
// nesting is limited to kMaxDepth, nothing is allocated from a size the file declares, and the
// first problem stops it with a message giving the byte offset and the run/activity index.
#include "tracereader.h"

#include "../device/devicejson.h"
#include "jsontext.h"
#include "sweepjson.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>

namespace slicescope::trace {

namespace {

// ---------------------------------------------------------------------------------------------
// Reading

// Deepest nesting accepted in any value, unknown fields included: far beyond what the format
// uses (five levels), small enough that a recursive skip cannot exhaust the stack.
constexpr int kMaxDepth = 64;
// Activities between two looks at the cancel flag and two progress reports.
constexpr std::size_t kCheckEvery = 8192;

constexpr std::uint64_t kMaxU16 = std::numeric_limits<std::uint16_t>::max();
constexpr std::uint64_t kMaxU32 = std::numeric_limits<std::uint32_t>::max();
constexpr std::uint64_t kMaxU64 = std::numeric_limits<std::uint64_t>::max();

bool isDigit(char c) {
    return c >= '0' && c <= '9';
}

// A short, printable quotation of untrusted text for an error message.
std::string quoted(std::string_view text) {
    constexpr std::size_t kLimit = 40;
    std::string out;
    appendJsonString(out, text.substr(0, kLimit));
    if (text.size() > kLimit) {
        out.insert(out.size() - 1, "...");
    }
    return out;
}

std::string field(std::string_view name) {
    return "\"" + std::string(name) + "\"";
}

class TraceReader {
  public:
    TraceReader(std::string_view text, const ReadOptions& options)
        : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()), options_(options) {
    }

    Result<Trace> read();

  private:
    // Every parse function returns false once it has recorded the first error in error_.
    bool failAt(const char* at, const std::string& message);
    bool failHere(const std::string& message) { return failAt(p_, message); }
    bool failEnd(std::string_view inside) {
        return failAt(end_, "unexpected end of file inside " + std::string(inside) +
                                " (the file is truncated)");
    }
    std::string describeToken() const;

    void skipSpace() {
        while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) {
            ++p_;
        }
    }
    bool peekIs(char c) const { return p_ < end_ && *p_ == c; }
    bool expect(char c, std::string_view inside);
    bool tryNull();

    bool parseString(std::string_view& out, std::string_view what);
    bool parseEscapedString(const char* start, std::string_view& out);
    bool parseHex4(std::uint32_t& out);
    bool scanNumber(bool& integral);
    bool parseUnsigned(std::uint64_t& out, std::string_view name, std::uint64_t max);
    template <typename T> bool parseUnsignedAs(T& out, std::string_view name, std::uint64_t max);
    bool parseSigned(std::int64_t& out, std::string_view name);
    bool parseTimestamp(std::int64_t& out, std::string_view name);
    template <typename T> bool parseReal(T& out, std::string_view name, bool nullIsNaN);
    bool parseBool(bool& out, std::string_view name);
    bool parseText(std::string& out, std::string_view name);
    bool parseDim3(Dim3& out, std::string_view name);
    bool skipValue(int depth);

    // Walks an object: unknown keys are skipped, a repeated key is an error, and onKey(index)
    // parses the value of keys[index]. seen gets one bit per key found.
    template <std::size_t N, typename OnKey>
    bool parseObject(const std::array<std::string_view, N>& keys, std::string_view what,
                     std::uint32_t& seen, OnKey&& onKey);
    template <typename OnItem> bool parseArray(std::string_view what, OnItem&& onItem);
    template <std::size_t N>
    bool requireKeys(const std::array<std::string_view, N>& keys, std::uint32_t seen,
                     std::uint32_t required, const char* objectStart, std::string_view what);

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

    const char* begin_;
    const char* p_;
    const char* end_;
    const ReadOptions& options_;
    std::string scratch_; // decoded text of the last string that held escapes
    std::optional<Error> error_;
    long long run_ = -1;      // index of the run being read, for messages
    long long activity_ = -1; // index of the activity being read, for messages
};

bool TraceReader::failAt(const char* at, const std::string& message) {
    if (!error_) {
        std::string where = "byte " + std::to_string(at - begin_);
        if (run_ >= 0) {
            where += " (run " + std::to_string(run_);
            if (activity_ >= 0) {
                where += ", activity " + std::to_string(activity_);
            }
            where += ")";
        }
        error_ = Error{Error::Code::Parse, where + ": " + message};
    }
    return false;
}

std::string TraceReader::describeToken() const {
    if (p_ >= end_) {
        return "the end of the file";
    }
    switch (*p_) {
    case '{':
        return "an object";
    case '[':
        return "an array";
    case '"':
        return "a string";
    case 't':
    case 'f':
        return "a boolean";
    case 'n':
        return "null";
    default:
        break;
    }
    if (*p_ == '-' || isDigit(*p_)) {
        return "a number";
    }
    const auto c = static_cast<unsigned char>(*p_);
    if (c >= 0x20 && c < 0x7F) {
        return std::string("'") + *p_ + "'";
    }
    char text[8];
    std::snprintf(text, sizeof text, "0x%02x", c);
    return std::string("byte ") + text;
}

bool TraceReader::expect(char c, std::string_view inside) {
    skipSpace();
    if (p_ == end_) {
        return failEnd(inside);
    }
    if (*p_ != c) {
        return failHere(std::string("expected '") + c + "' in " + std::string(inside) + ", found " +
                        describeToken());
    }
    ++p_;
    return true;
}

bool TraceReader::tryNull() {
    if (end_ - p_ >= 4 && std::memcmp(p_, "null", 4) == 0) {
        p_ += 4;
        return true;
    }
    return false;
}

bool TraceReader::parseString(std::string_view& out, std::string_view what) {
    if (p_ == end_) {
        return failEnd(what);
    }
    if (*p_ != '"') {
        return failHere(std::string(what) + " must be a string, not " + describeToken());
    }
    const char* start = ++p_;
    while (p_ < end_) {
        const auto c = static_cast<unsigned char>(*p_);
        if (c == '"') {
            out = std::string_view(start, std::size_t(p_ - start));
            ++p_;
            return true;
        }
        if (c == '\\') {
            return parseEscapedString(start, out);
        }
        if (c < 0x20) {
            return failHere("control character in a string (JSON needs it escaped)");
        }
        if (c < 0x80) {
            ++p_;
            continue;
        }
        const std::size_t length =
            utf8SequenceLength(std::string_view(p_, std::size_t(end_ - p_)), 0);
        if (length == 0) {
            return failHere("invalid UTF-8 in a string");
        }
        p_ += length;
    }
    return failEnd("a string");
}

bool TraceReader::parseHex4(std::uint32_t& out) {
    if (end_ - p_ < 4) {
        return failEnd("a \\u escape");
    }
    out = 0;
    for (int i = 0; i < 4; ++i, ++p_) {
        const char c = *p_;
        const std::uint32_t digit = isDigit(c)               ? std::uint32_t(c - '0')
                                    : (c >= 'a' && c <= 'f') ? std::uint32_t(c - 'a' + 10)
                                    : (c >= 'A' && c <= 'F') ? std::uint32_t(c - 'A' + 10)
                                                             : 16;
        if (digit == 16) {
            return failHere("a \\u escape needs four hex digits");
        }
        out = out * 16 + digit;
    }
    return true;
}

bool TraceReader::parseEscapedString(const char* start, std::string_view& out) {
    scratch_.assign(start, p_);
    while (p_ < end_) {
        const auto c = static_cast<unsigned char>(*p_);
        if (c == '"') {
            ++p_;
            out = scratch_;
            return true;
        }
        if (c < 0x20) {
            return failHere("control character in a string (JSON needs it escaped)");
        }
        if (c >= 0x80) {
            const std::size_t length =
                utf8SequenceLength(std::string_view(p_, std::size_t(end_ - p_)), 0);
            if (length == 0) {
                return failHere("invalid UTF-8 in a string");
            }
            scratch_.append(p_, length);
            p_ += length;
            continue;
        }
        if (c != '\\') {
            scratch_.push_back(char(c));
            ++p_;
            continue;
        }
        if (++p_ == end_) {
            return failEnd("a string");
        }
        const char escape = *p_++;
        switch (escape) {
        case '"':
            scratch_.push_back('"');
            break;
        case '\\':
            scratch_.push_back('\\');
            break;
        case '/':
            scratch_.push_back('/');
            break;
        case 'b':
            scratch_.push_back('\b');
            break;
        case 'f':
            scratch_.push_back('\f');
            break;
        case 'n':
            scratch_.push_back('\n');
            break;
        case 'r':
            scratch_.push_back('\r');
            break;
        case 't':
            scratch_.push_back('\t');
            break;
        case 'u': {
            std::uint32_t code = 0;
            if (!parseHex4(code)) {
                return false;
            }
            if (code >= 0xDC00 && code <= 0xDFFF) {
                return failHere("a lone low surrogate in a \\u escape");
            }
            if (code >= 0xD800 && code <= 0xDBFF) {
                std::uint32_t low = 0;
                if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') {
                    return failHere("a high surrogate must be followed by a \\u low surrogate");
                }
                p_ += 2;
                if (!parseHex4(low)) {
                    return false;
                }
                if (low < 0xDC00 || low > 0xDFFF) {
                    return failHere("a high surrogate must be followed by a \\u low surrogate");
                }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
            }
            // UTF-8 encoding of one code point.
            if (code < 0x80) {
                scratch_.push_back(char(code));
            } else if (code < 0x800) {
                scratch_.push_back(char(0xC0 | (code >> 6)));
                scratch_.push_back(char(0x80 | (code & 0x3F)));
            } else if (code < 0x10000) {
                scratch_.push_back(char(0xE0 | (code >> 12)));
                scratch_.push_back(char(0x80 | ((code >> 6) & 0x3F)));
                scratch_.push_back(char(0x80 | (code & 0x3F)));
            } else {
                scratch_.push_back(char(0xF0 | (code >> 18)));
                scratch_.push_back(char(0x80 | ((code >> 12) & 0x3F)));
                scratch_.push_back(char(0x80 | ((code >> 6) & 0x3F)));
                scratch_.push_back(char(0x80 | (code & 0x3F)));
            }
            break;
        }
        default:
            --p_;
            return failHere("invalid escape in a string");
        }
    }
    return failEnd("a string");
}

// Checks the JSON number grammar at p_ and moves past it; integral says whether it had
// neither fraction nor exponent.
bool TraceReader::scanNumber(bool& integral) {
    integral = true;
    if (peekIs('-')) {
        ++p_;
    }
    if (p_ == end_) {
        return failEnd("a number");
    }
    if (*p_ == '0') {
        ++p_;
        if (p_ < end_ && isDigit(*p_)) {
            return failHere("a number must not have a leading zero");
        }
    } else if (isDigit(*p_)) {
        while (p_ < end_ && isDigit(*p_)) {
            ++p_;
        }
    } else {
        return failHere("malformed number");
    }
    if (peekIs('.')) {
        integral = false;
        ++p_;
        if (p_ == end_ || !isDigit(*p_)) {
            return p_ == end_ ? failEnd("a number")
                              : failHere("malformed number: digits must follow '.'");
        }
        while (p_ < end_ && isDigit(*p_)) {
            ++p_;
        }
    }
    if (peekIs('e') || peekIs('E')) {
        integral = false;
        ++p_;
        if (peekIs('+') || peekIs('-')) {
            ++p_;
        }
        if (p_ == end_ || !isDigit(*p_)) {
            return p_ == end_ ? failEnd("a number")
                              : failHere("malformed number: digits must follow 'e'");
        }
        while (p_ < end_ && isDigit(*p_)) {
            ++p_;
        }
    }
    return true;
}

bool TraceReader::parseUnsigned(std::uint64_t& out, std::string_view name, std::uint64_t max) {
    const char* start = p_;
    if (p_ == end_ || !(isDigit(*p_) || *p_ == '-')) {
        return p_ == end_
                   ? failEnd(field(name))
                   : failHere(field(name) + " must be a whole number, not " + describeToken());
    }
    bool integral = false;
    if (!scanNumber(integral)) {
        return false;
    }
    if (*start == '-' || !integral) {
        return failAt(start,
                      field(name) + " must be a whole number >= 0, not " + std::string(start, p_));
    }
    std::uint64_t value = 0;
    for (const char* c = start; c < p_; ++c) {
        const auto digit = std::uint64_t(*c - '0');
        if (value > (kMaxU64 - digit) / 10) {
            return failAt(start,
                          field(name) + " is too large (at most " + std::to_string(max) + ")");
        }
        value = value * 10 + digit;
    }
    if (value > max) {
        return failAt(start, field(name) + " is too large (at most " + std::to_string(max) + ")");
    }
    out = value;
    return true;
}

template <typename T>
bool TraceReader::parseUnsignedAs(T& out, std::string_view name, std::uint64_t max) {
    std::uint64_t value = 0;
    if (!parseUnsigned(value, name, max)) {
        return false;
    }
    out = T(value);
    return true;
}

bool TraceReader::parseSigned(std::int64_t& out, std::string_view name) {
    const char* start = p_;
    if (p_ == end_ || !(isDigit(*p_) || *p_ == '-')) {
        return p_ == end_
                   ? failEnd(field(name))
                   : failHere(field(name) + " must be a whole number, not " + describeToken());
    }
    bool integral = false;
    if (!scanNumber(integral)) {
        return false;
    }
    if (!integral) {
        return failAt(start,
                      field(name) + " must be a whole number, not " + std::string(start, p_));
    }
    const bool negative = *start == '-';
    // The magnitude of INT64_MIN is one more than INT64_MAX.
    const std::uint64_t limit = negative ? std::uint64_t(1) << 63 : (std::uint64_t(1) << 63) - 1;
    std::uint64_t magnitude = 0;
    for (const char* c = start + (negative ? 1 : 0); c < p_; ++c) {
        const auto digit = std::uint64_t(*c - '0');
        if (magnitude > (limit - digit) / 10) {
            return failAt(start, field(name) + " does not fit in 64 bits");
        }
        magnitude = magnitude * 10 + digit;
    }
    out = negative ? std::int64_t(0 - magnitude) : std::int64_t(magnitude);
    return true;
}

// Timestamps are >= 0: then any two of them differ by at most INT64_MAX, so a duration, or a time
// relative to a run's first activity, fits in an int64 wherever it is computed. (A fuzzed file
// with an activity from INT64_MIN to INT64_MAX made every consumer overflow.)
bool TraceReader::parseTimestamp(std::int64_t& out, std::string_view name) {
    const char* start = p_;
    std::int64_t value = 0;
    if (!parseSigned(value, name)) {
        return false;
    }
    if (value < 0) {
        return failAt(start, field(name) + " must be >= 0, not " + std::to_string(value));
    }
    out = value;
    return true;
}

template <typename T> bool TraceReader::parseReal(T& out, std::string_view name, bool nullIsNaN) {
    if (nullIsNaN && tryNull()) {
        out = std::numeric_limits<T>::quiet_NaN();
        return true;
    }
    const char* start = p_;
    if (p_ == end_ || !(isDigit(*p_) || *p_ == '-')) {
        return p_ == end_ ? failEnd(field(name))
                          : failHere(field(name) + " must be a number, not " + describeToken());
    }
    bool integral = false;
    if (!scanNumber(integral)) {
        return false;
    }
    T value{};
    const auto result = std::from_chars(start, p_, value);
    if (result.ec == std::errc::result_out_of_range) {
        return failAt(start, field(name) + " is out of range: " + std::string(start, p_));
    }
    if (result.ec != std::errc() || result.ptr != p_ || !std::isfinite(value)) {
        return failAt(start, field(name) + " is not a valid number: " + std::string(start, p_));
    }
    out = value;
    return true;
}

bool TraceReader::parseBool(bool& out, std::string_view name) {
    if (end_ - p_ >= 4 && std::memcmp(p_, "true", 4) == 0) {
        p_ += 4;
        out = true;
        return true;
    }
    if (end_ - p_ >= 5 && std::memcmp(p_, "false", 5) == 0) {
        p_ += 5;
        out = false;
        return true;
    }
    return failHere(field(name) + " must be true or false, not " + describeToken());
}

bool TraceReader::parseText(std::string& out, std::string_view name) {
    std::string_view text;
    if (!parseString(text, field(name))) {
        return false;
    }
    out.assign(text);
    return true;
}

bool TraceReader::parseDim3(Dim3& out, std::string_view name) {
    if (!peekIs('[')) {
        return failHere(field(name) + " must be an array [x, y, z], not " + describeToken());
    }
    ++p_;
    std::uint32_t* parts[] = {&out.x, &out.y, &out.z};
    for (int i = 0; i < 3; ++i) {
        skipSpace();
        if (i > 0) {
            if (peekIs(']')) {
                return failHere(field(name) + " must have exactly 3 elements");
            }
            if (!expect(',', field(name))) {
                return false;
            }
            skipSpace();
        }
        if (!parseUnsignedAs(*parts[i], name, kMaxU32)) {
            return false;
        }
    }
    skipSpace();
    if (peekIs(',')) {
        return failHere(field(name) + " must have exactly 3 elements");
    }
    return expect(']', field(name));
}

bool TraceReader::skipValue(int depth) {
    skipSpace();
    if (p_ == end_) {
        return failEnd("a value");
    }
    const char c = *p_;
    if (c == '{' || c == '[') {
        if (depth >= kMaxDepth) {
            return failHere("values nested deeper than " + std::to_string(kMaxDepth) + " levels");
        }
        const char close = c == '{' ? '}' : ']';
        const std::string_view inside = c == '{' ? "an object" : "an array";
        ++p_;
        skipSpace();
        if (peekIs(close)) {
            ++p_;
            return true;
        }
        for (;;) {
            if (c == '{') {
                skipSpace();
                std::string_view key;
                if (!parseString(key, "an object key") || !expect(':', inside)) {
                    return false;
                }
            }
            if (!skipValue(depth + 1)) {
                return false;
            }
            skipSpace();
            if (p_ == end_) {
                return failEnd(inside);
            }
            if (*p_ == ',') {
                ++p_;
                continue;
            }
            if (*p_ == close) {
                ++p_;
                return true;
            }
            return failHere(std::string("expected ',' or '") + close + "' in " +
                            std::string(inside) + ", found " + describeToken());
        }
    }
    if (c == '"') {
        std::string_view ignored;
        return parseString(ignored, "a value");
    }
    if (c == '-' || isDigit(c)) {
        bool integral = false;
        return scanNumber(integral);
    }
    for (const std::string_view literal : {"true", "false", "null"}) {
        if (std::size_t(end_ - p_) >= literal.size() &&
            std::memcmp(p_, literal.data(), literal.size()) == 0) {
            p_ += literal.size();
            return true;
        }
    }
    return failHere("expected a JSON value, found " + describeToken());
}

template <std::size_t N, typename OnKey>
bool TraceReader::parseObject(const std::array<std::string_view, N>& keys, std::string_view what,
                              std::uint32_t& seen, OnKey&& onKey) {
    static_assert(N <= 32, "seen has one bit per key");
    seen = 0;
    skipSpace();
    if (!peekIs('{')) {
        return p_ == end_
                   ? failEnd(what)
                   : failHere(std::string(what) + " must be an object, not " + describeToken());
    }
    ++p_;
    skipSpace();
    if (peekIs('}')) {
        ++p_;
        return true;
    }
    for (;;) {
        skipSpace();
        const char* keyAt = p_;
        std::string_view key;
        if (!parseString(key, "a field name")) {
            return false;
        }
        std::size_t index = N;
        for (std::size_t i = 0; i < N; ++i) {
            if (keys[i] == key) {
                index = i;
                break;
            }
        }
        if (!expect(':', what)) {
            return false;
        }
        skipSpace();
        if (index == N) {
            // Unknown fields are skipped: later versions may add fields old readers can ignore.
            if (!skipValue(0)) {
                return false;
            }
        } else {
            if ((seen >> index) & 1U) {
                return failAt(keyAt,
                              "duplicate field " + field(keys[index]) + " in " + std::string(what));
            }
            seen |= 1U << index;
            if (!onKey(index)) {
                return false;
            }
        }
        skipSpace();
        if (p_ == end_) {
            return failEnd(what);
        }
        if (*p_ == ',') {
            ++p_;
            continue;
        }
        if (*p_ == '}') {
            ++p_;
            return true;
        }
        return failHere("expected ',' or '}' in " + std::string(what) + ", found " +
                        describeToken());
    }
}

template <typename OnItem> bool TraceReader::parseArray(std::string_view what, OnItem&& onItem) {
    skipSpace();
    if (!peekIs('[')) {
        return p_ == end_
                   ? failEnd(what)
                   : failHere(std::string(what) + " must be an array, not " + describeToken());
    }
    ++p_;
    skipSpace();
    if (peekIs(']')) {
        ++p_;
        return true;
    }
    for (std::size_t index = 0;; ++index) {
        skipSpace();
        if (!onItem(index)) {
            return false;
        }
        skipSpace();
        if (p_ == end_) {
            return failEnd(what);
        }
        if (*p_ == ',') {
            ++p_;
            continue;
        }
        if (*p_ == ']') {
            ++p_;
            return true;
        }
        return failHere("expected ',' or ']' in " + std::string(what) + ", found " +
                        describeToken());
    }
}

template <std::size_t N>
bool TraceReader::requireKeys(const std::array<std::string_view, N>& keys, std::uint32_t seen,
                              std::uint32_t required, const char* objectStart,
                              std::string_view what) {
    const std::uint32_t missing = required & ~seen;
    if (missing == 0) {
        return true;
    }
    for (std::size_t i = 0; i < N; ++i) {
        if ((missing >> i) & 1U) {
            return failAt(objectStart,
                          std::string(what) + " is missing the field " + field(keys[i]));
        }
    }
    return false;
}

bool TraceReader::checkpoint() {
    if (options_.cancel != nullptr && options_.cancel->load(std::memory_order_relaxed)) {
        error_ = Error{Error::Code::Cancelled, "reading the trace was cancelled"};
        return false;
    }
    if (options_.progress && end_ > begin_) {
        options_.progress(double(p_ - begin_) / double(end_ - begin_));
    }
    return true;
}

Result<Trace> TraceReader::read() {
    Trace trace;
    if (end_ - p_ >= 3 && std::memcmp(p_, "\xEF\xBB\xBF", 3) == 0) {
        p_ += 3; // a UTF-8 byte order mark, as some editors write
    }
    skipSpace();
    if (p_ == end_) {
        failHere("the file is empty (expected a slicescope-trace JSON object)");
    } else if (!peekIs('{')) {
        failHere("expected a JSON object with \"format\": \"slicescope-trace\", found " +
                 describeToken());
    } else if (parseTop(trace)) {
        skipSpace();
        if (p_ != end_) {
            failHere("unexpected text (" + describeToken() + ") after the end of the trace");
        }
    }
    if (error_) {
        return tl::unexpected(*error_);
    }
    if (options_.progress) {
        options_.progress(1.0);
    }
    return trace;
}

bool TraceReader::parseTop(Trace& trace) {
    static constexpr std::array<std::string_view, 5> kKeys{"format", "version", "generator", "runs",
                                                           "sweeps"};
    const char* start = p_;
    std::uint32_t seen = 0;
    const bool ok = parseObject(kKeys, "the trace", seen, [&](std::size_t key) {
        switch (key) {
        case 0: {
            const char* at = p_;
            std::string_view format;
            if (!parseString(format, "\"format\"")) {
                return false;
            }
            if (format != kFormatName) {
                return failAt(at, "not a SliceScope trace: \"format\" is " + quoted(format) +
                                      ", expected \"" + std::string(kFormatName) + "\"");
            }
            return true;
        }
        case 1: {
            const char* at = p_;
            std::int64_t version = 0;
            if (!parseSigned(version, "version")) {
                return false;
            }
            if (version != kFormatVersion) {
                return failAt(at, "unsupported trace version " + std::to_string(version) +
                                      " (this build reads version " +
                                      std::to_string(kFormatVersion) + ")");
            }
            return true;
        }
        case 2:
            return parseText(trace.generator, "generator");
        case 4:
            return parseSmallJson(trace.sweeps, "sweeps", sweepsFromJson);
        default:
            return parseArray("\"runs\"", [&](std::size_t index) {
                run_ = (long long)index;
                if (!checkpoint()) {
                    return false;
                }
                if (!parseRun(trace.runs.emplace_back())) {
                    return false;
                }
                run_ = -1;
                return true;
            });
        }
    });
    return ok && requireKeys(kKeys, seen, 0b1011, start, "the trace");
}

bool TraceReader::parseRun(Run& run) {
    static constexpr std::array<std::string_view, 19> kKeys{
        "id",      "strategy",         "mode",         "problem",     "device",
        "launch",  "occupancy",        "verification", "memory_mode", "repeat",
        "wall_ns", "created_at",       "command",      "exit_status", "dropped_records",
        "notes",   "occupancy_series", "activities",   "sweep"};
    // id, strategy, mode, device, activities
    constexpr std::uint32_t kRequired = (1U << 0) | (1U << 1) | (1U << 2) | (1U << 4) | (1U << 17);
    const char* start = p_;
    std::uint32_t seen = 0;
    const bool ok = parseObject(kKeys, "a run", seen, [&](std::size_t key) {
        switch (key) {
        case 0:
            return parseText(run.id, "id");
        case 1:
            return parseText(run.strategy, "strategy");
        case 2: {
            const char* at = p_;
            std::string_view text;
            if (!parseString(text, "\"mode\"")) {
                return false;
            }
            const auto mode = parseRunMode(text);
            if (!mode) {
                return failAt(at, mode.error().message);
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
            return parseText(run.memoryMode, "memory_mode");
        case 9:
            return parseUnsignedAs(run.repeat, "repeat", kMaxU32);
        case 10:
            return parseSigned(run.wallNs, "wall_ns");
        case 11:
            return parseText(run.createdAt, "created_at");
        case 12:
            return parseText(run.command, "command");
        case 13: {
            if (tryNull()) {
                run.exitStatus.reset();
                return true;
            }
            const char* at = p_;
            std::int64_t status = 0;
            if (!parseSigned(status, "exit_status")) {
                return false;
            }
            if (status < std::numeric_limits<int>::min() ||
                status > std::numeric_limits<int>::max()) {
                return failAt(at, "\"exit_status\" is out of range");
            }
            run.exitStatus = int(status);
            return true;
        }
        case 14:
            return parseUnsigned(run.droppedRecords, "dropped_records", kMaxU64);
        case 15:
            return parseArray("\"notes\"", [&](std::size_t) {
                return parseText(run.notes.emplace_back(), "notes");
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
        default: {
            NameTable names(run);
            const bool done = parseArray("\"activities\"", [&](std::size_t index) {
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
    return ok && requireKeys(kKeys, seen, kRequired, start, "the run");
}

bool TraceReader::parseActivity(Activity& a, NameTable& names) {
    // Ordered by how often they occur, since the lookup is linear.
    static constexpr std::array<std::string_view, 18> kKeys{"kind",
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
                                                            "achieved_occupancy"};
    constexpr std::uint32_t kRequired = 0b111; // kind, start_ns, end_ns
    const char* start = p_;
    std::uint32_t seen = 0;
    const auto memoryKind = [&](MemoryKind& out, std::string_view name) {
        const char* at = p_;
        std::string_view text;
        if (!parseString(text, field(name))) {
            return false;
        }
        const auto kind = parseMemoryKind(text);
        if (!kind) {
            return failAt(at, kind.error().message);
        }
        out = *kind;
        return true;
    };
    const bool ok = parseObject(kKeys, "an activity", seen, [&](std::size_t key) {
        switch (key) {
        case 0: {
            const char* at = p_;
            std::string_view text;
            if (!parseString(text, "\"kind\"")) {
                return false;
            }
            const auto kind = parseActivityKind(text);
            if (!kind) {
                return failAt(at, kind.error().message);
            }
            a.kind = *kind;
            return true;
        }
        case 1:
            return parseTimestamp(a.startNs, "start_ns");
        case 2:
            return parseTimestamp(a.endNs, "end_ns");
        case 3: {
            std::string_view text;
            if (!parseString(text, "\"name\"")) {
                return false;
            }
            a.nameId = names.intern(text);
            return true;
        }
        case 4:
            return parseUnsignedAs(a.stream, "stream", kMaxU32);
        case 5:
            return parseUnsignedAs(a.correlationId, "correlation_id", kMaxU32);
        case 6:
            return parseUnsigned(a.bytes, "bytes", kMaxU64);
        case 7:
            return memoryKind(a.srcKind, "src_kind");
        case 8:
            return memoryKind(a.dstKind, "dst_kind");
        case 9:
            return parseDim3(a.grid, "grid");
        case 10:
            return parseDim3(a.block, "block");
        case 11:
            return parseUnsignedAs(a.registersPerThread, "registers_per_thread", kMaxU16);
        case 12:
            return parseUnsignedAs(a.staticSharedBytes, "static_shared_bytes", kMaxU32);
        case 13:
            return parseUnsignedAs(a.dynamicSharedBytes, "dynamic_shared_bytes", kMaxU32);
        case 14:
            return parseUnsignedAs(a.threadId, "thread_id", kMaxU32);
        case 15:
            return parseUnsignedAs(a.iteration, "iteration", kMaxU16);
        case 16:
            return parseReal(a.theoreticalOccupancy, "theoretical_occupancy", true);
        default:
            return parseReal(a.achievedOccupancy, "achieved_occupancy", true);
        }
    });
    if (!ok || !requireKeys(kKeys, seen, kRequired, start, "the activity")) {
        return false;
    }
    if (a.endNs < a.startNs) {
        return failAt(start, "\"end_ns\" (" + std::to_string(a.endNs) +
                                 ") is before \"start_ns\" (" + std::to_string(a.startNs) + ")");
    }
    return true;
}

bool TraceReader::parseProblem(std::optional<problem::Problem>& out) {
    if (tryNull()) {
        out.reset();
        return true;
    }
    static constexpr std::array<std::string_view, 3> kKeys{"shape", "dtype", "work_per_element"};
    const char* start = p_;
    std::uint64_t shape[3] = {0, 0, 0};
    problem::Dtype dtype = problem::Dtype::F64;
    std::uint64_t work = 1;
    std::uint32_t seen = 0;
    const bool ok = parseObject(kKeys, "\"problem\"", seen, [&](std::size_t key) {
        if (key == 0) {
            if (!peekIs('[')) {
                return failHere("\"shape\" must be an array [R, C, N], not " + describeToken());
            }
            std::size_t count = 0;
            const bool done = parseArray("\"shape\"", [&](std::size_t index) {
                if (index >= 3) {
                    return failHere("\"shape\" must have exactly 3 elements");
                }
                ++count;
                return parseUnsigned(shape[index], "shape", kMaxU64);
            });
            return done && (count == 3 || failHere("\"shape\" must have exactly 3 elements"));
        }
        if (key == 1) {
            const char* at = p_;
            std::string_view text;
            if (!parseString(text, "\"dtype\"")) {
                return false;
            }
            const auto parsed = problem::parseDtype(text);
            if (!parsed) {
                return failAt(at, parsed.error().message);
            }
            dtype = *parsed;
            return true;
        }
        return parseUnsigned(work, "work_per_element", kMaxU32);
    });
    if (!ok || !requireKeys(kKeys, seen, 0b001, start, "\"problem\"")) {
        return false;
    }
    auto made = problem::makeProblem({shape[0], shape[1], shape[2]}, dtype, std::int64_t(work));
    if (!made) {
        return failAt(start, "invalid \"problem\": " + made.error().message);
    }
    out = *made;
    return true;
}

template <typename T, typename FromJson>
bool TraceReader::parseSmallJson(T& out, std::string_view name, FromJson&& fromJson) {
    const char* start = p_;
    if (!skipValue(0)) {
        return false;
    }
    const auto object = nlohmann::json::parse(start, p_, nullptr, false);
    if (object.is_discarded()) {
        return failAt(start, field(name) + " is not valid JSON");
    }
    auto value = fromJson(object);
    if (!value) {
        return failAt(start, "invalid " + field(name) + ": " + value.error().message);
    }
    out = std::move(*value);
    return true;
}

bool TraceReader::parseDevice(device::DeviceSpec& out, std::optional<Ceilings>& ceilings) {
    if (!peekIs('{')) {
        return p_ == end_ ? failEnd("\"device\"")
                          : failHere("\"device\" must be an object, not " + describeToken());
    }
    // Validate the text here (bounded depth, UTF-8), then let devicejson.cpp map the small
    // object; it must not be able to throw on text that passed.
    const char* start = p_;
    if (!skipValue(0)) {
        return false;
    }
    auto object = nlohmann::json::parse(start, p_, nullptr, false);
    if (object.is_discarded()) {
        return failAt(start, "\"device\" is not valid JSON");
    }
    if (object.is_object() && object.contains("ceilings")) {
        auto read = ceilingsFromJson(object["ceilings"]);
        if (!read) {
            return failAt(start, "invalid \"device\": " + read.error().message);
        }
        ceilings = std::move(*read);
        object.erase("ceilings");
    }
    auto device = device::deviceFromJson(object);
    if (!device) {
        return failAt(start, "invalid \"device\": " + device.error().message);
    }
    out = std::move(*device);
    out.sources.clear(); // traces carry no sources
    return true;
}

bool TraceReader::parseLaunch(std::optional<LaunchInfo>& out) {
    if (tryNull()) {
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
    const char* start = p_;
    LaunchInfo launch;
    std::uint32_t seen = 0;
    const bool ok = parseObject(kKeys, "\"launch\"", seen, [&](std::size_t key) {
        switch (key) {
        case 0:
            return parseDim3(launch.grid, "grid");
        case 1:
            return parseDim3(launch.block, "block");
        case 2:
            return parseUnsigned(launch.workers, "workers", kMaxU64);
        case 3:
            return parseUnsigned(launch.elementsPerWorker, "elements_per_worker", kMaxU64);
        case 4:
            return parseText(launch.layout, "layout");
        case 5:
            return parseText(launch.blockOption, "block_option");
        case 6:
            return parseBool(launch.gridStride, "grid_stride");
        case 7:
            return parseUnsignedAs(launch.registersPerThread, "registers_per_thread", kMaxU32);
        case 8:
            return parseUnsignedAs(launch.staticSharedBytes, "static_shared_bytes", kMaxU32);
        default:
            return parseUnsignedAs(launch.dynamicSharedBytes, "dynamic_shared_bytes", kMaxU32);
        }
    });
    if (!ok || !requireKeys(kKeys, seen, 0b111, start, "\"launch\"")) {
        return false;
    }
    out = std::move(launch);
    return true;
}

bool TraceReader::parseOccupancy(std::optional<OccupancyInfo>& out) {
    if (tryNull()) {
        out.reset();
        return true;
    }
    static constexpr std::array<std::string_view, 7> kKeys{
        "theoretical",          "achieved",     "thread_slots_busy", "limiter", "explanation",
        "active_blocks_per_sm", "sm_busy_share"};
    const char* start = p_;
    OccupancyInfo occupancy;
    std::uint32_t seen = 0;
    const auto optionalReal = [&](std::optional<double>& value, std::string_view name) {
        if (tryNull()) {
            value.reset();
            return true;
        }
        double number = 0;
        if (!parseReal(number, name, false)) {
            return false;
        }
        value = number;
        return true;
    };
    const bool ok = parseObject(kKeys, "\"occupancy\"", seen, [&](std::size_t key) {
        switch (key) {
        case 0:
            return parseReal(occupancy.theoretical, "theoretical", true);
        case 1:
            return optionalReal(occupancy.achieved, "achieved");
        case 2:
            return parseReal(occupancy.threadSlotsBusy, "thread_slots_busy", true);
        case 3:
            return parseText(occupancy.limiter, "limiter");
        case 4:
            return parseText(occupancy.explanation, "explanation");
        case 5:
            return parseUnsignedAs(occupancy.activeBlocksPerSm, "active_blocks_per_sm", kMaxU32);
        default:
            return optionalReal(occupancy.smBusyShare, "sm_busy_share");
        }
    });
    if (!ok || !requireKeys(kKeys, seen, 0b1101, start, "\"occupancy\"")) {
        return false;
    }
    out = std::move(occupancy);
    return true;
}

bool TraceReader::parseVerification(std::optional<Verification>& out) {
    if (tryNull()) {
        out.reset();
        return true;
    }
    static constexpr std::array<std::string_view, 2> kKeys{"passed", "max_abs_error"};
    const char* start = p_;
    Verification verification;
    std::uint32_t seen = 0;
    const bool ok = parseObject(kKeys, "\"verification\"", seen, [&](std::size_t key) {
        return key == 0 ? parseBool(verification.passed, "passed")
                        : parseReal(verification.maxAbsError, "max_abs_error", true);
    });
    if (!ok || !requireKeys(kKeys, seen, 0b11, start, "\"verification\"")) {
        return false;
    }
    out = verification;
    return true;
}

bool TraceReader::parseSeries(std::vector<OccupancySample>& out) {
    return parseArray("\"occupancy_series\"", [&](std::size_t) {
        OccupancySample& sample = out.emplace_back();
        if (!peekIs('[')) {
            return failHere("an \"occupancy_series\" sample must be [time_ns, value], not " +
                            describeToken());
        }
        ++p_;
        skipSpace();
        if (!parseTimestamp(sample.timeNs, "occupancy_series time") || !expect(',', "a sample")) {
            return false;
        }
        skipSpace();
        if (!parseReal(sample.value, "occupancy_series value", false)) {
            return false;
        }
        skipSpace();
        if (peekIs(',')) {
            return failHere("an \"occupancy_series\" sample must be [time_ns, value]");
        }
        return expect(']', "a sample");
    });
}

} // namespace

Result<Trace> readTraceText(std::string_view text, const ReadOptions& options) {
    return TraceReader(text, options).read();
}

} // namespace slicescope::trace
