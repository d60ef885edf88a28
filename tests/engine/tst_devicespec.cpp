#include "slicescope/device/devicespec.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <set>

using namespace slicescope;
using namespace slicescope::device;

namespace slicescope::embedded {
std::string_view devicesJson(); // resources/devices.json as compiled into the engine
}

namespace {

const DeviceSpec& preset(std::string_view id) {
    static std::vector<DeviceSpec> none;
    for (const auto& p : presets()) {
        if (p.id == id) {
            return p;
        }
    }
    ADD_FAILURE() << "no preset " << id;
    none.emplace_back();
    return none.back();
}

nlohmann::json builtInDocument() {
    return nlohmann::json::parse(embedded::devicesJson());
}

std::string firstError(const nlohmann::json& document) {
    auto parsed = parsePresets(document.dump());
    if (parsed) {
        return "(accepted)";
    }
    EXPECT_EQ(parsed.error().code, Error::Code::Parse);
    return parsed.error().message;
}

void expectSameDevice(const DeviceSpec& a, const DeviceSpec& b) {
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.computeMajor, b.computeMajor);
    EXPECT_EQ(a.computeMinor, b.computeMinor);
    EXPECT_EQ(a.smCount, b.smCount);
    EXPECT_EQ(a.warpSize, b.warpSize);
    EXPECT_EQ(a.maxThreadsPerSm, b.maxThreadsPerSm);
    EXPECT_EQ(a.maxWarpsPerSm, b.maxWarpsPerSm);
    EXPECT_EQ(a.maxBlocksPerSm, b.maxBlocksPerSm);
    EXPECT_EQ(a.maxThreadsPerBlock, b.maxThreadsPerBlock);
    EXPECT_EQ(a.registersPerSm, b.registersPerSm);
    EXPECT_EQ(a.registersPerBlock, b.registersPerBlock);
    EXPECT_EQ(a.maxRegistersPerThread, b.maxRegistersPerThread);
    EXPECT_EQ(a.sharedMemoryPerSmBytes, b.sharedMemoryPerSmBytes);
    EXPECT_EQ(a.sharedMemoryPerBlockBytes, b.sharedMemoryPerBlockBytes);
    EXPECT_EQ(a.sharedMemoryPerBlockOptinBytes, b.sharedMemoryPerBlockOptinBytes);
    EXPECT_EQ(a.reservedSharedMemoryPerBlockBytes, b.reservedSharedMemoryPerBlockBytes);
    EXPECT_EQ(a.clockMHz, b.clockMHz);
    EXPECT_EQ(a.memoryBandwidthGBps, b.memoryBandwidthGBps);
    EXPECT_EQ(a.globalMemoryBytes, b.globalMemoryBytes);
    EXPECT_EQ(a.pageableHtoDGBps, b.pageableHtoDGBps);
    EXPECT_EQ(a.pageableDtoHGBps, b.pageableDtoHGBps);
    EXPECT_EQ(a.pinnedHtoDGBps, b.pinnedHtoDGBps);
    EXPECT_EQ(a.pinnedDtoHGBps, b.pinnedDtoHGBps);
    EXPECT_EQ(a.fp32FmaPerSmPerClock, b.fp32FmaPerSmPerClock);
    EXPECT_EQ(a.fp64FmaPerSmPerClock, b.fp64FmaPerSmPerClock);
    EXPECT_EQ(a.sources, b.sources);
}

} // namespace

TEST(DevicePresets, BuiltInDocumentParses) {
    auto parsed = parsePresets(embedded::devicesJson());
    ASSERT_TRUE(parsed) << parsed.error().message;
    EXPECT_EQ(parsed->size(), presets().size());
}

TEST(DevicePresets, HasEveryRequiredPresetOnce) {
    const std::set<std::string> required = {"h200",        "h100-sxm", "a100-sxm4-80gb",
                                            "rtx-4090",    "rtx-3090", "t4",
                                            "gtx-1080-ti", "gtx-970",  "quadro-k2000"};
    std::multiset<std::string> ids;
    for (const auto& p : presets()) {
        ids.insert(p.id);
    }
    for (const auto& id : required) {
        EXPECT_EQ(ids.count(id), 1u) << id;
    }
}

