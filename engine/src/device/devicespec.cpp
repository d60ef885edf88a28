// PLACEHOLDER: replaced by the presets work (issue 2). Not done.
#include "slicescope/device/devicespec.h"

namespace slicescope::device {
std::string DeviceSpec::computeCapability() const {
    return std::to_string(computeMajor) + "." + std::to_string(computeMinor);
}
const std::vector<DeviceSpec>& presets() { static const std::vector<DeviceSpec> none; return none; }
Result<DeviceSpec> findPreset(std::string_view id) {
    return fail(Error::Code::InvalidArgument, "unknown device preset '" + std::string(id) + "'");
}
Result<std::vector<DeviceSpec>> parsePresets(std::string_view) {
    return fail(Error::Code::Internal, "not implemented yet");
}
} // namespace slicescope::device
#include "devicejson.h"
namespace slicescope::device {
std::string toJson(const DeviceSpec& device, bool withSources) {
    return deviceToJson(device, withSources).dump();
}
} // namespace slicescope::device
