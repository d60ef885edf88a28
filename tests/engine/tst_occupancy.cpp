#include "slicescope/device/devicespec.h"
#include "slicescope/occupancy/occupancycalculator.h"

#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

using namespace slicescope;
using namespace slicescope::occupancy;

namespace {

device::DeviceSpec preset(std::string_view id) {
    auto found = device::findPreset(id);
    EXPECT_TRUE(found) << id;
    return found ? *found : device::DeviceSpec{};
}

KernelResources kernel(std::uint32_t block, std::uint32_t registers, std::uint64_t sharedBytes = 0,
                       bool optIn = false) {
    KernelResources k;
    k.blockSize = block;
    k.registersPerThread = registers;
    k.sharedMemoryPerBlockBytes = sharedBytes;
    k.sharedMemoryOptIn = optIn;
    return k;
}

// Known answers, each worked out by hand from the rules in cuda_occupancy.h and the preset's
// figures (the comment gives the arithmetic).
struct KnownAnswer {
    const char* preset;
    std::uint32_t block;
    std::uint32_t registers;
    std::uint64_t sharedBytes;
    bool optIn;
    std::uint32_t blocks;
    std::uint32_t warps;
    std::vector<Limiter> limiters; // the first is the one reported
};

std::ostream& operator<<(std::ostream& out, const KnownAnswer& a) {
    return out << a.preset << " block " << a.block << " regs " << a.registers << " smem "
               << a.sharedBytes << (a.optIn ? " opt-in" : "");
}

using L = Limiter;

class OccupancyKnownAnswers : public testing::TestWithParam<KnownAnswer> {};

TEST_P(OccupancyKnownAnswers, Match) {
    const KnownAnswer& a = GetParam();
    const auto device = preset(a.preset);
    auto r = calculate(device, kernel(a.block, a.registers, a.sharedBytes, a.optIn));
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->activeBlocksPerSm, a.blocks);
    EXPECT_EQ(r->activeWarpsPerSm, a.warps);
    EXPECT_DOUBLE_EQ(r->occupancy, double(a.warps) / double(device.maxWarpsPerSm));
    EXPECT_EQ(r->limiter, a.limiters.front());
    EXPECT_EQ(r->limiters, a.limiters);
    EXPECT_EQ(r->maxWarpsPerSm, device.maxWarpsPerSm);

    // The sentence names what limits and carries the numbers a reader needs.
    const std::string& why = r->explanation;
    EXPECT_EQ(why.back(), '.') << why;
    if (a.blocks == 0) {
        EXPECT_NE(why.find("cannot launch"), std::string::npos) << why;
        return;
    }
    EXPECT_NE(why.find(std::to_string(a.block) + " thread"), std::string::npos) << why;
    EXPECT_NE(why.find(std::to_string(a.warps) + " of " + std::to_string(device.maxWarpsPerSm) +
                       " warps"),
              std::string::npos)
        << why;
    const char* names[] = {"Warps limit", "resident blocks per SM", "Registers limit",
                           "Shared memory limits"};
    EXPECT_NE(why.find(names[int(a.limiters.front())]), std::string::npos) << why;
}

