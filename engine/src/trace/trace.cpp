#include "slicescope/trace/trace.h"

#include <algorithm>
#include <array>
#include <utility>

namespace slicescope::trace {

// A million-event trace holds a million of these: the import fields fit in what was padding.
static_assert(sizeof(Activity) <= 96, "Activity grew: every loaded event pays for it");

namespace {

template <typename Enum, std::size_t N>
Result<Enum> parseName(const std::array<std::pair<Enum, std::string_view>, N>& names,
                       std::string_view text, std::string_view what) {
    for (const auto& [value, name] : names) {
        if (name == text) {
            return value;
        }
    }
    std::string known;
    for (const auto& [value, name] : names) {
        known += (known.empty() ? "" : ", ") + std::string(name);
    }
    return fail(Error::Code::Parse, "unknown " + std::string(what) + " '" + std::string(text) +
                                        "' (known: " + known + ")");
}

template <typename Enum, std::size_t N>
std::string_view nameOf(const std::array<std::pair<Enum, std::string_view>, N>& names, Enum value) {
    for (const auto& [v, name] : names) {
        if (v == value) {
            return name;
        }
    }
    return "unknown";
}

constexpr std::array<std::pair<RunMode, std::string_view>, 6> kRunModes{{
    {RunMode::MeasuredGpu, "measured-gpu"},
    {RunMode::MeasuredCpu, "measured-cpu"},
    {RunMode::Modelled, "modelled"},
    {RunMode::Recorded, "recorded"},
    {RunMode::Imported, "imported"},
    {RunMode::Projected, "projected"},
}};

// The names of occupancy::Limiter (occupancycalculator.cpp), and "unknown".
constexpr std::array<std::pair<OccupancyLimiter, std::string_view>, 5> kLimiters{{
    {OccupancyLimiter::Unknown, "unknown"},
    {OccupancyLimiter::Warps, "warps"},
    {OccupancyLimiter::Blocks, "blocks"},
    {OccupancyLimiter::Registers, "registers"},
    {OccupancyLimiter::SharedMemory, "shared-memory"},
}};

constexpr std::array<std::pair<ActivityKind, std::string_view>, 10> kActivityKinds{{
    {ActivityKind::HtoD, "htod"},
    {ActivityKind::DtoH, "dtoh"},
    {ActivityKind::DtoD, "dtod"},
    {ActivityKind::HtoH, "htoh"},
    {ActivityKind::Kernel, "kernel"},
    {ActivityKind::Memset, "memset"},
    {ActivityKind::Api, "api"},
    {ActivityKind::Sync, "sync"},
    {ActivityKind::Host, "host"},
    {ActivityKind::Overhead, "overhead"},
}};

constexpr std::array<std::pair<MemoryKind, std::string_view>, 6> kMemoryKinds{{
    {MemoryKind::Unknown, "unknown"},
    {MemoryKind::Pageable, "pageable"},
    {MemoryKind::Pinned, "pinned"},
    {MemoryKind::Device, "device"},
    {MemoryKind::Array, "array"},
    {MemoryKind::Managed, "managed"},
}};

} // namespace

std::string_view toString(RunMode mode) {
    return nameOf(kRunModes, mode);
}
Result<RunMode> parseRunMode(std::string_view text) {
    return parseName(kRunModes, text, "run mode");
}
bool isPredicted(RunMode mode) {
    return mode == RunMode::Modelled || mode == RunMode::Projected;
}
std::string_view predictedWord(RunMode mode) {
    return isPredicted(mode) ? toString(mode) : std::string_view();
}

std::string_view toString(ActivityKind kind) {
    return nameOf(kActivityKinds, kind);
}
Result<ActivityKind> parseActivityKind(std::string_view text) {
    return parseName(kActivityKinds, text, "activity kind");
}

std::string_view toString(OccupancyLimiter limiter) {
    return nameOf(kLimiters, limiter);
}
Result<OccupancyLimiter> parseOccupancyLimiter(std::string_view text) {
    return parseName(kLimiters, text, "limiter");
}

std::string_view toString(MemoryKind kind) {
    return nameOf(kMemoryKinds, kind);
}
Result<MemoryKind> parseMemoryKind(std::string_view text) {
    return parseName(kMemoryKinds, text, "memory kind");
}

bool isCopy(ActivityKind kind) {
    return kind == ActivityKind::HtoD || kind == ActivityKind::DtoH || kind == ActivityKind::DtoD ||
           kind == ActivityKind::HtoH;
}

bool isDeviceActivity(ActivityKind kind) {
    return isCopy(kind) || kind == ActivityKind::Kernel || kind == ActivityKind::Memset;
}

std::string_view Run::name(const Activity& activity) const {
    return activity.nameId < strings.size() ? std::string_view(strings[activity.nameId])
                                            : std::string_view();
}

std::uint32_t Run::intern(std::string_view text) {
    if (text.empty()) {
        return 0;
    }
    const auto it = std::find(strings.begin(), strings.end(), text);
    if (it != strings.end()) {
        return std::uint32_t(it - strings.begin());
    }
    strings.emplace_back(text);
    return std::uint32_t(strings.size() - 1);
}

std::int64_t Run::beginNs() const {
    if (activities.empty()) {
        return 0;
    }
    return std::min_element(
               activities.begin(), activities.end(),
               [](const Activity& a, const Activity& b) { return a.startNs < b.startNs; })
        ->startNs;
}

std::int64_t Run::endNs() const {
    if (activities.empty()) {
        return 0;
    }
    return std::max_element(activities.begin(), activities.end(),
                            [](const Activity& a, const Activity& b) { return a.endNs < b.endNs; })
        ->endNs;
}

NameTable::NameTable(Run& run)
    : run_(&run), ids_(run.strings.size() * 2 + 16, Hash{&run.strings}, Equal{&run.strings}) {
    // Index 0 is "no name" and stays out of the set; the first copy of a duplicate wins.
    for (std::size_t i = 1; i < run.strings.size(); ++i) {
        if (!run.strings[i].empty()) {
            ids_.insert(std::uint32_t(i));
        }
    }
}

std::uint32_t NameTable::intern(std::string_view text) {
    if (text.empty()) {
        return 0;
    }
    if (const auto it = ids_.find(text); it != ids_.end()) {
        return *it;
    }
    run_->strings.emplace_back(text);
    const auto id = std::uint32_t(run_->strings.size() - 1);
    ids_.insert(id);
    return id;
}

std::size_t NameTable::Hash::operator()(std::string_view text) const noexcept {
    return std::hash<std::string_view>{}(text);
}

std::size_t NameTable::Hash::operator()(std::uint32_t id) const noexcept {
    return (*this)(std::string_view((*strings)[id]));
}

bool NameTable::Equal::operator()(std::string_view a, std::uint32_t b) const noexcept {
    return a == std::string_view((*strings)[b]);
}

bool NameTable::Equal::operator()(std::uint32_t a, std::string_view b) const noexcept {
    return std::string_view((*strings)[a]) == b;
}

} // namespace slicescope::trace
