#include "slicescope/record/childprocess.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace slicescope::record {

namespace {

struct ExecReport {
    // 'C' chdir failed, 'E' exec failed, 'N' /dev/null could not be opened, 'O' dup2 of stdout
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
        } else if (spec.stdoutFd >= 0 && spec.stdoutFd != STDOUT_FILENO) {
            if (::dup2(spec.stdoutFd, STDOUT_FILENO) < 0) {
                die('O', errno);
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
                std::string("cannot redirect the standard output: ") + std::strerror(r.error);
        } else if (r.error == ENOENT || r.error == ENOTDIR) {
            failure.exitStatus = 127;
            failure.message =
                "cannot start '" + program + "': " +
                (program.find('/') == std::string::npos ? "command not found" : "no such file");
        } else {
            failure.exitStatus = 126;
            failure.message = "cannot start '" + program + "': " + std::strerror(r.error);
        }
        return tl::unexpected(failure);
    }
    return ChildProcess(pid);
}

ChildProcess::~ChildProcess() {
    if (pid_ > 0) {
        ::kill(pid_, SIGKILL);
        int status = 0;
        while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
        }
    }
}

std::optional<int> ChildProcess::poll() {
    if (pid_ <= 0) {
        return std::nullopt;
    }
    int status = 0;
    const pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
        pid_ = -1;
        return status;
    }
    return std::nullopt;
}

int ChildProcess::wait() {
    int status = 0;
    if (pid_ > 0) {
        while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
        }
        pid_ = -1;
    }
    return status;
}

void ChildProcess::signal(int signal) {
    if (pid_ > 0) {
        ::kill(pid_, signal);
    }
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
