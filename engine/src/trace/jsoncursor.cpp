// The JSON cursor (jsoncursor.h): strings, numbers, literals and skipping, bounds-checked.
#include "jsoncursor.h"

#include "jsontext.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

namespace slicescope::trace {

namespace {

constexpr std::uint64_t kMaxU64 = std::numeric_limits<std::uint64_t>::max();

bool isDigit(char c) {
    return c >= '0' && c <= '9';
}

} // namespace

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

JsonCursor::JsonCursor(std::string_view text)
    : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()) {}

double JsonCursor::fraction() const {
    return end_ > begin_ ? double(p_ - begin_) / double(end_ - begin_) : 1.0;
}

bool JsonCursor::failAt(const char* at, const std::string& message) {
    if (!error_) {
        std::string where = "byte " + std::to_string(at - begin_);
        if (context_) {
            where += context_();
        }
        error_ = Error{Error::Code::Parse, where + ": " + message};
    }
    return false;
}

bool JsonCursor::failEnd(std::string_view inside) {
    return failAt(end_, "unexpected end of file inside " + std::string(inside) +
                            " (the file is truncated)");
}

bool JsonCursor::fail(Error error) {
    if (!error_) {
        error_ = std::move(error);
    }
    return false;
}

void JsonCursor::skipByteOrderMark() {
    if (p_ == begin_ && end_ - p_ >= 3 && std::memcmp(p_, "\xEF\xBB\xBF", 3) == 0) {
        p_ += 3;
    }
}

bool JsonCursor::consume(char c) {
    if (!peekIs(c)) {
        return false;
    }
    ++p_;
    return true;
}

bool JsonCursor::expect(char c, std::string_view inside) {
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

bool JsonCursor::tryNull() {
    if (end_ - p_ >= 4 && std::memcmp(p_, "null", 4) == 0) {
        p_ += 4;
        return true;
    }
    return false;
}

bool JsonCursor::parseBool(bool& out, std::string_view name) {
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

bool JsonCursor::parseText(std::string& out, std::string_view name, std::size_t maxBytes) {
    const char* start = p_;
    std::string_view text;
    if (!parseString(text, field(name))) {
        return false;
    }
    if (text.size() > maxBytes) {
        return failAt(start, field(name) + " is " + std::to_string(text.size()) +
                                 " bytes long, more than the " + std::to_string(maxBytes) +
                                 " it may have");
    }
    out.assign(text);
    return true;
}

bool JsonCursor::afterValue(char close, std::string_view what, bool& done) {
    skipSpace();
    if (p_ == end_) {
        return failEnd(what);
    }
    if (*p_ == ',') {
        ++p_;
        return true;
    }
    if (*p_ == close) {
        ++p_;
        done = true;
        return true;
    }
    return failHere(std::string("expected ',' or '") + close + "' in " + std::string(what) +
                    ", found " + describeToken());
}

std::string JsonCursor::describeToken() const {
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

bool JsonCursor::parseString(std::string_view& out, std::string_view what) {
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

bool JsonCursor::parseHex4(std::uint32_t& out) {
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

bool JsonCursor::parseEscapedString(const char* start, std::string_view& out) {
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

bool JsonCursor::scanNumber(bool& integral) {
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

bool JsonCursor::parseUnsigned(std::uint64_t& out, std::string_view name, std::uint64_t max) {
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

bool JsonCursor::parseSigned(std::int64_t& out, std::string_view name) {
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

template <typename T> bool JsonCursor::parseReal(T& out, std::string_view name, bool nullIsNaN) {
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

bool JsonCursor::skipValue(int depth) {
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
        std::unordered_set<std::string> keys; // allocates only for an object with keys
        for (bool done = false; !done;) {
            if (c == '{') {
                skipSpace();
                const char* keyAt = p_;
                std::string_view key;
                if (!parseString(key, "an object key")) {
                    return false;
                }
                if (!keys.emplace(key).second) {
                    return failAt(keyAt, "duplicate field " + quoted(key) + " in an object");
                }
                if (!expect(':', inside)) {
                    return false;
                }
            }
            if (!skipValue(depth + 1) || !afterValue(close, inside, done)) {
                return false;
            }
        }
        return true;
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

template bool JsonCursor::parseReal<float>(float&, std::string_view, bool);
template bool JsonCursor::parseReal<double>(double&, std::string_view, bool);

} // namespace slicescope::trace
