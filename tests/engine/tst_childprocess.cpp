// ChildProcess (slicescope/record/childprocess.h), the one way SliceScope starts programs: the
// options the recorder, the CLI's GPU worker and the benchmark rely on.
#include "slicescope/record/childprocess.h"

#include <cstdlib>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <string>
#include <sys/wait.h>
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

} // namespace
} // namespace slicescope::record
