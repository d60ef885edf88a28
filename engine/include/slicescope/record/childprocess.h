#pragma once

// A child process, the one way SliceScope starts programs: the recorded program (with its own
// environment and working directory, standard streams inherited or /dev/null for the counting
// run, told to end when the recorder dies: SIGTERM, which the injection library turns into a
// final flush), the CLI's GPU worker (itself again, its stdout a pipe) and the benchmark's CLI
// runs. A start that fails is reported like a shell reports a command: 127 when it is not found,
// 126 when it cannot be executed; an end, 128 + N when signal N killed it.

#include <filesystem>
#include <optional>
#include <signal.h>
#include <string>
#include <sys/types.h>
#include <tl/expected.hpp>
#include <vector>

namespace slicescope::record {

struct ChildSpec {
    // The program is `program`, or argv[0] when that is empty: a path when it holds a slash, else
    // looked up in the PATH of `environment`.
    std::vector<std::string> argv;
    std::string program;
    std::filesystem::path workingDirectory; // empty: this process's
    // The complete environment, NAME=VALUE; absent: this process's.
    std::optional<std::vector<std::string>> environment;
    bool silent = false; // stdin from, stdout and stderr to /dev/null
    int stdoutFd = -1;   // when >= 0 (and not silent), the child's stdout
    // SIGTERM to the child when this process ends, however it ends (PR_SET_PDEATHSIG).
    bool endWithParent = true;
    // Signal dispositions the child restores before exec (the recorder ignores SIGINT and
    // SIGQUIT while it waits, as system() does).
    struct sigaction interruptAction {};
    struct sigaction quitAction {};
};

struct StartFailure {
    int exitStatus = 127; // as a shell would exit
    std::string message;
};

class ChildProcess {
  public:
    static tl::expected<ChildProcess, StartFailure> start(const ChildSpec& spec);
    ChildProcess(ChildProcess&& other) noexcept : pid_(other.pid_) { other.pid_ = -1; }
    ChildProcess& operator=(ChildProcess&&) = delete;
    ChildProcess(const ChildProcess&) = delete;
    ~ChildProcess(); // a child still running is killed and reaped

    // The wait status once the child has ended (waitpid, not blocking).
    std::optional<int> poll();
    // The wait status, waiting for the child to end.
    int wait();
    void signal(int signal);
    pid_t pid() const { return pid_; }
    // Hands the child over: it is no longer killed or reaped here.
    pid_t release() {
        const pid_t pid = pid_;
        pid_ = -1;
        return pid;
    }

  private:
    explicit ChildProcess(pid_t pid) : pid_(pid) {}
    pid_t pid_ = -1;
};

// A wait status as a shell's $?: the exit code, or 128 + the signal that ended the process.
int shellExitStatus(int waitStatus);
// The signal that ended the process, from the wait status itself: a shell's 200 may be
// `exit 200` or signal 72, so the shell status cannot tell.
std::optional<int> terminatingSignal(int waitStatus);
// "exit status 3" or "killed by SIGTERM".
std::string describeWaitStatus(int waitStatus);
// "SIGSEGV" for 11, "signal 77" for a number without a name.
std::string signalName(int signal);

} // namespace slicescope::record
