// elementwise-grid-stride on a real device (label gpu): its grid is the device's SMs times the
// blocks of its size one SM holds (cudaOccupancyMaxActiveBlocksPerMultiprocessor), whatever the
// size of the data, and its output matches the CPU reference. Tests that need a device skip,
// saying why, where there is none.
#include "gpuprobes.h"
#include "slicescope/backend/gpubackend.h"

#include <gtest/gtest.h>
#include <string>

using namespace slicescope;
using namespace slicescope::backend;
using problem::Dtype;
using strategy::StrategyId;

namespace {

const device::DeviceSpec* firstDevice() {
    static const DetectedDevices detected = detectDevices();
    return detected.devices.empty() ? nullptr : &detected.devices.front();
}

#define REQUIRE_DEVICE()                                                                           \
    do {                                                                                           \
        if (firstDevice() == nullptr) {                                                            \
            GTEST_SKIP() << "no CUDA device: " << detectDevices().why;                             \
        }                                                                                          \
    } while (false)

RunRequest request(problem::Shape shape, Dtype dtype, strategy::BlockOption block) {
    RunRequest r;
    r.problem = *problem::makeProblem(shape, dtype, 3);
    r.memory = MemoryMode::Pinned;
    r.repeat = 2;
    r.block = block;
    return r;
}

} // namespace

// Needs no device: every GPU row of the registry names a kernel file that the build compiled.
TEST(GpuStrategyKernels, EveryGpuStrategyHasItsCompiledKernel) {
    for (const auto& s : strategy::allStrategies()) {
        for (Dtype dtype : {Dtype::F64, Dtype::F32}) {
            EXPECT_EQ(cuda::probes::hasCompiledKernel(s.id, dtype),
                      s.target == strategy::Target::Gpu)
                << s.name << " (kernels/" << s.kernel << ".cu)";
        }
    }
}

TEST(GpuGridStride, GridIsSmsTimesResidentBlocksAndOutputVerifies) {
    REQUIRE_DEVICE();
    const auto& device = *firstDevice();
    using Mode = strategy::BlockOption::Mode;
    for (const strategy::BlockOption block :
         {strategy::BlockOption{Mode::Numba, 0}, strategy::BlockOption{Mode::Explicit, 256},
          strategy::BlockOption{Mode::NumbaCuda, 0}}) {
        // Fewer elements than one wave's threads, the seed, and a shape whose multBy row is odd.
        for (const problem::Shape shape :
             {problem::Shape{1, 3, 5}, problem::Shape{100, 4000, 5}, problem::Shape{211, 37, 3}}) {
            for (Dtype dtype : {Dtype::F64, Dtype::F32}) {
                const auto r = request(shape, dtype, block);
                SCOPED_TRACE(r.problem.describe() + " block " + strategy::toString(block));
                auto results = runGpu({StrategyId::ElementwiseGridStride}, r);
                ASSERT_TRUE(results[0]) << results[0].error().message;
                const trace::Run& run = *results[0];
                ASSERT_TRUE(run.verification);
                EXPECT_TRUE(run.verification->passed)
                    << "max abs error " << run.verification->maxAbsError;

                // The grid the CUDA API's occupancy gives for the block the option picked.
                const auto threads = run.launch->block.x;
                const auto occupancy = cuda::probes::compareOccupancy(
                    0, StrategyId::ElementwiseGridStride, dtype, threads);
                ASSERT_TRUE(occupancy) << occupancy.error().message;
                ASSERT_GT(occupancy->cudaActiveBlocksPerSm, 0u);
                EXPECT_EQ(run.launch->grid,
                          (Dim3{device.smCount * occupancy->cudaActiveBlocksPerSm, 1, 1}));
                EXPECT_TRUE(run.launch->gridStride);
                EXPECT_EQ(run.occupancy->activeBlocksPerSm, occupancy->cudaActiveBlocksPerSm);
                std::size_t kernels = 0;
                for (const auto& a : run.activities) {
                    if (a.kind == trace::ActivityKind::Kernel && !a.warmup) {
                        ++kernels;
                        EXPECT_EQ(a.grid, run.launch->grid) << "CUPTI's record of the launch";
                        EXPECT_EQ(a.block, run.launch->block);
                    }
                }
                EXPECT_EQ(kernels, r.repeat);
            }
        }
    }
}

TEST(GpuGridStride, TheSameGridForAnySizeOfData) {
    REQUIRE_DEVICE();
    const strategy::BlockOption block{strategy::BlockOption::Mode::Explicit, 128};
    auto small = runGpu({StrategyId::ElementwiseGridStride}, request({1, 1, 7}, Dtype::F32, block));
    auto large =
        runGpu({StrategyId::ElementwiseGridStride}, request({400, 4000, 5}, Dtype::F32, block));
    ASSERT_TRUE(small[0]) << small[0].error().message;
    ASSERT_TRUE(large[0]) << large[0].error().message;
    EXPECT_EQ(small[0]->launch->grid, large[0]->launch->grid);
    EXPECT_TRUE(small[0]->verification->passed);
    EXPECT_TRUE(large[0]->verification->passed);
    // As the data grows past one wave, the busy share of the thread slots stays that wave's.
    EXPECT_LT(small[0]->occupancy->threadSlotsBusy, large[0]->occupancy->threadSlotsBusy);
}
