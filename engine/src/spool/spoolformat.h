#pragma once

// The spool: what the injection library (CUDA_INJECTION64_PATH) writes while a recorded program
// runs, and `slicescope-cli record` turns into a trace once the program has ended, however it
// ended. One file per process that initialised CUDA, append-only, written with write(2): what
// has been written survives the process's death, SIGKILL included; only what was still in CUPTI's
// buffers or the library's own is lost, and the library flushes both periodically.
//
// A file is a sequence of frames, each
//     u8 type, u8 0, u8 0, u8 0, u32 payload bytes, payload, u32 checksum
// little-endian, the checksum being FNV-1a over the first 8 bytes and the payload. A reader stops
// at the first frame that is incomplete (the writer died mid-write, or is still writing) or whose
// checksum fails, and keeps everything before it. The first frame is a Begin frame whose version
// must equal kSpoolVersion: producer and consumer are one build of SliceScope.
//
// No CUDA, no CUPTI and no engine types beyond trace::ActivityKind/MemoryKind values, so the
// injection library links it and tests exercise it with no GPU.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace slicescope::record {

inline constexpr std::uint32_t kSpoolVersion = 3;
inline constexpr std::size_t kFrameHeaderBytes = 8;
inline constexpr std::size_t kFrameTrailerBytes = 4;
inline constexpr std::uint32_t kMaxPayloadBytes = 16u << 20;
// Spool files in a recording directory end in this.
inline constexpr std::string_view kSpoolSuffix = ".spool";

enum class FrameType : std::uint8_t {
    Begin = 1,    // BeginFrame: one per file, first
    Name = 2,     // NameFrame: a name an activity refers to, before the first such activity
    Activity = 3, // ActivityFrame
    Device = 4,   // DeviceFrame: a device's properties, from CUPTI's device record
    Stats = 5,    // StatsFrame: running totals; the last one counts
    Message = 6,  // MessageFrame: a CUPTI error or a note for the trace
    Range = 7,    // RangeFrame: one kernel's counters (the counting pass)
    End = 8,      // EndFrame: the process ended through exit() or a signal the library caught
};

enum class SpoolMode : std::uint32_t { Trace = 0, Counters = 1 };

struct BeginFrame {
    std::uint32_t version = kSpoolVersion;
    std::uint32_t pid = 0;
    std::uint32_t parentPid = 0;
    SpoolMode mode = SpoolMode::Trace;
    std::int64_t startNs = 0; // CUPTI's clock when the library started
    std::uint32_t flushPeriodMs = 0;
};

struct NameFrame {
    std::uint32_t id = 0;
    std::string text;
};

// A trace::Activity as the decoder produced it, with the CUPTI fields the recorder needs.
struct ActivityFrame {
    std::uint8_t kind = 0;    // trace::ActivityKind
    std::uint8_t srcKind = 0; // trace::MemoryKind
    std::uint8_t dstKind = 0;
    bool timed = true; // false: CUPTI gave no timestamps
    std::uint32_t nameId = 0;
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    std::uint64_t bytes = 0;
    std::uint32_t grid[3] = {1, 1, 1};
    std::uint32_t block[3] = {1, 1, 1};
    std::uint32_t correlationId = 0;
    std::uint32_t stream = 0;
    std::uint32_t threadId = 0;
    std::uint32_t staticSharedBytes = 0;
    std::uint32_t dynamicSharedBytes = 0;
    std::uint16_t registersPerThread = 0;
    std::uint32_t deviceId = 0;
    std::uint32_t contextId = 0;
    std::int64_t gridId = 0;
    std::uint32_t returnValue = 0;
    std::uint8_t device = 0;       // trace::Activity::device
    std::uint8_t peerDevice = 255; // trace::Activity::peerDevice (255: none)
};

