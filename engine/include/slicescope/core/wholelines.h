#pragma once

// Whole lines, each in one write. `--host` runs the CLI under a remote script that passes the CLI's
// stdout back on the session's stderr, line by line, beside the CLI's own stderr: an error written
// in pieces ("slicescope-cli: interrupted: ", "2", " runs ... kept\n", one write(2) each through
// std::cerr's unit buffering) could be cut by a stdout line landing between its pieces. A line
// given to one write(2) of at most PIPE_BUF bytes cannot be cut.

#include <functional>
#include <iosfwd>
#include <mutex>
#include <streambuf>
#include <string>
#include <string_view>

namespace slicescope::core {

// Holds what is written until a newline ends it, then hands the sink every whole line it holds in
// one call; a flush hands over what is held, whole or not. Safe to write from several threads (the
// multi-GPU sweep's), though their pieces may then share a line.
class WholeLineBuffer : public std::streambuf {
  public:
    using Sink = std::function<void(std::string_view)>;

    explicit WholeLineBuffer(Sink sink);
    ~WholeLineBuffer() override;

    WholeLineBuffer(const WholeLineBuffer&) = delete;
    WholeLineBuffer& operator=(const WholeLineBuffer&) = delete;

    // A sink writing to fd, retrying short writes and EINTR; write errors are dropped (there is
    // nowhere left to report them).
    static Sink fileDescriptorSink(int fd);

  protected:
    int_type overflow(int_type c) override;
    std::streamsize xsputn(const char* text, std::streamsize count) override;
    int sync() override;

  private:
    void handOverWholeLines();

    Sink sink_;
    std::mutex mutex_;
    std::string held_;
};

// While alive, `stream` writes through a WholeLineBuffer into fd, without its unit buffering (which
// would flush, and so cut, after every insertion); the stream's own buffer and flags come back at
// the end, after what is held has been written.
class WholeLinesOn {
  public:
    WholeLinesOn(std::ostream& stream, int fd);
    ~WholeLinesOn();

    WholeLinesOn(const WholeLinesOn&) = delete;
    WholeLinesOn& operator=(const WholeLinesOn&) = delete;

  private:
    std::ostream& stream_;
    WholeLineBuffer buffer_;
    std::streambuf* previous_;
    bool wasUnitBuffered_;
};

} // namespace slicescope::core
