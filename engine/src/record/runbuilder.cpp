#include "runbuilder.h"

#include "spool/spoolconversion.h"

#include <algorithm>
#include <tuple>

namespace slicescope::record {

bool launchedBefore(const KernelLaunch& a, const KernelLaunch& b) {
    return std::tie(a.process, a.correlationId, a.gridId) <
           std::tie(b.process, b.correlationId, b.gridId);
}

RunBuilder::RunBuilder(trace::Run& run) : run_(run), names_(run) {}

namespace {
void addOnce(std::vector<std::string>& list, std::string text) {
    if (std::find(list.begin(), list.end(), text) == list.end()) {
        list.push_back(std::move(text));
    }
}
} // namespace

void RunBuilder::add(ProcessSpool& process, const Frame& frame) {
    switch (frame.type) {
    case FrameType::Name: {
        auto& map = nameMaps_[process.index];
        if (map.size() <= frame.name.id) {
            map.resize(std::size_t(frame.name.id) + 1, 0);
        }
        map[frame.name.id] = names_.intern(frame.name.text);
        break;
    }
    case FrameType::Activity: {
        const ActivityFrame& f = frame.activity;
        if (f.kind > std::uint8_t(trace::ActivityKind::Overhead) ||
            f.srcKind > std::uint8_t(trace::MemoryKind::Managed) ||
            f.dstKind > std::uint8_t(trace::MemoryKind::Managed)) {
            ++tally_.invalid;
            break;
        }
        // A forced flush at the end hands over work still running: no end time yet.
        if (!f.timed || f.startNs == 0 || f.endNs == 0) {
            ++tally_.untimed;
            break;
        }
        if (f.endNs < f.startNs) {
            ++tally_.invalid;
            break;
        }
        const auto& map = nameMaps_[process.index];
        const std::uint32_t nameId = f.nameId < map.size() ? map[f.nameId] : 0;
        const auto kind = trace::ActivityKind(f.kind);
        if (kind == trace::ActivityKind::Kernel) {
            kernels_.push_back({run_.activities.size(), process.index, f.deviceId, f.contextId,
                                f.correlationId, f.gridId});
            ++tally_.kernels;
        } else if (kind == trace::ActivityKind::Api) {
            ++tally_.apiCalls;
            // A graph launch starts many kernels and copies under one call: say how many there
            // were, or a timeline of few API calls and many kernels reads as a mystery.
            const std::string_view name = run_.strings[nameId];
            if (name.starts_with("cudaGraphLaunch") || name.starts_with("cuGraphLaunch")) {
                ++tally_.graphLaunches;
            }
        } else if (kind == trace::ActivityKind::Memset) {
            ++tally_.memsets;
        } else if (trace::isCopy(kind)) {
            ++tally_.copies;
        } else {
            ++tally_.other;
        }
        run_.activities.push_back(toActivity(f, nameId));
        break;
    }
    case FrameType::Device:
        devices_.emplace(frame.device.deviceId, frame.device);
        break;
    case FrameType::Message:
        switch (frame.message.severity) {
        case MessageSeverity::Error:
            addOnce(errors_, frame.message.text);
            break;
        case MessageSeverity::CountersUnavailable:
            countersUnavailable_ = true;
            addOnce(notes_, frame.message.text);
            break;
        case MessageSeverity::Note:
            addOnce(notes_, frame.message.text);
            break;
        }
        break;
    case FrameType::Begin:
    case FrameType::Stats:
    case FrameType::Range:
    case FrameType::End:
        break;
    }
}

} // namespace slicescope::record
