#include "slicescope/record/recorder.h"

#include "counterjoin.h"
#include "recordeddevice.h"
#include "runbuilder.h"
#include "slicescope/backend/gpubackend.h"
#include "slicescope/core/clock.h"
#include "slicescope/device/devicecompletion.h"
#include "slicescope/record/childprocess.h"
#include "slicescope/remote/remotecommand.h"
#include "spooldirectory.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <signal.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace slicescope::record {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kPollInterval = std::chrono::milliseconds(50);
constexpr auto kProgressInterval = std::chrono::milliseconds(250);
constexpr auto kKillGrace = std::chrono::seconds(5);

// A temporary spool directory, removed with everything in it.
class TemporaryDirectory {
  public:
    static Result<TemporaryDirectory> create() {
        std::error_code ec;
        auto base = std::filesystem::temp_directory_path(ec);
        if (ec) {
            base = "/tmp";
        }
        // Spools of recorders that were killed (SIGKILL skips the destructor) go now.
        removeStaleSpoolFolders(base);
        auto made = makeSpoolFolder(base);
        if (!made) {
            return tl::unexpected(made.error());
        }
        return TemporaryDirectory(std::move(*made));
    }
    TemporaryDirectory(TemporaryDirectory&& other) noexcept : path_(std::move(other.path_)) {
        other.path_.clear();
    }
    TemporaryDirectory& operator=(TemporaryDirectory&&) = delete;
    TemporaryDirectory(const TemporaryDirectory&) = delete;
    ~TemporaryDirectory() {
        if (!path_.empty()) {
            std::error_code ec;
            std::filesystem::remove_all(path_, ec);
        }
    }
    const std::filesystem::path& path() const { return path_; }

  private:
    explicit TemporaryDirectory(std::filesystem::path path) : path_(std::move(path)) {}
    std::filesystem::path path_;
};

std::string variableName(std::string_view entry) {
    return std::string(entry.substr(0, entry.find('=')));
}

std::vector<std::string> childEnvironment(const RecordRequest& request,
                                          const std::filesystem::path& library,
                                          const std::filesystem::path& directory, bool counting) {
    std::vector<std::string> env;
    std::map<std::string, std::size_t> index;
    auto set = [&](const std::string& entry) {
        const std::string name = variableName(entry);
        if (auto it = index.find(name); it != index.end()) {
            env[it->second] = entry;
        } else {
            index.emplace(name, env.size());
            env.push_back(entry);
        }
    };
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
        set(*e);
    }
    for (const auto& entry : request.environment) {
        set(entry);
    }
    set("CUDA_INJECTION64_PATH=" + library.string());
    set("SLICESCOPE_RECORD_DIR=" + directory.string());
    set(std::string("SLICESCOPE_RECORD_MODE=") + (counting ? "counters" : "trace"));
    set("SLICESCOPE_RECORD_FLUSH_MS=" + std::to_string(request.flushPeriodMs));
    if (counting && index.find("CUDA_MODULE_LOADING") == index.end()) {
        // Modules loaded up front, not inside the first launch the Range Profiler replays.
        set("CUDA_MODULE_LOADING=EAGER");
    }
    return env;
}

struct ProgramOutcome {
    std::optional<StartFailure> failure;
    int waitStatus = 0;
    bool cancelled = false;
    std::int64_t wallNs = 0;
};

