// The launch facts a GPU run states (gpusession.h): theoretical occupancy cross-checked against
// the CUDA API, and the launch's geometry and resources.
#include "cudacheck.h"
#include "gpusession.h"

#include <algorithm>

namespace slicescope::cuda {

Result<OccupancyCrossCheck> crossCheckOccupancy(const device::DeviceSpec& device,
                                                const void* kernel, std::uint32_t blockThreads,
                                                std::uint32_t registersPerThread,
                                                std::uint64_t sharedBytes) {
    int cudaBlocks = 0;
    CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&cudaBlocks, kernel, int(blockThreads), 0));
    OccupancyCrossCheck out;
    out.cudaActiveBlocksPerSm = std::uint32_t(cudaBlocks);
    const std::uint32_t warpSize = device.warpSize ? device.warpSize : 32;
    const std::uint32_t warpsPerBlock = (blockThreads + warpSize - 1) / warpSize;
    auto calculated = occupancy::calculate(device, {blockThreads, registersPerThread, sharedBytes});
    if (calculated) {
        out.calculatorActiveBlocksPerSm = calculated->activeBlocksPerSm;
        out.info.theoretical = calculated->occupancy;
        out.info.activeBlocksPerSm = calculated->activeBlocksPerSm;
        out.info.limiter = std::string(occupancy::toString(calculated->limiter));
        out.info.explanation = calculated->explanation;
    } else {
        // Keep the run: the CUDA API's own figure, labelled as such.
        out.calculatorError = calculated.error().message;
        out.info.activeBlocksPerSm = out.cudaActiveBlocksPerSm;
        out.info.theoretical = device.maxWarpsPerSm > 0
                                   ? std::min(1.0, double(out.cudaActiveBlocksPerSm) *
                                                       warpsPerBlock / device.maxWarpsPerSm)
                                   : 0.0;
        out.info.explanation =
            "From cudaOccupancyMaxActiveBlocksPerMultiprocessor: " +
            std::to_string(out.cudaActiveBlocksPerSm) +
            " blocks per SM (the engine's occupancy calculator failed: " + out.calculatorError +
            ").";
    }
    return out;
}

Result<LaunchFacts> launchFacts(const device::DeviceSpec& device, const void* kernel,
                                const cudaFuncAttributes& attributes,
                                const strategy::LaunchGeometry& geometry,
                                const strategy::BlockOption& blockOption) {
    auto occupancy =
        crossCheckOccupancy(device, kernel, geometry.block.x, std::uint32_t(attributes.numRegs),
                            attributes.sharedSizeBytes);
    if (!occupancy) {
        return tl::unexpected(occupancy.error());
    }
    LaunchFacts facts;
    facts.occupancy = occupancy->info;
    facts.occupancy.threadSlotsBusy = strategy::threadSlotsBusy(
        geometry, facts.occupancy.activeBlocksPerSm, device.smCount, device.maxThreadsPerSm);
    if (occupancy->calculatorActiveBlocksPerSm && !occupancy->agree()) {
        facts.notes.push_back("theoretical occupancy mismatch: the engine's calculator gives " +
                              std::to_string(*occupancy->calculatorActiveBlocksPerSm) +
                              " blocks per SM, cudaOccupancyMaxActiveBlocksPerMultiprocessor " +
                              std::to_string(occupancy->cudaActiveBlocksPerSm));
    } else if (!occupancy->calculatorActiveBlocksPerSm) {
        facts.notes.push_back(
            "theoretical occupancy from the CUDA API: the engine's calculator failed (" +
            occupancy->calculatorError + ")");
    }
    const auto& decomposition = geometry.decomposition;
    trace::LaunchInfo& info = facts.launch;
    info.grid = geometry.grid;
    info.block = geometry.block;
    info.workers = decomposition.workers;
    info.elementsPerWorker = decomposition.elementsPerWorker;
    info.layout = std::string(strategy::toString(decomposition.layout));
    info.blockOption = strategy::toString(blockOption);
    info.gridStride = geometry.gridStride;
    info.registersPerThread = std::uint32_t(attributes.numRegs);
    info.staticSharedBytes = std::uint32_t(attributes.sharedSizeBytes);
    info.dynamicSharedBytes = 0;
    return facts;
}

} // namespace slicescope::cuda
