#pragma once

#include "slicescope/core/dim3.h"
#include "slicescope/core/result.h"
#include "slicescope/device/devicespec.h"
#include "slicescope/problem/problem.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

// The trace model: what a run measured (or modelled, or recorded), independent of any file
// format. docs/trace-format.md describes its JSON form.
namespace slicescope::trace {

inline constexpr std::string_view kFormatName = "slicescope-trace";
inline constexpr int kFormatVersion = 1;

// Imported: converted from another tool's file (a PyTorch profiler trace, an Nsight Compute CSV;
// docs/import.md), never measured by SliceScope; Run::source says where it came from.
// Projected: a measured GPU run moved onto another GPU by the model's ratios (docs/model.md,
// "Projecting a measured run"); Run::projection names the source run and both devices.
enum class RunMode { MeasuredGpu, MeasuredCpu, Modelled, Recorded, Imported, Projected };
// "measured-gpu", "measured-cpu", "modelled", "recorded", "imported", "projected"
std::string_view toString(RunMode mode);
Result<RunMode> parseRunMode(std::string_view text);
// Modelled and projected runs: times the model made, never measured. They are drawn hatched and
// labelled with predictedWord: "modelled" or "projected"; empty for the other modes.
bool isPredicted(RunMode mode);
std::string_view predictedWord(RunMode mode);

enum class ActivityKind : std::uint8_t {
    HtoD,     // host-to-device copy
    DtoH,     // device-to-host copy
    DtoD,     // device-to-device (or peer) copy
    HtoH,     // host-to-host copy through the CUDA API
    Kernel,   // a kernel launch's execution on the device
    Memset,   // a device memset
    Api,      // a CUDA runtime or driver API call on a host thread
    Sync,     // a synchronization wait (CUPTI SYNCHRONIZATION record)
    Host,     // host work timed by SliceScope (allocation, layout, compute, verification)
    Overhead, // profiler overhead (CUPTI buffer flush, instrumentation)
};
std::string_view toString(ActivityKind kind); // "htod", "dtoh", "dtod", "htoh", "kernel", ...
Result<ActivityKind> parseActivityKind(std::string_view text);
bool isCopy(ActivityKind kind);
bool isDeviceActivity(ActivityKind kind); // copies, kernels, memsets: what nvprof's gpu trace lists

// Where a copy's bytes live (CUpti_ActivityMemoryKind, reduced).
enum class MemoryKind : std::uint8_t { Unknown, Pageable, Pinned, Device, Array, Managed };
std::string_view toString(MemoryKind kind); // "unknown", "pageable", "pinned", "device", ...
Result<MemoryKind> parseMemoryKind(std::string_view text);

inline constexpr float kNoValue = std::numeric_limits<float>::quiet_NaN();

// What bounds a kernel's resident blocks per SM (occupancy::Limiter), where a trace says so.
enum class OccupancyLimiter : std::uint8_t { Unknown, Warps, Blocks, Registers, SharedMemory };
std::string_view toString(OccupancyLimiter limiter); // "unknown", "warps", ..., "shared-memory"
Result<OccupancyLimiter> parseOccupancyLimiter(std::string_view text);

// Activity::estimatedOccupancyPercent when there is no estimate.
inline constexpr std::uint8_t kNoPercent = 255;
// Activity::peerDevice of everything but a copy between two devices. Device ordinals above
// kMaxActivityDevice are stored as kMaxActivityDevice (no host has that many GPUs).
inline constexpr std::uint8_t kNoDevice = 255;
inline constexpr std::uint8_t kMaxActivityDevice = 254;

// One interval on a timeline. Kept small (million-event traces): names are interned per run.
struct Activity {
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    std::uint64_t bytes = 0;  // copies and memsets
    Dim3 grid;                // kernels
    Dim3 block;               // kernels
    std::uint32_t nameId = 0; // index into Run::strings; 0 means no name
    std::uint32_t correlationId = 0;
    std::uint32_t stream = 0;
    std::uint32_t threadId = 0; // host thread (api, sync, host)
    std::uint32_t staticSharedBytes = 0;
    std::uint32_t dynamicSharedBytes = 0;
    std::uint16_t registersPerThread = 0;
    std::uint16_t iteration = 0; // which repetition of the run (0-based)
    ActivityKind kind = ActivityKind::Host;
    MemoryKind srcKind = MemoryKind::Unknown;
    MemoryKind dstKind = MemoryKind::Unknown;
    // Part of a warm-up iteration: drawn, never counted in the run's per-repetition figures
    // (runsummary.h). Its `iteration` numbers the warm-up iterations from 0.
    bool warmup = false;
    // Kernels of imported traces: what bounds the theoretical occupancy (Unknown elsewhere: the
    // occupancy view works it out from the launch).
    OccupancyLimiter limiter = OccupancyLimiter::Unknown;
    // Kernels of imported traces, 0..100 or kNoPercent: the profiling tool's own estimate of
    // achieved occupancy (the PyTorch profiler's "est. achieved occupancy %", whole percent as it
    // writes it), worked out from the launch. An estimate, never a measurement: achieved
    // occupancy stays unknown.
    std::uint8_t estimatedOccupancyPercent = kNoPercent;
    // Copies, kernels and memsets: the CUDA device (CUPTI's deviceId) the work ran on; a peer
    // copy's source device. 0 for host activities and for traces that do not say.
    std::uint8_t device = 0;
    // A copy between two devices (CUPTI's peer-to-peer MEMCPY2 records): its destination device;
    // kNoDevice otherwise.
    std::uint8_t peerDevice = kNoDevice;
    float theoreticalOccupancy = kNoValue; // kernels, 0..1, where known
    float achievedOccupancy = kNoValue;    // kernels, 0..1, with counters
    // Kernels, 0..1, with counters: the average share of a warp's lanes active in each warp
    // instruction it executed (threads per warp instruction / warp size). 1/32 for a kernel whose
    // one working thread does all the work; unknown (NaN) without counters.
    float activeLaneShare = kNoValue;

