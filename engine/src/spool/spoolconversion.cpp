#include "spool/spoolconversion.h"

namespace slicescope::record {

ActivityFrame toFrame(const trace::Activity& a, const ActivityOrigin& origin) {
    ActivityFrame f;
    f.kind = std::uint8_t(a.kind);
    f.srcKind = std::uint8_t(a.srcKind);
    f.dstKind = std::uint8_t(a.dstKind);
    f.timed = origin.timed;
    f.nameId = a.nameId;
    f.startNs = a.startNs;
    f.endNs = a.endNs;
    f.bytes = a.bytes;
    f.grid[0] = a.grid.x;
    f.grid[1] = a.grid.y;
    f.grid[2] = a.grid.z;
    f.block[0] = a.block.x;
    f.block[1] = a.block.y;
    f.block[2] = a.block.z;
    f.correlationId = a.correlationId;
    f.stream = a.stream;
    f.threadId = a.threadId;
    f.staticSharedBytes = a.staticSharedBytes;
    f.dynamicSharedBytes = a.dynamicSharedBytes;
    f.registersPerThread = a.registersPerThread;
    f.deviceId = origin.deviceId;
    f.contextId = origin.contextId;
    f.gridId = origin.gridId;
    f.returnValue = origin.returnValue;
    f.device = a.device;
    f.peerDevice = a.peerDevice;
    return f;
}

trace::Activity toActivity(const ActivityFrame& f, std::uint32_t nameId) {
    trace::Activity a;
    a.kind = trace::ActivityKind(f.kind);
    a.srcKind = trace::MemoryKind(f.srcKind);
    a.dstKind = trace::MemoryKind(f.dstKind);
    a.nameId = nameId;
    a.startNs = f.startNs;
    a.endNs = f.endNs;
    a.bytes = f.bytes;
    a.grid = {f.grid[0], f.grid[1], f.grid[2]};
    a.block = {f.block[0], f.block[1], f.block[2]};
    a.correlationId = f.correlationId;
    a.stream = f.stream;
    a.threadId = f.threadId;
    a.staticSharedBytes = f.staticSharedBytes;
    a.dynamicSharedBytes = f.dynamicSharedBytes;
    a.registersPerThread = f.registersPerThread;
    a.device = f.device;
    a.peerDevice = f.peerDevice;
    return a;
}

} // namespace slicescope::record
