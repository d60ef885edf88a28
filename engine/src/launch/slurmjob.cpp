#include "slicescope/launch/slurmjob.h"

#include "slicescope/remote/remotecommand.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <sstream>
#include <string_view>

namespace slicescope::launch {

std::vector<PointSlice> slicePoints(std::size_t points, std::size_t maxTasks) {
    const std::size_t tasks = maxTasks == 0 ? points : std::min(points, maxTasks);
    std::vector<PointSlice> slices;
    std::size_t first = 0;
    for (std::size_t t = 0; t < tasks; ++t) {
        const std::size_t size = points / tasks + (t < points % tasks ? 1 : 0);
        slices.push_back({first, first + size});
        first += size;
    }
    return slices;
}

namespace {

std::filesystem::path taskFile(const std::filesystem::path& workDir, const char* stem,
                               std::size_t task, const char* extension) {
    return workDir / (stem + std::to_string(task) + extension);
}

} // namespace

std::filesystem::path partPath(const std::filesystem::path& workDir, std::size_t task) {
    return taskFile(workDir, "part-", task, ".json");
}

std::filesystem::path taskStdoutPath(const std::filesystem::path& workDir, std::size_t task) {
    return taskFile(workDir, "task-", task, ".out");
}

std::filesystem::path taskStderrPath(const std::filesystem::path& workDir, std::size_t task) {
    return taskFile(workDir, "task-", task, ".err");
}

std::filesystem::path taskStatusPath(const std::filesystem::path& workDir, std::size_t task) {
    return taskFile(workDir, "task-", task, ".status");
}

std::vector<std::string> SlurmCommands::submit(const SlurmArraySpec& spec) const {
    std::vector<std::string> argv = prefix;
    const std::string dir = spec.workDir.string();
    std::string pattern; // sbatch expands %a (the task) in file names: a '%' of the folder is %%
    for (const char c : dir) {
        pattern += c == '%' ? std::string("%%") : std::string(1, c);
    }
    // Each option and its value in one argument: a value starting with '-' stays a value.
    argv.insert(argv.end(), {"sbatch", "--parsable", "--job-name=" + spec.jobName,
                             "--array=0-" + std::to_string(spec.tasks == 0 ? 0 : spec.tasks - 1),
                             "--chdir=" + dir, "--output=" + pattern + "/task-%a.out",
                             "--error=" + pattern + "/task-%a.err"});
    if (!spec.partition.empty()) {
        argv.push_back("--partition=" + spec.partition);
    }
    if (spec.gpusPerTask > 0) {
        argv.push_back("--gpus-per-task=" + std::to_string(spec.gpusPerTask));
    }
    if (!spec.timeLimit.empty()) {
        argv.push_back("--time=" + spec.timeLimit);
    }
    argv.push_back(spec.script.string());
    return argv;
}

std::vector<std::string> SlurmCommands::queue(const std::string& jobId) const {
    std::vector<std::string> argv = prefix;
    // %K: the array task (or pending group), %T: its state in full words.
    argv.insert(argv.end(),
                {"squeue", "--noheader", "--states=all", "--jobs=" + jobId, "--format=%K|%T"});
    return argv;
}

std::vector<std::string> SlurmCommands::cancel(const std::string& jobId) const {
    std::vector<std::string> argv = prefix;
    argv.insert(argv.end(), {"scancel", jobId});
    return argv;
}

Result<std::string> parseJobId(const std::string& sbatchStdout) {
    std::string line = sbatchStdout.substr(0, sbatchStdout.find('\n'));
    line = line.substr(0, line.find(';'));
    if (line.empty() || line.find_first_not_of("0123456789") != std::string::npos) {
        return fail(Error::Code::Parse, "sbatch gave no job id (it said '" + sbatchStdout + "')");
    }
    return line;
}

std::string batchScript(const std::string& cli,
                        const std::vector<std::vector<std::string>>& taskArguments,
                        const std::filesystem::path& workDir) {
    std::ostringstream s;
    s << "#!/bin/bash\n"
         "# Written by slicescope-cli sweep --launcher slurm: array task i runs one slice of the\n"
         "# sweep's points and writes part-i.json; task-i.status gets its exit status.\n"
      << "cli=" << remote::shellQuote(cli) << '\n'
      << "dir=" << remote::shellQuote(workDir.string()) << '\n'
      << "task=\"${SLURM_ARRAY_TASK_ID:-}\"\n"
         "case \"$task\" in\n";
    for (std::size_t t = 0; t < taskArguments.size(); ++t) {
        s << t << ") set --";
        for (const auto& argument : taskArguments[t]) {
            s << ' ' << remote::shellQuote(argument);
        }
        s << " ;;\n";
    }
    s << "*) echo \"slicescope: no slice for array task '$task'\" >&2; exit 2 ;;\n"
         "esac\n"
         "\"$cli\" \"$@\"\n"
         "status=$?\n"
         "printf '%s\\n' \"$status\" > \"$dir/task-$task.status.tmp\" &&\n"
         "    mv -f \"$dir/task-$task.status.tmp\" \"$dir/task-$task.status\"\n"
         "exit \"$status\"\n";
    return s.str();
}

namespace {

// "3", "0-3", "0-3%2" (a throttled group) or "2,5-7": each task named, within tasks.
void markTasks(std::string_view group, const std::string& state, std::vector<std::string>& states) {
    group = group.substr(0, group.find('%'));
    while (!group.empty()) {
        const std::string_view item = group.substr(0, group.find(','));
        group.remove_prefix(std::min(group.size(), item.size() + 1));
        const std::size_t dash = item.find('-');
        const std::string_view low = item.substr(0, dash);
        const std::string_view high = dash == std::string_view::npos ? low : item.substr(dash + 1);
        std::size_t first = 0, last = 0;
        if (std::from_chars(low.data(), low.data() + low.size(), first).ec != std::errc{} ||
            std::from_chars(high.data(), high.data() + high.size(), last).ec != std::errc{}) {
            continue; // "N/A" for a job that is no array
        }
        for (std::size_t t = first; t <= last && t < states.size(); ++t) {
            states[t] = state;
        }
    }
}

} // namespace

std::vector<std::string> parseQueue(const std::string& squeueStdout, std::size_t tasks) {
    std::vector<std::string> states(tasks);
    std::istringstream lines(squeueStdout);
    std::string line;
    while (std::getline(lines, line)) {
        const std::size_t bar = line.find('|');
        if (bar == std::string::npos) {
            continue;
        }
        std::string state = line.substr(bar + 1);
        state.erase(state.find_last_not_of(" \r\t") + 1);
        markTasks(std::string_view(line).substr(0, bar), state, states);
    }
    return states;
}

bool isFinalState(const std::string& state) {
    static constexpr std::array<std::string_view, 11> kFinal = {
        "COMPLETED",     "FAILED",    "CANCELLED", "TIMEOUT", "NODE_FAIL",   "BOOT_FAIL",
        "OUT_OF_MEMORY", "PREEMPTED", "DEADLINE",  "REVOKED", "SPECIAL_EXIT"};
    return std::find(kFinal.begin(), kFinal.end(), state) != kFinal.end();
}

} // namespace slicescope::launch