INSTANTIATE_TEST_SUITE_P(
    Table, OccupancyKnownAnswers,
    testing::Values(
        // H200: 64 warps, 32 blocks, 65536 registers in 4 sub-partitions, 228 KB, 1 KB reserve.
        // 56 x 32 = 1792 per warp; 16384 / 1792 = 9 warps per sub-partition, 36 per SM: 1 block.
        KnownAnswer{"h200", 1024, 56, 0, false, 1, 32, {L::Registers}},
        KnownAnswer{"h200", 64, 0, 0, false, 32, 64, {L::Warps, L::Blocks}},
        // 1 warp per block: 64 by warps, but only 32 blocks may be resident.
        KnownAnswer{"h200", 32, 32, 0, false, 32, 32, {L::Blocks}},
        KnownAnswer{"h200", 1, 0, 0, false, 32, 32, {L::Blocks}},
        // 1024 registers per warp: 16 warps per sub-partition = 64 = all warp slots.
        KnownAnswer{"h200", 256, 32, 0, false, 8, 64, {L::Warps, L::Registers}},
        KnownAnswer{"h200", 1000, 32, 0, false, 2, 64, {L::Warps, L::Registers}},
        // 2048 per warp: 8 warps per sub-partition, 32 per SM, 4 blocks of 8 warps.
        KnownAnswer{"h200", 256, 64, 0, false, 4, 32, {L::Registers}},
        // 255 x 32 = 8160, allocated 8192: 2 warps per sub-partition, 8 per SM, 2 blocks.
        KnownAnswer{"h200", 128, 255, 0, false, 2, 8, {L::Registers}},
        // 8192 x 32 warps = 262144 registers for one block: cannot launch.
        KnownAnswer{"h200", 1024, 255, 0, false, 0, 0, {L::Registers}},
        // 9 warps x 6144 = 55296 fits, but the hardware counts 12 warps (a multiple of the
        // 4 sub-partitions): 73728 > 65536, cannot launch.
        KnownAnswer{"h200", 288, 192, 0, false, 0, 0, {L::Registers}},
        // 49152 + 1024 reserve = 50176; 233472 / 50176 = 4 blocks.
        KnownAnswer{"h200", 256, 0, 49152, false, 4, 32, {L::SharedMemory}},
        // Past 48 KB a kernel must opt in; then 50177 rounds to 50304 (128-byte unit): 4 blocks.
        KnownAnswer{"h200", 256, 0, 49153, false, 0, 0, {L::SharedMemory}},
        KnownAnswer{"h200", 256, 0, 49153, true, 4, 32, {L::SharedMemory}},
        KnownAnswer{"h200", 1024, 0, 232448, true, 1, 32, {L::SharedMemory}},
        KnownAnswer{"h200", 1024, 0, 232449, true, 0, 0, {L::SharedMemory}},
        // 8000 + 1024 = 9024, rounded to 9088: 233472 / 9088 = 25 blocks.
        KnownAnswer{"h200", 32, 0, 8000, false, 25, 25, {L::SharedMemory}},
        // T4: 32 warps, 16 blocks, 64 KB, 256-byte unit, no reserve.
        KnownAnswer{"t4", 1024, 32, 0, false, 1, 32, {L::Warps}},
        KnownAnswer{"t4", 1024, 64, 0, false, 1, 32, {L::Warps, L::Registers}},
        // 65 x 32 = 2080, allocated 2304; 32 warps need 73728 registers.
        KnownAnswer{"t4", 1024, 65, 0, false, 0, 0, {L::Registers}},
        KnownAnswer{"t4", 128, 0, 0, false, 8, 32, {L::Warps}},
        // 20000 rounds to 20224; 65536 / 20224 = 3 blocks of 4 warps.
        KnownAnswer{"t4", 128, 0, 20000, false, 3, 12, {L::SharedMemory}},
        KnownAnswer{"t4", 32, 0, 0, false, 16, 16, {L::Blocks}},
        KnownAnswer{"t4", 128, 0, 49153, false, 0, 0, {L::SharedMemory}},
        KnownAnswer{"t4", 128, 0, 49153, true, 1, 4, {L::SharedMemory}},
        // RTX 3090: 48 warps, 16 blocks.
        KnownAnswer{"rtx-3090", 1024, 0, 0, false, 1, 32, {L::Warps}},
        // 40 x 32 = 1280 per warp: 12 warps per sub-partition, 48 per SM.
        KnownAnswer{"rtx-3090", 768, 40, 0, false, 2, 48, {L::Warps, L::Registers}},
        KnownAnswer{"rtx-3090", 64, 0, 0, false, 16, 32, {L::Blocks}},
        // A100: 32768 + 1024 = 33792; 167936 / 33792 = 4 blocks.
        KnownAnswer{"a100-sxm4-80gb", 256, 0, 32768, false, 4, 32, {L::SharedMemory}},
        // RTX 4090: 24 resident blocks.
        KnownAnswer{"rtx-4090", 32, 0, 0, false, 24, 24, {L::Blocks}},
        // GTX 1080 Ti: 96 KB per SM, no opt-in above 48 KB before Volta.
        KnownAnswer{"gtx-1080-ti", 64, 0, 0, false, 32, 64, {L::Warps, L::Blocks}},
        KnownAnswer{"gtx-1080-ti", 256, 0, 49152, false, 2, 16, {L::SharedMemory}},
        KnownAnswer{"gtx-1080-ti", 256, 0, 49153, true, 0, 0, {L::SharedMemory}},
        // GTX 970: 37 x 32 = 1184, allocated 1280: 12 warps per sub-partition, 48 per SM.
        KnownAnswer{"gtx-970", 128, 37, 0, false, 12, 48, {L::Registers}},
        // Quadro K2000: 16 resident blocks, 48 KB, at most 63 registers per thread.
        KnownAnswer{"quadro-k2000", 64, 0, 0, false, 16, 32, {L::Blocks}},
        KnownAnswer{"quadro-k2000", 1024, 63, 0, false, 1, 32, {L::Registers}},
        KnownAnswer{"quadro-k2000", 128, 0, 16384, false, 3, 12, {L::SharedMemory}}));

