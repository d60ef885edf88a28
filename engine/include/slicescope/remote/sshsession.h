#pragma once

// One ssh process with its three standard streams as pipes (remote/remotecommand.h builds its
// command line): this process reads its stdout line by line or as bytes, sees every stderr line
// as it comes, and ends the remote work by closing ssh's stdin (the remote script then stops its
// command: docs/remote.md). ssh ignores SIGINT and SIGQUIT, so a terminal's Ctrl+C reaches this
// process, which decides; it gets SIGTERM when this process dies.
#include "slicescope/core/result.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace slicescope::remote {

class SshSession {
  public:
    static Result<SshSession> start(const std::vector<std::string>& argv);
    SshSession(SshSession&& other) noexcept;
    SshSession& operator=(SshSession&&) = delete;
    SshSession(const SshSession&) = delete;
    // An ssh still running is killed and reaped.
    ~SshSession();

    // Called with each line ssh writes on stderr (its own messages and the remote command's).
    std::function<void(std::string_view line)> onStderrLine;
    // When set and true, the session is cancelled: stdin is closed at once, ssh gets SIGTERM
    // after cancelGrace and SIGKILL a second later if it has not ended.
    const std::atomic<bool>* cancel = nullptr;
    std::chrono::milliseconds cancelGrace{3000};

    // The next line of ssh's stdout, without its '\n'; nullopt once stdout has ended.
    std::optional<std::string> readLine();
    // Stdout handed to sink in pieces until it ends or sink returns false (what sink was given
    // is consumed either way).
    void readWhile(const std::function<bool(const char*, std::size_t)>& sink);
    // Writes to ssh's stdin; false when it is closed.
    bool write(std::string_view text);
    void closeInput();
    // Waits for ssh to end (reading and dropping what is left of stdout, passing stderr lines on)
    // and returns its exit status as a shell gives it (128 + N for signal N).
    int wait();
    bool cancelled() const { return cancelSeen_; }
    // The last stderr lines (at most 20), for describeSshFailure.
    const std::vector<std::string>& stderrTail() const { return stderrTail_; }
    pid_t pid() const { return pid_; }

  private:
    SshSession() = default;
    // Waits for data on stdout or stderr (or the cancel deadline); false once stdout has ended.
    bool fill();
    void takeStderr(bool atEnd);
    void checkCancel();
    pid_t pid_ = -1;
    int in_ = -1, out_ = -1, err_ = -1;
    std::string outBuffer_, errBuffer_;
    std::vector<std::string> stderrTail_;
    bool cancelSeen_ = false;
    std::chrono::steady_clock::time_point cancelAt_{};
    int killStage_ = 0; // 0 none, 1 SIGTERM sent, 2 SIGKILL sent
};

} // namespace slicescope::remote
