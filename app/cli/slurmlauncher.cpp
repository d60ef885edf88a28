#include "slurmlauncher.h"

#include "slicescope/record/childprocess.h"
#include "slicescope/trace/atomicfile.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <deque>
#include <fstream>
#include <iostream>
#include <thread>

namespace slicescope::cli {

namespace {

using namespace std::chrono_literals;
using launch::SlurmArraySpec;
using launch::SlurmCommands;

// Polling squeue: quickly at first and after every change, then less often (a long sweep
// should not load the controller), never slower than this.
constexpr auto kFirstPoll = 1000ms;
constexpr auto kSlowestPoll = 10000ms;
// After scancel: how long to wait for the cancelled tasks to leave the queue.
constexpr auto kCancelGrace = 30s;

std::string describeCommand(const std::vector<std::string>& argv) {
    std::string text;
    for (const auto& a : argv) {
        text += (text.empty() ? "" : " ") + a;
    }
    return text;
}

std::string trimmed(std::string text) {
    text.erase(text.find_last_not_of(" \n\r\t") + 1);
    return text;
}

// Runs one Slurm command to its end. A terminal's Ctrl+C reaches the whole foreground group:
// the command ignores it, so that sbatch is never stopped between submitting and saying the job
// id; this process sees it and cancels the job instead.
Result<record::CapturedRun> runCommand(const std::vector<std::string>& argv) {
    record::ChildSpec spec;
    spec.argv = argv;
    spec.interruptAction.sa_handler = SIG_IGN;
    auto run = record::runCaptured(spec);
    if (!run) {
        const bool missing = run.error().exitStatus == 127;
        return fail(Error::Code::Unsupported,
                    run.error().message +
                        (missing ? " (is Slurm installed here, and is this a login node?)" : ""));
    }
    return *run;
}

Result<record::CapturedRun> runChecked(const std::vector<std::string>& argv) {
    auto run = runCommand(argv);
    if (run && record::shellExitStatus(run->waitStatus) != 0) {
        return fail(Error::Code::Io, describeCommand(argv) + " failed (" +
                                         record::describeWaitStatus(run->waitStatus) +
                                         "): " + trimmed(run->err));
    }
    return run;
}

bool isTaskFile(const std::string& name) {
    auto has = [&](const char* prefix, const char* suffix) {
        const std::string p(prefix), s(suffix);
        return name.size() > p.size() + s.size() && name.compare(0, p.size(), p) == 0 &&
               name.compare(name.size() - s.size(), s.size(), s) == 0;
    };
    return has("part-", ".json") || has("task-", ".out") || has("task-", ".err") ||
           has("task-", ".status") || has("task-", ".status.tmp");
}

// The work directory, with nothing an earlier sweep's tasks wrote: a part left there would be
// merged as if this sweep had made it.
Status prepareWorkDir(const std::filesystem::path& dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
        return fail(Error::Code::Io, "cannot make " + dir.string() + ": " + ec.message());
    }
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        if (entry.is_regular_file() && isTaskFile(entry.path().filename().string())) {
            std::filesystem::remove(entry.path(), ec);
            if (ec) {
                return fail(Error::Code::Io,
                            "cannot remove " + entry.path().string() + ": " + ec.message());
            }
        }
    }
    return {};
}

// Waits up to `wait`, waking early when interrupted.
void pause(std::chrono::milliseconds wait, const std::atomic<bool>& interrupted) {
    for (auto slept = 0ms; slept < wait && !interrupted.load(); slept += 100ms) {
        std::this_thread::sleep_for(100ms);
    }
}

// What squeue says of the job now: false once the job has left the queue altogether.
Result<bool> pollQueue(const SlurmCommands& slurm, const std::string& jobId,
                       std::vector<std::string>& states) {
    auto run = runCommand(slurm.queue(jobId));
    if (!run) {
        return tl::unexpected(run.error());
    }
    if (record::shellExitStatus(run->waitStatus) != 0) {
        // A job whose record the controller has purged is unknown to squeue: it has ended.
        if (run->err.find("Invalid job id") != std::string::npos) {
            return false;
        }
        return fail(Error::Code::Io, "squeue failed (" +
                                         record::describeWaitStatus(run->waitStatus) +
                                         "): " + trimmed(run->err));
    }
    const auto now = launch::parseQueue(run->out, states.size());
    for (std::size_t t = 0; t < states.size(); ++t) {
        if (!now[t].empty()) {
            states[t] = now[t];
        }
    }
    return !trimmed(run->out).empty();
}

std::size_t countEnded(const std::vector<std::string>& states) {
    return std::size_t(std::count_if(states.begin(), states.end(), launch::isFinalState));
}

