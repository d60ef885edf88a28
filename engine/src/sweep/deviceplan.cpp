#include "slicescope/sweep/deviceplan.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>

namespace slicescope::sweep {

namespace {

// A device index as the user wrote it: digits only, at most 9 of them.
std::optional<int> parseIndex(std::string_view text) {
    if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != text.npos) {
        return std::nullopt;
    }
    int value = 0;
    std::from_chars(text.data(), text.data() + text.size(), value);
    return value;
}

std::string presentText(std::size_t present) {
    return present == 1 ? "1 CUDA device (index 0)"
                        : std::to_string(present) + " CUDA devices (indices 0 to " +
                              std::to_string(present - 1) + ")";
}

} // namespace

Result<std::vector<int>> parseDeviceList(std::string_view text, std::size_t present,
                                         std::string_view whyNone) {
    if (text.empty()) {
        return fail(Error::Code::InvalidArgument,
                    "--devices needs 'all' or a comma-separated list of CUDA device indices");
    }
    if (present == 0) {
        std::string message = "--devices " + std::string(text) +
                              ": no GPU found on this machine, so there is nothing to spread the "
                              "runs over";
        if (!whyNone.empty()) {
            message += " (" + std::string(whyNone) + ")";
        }
        return fail(Error::Code::Unsupported, message);
    }
    std::vector<int> devices;
    if (text == "all") {
        for (std::size_t i = 0; i < present; ++i) {
            devices.push_back(int(i));
        }
        return devices;
    }
    for (std::size_t start = 0; start <= text.size();) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        const std::string_view entry = text.substr(start, comma - start);
        const auto index = parseIndex(entry);
        if (!index) {
            return fail(Error::Code::InvalidArgument,
                        "--devices: '" + std::string(entry) +
                            "' is not a CUDA device index (give 'all' or indices such as 0,1)");
        }
        if (std::size_t(*index) >= present) {
            return fail(Error::Code::InvalidArgument,
                        "--devices: there is no CUDA device " + std::to_string(*index) +
                            "; this machine has " + presentText(present));
        }
        if (std::find(devices.begin(), devices.end(), *index) != devices.end()) {
            return fail(Error::Code::InvalidArgument,
                        "--devices: device " + std::to_string(*index) + " is named twice");
        }
        devices.push_back(*index);
        start = comma + 1;
    }
    return devices;
}

std::vector<DeviceShare> planDevices(std::size_t points, const std::vector<int>& devices) {
    std::vector<DeviceShare> shares;
    const std::size_t used = std::min(points, devices.size());
    for (std::size_t d = 0; d < used; ++d) {
        DeviceShare& share = shares.emplace_back();
        share.device = devices[d];
        for (std::size_t p = d; p < points; p += devices.size()) {
            share.points.push_back(p);
        }
    }
    return shares;
}

std::vector<std::string> shareValues(const DeviceShare& share,
                                     const std::vector<std::string>& values) {
    std::vector<std::string> mine;
    for (const std::size_t p : share.points) {
        if (p < values.size()) {
            mine.push_back(values[p]);
        }
    }
    return mine;
}

std::string deviceRunId(std::string_view strategy, int device) {
    return std::string(strategy) + "@gpu" + std::to_string(device);
}

} // namespace slicescope::sweep
