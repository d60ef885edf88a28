#include "slicescope/device/devicespec.h"

#include "../core/jsontext.h"
#include "devicejson.h"

#include <set>

namespace slicescope::embedded {
std::string_view devicesJson(); // resources/devices.json, compiled in by CMake
} // namespace slicescope::embedded

namespace slicescope::device {

namespace {

constexpr std::string_view kPresetsFormat = "slicescope-device-presets";
constexpr int kPresetsVersion = 1;

// The built-in presets, parsed once. A broken file is a build bug; tst_devicespec catches it,
// and findPreset() reports it instead of pretending the preset does not exist.
const Result<std::vector<DeviceSpec>>& builtIn() {
    static const Result<std::vector<DeviceSpec>> parsed = parsePresets(embedded::devicesJson());
    return parsed;
}

std::string inQuotes(std::string_view key) {
    return "\"" + std::string(key) + "\"";
}

// Every figure and its source must be there: a preset without one would feed the model or the
// occupancy calculator a default of 0 that nobody chose.
Status checkComplete(const nlohmann::json& object, const std::string& label) {
    std::vector<std::string> keys = {"name", "compute_capability"};
    const auto& figures = deviceFigureKeys();
    keys.insert(keys.end(), figures.begin(), figures.end());
    for (const auto& key : keys) {
        if (!object.contains(key)) {
            return fail(Error::Code::Parse, label + ": missing " + inQuotes(key));
        }
    }
    const auto sources = object.find("sources");
    if (sources == object.end() || !sources->is_object()) {
        return fail(Error::Code::Parse,
                    label + ": missing \"sources\" (where each figure came from)");
    }
    for (const auto& key : keys) {
        if (key == "name") {
            continue;
        }
        const auto source = sources->find(key);
        if (source == sources->end() || !source->is_string() ||
            source->get<std::string>().empty()) {
            return fail(Error::Code::Parse, label + ": no source for " + inQuotes(key));
        }
    }
    return {};
}

// Figures that must be positive for the occupancy calculator and the model to mean anything,
// and the one identity between them.
Status checkPlausible(const DeviceSpec& d, const std::string& label) {
    const std::pair<const char*, double> positive[] = {
        {"sm_count", d.smCount},
        {"warp_size", d.warpSize},
        {"max_threads_per_sm", d.maxThreadsPerSm},
        {"max_warps_per_sm", d.maxWarpsPerSm},
        {"max_blocks_per_sm", d.maxBlocksPerSm},
        {"max_threads_per_block", d.maxThreadsPerBlock},
        {"registers_per_sm", d.registersPerSm},
        {"registers_per_block", d.registersPerBlock},
        {"max_registers_per_thread", d.maxRegistersPerThread},
        {"shared_memory_per_sm_bytes", double(d.sharedMemoryPerSmBytes)},
        {"shared_memory_per_block_bytes", double(d.sharedMemoryPerBlockBytes)},
        {"shared_memory_per_block_optin_bytes", double(d.sharedMemoryPerBlockOptinBytes)},
        {"clock_mhz", d.clockMHz},
        {"memory_bandwidth_gbps", d.memoryBandwidthGBps},
        {"global_memory_bytes", double(d.globalMemoryBytes)},
        {"pageable_htod_gbps", d.pageableHtoDGBps},
        {"pageable_dtoh_gbps", d.pageableDtoHGBps},
        {"pinned_htod_gbps", d.pinnedHtoDGBps},
        {"pinned_dtoh_gbps", d.pinnedDtoHGBps},
        {"fp32_fma_per_sm_per_clock", d.fp32FmaPerSmPerClock},
        {"fp64_fma_per_sm_per_clock", d.fp64FmaPerSmPerClock},
        {"l2_cache_bytes", double(d.l2CacheBytes)},
    };
    for (const auto& [key, value] : positive) {
        if (!(value > 0)) {
            return fail(Error::Code::Parse,
                        label + ": " + inQuotes(key) + " must be greater than 0");
        }
    }
    if (d.computeMajor < 1 || d.computeMinor < 0) {
        return fail(Error::Code::Parse, label + ": \"compute_capability\" must be like \"9.0\"");
    }
    if (std::uint64_t(d.maxWarpsPerSm) * d.warpSize != d.maxThreadsPerSm) {
        return fail(Error::Code::Parse, label +
                                            ": \"max_warps_per_sm\" x \"warp_size\" must equal " +
                                            "\"max_threads_per_sm\"");
    }
    return {};
}

} // namespace

std::string DeviceSpec::computeCapability() const {
    return std::to_string(computeMajor) + "." + std::to_string(computeMinor);
}

const std::vector<DeviceSpec>& presets() {
    static const std::vector<DeviceSpec> none;
    return builtIn() ? *builtIn() : none;
}

Result<DeviceSpec> findPreset(std::string_view id) {
    if (!builtIn()) {
        return fail(Error::Code::Internal,
                    "the built-in device presets are broken: " + builtIn().error().message);
    }
    std::string known;
    for (const auto& preset : *builtIn()) {
        if (preset.id == id) {
            return preset;
        }
        known += (known.empty() ? "" : ", ") + preset.id;
    }
    // Not a usage error: the option was well formed, the lookup failed (exit status 1 in the CLI).
    return fail(Error::Code::Unsupported,
                "unknown device preset '" + std::string(id) + "' (known presets: " + known + ")");
}

Result<std::vector<DeviceSpec>> parsePresets(std::string_view json) {
    // Never throws (a number beyond a double once did: a fuzz finding); such a number is named.
    auto parsed = parseJsonText(json);
    if (!parsed) {
        return fail(Error::Code::Parse,
                    parsed.error().code == Error::Code::OutOfRange
                        ? "device presets: " + parsed.error().message
                        : "device presets are not valid JSON: " + parsed.error().message);
    }
    nlohmann::json document = std::move(*parsed);
    const bool hasFormat = document.is_object() && document.contains("format") &&
                           document["format"].is_string() &&
                           document["format"].get<std::string>() == kPresetsFormat;
    if (!hasFormat) {
        return fail(Error::Code::Parse,
                    "device presets need \"format\": \"" + std::string(kPresetsFormat) + "\"");
    }
    const auto version = document.find("version");
    if (version == document.end() || !version->is_number_integer()) {
        return fail(Error::Code::Parse, "device presets need an integer \"version\"");
    }
    if (version->get<long long>() != kPresetsVersion) {
        return fail(Error::Code::Parse, "device presets version " + version->dump() +
                                            " is not supported (this build reads version " +
                                            std::to_string(kPresetsVersion) + ")");
    }
    const auto list = document.find("presets");
    if (list == document.end() || !list->is_array() || list->empty()) {
        return fail(Error::Code::Parse, "device presets need a non-empty \"presets\" array");
    }

    std::vector<DeviceSpec> out;
    std::set<std::string> ids;
    for (std::size_t i = 0; i < list->size(); ++i) {
        const auto& object = (*list)[i];
        std::string label = "device preset #" + std::to_string(i + 1);
        if (!object.is_object()) {
            return fail(Error::Code::Parse, label + " is not a JSON object");
        }
        const auto id = object.find("id");
        if (id == object.end() || !id->is_string() || id->get<std::string>().empty()) {
            return fail(Error::Code::Parse, label + ": missing \"id\"");
        }
        label = "device preset '" + id->get<std::string>() + "'";
        if (auto complete = checkComplete(object, label); !complete) {
            return tl::unexpected(complete.error());
        }
        auto device = deviceFromJson(object);
        if (!device) {
            return fail(Error::Code::Parse, label + ": " + device.error().message);
        }
        if (auto plausible = checkPlausible(*device, label); !plausible) {
            return tl::unexpected(plausible.error());
        }
        if (!ids.insert(device->id).second) {
            return fail(Error::Code::Parse, label + " appears twice");
        }
        out.push_back(std::move(*device));
    }
    return out;
}

std::string toJson(const DeviceSpec& device, bool withSources) {
    return deviceToJson(device, withSources).dump();
}

} // namespace slicescope::device
