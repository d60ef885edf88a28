#include "jsontext.h"

#include <charconv>
#include <cmath>

namespace slicescope::trace {

namespace {

template <typename T> void appendChars(std::string& out, T value) {
    char text[64];
    const auto result = std::to_chars(text, text + sizeof text, value);
    out.append(text, result.ptr);
}

bool isContinuation(unsigned char c) {
    return (c & 0xC0) == 0x80;
}

} // namespace

std::size_t utf8SequenceLength(std::string_view text, std::size_t i) {
    // RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF.
    const auto at = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char c = at(i);
    const std::size_t left = text.size() - i;
    if (c < 0x80) {
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF) {
        return left >= 2 && isContinuation(at(i + 1)) ? 2 : 0;
    }
    if (c >= 0xE0 && c <= 0xEF) {
        if (left < 3 || !isContinuation(at(i + 1)) || !isContinuation(at(i + 2))) {
            return 0;
        }
        if ((c == 0xE0 && at(i + 1) < 0xA0) || (c == 0xED && at(i + 1) > 0x9F)) {
            return 0;
        }
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (left < 4 || !isContinuation(at(i + 1)) || !isContinuation(at(i + 2)) ||
            !isContinuation(at(i + 3))) {
            return 0;
        }
        if ((c == 0xF0 && at(i + 1) < 0x90) || (c == 0xF4 && at(i + 1) > 0x8F)) {
            return 0;
        }
        return 4;
    }
    return 0;
}

void appendJsonString(std::string& out, std::string_view text) {
    static constexpr char kHex[] = "0123456789abcdef";
    out.push_back('"');
    std::size_t runStart = 0; // bytes [runStart, i) need no escaping
    std::size_t i = 0;
    while (i < text.size()) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
            ++i;
            continue;
        }
        if (c >= 0x80) {
            if (const std::size_t length = utf8SequenceLength(text, i); length > 0) {
                i += length;
                continue;
            }
        }
        out.append(text.data() + runStart, i - runStart);
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        case '\b':
            out += "\\b";
            break;
        case '\f':
            out += "\\f";
            break;
        default:
            if (c < 0x20) {
                out += "\\u00";
                out.push_back(kHex[c >> 4]);
                out.push_back(kHex[c & 0xF]);
            } else {
                out += "\xEF\xBF\xBD"; // U+FFFD for a byte that starts no valid sequence
            }
        }
        ++i;
        runStart = i;
    }
    out.append(text.data() + runStart, text.size() - runStart);
    out.push_back('"');
}

void appendInteger(std::string& out, std::int64_t value) {
    appendChars(out, value);
}
void appendUnsigned(std::string& out, std::uint64_t value) {
    appendChars(out, value);
}

void appendDouble(std::string& out, double value) {
    if (!std::isfinite(value)) {
        out += "null";
        return;
    }
    appendChars(out, value);
}

void appendFloat(std::string& out, float value) {
    if (!std::isfinite(value)) {
        out += "null";
        return;
    }
    appendChars(out, value);
}

void appendMicroseconds(std::string& out, std::int64_t ns) {
    // Split in unsigned arithmetic so INT64_MIN has a magnitude too.
    const bool negative = ns < 0;
    const std::uint64_t magnitude = negative ? 0 - std::uint64_t(ns) : std::uint64_t(ns);
    if (negative) {
        out.push_back('-');
    }
    appendUnsigned(out, magnitude / 1000);
    const auto fraction = unsigned(magnitude % 1000);
    out.push_back('.');
    out.push_back(char('0' + fraction / 100));
    out.push_back(char('0' + fraction / 10 % 10));
    out.push_back(char('0' + fraction % 10));
}

} // namespace slicescope::trace
