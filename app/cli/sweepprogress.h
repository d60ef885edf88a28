#pragma once

#include <cstddef>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string_view>

namespace slicescope::cli {

// A sweep's progress line: the fields of printProgress (clioutput.h) for the strategy at hand,
// plus the point: {"point": i, "points": n, "param", "value"}, so a reader that knows only run's
// lines still follows it.
inline void printSweepProgress(bool enabled, std::size_t point, std::size_t points,
                               std::string_view param, std::string_view value,
                               std::string_view strategy, std::size_t index, std::size_t count,
                               std::string_view stage, double fraction) {
    if (!enabled) {
        return;
    }
    const nlohmann::json j = {{"point", point}, {"points", points},     {"param", param},
                              {"value", value}, {"strategy", strategy}, {"index", index},
                              {"count", count}, {"stage", stage},       {"fraction", fraction}};
    std::cout << "progress " << j.dump() << std::endl;
}

} // namespace slicescope::cli
