#pragma once

// The recorded program as a child process: started with its own environment and working
// directory, standard streams inherited (or /dev/null for the counting run), told to end when
// the recorder dies (SIGTERM, which the injection library turns into a final flush), and
// reported like a shell reports a command: 127 when it is not found, 126 when it cannot be
// executed, 128 + N when signal N killed it.

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <signal.h>
#include <string>
#include <vector>

#include <tl/expected.hpp>

namespace slicescope::record {

struct ChildSpec {
    std::vector<std::string> argv;          // argv[0] is looked up in the PATH of `environment`
    std::filesystem::path workingDirectory; // empty: the recorder's
    std::vector<std::string> environment;   // the complete environment, NAME=VALUE
    bool silent = false;                    // stdin from, stdout and stderr to /dev/null
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
    void signal(int signal);
    pid_t pid() const { return pid_; }

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
