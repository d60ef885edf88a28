// The injection library's exit paths (docs/recording.md), with no GPU: a stand-in program
// initialises it and ends through return, exit(), _exit(), abort(), an uncaught exception, SIGTERM
// (default and handled by the program), SIGKILL, SIGSEGV and a fork. Whatever the ending, the spool
// holds a readable Begin frame; an End frame exactly when the library could run (not after _exit or
// SIGKILL), saying how the process ended; and the program's exit status is unchanged.
#include "record/spooldirectory.h"

#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

namespace slicescope::record {
namespace {

struct Outcome {
    int waitStatus = 0;
    std::size_t spools = 0;
    bool begin = false;
    int ends = 0;
    EndFrame end;
    bool corrupt = false;
};

Outcome runHarness(const std::string& how) {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("slicescope-tst-injection-" + std::to_string(::getpid()) + "-" + how);
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    Outcome out;
    const pid_t child = fork();
    if (child == 0) {
        setenv("SLICESCOPE_RECORD_DIR", dir.c_str(), 1);
        setenv("SLICESCOPE_RECORD_FLUSH_MS", "20", 1);
        execl(SLICESCOPE_HARNESS, SLICESCOPE_HARNESS, SLICESCOPE_INJECTION_LIBRARY, how.c_str(),
              nullptr);
        _exit(127);
    }
    waitpid(child, &out.waitStatus, 0);
    SpoolDirectory spools(dir);
    spools.readAll([&](ProcessSpool&, const Frame& f) {
        if (f.type == FrameType::Begin) {
            out.begin = true;
        } else if (f.type == FrameType::End) {
            ++out.ends;
            out.end = f.end;
        }
    });
    out.spools = spools.processes().size();
    for (const auto& p : spools.processes()) {
        out.corrupt |= p->decoder.state() != SpoolDecoder::State::Ok;
    }
    std::filesystem::remove_all(dir);
    return out;
}

void expectExited(const Outcome& o, int code) {
    ASSERT_TRUE(WIFEXITED(o.waitStatus)) << o.waitStatus;
    EXPECT_EQ(WEXITSTATUS(o.waitStatus), code);
}

void expectKilledBy(const Outcome& o, int signal) {
    ASSERT_TRUE(WIFSIGNALED(o.waitStatus)) << o.waitStatus;
    EXPECT_EQ(WTERMSIG(o.waitStatus), signal);
}

void expectEnd(const Outcome& o, EndReason reason, int signal) {
    EXPECT_EQ(o.spools, 1u);
    EXPECT_TRUE(o.begin);
    EXPECT_FALSE(o.corrupt);
    ASSERT_EQ(o.ends, 1);
    EXPECT_EQ(o.end.reason, reason);
    EXPECT_EQ(o.end.signal, signal);
}

TEST(InjectionLifecycle, ReturnFromMainFlushesAtExit) {
    const auto o = runHarness("return");
    expectExited(o, 0);
    expectEnd(o, EndReason::Exit, 0);
}

TEST(InjectionLifecycle, ExitFlushesAtExit) {
    const auto o = runHarness("exit");
    expectExited(o, 5);
    expectEnd(o, EndReason::Exit, 0);
}

TEST(InjectionLifecycle, UnderscoreExitKeepsWhatWasWritten) {
    const auto o = runHarness("_exit");
    expectExited(o, 6);
    EXPECT_TRUE(o.begin);
    EXPECT_FALSE(o.corrupt);
    EXPECT_EQ(o.ends, 0);
}

TEST(InjectionLifecycle, AbortFlushesInTheSignalHandler) {
    const auto o = runHarness("abort");
    expectKilledBy(o, SIGABRT);
    expectEnd(o, EndReason::Signal, SIGABRT);
}

TEST(InjectionLifecycle, AnUncaughtExceptionFlushes) {
    const auto o = runHarness("throw");
    expectKilledBy(o, SIGABRT);
    expectEnd(o, EndReason::Signal, SIGABRT);
}

TEST(InjectionLifecycle, SigtermFlushesAndStillKills) {
    const auto o = runHarness("term");
    expectKilledBy(o, SIGTERM);
    expectEnd(o, EndReason::Signal, SIGTERM);
}

TEST(InjectionLifecycle, AProgramsOwnHandlerIsLeftAlone) {
    const auto o = runHarness("handled-term");
    expectExited(o, 9);
    expectEnd(o, EndReason::Exit, 0);
}

TEST(InjectionLifecycle, SigsegvFlushesAndStillCrashes) {
    const auto o = runHarness("segv");
    expectKilledBy(o, SIGSEGV);
    expectEnd(o, EndReason::Signal, SIGSEGV);
}

TEST(InjectionLifecycle, SigkillKeepsWhatWasWritten) {
    const auto o = runHarness("kill");
    expectKilledBy(o, SIGKILL);
    EXPECT_TRUE(o.begin);
    EXPECT_FALSE(o.corrupt);
    EXPECT_EQ(o.ends, 0);
}

TEST(InjectionLifecycle, AForkedChildDoesNotEndTheParentsSpool) {
    const auto o = runHarness("fork");
    expectExited(o, 0);
    expectEnd(o, EndReason::Exit, 0);
}

} // namespace
} // namespace slicescope::record
