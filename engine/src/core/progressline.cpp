#include "slicescope/core/progressline.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace slicescope::core {

namespace {

// The JSON object of a line, with or without its prefix.
Result<nlohmann::json> objectOf(std::string_view line) {
    if (line.starts_with(kProgressPrefix)) {
        line.remove_prefix(kProgressPrefix.size());
    }
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        return fail(Error::Code::Parse, "not a progress line: '" + std::string(line) + "'");
    }
    return j;
}

// Reads key into out when present; false when it is there with the wrong type.
template <typename T> bool read(const nlohmann::json& j, const char* key, T& out) {
    const auto it = j.find(key);
    if (it == j.end()) {
        return true;
    }
    if constexpr (std::is_same_v<T, std::string>) {
        if (!it->is_string()) {
            return false;
        }
    } else if constexpr (std::is_same_v<T, double>) {
        if (!it->is_number()) {
            return false;
        }
    } else {
        if (!it->is_number_unsigned()) {
            return false;
        }
    }
    out = it->get<T>();
    return true;
}

Error wrongType(const char* key) {
    return Error{Error::Code::Parse,
                 std::string("progress line: '") + key + "' has the wrong type"};
}

} // namespace

std::string formatProgressLine(const RunProgressLine& p) {
    nlohmann::json j = {{"strategy", p.strategy},
                        {"index", p.index},
                        {"count", p.count},
                        {"stage", p.stage},
                        {"fraction", p.fraction}};
    if (p.sweep.points > 0) {
        j["point"] = p.sweep.point;
        j["points"] = p.sweep.points;
        j["param"] = p.sweep.param;
        j["value"] = p.sweep.value;
        if (p.sweep.runs > 0) {
            j["runs_done"] = p.sweep.runsDone;
            j["runs"] = p.sweep.runs;
        }
    }
    return std::string(kProgressPrefix) + j.dump();
}

std::string formatProgressLine(const RecordProgressLine& p) {
    const nlohmann::json j = {{"stage", p.stage},         {"elapsed_s", p.elapsedS},
                              {"processes", p.processes}, {"api_calls", p.apiCalls},
                              {"kernels", p.kernels},     {"copies", p.copies},
                              {"memsets", p.memsets},     {"dropped_records", p.droppedRecords}};
    return std::string(kProgressPrefix) + j.dump();
}

bool isProgressLine(std::string_view line) {
    return line.starts_with(kProgressPrefix);
}

Result<RunProgressLine> parseRunProgressLine(std::string_view line) {
    auto j = objectOf(line);
    if (!j) {
        return tl::unexpected(j.error());
    }
    RunProgressLine p;
    for (const auto& [key, ok] : {std::pair{"strategy", read(*j, "strategy", p.strategy)},
                                  std::pair{"index", read(*j, "index", p.index)},
                                  std::pair{"count", read(*j, "count", p.count)},
                                  std::pair{"stage", read(*j, "stage", p.stage)},
                                  std::pair{"fraction", read(*j, "fraction", p.fraction)},
                                  std::pair{"point", read(*j, "point", p.sweep.point)},
                                  std::pair{"points", read(*j, "points", p.sweep.points)},
                                  std::pair{"param", read(*j, "param", p.sweep.param)},
                                  std::pair{"value", read(*j, "value", p.sweep.value)},
                                  std::pair{"runs_done", read(*j, "runs_done", p.sweep.runsDone)},
                                  std::pair{"runs", read(*j, "runs", p.sweep.runs)}}) {
        if (!ok) {
            return tl::unexpected(wrongType(key));
        }
    }
    if (p.sweep.points > 0) {
        p.sweep.point = std::min(p.sweep.point, p.sweep.points - 1);
    }
    p.sweep.runsDone = std::isfinite(p.sweep.runsDone)
                           ? std::clamp(p.sweep.runsDone, 0.0, double(p.sweep.runs))
                           : 0.0;
    p.count = std::max<std::uint64_t>(1, p.count);
    p.index = std::min(p.index, p.count - 1);
    p.fraction = std::isfinite(p.fraction) ? std::clamp(p.fraction, 0.0, 1.0) : 0.0;
    return p;
}

Result<RecordProgressLine> parseRecordProgressLine(std::string_view line) {
    auto j = objectOf(line);
    if (!j) {
        return tl::unexpected(j.error());
    }
    RecordProgressLine p;
    for (const auto& [key, ok] :
         {std::pair{"stage", read(*j, "stage", p.stage)},
          std::pair{"elapsed_s", read(*j, "elapsed_s", p.elapsedS)},
          std::pair{"processes", read(*j, "processes", p.processes)},
          std::pair{"api_calls", read(*j, "api_calls", p.apiCalls)},
          std::pair{"kernels", read(*j, "kernels", p.kernels)},
          std::pair{"copies", read(*j, "copies", p.copies)},
          std::pair{"memsets", read(*j, "memsets", p.memsets)},
          std::pair{"dropped_records", read(*j, "dropped_records", p.droppedRecords)}}) {
        if (!ok) {
            return tl::unexpected(wrongType(key));
        }
    }
    return p;
}

} // namespace slicescope::core
