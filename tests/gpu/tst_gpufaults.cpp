// GPU faults through the real CLI (docs/gpu-backend.md "Faults", label gpu): a kernel that traps,
// one that spins past the timeout, a problem larger than the device. Each time the CLI reports the
// fault clearly and exits non-zero, keeps the other runs, and the next run works. Skips without a
// device.
#include "slicescope/backend/gpubackend.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>

namespace {

struct CliResult {
    int exitStatus = -1;
    std::string out;
    std::string err;
    double seconds = 0;
};

std::string readFile(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::filesystem::path workDir() {
    auto dir = std::filesystem::temp_directory_path() /
               ("slicescope-gpufaults-" +
                std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir);
    return dir;
}

CliResult runCli(const std::string& args) {
    const auto dir = workDir();
    const auto out = dir / "stdout.txt", err = dir / "stderr.txt";
    const std::string command = std::string("'") + SLICESCOPE_CLI + "' " + args + " >'" +
                                out.string() + "' 2>'" + err.string() + "'";
    const auto start = std::chrono::steady_clock::now();
    const int status = std::system(command.c_str());
    CliResult r;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    r.exitStatus = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = readFile(out);
    r.err = readFile(err);
    return r;
}

std::string describe(const CliResult& r) {
    return "exit " + std::to_string(r.exitStatus) + " after " + std::to_string(r.seconds) +
           " s\n--- stdout\n" + r.out + "--- stderr\n" + r.err;
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

class GpuFaults : public ::testing::Test {
  protected:
    void SetUp() override {
        const auto detected = slicescope::backend::detectDevices();
        if (detected.devices.empty()) {
            GTEST_SKIP() << "no CUDA device: " << detected.why;
        }
    }
    std::string output(const std::string& name) { return (workDir() / name).string(); }

    // The next run in a new process works and verifies.
    void expectNextRunWorks() {
        const auto next = runCli("run --shape 100x4000x5 --strategy slice-outer -o '" +
                                 output("next.json") + "'");
        EXPECT_EQ(next.exitStatus, 0) << describe(next);
        EXPECT_TRUE(contains(next.out, "slice-outer [measured-gpu]")) << describe(next);
        EXPECT_TRUE(contains(next.out, "verified")) << describe(next);
    }
};

} // namespace

TEST_F(GpuFaults, TrapIsReportedAndTheOtherStrategiesAreKept) {
    const auto trace = output("trap.json");
    const auto r = runCli(
        "run --shape 100x4000x5 --strategy slice-outer,slice-2d,elementwise-broadcast,cpu-serial "
        "--test-fault trap -o '" +
        trace + "'");
    EXPECT_EQ(r.exitStatus, 1) << describe(r);
    EXPECT_TRUE(contains(r.err, "slice-outer")) << describe(r);
    EXPECT_TRUE(contains(r.err, "fault")) << describe(r);
    // The strategies after the fault ran in a fresh process; the CPU one here.
    for (const char* kept : {"slice-2d [measured-gpu]", "elementwise-broadcast [measured-gpu]",
                             "cpu-serial [measured-cpu]"}) {
        EXPECT_TRUE(contains(r.out, kept)) << kept << "\n" << describe(r);
    }
    const std::string text = readFile(trace);
    EXPECT_TRUE(contains(text, "\"slice-2d\"")) << "trace file: " << text.substr(0, 400);
    EXPECT_TRUE(contains(text, "fresh process"));
    expectNextRunWorks();
}

TEST_F(GpuFaults, SpinPastTheTimeoutEndsTheRunWithoutHanging) {
    const auto trace = output("spin.json");
    const auto r =
        runCli("run --shape 100x4000x5 --strategy slice-outer,cpu-serial --test-fault spin "
               "--kernel-timeout 2 -o '" +
               trace + "'");
    EXPECT_EQ(r.exitStatus, 1) << describe(r);
    EXPECT_TRUE(contains(r.err, "did not finish within 2 s")) << describe(r);
    EXPECT_LT(r.seconds, 15.0) << "the CLI must not wait for the spinning kernel\n" << describe(r);
    EXPECT_TRUE(contains(r.out, "cpu-serial [measured-cpu]")) << describe(r);
    expectNextRunWorks();
}

TEST_F(GpuFaults, ProblemLargerThanTheDeviceIsRefusedClearly) {
    // 4e10 float64 elements: 320 GB per array, more than any device has.
    const auto r = runCli("run --shape 20000x20000x100 --strategy slice-outer -o '" +
                          output("big.json") + "'");
    EXPECT_EQ(r.exitStatus, 1) << describe(r);
    EXPECT_TRUE(contains(r.err, "of device memory")) << describe(r);
    EXPECT_LT(r.seconds, 30.0) << describe(r);
    expectNextRunWorks();
}