// Runs the program to its end, reading its spools as they grow. A cancel sends SIGTERM to the
// program's whole process group and SIGKILL kKillGrace later, and waits for the group, not only
// the program, to be gone; a program that ends on its own leaves what it started running.
ProgramOutcome runProgram(const ChildSpec& spec, SpoolDirectory& spools,
                          const SpoolDirectory::Sink& sink, const RecordCallbacks& callbacks,
                          const std::function<void(double)>& report) {
    ProgramOutcome outcome;
    const auto start = Clock::now();
    auto child = ChildProcess::start(spec);
    if (!child) {
        outcome.failure = child.error();
        return outcome;
    }
    auto lastReport = Clock::time_point{};
    std::optional<Clock::time_point> terminatedAt;
    std::optional<int> status;
    bool killed = false;
    for (;;) {
        if (!status) {
            status = child->poll();
        }
        if (status && (!terminatedAt || killed || !child->groupRunning())) {
            outcome.waitStatus = *status;
            break;
        }
        const auto now = Clock::now();
        if (callbacks.cancel != nullptr && callbacks.cancel->load() && !terminatedAt) {
            child->signal(SIGTERM);
            terminatedAt = now;
            outcome.cancelled = true;
        }
        if (terminatedAt && !killed && now - *terminatedAt > kKillGrace) {
            child->signal(SIGKILL);
            killed = true;
        }
        spools.poll(sink, std::uint64_t(16) << 20);
        if (now - lastReport >= kProgressInterval) {
            report(std::chrono::duration<double>(now - start).count());
            lastReport = now;
        }
        std::this_thread::sleep_for(kPollInterval);
    }
    child->dismissGroup();
    outcome.wallNs =
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
    spools.readAll(sink);
    report(double(outcome.wallNs) / 1e9);
    return outcome;
}

// Notes on how each process's spool ended.
void addProcessNotes(const SpoolDirectory& spools, std::string_view pass, trace::Run& run) {
    for (const auto& p : spools.processes()) {
        const std::string who =
            std::string(pass) + "process " +
            (p->begin ? std::to_string(p->begin->pid) : p->path.filename().string());
        if (!p->readError.empty()) {
            run.notes.push_back(who + ": its spool could not be read: " + p->readError);
        }
        if (p->decoder.state() == SpoolDecoder::State::Corrupt) {
            run.notes.push_back(who + ": its spool is damaged (" + p->decoder.why() +
                                "); records after that point are lost");
        } else if (p->decoder.pendingBytes() > 0) {
            run.notes.push_back(who + ": the last " + std::to_string(p->decoder.pendingBytes()) +
                                " bytes of its spool are an incomplete frame (written as it died) "
                                "and were ignored");
        }
        if (!p->begin) {
            continue;
        }
        if (!p->end) {
            run.notes.push_back(
                who +
                " ended without a final flush (os._exit, SIGKILL, exec or a crash): "
                "records of its last " +
                std::to_string(p->begin->flushPeriodMs) + " ms or so may be missing");
        } else if (p->end->reason == EndReason::Signal) {
            run.notes.push_back(who + " was ended by " + signalName(p->end->signal) +
                                "; its records were flushed on the way out");
        }
    }
}

struct Conversion {
    trace::Run run;
    RunBuilder builder{run};
    std::optional<CounterJoin> counters;
};

// Devices found on this machine (the recorder's view; the same machine the program ran on).
std::vector<device::DeviceSpec> detectedDevices() {
    return backend::gpuBackendBuilt() ? backend::detectDevices().devices
                                      : std::vector<device::DeviceSpec>{};
}

