// `occupancy`: theoretical occupancy of a launch on a device preset.
#include "clioutput.h"
#include "commands.h"
#include "slicescope/device/devicespec.h"
#include "slicescope/occupancy/occupancycalculator.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

namespace slicescope::cli {

namespace {

struct OccupancyOptions {
    std::string preset;
    std::int64_t block = 0;
    std::int64_t registers = 0;
    std::int64_t sharedBytes = 0;
    bool sharedOptIn = false;
    bool json = false;
};

// A bound the resource does not set (no registers or no shared memory used) is null.
nlohmann::json blocksBound(std::uint32_t blocks) {
    return blocks == occupancy::kUnlimitedBlocks ? nlohmann::json(nullptr) : nlohmann::json(blocks);
}

int showOccupancy(const OccupancyOptions& o) {
    auto device = device::findPreset(o.preset);
    if (!device) {
        return reportError(device.error());
    }
    if (o.block < 1 || o.block > 1024) {
        return reportUsageError("--block must be from 1 to 1024 threads (got " +
                                std::to_string(o.block) + ")");
    }
    if (o.registers < 0 || o.registers > 255) {
        return reportUsageError("--regs must be from 0 to 255 registers per thread (got " +
                                std::to_string(o.registers) + ")");
    }
    if (o.sharedBytes < 0) {
        return reportUsageError("--smem must be >= 0 bytes");
    }
    occupancy::KernelResources kernel;
    kernel.blockSize = std::uint32_t(o.block);
    kernel.registersPerThread = std::uint32_t(o.registers);
    kernel.sharedMemoryPerBlockBytes = std::uint64_t(o.sharedBytes);
    kernel.sharedMemoryOptIn = o.sharedOptIn;
    auto result = occupancy::calculate(*device, kernel);
    if (!result) {
        return reportError(result.error());
    }
    if (o.json) {
        nlohmann::json limiters = nlohmann::json::array();
        for (const auto limiter : result->limiters) {
            limiters.push_back(occupancy::toString(limiter));
        }
        const nlohmann::json j = {
            {"device", device->id},
            {"block", o.block},
            {"registers_per_thread", o.registers},
            {"shared_bytes_per_block", o.sharedBytes},
            {"shared_memory_opt_in", o.sharedOptIn},
            {"active_blocks_per_sm", result->activeBlocksPerSm},
            {"active_warps_per_sm", result->activeWarpsPerSm},
            {"max_warps_per_sm", result->maxWarpsPerSm},
            {"occupancy", result->occupancy},
            {"limiter", occupancy::toString(result->limiter)},
            {"limiters", limiters},
            {"explanation", result->explanation},
            {"blocks_limited_by",
             {{"warps", blocksBound(result->blocksLimitedByWarps)},
              {"blocks", blocksBound(result->blocksLimitedByBlocks)},
              {"registers", blocksBound(result->blocksLimitedByRegisters)},
              {"shared_memory", blocksBound(result->blocksLimitedBySharedMemory)}}},
            {"allocated_registers_per_block", result->allocatedRegistersPerBlock},
            {"allocated_shared_bytes_per_block", result->allocatedSharedMemoryPerBlockBytes},
            {"shared_bytes_per_sm", result->sharedMemoryPerSmBytes},
        };
        std::cout << j.dump(2) << '\n';
        return kExitOk;
    }
    std::printf("%s (cc %s), block %lld, %lld registers/thread, %lld B shared/block\n",
                device->name.c_str(), device->computeCapability().c_str(), (long long)o.block,
                (long long)o.registers, (long long)o.sharedBytes);
    std::printf("  active blocks per SM  %u\n  active warps per SM   %u of %u\n"
                "  occupancy             %.1f %% per SM (CUDA's theoretical occupancy)\n  limiter  "
                "             %s\n  %s\n",
                result->activeBlocksPerSm, result->activeWarpsPerSm, result->maxWarpsPerSm,
                result->occupancy * 100, std::string(occupancy::toString(result->limiter)).c_str(),
                result->explanation.c_str());
    return kExitOk;
}

} // namespace

void addOccupancyCommand(CLI::App& app, int& exitStatus) {
    auto o = std::make_shared<OccupancyOptions>();
    auto* cmd = app.add_subcommand(
        "occupancy", "Theoretical occupancy of a launch on a device preset, and what limits it");
    cmd->add_option("--device", o->preset, "Device preset, e.g. h200 (see 'devices')")->required();
    cmd->add_option("--block", o->block, "Threads per block, 1..1024")->required();
    cmd->add_option("--regs", o->registers, "Registers per thread, 0..255")->required();
    cmd->add_option("--smem", o->sharedBytes, "Shared memory per block in bytes (static + dynamic)")
        ->capture_default_str();
    cmd->add_flag("--smem-optin", o->sharedOptIn,
                  "The kernel opted in to the device's largest shared memory per block "
                  "(cudaFuncAttributeMaxDynamicSharedMemorySize); without it a block gets 48 KB");
    cmd->add_flag("--json", o->json, "Print JSON");
    cmd->callback([o, &exitStatus] { exitStatus = showOccupancy(*o); });
}

} // namespace slicescope::cli
