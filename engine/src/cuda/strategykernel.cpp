#include "strategykernel.h"

#include "cudacheck.h"
#include "kernels/kerneltable.h"

namespace slicescope::cuda {

const void* strategyKernel(strategy::StrategyId id, problem::Dtype dtype) {
    const kernels::KernelEntry* entry = kernels::strategyKernel(strategy::info(id).kernel);
    if (entry == nullptr) {
        return nullptr;
    }
    return dtype == problem::Dtype::F64 ? entry->f64 : entry->f32;
}

Result<strategy::LaunchLimits> launchLimits(const void* kernel,
                                            const cudaFuncAttributes& attributes, int deviceIndex,
                                            const strategy::BlockOption& block) {
    int maxGridX = 0, smCount = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&maxGridX, cudaDevAttrMaxGridDimX, deviceIndex));
    CUDA_CHECK(cudaDeviceGetAttribute(&smCount, cudaDevAttrMultiProcessorCount, deviceIndex));
    strategy::LaunchLimits limits;
    limits.kernelMaxThreadsPerBlock = std::uint32_t(attributes.maxThreadsPerBlock);
    limits.maxGridX = std::uint32_t(maxGridX);
    limits.smCount = std::uint32_t(smCount);
    if (const auto threads = strategy::blockThreads(block, limits)) {
        int blocksPerSm = 0;
        CUDA_CHECK(
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocksPerSm, kernel, int(*threads), 0));
        limits.residentBlocksPerSm = std::uint32_t(blocksPerSm);
    }
    return limits;
}

} // namespace slicescope::cuda