void finishRun(Conversion& c, const SpoolDirectory& tracePass, const SpoolDirectory* countingPass,
               const SpoolSource& source) {
    trace::Run& run = c.run;
    run.id = "recorded";
    run.strategy = "recorded";
    run.mode = trace::RunMode::Recorded;
    run.command = source.command;
    run.exitStatus = source.exitStatus;
    run.wallNs = source.wallNs;
    run.createdAt = isoTimestampUtc();

    std::uint64_t refused = 0;
    for (const auto& p : tracePass.processes()) {
        run.droppedRecords += p->stats.droppedRecords;
        refused += p->stats.refusedBuffers;
    }
    const auto& tally = c.builder.tally();
    const std::size_t processes = tracePass.processes().size();
    if (processes == 0) {
        run.notes.push_back("the program never initialised CUDA: no GPU activity was recorded");
    } else if (processes > 1) {
        run.notes.push_back(std::to_string(processes) +
                            " processes of the program used CUDA; their activities "
                            "share this run");
    }
    if (run.droppedRecords > 0) {
        run.notes.push_back("CUPTI dropped " + std::to_string(run.droppedRecords) +
                            " activity records: the timeline is incomplete" +
                            (refused > 0 ? " (the bounded buffer pool was exhausted " +
                                               std::to_string(refused) + " times)"
                                         : std::string()));
    }
    for (const auto& error : c.builder.errors()) {
        run.notes.push_back("CUPTI error: " + error);
    }
    for (const auto& note : c.builder.notes()) {
        run.notes.push_back(note);
    }
    if (tally.untimed > 0) {
        run.notes.push_back(std::to_string(tally.untimed) +
                            " records had no timestamps (work still running when the program "
                            "ended) and were left out");
    }
    if (tally.invalid > 0) {
        run.notes.push_back(std::to_string(tally.invalid) + " malformed records were left out");
    }
    if (tally.graphLaunches > 0) {
        run.notes.push_back(
            std::to_string(tally.graphLaunches) +
            (tally.graphLaunches == 1 ? " CUDA graph launch" : " CUDA graph launches") +
            " (cudaGraphLaunch): the kernels and copies of each graph are on the "
            "timeline, issued by that one call");
    }
    addProcessNotes(tracePass, "", run);

    // Devices: CUPTI's records, completed; the run's device is the one most kernels ran on.
    std::map<std::uint32_t, device::DeviceSpec> devices;
    const auto& kernels = c.builder.kernels();
    std::map<std::uint32_t, std::uint64_t> kernelsPerDevice;
    for (const auto& k : kernels) {
        ++kernelsPerDevice[k.deviceId];
    }
    const bool needDetails = !c.builder.devices().empty() || !kernels.empty();
    const auto detected = needDetails ? detectedDevices() : std::vector<device::DeviceSpec>{};
    std::vector<device::DeviceSpec> candidates = detected;
    if (needDetails) {
        candidates.insert(candidates.end(), device::presets().begin(), device::presets().end());
    }
    for (const auto& [id, frame] : c.builder.devices()) {
        auto spec = toDeviceSpec(frame);
        const std::string where =
            device::completeDeviceSpec(spec, candidates, "CUPTI's device record");
        if (kernelsPerDevice.count(id) > 0 || c.builder.devices().size() == 1) {
            run.notes.push_back("device " + std::to_string(id) + ", " + where);
        }
        devices.emplace(id, std::move(spec));
    }
    for (const auto& [id, count] : kernelsPerDevice) {
        if (devices.count(id) > 0) {
            continue;
        }
        if (id < detected.size()) {
            // The program ran here: CUDA device `id` of this machine is the one it used, unless
            // its environment reordered the devices (CUDA_VISIBLE_DEVICES).
            run.notes.push_back(
                "device " + std::to_string(id) + ", " + detected[id].name +
                ": CUPTI gave no device record; figures from this machine's CUDA device " +
                std::to_string(id));
            devices.emplace(id, detected[id]);
        } else {
            run.notes.push_back("device " + std::to_string(id) +
                                ": CUPTI gave no device record; its " + std::to_string(count) +
                                " kernels have no theoretical occupancy");
        }
    }
    if (!kernelsPerDevice.empty()) {
        const auto most =
            std::max_element(kernelsPerDevice.begin(), kernelsPerDevice.end(),
                             [](const auto& a, const auto& b) { return a.second < b.second; });
        if (auto it = devices.find(most->first); it != devices.end()) {
            run.device = it->second;
        }
        if (kernelsPerDevice.size() > 1) {
            run.notes.push_back("kernels ran on " + std::to_string(kernelsPerDevice.size()) +
                                " devices; the run shows device " + std::to_string(most->first) +
                                ", each kernel's occupancy uses its own device");
        }
    } else if (!devices.empty()) {
        run.device = devices.begin()->second;
    }
    if (run.device.name.empty()) {
        run.device.name = processes == 0 ? "no CUDA device used" : "unknown CUDA device";
    }

    const auto occupancy = applyTheoreticalOccupancy(run, kernels, devices);
    if (occupancy.failed > 0 && !occupancy.firstFailure.empty()) {
        run.notes.push_back("theoretical occupancy is missing for " +
                            std::to_string(occupancy.failed) +
                            " kernels: " + occupancy.firstFailure);
    }

    if (c.counters && countingPass != nullptr) {
        const auto joined = c.counters->apply(run, kernels);
        for (const auto& message : c.counters->messages()) {
            run.notes.push_back("counting run: " + message);
        }
        if (!c.counters->countersUnavailable()) {
            run.notes.push_back(
                "achieved occupancy: from a second run of the program with CUPTI's Range Profiler "
                "(kernel replay), joined to this run's kernels by launch order; " +
                std::to_string(joined.joined) + " of " + std::to_string(joined.traced) +
                " kernels measured");
        } else {
            run.notes.push_back(
                "achieved occupancy unavailable (see the counting run's note); theoretical "
                "occupancy only");
        }
        if (!joined.mismatch.empty()) {
            run.notes.push_back("the counting run differs from the traced run: " + joined.mismatch +
                                "; achieved occupancy is given up to that launch only");
        }
        addProcessNotes(*countingPass, "counting run: ", run);
    }

    std::stable_sort(
        run.activities.begin(), run.activities.end(),
        [](const trace::Activity& a, const trace::Activity& b) { return a.startNs < b.startNs; });
}

} // namespace

