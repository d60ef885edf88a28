#pragma once

// Builds a recorded run from the frames of a recording's trace pass: activities with their names
// interned once into the run, the devices CUPTI described, what each process reported (errors,
// dropped records, how it ended), and the kernels in launch order for the occupancy steps.

#include "slicescope/trace/trace.h"
#include "spooldirectory.h"

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace slicescope::record {

// A kernel of the run, by launch: which process and context launched it, and its place in the
// run's activities.
struct KernelLaunch {
    std::size_t activity = 0;
    std::size_t process = 0;
    std::uint32_t deviceId = 0;
    std::uint32_t contextId = 0;
    std::uint32_t correlationId = 0;
    std::int64_t gridId = 0;
};

// Launch order: by process, then correlation id (issued in call order), then grid id.
bool launchedBefore(const KernelLaunch& a, const KernelLaunch& b);

struct RecordTally {
    std::uint64_t apiCalls = 0;
    std::uint64_t graphLaunches = 0; // cudaGraphLaunch / cuGraphLaunch calls among apiCalls
    std::uint64_t kernels = 0;
    std::uint64_t copies = 0;
    std::uint64_t memsets = 0;
    std::uint64_t other = 0;   // sync and overhead
    std::uint64_t untimed = 0; // records CUPTI gave no timestamps (work unfinished at the end)
    std::uint64_t invalid = 0; // records that ended before they started, or of unknown kinds
};

class RunBuilder {
  public:
    explicit RunBuilder(trace::Run& run);
    RunBuilder(const RunBuilder&) = delete;
    RunBuilder& operator=(const RunBuilder&) = delete;

    void add(ProcessSpool& process, const Frame& frame);

    const RecordTally& tally() const { return tally_; }
    const std::map<std::uint32_t, DeviceFrame>& devices() const { return devices_; }
    const std::vector<KernelLaunch>& kernels() const { return kernels_; }
    // CUPTI errors and notes the processes wrote, in order, each once.
    const std::vector<std::string>& errors() const { return errors_; }
    const std::vector<std::string>& notes() const { return notes_; }
    bool countersUnavailable() const { return countersUnavailable_; }

  private:
    trace::Run& run_;
    trace::NameTable names_;
    std::unordered_map<std::size_t, std::vector<std::uint32_t>> nameMaps_; // per process
    RecordTally tally_;
    std::map<std::uint32_t, DeviceFrame> devices_;
    std::vector<KernelLaunch> kernels_;
    std::vector<std::string> errors_;
    std::vector<std::string> notes_;
    bool countersUnavailable_ = false;
};

} // namespace slicescope::record
