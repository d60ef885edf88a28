// `devices`: the CUDA devices found here and the presets that can be modelled.
#include "clioutput.h"
#include "commands.h"
#include "remotecli.h"
#include "slicescope/backend/gpubackend.h"
#include "slicescope/device/devicespec.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

namespace slicescope::cli {

namespace {

int listDevices(bool json) {
    const auto detected = backend::detectDevices();
    const auto& presets = device::presets();
    if (json) {
        nlohmann::json out;
        out["cuda_backend"] = backend::gpuBackendBuilt();
        out["devices"] = nlohmann::json::array();
        for (std::size_t i = 0; i < detected.devices.size(); ++i) {
            auto d = nlohmann::json::parse(device::toJson(detected.devices[i]));
            d["index"] = i;
            out["devices"].push_back(std::move(d));
        }
        out["no_devices_reason"] = detected.why;
        out["presets"] = nlohmann::json::array();
        for (const auto& preset : presets) {
            auto p = nlohmann::json::parse(device::toJson(preset, true));
            p["runnable_with_cuda13"] = preset.runnableWithCuda13();
            out["presets"].push_back(std::move(p));
        }
        std::cout << out.dump(2) << '\n';
        return kExitOk;
    }
    std::cout << "CUDA devices:\n";
    if (detected.devices.empty()) {
        std::cout << "  none: " << detected.why << '\n';
    }
    for (std::size_t i = 0; i < detected.devices.size(); ++i) {
        const auto& d = detected.devices[i];
        std::printf("  %zu  %-28s cc %s, %u SMs, %.1f GiB\n", i, d.name.c_str(),
                    d.computeCapability().c_str(), d.smCount,
                    double(d.globalMemoryBytes) / double(1ull << 30));
    }
    std::cout << std::flush;
    std::cout << "Presets (modelled with 'slicescope-cli model --device ID'):\n";
    for (const auto& p : presets) {
        std::printf("  %-16s %-28s cc %s, %3u SMs%s\n", p.id.c_str(), p.name.c_str(),
                    p.computeCapability().c_str(), p.smCount,
                    p.runnableWithCuda13() ? "" : "  (model only: CUDA 13 needs cc 7.5+)");
    }
    std::fflush(stdout);
    return kExitOk;
}

} // namespace

void addDevicesCommand(CLI::App& app, int& exitStatus) {
    auto json = std::make_shared<bool>(false);
    auto* cmd = app.add_subcommand("devices", "List the CUDA devices found and the device presets");
    cmd->add_flag("--json", *json, "Print JSON instead of a table");
    auto remote = std::make_shared<RemoteOptions>();
    addRemoteOptions(cmd, *remote);
    cmd->callback([json, remote, cmd, &exitStatus] {
        exitStatus = remote->host.empty() ? listDevices(*json) : runOnHost(*remote, *cmd, "");
    });
}

} // namespace slicescope::cli