std::string shellQuote(const std::vector<std::string>& command) {
    return remote::shellCommandLine(command, remote::Quoting::WhenNeeded);
}

Result<std::filesystem::path> findInjectionLibrary() {
    constexpr const char* kName = "libslicescope-inject.so";
    if (const char* explicitPath = std::getenv("SLICESCOPE_INJECTION_LIBRARY");
        explicitPath != nullptr && *explicitPath != '\0') {
        if (std::filesystem::exists(explicitPath)) {
            return std::filesystem::absolute(explicitPath);
        }
        return fail(Error::Code::Unsupported, std::string("SLICESCOPE_INJECTION_LIBRARY names ") +
                                                  explicitPath + ", which does not exist");
    }
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    std::vector<std::filesystem::path> tried;
    if (!ec) {
        const auto dir = self.parent_path();
        for (const auto& candidate : {dir / kName, dir.parent_path() / "lib" / kName}) {
            if (std::filesystem::exists(candidate, ec)) {
                return candidate;
            }
            tried.push_back(candidate);
        }
    }
    std::string list;
    for (const auto& t : tried) {
        list += (list.empty() ? "" : ", ") + t.string();
    }
    return fail(Error::Code::Unsupported,
                std::string("the CUPTI injection library ") + kName +
                    " was not found (looked for " + list +
                    "); it is built with the CUDA backend (a build with the CUDA toolkit)");
}

Result<trace::Run> runFromSpools(const SpoolSource& source) {
    Conversion c;
    SpoolDirectory tracePass(source.traceDirectory);
    tracePass.readAll([&](ProcessSpool& p, const Frame& f) { c.builder.add(p, f); });
    std::optional<SpoolDirectory> countingPass;
    if (!source.countersDirectory.empty()) {
        countingPass.emplace(source.countersDirectory);
        c.counters.emplace();
        countingPass->readAll([&](ProcessSpool& p, const Frame& f) { c.counters->add(p, f); });
    }
    finishRun(c, tracePass, countingPass ? &*countingPass : nullptr, source);
    return std::move(c.run);
}

