// The JSON cursor (engine/src/trace/jsoncursor.h) on its own: strings, numbers, literals,
// skipping, objects and arrays, and the errors it records.
#include "trace/jsoncursor.h"

#include <array>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <string>
#include <vector>

namespace slicescope::trace {
namespace {

// The message of the error the cursor recorded, or "" when it has none.
std::string errorOf(const JsonCursor& c) {
    return c.error() ? c.error()->message : std::string();
}

std::string decoded(std::string_view text) {
    JsonCursor c(text);
    std::string_view out;
    EXPECT_TRUE(c.parseString(out, "a string")) << errorOf(c);
    EXPECT_TRUE(c.atEnd());
    return std::string(out);
}

std::string stringError(std::string_view text) {
    JsonCursor c(text);
    std::string_view out;
    EXPECT_FALSE(c.parseString(out, "a string")) << text;
    return errorOf(c);
}

TEST(JsonCursor, DecodesStrings) {
    EXPECT_EQ(decoded(R"("plain")"), "plain");
    EXPECT_EQ(decoded(R"("")"), "");
    EXPECT_EQ(decoded(R"("\" \\ \/ \b \f \n \r \t")"), "\" \\ / \b \f \n \r \t");
    EXPECT_EQ(decoded(R"("\u00e9\u20AC")"), "\xC3\xA9\xE2\x82\xAC");
    EXPECT_EQ(decoded(R"("\ud83d\ude80")"), "\xF0\x9F\x9A\x80"); // a surrogate pair
    EXPECT_EQ(decoded(R"("a\u0000b")"), std::string("a\0b", 3));
    EXPECT_EQ(decoded("\"caf\xC3\xA9\""), "caf\xC3\xA9"); // raw UTF-8 is kept
}

TEST(JsonCursor, RejectsBrokenStringsSayingWhy) {
    EXPECT_NE(stringError("\"tab\there\"").find("control character"), std::string::npos);
    EXPECT_NE(stringError("\"bad \xFF byte\"").find("invalid UTF-8"), std::string::npos);
    EXPECT_NE(stringError("\"overlong \xC0\xAF\"").find("invalid UTF-8"), std::string::npos);
    EXPECT_NE(stringError(R"("\x")").find("invalid escape"), std::string::npos);
    EXPECT_NE(stringError(R"("\u12")").find("\\u escape"), std::string::npos);
    EXPECT_NE(stringError(R"("\u12G4")").find("four hex digits"), std::string::npos);
    EXPECT_NE(stringError(R"("\udc00")").find("lone low surrogate"), std::string::npos);
    EXPECT_NE(stringError(R"("\ud83d")").find("low surrogate"), std::string::npos);
    EXPECT_NE(stringError(R"("\ud83d\u0041")").find("low surrogate"), std::string::npos);
    EXPECT_NE(stringError(R"("open)").find("truncated"), std::string::npos);
    EXPECT_NE(stringError(R"("escaped\)").find("truncated"), std::string::npos);
    EXPECT_NE(stringError("42").find("must be a string, not a number"), std::string::npos);
}

TEST(JsonCursor, AnEscapedStringStaysValidUntilTheNextString) {
    JsonCursor c(R"("first\n" "second\t")");
    std::string_view first;
    ASSERT_TRUE(c.parseString(first, "a"));
    EXPECT_EQ(first, "first\n");
    c.skipSpace();
    std::string_view second;
    ASSERT_TRUE(c.parseString(second, "b"));
    EXPECT_EQ(second, "second\t");
}

TEST(JsonCursor, ParseTextCopiesAndRefusesTooLongText) {
    std::string out;
    JsonCursor fits(R"("abcd")");
    ASSERT_TRUE(fits.parseText(out, "name", 4));
    EXPECT_EQ(out, "abcd");
    JsonCursor tooLong(R"("abcde")");
    EXPECT_FALSE(tooLong.parseText(out, "name", 4));
    EXPECT_NE(errorOf(tooLong).find("\"name\" is 5 bytes long, more than the 4"), std::string::npos)
        << errorOf(tooLong);
    // The limit is on the decoded bytes: "\u00e9" is two.
    JsonCursor escaped(R"("\u00e9\u00e9\u00e9")");
    EXPECT_FALSE(escaped.parseText(out, "name", 5));
}

struct NumberCase {
    const char* text;
    bool valid;
    bool integral;
};

TEST(JsonCursor, ScansTheJsonNumberGrammar) {
    const NumberCase cases[] = {
        {"0", true, true},    {"-0", true, true},    {"12", true, true},    {"-12", true, true},
        {"0.5", true, false}, {"1e3", true, false},  {"1E+3", true, false}, {"2.5e-7", true, false},
        {"01", false, false}, {"-", false, false},   {"1.", false, false},  {".5", false, false},
        {"1e", false, false}, {"1e+", false, false}, {"-a", false, false},  {"+1", false, false},
    };
    for (const auto& [text, valid, integral] : cases) {
        SCOPED_TRACE(text);
        JsonCursor c(text);
        bool isIntegral = false;
        const bool scanned = c.scanNumber(isIntegral);
        EXPECT_EQ(scanned && c.atEnd(), valid) << errorOf(c);
        if (valid) {
            EXPECT_EQ(isIntegral, integral);
        }
    }
}

TEST(JsonCursor, ReadsUnsignedIntegersExactlyAndChecksTheRange) {
    constexpr auto kMaxU64 = std::numeric_limits<std::uint64_t>::max();
    std::uint64_t value = 0;
    JsonCursor largest("18446744073709551615");
    ASSERT_TRUE(largest.parseUnsigned(value, "n", kMaxU64)) << errorOf(largest);
    EXPECT_EQ(value, kMaxU64);
    JsonCursor exact("9007199254740993"); // 2^53 + 1: no double holds it
    ASSERT_TRUE(exact.parseUnsigned(value, "n", kMaxU64));
    EXPECT_EQ(value, 9007199254740993ULL);

    const std::pair<const char*, const char*> rejected[] = {
        {"18446744073709551616", "too large"}, {"256", "too large (at most 255)"},
        {"-1", "whole number >= 0"},           {"1.0", "whole number >= 0"},
        {"1e2", "whole number >= 0"},          {"\"7\"", "must be a whole number, not a string"},
    };
    for (const auto& [text, expected] : rejected) {
        SCOPED_TRACE(text);
        JsonCursor c(text);
        EXPECT_FALSE(c.parseUnsigned(value, "n", 255));
        EXPECT_NE(errorOf(c).find(expected), std::string::npos) << errorOf(c);
        EXPECT_NE(errorOf(c).find("\"n\""), std::string::npos) << "names the field";
    }
}

TEST(JsonCursor, ReadsSignedIntegersExactly) {
    std::int64_t value = 0;
    JsonCursor lowest("-9223372036854775808");
    ASSERT_TRUE(lowest.parseSigned(value, "n"));
    EXPECT_EQ(value, std::numeric_limits<std::int64_t>::min());
    JsonCursor highest("9223372036854775807");
    ASSERT_TRUE(highest.parseSigned(value, "n"));
    EXPECT_EQ(value, std::numeric_limits<std::int64_t>::max());
    for (const char* text : {"9223372036854775808", "-9223372036854775809"}) {
        JsonCursor c(text);
        EXPECT_FALSE(c.parseSigned(value, "n")) << text;
        EXPECT_NE(errorOf(c).find("does not fit in 64 bits"), std::string::npos);
    }
    JsonCursor fraction("-1.5");
    EXPECT_FALSE(fraction.parseSigned(value, "n"));
}

TEST(JsonCursor, ReadsRealsAndRefusesWhatTheTypeCannotHold) {
    double d = 0;
    JsonCursor tiny("5e-324");
    ASSERT_TRUE(tiny.parseReal(d, "x", false));
    EXPECT_EQ(d, 5e-324);
    JsonCursor integer("-3");
    ASSERT_TRUE(integer.parseReal(d, "x", false));
    EXPECT_EQ(d, -3.0);
    JsonCursor beyondDouble("1e309");
    EXPECT_FALSE(beyondDouble.parseReal(d, "x", false));
    EXPECT_NE(errorOf(beyondDouble).find("out of range"), std::string::npos);

    float f = 0;
    JsonCursor beyondFloat("3.5e38");
    EXPECT_FALSE(beyondFloat.parseReal(f, "x", false));
    JsonCursor nullAsNaN("null");
    ASSERT_TRUE(nullAsNaN.parseReal(f, "x", true));
    EXPECT_TRUE(std::isnan(f));
    JsonCursor nullRefused("null");
    EXPECT_FALSE(nullRefused.parseReal(f, "x", false));
    EXPECT_NE(errorOf(nullRefused).find("must be a number, not null"), std::string::npos);
}

TEST(JsonCursor, ReadsLiterals) {
    bool b = false;
    JsonCursor yes("true");
    ASSERT_TRUE(yes.parseBool(b, "flag"));
    EXPECT_TRUE(b);
    JsonCursor no("false");
    ASSERT_TRUE(no.parseBool(b, "flag"));
    EXPECT_FALSE(b);
    JsonCursor truncated("tru");
    EXPECT_FALSE(truncated.parseBool(b, "flag"));
    JsonCursor null("null");
    EXPECT_TRUE(null.tryNull());
    EXPECT_TRUE(null.atEnd());
    JsonCursor notNull("nul");
    EXPECT_FALSE(notNull.tryNull());
    EXPECT_FALSE(notNull.error()) << "tryNull only looks";
}

bool skips(std::string_view text) {
    JsonCursor c(text);
    if (!c.skipValue()) {
        return false;
    }
    c.skipSpace();
    return c.atEnd();
}

TEST(JsonCursor, SkipsAnyValueAndRejectsMalformedOnes) {
    EXPECT_TRUE(skips(R"({"a": [1, -2.5e3, "x", true, false, null, {}, []], "b": {"c": {}}})"));
    EXPECT_TRUE(skips(" \n\t[ ]\r\n"));
    EXPECT_TRUE(skips("1e99999")) << "JSON's grammar leaves the range to the reader";
    for (const char* bad : {"", "[1, 2,]", "{\"a\" 1}", "{\"a\": 1,}", "{1: 2}", "[1 2]", "nul",
                            "tru", "[", "{\"a\":", "'x'", "[1]]"}) {
        EXPECT_FALSE(skips(bad)) << bad;
    }
}

std::string nested(int depth) {
    return std::string(std::size_t(depth), '[') + std::string(std::size_t(depth), ']');
}

TEST(JsonCursor, LimitsNesting) {
    EXPECT_TRUE(skips(nested(JsonCursor::kMaxDepth)));
    const std::string deeper = nested(JsonCursor::kMaxDepth + 1);
    JsonCursor tooDeep(deeper); // the cursor reads the text in place: it must outlive it
    EXPECT_FALSE(tooDeep.skipValue());
    EXPECT_NE(errorOf(tooDeep).find("nested deeper than 64"), std::string::npos);
    // Far deeper input fails at the limit rather than exhausting the stack.
    const std::string deep(1'000'000, '[');
    JsonCursor veryDeep(deep);
    EXPECT_FALSE(veryDeep.skipValue());
    EXPECT_EQ(errorOf(veryDeep).rfind("byte 64:", 0), 0U) << errorOf(veryDeep);
}

TEST(JsonCursor, RejectsAKeyGivenTwiceInAnyObject) {
    JsonCursor twice(R"({"a": 1, "b": 2, "a": 3})");
    EXPECT_FALSE(twice.skipValue());
    EXPECT_EQ(errorOf(twice), R"(byte 17: duplicate field "a" in an object)");
    EXPECT_FALSE(skips(R"([{"x": {"k": 1, "k": 1}}])"));
    // Escapes are decoded before keys are compared.
    EXPECT_FALSE(skips(R"({"key": 1, "k\u0065y": 2})"));
    EXPECT_TRUE(skips(R"({"a": {"a": {"a": 1}}, "b": [{"a": 1}, {"a": 2}]})"))
        << "the same key in different objects is fine";
}

// skipIfNext: the trace reader matches a device text it read before, byte for byte.
TEST(JsonCursor, SkipIfNextMovesPastExactlyTheSameBytesOnly) {
    const std::string text = R"({"a": 1} {"a": 1} {"a": 2} {"a")";
    JsonCursor c(text);
    const std::string_view first(text.data(), 8);
    ASSERT_TRUE(c.skipValue());
    EXPECT_EQ(c.position(), text.data() + 8);
    c.skipSpace();
    EXPECT_TRUE(c.skipIfNext(first)); // the same object again
    EXPECT_EQ(c.position(), text.data() + 17);
    c.skipSpace();
    EXPECT_FALSE(c.skipIfNext(first)); // another value: not moved
    EXPECT_EQ(c.position(), text.data() + 18);
    ASSERT_TRUE(c.skipValue());
    c.skipSpace();
    EXPECT_FALSE(c.skipIfNext(first)); // the input ends before the text does
    EXPECT_FALSE(c.skipIfNext({}));    // nothing to match
    EXPECT_EQ(c.position(), text.data() + 27);
    EXPECT_FALSE(c.error());
}

constexpr std::array<std::string_view, 3> kKeys{"id", "size", "tags"};

TEST(JsonCursor, ParseObjectDispatchesKnownKeysAndSkipsUnknownOnes) {
    JsonCursor c(R"({"size": 7, "later": {"x": [1]}, "id": "r\u00e9"})");
    std::uint32_t seen = 0;
    std::string id;
    std::uint64_t size = 0;
    ASSERT_TRUE(c.parseObject(kKeys, "the object", seen, [&](std::size_t key) {
        return key == 0 ? c.parseText(id, "id", 100) : c.parseUnsigned(size, "size", 100);
    })) << errorOf(c);
    EXPECT_EQ(seen, 0b011U);
    EXPECT_EQ(id, "r\xC3\xA9");
    EXPECT_EQ(size, 7U);
    EXPECT_TRUE(c.atEnd());
    EXPECT_TRUE(c.requireKeys(kKeys, seen, 0b011, c.begin(), "the object"));
    EXPECT_FALSE(c.requireKeys(kKeys, seen, 0b100, c.begin(), "the object"));
    EXPECT_EQ(errorOf(c), R"(byte 0: the object is missing the field "tags")");
}

std::string objectError(std::string_view text) {
    JsonCursor c(text);
    std::uint32_t seen = 0;
    EXPECT_FALSE(c.parseObject(kKeys, "the object", seen, [&](std::size_t) {
        return c.skipValue();
    })) << text;
    return errorOf(c);
}

TEST(JsonCursor, ParseObjectRejectsRepeatedKeysKnownOrNot) {
    EXPECT_EQ(objectError(R"({"id": 1, "id": 2})"),
              R"(byte 10: duplicate field "id" in the object)");
    EXPECT_EQ(objectError(R"({"x": 1, "x": 2})"), R"(byte 9: duplicate field "x" in the object)");
    EXPECT_NE(objectError(R"([1])").find("the object must be an object, not an array"),
              std::string::npos);
    EXPECT_NE(objectError(R"({"id": 1)").find("truncated"), std::string::npos);
    EXPECT_NE(objectError(R"({"id": 1 "size": 2})").find("expected ',' or '}' in the object"),
              std::string::npos);
}

TEST(JsonCursor, ParseArrayWalksItems) {
    JsonCursor c(R"([ 3, 1 ,4 ])");
    std::vector<std::uint64_t> items;
    ASSERT_TRUE(c.parseArray("the list", [&](std::size_t index) {
        EXPECT_EQ(index, items.size());
        return c.parseUnsigned(items.emplace_back(), "item", 10);
    }));
    EXPECT_EQ(items, (std::vector<std::uint64_t>{3, 1, 4}));
    JsonCursor empty("[]");
    EXPECT_TRUE(empty.parseArray("the list", [](std::size_t) { return false; }));
    JsonCursor trailing("[1,]");
    EXPECT_FALSE(
        trailing.parseArray("the list", [&](std::size_t) { return trailing.skipValue(); }));
    JsonCursor notArray("{}");
    EXPECT_FALSE(notArray.parseArray("the list", [](std::size_t) { return true; }));
    EXPECT_NE(errorOf(notArray).find("the list must be an array, not an object"),
              std::string::npos);
}

TEST(JsonCursor, KeepsTheFirstErrorWithItsContext) {
    JsonCursor c("  x");
    int calls = 0;
    c.setContext([&calls] {
        ++calls;
        return std::string(" (run 2)");
    });
    c.skipSpace();
    EXPECT_FALSE(c.failHere("first"));
    EXPECT_FALSE(c.failAt(c.begin(), "second"));
    EXPECT_FALSE(c.fail(Error{Error::Code::Cancelled, "third"}));
    ASSERT_TRUE(c.error());
    EXPECT_EQ(c.error()->code, Error::Code::Parse);
    EXPECT_EQ(c.error()->message, "byte 2 (run 2): first");
    EXPECT_EQ(calls, 1) << "the context is asked for only when an error is kept";

    JsonCursor cancelled("{}");
    EXPECT_FALSE(cancelled.fail(Error{Error::Code::Cancelled, "stopped"}));
    EXPECT_EQ(cancelled.error()->code, Error::Code::Cancelled);
    EXPECT_EQ(cancelled.error()->message, "stopped");
}

TEST(JsonCursor, DescribesTheNextToken) {
    const std::pair<const char*, const char*> cases[] = {
        {"{", "an object"}, {"[", "an array"},     {"\"", "a string"},
        {"t", "a boolean"}, {"n", "null"},         {"-", "a number"},
        {"x", "'x'"},       {"\x01", "byte 0x01"}, {"", "the end of the file"},
    };
    for (const auto& [text, expected] : cases) {
        EXPECT_EQ(JsonCursor(text).describeToken(), expected) << text;
    }
}

TEST(JsonCursor, SkipsAByteOrderMarkAndReportsHowFarItRead) {
    JsonCursor c("\xEF\xBB\xBF{}");
    EXPECT_EQ(c.fraction(), 0.0);
    c.skipByteOrderMark();
    EXPECT_TRUE(c.peekIs('{'));
    ASSERT_TRUE(c.skipValue());
    EXPECT_EQ(c.fraction(), 1.0);
    JsonCursor notFirst(" \xEF\xBB\xBF");
    notFirst.skipSpace();
    notFirst.skipByteOrderMark();
    EXPECT_FALSE(notFirst.atEnd()) << "only at the start of the text";
}

} // namespace
} // namespace slicescope::trace