TEST(Occupancy, ExplainsTheH200CaseFromCuptiMd) {
    // docs/design.md ("Theoretical occupancy"): a 56-register kernel with 1024-thread blocks -> 1
    // block/SM = 50 %.
    auto r = calculate(preset("h200"), kernel(1024, 56));
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->activeBlocksPerSm, 1u);
    EXPECT_DOUBLE_EQ(r->occupancy, 0.5);
    EXPECT_EQ(r->limiter, Limiter::Registers);
    EXPECT_EQ(
        r->explanation,
        "Registers limit each SM to 1 block of 1024 threads (56 registers x 1024 threads = "
        "57344 of 65536): 32 of 64 warps, a per-SM limit of 50 % (CUDA's theoretical occupancy).");
    EXPECT_EQ(r->blocksLimitedByWarps, 2u);
    EXPECT_EQ(r->blocksLimitedByBlocks, 32u);
    EXPECT_EQ(r->blocksLimitedByRegisters, 1u);
    EXPECT_EQ(r->blocksLimitedBySharedMemory, 228u); // the 1 KB reserve alone
    EXPECT_EQ(r->allocatedRegistersPerBlock, 57344u);
    EXPECT_EQ(r->allocatedSharedMemoryPerBlockBytes, 1024u);
    EXPECT_EQ(r->sharedMemoryPerSmBytes, 233472u);
}

TEST(Occupancy, ExplainsWhyALaunchCannotRun) {
    auto regs = calculate(preset("h200"), kernel(1024, 255));
    ASSERT_TRUE(regs);
    EXPECT_EQ(regs->explanation,
              "255 registers x 1024 threads cannot launch: a block would need 262144 registers as "
              "the hardware allocates them (8192 per warp x 32 warps), more than the 65536 one "
              "block may use (0 blocks per SM).");

    auto optIn = calculate(preset("t4"), kernel(128, 0, 60000));
    ASSERT_TRUE(optIn);
    EXPECT_EQ(optIn->activeBlocksPerSm, 0u);
    EXPECT_NE(optIn->explanation.find("without opting in"), std::string::npos);
    EXPECT_NE(optIn->explanation.find("cudaFuncAttributeMaxDynamicSharedMemorySize"),
              std::string::npos);

    auto tooMuch = calculate(preset("t4"), kernel(128, 0, 70000, true));
    ASSERT_TRUE(tooMuch);
    EXPECT_EQ(tooMuch->activeBlocksPerSm, 0u);
    EXPECT_NE(tooMuch->explanation.find("at most 65536 bytes"), std::string::npos)
        << tooMuch->explanation;

    auto absurd = calculate(preset("h200"), kernel(128, 0, ~std::uint64_t(0)));
    ASSERT_TRUE(absurd);
    EXPECT_EQ(absurd->activeBlocksPerSm, 0u);
}

