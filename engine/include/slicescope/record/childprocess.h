#pragma once

// A child process, the one way SliceScope starts programs: the recorded program (with its own
// environment and working directory, standard streams inherited or /dev/null for the counting
// run, told to end when the recorder dies: SIGTERM, which the injection library turns into a
// final flush), the CLI's GPU worker (itself again, its stdout a pipe) and the benchmark's CLI
// runs. The recorded program leads a process group of its own, which a signal, the end of its
// handle or the death of this process ends as a whole. A start that fails is reported like a shell
// reports a command: 127 when it is not found, 126 when it cannot be executed; an end, 128 + N when
// signal N killed it.

#include <chrono>
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
    int stdinFd = -1;  // when >= 0 (and not silent), the child's stdin (ssh's: remote/sshsession.h)
    int stderrFd = -1; // when >= 0 (and not silent), the child's stderr
    // SIGTERM to the child when this process ends, however it ends (PR_SET_PDEATHSIG).
    bool endWithParent = true;
    // The child leads a new process group, so that signal() and the end of the handle reach
    // everything it started, grandchildren included. When this process holds the foreground of
    // the terminal on stdin (and the child is not silent), the group gets it while the child
    // runs, so a terminal's Ctrl-C still goes to the program. With endWithParent, a watchdog
    // process ends the group when this process dies first, even by SIGKILL: SIGTERM to the
    // group, then SIGKILL after groupKillGrace.
    bool ownProcessGroup = false;
    std::chrono::milliseconds groupKillGrace{5000};
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
    ChildProcess(ChildProcess&& other) noexcept;
    ChildProcess& operator=(ChildProcess&&) = delete;
    ChildProcess(const ChildProcess&) = delete;
    // A child still running is killed (with its whole group when it leads one) and reaped.
    ~ChildProcess();

    // The wait status once the child has ended (waitpid, not blocking).
    std::optional<int> poll();
    // The wait status, waiting for the child to end.
    int wait();
    // To the child, or to every process of its group when it leads one (even once it has ended).
    void signal(int signal);
    // Whether any process of the child's group still exists (zombies not yet reaped count);
    // false for a child without a group of its own.
    bool groupRunning() const;
    // Stops the watchdog: what is left of the group is no longer ended when this process dies.
    void dismissGroup();
    pid_t pid() const { return pid_; }
    // Hands the child over: it is no longer killed or reaped here.
    pid_t release() {
        const pid_t pid = pid_;
        pid_ = -1;
        return pid;
    }

  private:
    explicit ChildProcess(pid_t pid) : pid_(pid) {}
    void reaped(); // the child has been waited for
    pid_t pid_ = -1;
    pid_t group_ = 0;            // the child's process group, when it leads one
    bool terminalGiven_ = false; // the group holds the terminal's foreground
    pid_t watchdog_ = -1;
    int watchdogSocket_ = -1; // its other end closes when this process dies, waking it
};

// What a short command (sbatch, squeue) printed and how it ended.
struct CapturedRun {
    int waitStatus = 0;
    std::string out; // its standard output
    std::string err; // its standard error
};
// Starts spec (its stdoutFd and stderrFd replaced by pipes), reads both streams to their end
// while it runs, and waits for it.
tl::expected<CapturedRun, StartFailure> runCaptured(ChildSpec spec);

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