// scancel, then the tasks' last states once they have left the queue (or after the grace).
Status cancelArray(const SlurmCommands& slurm, const std::string& jobId,
                   std::vector<std::string>& states) {
    if (auto cancelled = runChecked(slurm.cancel(jobId)); !cancelled) {
        return tl::unexpected(cancelled.error());
    }
    std::cout << "slurm: cancelled job " << jobId << " (scancel)" << std::endl;
    const std::atomic<bool> never{false};
    const auto deadline = std::chrono::steady_clock::now() + kCancelGrace;
    while (std::chrono::steady_clock::now() < deadline) {
        auto inQueue = pollQueue(slurm, jobId, states);
        if (!inQueue || !*inQueue || countEnded(states) == states.size()) {
            return {};
        }
        pause(200ms, never);
    }
    std::cerr << "slicescope-cli: warning: job " << jobId << " was still in the queue "
              << std::chrono::seconds(kCancelGrace).count() << " s after scancel\n";
    return {};
}

SlurmTaskOutcome outcomeOf(const std::filesystem::path& workDir, std::size_t task,
                           const std::string& state) {
    SlurmTaskOutcome outcome;
    std::ifstream statusFile(launch::taskStatusPath(workDir, task));
    std::string status;
    const bool exited = bool(std::getline(statusFile, status));
    outcome.succeeded = exited && status == "0" && (state.empty() || state == "COMPLETED");
    outcome.how = (state.empty() ? std::string("left the queue") : state) + ", " +
                  (exited ? "exit status " + status : std::string("no exit status"));
    return outcome;
}

// Follows the job until every task has ended or the user interrupts (then cancels it).
Result<SlurmArrayRun> follow(const SlurmCommands& slurm, const SlurmArraySpec& spec,
                             std::string jobId, const std::atomic<bool>& interrupted) {
    SlurmArrayRun job;
    job.jobId = std::move(jobId);
    std::vector<std::string> states(spec.tasks);
    std::size_t reported = 0;
    auto interval = kFirstPoll;
    while (true) {
        if (interrupted.load()) {
            job.cancelled = true;
            if (auto cancelled = cancelArray(slurm, job.jobId, states); !cancelled) {
                return tl::unexpected(cancelled.error());
            }
            break;
        }
        auto inQueue = pollQueue(slurm, job.jobId, states);
        if (!inQueue) {
            return tl::unexpected(inQueue.error());
        }
        const std::size_t ended = *inQueue ? countEnded(states) : spec.tasks;
        if (ended != reported) {
            std::cout << "slurm: " << ended << " of " << spec.tasks << " tasks done" << std::endl;
            reported = ended;
            interval = kFirstPoll;
        } else {
            interval = std::min<std::chrono::milliseconds>(kSlowestPoll, interval * 3 / 2);
        }
        if (ended == spec.tasks) {
            break;
        }
        pause(interval, interrupted);
    }
    for (std::size_t t = 0; t < spec.tasks; ++t) {
        job.tasks.push_back(outcomeOf(spec.workDir, t, states[t]));
    }
    return job;
}

} // namespace

Result<SlurmArrayRun> runSlurmArray(const SlurmCommands& slurm, const SlurmArraySpec& spec,
                                    const std::vector<std::vector<std::string>>& taskArguments,
                                    const std::atomic<bool>& interrupted) {
    if (auto prepared = prepareWorkDir(spec.workDir); !prepared) {
        return tl::unexpected(prepared.error());
    }
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) {
        return fail(Error::Code::Internal, "cannot find this program: " + ec.message());
    }
    const std::string script = launch::batchScript(self.string(), taskArguments, spec.workDir);
    if (auto written =
            trace::writeFileAtomically(spec.script, [&](std::ostream& out) { out << script; });
        !written) {
        return tl::unexpected(written.error());
    }
    auto submitted = runChecked(slurm.submit(spec));
    if (!submitted) {
        return tl::unexpected(submitted.error());
    }
    auto jobId = launch::parseJobId(submitted->out);
    if (!jobId) {
        return tl::unexpected(jobId.error());
    }
    std::cout << "slurm: submitted job " << *jobId << ": " << spec.tasks
              << (spec.tasks == 1 ? " task" : " tasks") << ", work in " << spec.workDir.string()
              << std::endl;
    return follow(slurm, spec, *jobId, interrupted);
}

std::string fileTail(const std::filesystem::path& path, std::size_t lines) {
    std::ifstream in(path);
    std::deque<std::string> last;
    std::string line;
    while (std::getline(in, line)) {
        last.push_back(line);
        if (last.size() > lines) {
            last.pop_front();
        }
    }
    std::string text;
    for (const auto& l : last) {
        text += l + '\n';
    }
    return text;
}

} // namespace slicescope::cli
