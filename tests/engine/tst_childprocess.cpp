// ChildProcess (slicescope/record/childprocess.h), the one way SliceScope starts programs: the
// options the recorder, the CLI's GPU worker and the benchmark rely on.
#include "slicescope/record/childprocess.h"

#include <chrono>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace slicescope::record {
namespace {

// Runs spec with its stdout on a pipe; returns what it printed and its shell exit status.
std::pair<std::string, int> output(ChildSpec spec) {
    int fds[2];
    EXPECT_EQ(::pipe2(fds, O_CLOEXEC), 0);
    spec.stdoutFd = fds[1];
    auto child = ChildProcess::start(spec);
    ::close(fds[1]);
    std::string text;
    char buffer[256];
    ssize_t n;
    while ((n = ::read(fds[0], buffer, sizeof buffer)) > 0) {
        text.append(buffer, std::size_t(n));
    }
    ::close(fds[0]);
    if (!child) {
        ADD_FAILURE() << child.error().message;
        return {text, -1};
    }
    return {text, shellExitStatus(child->wait())};
}

TEST(ChildProcess, StdoutGoesWhereAskedAndTheExitStatusComesBack) {
    ChildSpec spec;
    spec.argv = {"sh", "-c", "echo hello; exit 3"};
    const auto [text, status] = output(spec);
    EXPECT_EQ(text, "hello\n");
    EXPECT_EQ(status, 3);
}

TEST(ChildProcess, RunCapturedKeepsBothStreamsApart) {
    ChildSpec spec;
    // More than a pipe holds on stderr before anything on stdout: both are read while it runs.
    spec.argv = {"sh", "-c", "head -c 200000 /dev/zero | tr '\\0' e >&2; echo out; exit 4"};
    const auto run = runCaptured(spec);
    ASSERT_TRUE(run) << run.error().message;
    EXPECT_EQ(run->out, "out\n");
    EXPECT_EQ(run->err, std::string(200000, 'e'));
    EXPECT_EQ(shellExitStatus(run->waitStatus), 4);
}

TEST(ChildProcess, RunCapturedReportsAMissingProgram) {
    ChildSpec spec;
    spec.argv = {"slicescope-no-such-program"};
    const auto run = runCaptured(spec);
    ASSERT_FALSE(run);
    EXPECT_EQ(run.error().exitStatus, 127);
    EXPECT_NE(run.error().message.find("command not found"), std::string::npos);
}

TEST(ChildProcess, TheProgramCanDifferFromArgvZero) {
    ChildSpec spec;
    spec.program = "/bin/sh";
    spec.argv = {"custom-name", "-c", "echo $0"};
    EXPECT_EQ(output(spec).first, "custom-name\n");
}

TEST(ChildProcess, WithoutAnEnvironmentItInheritsThisProcesssOne) {
    ::setenv("SLICESCOPE_CHILD_TEST", "inherited", 1);
    ChildSpec spec;
    spec.argv = {"sh", "-c", "echo ${SLICESCOPE_CHILD_TEST:-unset}"};
    EXPECT_EQ(output(spec).first, "inherited\n");
    spec.argv[0] = "/bin/sh"; // no PATH in the given environment
    spec.environment = std::vector<std::string>{"OTHER=1"};
    EXPECT_EQ(output(spec).first, "unset\n");
    ::unsetenv("SLICESCOPE_CHILD_TEST");
}

TEST(ChildProcess, AProgramThatIsNotFoundFailsToStartLikeAShellSays) {
    ChildSpec spec;
    spec.argv = {"slicescope-no-such-program"};
    auto child = ChildProcess::start(spec);
    ASSERT_FALSE(child);
    EXPECT_EQ(child.error().exitStatus, 127);
    EXPECT_NE(child.error().message.find("command not found"), std::string::npos);
    spec.argv = {"/nonexistent/program"};
    const auto byPath = ChildProcess::start(spec);
    ASSERT_FALSE(byPath);
    EXPECT_EQ(byPath.error().exitStatus, 127);
    EXPECT_NE(byPath.error().message.find("no such file"), std::string::npos);
}

TEST(ChildProcess, AReleasedChildOutlivesItsHandle) {
    pid_t pid = -1;
    {
        ChildSpec spec;
        spec.argv = {"sh", "-c", "sleep 0.2; exit 4"};
        auto child = ChildProcess::start(spec);
        ASSERT_TRUE(child) << child.error().message;
        pid = child->release();
        EXPECT_EQ(child->pid(), -1);
    } // a child still owned would be killed here
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_EQ(shellExitStatus(status), 4);
}

TEST(ChildProcess, AnOwnedChildIsKilledWithItsHandle) {
    pid_t pid = -1;
    {
        ChildSpec spec;
        spec.argv = {"sleep", "30"};
        auto child = ChildProcess::start(spec);
        ASSERT_TRUE(child) << child.error().message;
        pid = child->pid();
    }
    EXPECT_EQ(::kill(pid, 0), -1); // killed and reaped: no such process any more
}

// Process groups: a program that starts a grandchild (sleep 300), writes the grandchild's PID to a
// file and waits for it; with ignoreTerm, both ignore SIGTERM.
struct Family {
    std::filesystem::path pidFile;
    ChildSpec spec;
};

Family familyProgram(const std::string& name, bool ignoreTerm) {
    Family f;
    f.pidFile = std::filesystem::path(::testing::TempDir()) /
                ("slicescope-group-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove(f.pidFile);
    f.spec.argv = {"sh", "-c",
                   std::string(ignoreTerm ? "trap '' TERM; " : "") + "sleep 300 & echo $! > '" +
                       f.pidFile.string() + "'; wait"};
    f.spec.ownProcessGroup = true;
    f.spec.groupKillGrace = std::chrono::milliseconds(500);
    return f;
}

using std::chrono::steady_clock;

pid_t grandchildOf(const Family& f) {
    const auto deadline = steady_clock::now() + std::chrono::seconds(10);
    while (steady_clock::now() < deadline) {
        std::ifstream in(f.pidFile);
        pid_t pid = -1;
        if (in >> pid && pid > 0) {
            return pid;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return -1;
}

// Gone: no such process, or a zombie that the process it was handed to has not reaped yet.
bool gone(pid_t pid) {
    if (::kill(pid, 0) != 0) {
        return true;
    }
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const auto close = text.rfind(')');
    return close != std::string::npos && text.size() > close + 2 && text[close + 2] == 'Z';
}

bool goneWithin(pid_t pid, std::chrono::milliseconds limit) {
    const auto deadline = steady_clock::now() + limit;
    while (!gone(pid)) {
        if (steady_clock::now() > deadline) {
            ::kill(pid, SIGKILL); // leave nothing behind
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
}

TEST(ChildProcess, ASignalReachesEveryProcessOfItsGroup) {
    const Family f = familyProgram("signal", false);
    auto child = ChildProcess::start(f.spec);
    ASSERT_TRUE(child) << child.error().message;
    const pid_t grandchild = grandchildOf(f);
    ASSERT_GT(grandchild, 0);
    EXPECT_EQ(::getpgid(grandchild), child->pid());
    child->signal(SIGTERM);
    EXPECT_EQ(terminatingSignal(child->wait()), SIGTERM);
    EXPECT_TRUE(goneWithin(grandchild, std::chrono::seconds(3)));
    std::filesystem::remove(f.pidFile);
}

TEST(ChildProcess, TheWholeGroupIsKilledWithItsHandle) {
    const Family f = familyProgram("handle", true);
    pid_t grandchild = -1;
    {
        auto child = ChildProcess::start(f.spec);
        ASSERT_TRUE(child) << child.error().message;
        grandchild = grandchildOf(f);
        ASSERT_GT(grandchild, 0);
    }
    EXPECT_TRUE(goneWithin(grandchild, std::chrono::seconds(3)));
    std::filesystem::remove(f.pidFile);
}

// The parent's death, even by SIGKILL (no destructor runs), ends the group: SIGTERM, then SIGKILL
// after the grace for a family that ignores SIGTERM.
void expectGroupEndsWithItsParent(bool ignoreTerm) {
    const Family f = familyProgram(ignoreTerm ? "death-ignoring" : "death", ignoreTerm);
    const pid_t parent = ::fork();
    ASSERT_GE(parent, 0);
    if (parent == 0) {
        auto child = ChildProcess::start(f.spec);
        if (child) {
            ::pause();
        }
        ::_exit(1);
    }
    const pid_t grandchild = grandchildOf(f);
    ::kill(parent, SIGKILL);
    ::waitpid(parent, nullptr, 0);
    ASSERT_GT(grandchild, 0);
    EXPECT_TRUE(goneWithin(grandchild, std::chrono::seconds(4)));
    std::filesystem::remove(f.pidFile);
}

TEST(ChildProcess, TheGroupEndsWhenItsParentIsKilled) {
    expectGroupEndsWithItsParent(false);
}

TEST(ChildProcess, AGroupThatIgnoresSigtermIsKilledWhenItsParentDies) {
    expectGroupEndsWithItsParent(true);
}

TEST(ChildProcess, AGroupThatEndedOnItsOwnLeavesNoWatchdog) {
    ChildSpec spec;
    spec.argv = {"true"};
    spec.ownProcessGroup = true;
    auto child = ChildProcess::start(spec);
    ASSERT_TRUE(child) << child.error().message;
    EXPECT_EQ(shellExitStatus(child->wait()), 0);
    child->dismissGroup();
    // The watchdog was this process's child: dismissed, it has ended and been reaped.
    EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
    EXPECT_EQ(errno, ECHILD);
}

} // namespace
} // namespace slicescope::record
