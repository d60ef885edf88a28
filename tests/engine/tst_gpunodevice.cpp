// Without a usable GPU (CI), the GPU backend says why and runs nothing; it never crashes.
#include "slicescope/backend/gpubackend.h"

#include <gtest/gtest.h>

using namespace slicescope;
using namespace slicescope::backend;
using strategy::StrategyId;

TEST(GpuBackendWithoutDevice, SaysWhyAndFailsEveryStrategy) {
    const auto detected = detectDevices();
    if (!detected.devices.empty()) {
        GTEST_SKIP() << "a CUDA device is present; the tests labelled gpu cover it";
    }
    EXPECT_FALSE(detected.why.empty());
    RunRequest request;
    request.problem = *problem::makeProblem({10, 10, 10}, problem::Dtype::F64, 1);
    const auto results =
        runGpu({StrategyId::SliceOuter, StrategyId::ElementwiseBroadcast}, request);
    ASSERT_EQ(results.size(), 2u);
    for (const auto& r : results) {
        ASSERT_FALSE(r);
        EXPECT_EQ(r.error().code, Error::Code::Unsupported);
        EXPECT_NE(r.error().message.find(gpuBackendBuilt() ? "no GPU" : "no CUDA backend"),
                  std::string::npos)
            << r.error().message;
    }
    EXPECT_NE(results[0].error().message.find("slice-outer"), std::string::npos);
    EXPECT_NE(results[1].error().message.find("elementwise-broadcast"), std::string::npos);
}

TEST(GpuBackendWithoutDevice, RejectsCpuStrategies) {
    if (!gpuBackendBuilt()) {
        GTEST_SKIP() << "built without CUDA";
    }
    RunRequest request;
    request.problem = *problem::makeProblem({2, 2, 2}, problem::Dtype::F64, 1);
    const auto results = runGpu({StrategyId::CpuSerial}, request);
    ASSERT_EQ(results.size(), 1u);
    ASSERT_FALSE(results[0]);
    EXPECT_EQ(results[0].error().code, Error::Code::InvalidArgument);
}
