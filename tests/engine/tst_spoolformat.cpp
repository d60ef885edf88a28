// The recording spool (engine/src/spool/): frames round-trip, arrive in pieces, a reader keeps
// everything before a torn or damaged frame, and an activity crosses the spool unchanged.
#include "spool/spoolconversion.h"
#include "spool/spoolformat.h"

#include <gtest/gtest.h>

namespace slicescope::record {
namespace {

ActivityFrame kernelFrame() {
    ActivityFrame f;
    f.kind = 4; // trace::ActivityKind::Kernel
    f.nameId = 3;
    f.startNs = 1'764'675'720'000'000'000;
    f.endNs = 1'764'675'720'000'047'000;
    f.grid[0] = 40;
    f.block[0] = 256;
    f.block[1] = 2;
    f.correlationId = 77;
    f.stream = 7;
    f.threadId = 4242;
    f.staticSharedBytes = 2048;
    f.dynamicSharedBytes = 4096;
    f.registersPerThread = 56;
    f.deviceId = 1;
    f.contextId = 9;
    f.gridId = 123456789012;
    return f;
}

std::string sampleSpool() {
    SpoolEncoder e;
    e.begin({kSpoolVersion, 100, 99, SpoolMode::Trace, 55, 100});
    e.name({3, "void fill<double>(double*, double, int)"});
    e.activity(kernelFrame());
    DeviceFrame d;
    d.deviceId = 1;
    d.name = "NVIDIA H200";
    d.smCount = 132;
    d.globalMemoryBytes = 150'000'000'000;
    e.device(d);
    e.stats({3, 2, 1, 1});
    e.message({MessageSeverity::CountersUnavailable, "no privileges"});
    e.range({9, 1, 4, 0.75, 10.5, 12.0, 4200.0, 96000.0, 4000.0});
    e.end({EndReason::Signal, 15, 66});
    return e.bytes();
}

std::vector<Frame> decodeAll(SpoolDecoder& d) {
    std::vector<Frame> frames;
    while (auto f = d.next()) {
        frames.push_back(*f);
    }
    return frames;
}

TEST(SpoolFormat, EveryFrameRoundTrips) {
    SpoolDecoder d;
    d.feed(sampleSpool());
    const auto frames = decodeAll(d);
    ASSERT_EQ(frames.size(), 8u);
    EXPECT_EQ(d.state(), SpoolDecoder::State::Ok);
    EXPECT_EQ(d.pendingBytes(), 0u);
    EXPECT_EQ(frames[0].begin.pid, 100u);
    EXPECT_EQ(frames[0].begin.parentPid, 99u);
    EXPECT_EQ(frames[0].begin.flushPeriodMs, 100u);
    EXPECT_EQ(frames[1].name.text, "void fill<double>(double*, double, int)");
    const auto& a = frames[2].activity;
    const auto want = kernelFrame();
    EXPECT_EQ(a.kind, want.kind);
    EXPECT_EQ(a.startNs, want.startNs);
    EXPECT_EQ(a.endNs, want.endNs);
    EXPECT_EQ(a.grid[0], 40u);
    EXPECT_EQ(a.block[1], 2u);
    EXPECT_EQ(a.staticSharedBytes, 2048u);
    EXPECT_EQ(a.dynamicSharedBytes, 4096u);
    EXPECT_EQ(a.registersPerThread, 56);
    EXPECT_EQ(a.gridId, want.gridId);
    EXPECT_EQ(a.threadId, 4242u);
    EXPECT_EQ(frames[3].device.name, "NVIDIA H200");
    EXPECT_EQ(frames[3].device.globalMemoryBytes, 150'000'000'000u);
    EXPECT_EQ(frames[4].stats.droppedRecords, 3u);
    EXPECT_EQ(frames[5].message.severity, MessageSeverity::CountersUnavailable);
    EXPECT_EQ(frames[5].message.text, "no privileges");
    EXPECT_EQ(frames[6].range.rangeIndex, 4u);
    EXPECT_DOUBLE_EQ(frames[6].range.achievedOccupancy, 0.75);
    EXPECT_DOUBLE_EQ(frames[6].range.threadInstExecuted, 96000.0);
    EXPECT_DOUBLE_EQ(frames[6].range.instExecuted, 4000.0);
    EXPECT_EQ(frames[7].end.reason, EndReason::Signal);
    EXPECT_EQ(frames[7].end.signal, 15);
}

// toFrame (the injection library) and toActivity (the recorder) through an encoded spool: every
// field of the activity and of its origin arrives.
TEST(SpoolFormat, AnActivityCrossesTheSpoolUnchanged) {
    trace::Activity a;
    a.kind = trace::ActivityKind::HtoD;
    a.srcKind = trace::MemoryKind::Pinned;
    a.dstKind = trace::MemoryKind::Device;
    a.nameId = 5;
    a.startNs = 1'764'675'720'000'000'000;
    a.endNs = 1'764'675'720'000'050'000;
    a.bytes = 16'000'000;
    a.grid = {3, 2, 1};
    a.block = {128, 2, 1};
    a.correlationId = 41;
    a.stream = 13;
    a.threadId = 777;
    a.staticSharedBytes = 1024;
    a.dynamicSharedBytes = 512;
    a.registersPerThread = 40;
    a.device = 2;     // a peer copy from device 2 ...
    a.peerDevice = 3; // ... to device 3
    SpoolEncoder e;
    e.begin({kSpoolVersion, 100, 99, SpoolMode::Trace, 55, 100});
    e.activity(toFrame(a, {2, 8, 99'000'000'000, 4, false}));
    SpoolDecoder d;
    d.feed(e.bytes());
    const auto frames = decodeAll(d);
    ASSERT_EQ(frames.size(), 2u);
    ASSERT_EQ(frames[1].type, FrameType::Activity);
    const ActivityFrame& f = frames[1].activity;
    EXPECT_EQ(f.deviceId, 2u);
    EXPECT_EQ(f.contextId, 8u);
    EXPECT_EQ(f.gridId, 99'000'000'000);
    EXPECT_EQ(f.returnValue, 4u);
    EXPECT_FALSE(f.timed);
    EXPECT_EQ(f.nameId, 5u);
    const trace::Activity back = toActivity(f, 17);
    EXPECT_EQ(back.nameId, 17u);
    EXPECT_EQ(back.kind, a.kind);
    EXPECT_EQ(back.srcKind, a.srcKind);
    EXPECT_EQ(back.dstKind, a.dstKind);
    EXPECT_EQ(back.startNs, a.startNs);
    EXPECT_EQ(back.endNs, a.endNs);
    EXPECT_EQ(back.bytes, a.bytes);
    EXPECT_EQ(back.grid.x, 3u);
    EXPECT_EQ(back.grid.y, 2u);
    EXPECT_EQ(back.block.x, 128u);
    EXPECT_EQ(back.block.y, 2u);
    EXPECT_EQ(back.correlationId, a.correlationId);
    EXPECT_EQ(back.stream, a.stream);
    EXPECT_EQ(back.threadId, a.threadId);
    EXPECT_EQ(back.staticSharedBytes, a.staticSharedBytes);
    EXPECT_EQ(back.dynamicSharedBytes, a.dynamicSharedBytes);
    EXPECT_EQ(back.registersPerThread, a.registersPerThread);
    EXPECT_EQ(back.device, 2);
    EXPECT_EQ(back.peerDevice, 3);
}

TEST(SpoolFormat, FramesArriveInPieces) {
    const std::string bytes = sampleSpool();
    SpoolDecoder d;
    std::size_t frames = 0;
    for (char c : bytes) {
        d.feed(std::string_view(&c, 1));
        while (d.next()) {
            ++frames;
        }
    }
    EXPECT_EQ(frames, 8u);
    EXPECT_EQ(d.state(), SpoolDecoder::State::Ok);
}

TEST(SpoolFormat, ATornLastFrameIsPendingAndTheRestKept) {
    const std::string bytes = sampleSpool();
    SpoolDecoder d;
    d.feed(bytes.substr(0, bytes.size() - 5)); // the writer died inside the End frame
    EXPECT_EQ(decodeAll(d).size(), 7u);
    EXPECT_EQ(d.state(), SpoolDecoder::State::Ok);
    EXPECT_GT(d.pendingBytes(), 0u);
}

TEST(SpoolFormat, ADamagedFrameStopsReadingThere) {
    std::string bytes = sampleSpool();
    // Flip a byte inside the third frame (the activity): its checksum fails.
    SpoolEncoder first;
    first.begin({kSpoolVersion, 100, 99, SpoolMode::Trace, 55, 100});
    first.name({3, "void fill<double>(double*, double, int)"});
    bytes[first.bytes().size() + 20] ^= 0x40;
    SpoolDecoder d;
    d.feed(bytes);
    EXPECT_EQ(decodeAll(d).size(), 2u);
    EXPECT_EQ(d.state(), SpoolDecoder::State::Corrupt);
    EXPECT_NE(d.why().find("checksum"), std::string::npos) << d.why();
}

TEST(SpoolFormat, AnotherVersionIsRefused) {
    SpoolEncoder e;
    e.begin({kSpoolVersion + 1, 1, 0, SpoolMode::Trace, 0, 100});
    SpoolDecoder d;
    d.feed(e.bytes());
    EXPECT_FALSE(d.next());
    EXPECT_EQ(d.state(), SpoolDecoder::State::Corrupt);
    EXPECT_NE(d.why().find("version"), std::string::npos) << d.why();
}

TEST(SpoolFormat, ASpoolMustStartWithBegin) {
    SpoolEncoder e;
    e.name({1, "x"});
    SpoolDecoder d;
    d.feed(e.bytes());
    EXPECT_FALSE(d.next());
    EXPECT_EQ(d.state(), SpoolDecoder::State::Corrupt);
}

TEST(SpoolFormat, GarbageIsNotAFrame) {
    SpoolDecoder d;
    d.feed(std::string(64, 'x'));
    EXPECT_FALSE(d.next());
    EXPECT_EQ(d.state(), SpoolDecoder::State::Corrupt);
}

} // namespace
} // namespace slicescope::record
