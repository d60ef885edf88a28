#include "spool/spoolformat.h"

#include <bit>
#include <cstring>
#include <type_traits>

namespace slicescope::record {

static_assert(std::endian::native == std::endian::little,
              "the spool is written in the machine's byte order, which must be little-endian");

namespace {

template <typename T> void put(std::string& out, T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    out.append(bytes, sizeof(T));
}

// Reads fixed-width values from a payload; any read past the end marks it failed.
class Reader {
  public:
    explicit Reader(std::string_view data) : data_(data) {}
    template <typename T> T get() {
        T value{};
        if (pos_ + sizeof(T) > data_.size()) {
            failed_ = true;
            return value;
        }
        std::memcpy(&value, data_.data() + pos_, sizeof(T));
        pos_ += sizeof(T);
        return value;
    }
    std::string rest() {
        std::string text(data_.substr(pos_));
        pos_ = data_.size();
        return text;
    }
    // True when every byte was read and none was missing.
    bool complete() const { return !failed_ && pos_ == data_.size(); }

  private:
    std::string_view data_;
    std::size_t pos_ = 0;
    bool failed_ = false;
};

} // namespace

std::uint32_t fnv1a(std::string_view a, std::string_view b) {
    std::uint32_t h = 2166136261u;
    for (std::string_view part : {a, b}) {
        for (unsigned char c : part) {
            h ^= c;
            h *= 16777619u;
        }
    }
    return h;
}

void SpoolEncoder::frame(FrameType type, std::string_view payload) {
    std::string header;
    put<std::uint8_t>(header, std::uint8_t(type));
    put<std::uint8_t>(header, 0);
    put<std::uint16_t>(header, 0);
    put<std::uint32_t>(header, std::uint32_t(payload.size()));
    out_ += header;
    out_.append(payload);
    put<std::uint32_t>(out_, fnv1a(header, payload));
}

void SpoolEncoder::begin(const BeginFrame& f) {
    payload_.clear();
    put(payload_, f.version);
    put(payload_, f.pid);
    put(payload_, f.parentPid);
    put(payload_, std::uint32_t(f.mode));
    put(payload_, f.startNs);
    put(payload_, f.flushPeriodMs);
    frame(FrameType::Begin, payload_);
}

void SpoolEncoder::name(const NameFrame& f) {
    payload_.clear();
    put(payload_, f.id);
    payload_ += f.text;
    frame(FrameType::Name, payload_);
}

void SpoolEncoder::activity(const ActivityFrame& f) {
    payload_.clear();
    put(payload_, f.kind);
    put(payload_, f.srcKind);
    put(payload_, f.dstKind);
    put<std::uint8_t>(payload_, f.timed ? 1 : 0);
    put(payload_, f.nameId);
    put(payload_, f.startNs);
    put(payload_, f.endNs);
    put(payload_, f.bytes);
    for (auto v : f.grid) {
        put(payload_, v);
    }
    for (auto v : f.block) {
        put(payload_, v);
    }
    put(payload_, f.correlationId);
    put(payload_, f.stream);
    put(payload_, f.threadId);
    put(payload_, f.staticSharedBytes);
    put(payload_, f.dynamicSharedBytes);
    put(payload_, f.registersPerThread);
    put(payload_, f.deviceId);
    put(payload_, f.contextId);
    put(payload_, f.gridId);
    put(payload_, f.returnValue);
    put(payload_, f.device);
    put(payload_, f.peerDevice);
    frame(FrameType::Activity, payload_);
}

void SpoolEncoder::device(const DeviceFrame& f) {
    payload_.clear();
    for (auto v : {f.deviceId, f.computeMajor, f.computeMinor, f.smCount, f.threadsPerWarp,
                   f.maxWarpsPerSm, f.maxBlocksPerSm, f.maxSharedMemoryPerSmBytes,
                   f.maxRegistersPerSm, f.maxRegistersPerBlock, f.maxSharedMemoryPerBlockBytes,
                   f.maxThreadsPerBlock, f.coreClockKHz}) {
        put(payload_, v);
    }
    put(payload_, f.globalMemoryBandwidthKBps);
    put(payload_, f.globalMemoryBytes);
    payload_ += f.name;
    frame(FrameType::Device, payload_);
}

void SpoolEncoder::stats(const StatsFrame& f) {
    payload_.clear();
    put(payload_, f.droppedRecords);
    put(payload_, f.refusedBuffers);
    put(payload_, f.unknownRecords);
    put(payload_, f.activities);
    frame(FrameType::Stats, payload_);
}

void SpoolEncoder::message(const MessageFrame& f) {
    payload_.clear();
    put(payload_, std::uint8_t(f.severity));
    payload_ += f.text;
    frame(FrameType::Message, payload_);
}

void SpoolEncoder::range(const RangeFrame& f) {
    payload_.clear();
    put(payload_, f.contextId);
    put(payload_, f.deviceId);
    put(payload_, f.rangeIndex);
    put(payload_, f.achievedOccupancy);
    put(payload_, f.smCyclesActiveAvg);
    put(payload_, f.smCyclesActiveMax);
    put(payload_, f.gpuTimeNs);
    put(payload_, f.threadInstExecuted);
    put(payload_, f.instExecuted);
    frame(FrameType::Range, payload_);
}

void SpoolEncoder::end(const EndFrame& f) {
    payload_.clear();
    put(payload_, std::uint8_t(f.reason));
    put(payload_, f.signal);
    put(payload_, f.endNs);
    frame(FrameType::End, payload_);
}

bool SpoolDecoder::decodePayload(FrameType type, std::string_view payload, Frame& out) {
    Reader r(payload);
    out.type = type;
    switch (type) {
    case FrameType::Begin: {
        auto& f = out.begin;
        f.version = r.get<std::uint32_t>();
        f.pid = r.get<std::uint32_t>();
        f.parentPid = r.get<std::uint32_t>();
        f.mode = SpoolMode(r.get<std::uint32_t>());
        f.startNs = r.get<std::int64_t>();
        f.flushPeriodMs = r.get<std::uint32_t>();
        return r.complete();
    }
    case FrameType::Name:
        out.name.id = r.get<std::uint32_t>();
        out.name.text = r.rest();
        return r.complete();
    case FrameType::Activity: {
        auto& f = out.activity;
        f.kind = r.get<std::uint8_t>();
        f.srcKind = r.get<std::uint8_t>();
        f.dstKind = r.get<std::uint8_t>();
        f.timed = r.get<std::uint8_t>() != 0;
        f.nameId = r.get<std::uint32_t>();
        f.startNs = r.get<std::int64_t>();
        f.endNs = r.get<std::int64_t>();
        f.bytes = r.get<std::uint64_t>();
        for (auto& v : f.grid) {
            v = r.get<std::uint32_t>();
        }
        for (auto& v : f.block) {
            v = r.get<std::uint32_t>();
        }
        f.correlationId = r.get<std::uint32_t>();
        f.stream = r.get<std::uint32_t>();
        f.threadId = r.get<std::uint32_t>();
        f.staticSharedBytes = r.get<std::uint32_t>();
        f.dynamicSharedBytes = r.get<std::uint32_t>();
        f.registersPerThread = r.get<std::uint16_t>();
        f.deviceId = r.get<std::uint32_t>();
        f.contextId = r.get<std::uint32_t>();
        f.gridId = r.get<std::int64_t>();
        f.returnValue = r.get<std::uint32_t>();
        f.device = r.get<std::uint8_t>();
        f.peerDevice = r.get<std::uint8_t>();
        return r.complete();
    }
    case FrameType::Device: {
        auto& f = out.device;
        for (auto* v : {&f.deviceId, &f.computeMajor, &f.computeMinor, &f.smCount,
                        &f.threadsPerWarp, &f.maxWarpsPerSm, &f.maxBlocksPerSm,
                        &f.maxSharedMemoryPerSmBytes, &f.maxRegistersPerSm, &f.maxRegistersPerBlock,
                        &f.maxSharedMemoryPerBlockBytes, &f.maxThreadsPerBlock, &f.coreClockKHz}) {
            *v = r.get<std::uint32_t>();
        }
        f.globalMemoryBandwidthKBps = r.get<std::uint64_t>();
        f.globalMemoryBytes = r.get<std::uint64_t>();
        f.name = r.rest();
        return r.complete();
    }
    case FrameType::Stats: {
        auto& f = out.stats;
        f.droppedRecords = r.get<std::uint64_t>();
        f.refusedBuffers = r.get<std::uint64_t>();
        f.unknownRecords = r.get<std::uint64_t>();
        f.activities = r.get<std::uint64_t>();
        return r.complete();
    }
    case FrameType::Message: {
        const auto severity = r.get<std::uint8_t>();
        if (severity > std::uint8_t(MessageSeverity::CountersUnavailable)) {
            return false;
        }
        out.message.severity = MessageSeverity(severity);
        out.message.text = r.rest();
        return r.complete();
    }
    case FrameType::Range: {
        auto& f = out.range;
        f.contextId = r.get<std::uint32_t>();
        f.deviceId = r.get<std::uint32_t>();
        f.rangeIndex = r.get<std::uint64_t>();
        f.achievedOccupancy = r.get<double>();
        f.smCyclesActiveAvg = r.get<double>();
        f.smCyclesActiveMax = r.get<double>();
        f.gpuTimeNs = r.get<double>();
        f.threadInstExecuted = r.get<double>();
        f.instExecuted = r.get<double>();
        return r.complete();
    }
    case FrameType::End: {
        const auto reason = r.get<std::uint8_t>();
        if (reason > std::uint8_t(EndReason::Signal)) {
            return false;
        }
        out.end.reason = EndReason(reason);
        out.end.signal = r.get<std::int32_t>();
        out.end.endNs = r.get<std::int64_t>();
        return r.complete();
    }
    }
    return false;
}

std::optional<Frame> SpoolDecoder::next() {
    if (state_ != State::Ok) {
        return std::nullopt;
    }
    const std::string_view rest = std::string_view(buffer_).substr(offset_);
    if (rest.size() < kFrameHeaderBytes) {
        return std::nullopt;
    }
    std::uint32_t length = 0;
    std::memcpy(&length, rest.data() + 4, 4);
    const auto typeByte = std::uint8_t(rest[0]);
    auto corrupt = [&](std::string why) -> std::optional<Frame> {
        state_ = State::Corrupt;
        why_ = std::move(why) + " at byte " + std::to_string(offset_);
        return std::nullopt;
    };
    if (rest[1] != 0 || rest[2] != 0 || rest[3] != 0 || typeByte < std::uint8_t(FrameType::Begin) ||
        typeByte > std::uint8_t(FrameType::End)) {
        return corrupt("not a spool frame");
    }
    if (length > kMaxPayloadBytes) {
        return corrupt("frame of " + std::to_string(length) + " bytes");
    }
    const std::size_t total = kFrameHeaderBytes + length + kFrameTrailerBytes;
    if (rest.size() < total) {
        return std::nullopt; // incomplete: more may come
    }
    const std::string_view header = rest.substr(0, kFrameHeaderBytes);
    const std::string_view payload = rest.substr(kFrameHeaderBytes, length);
    std::uint32_t checksum = 0;
    std::memcpy(&checksum, rest.data() + kFrameHeaderBytes + length, 4);
    if (checksum != fnv1a(header, payload)) {
        return corrupt("checksum mismatch");
    }
    const auto type = FrameType(typeByte);
    if (!sawBegin_ && type != FrameType::Begin) {
        return corrupt("the spool does not start with a Begin frame");
    }
    Frame frame;
    if (!decodePayload(type, payload, frame)) {
        return corrupt("malformed frame of type " + std::to_string(typeByte));
    }
    if (type == FrameType::Begin) {
        if (frame.begin.version != kSpoolVersion) {
            return corrupt("spool version " + std::to_string(frame.begin.version) +
                           " (this build reads " + std::to_string(kSpoolVersion) + ")");
        }
        sawBegin_ = true;
    }
    offset_ += total;
    // Keep the buffer from growing with everything ever fed.
    if (offset_ > (1u << 20) && offset_ * 2 > buffer_.size()) {
        buffer_.erase(0, offset_);
        offset_ = 0;
    }
    return frame;
}

} // namespace slicescope::record
