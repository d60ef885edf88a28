// Replays the fuzz seed corpus (tests/data/fuzz-corpus/<target>/) and every input a fuzzer ever
// found (tests/data/fuzz-regressions/<target>/) through the fuzz targets' checks, so a fixed
// finding stays fixed in the normal suite and under the asan preset.
#include "fuzzchecks.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <vector>

namespace slicescope::fuzz {
namespace {

namespace fs = std::filesystem;

constexpr const char* kTargets[] = {"tracereader", "jsoncursor",   "device",
                                    "shape",       "kinetoimport", "ncuimport"};

struct Input {
    std::string target; // one of kTargets
    fs::path path;
};

void PrintTo(const Input& input, std::ostream* out) {
    *out << input.path.string();
}

std::string readFile(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<Input> inputs(const char* folder) {
    std::vector<Input> found;
    for (const char* target : kTargets) {
        const fs::path dir = fs::path(SLICESCOPE_TEST_DATA_DIR) / folder / target;
        if (!fs::is_directory(dir)) {
            continue;
        }
        for (const auto& entry : fs::directory_iterator(dir)) {
            if (entry.is_regular_file()) {
                found.push_back({target, entry.path()});
            }
        }
    }
    std::sort(found.begin(), found.end(),
              [](const Input& a, const Input& b) { return a.path < b.path; });
    return found;
}

std::string testName(const testing::TestParamInfo<Input>& info) {
    std::string name = info.param.target + "_" + info.param.path.filename().string();
    std::replace_if(
        name.begin(), name.end(),
        [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
    return name;
}

std::string check(const Input& input) {
    const std::string data = readFile(input.path);
    if (input.target == "tracereader") {
        return checkTraceInput(data);
    }
    if (input.target == "jsoncursor") {
        return checkJsonCursorInput(data);
    }
    if (input.target == "device") {
        return checkDeviceInput(data);
    }
    if (input.target == "kinetoimport") {
        return checkKinetoInput(data);
    }
    if (input.target == "ncuimport") {
        return checkNcuInput(data);
    }
    return checkShapeInput(data);
}

class FuzzCorpus : public testing::TestWithParam<Input> {};
class FuzzRegression : public testing::TestWithParam<Input> {};

TEST_P(FuzzCorpus, PassesTheFuzzChecks) {
    EXPECT_EQ(check(GetParam()), "") << GetParam().path;
}
TEST_P(FuzzRegression, PassesTheFuzzChecks) {
    EXPECT_EQ(check(GetParam()), "") << GetParam().path;
}

INSTANTIATE_TEST_SUITE_P(Seeds, FuzzCorpus, testing::ValuesIn(inputs("fuzz-corpus")), testName);
INSTANTIATE_TEST_SUITE_P(Findings, FuzzRegression, testing::ValuesIn(inputs("fuzz-regressions")),
                         testName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(FuzzRegression);

// A wrong data path must not turn the replay into a test of nothing.
TEST(FuzzCorpus, EveryTargetHasSeeds) {
    for (const char* target : kTargets) {
        const auto all = inputs("fuzz-corpus");
        EXPECT_TRUE(std::any_of(all.begin(), all.end(), [&](const Input& input) {
            return input.target == target;
        })) << target;
    }
}

} // namespace
} // namespace slicescope::fuzz
