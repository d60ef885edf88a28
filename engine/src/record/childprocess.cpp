#include "slicescope/record/childprocess.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <tuple>
#include <unistd.h>
#include <utility>

namespace slicescope::record {

using namespace std::chrono_literals;

namespace {

struct ExecReport {
    // 'C' chdir failed, 'E' exec failed, 'N' /dev/null could not be opened, 'O' dup2 of a
    // standard stream
    char stage = 'E';
    int error = 0;
};

std::string pathFrom(const std::optional<std::vector<std::string>>& environment) {
    if (!environment) {
        const char* path = std::getenv("PATH");
        return path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
    }
    for (const auto& entry : *environment) {
        if (entry.rfind("PATH=", 0) == 0) {
            return entry.substr(5);
        }
    }
    return "/usr/local/bin:/usr/bin:/bin";
}

// Where execve is tried, in order: the name itself when it holds a slash, else each PATH entry.
std::vector<std::string> candidates(const std::string& program,
                                    const std::optional<std::vector<std::string>>& environment) {
    if (program.find('/') != std::string::npos) {
        return {program};
    }
    std::vector<std::string> out;
    const std::string path = pathFrom(environment);
    std::size_t begin = 0;
    while (begin <= path.size()) {
        const std::size_t end = std::min(path.find(':', begin), path.size());
        const std::string dir = path.substr(begin, end - begin);
        out.push_back(dir.empty() ? program : dir + "/" + program);
        begin = end + 1;
    }
    return out;
}

// What a start that failed in the child (ExecReport) says, as a shell would.
StartFailure startFailure(const ExecReport& r, const std::string& program, const std::string& cwd) {
    StartFailure failure;
    if (r.stage == 'C') {
        failure.exitStatus = 1;
        failure.message =
            "cannot change to the working directory " + cwd + ": " + std::strerror(r.error);
    } else if (r.stage == 'N') {
        failure.exitStatus = 1;
        failure.message = std::string("cannot open /dev/null: ") + std::strerror(r.error);
    } else if (r.stage == 'O') {
        failure.exitStatus = 1;
        failure.message =
            std::string("cannot redirect a standard stream: ") + std::strerror(r.error);
    } else if (r.error == ENOENT || r.error == ENOTDIR) {
        failure.exitStatus = 127;
        failure.message =
            "cannot start '" + program +
            "': " + (program.find('/') == std::string::npos ? "command not found" : "no such file");
    } else {
        failure.exitStatus = 126;
        failure.message = "cannot start '" + program + "': " + std::strerror(r.error);
    }
    return failure;
}

// Makes `group` the foreground process group of the terminal on stdin. SIGTTOU is held back
// meanwhile: a process outside the foreground group gets it for tcsetpgrp.
void setTerminalForeground(pid_t group) {
    sigset_t ttou, previous;
    sigemptyset(&ttou);
    sigaddset(&ttou, SIGTTOU);
    ::pthread_sigmask(SIG_BLOCK, &ttou, &previous);
    ::tcsetpgrp(STDIN_FILENO, group);
    ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

// The watchdog, in a process forked from this one (so only async-signal-safe calls): it waits
// for a byte on `socket` (dismissed) or its end of file (its parent died, which closes the other
// end however it dies), and then ends `group`: SIGTERM, then SIGKILL after `grace`.
[[noreturn]] void watchGroup(int socket, pid_t group, std::chrono::milliseconds grace) {
    // Keep none of the parent's descriptors: a pipe someone reads the parent's output from must
    // see its end when the parent dies, not when the watchdog does.
    if (socket < 3) {
        socket = ::fcntl(socket, F_DUPFD, 3);
    }
    const int null = ::open("/dev/null", O_RDWR);
    for (int fd = 0; fd < 3 && null >= 0; ++fd) {
        ::dup2(null, fd);
    }
    if (socket > 3) {
        ::close_range(3, unsigned(socket) - 1, 0);
    }
    ::close_range(unsigned(socket) + 1, ~0U, 0);
    // A terminal's signals are for the program and the recorder; SIGTERM ends the watchdog.
    for (const int s : {SIGINT, SIGQUIT, SIGHUP, SIGTSTP}) {
        ::signal(s, SIG_IGN);
    }
    ::signal(SIGTERM, SIG_DFL);
    char byte = 0;
    ssize_t n;
    do {
        n = ::read(socket, &byte, 1);
    } while (n < 0 && errno == EINTR);
    if (n == 1) {
        ::_exit(0);
    }
    ::kill(-group, SIGTERM);
    const timespec step{0, 20'000'000};
    for (auto waited = std::chrono::milliseconds(0); waited < grace; waited += 20ms) {
        if (::kill(-group, 0) != 0) {
            ::_exit(0);
        }
        ::nanosleep(&step, nullptr);
    }
    ::kill(-group, SIGKILL);
    ::_exit(0);
}

// Starts watchGroup for `group`: its process id and this process's end of its socket, or -1s
// when it could not start (PR_SET_PDEATHSIG still ends the child itself).
std::pair<pid_t, int> startWatchdog(pid_t group, std::chrono::milliseconds grace) {
    int sockets[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0) {
        return {-1, -1};
    }
    const pid_t watchdog = ::fork();
    if (watchdog == 0) {
        ::close(sockets[1]);
        watchGroup(sockets[0], group, grace);
    }
    ::close(sockets[0]);
    if (watchdog < 0) {
        ::close(sockets[1]);
        return {-1, -1};
    }
    return {watchdog, sockets[1]};
}

} // namespace

tl::expected<ChildProcess, StartFailure> ChildProcess::start(const ChildSpec& spec) {
    if (spec.argv.empty() || spec.argv[0].empty()) {
        return tl::unexpected(StartFailure{127, "no program to start"});
    }
    const std::string& program = spec.program.empty() ? spec.argv[0] : spec.program;
    // Everything the child needs is made before fork: after it, only async-signal-safe calls.
    const auto paths = candidates(program, spec.environment);
    std::vector<char*> argv, envp;
    for (const auto& a : spec.argv) {
        argv.push_back(const_cast<char*>(a.c_str()));
    }
    argv.push_back(nullptr);
    if (spec.environment) {
        for (const auto& e : *spec.environment) {
            envp.push_back(const_cast<char*>(e.c_str()));
        }
        envp.push_back(nullptr);
    }
    char** const childEnvironment = spec.environment ? envp.data() : ::environ;
    const std::string cwd = spec.workingDirectory.string();

    int report[2];
    if (::pipe2(report, O_CLOEXEC) != 0) {
        return tl::unexpected(StartFailure{1, std::string("pipe2: ") + std::strerror(errno)});
    }
    // The terminal goes to the child's group only when this process has it to give.
    const bool giveTerminal = spec.ownProcessGroup && !spec.silent && ::isatty(STDIN_FILENO) &&
                              ::tcgetpgrp(STDIN_FILENO) == ::getpgrp();
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) {
        const int e = errno;
        ::close(report[0]);
        ::close(report[1]);
        return tl::unexpected(StartFailure{1, std::string("fork: ") + std::strerror(e)});
    }
    if (pid == 0) {
        ::close(report[0]);
        auto die = [&](char stage, int error) {
            const ExecReport r{stage, error};
            (void)!::write(report[1], &r, sizeof r);
            ::_exit(127);
        };
        ::sigaction(SIGINT, &spec.interruptAction, nullptr);
        ::sigaction(SIGQUIT, &spec.quitAction, nullptr);
        // End with the parent: SIGTERM lets the injection library flush first.
        if (spec.endWithParent) {
            ::prctl(PR_SET_PDEATHSIG, SIGTERM);
            if (::getppid() != parent) {
                ::_exit(127);
            }
        }
        if (spec.ownProcessGroup) {
            ::setpgid(0, 0);
            if (giveTerminal) {
                setTerminalForeground(::getpid());
            }
        }
        if (spec.silent) {
            const int null = ::open("/dev/null", O_RDWR);
            if (null < 0) {
                die('N', errno);
            }
            ::dup2(null, 0);
            ::dup2(null, 1);
            ::dup2(null, 2);
            if (null > 2) {
                ::close(null);
            }
        } else {
            for (const auto& [from, to] :
                 {std::pair{spec.stdinFd, STDIN_FILENO}, std::pair{spec.stdoutFd, STDOUT_FILENO},
                  std::pair{spec.stderrFd, STDERR_FILENO}}) {
                if (from >= 0 && from != to && ::dup2(from, to) < 0) {
                    die('O', errno);
                }
            }
        }
        if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) {
            die('C', errno);
        }
        int error = ENOENT;
        bool denied = false;
        for (const auto& path : paths) {
            ::execve(path.c_str(), argv.data(), childEnvironment);
            if (errno == EACCES) {
                denied = true; // keep looking, as a shell does, but remember it
            } else if (errno != ENOENT && errno != ENOTDIR) {
                error = errno;
                break;
            }
        }
        if (error == ENOENT && denied) {
            error = EACCES;
        }
        die('E', error);
    }
    if (spec.ownProcessGroup) {
        ::setpgid(pid, pid); // the child does it too: whichever runs first, no signal misses it
    }
    ::close(report[1]);
    ExecReport r;
    ssize_t n;
    do {
        n = ::read(report[0], &r, sizeof r);
    } while (n < 0 && errno == EINTR);
    ::close(report[0]);
    if (n == ssize_t(sizeof r)) {
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        if (giveTerminal) {
            setTerminalForeground(::getpgrp());
        }
        return tl::unexpected(startFailure(r, program, cwd));
    }
    ChildProcess child(pid);
    if (!spec.ownProcessGroup) {
        return child;
    }
    child.group_ = pid;
    child.terminalGiven_ = giveTerminal;
    if (spec.endWithParent) {
        std::tie(child.watchdog_, child.watchdogSocket_) = startWatchdog(pid, spec.groupKillGrace);
    }
    return child;
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)), group_(std::exchange(other.group_, 0)),
      terminalGiven_(std::exchange(other.terminalGiven_, false)),
      watchdog_(std::exchange(other.watchdog_, -1)),
      watchdogSocket_(std::exchange(other.watchdogSocket_, -1)) {}

