#include "sweepjson.h"

#include "slicescope/trace/tracelimits.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <string_view>

namespace slicescope::trace {

namespace {

Error bad(const std::string& message) {
    return Error{Error::Code::Parse, message};
}

// A numeric sweep value ("64") is written as a JSON number, a named one ("f32") as a string.
nlohmann::json valueToJson(const std::string& value) {
    const bool digits = !value.empty() && value.size() <= 19 &&
                        value.find_first_not_of("0123456789") == std::string::npos;
    return digits ? nlohmann::json(std::stoull(value)) : nlohmann::json(value);
}

Result<std::string> valueFromJson(const nlohmann::json& value, const std::string& what) {
    if (value.is_number_unsigned()) {
        return std::to_string(value.get<std::uint64_t>());
    }
    if (value.is_string()) {
        if (value.get_ref<const std::string&>().size() > kMaxShortTextBytes) {
            return tl::unexpected(
                bad(what + " is longer than " + std::to_string(kMaxShortTextBytes) + " bytes"));
        }
        return value.get<std::string>();
    }
    return tl::unexpected(bad(what + " must be a non-negative integer or a string"));
}

Result<std::string> text(const nlohmann::json& object, const char* key, bool required) {
    const auto it = object.find(key);
    if (it == object.end()) {
        if (required) {
            return tl::unexpected(bad(std::string("\"") + key + "\" is missing"));
        }
        return std::string();
    }
    if (!it->is_string()) {
        return tl::unexpected(bad(std::string("\"") + key + "\" must be a string"));
    }
    if (it->get_ref<const std::string&>().size() > kMaxShortTextBytes) {
        return tl::unexpected(bad(std::string("\"") + key + "\" is longer than " +
                                  std::to_string(kMaxShortTextBytes) + " bytes"));
    }
    return it->get<std::string>();
}

// A figure that is absent is 0; one present must be a number from 0 to limit (null reads as 0).
Result<double> figure(const nlohmann::json& object, const char* key, double limit) {
    const auto it = object.find(key);
    if (it == object.end() || it->is_null()) {
        return 0.0;
    }
    if (!it->is_number() || !(it->get<double>() >= 0 && it->get<double>() <= limit)) {
        char bound[32];
        std::snprintf(bound, sizeof bound, "%.0f", limit);
        return tl::unexpected(
            bad(std::string("\"") + key + "\" must be a number from 0 to " + bound));
    }
    return it->get<double>();
}

nlohmann::json realOrNull(double value) {
    return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

} // namespace

nlohmann::json sweepPointToJson(const SweepPoint& point) {
    return {{"param", point.param}, {"value", valueToJson(point.value)}, {"index", point.index}};
}

Result<SweepPoint> sweepPointFromJson(const nlohmann::json& object) {
    if (!object.is_object()) {
        return tl::unexpected(bad("\"sweep\" must be an object"));
    }
    SweepPoint point;
    auto param = text(object, "param", true);
    if (!param) {
        return tl::unexpected(param.error());
    }
    point.param = *param;
    if (!object.contains("value")) {
        return tl::unexpected(bad("\"value\" is missing"));
    }
    auto value = valueFromJson(object["value"], "\"value\"");
    if (!value) {
        return tl::unexpected(value.error());
    }
    point.value = *value;
    if (const auto it = object.find("index"); it != object.end()) {
        if (!it->is_number_unsigned() ||
            it->get<std::uint64_t>() > std::numeric_limits<std::uint32_t>::max()) {
            return tl::unexpected(bad("\"index\" must be an integer from 0 to 4294967295"));
        }
        point.index = it->get<std::uint32_t>();
    }
    return point;
}

nlohmann::json ceilingsToJson(const Ceilings& c) {
    return {{"dram_gbps", realOrNull(c.dramGBps)},
            {"pinned_htod_gbps", realOrNull(c.pinnedHtoDGBps)},
            {"pinned_dtoh_gbps", realOrNull(c.pinnedDtoHGBps)},
            {"pageable_htod_gbps", realOrNull(c.pageableHtoDGBps)},
            {"pageable_dtoh_gbps", realOrNull(c.pageableDtoHGBps)},
            {"fp64_gflops", realOrNull(c.fp64Gflops)},
            {"fp32_gflops", realOrNull(c.fp32Gflops)},
            {"source", c.source}};
}

Result<Ceilings> ceilingsFromJson(const nlohmann::json& object) {
    if (!object.is_object()) {
        return tl::unexpected(bad("\"ceilings\" must be an object"));
    }
    Ceilings c;
    struct Figure {
        const char* key;
        double* target;
        double limit;
    };
    const Figure figures[] = {{"dram_gbps", &c.dramGBps, kMaxBandwidthGBps},
                              {"pinned_htod_gbps", &c.pinnedHtoDGBps, kMaxBandwidthGBps},
                              {"pinned_dtoh_gbps", &c.pinnedDtoHGBps, kMaxBandwidthGBps},
                              {"pageable_htod_gbps", &c.pageableHtoDGBps, kMaxBandwidthGBps},
                              {"pageable_dtoh_gbps", &c.pageableDtoHGBps, kMaxBandwidthGBps},
                              {"fp64_gflops", &c.fp64Gflops, kMaxGflops},
                              {"fp32_gflops", &c.fp32Gflops, kMaxGflops}};
    for (const auto& [key, target, limit] : figures) {
        auto value = figure(object, key, limit);
        if (!value) {
            return tl::unexpected(bad("\"ceilings\": " + value.error().message));
        }
        *target = *value;
    }
    auto source = text(object, "source", true);
    if (!source || (*source != "measured" && *source != "datasheet")) {
        return tl::unexpected(
            bad("\"ceilings\": \"source\" must be \"measured\" or \"datasheet\""));
    }
    c.source = *source;
    return c;
}

nlohmann::json sweepsToJson(const std::vector<Sweep>& sweeps) {
    auto array = nlohmann::json::array();
    for (const auto& sweep : sweeps) {
        auto values = nlohmann::json::array();
        for (const auto& v : sweep.values) {
            values.push_back(valueToJson(v));
        }
        auto crossovers = nlohmann::json::array();
        for (const auto& c : sweep.crossovers) {
            crossovers.push_back({{"from", c.from},
                                  {"to", c.to},
                                  {"low_value", valueToJson(c.lowValue)},
                                  {"high_value", valueToJson(c.highValue)},
                                  {"at", realOrNull(c.at)},
                                  {"interpolated", c.interpolated},
                                  {"text", c.text}});
        }
        array.push_back({{"param", sweep.param},
                         {"values", values},
                         {"scale", sweep.scale},
                         {"strategies", sweep.strategies},
                         {"metric", sweep.metric},
                         {"complete", sweep.complete},
                         {"crossovers", crossovers}});
    }
    return array;
}

Result<std::vector<Sweep>> sweepsFromJson(const nlohmann::json& array) {
    if (!array.is_array()) {
        return tl::unexpected(bad("\"sweeps\" must be an array"));
    }
    if (array.size() > kMaxSweeps) {
        return tl::unexpected(bad("\"sweeps\" has " + std::to_string(array.size()) +
                                  " sweeps, more than " + std::to_string(kMaxSweeps)));
    }
    std::vector<Sweep> sweeps;
    for (std::size_t i = 0; i < array.size(); ++i) {
        const auto& object = array[i];
        const std::string where = "\"sweeps\"[" + std::to_string(i) + "]: ";
        if (!object.is_object()) {
            return tl::unexpected(bad(where + "must be an object"));
        }
        Sweep sweep;
        auto param = text(object, "param", true);
        auto scale = text(object, "scale", false);
        auto metric = text(object, "metric", false);
        if (!param || !scale || !metric) {
            return tl::unexpected(bad(where + (!param   ? param
                                               : !scale ? scale
                                                        : metric)
                                                  .error()
                                                  .message));
        }
        sweep.param = *param;
        sweep.scale = *scale;
        if (!metric->empty()) {
            sweep.metric = *metric;
        }
        // Crossovers: at most one between two neighbouring values.
        const auto list = [&](const char* key, auto&& each) -> Status {
            const auto it = object.find(key);
            if (it == object.end()) {
                return {};
            }
            if (!it->is_array()) {
                return fail(Error::Code::Parse, where + "\"" + key + "\" must be an array");
            }
            const std::size_t limit =
                std::string_view(key) == "strategies" ? kMaxSweepStrategies : kMaxSweepValues;
            if (it->size() > limit) {
                return fail(Error::Code::Parse, where + "\"" + key + "\" has " +
                                                    std::to_string(it->size()) +
                                                    " items, more than " + std::to_string(limit));
            }
            for (const auto& item : *it) {
                if (auto done = each(item); !done) {
                    return tl::unexpected(bad(where + done.error().message));
                }
            }
            return {};
        };
        if (auto done = list("values",
                             [&](const nlohmann::json& v) -> Status {
                                 auto value = valueFromJson(v, "a value");
                                 if (!value) {
                                     return tl::unexpected(value.error());
                                 }
                                 sweep.values.push_back(*value);
                                 return {};
                             });
            !done) {
            return tl::unexpected(done.error());
        }
        if (auto done = list("strategies",
                             [&](const nlohmann::json& v) -> Status {
                                 if (!v.is_string()) {
                                     return fail(Error::Code::Parse, "a strategy must be a string");
                                 }
                                 sweep.strategies.push_back(v.get<std::string>());
                                 return {};
                             });
            !done) {
            return tl::unexpected(done.error());
        }
        if (const auto it = object.find("complete"); it != object.end()) {
            if (!it->is_boolean()) {
                return tl::unexpected(bad(where + "\"complete\" must be true or false"));
            }
            sweep.complete = it->get<bool>();
        }
        if (auto done = list(
                "crossovers",
                [&](const nlohmann::json& c) -> Status {
                    if (!c.is_object()) {
                        return fail(Error::Code::Parse, "a crossover must be an object");
                    }
                    Crossover crossover;
                    auto from = text(c, "from", true);
                    auto to = text(c, "to", true);
                    auto line = text(c, "text", false);
                    if (!from || !to || !line) {
                        return tl::unexpected((!from ? from : !to ? to : line).error());
                    }
                    crossover.from = *from;
                    crossover.to = *to;
                    crossover.text = *line;
                    for (auto [key, target] : {std::pair{"low_value", &crossover.lowValue},
                                               std::pair{"high_value", &crossover.highValue}}) {
                        if (!c.contains(key)) {
                            return fail(Error::Code::Parse,
                                        std::string("\"") + key + "\" is missing");
                        }
                        auto value = valueFromJson(c[key], key);
                        if (!value) {
                            return tl::unexpected(value.error());
                        }
                        *target = *value;
                    }
                    if (const auto at = c.find("at"); at != c.end() && !at->is_null()) {
                        if (!at->is_number() || !std::isfinite(at->get<double>())) {
                            return fail(Error::Code::Parse, "\"at\" must be a number or null");
                        }
                        crossover.at = at->get<double>();
                    }
                    if (const auto in = c.find("interpolated"); in != c.end()) {
                        if (!in->is_boolean()) {
                            return fail(Error::Code::Parse,
                                        "\"interpolated\" must be true or false");
                        }
                        crossover.interpolated = in->get<bool>();
                    }
                    sweep.crossovers.push_back(std::move(crossover));
                    return {};
                });
            !done) {
            return tl::unexpected(done.error());
        }
        sweeps.push_back(std::move(sweep));
    }
    return sweeps;
}

} // namespace slicescope::trace
