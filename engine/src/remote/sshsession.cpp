#include "slicescope/remote/sshsession.h"

#include "slicescope/record/childprocess.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>

namespace slicescope::remote {

namespace {

constexpr std::size_t kTailLines = 20;
constexpr int kPollMs = 50; // how soon a cancel set by a signal handler is seen
constexpr int kPipeBytes = 1 << 20;

void closeFd(int& fd) {
    if (fd >= 0) {
        ::close(fd);
        fd = -1;
    }
}

} // namespace

Result<SshSession> SshSession::start(const std::vector<std::string>& argv) {
    int in[2], out[2], err[2];
    if (::pipe2(in, O_CLOEXEC) != 0) {
        return fail(Error::Code::Io, std::string("pipe2: ") + std::strerror(errno));
    }
    if (::pipe2(out, O_CLOEXEC) != 0) {
        ::close(in[0]);
        ::close(in[1]);
        return fail(Error::Code::Io, std::string("pipe2: ") + std::strerror(errno));
    }
    if (::pipe2(err, O_CLOEXEC) != 0) {
        for (int fd : {in[0], in[1], out[0], out[1]}) {
            ::close(fd);
        }
        return fail(Error::Code::Io, std::string("pipe2: ") + std::strerror(errno));
    }
    // A trace of hundreds of MiB comes this way: a 1 MiB pipe lets ssh hand it over in fewer,
    // larger pieces (the kernel keeps its default where it does not allow this size).
    ::fcntl(out[0], F_SETPIPE_SZ, kPipeBytes);
    record::ChildSpec spec;
    spec.argv = argv;
    spec.stdinFd = in[0];
    spec.stdoutFd = out[1];
    spec.stderrFd = err[1];
    spec.endWithParent = true;
    // A terminal's Ctrl+C is for this process: it closes ssh's stdin, so that what the remote
    // command finished still comes back. ssh keeps an ignored SIGINT ignored.
    spec.interruptAction.sa_handler = SIG_IGN;
    spec.quitAction.sa_handler = SIG_IGN;
    auto child = record::ChildProcess::start(spec);
    ::close(in[0]);
    ::close(out[1]);
    ::close(err[1]);
    if (!child) {
        ::close(in[1]);
        ::close(out[0]);
        ::close(err[0]);
        return fail(Error::Code::Unsupported, child.error().message +
                                                  " (SSH needs OpenSSH's ssh client; set "
                                                  "SLICESCOPE_SSH to use another program)");
    }
    SshSession session;
    session.pid_ = child->release();
    session.in_ = in[1];
    session.out_ = out[0];
    session.err_ = err[0];
    return session;
}

SshSession::SshSession(SshSession&& other) noexcept
    : onStderrLine(std::move(other.onStderrLine)), cancel(other.cancel),
      cancelGrace(other.cancelGrace), pid_(std::exchange(other.pid_, -1)),
      in_(std::exchange(other.in_, -1)), out_(std::exchange(other.out_, -1)),
      err_(std::exchange(other.err_, -1)), outBuffer_(std::move(other.outBuffer_)),
      errBuffer_(std::move(other.errBuffer_)), stderrTail_(std::move(other.stderrTail_)),
      cancelSeen_(other.cancelSeen_), cancelAt_(other.cancelAt_), killStage_(other.killStage_) {}

SshSession::~SshSession() {
    closeFd(in_);
    closeFd(out_);
    closeFd(err_);
    if (pid_ > 0) {
        ::kill(pid_, SIGKILL);
        while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
        }
    }
}

void SshSession::checkCancel() {
    if (cancel == nullptr || !cancel->load()) {
        return;
    }
    const auto now = std::chrono::steady_clock::now();
    if (!cancelSeen_) {
        cancelSeen_ = true;
        cancelAt_ = now;
        closeInput(); // the remote script stops its command when its stdin ends
        return;
    }
    if (pid_ <= 0) {
        return;
    }
    if (killStage_ == 0 && now - cancelAt_ >= cancelGrace) {
        ::kill(pid_, SIGTERM);
        killStage_ = 1;
    } else if (killStage_ == 1 && now - cancelAt_ >= cancelGrace + std::chrono::seconds(1)) {
        ::kill(pid_, SIGKILL);
        killStage_ = 2;
    }
}