ChildProcess::~ChildProcess() {
    if (pid_ > 0) {
        ::kill(group_ > 0 ? -group_ : pid_, SIGKILL);
        int status = 0;
        while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
        }
        reaped();
    }
    dismissGroup();
}

void ChildProcess::reaped() {
    pid_ = -1;
    if (terminalGiven_) {
        setTerminalForeground(::getpgrp());
        terminalGiven_ = false;
    }
}

bool ChildProcess::groupRunning() const {
    return group_ > 0 && ::kill(-group_, 0) == 0;
}

void ChildProcess::dismissGroup() {
    group_ = 0;
    if (watchdogSocket_ >= 0) {
        const char dismissed = 1;
        (void)!::send(watchdogSocket_, &dismissed, 1, MSG_NOSIGNAL);
        ::close(watchdogSocket_);
        watchdogSocket_ = -1;
    }
    if (watchdog_ > 0) {
        while (::waitpid(watchdog_, nullptr, 0) < 0 && errno == EINTR) {
        }
        watchdog_ = -1;
    }
}

std::optional<int> ChildProcess::poll() {
    if (pid_ <= 0) {
        return std::nullopt;
    }
    int status = 0;
    const pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
        reaped();
        return status;
    }
    return std::nullopt;
}

int ChildProcess::wait() {
    int status = 0;
    if (pid_ > 0) {
        while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
        }
        reaped();
    }
    return status;
}