// Per compute capability, from the CUDA C++ Programming Guide's table "Technical Specifications
// per Compute Capability": typed in a second time here so a slip in devices.json shows.
struct ComputeCapabilityFacts {
    const char* preset;
    const char* cc;
    std::uint32_t threadsPerSm;
    std::uint32_t blocksPerSm;
    std::uint32_t registersPerThread;
    std::uint64_t sharedPerSmKiB;
    std::uint64_t sharedPerBlockOptinKiB;
    std::uint64_t reservedPerBlockBytes;
    std::uint32_t smCount; // a product fact: whitepapers and datasheets
    // Programming Guide, 'Throughput of Native Arithmetic Instructions': FMA per clock per SM.
    double fp32Fma;
    double fp64Fma;
};

class PresetFacts : public testing::TestWithParam<ComputeCapabilityFacts> {};

TEST_P(PresetFacts, MatchTheProgrammingGuide) {
    const auto& f = GetParam();
    const DeviceSpec& d = preset(f.preset);
    EXPECT_EQ(d.computeCapability(), f.cc);
    EXPECT_EQ(d.maxThreadsPerSm, f.threadsPerSm);
    EXPECT_EQ(d.maxBlocksPerSm, f.blocksPerSm);
    EXPECT_EQ(d.maxRegistersPerThread, f.registersPerThread);
    EXPECT_EQ(d.registersPerSm, 65536u);
    EXPECT_EQ(d.registersPerBlock, 65536u);
    EXPECT_EQ(d.sharedMemoryPerSmBytes, f.sharedPerSmKiB * 1024);
    EXPECT_EQ(d.sharedMemoryPerBlockBytes, 48u * 1024);
    EXPECT_EQ(d.sharedMemoryPerBlockOptinBytes, f.sharedPerBlockOptinKiB * 1024);
    EXPECT_EQ(d.reservedSharedMemoryPerBlockBytes, f.reservedPerBlockBytes);
    EXPECT_EQ(d.smCount, f.smCount);
    EXPECT_EQ(d.fp32FmaPerSmPerClock, f.fp32Fma);
    EXPECT_EQ(d.fp64FmaPerSmPerClock, f.fp64Fma);
    EXPECT_NE(d.sources.at("fp64_fma_per_sm_per_clock").find("Throughput of Native Arithmetic"),
              std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    Presets, PresetFacts,
    testing::Values(
        ComputeCapabilityFacts{"h200", "9.0", 2048, 32, 255, 228, 227, 1024, 132, 128, 64},
        ComputeCapabilityFacts{"h100-sxm", "9.0", 2048, 32, 255, 228, 227, 1024, 132, 128, 64},
        ComputeCapabilityFacts{"a100-sxm4-80gb", "8.0", 2048, 32, 255, 164, 163, 1024, 108, 64, 32},
        ComputeCapabilityFacts{"rtx-4090", "8.9", 1536, 24, 255, 100, 99, 1024, 128, 128, 2},
        ComputeCapabilityFacts{"rtx-3090", "8.6", 1536, 16, 255, 100, 99, 1024, 82, 128, 2},
        ComputeCapabilityFacts{"t4", "7.5", 1024, 16, 255, 64, 64, 0, 40, 64, 2},
        ComputeCapabilityFacts{"gtx-1080-ti", "6.1", 2048, 32, 255, 96, 48, 0, 28, 128, 4},
        ComputeCapabilityFacts{"gtx-970", "5.2", 2048, 32, 255, 96, 48, 0, 13, 128, 4},
        ComputeCapabilityFacts{"quadro-k2000", "3.0", 2048, 16, 63, 48, 48, 0, 2, 192, 8}),
    [](const auto& param) {
        std::string name = param.param.preset;
        std::replace(name.begin(), name.end(), '-', '_');
        return name;
    });

TEST(DevicePresets, FiguresAreInternallyConsistent) {
    for (const auto& d : presets()) {
        SCOPED_TRACE(d.id);
        EXPECT_FALSE(d.name.empty());
        EXPECT_EQ(d.warpSize, 32u);
        EXPECT_EQ(d.maxWarpsPerSm * d.warpSize, d.maxThreadsPerSm);
        EXPECT_EQ(d.maxThreadsPerBlock, 1024u);
        EXPECT_LE(d.maxThreadsPerBlock, d.maxThreadsPerSm);
        EXPECT_LE(d.registersPerBlock, d.registersPerSm);
        EXPECT_LE(d.maxRegistersPerThread, 255u);
        EXPECT_LE(d.sharedMemoryPerBlockBytes, d.sharedMemoryPerBlockOptinBytes);
        EXPECT_LE(d.sharedMemoryPerBlockOptinBytes + d.reservedSharedMemoryPerBlockBytes,
                  d.sharedMemoryPerSmBytes);
        // The 1 KB per-block system reserve starts with Ampere.
        EXPECT_EQ(d.reservedSharedMemoryPerBlockBytes > 0, d.computeMajor >= 8);
        EXPECT_EQ(d.runnableWithCuda13(), d.computeMajor * 10 + d.computeMinor >= 75);
        EXPECT_GE(d.smCount, 1u);
        EXPECT_LE(d.smCount, 200u);
        EXPECT_GE(d.clockMHz, 500);
        EXPECT_LE(d.clockMHz, 3000);
        EXPECT_GE(d.memoryBandwidthGBps, 50);
        EXPECT_LE(d.memoryBandwidthGBps, 10000);
        EXPECT_GE(d.globalMemoryBytes, 1ull << 30);
        // Pinned copies skip the staging copy that pageable ones need, and no PCIe x16 link of
        // generation 5 or older passes 64 GB/s per direction.
        EXPECT_GE(d.pinnedHtoDGBps, d.pageableHtoDGBps);
        EXPECT_GE(d.pinnedDtoHGBps, d.pageableDtoHGBps);
        EXPECT_LT(d.pinnedHtoDGBps, 64);
        EXPECT_LT(d.pinnedDtoHGBps, 64);
    }
}

TEST(DevicePresets, H200UsesTheFiguresMeasuredOnTheLentH200) {
    // resources/devices.json: pageable HtoD 6.7 GB/s, pinned 55 GB/s each way at 1 GiB.
    const DeviceSpec& h200 = preset("h200");
    EXPECT_EQ(h200.computeCapability(), "9.0");
    EXPECT_EQ(h200.smCount, 132u);
    EXPECT_DOUBLE_EQ(h200.pageableHtoDGBps, 6.7);
    EXPECT_DOUBLE_EQ(h200.pinnedHtoDGBps, 55.0);
    EXPECT_DOUBLE_EQ(h200.pinnedDtoHGBps, 55.0);
    EXPECT_NE(h200.sources.at("pageable_htod_gbps").find("measured"), std::string::npos);
    EXPECT_NE(h200.sources.at("pinned_htod_gbps").find("docs/design.md"), std::string::npos);
}

TEST(DevicePresets, EveryFigureHasASource) {
    for (const auto& d : presets()) {
        SCOPED_TRACE(d.id);
        const auto object = nlohmann::json::parse(toJson(d, true));
        std::size_t figures = 0;
        for (const auto& [key, value] : object.items()) {
            if (key == "id" || key == "name" || key == "sources") {
                continue;
            }
            ++figures;
            const auto source = d.sources.find(key);
            ASSERT_NE(source, d.sources.end()) << "no source for " << key;
            EXPECT_GT(source->second.size(), 10u) << key;
        }
        EXPECT_EQ(figures, 24u); // compute capability and 23 numbers
    }
}

TEST(DevicePresets, HostLinkFiguresSayWhetherMeasuredOrEstimated) {
    for (const auto& d : presets()) {
        for (const char* key :
             {"pageable_htod_gbps", "pageable_dtoh_gbps", "pinned_htod_gbps", "pinned_dtoh_gbps"}) {
            const std::string& source = d.sources.at(key);
            const bool measured = source.rfind("measured on the lent H200", 0) == 0;
            const bool estimate = source.rfind("estimate: ", 0) == 0;
            EXPECT_TRUE(measured || estimate) << d.id << " " << key << ": " << source;
            // Only the H200 was measured; no other preset may claim to be.
            if (d.id != "h200") {
                EXPECT_TRUE(estimate) << d.id << " " << key << ": " << source;
            }
        }
    }
}

TEST(DevicePresets, FindPresetByIdAndListsTheKnownOnesWhenUnknown) {
    auto h200 = findPreset("h200");
    ASSERT_TRUE(h200) << h200.error().message;
    EXPECT_EQ(h200->name, "NVIDIA H200");

    auto unknown = findPreset("h900");
    ASSERT_FALSE(unknown);
    const std::string& message = unknown.error().message;
    EXPECT_NE(message.find("unknown device preset 'h900'"), std::string::npos) << message;
    for (const auto& p : presets()) {
        EXPECT_NE(message.find(p.id), std::string::npos) << message;
    }
}

TEST(DevicePresets, RoundTripThroughJson) {
    nlohmann::json document = {{"format", "slicescope-device-presets"}, {"version", 1}};
    document["presets"] = nlohmann::json::array();
    for (const auto& p : presets()) {
        document["presets"].push_back(nlohmann::json::parse(toJson(p, true)));
    }
    auto again = parsePresets(document.dump());
    ASSERT_TRUE(again) << again.error().message;
    ASSERT_EQ(again->size(), presets().size());
    for (std::size_t i = 0; i < again->size(); ++i) {
        SCOPED_TRACE(presets()[i].id);
        expectSameDevice((*again)[i], presets()[i]);
    }
}

TEST(DevicePresets, ToJsonLeavesSourcesOutUnlessAsked) {
    const auto plain = nlohmann::json::parse(toJson(preset("t4")));
    EXPECT_FALSE(plain.contains("sources"));
    EXPECT_EQ(plain["compute_capability"], "7.5");
    EXPECT_EQ(plain["sm_count"], 40);
    EXPECT_TRUE(nlohmann::json::parse(toJson(preset("t4"), true)).contains("sources"));
}

TEST(DevicePresets, ArithmeticRatesStayOutOfTraceDeviceObjects) {
    // The FMA rates describe the architecture for the model; a trace's device object (written
    // without sources) keeps the keys it always had.
    const auto plain = nlohmann::json::parse(toJson(preset("h200")));
    EXPECT_FALSE(plain.contains("fp64_fma_per_sm_per_clock"));
    EXPECT_FALSE(plain.contains("fp32_fma_per_sm_per_clock"));
    const auto full = nlohmann::json::parse(toJson(preset("h200"), true));
    EXPECT_EQ(full["fp64_fma_per_sm_per_clock"], 64);
    EXPECT_EQ(full["fp32_fma_per_sm_per_clock"], 128);
    // So does the L2 capacity the model reads.
    EXPECT_FALSE(plain.contains("l2_cache_bytes"));
    EXPECT_EQ(full["l2_cache_bytes"], 52428800);
}

TEST(DevicePresetsRejects, TextThatIsNotJsonOrTruncated) {
    EXPECT_FALSE(parsePresets("not json"));
    const std::string_view text = embedded::devicesJson();
    auto truncated = parsePresets(text.substr(0, text.size() / 2));
    ASSERT_FALSE(truncated);
    EXPECT_EQ(truncated.error().code, Error::Code::Parse);
    EXPECT_NE(truncated.error().message.find("not valid JSON"), std::string::npos);
}

// Found by fuzz_device (tests/data/fuzz-regressions/device/number-beyond-double.json): the
// text "1e381" made nlohmann::json throw out_of_range (number overflow), which parsePresets did
// not catch, so the exception left the engine and terminated the program.
TEST(DevicePresetsRejects, ANumberBeyondADoubleWithoutThrowing) {
    auto document = builtInDocument();
    std::string text = document.dump();
    const std::string clock = "\"clock_mhz\":" + document["presets"][0]["clock_mhz"].dump();
    ASSERT_NE(text.find(clock), std::string::npos);
    text.replace(text.find(clock), clock.size(), "\"clock_mhz\":1e400");
    for (const std::string& bad : {std::string("1e381"), text}) {
        Result<std::vector<DeviceSpec>> parsed = fail(Error::Code::Internal, "not run");
        EXPECT_NO_THROW(parsed = parsePresets(bad));
        ASSERT_FALSE(parsed);
        EXPECT_EQ(parsed.error().code, Error::Code::Parse);
        // Named, not "not valid JSON" (which it said until the field was named).
        EXPECT_NE(parsed.error().message.find("1e"), std::string::npos) << parsed.error().message;
        EXPECT_NE(parsed.error().message.find("out of range"), std::string::npos)
            << parsed.error().message;
    }
    EXPECT_NE(parsePresets(text).error().message.find(
                  "device presets: \"clock_mhz\" is 1e400, out of range"),
              std::string::npos)
        << parsePresets(text).error().message;
}

// A whole number beyond 64 bits (30 digits) reads as a double: out of range, naming the preset
// and the field, like any figure the field cannot hold.
TEST(DevicePresetsRejects, AWholeNumberBeyondItsFieldNamingPresetAndField) {
    auto document = builtInDocument();
    std::string text = document.dump();
    const std::string sms = "\"sm_count\":" + document["presets"][0]["sm_count"].dump();
    ASSERT_NE(text.find(sms), std::string::npos);
    text.replace(text.find(sms), sms.size(), "\"sm_count\":123456789012345678901234567890");
    const auto parsed = parsePresets(text);
    ASSERT_FALSE(parsed);
    EXPECT_EQ(parsed.error().code, Error::Code::Parse);
    EXPECT_NE(parsed.error().message.find("device preset 'h200': device field \"sm_count\" is "
                                          "1.2345678901234568e+29, out of range: at most "
                                          "4294967295"),
              std::string::npos)
        << parsed.error().message;

    document["presets"][0]["sm_count"] = 4294967296;
    EXPECT_NE(firstError(document).find("\"sm_count\" is 4294967296, out of range"),
              std::string::npos)
        << firstError(document);
}

TEST(DevicePresetsRejects, WrongFormatVersionOrList) {
    auto document = builtInDocument();
    document["format"] = "slicescope-trace";
    EXPECT_NE(firstError(document).find("format"), std::string::npos);

    document = builtInDocument();
    document["version"] = 2;
    EXPECT_NE(firstError(document).find("version 2"), std::string::npos);

    document = builtInDocument();
    document.erase("version");
    EXPECT_NE(firstError(document).find("version"), std::string::npos);

    document = builtInDocument();
    document["presets"] = nlohmann::json::object();
    EXPECT_NE(firstError(document).find("presets"), std::string::npos);

    document = builtInDocument();
    document["presets"] = nlohmann::json::array();
    EXPECT_NE(firstError(document).find("presets"), std::string::npos);
}

TEST(DevicePresetsRejects, APresetMissingAFigureNamingPresetAndField) {
    for (const char* key :
         {"sm_count", "compute_capability", "pinned_dtoh_gbps",
          "reserved_shared_memory_per_block_bytes", "fp64_fma_per_sm_per_clock", "name"}) {
        auto document = builtInDocument();
        document["presets"][2].erase(key);
        const std::string error = firstError(document);
        EXPECT_NE(error.find("'a100-sxm4-80gb'"), std::string::npos) << error;
        EXPECT_NE(error.find(std::string("\"") + key + "\""), std::string::npos) << error;
    }
}

TEST(DevicePresetsRejects, AFigureWithoutASourceNamingPresetAndField) {
    for (const char* key :
         {"clock_mhz", "compute_capability", "pageable_htod_gbps", "fp64_fma_per_sm_per_clock"}) {
        auto document = builtInDocument();
        document["presets"][5]["sources"].erase(key);
        const std::string error = firstError(document);
        EXPECT_NE(error.find("'t4'"), std::string::npos) << error;
        EXPECT_NE(error.find(std::string("source for \"") + key + "\""), std::string::npos)
            << error;
    }
    auto document = builtInDocument();
    document["presets"][5]["sources"]["clock_mhz"] = "";
    EXPECT_NE(firstError(document).find("source for \"clock_mhz\""), std::string::npos);

    document = builtInDocument();
    document["presets"][5].erase("sources");
    EXPECT_NE(firstError(document).find("'t4': missing \"sources\""), std::string::npos);
}

TEST(DevicePresetsRejects, BadValues) {
    auto document = builtInDocument();
    document["presets"][0]["sm_count"] = "many";
    std::string error = firstError(document);
    EXPECT_NE(error.find("'h200'"), std::string::npos) << error;
    EXPECT_NE(error.find("sm_count"), std::string::npos) << error;

    document = builtInDocument();
    document["presets"][0]["sm_count"] = 0;
    EXPECT_NE(firstError(document).find("\"sm_count\" must be greater than 0"), std::string::npos);

    document = builtInDocument();
    document["presets"][0]["fp32_fma_per_sm_per_clock"] = 0;
    EXPECT_NE(firstError(document).find("\"fp32_fma_per_sm_per_clock\" must be greater than 0"),
              std::string::npos);

    document = builtInDocument();
    document["presets"][0]["registers_per_sm"] = -65536;
    EXPECT_NE(firstError(document).find("registers_per_sm"), std::string::npos);

    document = builtInDocument();
    document["presets"][0]["max_warps_per_sm"] = 48;
    EXPECT_NE(firstError(document).find("max_warps_per_sm"), std::string::npos);

    document = builtInDocument();
    document["presets"][0]["compute_capability"] = "nine";
    EXPECT_NE(firstError(document).find("compute_capability"), std::string::npos);

    document = builtInDocument();
    document["presets"][1]["id"] = "h200";
    EXPECT_NE(firstError(document).find("'h200' appears twice"), std::string::npos);

    document = builtInDocument();
    document["presets"][3].erase("id");
    EXPECT_NE(firstError(document).find("device preset #4: missing \"id\""), std::string::npos);

    document = builtInDocument();
    document["presets"][3] = 42;
    EXPECT_NE(firstError(document).find("#4"), std::string::npos);
}
