#pragma once

// A forward-only cursor over JSON text for schema-directed readers (engine-internal): the
// trace reader (tracereader.cpp) walks a document with it, filling its structs in place
// instead of building a DOM.
//
// It faces hostile text (a fuzz target runs on it, tests/fuzz/fuzz_jsoncursor.cpp): every read
// is bounds-checked, nesting is limited to kMaxDepth, nothing is allocated from a size the text
// declares, and the first problem is recorded as an Error::Code::Parse whose message starts
// "byte N" and every later call returns false. What it accepts is JSON (RFC 8259) with two
// restrictions: a key may appear only once per object, and values nest at most kMaxDepth deep.
#include "slicescope/core/result.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>

namespace slicescope::trace {

// A short, printable quotation of untrusted text for an error message.
std::string quoted(std::string_view text);
// A known field's name in quotes, for messages: "name" -> "\"name\"".
std::string field(std::string_view name);

class JsonCursor {
  public:
    // Deepest nesting accepted in any value: far beyond what a schema uses, small enough that
    // the recursive skip cannot exhaust the stack.
    static constexpr int kMaxDepth = 64;

    explicit JsonCursor(std::string_view text);

    // Called when an error is recorded, to add where the reader was beyond the byte offset,
    // e.g. " (run 3, activity 7)". Optional.
    void setContext(std::function<std::string()> context) { context_ = std::move(context); }

    const char* begin() const { return begin_; }
    const char* position() const { return p_; }
    const char* end() const { return end_; }
    bool atEnd() const { return p_ == end_; }
    // How much of the text has been read, 0..1.
    double fraction() const;

    // Errors: each records the first error only and returns false, so a parse function can
    // `return failHere(...)`.
    bool failAt(const char* at, const std::string& message);
    bool failHere(const std::string& message) { return failAt(p_, message); }
    bool failEnd(std::string_view inside);
    bool fail(Error error); // an error of another kind (Cancelled), kept as given
    const std::optional<Error>& error() const { return error_; }
    // What the next token looks like ("an object", "a number", "byte 0x01"), for messages.
    std::string describeToken() const;

    // Moves back to `at`, a position this cursor has already passed: for a reader that met a value
    // before the key that says how to read it.
    void rewindTo(const char* at) {
        if (at >= begin_ && at <= end_) {
            p_ = at;
        }
    }

    // Moves past text when the input goes on with exactly those bytes, and says so: a reader
    // that has read a whole value of that text (every check passed) knows this one without
    // reading it again, as a value ends where its own bytes say.
    bool skipIfNext(std::string_view text) {
        if (text.empty() || std::size_t(end_ - p_) < text.size() ||
            std::memcmp(p_, text.data(), text.size()) != 0) {
            return false;
        }
        p_ += text.size();
        return true;
    }

    // Skips a UTF-8 byte order mark, as some editors write one.
    void skipByteOrderMark();
    void skipSpace() {
        while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) {
            ++p_;
        }
    }
    bool peekIs(char c) const { return p_ < end_ && *p_ == c; }
    // Moves past c when it is the next byte (no space skipped).
    bool consume(char c);
    // Skips space, then requires c.
    bool expect(char c, std::string_view inside);
    // Moves past a null literal when it is next.
    bool tryNull();

    // A string; out stays valid until the next string is parsed. what names it for messages.
    bool parseString(std::string_view& out, std::string_view what);
    // A string copied into out; longer than maxBytes (after decoding) is an error.
    bool parseText(std::string& out, std::string_view name, std::size_t maxBytes);
    // Checks the JSON number grammar and moves past it; integral: no fraction, no exponent.
    bool scanNumber(bool& integral);
    // A whole number 0..max (no fraction, exponent or sign), exactly.
    bool parseUnsigned(std::uint64_t& out, std::string_view name, std::uint64_t max);
    template <typename T> bool parseUnsignedAs(T& out, std::string_view name, std::uint64_t max) {
        std::uint64_t value = 0;
        if (!parseUnsigned(value, name, max)) {
            return false;
        }
        out = T(value);
        return true;
    }
    // A whole number that fits in 64 bits, exactly.
    bool parseSigned(std::int64_t& out, std::string_view name);
    // A finite number (float or double); with nullIsNaN, null reads as NaN.
    template <typename T> bool parseReal(T& out, std::string_view name, bool nullIsNaN);
    bool parseBool(bool& out, std::string_view name);
    // Any JSON value, checked and skipped.
    bool skipValue(int depth = 0);

