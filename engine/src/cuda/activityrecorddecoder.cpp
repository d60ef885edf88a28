#include "activityrecorddecoder.h"

#include <algorithm>
#include <cstdlib>
#include <cxxabi.h>
#include <memory>

namespace slicescope::cuda {

namespace {

using trace::ActivityKind;
using trace::MemoryKind;

std::int64_t ns(std::uint64_t timestamp) {
    return std::int64_t(timestamp);
}

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel".
std::string withoutVersionSuffix(std::string name) {
    const auto cut = name.rfind("_v");
    if (cut != std::string::npos && cut + 2 < name.size() &&
        name.find_first_not_of("0123456789", cut + 2) == std::string::npos) {
        name.resize(cut);
    }
    return name;
}

std::string demangle(const char* mangled) {
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> text(
        abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
    return status == 0 && text ? std::string(text.get()) : std::string(mangled);
}

ActivityKind copyKind(std::uint8_t kind) {
    switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
        return ActivityKind::HtoD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
        return ActivityKind::DtoH;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
        return ActivityKind::HtoH;
    default:
        return ActivityKind::DtoD; // DtoD, AtoA, AtoD, DtoA, PtoP: device-side copies
    }
}

std::string_view copyName(std::uint8_t kind) {
    switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
        return "[CUDA memcpy HtoD]";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
        return "[CUDA memcpy DtoH]";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
        return "[CUDA memcpy HtoA]";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
        return "[CUDA memcpy AtoH]";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
        return "[CUDA memcpy AtoA]";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
        return "[CUDA memcpy AtoD]";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
        return "[CUDA memcpy DtoA]";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
        return "[CUDA memcpy DtoD]";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
        return "[CUDA memcpy HtoH]";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
        return "[CUDA memcpy PtoP]";
    default:
        return "[CUDA memcpy]";
    }
}

std::string_view syncName(CUpti_ActivitySynchronizationType type) {
    switch (type) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE:
        return "[event synchronize]";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT:
        return "[stream wait event]";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE:
        return "[stream synchronize]";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE:
        return "[context synchronize]";
    default:
        return "[synchronize]";
    }
}

std::string_view overheadName(CUpti_ActivityOverheadKind kind) {
    switch (kind) {
    case CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER:
        return "[driver compiler]";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH:
        return "[CUPTI buffer flush]";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION:
        return "[CUPTI instrumentation]";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE:
        return "[CUPTI resource]";
    case CUPTI_ACTIVITY_OVERHEAD_RUNTIME_TRIGGERED_MODULE_LOADING:
        return "[module loading]";
    case CUPTI_ACTIVITY_OVERHEAD_LAZY_FUNCTION_LOADING:
        return "[lazy function loading]";
    case CUPTI_ACTIVITY_OVERHEAD_COMMAND_BUFFER_FULL:
        return "[command buffer full]";
    case CUPTI_ACTIVITY_OVERHEAD_ACTIVITY_BUFFER_REQUEST:
        return "[activity buffer request]";
    case CUPTI_ACTIVITY_OVERHEAD_UVM_ACTIVITY_INIT:
        return "[UVM activity init]";
    default:
        return "[overhead]";
    }
}

std::uint32_t nonNegative(std::int32_t v) {
    return v < 0 ? 0u : std::uint32_t(v);
}

} // namespace

trace::MemoryKind toMemoryKind(std::uint32_t kind) {
    switch (kind) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE:
        return MemoryKind::Pageable;
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED:
        return MemoryKind::Pinned;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE:
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC:
        return MemoryKind::Device;
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY:
        return MemoryKind::Array;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED:
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC:
        return MemoryKind::Managed;
    default:
        return MemoryKind::Unknown;
    }
}

std::string cuptiCallbackName(CUpti_CallbackDomain domain, CUpti_CallbackId id) {
    const char* name = nullptr;
    if (cuptiGetCallbackName(domain, id, &name) != CUPTI_SUCCESS || name == nullptr) {
        return "[API " + std::to_string(id) + "]";
    }
    return withoutVersionSuffix(name);
}

ActivityRecordDecoder::ActivityRecordDecoder(NameResolver resolver)
    : resolver_(std::move(resolver)) {}

