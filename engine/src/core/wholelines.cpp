#include "slicescope/core/wholelines.h"

#include <cerrno>
#include <ostream>
#include <unistd.h>

namespace slicescope::core {

WholeLineBuffer::WholeLineBuffer(Sink sink) : sink_(std::move(sink)) {}

WholeLineBuffer::~WholeLineBuffer() {
    sync();
}

WholeLineBuffer::Sink WholeLineBuffer::fileDescriptorSink(int fd) {
    return [fd](std::string_view text) {
        while (!text.empty()) {
            const ssize_t written = ::write(fd, text.data(), text.size());
            if (written < 0 && errno == EINTR) {
                continue;
            }
            if (written <= 0) {
                return;
            }
            text.remove_prefix(std::size_t(written));
        }
    };
}

WholeLineBuffer::int_type WholeLineBuffer::overflow(int_type c) {
    if (traits_type::eq_int_type(c, traits_type::eof())) {
        return traits_type::not_eof(c);
    }
    const char ch = traits_type::to_char_type(c);
    xsputn(&ch, 1);
    return c;
}

std::streamsize WholeLineBuffer::xsputn(const char* text, std::streamsize count) {
    const std::lock_guard lock(mutex_);
    held_.append(text, std::size_t(count));
    handOverWholeLines();
    return count;
}

int WholeLineBuffer::sync() {
    const std::lock_guard lock(mutex_);
    if (!held_.empty()) {
        sink_(held_);
        held_.clear();
    }
    return 0;
}

void WholeLineBuffer::handOverWholeLines() {
    const auto lastNewline = held_.rfind('\n');
    if (lastNewline == std::string::npos) {
        return;
    }
    sink_(std::string_view(held_).substr(0, lastNewline + 1));
    held_.erase(0, lastNewline + 1);
}

WholeLinesOn::WholeLinesOn(std::ostream& stream, int fd)
    : stream_(stream), buffer_(WholeLineBuffer::fileDescriptorSink(fd)),
      previous_(stream.rdbuf(&buffer_)),
      wasUnitBuffered_((stream.flags() & std::ios::unitbuf) != 0) {
    stream_.unsetf(std::ios::unitbuf);
}

WholeLinesOn::~WholeLinesOn() {
    stream_.flush();
    stream_.rdbuf(previous_);
    if (wasUnitBuffered_) {
        stream_.setf(std::ios::unitbuf);
    }
}

} // namespace slicescope::core
