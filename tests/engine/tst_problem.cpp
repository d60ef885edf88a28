#include "slicescope/backend/modelbackend.h"
#include "slicescope/device/devicespec.h"
#include "slicescope/problem/problem.h"
#include "slicescope/strategy/strategy.h"
#include "slicescope/trace/tracelimits.h"

#include <gtest/gtest.h>

using namespace slicescope;
using namespace slicescope::problem;

TEST(Problem, ParsesTheSeedShape) {
    auto shape = parseShape("100x4000x5");
    ASSERT_TRUE(shape) << shape.error().message;
    EXPECT_EQ(*shape, (Shape{100, 4000, 5}));
    EXPECT_EQ(*parseShape("2,3,4"), (Shape{2, 3, 4}));
    EXPECT_EQ(*parseShape("2*3*4"), (Shape{2, 3, 4}));
    EXPECT_EQ(*parseShape("2X3X4"), (Shape{2, 3, 4}));
}

struct BadShape {
    const char* text;
    Error::Code code;
    const char* mentions;
};

class ProblemRejects : public testing::TestWithParam<BadShape> {};

TEST_P(ProblemRejects, WithAClearMessage) {
    const auto& bad = GetParam();
    auto shape = parseShape(bad.text);
    ASSERT_FALSE(shape) << bad.text;
    EXPECT_EQ(shape.error().code, bad.code) << shape.error().message;
    EXPECT_NE(shape.error().message.find(bad.mentions), std::string::npos) << shape.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, ProblemRejects,
    testing::Values(
        BadShape{"0x4000x5", Error::Code::InvalidArgument, "dimension R is 0"},
        BadShape{"100x0x5", Error::Code::InvalidArgument, "dimension C is 0"},
        BadShape{"100x4000x-5", Error::Code::InvalidArgument, "dimension N is negative"},
        BadShape{"100xabcx5", Error::Code::InvalidArgument, "not a whole number: 'abc'"},
        BadShape{"100x4000", Error::Code::InvalidArgument, "dimension N is missing"},
        BadShape{"100x4000x", Error::Code::InvalidArgument, "dimension N is missing"},
        BadShape{"", Error::Code::InvalidArgument, "three dimensions"},
        BadShape{"", Error::Code::InvalidArgument, "the shape is empty"},
        BadShape{"  ", Error::Code::InvalidArgument, "the shape is empty"},
        BadShape{"1x2x3x4", Error::Code::InvalidArgument, "more than three"},
        BadShape{"100x4000x5.5", Error::Code::InvalidArgument, "not a whole number"},
        BadShape{"99999999999999999999x1x1", Error::Code::Overflow, "64 bits"}));

TEST(Problem, RejectsElementCountsThatOverflow) {
    auto p = makeProblem({1ull << 32, 1ull << 32, 2}, Dtype::F64, 1);
    ASSERT_FALSE(p);
    EXPECT_EQ(p.error().code, Error::Code::Overflow);
    EXPECT_NE(p.error().message.find("element count"), std::string::npos);
}

TEST(Problem, RejectsByteSizesThatOverflow) {
    // 2^61 elements fit in 64 bits; 2^61 * 8 bytes do not.
    auto p = makeProblem({1ull << 31, 1ull << 30, 1}, Dtype::F64, 1);
    ASSERT_FALSE(p);
    EXPECT_EQ(p.error().code, Error::Code::Overflow);
    EXPECT_NE(p.error().message.find("byte size"), std::string::npos);
}

TEST(Problem, RejectsWorkBelowOne) {
    for (std::int64_t work : {0, -1, -100}) {
        auto p = makeProblem({1, 1, 1}, Dtype::F64, work);
        ASSERT_FALSE(p);
        EXPECT_EQ(p.error().code, Error::Code::InvalidArgument);
    }
}

TEST(Problem, RefusesMoreOperationsThanATraceCanTime) {
    // The seed's shape with --work 4294967295: 8.6e15 operations, far past the limit.
    auto seed = makeProblem({100, 4000, 5}, Dtype::F64, 4294967295);
    ASSERT_FALSE(seed);
    EXPECT_EQ(seed.error().code, Error::Code::OutOfRange);
    EXPECT_NE(seed.error().message.find("operations"), std::string::npos) << seed.error().message;
    EXPECT_NE(seed.error().message.find("at most"), std::string::npos) << seed.error().message;
    // Exactly at the limit is accepted, one element more is not.
    const std::uint64_t work = 1u << 20;
    const std::uint64_t rows = kMaxOperations / work;
    EXPECT_TRUE(makeProblem({rows, 1, 1}, Dtype::F64, work));
    EXPECT_FALSE(makeProblem({rows + 1, 1, 1}, Dtype::F64, work));
}

// The limit is where the slowest figure a trace must hold (one worker walking every operation as
// one dependent chain, on the slowest preset) still fits in the longest duration a trace can
// hold: every modelled run of a problem at the limit can be written.
TEST(Problem, EveryModelledRunAtTheOperationLimitCanBeWritten) {
    const std::uint64_t work = std::numeric_limits<std::uint32_t>::max();
    const std::uint64_t rows = kMaxOperations / work;
    for (const Dtype dtype : {Dtype::F64, Dtype::F32}) {
        auto problem = makeProblem({rows, 1, 1}, dtype, std::int64_t(work));
        ASSERT_TRUE(problem) << problem.error().message;
        backend::RunRequest request;
        request.problem = *problem;
        for (const auto& device : device::presets()) {
            for (const auto& s : strategy::allStrategies()) {
                if (!strategy::isGpu(s.id)) {
                    continue;
                }
                auto run = backend::modelRun(s.id, request, device);
                ASSERT_TRUE(run) << device.id << " " << s.name << ": " << run.error().message;
                EXPECT_EQ(trace::runLimitError(*run), std::nullopt)
                    << device.id << " " << s.name << " " << toString(dtype);
            }
        }
    }
}

TEST(Problem, SizesOfTheSeed) {
    auto p = makeProblem({100, 4000, 5}, Dtype::F64, 1);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->elements(), 2'000'000u);
    EXPECT_EQ(p->arrayBytes(), 16'000'000u);
    EXPECT_EQ(p->multByBytes(), 160'000u);
    // One multiply per element over 16 MB in, 0.16 MB in and 16 MB out.
    EXPECT_NEAR(p->arithmeticIntensity(), 2e6 / 32.16e6, 1e-9);
    EXPECT_EQ(p->describe(), "100x4000x5 f64, work 1");

    auto f32 = makeProblem({100, 4000, 5}, Dtype::F32, 3);
    EXPECT_EQ(f32->arrayBytes(), 8'000'000u);
    EXPECT_NEAR(f32->arithmeticIntensity(), 2e6 * 5 / 16.08e6, 1e-9);
}

TEST(Problem, ParsesDtypes) {
    EXPECT_EQ(*parseDtype("f64"), Dtype::F64);
    EXPECT_EQ(*parseDtype("f32"), Dtype::F32);
    auto bad = parseDtype("f16");
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("f16"), std::string::npos);
}

TEST(Problem, ReadsAvailableHostMemory) {
    auto bytes = availableHostMemoryBytes();
    ASSERT_TRUE(bytes) << bytes.error().message;
    EXPECT_GT(*bytes, 1u << 20);
}