std::string_view ActivityRecordDecoder::name(std::uint32_t id) const {
    return id < names_.size() ? std::string_view(names_[id]) : std::string_view();
}

std::uint32_t ActivityRecordDecoder::intern(std::string_view text) {
    if (text.empty()) {
        return 0;
    }
    auto [it, inserted] = ids_.try_emplace(std::string(text), std::uint32_t(names_.size()));
    if (inserted) {
        names_.emplace_back(text);
    }
    return it->second;
}

std::uint32_t ActivityRecordDecoder::apiName(CUpti_CallbackDomain domain, CUpti_CallbackId id) {
    const std::uint64_t key = (std::uint64_t(domain) << 32) | id;
    if (auto it = apiNames_.find(key); it != apiNames_.end()) {
        return it->second;
    }
    const std::uint32_t nameId = intern(resolver_ ? resolver_(domain, id) : std::string("[API]"));
    apiNames_.emplace(key, nameId);
    return nameId;
}

std::uint32_t ActivityRecordDecoder::kernelName(const char* mangled) {
    if (mangled == nullptr) {
        return intern("[unnamed kernel]");
    }
    if (auto it = kernelNames_.find(mangled); it != kernelNames_.end()) {
        return it->second;
    }
    const std::uint32_t nameId = intern(demangle(mangled));
    kernelNames_.emplace(mangled, nameId);
    return nameId;
}

namespace {
// A CUDA device ordinal as an activity holds it (trace::Activity::device).
std::uint8_t deviceByte(std::uint32_t id) {
    return std::uint8_t(std::min<std::uint32_t>(id, trace::kMaxActivityDevice));
}

// Work on a device: copies, kernels, memsets (trace::isDeviceActivity, which lives in the core
// library that the injection library does not link).
bool onDevice(ActivityKind kind) {
    return kind != ActivityKind::Api && kind != ActivityKind::Sync && kind != ActivityKind::Host &&
           kind != ActivityKind::Overhead;
}

// The copy a unified-memory counter record stands for; none for page faults and the rest.
std::optional<ActivityKind> migrationKind(CUpti_ActivityUnifiedMemoryCounterKind kind) {
    switch (kind) {
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD:
        return ActivityKind::HtoD;
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH:
        return ActivityKind::DtoH;
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOD:
        return ActivityKind::DtoD;
    default:
        return std::nullopt;
    }
}
} // namespace