    std::int64_t durationNs() const { return endNs - startNs; }
};

struct LaunchInfo {
    Dim3 grid;
    Dim3 block;
    std::uint64_t workers = 0;
    std::uint64_t elementsPerWorker = 0;
    std::string layout;      // "rcn" or "crn"
    std::string blockOption; // "numba", "numba-cuda" or a number
    bool gridStride = false;
    std::uint32_t registersPerThread = 0;
    std::uint32_t staticSharedBytes = 0;
    std::uint32_t dynamicSharedBytes = 0;
};

struct OccupancyInfo {
    double theoretical = 0;         // 0..1, from the occupancy calculator
    std::optional<double> achieved; // 0..1, measured with counters only
    double threadSlotsBusy = 0;     // 0..1, busy threads / (SMs x max threads per SM)
    std::string limiter;            // "warps", "blocks", "registers", "shared-memory"
    std::string explanation;        // one sentence
    std::uint32_t activeBlocksPerSm = 0;
    std::optional<double> smBusyShare; // SMs busy over the elapsed time, 0..1, with counters only
    // The launch's own occupancy: the share of the whole GPU's warp slots its first wave fills,
    // given its grid (occupancy/launchoccupancy.h), and what binds it: "grid" or the per-SM
    // limiter. Traces before these fields lack them: read them through launchOccupancyOf
    // (runsummary.h), which derives them from the launch, the per-SM figures and the device.
    std::optional<double> launchOccupancy;
    std::string launchLimiter; // "grid", "warps", "blocks", "registers", "shared-memory"
};

struct Verification {
    bool passed = false;
    double maxAbsError = 0;
};

// Achieved occupancy over time (PM sampling), device-wide.
struct OccupancySample {
    std::int64_t timeNs = 0;
    float value = 0; // 0..1
};

// Which point of a sweep a run belongs to (slicescope-cli sweep): the swept parameter and its
// value at this point, as text ("64", "f32", "pinned"); numeric parameters are written as JSON
// numbers.
struct SweepPoint {
    std::string param; // "block", "rows", "columns", "n", "work", "dtype", "memory"
    std::string value;
    std::uint32_t index = 0; // position of the value in the sweep, 0-based
    friend bool operator==(const SweepPoint&, const SweepPoint&) = default;
};

// Roofline ceilings of the run's device: measured once per device (slicescope-cli run|sweep
// --roofline) or, for presets, taken from the datasheet. 0 = unknown.
struct Ceilings {
    double dramGBps = 0;       // device memory: a device-to-device copy, read + write bytes
    double pinnedHtoDGBps = 0; // host link, pinned host memory
    double pinnedDtoHGBps = 0;
    double pageableHtoDGBps = 0; // host link, pageable host memory
    double pageableDtoHGBps = 0;
    double fp64Gflops = 0; // FMA peak (2 flop per FMA)
    double fp32Gflops = 0;
    std::string source; // "measured" or "datasheet"
    friend bool operator==(const Ceilings&, const Ceilings&) = default;
};

// Where an imported run came from (docs/import.md).
struct ImportSource {
    std::string format; // "kineto" (PyTorch profiler) or "ncu-csv" (Nsight Compute --csv)
    std::string file;   // the file's name, without its folder
    friend bool operator==(const ImportSource&, const ImportSource&) = default;
};

// Where a projected run came from (docs/model.md, "Projecting a measured run"): the measured run
// it was moved from, the device that run was measured on, and the presets the model used.
struct Projection {
    std::string sourceRun;    // the measured run's id
    std::string sourceDevice; // the device it was measured on, as its trace names it
    std::string sourcePreset; // the preset the model took for that device, e.g. "h200"
    std::string targetPreset; // the preset it was projected onto, e.g. "t4"
    friend bool operator==(const Projection&, const Projection&) = default;
};

struct Run {
    std::string id;       // unique within its trace, e.g. "slice-outer" or "slice-outer-2"
    std::string strategy; // a strategy name, "recorded" or "imported"
    RunMode mode = RunMode::MeasuredCpu;
    std::optional<problem::Problem> problem;  // absent for recorded and imported runs
    device::DeviceSpec device;                // sources are not stored in traces
    std::optional<LaunchInfo> launch;         // GPU strategies
    std::optional<OccupancyInfo> occupancy;   // GPU strategies
    std::optional<Verification> verification; // absent for modelled, recorded, imported runs
    std::string memoryMode;                   // "pageable", "pinned", "managed", "mapped"
    std::uint32_t repeat = 1;
    std::uint32_t warmup = 0;  // warm-up iterations run before the `repeat` measured ones
    std::uint32_t chunks = 1;  // pieces the outer dimension was cut into (strategy/pipeline.h)
    std::uint32_t streams = 1; // streams the chunks went on
    std::int64_t wallNs = 0;   // host wall time of the whole run
    std::string createdAt;     // ISO 8601, UTC
    // The runs launched together (one request of the GUI, one slicescope-cli invocation), which
    // verdicts compare and modelled runs are placed with; empty when the file itself is the batch.
    // The GUI's session writes it so that a restore keeps its batches.
    std::string batch;
    // The GUI's session writes it for a run the user hid from the timeline: a restore keeps it
    // hidden.
    bool hidden = false;
    std::string command;              // recorded runs: the program and its arguments
    std::optional<int> exitStatus;    // recorded runs
    std::uint64_t droppedRecords = 0; // CUPTI records lost
    std::vector<std::string> notes;   // warnings a reader must see (e.g. no counters)
    std::optional<SweepPoint> sweep;  // runs of a sweep
    // Runs measured with --devices (several GPUs of one host at once): the CUDA device index it
    // ran on, which `device` (the GPU's figures) cannot tell apart between identical GPUs. Absent
    // for runs of one GPU.
    std::optional<std::uint32_t> deviceIndex;
    std::optional<Ceilings> ceilings; // written inside the device object
    // Imported runs: the file they were converted from.
    std::optional<ImportSource> source;
    // Projected runs: the measured run and the devices.
    std::optional<Projection> projection;

