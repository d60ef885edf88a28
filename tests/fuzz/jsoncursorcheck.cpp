// checkJsonCursorInput (fuzzchecks.h): the JSON cursor against nlohmann::json, which serves as
// the reference parser. Both turn the text into a list of events (object and array bounds, keys,
// strings, numbers, literals); where both accept, the lists must be equal, so every string the
// cursor decodes and every number it reads is the same as nlohmann::json's.
#include "fuzzchecks.h"
#include "trace/jsoncursor.h" // engine-internal

#include <array>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

namespace slicescope::fuzz {

namespace {

using trace::JsonCursor;

std::string floatEvent(double value) {
    char text[64];
    std::snprintf(text, sizeof text, "f:%a", value);
    return text;
}

// nlohmann::json's events, its verdict (the id of the exception it would raise, 0: valid), the
// deepest nesting and whether an object repeated a key.
class ReferenceEvents : public nlohmann::json_sax<nlohmann::json> {
  public:
    std::vector<std::string> events;
    int verdict = 0;
    int maxDepth = 0;
    bool duplicateKey = false;

    bool null() override { return add("n"); }
    bool boolean(bool value) override { return add(value ? "b:1" : "b:0"); }
    bool number_integer(number_integer_t value) override {
        return add("i:" + std::to_string(value));
    }
    bool number_unsigned(number_unsigned_t value) override {
        return add("u:" + std::to_string(value));
    }
    bool number_float(number_float_t value, const string_t&) override {
        return add(floatEvent(value));
    }
    bool string(string_t& value) override { return add("s:" + value); }
    bool binary(binary_t&) override { return add("binary"); }
    bool start_object(std::size_t) override {
        keys_.emplace_back();
        maxDepth = std::max(maxDepth, int(keys_.size() + arrays_));
        return add("{");
    }
    bool key(string_t& value) override {
        duplicateKey = duplicateKey || !keys_.back().insert(value).second;
        return add("k:" + value);
    }
    bool end_object() override {
        keys_.pop_back();
        return add("}");
    }
    bool start_array(std::size_t) override {
        ++arrays_;
        maxDepth = std::max(maxDepth, int(keys_.size() + arrays_));
        return add("[");
    }
    bool end_array() override {
        --arrays_;
        return add("]");
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::json::exception& e) override {
        verdict = e.id;
        return false;
    }

