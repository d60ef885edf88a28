#include "devicejson.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace slicescope::device {

namespace {

// One table drives both directions, so the two can never disagree on a key.
template <typename Visitor> void visitFields(DeviceSpec& d, Visitor&& visit) {
    visit("id", d.id);
    visit("name", d.name);
    visit("sm_count", d.smCount);
    visit("warp_size", d.warpSize);
    visit("max_threads_per_sm", d.maxThreadsPerSm);
    visit("max_warps_per_sm", d.maxWarpsPerSm);
    visit("max_blocks_per_sm", d.maxBlocksPerSm);
    visit("max_threads_per_block", d.maxThreadsPerBlock);
    visit("registers_per_sm", d.registersPerSm);
    visit("registers_per_block", d.registersPerBlock);
    visit("max_registers_per_thread", d.maxRegistersPerThread);
    visit("shared_memory_per_sm_bytes", d.sharedMemoryPerSmBytes);
    visit("shared_memory_per_block_bytes", d.sharedMemoryPerBlockBytes);
    visit("shared_memory_per_block_optin_bytes", d.sharedMemoryPerBlockOptinBytes);
    visit("reserved_shared_memory_per_block_bytes", d.reservedSharedMemoryPerBlockBytes);
    visit("clock_mhz", d.clockMHz);
    visit("memory_bandwidth_gbps", d.memoryBandwidthGBps);
    visit("global_memory_bytes", d.globalMemoryBytes);
    visit("pageable_htod_gbps", d.pageableHtoDGBps);
    visit("pageable_dtoh_gbps", d.pageableDtoHGBps);
    visit("pinned_htod_gbps", d.pinnedHtoDGBps);
    visit("pinned_dtoh_gbps", d.pinnedDtoHGBps);
}

// Figures only the presets carry, for the model: they describe the architecture, not a run, so
// trace files (deviceToJson without sources) leave them out and the trace format stays as it is.
template <typename Visitor> void visitPresetFields(DeviceSpec& d, Visitor&& visit) {
    visit("fp32_fma_per_sm_per_clock", d.fp32FmaPerSmPerClock);
    visit("fp64_fma_per_sm_per_clock", d.fp64FmaPerSmPerClock);
    visit("l2_cache_bytes", d.l2CacheBytes);
}

} // namespace

const std::vector<std::string>& deviceFigureKeys() {
    // Read off the same table as the mapping, so the list cannot fall behind it.
    static const std::vector<std::string> keys = [] {
        std::vector<std::string> out;
        DeviceSpec scratch;
        visitFields(scratch, [&out](const char* key, const auto& value) {
            if constexpr (!std::is_same_v<std::decay_t<decltype(value)>, std::string>) {
                out.emplace_back(key);
            }
        });
        visitPresetFields(scratch, [&out](const char* key, const auto&) { out.emplace_back(key); });
        return out;
    }();
    return keys;
}

nlohmann::json deviceToJson(const DeviceSpec& device, bool withSources) {
    nlohmann::json j = nlohmann::json::object();
    DeviceSpec copy = device;
    visitFields(copy, [&j](const char* key, const auto& value) {
        using T = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<T, std::string>) {
            if (!value.empty() || std::string_view(key) == "name") {
                j[key] = value;
            }
        } else {
            j[key] = value;
        }
    });
    j["compute_capability"] = device.computeCapability();
    if (withSources) {
        visitPresetFields(copy, [&j](const char* key, const auto& value) { j[key] = value; });
        j["sources"] = device.sources;
    }
    return j;
}

Result<DeviceSpec> deviceFromJson(const nlohmann::json& object) {
    if (!object.is_object()) {
        return fail(Error::Code::Parse, "a device must be a JSON object");
    }
    if (!object.contains("name") || !object["name"].is_string()) {
        return fail(Error::Code::Parse, "a device needs a \"name\" string");
    }
    DeviceSpec d;
    std::string error;
    const auto read = [&object, &error](const char* key, auto& value) {
        using T = std::decay_t<decltype(value)>;
        const auto it = object.find(key);
        if (it == object.end() || !error.empty()) {
            return;
        }
        if constexpr (std::is_same_v<T, std::string>) {
            if (!it->is_string()) {
                error = std::string("device field \"") + key + "\" must be a string";
                return;
            }
        } else if constexpr (std::is_floating_point_v<T>) {
            // Finite: a JSON file cannot hold infinity (nlohmann writes it as null).
            if (!it->is_number() || !std::isfinite(it->template get<double>()) ||
                it->template get<double>() < 0) {
                error = std::string("device field \"") + key + "\" must be a finite number >= 0";
                return;
            }
        } else {
            // A figure the field cannot hold is an error, not its low bits (a fuzz finding).
            static_assert(std::is_unsigned_v<T>);
            // A whole number beyond 64 bits (30 digits) reaches here as a double.
            constexpr T kMax = std::numeric_limits<T>::max();
            const bool whole = it->is_number_unsigned() ||
                               (it->is_number_integer() && it->template get<long long>() >= 0);
            const bool tooLarge =
                (whole && it->template get<std::uint64_t>() > kMax) ||
                (it->is_number_float() && it->template get<double>() > double(kMax));
            if (tooLarge) {
                error = std::string("device field \"") + key + "\" is " + it->dump() +
                        ", out of range: at most " + std::to_string(kMax);
                return;
            }
            if (!whole) {
                error = std::string("device field \"") + key +
                        "\" must be a whole number from 0 to " + std::to_string(kMax);
                return;
            }
        }
        value = it->template get<T>();
    };
    visitFields(d, read);
    visitPresetFields(d, read);
    if (!error.empty()) {
        return fail(Error::Code::Parse, error);
    }
    if (const auto cc = object.find("compute_capability"); cc != object.end()) {
        // "M.m", each part at most three digits: sscanf("%d.%d") took "9.0 beta", "-9.-1", and
        // overflowed on eleven digits.
        const auto part = [](std::string_view text, int& out) {
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
            return !text.empty() && text.size() <= 3 && text.front() != '-' && ec == std::errc() &&
                   end == text.data() + text.size();
        };
        const std::string text = cc->is_string() ? cc->get<std::string>() : std::string();
        const std::size_t dot = text.find('.');
        int major = 0, minor = 0;
        if (dot == std::string::npos || !part(std::string_view(text).substr(0, dot), major) ||
            !part(std::string_view(text).substr(dot + 1), minor)) {
            return fail(Error::Code::Parse,
                        "device field \"compute_capability\" must look like \"9.0\"");
        }
        d.computeMajor = major;
        d.computeMinor = minor;
    }
    if (const auto sources = object.find("sources"); sources != object.end()) {
        if (!sources->is_object()) {
            return fail(Error::Code::Parse, "device field \"sources\" must be an object");
        }
        for (const auto& [key, value] : sources->items()) {
            if (!value.is_string()) {
                return fail(Error::Code::Parse, "source of \"" + key + "\" must be a string");
            }
            d.sources[key] = value.get<std::string>();
        }
    }
    return d;
}

} // namespace slicescope::device
