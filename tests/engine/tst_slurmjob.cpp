// The pure half of a sweep on Slurm (slicescope/launch/slurmjob.h): slices, the commands, the
// batch script (run here by bash, as a task would) and squeue's answers.
#include "slicescope/launch/slurmjob.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace slicescope::launch {
namespace {

using Strings = std::vector<std::string>;

TEST(SlurmJob, SlicesAreContiguousBalancedAndCoverEveryPoint) {
    struct Case {
        std::size_t points, maxTasks;
        std::vector<PointSlice> slices;
    };
    const Case cases[] = {
        {32, 4, {{0, 8}, {8, 16}, {16, 24}, {24, 32}}},
        {10, 4, {{0, 3}, {3, 6}, {6, 8}, {8, 10}}},
        {3, 8, {{0, 1}, {1, 2}, {2, 3}}}, // never an empty task
        {3, 0, {{0, 1}, {1, 2}, {2, 3}}}, // 0: one task a point
        {5, 1, {{0, 5}}},
    };
    for (const auto& c : cases) {
        EXPECT_EQ(slicePoints(c.points, c.maxTasks), c.slices)
            << c.points << " points, at most " << c.maxTasks << " tasks";
    }
}

TEST(SlurmJob, SubmitAsksForOneArrayWithEachOptionInOneArgument) {
    SlurmArraySpec spec;
    spec.script = "/w/out.json.slurm/sweep.sbatch";
    spec.workDir = "/w/out.json.slurm";
    spec.tasks = 4;
    EXPECT_EQ(SlurmCommands{}.submit(spec),
              (Strings{"sbatch", "--parsable", "--job-name=slicescope-sweep", "--array=0-3",
                       "--chdir=/w/out.json.slurm", "--output=/w/out.json.slurm/task-%a.out",
                       "--error=/w/out.json.slurm/task-%a.err", "/w/out.json.slurm/sweep.sbatch"}));
    spec.partition = "-gpu"; // a value, even one that looks like an option
    spec.gpusPerTask = 2;
    spec.timeLimit = "00:30:00";
    spec.workDir = "/w/100%.slurm";
    const Strings argv = SlurmCommands{}.submit(spec);
    EXPECT_EQ(Strings(argv.begin() + 5, argv.end()),
              (Strings{"--output=/w/100%%.slurm/task-%a.out", "--error=/w/100%%.slurm/task-%a.err",
                       "--partition=-gpu", "--gpus-per-task=2", "--time=00:30:00",
                       "/w/out.json.slurm/sweep.sbatch"}));
}

TEST(SlurmJob, EveryCommandTakesThePrefix) {
    const SlurmCommands ssh{{"ssh", "login"}};
    EXPECT_EQ(ssh.cancel("42"), (Strings{"ssh", "login", "scancel", "42"}));
    EXPECT_EQ(ssh.queue("42"), (Strings{"ssh", "login", "squeue", "--noheader", "--states=all",
                                        "--jobs=42", "--format=%K|%T"}));
    EXPECT_EQ(ssh.submit({}).front(), "ssh");
}

TEST(SlurmJob, JobIdFromSbatch) {
    EXPECT_EQ(parseJobId("1234\n").value(), "1234");
    EXPECT_EQ(parseJobId("77;cluster-a\n").value(), "77");
    EXPECT_FALSE(parseJobId(""));
    EXPECT_FALSE(parseJobId("Submitted batch job 5\n"));
}

TEST(SlurmJob, QueueStatesOfTasksAndPendingGroups) {
    const std::string answer = "4-7%2|PENDING\n"
                               "0|COMPLETED\n"
                               "1|RUNNING\n"
                               "2|FAILED\n";
    EXPECT_EQ(parseQueue(answer, 9), (Strings{"COMPLETED", "RUNNING", "FAILED", "", "PENDING",
                                              "PENDING", "PENDING", "PENDING", ""}));
    EXPECT_EQ(parseQueue("0,2-3|PENDING\n9|RUNNING\nN/A|PENDING\n", 4),
              (Strings{"PENDING", "", "PENDING", "PENDING"}));
    EXPECT_TRUE(isFinalState("COMPLETED"));
    EXPECT_TRUE(isFinalState("CANCELLED"));
    EXPECT_TRUE(isFinalState("TIMEOUT"));
    EXPECT_FALSE(isFinalState("COMPLETING"));
    EXPECT_FALSE(isFinalState("PENDING"));
    EXPECT_FALSE(isFinalState(""));
}

// Runs the script as array task `task` would, with its stdout in a string; the exit status.
int runScript(const std::string& script, std::size_t task, std::string& out) {
    const auto dir =
        std::filesystem::path(::testing::TempDir()) / ("slurmjob-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "job.sh") << script;
    const std::string command = "SLURM_ARRAY_TASK_ID=" + std::to_string(task) + " bash " +
                                (dir / "job.sh").string() + " > " + (dir / "out").string();
    const int status = std::system(command.c_str());
    std::ostringstream text;
    text << std::ifstream(dir / "out").rdbuf();
    out = text.str();
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(SlurmJob, TheScriptRunsTheTasksArgumentsWordForWordAndKeepsItsStatus) {
    const auto dir = std::filesystem::path(::testing::TempDir()) /
                     ("slurmjob-dir " + std::to_string(::getpid()) + " it's");
    std::filesystem::create_directories(dir);
    const Strings hostile = {"%s|\n",     "a b", "it's", "$(echo no)", "`echo no`", "x;y",
                             "new\nline", "-o",  ""};
    const std::string script = batchScript("/usr/bin/printf", {{"%s|\n", "first"}, hostile}, dir);
    std::string out;
    EXPECT_EQ(runScript(script, 1, out), 0);
    EXPECT_EQ(out, "a b|\nit's|\n$(echo no)|\n`echo no`|\nx;y|\nnew\nline|\n-o|\n|\n");
    std::ifstream status(taskStatusPath(dir, 1));
    std::string code;
    EXPECT_TRUE(std::getline(status, code));
    EXPECT_EQ(code, "0");
    EXPECT_EQ(runScript(script, 0, out), 0);
    EXPECT_EQ(out, "first|\n");
}

TEST(SlurmJob, TheScriptPassesOnTheProgramsFailureAndRefusesAnUnknownTask) {
    const auto dir = std::filesystem::path(::testing::TempDir()) /
                     ("slurmjob-fail-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::string out;
    const std::string script = batchScript("/bin/sh", {{"-c", "exit 3"}}, dir);
    EXPECT_EQ(runScript(script, 0, out), 3);
    std::ifstream status(taskStatusPath(dir, 0));
    std::string code;
    EXPECT_TRUE(std::getline(status, code));
    EXPECT_EQ(code, "3");
    EXPECT_EQ(runScript(script, 1, out), 2);
    EXPECT_FALSE(std::filesystem::exists(taskStatusPath(dir, 1)));
}

} // namespace
} // namespace slicescope::launch