std::optional<DecodedActivity> ActivityRecordDecoder::decode(const CUpti_Activity& record) {
    DecodedActivity out;
    trace::Activity& a = out.activity;
    std::uint64_t start = 0, end = 0;
    bool deviceSet = false; // the record named its devices itself (peer copies, migrations)
    // MEMCPY and MEMCPY2 records name their copy fields alike.
    const auto copy = [&](const auto& r) {
        a.kind = copyKind(r.copyKind);
        a.bytes = r.bytes;
        a.srcKind = toMemoryKind(r.srcKind);
        a.dstKind = toMemoryKind(r.dstKind);
        a.stream = r.streamId;
        a.correlationId = r.correlationId;
        out.deviceId = r.deviceId;
        out.contextId = r.contextId;
        start = r.start;
        end = r.end;
    };
    switch (record.kind) {
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto& r = reinterpret_cast<const CUpti_ActivityMemcpy6&>(record);
        copy(r);
        a.nameId = intern(copyName(r.copyKind));
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2: {
        // Peer-to-peer copies (between two devices, or within one through the peer path).
        const auto& r = reinterpret_cast<const CUpti_ActivityMemcpyPtoP4&>(record);
        copy(r);
        a.nameId = intern("peer copy, device " + std::to_string(r.srcDeviceId) + " to device " +
                          std::to_string(r.dstDeviceId));
        a.device = deviceByte(r.srcDeviceId);
        a.peerDevice =
            r.srcDeviceId == r.dstDeviceId ? trace::kNoDevice : deviceByte(r.dstDeviceId);
        deviceSet = true;
        break;
    }
    case CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER: {
        // Unified-memory migrations are copies the driver makes; page faults and the rest are
        // counted as kinds not read.
        const auto& r = reinterpret_cast<const CUpti_ActivityUnifiedMemoryCounter3&>(record);
        const auto kind = migrationKind(r.counterKind);
        if (!kind) {
            ++counts_.unknown;
            return std::nullopt;
        }
        a.kind = *kind;
        a.nameId = intern("unified memory migration");
        // The device end of the migration; a device-to-device one names both.
        a.device = deviceByte(a.kind == ActivityKind::HtoD ? r.dstId : r.srcId);
        if (a.kind == ActivityKind::DtoD && r.srcId != r.dstId) {
            a.peerDevice = deviceByte(r.dstId);
        }
        deviceSet = true;
        a.bytes = r.value;
        a.srcKind = trace::MemoryKind::Managed;
        a.dstKind = trace::MemoryKind::Managed;
        a.stream = r.streamId;
        start = r.start;
        end = r.end;
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto& r = reinterpret_cast<const CUpti_ActivityMemset4&>(record);
        a.kind = ActivityKind::Memset;
        a.nameId = intern("[CUDA memset]");
        a.bytes = r.bytes;
        a.dstKind = toMemoryKind(r.memoryKind);
        a.stream = r.streamId;
        a.correlationId = r.correlationId;
        out.deviceId = r.deviceId;
        out.contextId = r.contextId;
        start = r.start;
        end = r.end;
        break;
    }
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const auto& r = reinterpret_cast<const CUpti_ActivityKernel10&>(record);
        a.kind = ActivityKind::Kernel;
        a.nameId = kernelName(r.name);
        a.grid = {nonNegative(r.gridX), nonNegative(r.gridY), nonNegative(r.gridZ)};
        a.block = {nonNegative(r.blockX), nonNegative(r.blockY), nonNegative(r.blockZ)};
        a.registersPerThread = r.registersPerThread;
        a.staticSharedBytes = nonNegative(r.staticSharedMemory);
        a.dynamicSharedBytes = nonNegative(r.dynamicSharedMemory);
        a.stream = r.streamId;
        a.correlationId = r.correlationId;
        out.deviceId = r.deviceId;
        out.contextId = r.contextId;
        out.gridId = r.gridId;
        start = r.start;
        end = r.end;
        break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
        const auto& r = reinterpret_cast<const CUpti_ActivityAPI&>(record);
        a.kind = ActivityKind::Api;
        a.nameId = apiName(record.kind == CUPTI_ACTIVITY_KIND_RUNTIME ? CUPTI_CB_DOMAIN_RUNTIME_API
                                                                      : CUPTI_CB_DOMAIN_DRIVER_API,
                           r.cbid);
        a.threadId = r.threadId;
        a.correlationId = r.correlationId;
        out.returnValue = r.returnValue;
        start = r.start;
        end = r.end;
        break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
        const auto& r = reinterpret_cast<const CUpti_ActivitySynchronization2&>(record);
        a.kind = ActivityKind::Sync;
        a.nameId = intern(syncName(r.type));
        a.correlationId = r.correlationId;
        a.stream = r.streamId == CUPTI_SYNCHRONIZATION_INVALID_VALUE ? 0u : r.streamId;
        out.contextId = r.contextId;
        out.returnValue = r.returnValue;
        start = r.start;
        end = r.end;
        break;
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD: {
        const auto& r = reinterpret_cast<const CUpti_ActivityOverhead3&>(record);
        a.kind = ActivityKind::Overhead;
        a.nameId = intern(overheadName(r.overheadKind));
        a.correlationId = r.correlationId;
        if (r.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ||
            r.objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS) {
            a.threadId = r.objectId.pt.threadId;
        }
        std::free(r.overheadData); // the client owns it (cupti_activity.h)
        start = r.start;
        end = r.end;
        break;
    }
    default:
        ++counts_.unknown;
        return std::nullopt;
    }
    if (!deviceSet && onDevice(a.kind)) {
        a.device = deviceByte(out.deviceId);
    }
    a.startNs = ns(start);
    a.endNs = ns(end);
    out.timed = !(start == 0 && end == 0);
    counts_.untimed += out.timed ? 0 : 1;
    ++counts_.decoded;
    return out;
}

} // namespace slicescope::cuda
