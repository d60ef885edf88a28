#include "slicescope/explain/numbalaunch.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <tuple>

namespace slicescope::explain {

namespace {

constexpr std::string_view kGufuncPrefix = "__gufunc_";
constexpr std::string_view kVectorizedPrefix = "__vectorized_";

std::string withThousands(std::uint64_t value) {
    std::string digits = std::to_string(value);
    for (int at = int(digits.size()) - 3; at > 0; at -= 3) {
        digits.insert(std::size_t(at), ",");
    }
    return digits;
}

// "Array<double, 3, A, mutable, aligned>" entries of the argument list, in order.
std::vector<NumbaArray> parseArrays(std::string_view arguments) {
    std::vector<NumbaArray> arrays;
    constexpr std::string_view kArray = "Array<";
    for (std::size_t at = arguments.find(kArray); at != std::string_view::npos;
         at = arguments.find(kArray, at + 1)) {
        const std::size_t typeStart = at + kArray.size();
        const std::size_t comma = arguments.find(',', typeStart);
        if (comma == std::string_view::npos) {
            break;
        }
        NumbaArray array;
        array.elementType = std::string(arguments.substr(typeStart, comma - typeStart));
        std::size_t digit = comma + 1;
        while (digit < arguments.size() && arguments[digit] == ' ') {
            ++digit;
        }
        while (digit < arguments.size() && arguments[digit] >= '0' && arguments[digit] <= '9' &&
               array.dimensions < 1000) {
            array.dimensions = array.dimensions * 10 + std::uint32_t(arguments[digit] - '0');
            ++digit;
        }
        arrays.push_back(std::move(array));
    }
    return arrays;
}

// The function's name: from after the prefix to the first '[' or '('.
std::string functionName(std::string_view name, std::size_t prefixEnd) {
    const std::size_t end = name.find_first_of("[(", prefixEnd);
    return std::string(
        name.substr(prefixEnd, end == std::string_view::npos ? name.npos : end - prefixEnd));
}

std::string dimensionsInWords(const std::vector<NumbaArray>& arrays) {
    std::string text;
    for (std::size_t i = 0; i < arrays.size(); ++i) {
        text += (i == 0                   ? ""
                 : i + 1 == arrays.size() ? " and "
                                          : ", ") +
                std::to_string(arrays[i].dimensions);
    }
    return text;
}

std::string launchInWords(std::uint64_t blocks, std::uint64_t perBlock) {
    return withThousands(blocks) + (blocks == 1 ? " block of " : " blocks of ") +
           withThousands(perBlock) + " threads";
}

std::string workersInWords(const NumbaLaunch& launch) {
    if (launch.minWorkers == launch.maxWorkers) {
        return withThousands(launch.minWorkers);
    }
    return withThousands(launch.minWorkers) + " to " + withThousands(launch.maxWorkers);
}

std::string explainGufunc(const NumbaLaunch& launch, std::uint64_t blocks, std::uint64_t perBlock,
                          std::optional<double> laneShare) {
    std::string text =
        "numba's @guvectorize kernel `" + launch.function +
        "`: numba launches one thread per element of the loop dimensions the signature leaves "
        "outside its core dimensions, flattened into one loop. ";
    if (!launch.arrays.empty()) {
        text += "Its arrays have " + dimensionsInWords(launch.arrays) +
                " dimensions: one loop dimension in front of each argument's core dimensions. ";
    }
    text += "The launch had " + launchInWords(blocks, perBlock) + ", so the loop has " +
            workersInWords(launch) + " elements";
    if (laneShare && blocks == 1 && *laneShare <= 1.5 / 32) {
        char share[32];
        std::snprintf(share, sizeof share, "%.1f %%", *laneShare * 100);
        text += std::string("; the measured lane share (") + share +
                ") says one thread of its warp did the work: a loop of length 1, the signature's "
                "core dimensions cover the whole array and one thread computes all of it";
    }
    return text +
           ". A signature whose core is one slice leaves more workers: on an R x C x N array, "
           "(c,n),(c,n)->(c,n) leaves R, (n),(n)->(n) leaves R x C, and @vectorize gives one "
           "thread per element.";
}

} // namespace

std::optional<NumbaLaunch> explainNumbaLaunch(std::string_view kernelName, const Dim3& grid,
                                              const Dim3& block,
                                              std::optional<double> activeLaneShare) {
    NumbaLaunch launch;
    std::size_t prefix = kernelName.find(kGufuncPrefix);
    std::size_t prefixEnd = 0;
    if (prefix != std::string_view::npos) {
        launch.kind = NumbaLaunch::Kind::Guvectorize;
        prefixEnd = prefix + kGufuncPrefix.size();
    } else if ((prefix = kernelName.find(kVectorizedPrefix)) != std::string_view::npos) {
        launch.kind = NumbaLaunch::Kind::Vectorize;
        prefixEnd = prefix + kVectorizedPrefix.size();
    } else {
        return std::nullopt;
    }
    // numba's names are MODULE::__gufunc_NAME: the prefix follows "::" or starts the name.
    if (prefix != 0 && (prefix < 2 || kernelName.substr(prefix - 2, 2) != "::")) {
        return std::nullopt;
    }
    launch.function = functionName(kernelName, prefixEnd);
    const std::size_t open = kernelName.find('(', prefixEnd);
    if (open != std::string_view::npos) {
        launch.arrays = parseArrays(kernelName.substr(open));
    }
    const std::uint64_t blocks = grid.count(), perBlock = block.count();
    launch.threads = blocks * perBlock;
    launch.maxWorkers = launch.threads;
    launch.minWorkers = blocks == 0 ? 0 : (blocks - 1) * perBlock + 1;
    if (launch.kind == NumbaLaunch::Kind::Guvectorize) {
        launch.explanation = explainGufunc(launch, blocks, perBlock, activeLaneShare);
    } else {
        launch.explanation = "numba's @vectorize kernel `" + launch.function +
                             "`: one thread per element; " + launchInWords(blocks, perBlock) +
                             " cover " + workersInWords(launch) + " elements.";
    }
    return launch;
}

std::vector<NumbaLaunch> numbaLaunchesOf(const trace::Run& run) {
    std::vector<NumbaLaunch> launches;
    std::set<std::tuple<std::uint32_t, std::uint64_t, std::uint64_t>> seen; // name, grid, block
    for (const trace::Activity& a : run.activities) {
        if (a.kind != trace::ActivityKind::Kernel || a.warmup ||
            !seen.emplace(a.nameId, a.grid.count(), a.block.count()).second) {
            continue;
        }
        const std::optional<double> lanes =
            std::isnan(a.activeLaneShare) ? std::nullopt : std::optional<double>(a.activeLaneShare);
        if (auto launch = explainNumbaLaunch(run.name(a), a.grid, a.block, lanes)) {
            launches.push_back(std::move(*launch));
        }
    }
    return launches;
}

} // namespace slicescope::explain