    // Walks an object whose keys the schema knows: onKey(index) parses the value of
    // keys[index]; seen gets one bit per key found. Unknown keys are skipped (later versions may
    // add fields old readers ignore); any key given twice is an error.
    template <std::size_t N, typename OnKey>
    bool parseObject(const std::array<std::string_view, N>& keys, std::string_view what,
                     std::uint32_t& seen, OnKey&& onKey);
    // Walks an array: onItem(index) parses each element.
    template <typename OnItem> bool parseArray(std::string_view what, OnItem&& onItem);
    // The first of keys that required has and seen lacks, as an error at objectStart.
    template <std::size_t N>
    bool requireKeys(const std::array<std::string_view, N>& keys, std::uint32_t seen,
                     std::uint32_t required, const char* objectStart, std::string_view what);

  private:
    bool parseEscapedString(const char* start, std::string_view& out);
    bool parseHex4(std::uint32_t& out);
    // After a value in an object or array: moves past ',' or the closing bracket (done).
    bool afterValue(char close, std::string_view what, bool& done);

    const char* begin_;
    const char* p_;
    const char* end_;
    std::string scratch_; // decoded text of the last string that held escapes
    std::optional<Error> error_;
    std::function<std::string()> context_;
};

template <std::size_t N, typename OnKey>
bool JsonCursor::parseObject(const std::array<std::string_view, N>& keys, std::string_view what,
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
    std::unordered_set<std::string> unknown; // allocates only when an unknown key comes
    std::size_t next = 0;
    for (bool done = false; !done;) {
        skipSpace();
        const char* keyAt = p_;
        std::string_view key;
        if (!parseString(key, "a field name")) {
            return false;
        }
        // Keys usually come in the schema's order: look from the one after the last found.
        std::size_t index = N;
        for (std::size_t i = next; i < N + next; ++i) {
            const std::size_t candidate = i < N ? i : i - N;
            if (keys[candidate] == key) {
                index = candidate;
                next = candidate + 1;
                break;
            }
        }
        if (index == N) {
            if (!unknown.emplace(key).second) {
                return failAt(keyAt, "duplicate field " + quoted(key) + " in " + std::string(what));
            }
            if (!expect(':', what) || !skipValue(0)) {
                return false;
            }
        } else {
            if ((seen >> index) & 1U) {
                return failAt(keyAt,
                              "duplicate field " + field(keys[index]) + " in " + std::string(what));
            }
            seen |= 1U << index;
            if (!expect(':', what)) {
                return false;
            }
            skipSpace();
            if (!onKey(index)) {
                return false;
            }
        }
        if (!afterValue('}', what, done)) {
            return false;
        }
    }
    return true;
}

template <typename OnItem> bool JsonCursor::parseArray(std::string_view what, OnItem&& onItem) {
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
    bool done = false;
    for (std::size_t index = 0; !done; ++index) {
        skipSpace();
        if (!onItem(index) || !afterValue(']', what, done)) {
            return false;
        }
    }
    return true;
}

template <std::size_t N>
bool JsonCursor::requireKeys(const std::array<std::string_view, N>& keys, std::uint32_t seen,
                             std::uint32_t required, const char* objectStart,
                             std::string_view what) {
    const std::uint32_t missing = required & ~seen;
    for (std::size_t i = 0; i < N; ++i) {
        if ((missing >> i) & 1U) {
            return failAt(objectStart,
                          std::string(what) + " is missing the field " + field(keys[i]));
        }
    }
    return true;
}

} // namespace slicescope::trace
