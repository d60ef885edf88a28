#include "counterjoin.h"

#include <algorithm>
#include <cmath>

namespace slicescope::record {

namespace {
constexpr double kWarpSize = 32;
} // namespace

std::uint32_t CounterJoin::intern(const std::string& text) {
    auto [it, inserted] = nameIds_.try_emplace(text, std::uint32_t(names_.size()));
    if (inserted) {
        names_.push_back(text);
    }
    return it->second;
}

void CounterJoin::add(ProcessSpool& process, const Frame& frame) {
    switch (frame.type) {
    case FrameType::Name: {
        auto& map = nameMaps_[process.index];
        if (map.size() <= frame.name.id) {
            map.resize(std::size_t(frame.name.id) + 1, 0);
        }
        map[frame.name.id] = intern(frame.name.text);
        break;
    }
    case FrameType::Activity: {
        const ActivityFrame& f = frame.activity;
        if (f.kind != std::uint8_t(trace::ActivityKind::Kernel)) {
            break;
        }
        const auto& map = nameMaps_[process.index];
        Kernel k;
        k.launch = {0, process.index, f.deviceId, f.contextId, f.correlationId, f.gridId};
        k.nameId = f.nameId < map.size() ? map[f.nameId] : 0;
        k.grid = {f.grid[0], f.grid[1], f.grid[2]};
        k.block = {f.block[0], f.block[1], f.block[2]};
        kernels_.push_back(k);
        break;
    }
    case FrameType::Range: {
        auto& list = ranges_[{process.index, frame.range.contextId}];
        if (frame.range.rangeIndex < (std::uint64_t(1) << 32)) {
            if (list.size() <= frame.range.rangeIndex) {
                list.resize(std::size_t(frame.range.rangeIndex) + 1);
            }
            Counted& c = list[std::size_t(frame.range.rangeIndex)];
            c.achieved = float(frame.range.achievedOccupancy);
            // Threads per warp instruction over the warp size (every CUDA GPU's is 32): how many
            // of the launched threads did the work. A kernel that executed nothing says nothing.
            if (frame.range.instExecuted > 0) {
                c.activeLaneShare = float(std::clamp(frame.range.threadInstExecuted /
                                                         (kWarpSize * frame.range.instExecuted),
                                                     0.0, 1.0));
            }
            ++rangeCount_;
        }
        break;
    }
    case FrameType::Message:
        if (frame.message.severity == MessageSeverity::CountersUnavailable) {
            countersUnavailable_ = true;
        }
        if (std::find(messages_.begin(), messages_.end(), frame.message.text) == messages_.end()) {
            messages_.push_back(frame.message.text);
        }
        break;
    default:
        break;
    }
}

JoinResult CounterJoin::apply(trace::Run& run, std::vector<KernelLaunch> traced) const {
    JoinResult result;
    result.traced = traced.size();

    // The counting pass: each context's kernels in launch order take its ranges in order.
    std::vector<Kernel> counted = kernels_;
    std::sort(counted.begin(), counted.end(),
              [](const Kernel& a, const Kernel& b) { return launchedBefore(a.launch, b.launch); });
    std::vector<Counted> measured(counted.size());
    std::map<std::pair<std::size_t, std::uint32_t>, std::size_t> nextRange;
    for (std::size_t i = 0; i < counted.size(); ++i) {
        const auto key = std::make_pair(counted[i].launch.process, counted[i].launch.contextId);
        const std::size_t r = nextRange[key]++;
        if (auto it = ranges_.find(key); it != ranges_.end() && r < it->second.size()) {
            measured[i] = it->second[r];
        }
        if (!std::isnan(measured[i].achieved)) {
            ++result.counted;
        }
    }

    // Pair with the traced run's kernels, launch by launch, while they are the same kernel.
    std::sort(traced.begin(), traced.end(), launchedBefore);
    const std::size_t n = std::min(traced.size(), counted.size());
    for (std::size_t i = 0; i < n; ++i) {
        trace::Activity& a = run.activities[traced[i].activity];
        const Kernel& k = counted[i];
        if (run.name(a) != names_[k.nameId] || !(a.grid == k.grid) || !(a.block == k.block)) {
            result.mismatch = "launch " + std::to_string(i + 1) + " was " +
                              std::string(run.name(a)) + " in the traced run but " +
                              names_[k.nameId] + " in the counting run";
            break;
        }
        if (!std::isnan(measured[i].achieved)) {
            a.achievedOccupancy = measured[i].achieved;
            ++result.joined;
        }
        a.activeLaneShare = measured[i].activeLaneShare;
    }
    if (result.mismatch.empty() && traced.size() != counted.size()) {
        result.mismatch = "the traced run launched " + std::to_string(traced.size()) +
                          " kernels and the counting run " + std::to_string(counted.size());
    }
    return result;
}

} // namespace slicescope::record