    std::vector<std::string> strings = {std::string()}; // interned names; [0] is "no name"
    std::vector<Activity> activities;
    std::vector<OccupancySample> occupancySeries;

    std::string_view name(const Activity& activity) const;
    // Index of text in strings, adding it if new. Linear for short tables; use a NameTable
    // when adding many names.
    std::uint32_t intern(std::string_view text);
    // The earliest start and latest end over all activities (0, 0 when there are none).
    std::int64_t beginNs() const;
    std::int64_t endNs() const;
};

// Interns names into one run's string table in constant time per name, for code that adds many
// activities (trace readers, GPU backends). It indexes run.strings at construction; while it
// lives, add names only through it. The run must outlive it and stay at the same address.
class NameTable {
  public:
    explicit NameTable(Run& run);
    // Same contract as Run::intern: 0 for the empty name, otherwise the index of text.
    std::uint32_t intern(std::string_view text);

  private:
    // The set holds indices into run.strings, hashed and compared by the text they name, so
    // names are stored once and lookups by string_view allocate nothing.
    struct Hash {
        using is_transparent = void;
        const std::vector<std::string>* strings;
        std::size_t operator()(std::string_view text) const noexcept;
        std::size_t operator()(std::uint32_t id) const noexcept;
    };
    struct Equal {
        using is_transparent = void;
        const std::vector<std::string>* strings;
        bool operator()(std::uint32_t a, std::uint32_t b) const noexcept { return a == b; }
        bool operator()(std::string_view a, std::uint32_t b) const noexcept;
        bool operator()(std::uint32_t a, std::string_view b) const noexcept;
    };
    Run* run_;
    std::unordered_set<std::uint32_t, Hash, Equal> ids_;
};

// Where the fastest strategy of a sweep changes, between two neighbouring points.
struct Crossover {
    std::string from;      // the strategy fastest before
    std::string to;        // the strategy fastest after
    std::string lowValue;  // the last point where `from` was fastest
    std::string highValue; // the first point where `to` is fastest
    // Where the two strategies' times meet, interpolated between the points (on log axes for
    // numeric parameters); NaN for a categorical parameter (dtype, memory).
    double at = std::numeric_limits<double>::quiet_NaN();
    bool interpolated = false;
    std::string text; // one line in plain words
};

// A whole sweep: what was swept over which values, and its crossovers, so a reader can draw the
// chart from the trace alone (the runs carry their SweepPoint).
struct Sweep {
    std::string param;
    std::vector<std::string> values;          // in sweep order
    std::string scale;                        // "log" (numeric parameters) or "category"
    std::vector<std::string> strategies;      // in the order given
    std::string metric = "per_repetition_ns"; // what crossovers compare (runsummary.h)
    bool complete = true;                     // false when interrupted: only some points ran
    std::vector<Crossover> crossovers;
};

struct Trace {
    Trace() = default;
    // Trace{"generator", {runs...}} stays valid without naming the sweeps.
    Trace(std::string generatorName, std::vector<Run> traceRuns,
          std::vector<Sweep> traceSweeps = {})
        : generator(std::move(generatorName)), runs(std::move(traceRuns)),
          sweeps(std::move(traceSweeps)) {}

    std::string generator; // "slicescope 0.1.0"
    std::vector<Run> runs;
    std::vector<Sweep> sweeps; // written only when not empty
};

} // namespace slicescope::trace