void SshSession::takeStderr(bool atEnd) {
    std::size_t start = 0;
    for (std::size_t nl; (nl = errBuffer_.find('\n', start)) != std::string::npos; start = nl + 1) {
        std::string line = errBuffer_.substr(start, nl - start);
        if (!line.empty() && line.back() == '\r') {
            line.pop_back();
        }
        if (onStderrLine) {
            onStderrLine(line);
        }
        stderrTail_.push_back(std::move(line));
        if (stderrTail_.size() > kTailLines) {
            stderrTail_.erase(stderrTail_.begin());
        }
    }
    errBuffer_.erase(0, start);
    if (atEnd && !errBuffer_.empty()) {
        errBuffer_ += '\n';
        takeStderr(false);
    }
}

bool SshSession::fill() {
    while (out_ >= 0) {
        checkCancel();
        pollfd fds[2] = {{out_, POLLIN, 0}, {err_, POLLIN, 0}};
        const int ready = ::poll(fds, err_ >= 0 ? 2 : 1, kPollMs);
        if (ready < 0 && errno != EINTR) {
            return false;
        }
        char buffer[65536];
        if (err_ >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
            const ssize_t n = ::read(err_, buffer, sizeof buffer);
            if (n > 0) {
                errBuffer_.append(buffer, std::size_t(n));
                takeStderr(false);
            } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
                takeStderr(true);
                closeFd(err_);
            }
        }
        if ((fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
            const ssize_t n = ::read(out_, buffer, sizeof buffer);
            if (n > 0) {
                outBuffer_.append(buffer, std::size_t(n));
                return true;
            }
            if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
                closeFd(out_);
            }
        }
    }
    return false;
}

std::optional<std::string> SshSession::readLine() {
    for (;;) {
        if (const auto nl = outBuffer_.find('\n'); nl != std::string::npos) {
            std::string line = outBuffer_.substr(0, nl);
            outBuffer_.erase(0, nl + 1);
            return line;
        }
        if (!fill()) {
            if (outBuffer_.empty()) {
                return std::nullopt;
            }
            return std::exchange(outBuffer_, std::string());
        }
    }
}

void SshSession::readWhile(const std::function<bool(const char*, std::size_t)>& sink) {
    while (!outBuffer_.empty() || fill()) {
        const std::string piece = std::exchange(outBuffer_, std::string());
        if (!sink(piece.data(), piece.size())) {
            return;
        }
    }
}

bool SshSession::write(std::string_view text) {
    while (in_ >= 0 && !text.empty()) {
        const ssize_t n = ::write(in_, text.data(), text.size());
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            closeFd(in_); // ssh has gone (EPIPE: this process ignores SIGPIPE while it runs)
            return false;
        }
        text.remove_prefix(std::size_t(n));
    }
    return in_ >= 0;
}

void SshSession::closeInput() {
    closeFd(in_);
}

int SshSession::wait() {
    outBuffer_.clear();
    while (fill()) {
        outBuffer_.clear();
    }
    while (err_ >= 0) { // stderr may outlive stdout by a moment
        pollfd fd{err_, POLLIN, 0};
        if (::poll(&fd, 1, 1000) <= 0) {
            break;
        }
        char buffer[4096];
        const ssize_t n = ::read(err_, buffer, sizeof buffer);
        if (n <= 0) {
            takeStderr(true);
            closeFd(err_);
        } else {
            errBuffer_.append(buffer, std::size_t(n));
            takeStderr(false);
        }
    }
    closeInput();
    int status = 0;
    while (pid_ > 0) {
        const pid_t r = ::waitpid(pid_, &status, WNOHANG);
        if (r == pid_ || (r < 0 && errno != EINTR)) {
            pid_ = -1;
            break;
        }
        checkCancel();
        ::usleep(20'000);
    }
    return record::shellExitStatus(status);
}

} // namespace slicescope::remote