TEST(Occupancy, CountsWarpsAsTheHardwareLaunchCheckDoes) {
    // 9 warps x 6144 = 55296 registers would fit in 65536, but the launch check rounds the
    // block's warps up to the 4 sub-partitions: 12 x 6144 = 73728.
    auto h200 = calculate(preset("h200"), kernel(288, 192));
    ASSERT_TRUE(h200);
    EXPECT_EQ(h200->activeBlocksPerSm, 0u);
    EXPECT_NE(h200->explanation.find("73728 registers"), std::string::npos) << h200->explanation;
    EXPECT_NE(h200->explanation.find("(6144 per warp x 12 warps)"), std::string::npos);

    // Where one block may have only half the SM's registers (Jetson TX1, cc 5.3: 32 K of 64 K),
    // that check alone refuses a launch the SM's register file could hold twice: 9 warps of
    // 96 registers take 27648, but 12 x 3072 = 36864 > 32768.
    auto tx1 = preset("gtx-970");
    tx1.computeMinor = 3;
    tx1.registersPerBlock = 32768;
    tx1.sharedMemoryPerSmBytes = 64 * 1024;
    auto refused = calculate(tx1, kernel(288, 96));
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->activeBlocksPerSm, 0u);
    EXPECT_EQ(refused->limiter, Limiter::Registers);
    auto fits = calculate(tx1, kernel(256, 96)); // 8 warps: 24576 either way
    ASSERT_TRUE(fits);
    EXPECT_EQ(fits->blocksLimitedByRegisters, 2u); // 5 warps per sub-partition, 20 per SM
}

TEST(Occupancy, ExplanationsReadNaturally) {
    auto twoThirds = calculate(preset("rtx-3090"), kernel(1024, 0));
    ASSERT_TRUE(twoThirds);
    EXPECT_EQ(twoThirds->explanation,
              "Warps limit each SM to 1 block of 1024 threads (32 warps each, 48 warp slots per "
              "SM): 32 of 48 warps, a per-SM limit of 66.67 % (CUDA's theoretical occupancy).");

    auto blocks = calculate(preset("h200"), kernel(32, 16));
    ASSERT_TRUE(blocks);
    EXPECT_EQ(blocks->explanation,
              "The limit of 32 resident blocks per SM caps each SM at 32 blocks of 32 threads: 32 "
              "of 64 warps, a per-SM limit of 50 % (CUDA's theoretical occupancy).");

    // 20 x 256 = 5120 asked; 640 per warp is allocated as 768, 6144 per block.
    auto rounded = calculate(preset("h200"), kernel(256, 20, 0));
    ASSERT_TRUE(rounded);
    EXPECT_EQ(rounded->blocksLimitedByRegisters, 10u);
    EXPECT_EQ(rounded->allocatedRegistersPerBlock, 6144u);

    auto shared = calculate(preset("h200"), kernel(32, 0, 8000));
    ASSERT_TRUE(shared);
    EXPECT_EQ(shared->explanation,
              "Shared memory limits each SM to 25 blocks of 32 threads (8000 bytes + 1024 "
              "reserved, allocated as 9088 of 233472 bytes): 25 of 64 warps, a per-SM limit of "
              "39.06 % (CUDA's theoretical occupancy).");
}

TEST(Occupancy, ZeroRegistersAndNoSharedMemorySetNoBound) {
    auto t4 = calculate(preset("t4"), kernel(128, 0, 0));
    ASSERT_TRUE(t4);
    EXPECT_EQ(t4->blocksLimitedByRegisters, kUnlimitedBlocks);
    EXPECT_EQ(t4->blocksLimitedBySharedMemory, kUnlimitedBlocks);
    EXPECT_EQ(t4->allocatedRegistersPerBlock, 0u);

    // From Ampere on, the per-block reserve is allocated even when the kernel asks for none.
    auto h200 = calculate(preset("h200"), kernel(128, 0, 0));
    ASSERT_TRUE(h200);
    EXPECT_EQ(h200->blocksLimitedBySharedMemory, 228u);
}

struct OutOfRangeInput {
    const char* preset;
    std::uint32_t block;
    std::uint32_t registers;
    const char* mentions;
};

