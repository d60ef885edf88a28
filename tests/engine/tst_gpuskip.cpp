// The rule by which GPU tests skip (tests/gpu/gpuskip.h), checked where there is no GPU: only
// what the machine cannot do is a reason; a decode or profiler error must fail the test.
#include "../gpu/gpuskip.h"

#include <gtest/gtest.h>

using slicescope::gpuskip::skipReason;

TEST(GpuSkip, PrivilegesAndUnsupportedDevicesAreReasons) {
    EXPECT_EQ(skipReason("achieved occupancy unavailable: cuptiProfilerInitialize failed: "
                         "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (CUPTI error 35) (reading GPU "
                         "performance counters needs administrator rights"),
              "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
    EXPECT_EQ(skipReason("no occupancy samples: cuptiPmSamplingEnable failed: "
                         "CUPTI_ERROR_NOT_SUPPORTED (CUPTI error 27)"),
              "CUPTI_ERROR_NOT_SUPPORTED");
    EXPECT_TRUE(skipReason("CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED"));
}

TEST(GpuSkip, DecodeAndProfilerErrorsAreFailures) {
    // The H200's own failure of stop 20: a decode that ran out of room is the code's to fix.
    EXPECT_FALSE(skipReason("no occupancy samples: cuptiPmSamplingDecodeData(&decode) failed: "
                            "CUPTI_ERROR_OUT_OF_MEMORY (CUPTI error 14)"));
    EXPECT_FALSE(skipReason("achieved occupancy unavailable (see the counting run's note)"));
    EXPECT_FALSE(skipReason("no occupancy samples: CUPTI_ERROR_UNKNOWN"));
    EXPECT_FALSE(skipReason(""));
}
