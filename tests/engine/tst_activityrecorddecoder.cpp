// Record decoding and buffer pooling of the CUPTI activity collector, through its seams: records
// built by hand, a fake API-name resolver, no GPU and no CUPTI session.
#include "activitybufferpool.h"
#include "activityrecorddecoder.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <gtest/gtest.h>

using namespace slicescope;
using namespace slicescope::cuda;
using trace::ActivityKind;
using trace::MemoryKind;

namespace {

template <typename Record> Record blank(CUpti_ActivityKind kind) {
    Record r;
    std::memset(&r, 0, sizeof r);
    r.kind = kind;
    return r;
}

const CUpti_Activity& asRecord(const void* r) {
    return *static_cast<const CUpti_Activity*>(r);
}

ActivityRecordDecoder fakeDecoder() {
    return ActivityRecordDecoder([](CUpti_CallbackDomain domain, CUpti_CallbackId id) {
        return std::string(domain == CUPTI_CB_DOMAIN_RUNTIME_API ? "runtime#" : "driver#") +
               std::to_string(id);
    });
}

} // namespace

TEST(ActivityRecordDecoder, KernelRecordKeepsLaunchFacts) {
    auto k = blank<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    k.start = 1'000'000;
    k.end = 1'250'000;
    k.gridX = 7813;
    k.gridY = 1;
    k.gridZ = 1;
    k.blockX = 256;
    k.blockY = 1;
    k.blockZ = 1;
    k.registersPerThread = 56;
    k.staticSharedMemory = 48;
    k.dynamicSharedMemory = 1024;
    k.streamId = 13;
    k.correlationId = 42;
    k.gridId = 9;
    k.deviceId = 0;
    k.contextId = 1;
    k.name = "_ZN10slicescope7kernels16sliceOuterKernelIdEEvNS0_10KernelArgsE";
    auto decoder = fakeDecoder();
    auto d = decoder.decode(asRecord(&k));
    ASSERT_TRUE(d);
    EXPECT_EQ(d->activity.kind, ActivityKind::Kernel);
    EXPECT_EQ(d->activity.startNs, 1'000'000);
    EXPECT_EQ(d->activity.durationNs(), 250'000);
    EXPECT_EQ(d->activity.grid, (Dim3{7813, 1, 1}));
    EXPECT_EQ(d->activity.block, (Dim3{256, 1, 1}));
    EXPECT_EQ(d->activity.registersPerThread, 56);
    EXPECT_EQ(d->activity.staticSharedBytes, 48u);
    EXPECT_EQ(d->activity.dynamicSharedBytes, 1024u);
    EXPECT_EQ(d->activity.stream, 13u);
    EXPECT_EQ(d->activity.correlationId, 42u);
    EXPECT_EQ(d->gridId, 9);
    EXPECT_TRUE(d->timed);
    EXPECT_EQ(
        decoder.name(d->activity.nameId),
        "void slicescope::kernels::sliceOuterKernel<double>(slicescope::kernels::KernelArgs)");
    EXPECT_TRUE(std::isnan(d->activity.theoreticalOccupancy));
}

TEST(ActivityRecordDecoder, CopiesKeepDirectionBytesAndMemoryKinds) {
    auto decoder = fakeDecoder();
    auto in = blank<CUpti_ActivityMemcpy6>(CUPTI_ACTIVITY_KIND_MEMCPY);
    in.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
    in.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
    in.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    in.bytes = 16'000'000;
    in.start = 10;
    in.end = 2'400'010;
    in.correlationId = 5;
    auto d = decoder.decode(asRecord(&in));
    ASSERT_TRUE(d);
    EXPECT_EQ(d->activity.kind, ActivityKind::HtoD);
    EXPECT_EQ(d->activity.bytes, 16'000'000u);
    EXPECT_EQ(d->activity.srcKind, MemoryKind::Pageable);
    EXPECT_EQ(d->activity.dstKind, MemoryKind::Device);
    EXPECT_EQ(decoder.name(d->activity.nameId), "[CUDA memcpy HtoD]");

    auto out = blank<CUpti_ActivityMemcpy6>(CUPTI_ACTIVITY_KIND_MEMCPY);
    out.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
    out.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    out.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
    out.bytes = 3;
    out.start = 1;
    out.end = 2;
    d = decoder.decode(asRecord(&out));
    ASSERT_TRUE(d);
    EXPECT_EQ(d->activity.kind, ActivityKind::DtoH);
    EXPECT_EQ(d->activity.srcKind, MemoryKind::Device);
    EXPECT_EQ(d->activity.dstKind, MemoryKind::Pinned);

    auto dtod = blank<CUpti_ActivityMemcpy6>(CUPTI_ACTIVITY_KIND_MEMCPY);
    dtod.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOD;
    dtod.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_MANAGED;
    dtod.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC;
    dtod.start = 1;
    dtod.end = 2;
    d = decoder.decode(asRecord(&dtod));
    ASSERT_TRUE(d);
    EXPECT_EQ(d->activity.kind, ActivityKind::DtoD);
    EXPECT_EQ(d->activity.srcKind, MemoryKind::Managed);
    EXPECT_EQ(d->activity.dstKind, MemoryKind::Device);
}

TEST(ActivityRecordDecoder, MemsetSyncApiAndOverhead) {
    auto decoder = fakeDecoder();
    auto memset = blank<CUpti_ActivityMemset4>(CUPTI_ACTIVITY_KIND_MEMSET);
    memset.bytes = 4096;
    memset.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    memset.start = 5;
    memset.end = 9;
    auto d = decoder.decode(asRecord(&memset));
    ASSERT_TRUE(d);
    EXPECT_EQ(d->activity.kind, ActivityKind::Memset);
    EXPECT_EQ(d->activity.bytes, 4096u);

    auto sync = blank<CUpti_ActivitySynchronization2>(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
    sync.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
    sync.streamId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
    sync.start = 20;
    sync.end = 30;
    d = decoder.decode(asRecord(&sync));
    ASSERT_TRUE(d);
    EXPECT_EQ(d->activity.kind, ActivityKind::Sync);
    EXPECT_EQ(d->activity.stream, 0u); // "not applicable" is not a stream
    EXPECT_EQ(decoder.name(d->activity.nameId), "[context synchronize]");

    auto api = blank<CUpti_ActivityAPI>(CUPTI_ACTIVITY_KIND_RUNTIME);
    api.cbid = 211;
    api.threadId = 77;
    api.correlationId = 8;
    api.start = 100;
    api.end = 150;
    d = decoder.decode(asRecord(&api));
    ASSERT_TRUE(d);
    EXPECT_EQ(d->activity.kind, ActivityKind::Api);
    EXPECT_EQ(d->activity.threadId, 77u);
    EXPECT_EQ(decoder.name(d->activity.nameId), "runtime#211");

    auto overhead = blank<CUpti_ActivityOverhead3>(CUPTI_ACTIVITY_KIND_OVERHEAD);
    overhead.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
    overhead.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
    overhead.objectId.pt.threadId = 99;
    overhead.start = 1;
    overhead.end = 3;
    overhead.overheadData = std::malloc(16); // the decoder frees it, as CUPTI asks of its client
    d = decoder.decode(asRecord(&overhead));
    ASSERT_TRUE(d);
    EXPECT_EQ(d->activity.kind, ActivityKind::Overhead);
    EXPECT_EQ(d->activity.threadId, 99u);
    EXPECT_EQ(decoder.name(d->activity.nameId), "[CUPTI buffer flush]");
    EXPECT_EQ(decoder.counts().decoded, 4u);
}

TEST(ActivityRecordDecoder, PeerCopiesAreDeviceCopies) {
    auto decoder = fakeDecoder();
    auto p = blank<CUpti_ActivityMemcpyPtoP4>(CUPTI_ACTIVITY_KIND_MEMCPY2);
    p.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
    p.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    p.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    p.bytes = 1 << 20;
    p.start = 100;
    p.end = 400;
    p.srcDeviceId = 0;
    p.dstDeviceId = 1;
    p.streamId = 7;
    p.correlationId = 5;
    auto d = decoder.decode(asRecord(&p));
    ASSERT_TRUE(d);
    EXPECT_EQ(d->activity.kind, ActivityKind::DtoD);
    EXPECT_EQ(d->activity.bytes, 1u << 20);
    EXPECT_EQ(d->activity.srcKind, MemoryKind::Device);
    EXPECT_EQ(d->activity.durationNs(), 300);
    EXPECT_EQ(d->activity.correlationId, 5u);
    EXPECT_EQ(decoder.name(d->activity.nameId), "peer copy, device 0 to device 1");
    EXPECT_EQ(decoder.counts().unknown, 0u);
    // Drawn between the two devices: from its source, to its destination.
    EXPECT_EQ(d->activity.device, 0);
    EXPECT_EQ(d->activity.peerDevice, 1);
    // The other way, issued on device 0 (CUPTI's deviceId), from device 3 to device 2.
    p.deviceId = 0;
    p.srcDeviceId = 3;
    p.dstDeviceId = 2;
    auto back = decoder.decode(asRecord(&p));
    ASSERT_TRUE(back);
    EXPECT_EQ(back->activity.device, 3);
    EXPECT_EQ(back->activity.peerDevice, 2);
}

TEST(ActivityRecordDecoder, DeviceWorkSaysItsDeviceAndHostWorkNone) {
    auto decoder = fakeDecoder();
    auto k = blank<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    k.deviceId = 1;
    k.start = 10;
    k.end = 20;
    auto kernel = decoder.decode(asRecord(&k));
    ASSERT_TRUE(kernel);
    EXPECT_EQ(kernel->activity.device, 1);
    EXPECT_EQ(kernel->activity.peerDevice, trace::kNoDevice);
    auto c = blank<CUpti_ActivityMemcpy6>(CUPTI_ACTIVITY_KIND_MEMCPY);
    c.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOD;
    c.deviceId = 300; // beyond what an activity holds: kept as the largest
    c.start = 10;
    c.end = 20;
    auto copy = decoder.decode(asRecord(&c));
    ASSERT_TRUE(copy);
    EXPECT_EQ(copy->activity.device, trace::kMaxActivityDevice);
    EXPECT_EQ(copy->activity.peerDevice, trace::kNoDevice); // a copy within one device
    auto api = blank<CUpti_ActivityAPI>(CUPTI_ACTIVITY_KIND_RUNTIME);
    api.start = 10;
    api.end = 20;
    auto call = decoder.decode(asRecord(&api));
    ASSERT_TRUE(call);
    EXPECT_EQ(call->activity.device, 0);
}

TEST(ActivityRecordDecoder, UnifiedMemoryMigrationsAreCopiesAndFaultsAreCounted) {
    auto decoder = fakeDecoder();
    auto m = blank<CUpti_ActivityUnifiedMemoryCounter3>(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
    m.counterKind = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD;
    m.value = 65536;
    m.start = 1000;
    m.end = 3000;
    m.streamId = 3;
    auto d = decoder.decode(asRecord(&m));
    ASSERT_TRUE(d);
    EXPECT_EQ(d->activity.kind, ActivityKind::HtoD);
    EXPECT_EQ(d->activity.bytes, 65536u);
    EXPECT_EQ(d->activity.srcKind, MemoryKind::Managed);
    EXPECT_EQ(d->activity.dstKind, MemoryKind::Managed);
    EXPECT_EQ(decoder.name(d->activity.nameId), "unified memory migration");
    m.counterKind = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH;
    EXPECT_EQ(decoder.decode(asRecord(&m))->activity.kind, ActivityKind::DtoH);
    m.counterKind = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT;
    EXPECT_FALSE(decoder.decode(asRecord(&m)));
    EXPECT_EQ(decoder.counts().unknown, 1u);
}

TEST(ActivityRecordDecoder, UnknownKindsAndUntimedRecordsAreCounted) {
    auto decoder = fakeDecoder();
    auto marker = blank<CUpti_ActivityMarker2>(CUPTI_ACTIVITY_KIND_MARKER);
    EXPECT_FALSE(decoder.decode(asRecord(&marker)));
    EXPECT_EQ(decoder.counts().unknown, 1u);

    auto k = blank<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    k.name = "plain";
    auto d = decoder.decode(asRecord(&k)); // start = end = 0: CUPTI could not time it
    ASSERT_TRUE(d);
    EXPECT_FALSE(d->timed);
    EXPECT_EQ(decoder.counts().untimed, 1u);
    EXPECT_EQ(decoder.counts().decoded, 1u);
}

TEST(ActivityRecordDecoder, NamesAreInternedOnce) {
    auto decoder = fakeDecoder();
    auto api = blank<CUpti_ActivityAPI>(CUPTI_ACTIVITY_KIND_RUNTIME);
    api.cbid = 13;
    api.start = 1;
    api.end = 2;
    const auto a = decoder.decode(asRecord(&api));
    const auto b = decoder.decode(asRecord(&api));
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->activity.nameId, b->activity.nameId);
    api.kind = CUPTI_ACTIVITY_KIND_DRIVER; // the same id in the driver domain is another name
    const auto c = decoder.decode(asRecord(&api));
    ASSERT_TRUE(c);
    EXPECT_NE(c->activity.nameId, a->activity.nameId);
    EXPECT_EQ(decoder.name(c->activity.nameId), "driver#13");
    EXPECT_EQ(decoder.names().size(), 3u); // "", runtime#13, driver#13
}

TEST(ActivityBufferPool, BoundedReusedAndAligned) {
    ActivityBufferPool pool(1024, 2);
    auto* a = pool.acquire();
    auto* b = pool.acquire();
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a) % ActivityBufferPool::kAlignment, 0u);
    EXPECT_EQ(pool.acquire(), nullptr); // both out: CUPTI must drop, not grow us
    EXPECT_EQ(pool.refused(), 1u);
    EXPECT_EQ(pool.outstanding(), 2u);
    pool.release(a);
    EXPECT_EQ(pool.acquire(), a); // reused, not reallocated
    EXPECT_EQ(pool.allocated(), 2u);
    pool.release(a);
    pool.release(b);
    EXPECT_EQ(pool.outstanding(), 0u);
}