void ChildProcess::signal(int signal) {
    if (group_ > 0) {
        ::kill(-group_, signal);
    } else if (pid_ > 0) {
        ::kill(pid_, signal);
    }
}

tl::expected<CapturedRun, StartFailure> runCaptured(ChildSpec spec) {
    int out[2], err[2];
    if (::pipe2(out, O_CLOEXEC) != 0) {
        return tl::unexpected(StartFailure{1, std::string("pipe2: ") + std::strerror(errno)});
    }
    if (::pipe2(err, O_CLOEXEC) != 0) {
        const int e = errno;
        ::close(out[0]);
        ::close(out[1]);
        return tl::unexpected(StartFailure{1, std::string("pipe2: ") + std::strerror(e)});
    }
    spec.silent = false;
    spec.stdoutFd = out[1];
    spec.stderrFd = err[1];
    auto child = ChildProcess::start(spec);
    ::close(out[1]);
    ::close(err[1]);
    CapturedRun run;
    // Both pipes at once: a command that fills one while this waits on the other cannot block.
    pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    std::string* texts[2] = {&run.out, &run.err};
    int open = 2;
    while (open > 0) {
        if (::poll(fds, 2, -1) < 0) {
            if (errno == EINTR) {
                continue;
            }
            break;
        }
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || fds[i].revents == 0) {
                continue;
            }
            char buffer[4096];
            const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
            if (n > 0) {
                texts[i]->append(buffer, std::size_t(n));
            } else if (n == 0 || errno != EINTR) {
                ::close(fds[i].fd);
                fds[i].fd = -1;
                --open;
            }
        }
    }
    for (const auto& fd : fds) {
        if (fd.fd >= 0) {
            ::close(fd.fd);
        }
    }
    if (!child) {
        return tl::unexpected(child.error());
    }
    run.waitStatus = child->wait();
    return run;
}

int shellExitStatus(int status) {
    if (WIFEXITED(status)) {
        return WEXITSTATUS(status);
    }
    if (WIFSIGNALED(status)) {
        return 128 + WTERMSIG(status);
    }
    return 1;
}

std::optional<int> terminatingSignal(int status) {
    if (WIFSIGNALED(status)) {
        return WTERMSIG(status);
    }
    return std::nullopt;
}

std::string describeWaitStatus(int status) {
    if (const auto signal = terminatingSignal(status)) {
        return "killed by " + signalName(*signal);
    }
    return "exit status " + std::to_string(shellExitStatus(status));
}

std::string signalName(int signal) {
    if (const char* abbrev = ::sigabbrev_np(signal)) {
        return std::string("SIG") + abbrev;
    }
    return "signal " + std::to_string(signal);
}

} // namespace slicescope::record
