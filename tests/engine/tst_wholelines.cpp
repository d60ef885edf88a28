// Whole lines, each in one write: what keeps a --host run's error lines from being cut by the
// remote CLI's stdout lines, which come back on the same stream.
#include "slicescope/core/wholelines.h"

#include <array>
#include <gtest/gtest.h>
#include <ostream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

using slicescope::core::WholeLineBuffer;
using slicescope::core::WholeLinesOn;

namespace {

struct Recorded {
    std::vector<std::string> writes;
    WholeLineBuffer buffer{[this](std::string_view text) { writes.emplace_back(text); }};
    std::ostream stream{&buffer};
};

std::string readAll(int fd) {
    std::string text;
    std::array<char, 256> chunk{};
    for (ssize_t n; (n = ::read(fd, chunk.data(), chunk.size())) > 0;) {
        text.append(chunk.data(), std::size_t(n));
    }
    return text;
}

} // namespace

TEST(WholeLines, ALineWrittenInPiecesIsHandedOverInOneWrite) {
    Recorded r;
    r.stream << "slicescope-cli: interrupted: " << 2 << " runs of the points finished were kept\n";
    ASSERT_EQ(r.writes.size(), 1u);
    EXPECT_EQ(r.writes[0],
              "slicescope-cli: interrupted: 2 runs of the points finished were kept\n");
}

TEST(WholeLines, APartLineWaitsForItsNewlineOrAFlush) {
    Recorded r;
    r.stream << "first\nsecond, "
             << "not ended";
    ASSERT_EQ(r.writes, std::vector<std::string>{"first\n"});
    r.stream << std::flush;
    EXPECT_EQ(r.writes, (std::vector<std::string>{"first\n", "second, not ended"}));
}

TEST(WholeLines, UnitBufferingNoLongerCutsTheStreamsLinesAndComesBackAfter) {
    std::array<int, 2> pipe{};
    ASSERT_EQ(::pipe(pipe.data()), 0);
    std::ostringstream previousTarget;
    std::ostream stream(previousTarget.rdbuf());
    stream.setf(std::ios::unitbuf); // as std::cerr is
    {
        const WholeLinesOn wholeLines(stream, pipe[1]);
        EXPECT_FALSE(stream.flags() & std::ios::unitbuf);
        stream << "error: " << 42 << " of " << 43 << '\n' << "held";
    }
    ::close(pipe[1]);
    EXPECT_EQ(readAll(pipe[0]), "error: 42 of 43\nheld"); // the held part written at the end
    ::close(pipe[0]);
    EXPECT_TRUE(stream.flags() & std::ios::unitbuf);
    stream << "after";
    EXPECT_EQ(previousTarget.str(), "after");
}
