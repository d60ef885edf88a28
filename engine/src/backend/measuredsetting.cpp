#include "slicescope/backend/measuredsetting.h"

#include <algorithm>

namespace slicescope::backend {

const device::DeviceSpec* presetNamed(std::string_view name) {
    for (const auto& candidate : device::presets()) {
        if (candidate.name == name) {
            return &candidate;
        }
    }
    return nullptr;
}

Result<MeasuredSetting> measuredSetting(const trace::Run& measured) {
    if (measured.mode != trace::RunMode::MeasuredGpu || !measured.problem || !measured.launch) {
        return fail(Error::Code::InvalidArgument,
                    "run '" + measured.id +
                        "' is not a measured GPU run with a problem and launch");
    }
    auto id = strategy::parseStrategy(measured.strategy);
    if (!id) {
        return tl::unexpected(id.error());
    }
    auto block = strategy::parseBlockOption(measured.launch->blockOption);
    if (!block) {
        return tl::unexpected(block.error());
    }
    auto memory = parseMemoryMode(measured.memoryMode);
    if (!memory) {
        return tl::unexpected(memory.error());
    }
    MeasuredSetting out;
    out.preset = presetNamed(measured.device.name);
    if (out.preset == nullptr) {
        // A trace's device object lacks the FMA rates and the L2 size the model needs, so the
        // run's own figures cannot stand in for a preset.
        return fail(Error::Code::Unsupported,
                    "no device preset is named '" + measured.device.name +
                        "', so the model cannot model the device run '" + measured.id +
                        "' was measured on (a trace does not carry its FMA rates and L2 size; "
                        "`slicescope-cli devices` lists the presets)");
    }
    out.strategy = *id;
    out.request.problem = *measured.problem;
    out.request.block = *block;
    out.request.memory = *memory;
    out.request.repeat = std::max<std::uint32_t>(1, measured.repeat);
    out.request.pipeline = {measured.chunks, measured.streams};
    return out;
}

} // namespace slicescope::backend