  private:
    bool add(std::string event) {
        events.push_back(std::move(event));
        return true;
    }
    std::vector<std::set<std::string>> keys_;
    std::size_t arrays_ = 0; // arrays open (depth counts both kinds; their order does not matter)
};

// out_of_range.406: a number beyond a double, which JSON's grammar allows and the cursor skips.
constexpr int kNumberOverflow = 406;

constexpr const char* kUnderflow = "f:underflow";

// Whether the cursor's events are the reference's, a refused underflow standing for a zero.
bool sameEvents(const std::vector<std::string>& cursor, const std::vector<std::string>& reference) {
    if (cursor.size() != reference.size()) {
        return false;
    }
    for (std::size_t i = 0; i < cursor.size(); ++i) {
        const bool zero = reference[i] == floatEvent(0.0) || reference[i] == floatEvent(-0.0);
        if (cursor[i] != reference[i] && !(cursor[i] == kUnderflow && zero)) {
            return false;
        }
    }
    return true;
}

// The cursor's events for a value it accepted, through its typed reads.
bool cursorEvents(JsonCursor& c, std::vector<std::string>& events, int depth) {
    if (depth > JsonCursor::kMaxDepth) {
        return false;
    }
    c.skipSpace();
    const bool object = c.peekIs('{');
    if (object || c.peekIs('[')) {
        c.consume(object ? '{' : '[');
        events.emplace_back(object ? "{" : "[");
        const char close = object ? '}' : ']';
        c.skipSpace();
        while (!c.consume(close)) {
            if (object) {
                c.skipSpace();
                std::string_view key;
                if (!c.parseString(key, "a key") || !c.expect(':', "an object")) {
                    return false;
                }
                events.push_back("k:" + std::string(key));
            }
            if (!cursorEvents(c, events, depth + 1)) {
                return false;
            }
            c.skipSpace();
            if (!c.consume(',') && !c.peekIs(close)) {
                return false;
            }
        }
        events.emplace_back(1, close);
        return true;
    }
    if (c.peekIs('"')) {
        std::string_view text;
        if (!c.parseString(text, "a string")) {
            return false;
        }
        events.push_back("s:" + std::string(text));
        return true;
    }
    if (c.tryNull()) {
        events.emplace_back("n");
        return true;
    }
    if (c.peekIs('t') || c.peekIs('f')) {
        bool value = false;
        if (!c.parseBool(value, "a boolean")) {
            return false;
        }
        events.emplace_back(value ? "b:1" : "b:0");
        return true;
    }
    // A number: as nlohmann::json types it, read with a copy of the cursor for each try.
    JsonCursor unsignedTry = c;
    JsonCursor signedTry = c;
    JsonCursor realTry = c;
    std::uint64_t u = 0;
    std::int64_t i = 0;
    double d = 0;
    if (unsignedTry.parseUnsigned(u, "n", std::numeric_limits<std::uint64_t>::max())) {
        c = unsignedTry;
        events.push_back("u:" + std::to_string(u));
    } else if (!c.peekIs('-') || !signedTry.parseSigned(i, "n")) {
        if (realTry.parseReal(d, "n", false)) {
            c = realTry;
            events.push_back(floatEvent(d));
        } else if (realTry.error()->message.find("out of range") != std::string::npos) {
            // Below the smallest double (1e-400): the cursor refuses what nlohmann rounds to 0.
            bool integral = false;
            if (!c.scanNumber(integral)) {
                return false;
            }
            events.emplace_back(kUnderflow);
        } else {
            c = realTry;
            return false;
        }
    } else {
        c = signedTry;
        events.push_back("i:" + std::to_string(i));
    }
    return true;
}

// A cursor on data past a UTF-8 byte order mark, as the trace reader starts: nlohmann::json skips
// one at the start of its input too (a leading BOM was a false finding of the check).
JsonCursor cursorAfterByteOrderMark(std::string_view data) {
    JsonCursor cursor(data);
    cursor.skipByteOrderMark();
    return cursor;
}

bool saysWhere(const Error& error, std::size_t size) {
    if (error.code != Error::Code::Parse || error.message.rfind("byte ", 0) != 0) {
        return false;
    }
    const std::size_t offset = std::strtoull(error.message.c_str() + 5, nullptr, 10);
    return offset <= size;
}

} // namespace

std::string checkJsonCursorInput(std::string_view data) {
    JsonCursor cursor = cursorAfterByteOrderMark(data);
    bool accepted = cursor.skipValue();
    cursor.skipSpace();
    if (accepted && !cursor.atEnd()) {
        cursor.failHere("text after the value");
        accepted = false;
    }
    // A NUL byte is never JSON (not space, and not raw inside a string), but nlohmann::json
    // stops at the first one as at the end of the input, so it accepts "0" followed by NULs:
    // the cursor must refuse any text holding one, and the reference has nothing to add.
    if (data.find('\0') != std::string_view::npos) {
        if (accepted) {
            return "the cursor accepts text that holds a NUL byte";
        }
        return saysWhere(*cursor.error(), data.size())
                   ? std::string()
                   : "a rejection is not a Parse error starting \"byte N\" within the text: " +
                         cursor.error()->message;
    }
    ReferenceEvents reference;
    const bool referenceAccepts = nlohmann::json::sax_parse(data, &reference);

    if (!accepted) {
        const Error& error = *cursor.error();
        if (!saysWhere(error, data.size())) {
            return "a rejection is not a Parse error starting \"byte N\" within the text: " +
                   error.message;
        }
        if (referenceAccepts) {
            // The cursor's two restrictions on JSON, and nothing else.
            const bool tooDeep = error.message.find("nested deeper") != std::string::npos;
            const bool duplicate = error.message.find("duplicate field") != std::string::npos;
            if (!(tooDeep && reference.maxDepth > JsonCursor::kMaxDepth) &&
                !(duplicate && reference.duplicateKey)) {
                return "the cursor rejects JSON that nlohmann::json accepts: " + error.message;
            }
        }
    } else if (!referenceAccepts && reference.verdict != kNumberOverflow) {
        return "the cursor accepts text that nlohmann::json rejects (exception id " +
               std::to_string(reference.verdict) + ")";
    } else if (referenceAccepts) {
        if (reference.duplicateKey || reference.maxDepth > JsonCursor::kMaxDepth) {
            return "the cursor accepts a repeated key or nesting deeper than its limit";
        }
        JsonCursor walker = cursorAfterByteOrderMark(data);
        std::vector<std::string> events;
        if (!cursorEvents(walker, events, 0)) {
            return "the cursor's typed reads fail on a value skipValue accepted: " +
                   (walker.error() ? walker.error()->message : std::string("(no error)"));
        }
        if (!sameEvents(events, reference.events)) {
            return "the cursor reads the values differently from nlohmann::json";
        }
    }

    // parseObject must agree with skipValue on an object (keys known or not).
    JsonCursor objects = cursorAfterByteOrderMark(data);
    objects.skipSpace();
    if (objects.peekIs('{')) {
        static constexpr std::array<std::string_view, 3> kKeys{"format", "a", ""};
        std::uint32_t seen = 0;
        bool ok = objects.parseObject(kKeys, "the object", seen,
                                      [&](std::size_t) { return objects.skipValue(1); });
        objects.skipSpace();
        ok = ok && objects.atEnd();
        const bool depthOnly =
            !accepted && cursor.error()->message.find("nested deeper") != std::string::npos;
        if (ok != accepted && !depthOnly) {
            return std::string("parseObject ") + (ok ? "accepts" : "rejects") +
                   " an object skipValue " + (accepted ? "accepts" : "rejects");
        }
    }
    return {};
}

} // namespace slicescope::fuzz