Result<Recording> recordProgram(const RecordRequest& request, const RecordCallbacks& callbacks) {
    if (request.command.empty() || request.command.front().empty()) {
        return fail(Error::Code::InvalidArgument, "no program to record: give it after '--'");
    }
    if (request.flushPeriodMs < 1 || request.flushPeriodMs > 60'000) {
        return fail(Error::Code::InvalidArgument, "the flush period must be from 1 to 60000 ms");
    }
    auto library = request.injectionLibrary.empty()
                       ? findInjectionLibrary()
                       : Result<std::filesystem::path>(request.injectionLibrary);
    if (!library) {
        return tl::unexpected(library.error());
    }
    std::optional<TemporaryDirectory> temporary;
    std::filesystem::path root = request.spoolDirectory;
    if (root.empty()) {
        auto made = TemporaryDirectory::create();
        if (!made) {
            return tl::unexpected(made.error());
        }
        temporary.emplace(std::move(*made));
        root = temporary->path();
    }
    const auto traceDir = root / "trace";
    const auto countersDir = root / "counters";
    std::error_code ec;
    for (const auto& dir : {traceDir, countersDir}) {
        std::filesystem::create_directories(dir, ec);
        if (ec) {
            return fail(Error::Code::Io,
                        "cannot create the spool directory " + dir.string() + ": " + ec.message());
        }
    }

    Recording recording;
    Conversion c;
    SpoolDirectory tracePass(traceDir);
    auto report = [&](std::string_view stage, double elapsedS, const SpoolDirectory& spools) {
        if (!callbacks.progress) {
            return;
        }
        RecordProgress p;
        p.stage = stage;
        p.elapsedS = elapsedS;
        p.processes = spools.processes().size();
        const auto& t = c.builder.tally();
        p.apiCalls = t.apiCalls;
        p.kernels = t.kernels;
        p.copies = t.copies;
        p.memsets = t.memsets;
        for (const auto& proc : spools.processes()) {
            p.droppedRecords += proc->stats.droppedRecords;
        }
        callbacks.progress(p);
    };

    ChildSpec spec;
    spec.argv = request.command;
    spec.workingDirectory = request.workingDirectory;
    spec.environment = childEnvironment(request, *library, traceDir, false);
    spec.ownProcessGroup = true;
    spec.groupKillGrace = kKillGrace;
    const auto traced = runProgram(
        spec, tracePass, [&](ProcessSpool& p, const Frame& f) { c.builder.add(p, f); }, callbacks,
        [&](double s) { report("trace", s, tracePass); });
    if (traced.failure) {
        recording.started = false;
        recording.startError = traced.failure->message;
        recording.exitStatus = traced.failure->exitStatus;
        return recording;
    }
    recording.exitStatus = shellExitStatus(traced.waitStatus);
    recording.signal = terminatingSignal(traced.waitStatus);
    recording.cancelled = traced.cancelled;

    std::optional<SpoolDirectory> countingPass;
    std::string countingNote;
    if (request.counters && !traced.cancelled) {
        countingPass.emplace(countersDir);
        c.counters.emplace();
        ChildSpec counting = spec;
        counting.environment = childEnvironment(request, *library, countersDir, true);
        counting.silent = true;
        const auto counted = runProgram(
            counting, *countingPass,
            [&](ProcessSpool& p, const Frame& f) { c.counters->add(p, f); }, callbacks,
            [&](double s) { report("counters", s, *countingPass); });
        if (counted.failure) {
            countingNote = "the counting run could not start: " + counted.failure->message;
        } else if (describeWaitStatus(counted.waitStatus) !=
                   describeWaitStatus(traced.waitStatus)) {
            countingNote = "the counting run ended with " + describeWaitStatus(counted.waitStatus) +
                           " (the traced run: " + describeWaitStatus(traced.waitStatus) + ")";
        }
        if (counted.cancelled) {
            recording.cancelled = true;
        }
    }

    report("convert", double(traced.wallNs) / 1e9, tracePass);
    SpoolSource source;
    source.command = shellQuote(request.command);
    source.exitStatus = recording.exitStatus;
    source.wallNs = traced.wallNs;
    finishRun(c, tracePass, countingPass ? &*countingPass : nullptr, source);
    if (!countingNote.empty()) {
        c.run.notes.push_back(countingNote);
    }
    if (recording.signal) {
        c.run.notes.push_back("the program was killed by " + signalName(*recording.signal) +
                              " (exit status " + std::to_string(recording.exitStatus) + ")");
    }
    if (recording.cancelled) {
        c.run.notes.push_back(
            "recording cancelled: the program was stopped before it ended on its own");
    }
    recording.run = std::move(c.run);
    return recording;
}

} // namespace slicescope::record