// CUpti_ActivityDevice5's figures (units as CUPTI gives them).
struct DeviceFrame {
    std::uint32_t deviceId = 0;
    std::uint32_t computeMajor = 0;
    std::uint32_t computeMinor = 0;
    std::uint32_t smCount = 0;
    std::uint32_t threadsPerWarp = 0;
    std::uint32_t maxWarpsPerSm = 0;
    std::uint32_t maxBlocksPerSm = 0;
    std::uint32_t maxSharedMemoryPerSmBytes = 0;
    std::uint32_t maxRegistersPerSm = 0;
    std::uint32_t maxRegistersPerBlock = 0;
    std::uint32_t maxSharedMemoryPerBlockBytes = 0;
    std::uint32_t maxThreadsPerBlock = 0;
    std::uint32_t coreClockKHz = 0;
    std::uint64_t globalMemoryBandwidthKBps = 0;
    std::uint64_t globalMemoryBytes = 0;
    std::string name;
};

struct StatsFrame {
    std::uint64_t droppedRecords = 0; // CUPTI's count, summed
    std::uint64_t refusedBuffers = 0; // buffer requests the bounded pool turned down
    std::uint64_t unknownRecords = 0; // records of kinds the decoder does not know
    std::uint64_t activities = 0;     // activity frames written so far
};

enum class MessageSeverity : std::uint8_t { Note = 0, Error = 1, CountersUnavailable = 2 };

struct MessageFrame {
    MessageSeverity severity = MessageSeverity::Note;
    std::string text;
};

struct RangeFrame {
    std::uint32_t contextId = 0;
    std::uint32_t deviceId = 0;
    std::uint64_t rangeIndex = 0; // launch order within the context, from 0
    double achievedOccupancy = 0; // 0..1
    double smCyclesActiveAvg = 0;
    double smCyclesActiveMax = 0;
    double gpuTimeNs = 0;
    double threadInstExecuted = 0; // smsp__thread_inst_executed.sum
    double instExecuted = 0;       // smsp__inst_executed.sum
};

enum class EndReason : std::uint8_t { Exit = 0, Signal = 1 };

struct EndFrame {
    EndReason reason = EndReason::Exit;
    std::int32_t signal = 0;
    std::int64_t endNs = 0;
};

// Appends frames to a byte buffer.
class SpoolEncoder {
  public:
    void begin(const BeginFrame& f);
    void name(const NameFrame& f);
    void activity(const ActivityFrame& f);
    void device(const DeviceFrame& f);
    void stats(const StatsFrame& f);
    void message(const MessageFrame& f);
    void range(const RangeFrame& f);
    void end(const EndFrame& f);

    const std::string& bytes() const { return out_; }
    std::string& bytes() { return out_; }
    void clear() { out_.clear(); }

  private:
    void frame(FrameType type, std::string_view payload);
    std::string out_;
    std::string payload_;
};

// One decoded frame.
struct Frame {
    FrameType type = FrameType::Begin;
    BeginFrame begin;
    NameFrame name;
    ActivityFrame activity;
    DeviceFrame device;
    StatsFrame stats;
    MessageFrame message;
    RangeFrame range;
    EndFrame end;
};

// Decodes frames from bytes that arrive in pieces (a file that is still growing).
class SpoolDecoder {
  public:
    enum class State { Ok, Corrupt };

    void feed(std::string_view bytes) { buffer_.append(bytes); }
    // The next complete frame, or nothing when more bytes are needed or the spool is corrupt
    // (state() then says so and why()).
    std::optional<Frame> next();

    State state() const { return state_; }
    const std::string& why() const { return why_; }
    // Bytes fed but not yet decoded: an incomplete frame at the end.
    std::size_t pendingBytes() const { return buffer_.size() - offset_; }

  private:
    bool decodePayload(FrameType type, std::string_view payload, Frame& out);
    std::string buffer_;
    std::size_t offset_ = 0;
    State state_ = State::Ok;
    std::string why_;
    bool sawBegin_ = false;
};

std::uint32_t fnv1a(std::string_view a, std::string_view b);

} // namespace slicescope::record