class OccupancyRejects : public testing::TestWithParam<OutOfRangeInput> {};

TEST_P(OccupancyRejects, OutOfRangeInput) {
    const auto& in = GetParam();
    auto r = calculate(preset(in.preset), kernel(in.block, in.registers));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, Error::Code::OutOfRange);
    EXPECT_NE(r.error().message.find(in.mentions), std::string::npos) << r.error().message;
}

INSTANTIATE_TEST_SUITE_P(Table, OccupancyRejects,
                         testing::Values(OutOfRangeInput{"h200", 0, 32, "block size"},
                                         OutOfRangeInput{"h200", 1025, 32, "1 to 1024"},
                                         OutOfRangeInput{"h200", 256, 256, "0 to 255"},
                                         OutOfRangeInput{"quadro-k2000", 256, 64, "0 to 63"}));

TEST(OccupancyRejects, BlocksOverTheDeviceMaximum) {
    auto device = preset("t4");
    device.maxThreadsPerBlock = 512;
    auto r = calculate(device, kernel(513, 32));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, Error::Code::OutOfRange);
    EXPECT_NE(r.error().message.find("1 to 512"), std::string::npos) << r.error().message;
    EXPECT_TRUE(calculate(device, kernel(512, 32)));
}

TEST(OccupancyRejects, DevicesItCannotDescribe) {
    auto future = preset("h200");
    future.computeMajor = 10;
    auto r = calculate(future, kernel(256, 32));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, Error::Code::Unsupported);
    EXPECT_NE(r.error().message.find("10.0"), std::string::npos);

    auto empty = preset("h200");
    empty.registersPerSm = 0;
    r = calculate(empty, kernel(256, 32));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, Error::Code::InvalidArgument);

    // Hopper's L1/shared split tops out at 228 KB.
    auto odd = preset("h200");
    odd.sharedMemoryPerSmBytes = 300 * 1024;
    r = calculate(odd, kernel(256, 32));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, Error::Code::InvalidArgument);
}

// tests/data/occupancy/h200-runtime.csv: what cudaOccupancyMaxActiveBlocksPerMultiprocessor
// answered on the lent H200 (see the README beside it). Needs no GPU to check against.
TEST(Occupancy, AgreesWithTheCudaRuntimeOnTheLentH200) {
    std::ifstream in(SLICESCOPE_TEST_DATA_DIR "/occupancy/h200-runtime.csv");
    ASSERT_TRUE(in) << "cannot read h200-runtime.csv";
    const auto h200 = preset("h200");
    std::vector<std::uint64_t> dynamicBytes;
    std::string line;
    std::size_t checked = 0;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') {
            continue;
        }
        std::vector<std::string> cells;
        std::stringstream fields(line);
        for (std::string cell; std::getline(fields, cell, ',');) {
            cells.push_back(cell);
        }
        if (cells[0] == "registers") {
            for (std::size_t i = 4; i < cells.size(); ++i) {
                dynamicBytes.push_back(std::stoull(cells[i].substr(4))); // "dyn_N"
            }
            continue;
        }
        ASSERT_EQ(cells.size(), dynamicBytes.size() + 4) << line;
        const auto registers = std::uint32_t(std::stoul(cells[0]));
        const auto staticBytes = std::stoull(cells[1]);
        const bool optIn = cells[2] == "1";
        const auto block = std::uint32_t(std::stoul(cells[3]));
        for (std::size_t i = 0; i < dynamicBytes.size(); ++i) {
            auto r =
                calculate(h200, kernel(block, registers, staticBytes + dynamicBytes[i], optIn));
            ASSERT_TRUE(r) << r.error().message;
            EXPECT_EQ(r->activeBlocksPerSm, std::stoul(cells[4 + i]))
                << "registers " << registers << ", shared " << staticBytes << " + "
                << dynamicBytes[i] << (optIn ? " (opt-in)" : "") << ", block " << block;
            ++checked;
        }
    }
    EXPECT_EQ(checked, 420u * 18u);
}

} // namespace
