#pragma once

// Appending JSON text to a buffer, fast enough for million-event traces and exports
// (engine-internal). Every function writes valid JSON whatever the input.
#include <cstdint>
#include <string>
#include <string_view>

namespace slicescope::trace {

// text as a quoted JSON string. Bytes that are not valid UTF-8 become U+FFFD, so the output
// is valid JSON (and UTF-8) even for a kernel name with stray bytes.
void appendJsonString(std::string& out, std::string_view text);
void appendInteger(std::string& out, std::int64_t value);
void appendUnsigned(std::string& out, std::uint64_t value);
// Shortest text that reads back to the same double; null for NaN and infinities.
void appendDouble(std::string& out, double value);
// Shortest text that reads back to the same float; null for NaN and infinities.
void appendFloat(std::string& out, float value);
// ns / 1000 with exactly three decimals ("1234.567"): microseconds with no rounding.
void appendMicroseconds(std::string& out, std::int64_t ns);

// Length of the valid UTF-8 sequence at text[i], or 0 when the bytes there are not one.
std::size_t utf8SequenceLength(std::string_view text, std::size_t i);

} // namespace slicescope::trace
