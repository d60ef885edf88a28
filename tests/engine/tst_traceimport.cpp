// Importing other tools' files (docs/import.md) against the real files made on the H200
// (tests/data/import, scripts/make-import-samples.sh): every count, launch fact, duration and
// occupancy figure is checked against the file itself, read here independently (nlohmann::json
// for the PyTorch profiler trace, a small CSV splitter for Nsight Compute's tables).
#include "slicescope/device/devicespec.h"
#include "slicescope/occupancy/occupancycalculator.h"
#include "slicescope/trace/runsummary.h"
#include "slicescope/trace/traceimport.h"
#include "slicescope/trace/tracejson.h"
#include "slicescope/trace/tracelimits.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

namespace slicescope::trace {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kImportDir = fs::path(SLICESCOPE_TEST_DATA_DIR) / "import";

std::string readFile(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

Trace readOk(const fs::path& path, const ReadOptions& options = {}) {
    auto trace = readTrace(path, options);
    EXPECT_TRUE(trace) << path << ": " << trace.error().message;
    return trace ? std::move(*trace) : Trace{};
}

bool hasNote(const trace::Run& run, std::string_view piece) {
    return std::any_of(run.notes.begin(), run.notes.end(), [piece](const std::string& n) {
        return n.find(piece) != std::string::npos;
    });
}

std::string notesOf(const trace::Run& run) {
    std::string all;
    for (const auto& n : run.notes) {
        all += "\n  " + n;
    }
    return all;
}

std::size_t countKind(const trace::Run& run, ActivityKind kind) {
    return std::size_t(std::count_if(run.activities.begin(), run.activities.end(),
                                     [kind](const Activity& a) { return a.kind == kind; }));
}

// An imported trace is a trace like any other: within every limit, and the same after a round
// trip through the writer and the reader.
void expectWritesAndReadsBack(const Trace& trace) {
    for (const auto& run : trace.runs) {
        EXPECT_FALSE(runLimitError(run)) << *runLimitError(run);
    }
    auto back = parseTrace(toJson(trace));
    ASSERT_TRUE(back) << back.error().message;
    ASSERT_EQ(back->runs.size(), trace.runs.size());
    for (std::size_t r = 0; r < trace.runs.size(); ++r) {
        const trace::Run& a = trace.runs[r];
        const trace::Run& b = back->runs[r];
        EXPECT_EQ(a.mode, b.mode);
        EXPECT_EQ(a.source, b.source);
        EXPECT_EQ(a.notes, b.notes);
        ASSERT_EQ(a.activities.size(), b.activities.size());
        for (std::size_t i = 0; i < a.activities.size(); ++i) {
            EXPECT_EQ(a.activities[i].startNs, b.activities[i].startNs);
            EXPECT_EQ(a.activities[i].endNs, b.activities[i].endNs);
            EXPECT_EQ(a.name(a.activities[i]), b.name(b.activities[i]));
            EXPECT_EQ(a.activities[i].limiter, b.activities[i].limiter);
            EXPECT_EQ(a.activities[i].estimatedOccupancyPercent,
                      b.activities[i].estimatedOccupancyPercent);
        }
    }
}

// ---- Telling the formats apart ----------------------------------------------------------------

TEST(TraceImport, TellsTheFormatFromTheContent) {
    EXPECT_EQ(detectFormat(readFile(kImportDir / "kineto-cnn.json")), TraceFormat::Kineto);
    for (const char* file : {"ncu-cnn.csv", "ncu-cnn-raw.csv", "ncu-cupy.csv"}) {
        EXPECT_EQ(detectFormat(readFile(kImportDir / file)), TraceFormat::NcuCsv) << file;
    }
    EXPECT_EQ(detectFormat(readFile(fs::path(SLICESCOPE_TEST_DATA_DIR) / "format-example.json")),
              TraceFormat::SliceScope);
    // Whatever is neither goes to the SliceScope reader, which says what is wrong with it.
    EXPECT_EQ(detectFormat(""), TraceFormat::SliceScope);
    EXPECT_EQ(detectFormat("{\"runs\": []}"), TraceFormat::SliceScope);
    EXPECT_EQ(detectFormat("\"ID\",\"Process"), TraceFormat::SliceScope);
    // A CSV whose program printed JSON before the table, and a BOM before a Kineto trace.
    EXPECT_EQ(detectFormat("{\"a\": 1}\n\"ID\",\"Process ID\",\"Kernel Name\"\n"),
              TraceFormat::NcuCsv);
    EXPECT_EQ(detectFormat("\xEF\xBB\xBF {\"schemaVersion\": 1, \"traceEvents\": []}"),
              TraceFormat::Kineto);
}

TEST(TraceImport, OpensByContentWhateverTheFileIsCalled) {
    const fs::path dir =
        fs::temp_directory_path() / ("tst_traceimport-" + std::to_string(getpid()));
    fs::create_directories(dir);
    fs::copy_file(kImportDir / "kineto-cnn.json", dir / "profile.csv",
                  fs::copy_options::overwrite_existing);
    fs::copy_file(kImportDir / "ncu-cnn.csv", dir / "kernels.json",
                  fs::copy_options::overwrite_existing);
    const Trace kineto = readOk(dir / "profile.csv");
    const Trace ncu = readOk(dir / "kernels.json");
    fs::remove_all(dir);
    ASSERT_EQ(kineto.runs.size(), 1U);
    EXPECT_EQ(kineto.runs[0].source, (ImportSource{"kineto", "profile.csv"}));
    EXPECT_EQ(kineto.runs[0].id, "profile");
    ASSERT_EQ(ncu.runs.size(), 1U);
    EXPECT_EQ(ncu.runs[0].source, (ImportSource{"ncu-csv", "kernels.json"}));
}

// ---- The PyTorch profiler trace ----------------------------------------------------------------

struct KinetoFile {
    json document;
    std::vector<json> events(std::string_view cat) const {
        std::vector<json> out;
        for (const auto& e : document["traceEvents"]) {
            if (e.value("ph", "") == "X" && e.value("cat", "") == cat) {
                out.push_back(e);
            }
        }
        return out;
    }
};

KinetoFile kinetoCnn() {
    return KinetoFile{json::parse(readFile(kImportDir / "kineto-cnn.json"))};
}

TEST(TraceImport, KinetoCountsEveryKindAsTheFileHasThem) {
    const KinetoFile file = kinetoCnn();
    const Trace trace = readOk(kImportDir / "kineto-cnn.json");
    ASSERT_EQ(trace.runs.size(), 1U);
    const trace::Run& run = trace.runs[0];
    EXPECT_EQ(run.mode, RunMode::Imported);
    EXPECT_EQ(run.strategy, "imported");
    EXPECT_EQ(run.id, "kineto-cnn");
    EXPECT_EQ(run.source, (ImportSource{"kineto", "kineto-cnn.json"}));
    EXPECT_FALSE(run.problem);
    EXPECT_FALSE(run.verification);

    EXPECT_EQ(countKind(run, ActivityKind::Kernel), file.events("kernel").size());
    EXPECT_EQ(countKind(run, ActivityKind::Api), file.events("cuda_runtime").size());
    EXPECT_EQ(countKind(run, ActivityKind::Host), file.events("cpu_op").size());
    EXPECT_EQ(countKind(run, ActivityKind::Memset), file.events("gpu_memset").size());
    // Copies by direction, from the names the file gives them.
    std::map<ActivityKind, std::size_t> copies;
    for (const auto& e : file.events("gpu_memcpy")) {
        const std::string name = e["name"];
        ++copies[name.starts_with("Memcpy HtoD")   ? ActivityKind::HtoD
                 : name.starts_with("Memcpy DtoH") ? ActivityKind::DtoH
                                                   : ActivityKind::DtoD];
    }
    EXPECT_EQ(file.events("gpu_memcpy").size(), 8U) << "the file as committed";
    for (const auto kind : {ActivityKind::HtoD, ActivityKind::DtoH, ActivityKind::DtoD}) {
        EXPECT_EQ(countKind(run, kind), copies[kind]) << toString(kind);
    }
    // Times are in order, as the timeline needs them.
    EXPECT_TRUE(
        std::is_sorted(run.activities.begin(), run.activities.end(),
                       [](const Activity& a, const Activity& b) { return a.startNs < b.startNs; }));
    EXPECT_TRUE(hasNote(run, "measured by the PyTorch profiler, not by SliceScope"))
        << notesOf(run);
    expectWritesAndReadsBack(trace);
}

TEST(TraceImport, KinetoKernelsKeepTheirLaunchFactsAndTimes) {
    const KinetoFile file = kinetoCnn();
    const Trace trace = readOk(kImportDir / "kineto-cnn.json");
    ASSERT_EQ(trace.runs.size(), 1U);
    const trace::Run& run = trace.runs[0];
    const std::int64_t base = file.document["baseTimeNanoseconds"];
    const auto kernels = file.events("kernel");
    ASSERT_EQ(kernels.size(), 30U) << "the file as committed";
    for (const auto& e : kernels) {
        const auto& args = e["args"];
        const std::uint32_t correlation = args["correlation"];
        SCOPED_TRACE("correlation " + std::to_string(correlation));
        const auto found = std::find_if(
            run.activities.begin(), run.activities.end(), [correlation](const Activity& a) {
                return a.kind == ActivityKind::Kernel && a.correlationId == correlation;
            });
        ASSERT_NE(found, run.activities.end());
        const Activity& a = *found;
        EXPECT_EQ(run.name(a), e["name"].get<std::string>());
        EXPECT_EQ(a.grid, (Dim3{args["grid"][0], args["grid"][1], args["grid"][2]}));
        EXPECT_EQ(a.block, (Dim3{args["block"][0], args["block"][1], args["block"][2]}));
        EXPECT_EQ(a.registersPerThread, args["registers per thread"].get<int>());
        EXPECT_EQ(std::uint64_t(a.staticSharedBytes) + a.dynamicSharedBytes,
                  args["shared memory"].get<std::uint64_t>());
        EXPECT_EQ(a.stream, args["stream"].get<std::uint32_t>());
        // Durations have three decimals of a microsecond: whole nanoseconds, exactly.
        EXPECT_EQ(a.durationNs(), std::llround(e["dur"].get<double>() * 1000));
        // The timestamp has 16 digits, one more than a double keeps: within a nanosecond here,
        // exact in the importer (which reads the text).
        EXPECT_NEAR(double(a.startNs), double(base) + e["ts"].get<double>() * 1000, 1.0);
        // The profiler's estimate stays an estimate; achieved occupancy stays unknown.
        EXPECT_EQ(a.estimatedOccupancyPercent, args["est. achieved occupancy %"].get<int>());
        EXPECT_TRUE(std::isnan(a.achievedOccupancy));
    }
}

// The device of "deviceProperties" and, for every kernel, the occupancy calculator's theoretical
// occupancy and limiter. The file cannot give those, but its "est. achieved occupancy %" comes
// from cuda_occupancy.h's resident blocks per SM: Kineto's formula with the calculator's blocks
// gives the file's figure for every kernel.
TEST(TraceImport, KinetoKernelsGetTheCalculatorsOccupancyOnTheFilesDevice) {
    const KinetoFile file = kinetoCnn();
    const Trace trace = readOk(kImportDir / "kineto-cnn.json");
    ASSERT_EQ(trace.runs.size(), 1U);
    const trace::Run& run = trace.runs[0];
    const auto& properties = file.document["deviceProperties"][0];
    EXPECT_EQ(run.device.name, properties["name"].get<std::string>());
    EXPECT_EQ(run.device.smCount, properties["numSms"].get<std::uint32_t>());
    EXPECT_EQ(run.device.computeMajor, properties["computeMajor"].get<int>());
    EXPECT_EQ(run.device.computeMinor, properties["computeMinor"].get<int>());
    EXPECT_EQ(run.device.maxThreadsPerSm,
              properties["maxThreadsPerMultiprocessor"].get<std::uint32_t>());
    EXPECT_EQ(run.device.registersPerSm, properties["regsPerMultiprocessor"].get<std::uint32_t>());
    EXPECT_EQ(run.device.sharedMemoryPerSmBytes,
              properties["sharedMemPerMultiprocessor"].get<std::uint64_t>());
    EXPECT_GT(run.device.maxBlocksPerSm, 0U);
    EXPECT_TRUE(hasNote(run, "figures from the trace's deviceProperties")) << notesOf(run);

    std::size_t kernels = 0;
    for (const Activity& a : run.activities) {
        if (a.kind != ActivityKind::Kernel) {
            continue;
        }
        ++kernels;
        SCOPED_TRACE(std::string(run.name(a)));
        const std::uint64_t shared = std::uint64_t(a.staticSharedBytes) + a.dynamicSharedBytes;
        const auto calc = occupancy::calculate(
            run.device, {std::uint32_t(a.block.count()), a.registersPerThread, shared,
                         shared > run.device.sharedMemoryPerBlockBytes});
        ASSERT_TRUE(calc) << calc.error().message;
        EXPECT_FLOAT_EQ(a.theoreticalOccupancy, float(calc->occupancy));
        EXPECT_EQ(toString(a.limiter), occupancy::toString(calc->limiter));
        const double gridPerSm = double(a.grid.count()) / double(run.device.smCount);
        const double blocks = std::min(gridPerSm, double(calc->activeBlocksPerSm));
        const int kineto = int(0.5 + blocks * double(a.block.count()) /
                                         double(run.device.maxThreadsPerSm) * 100.0);
        EXPECT_EQ(kineto, int(a.estimatedOccupancyPercent));
    }
    EXPECT_EQ(kernels, 30U);
}

TEST(TraceImport, KinetoHostWorkSitsOnItsThreads) {
    const KinetoFile file = kinetoCnn();
    const Trace trace = readOk(kImportDir / "kineto-cnn.json");
    ASSERT_EQ(trace.runs.size(), 1U);
    const trace::Run& run = trace.runs[0];
    std::map<std::uint32_t, std::size_t> fileThreads, runThreads;
    for (const char* cat : {"cpu_op", "cuda_runtime"}) {
        for (const auto& e : file.events(cat)) {
            ++fileThreads[e["tid"].get<std::uint32_t>()];
        }
    }
    for (const Activity& a : run.activities) {
        if (a.kind == ActivityKind::Host || a.kind == ActivityKind::Api) {
            ++runThreads[a.threadId];
        }
    }
    EXPECT_EQ(runThreads, fileThreads);
    // Runtime calls keep their correlation with the kernels and copies they issued.
    for (const auto& e : file.events("cuda_runtime")) {
        const std::uint32_t correlation = e["args"]["correlation"];
        EXPECT_TRUE(std::any_of(run.activities.begin(), run.activities.end(),
                                [correlation](const Activity& a) {
                                    return a.kind == ActivityKind::Api &&
                                           a.correlationId == correlation;
                                }))
            << correlation;
    }
}

// A verdict speaks of an imported run as of a recorded one: its device work, no comparison (it
// has no problem to compare by), and no word of SliceScope measuring it.
TEST(TraceImport, VerdictsTreatImportedRunsLikeRecordedOnes) {
    const Trace trace = readOk(kImportDir / "kineto-cnn.json");
    ASSERT_EQ(trace.runs.size(), 1U);
    trace::Run recorded = trace.runs[0];
    recorded.mode = RunMode::Recorded;
    const SummarizedRun imported{&trace.runs[0], summarize(trace.runs[0]), "", ""};
    const SummarizedRun asRecorded{&recorded, summarize(recorded), "", ""};
    EXPECT_EQ(imported.summary.kernelCount, 30U);
    const std::string text = verdict(imported, std::span(&imported, 1));
    EXPECT_EQ(text, verdict(asRecorded, std::span(&asRecorded, 1)));
    EXPECT_EQ(text.find("measured"), std::string::npos) << text;
}

// A trace without "deviceProperties": the device the user chooses, or no theoretical occupancy.
TEST(TraceImport, KinetoWithoutDevicePropertiesTakesTheChosenDevice) {
    auto document = kinetoCnn().document;
    document.erase("deviceProperties");
    const std::string text = document.dump();
    auto bare = parseTrace(text);
    ASSERT_TRUE(bare) << bare.error().message;
    const trace::Run& none = bare->runs[0];
    EXPECT_TRUE(hasNote(none, "no deviceProperties")) << notesOf(none);
    for (const Activity& a : none.activities) {
        EXPECT_TRUE(std::isnan(a.theoreticalOccupancy));
    }

    ReadOptions options;
    options.importDevice = *device::findPreset("h200");
    auto chosen = parseTrace(text, options);
    ASSERT_TRUE(chosen) << chosen.error().message;
    const trace::Run& run = chosen->runs[0];
    EXPECT_EQ(run.device.id, "h200");
    const auto withProperties = readOk(kImportDir / "kineto-cnn.json");
    ASSERT_EQ(run.activities.size(), withProperties.runs[0].activities.size());
    for (std::size_t i = 0; i < run.activities.size(); ++i) {
        EXPECT_TRUE((std::isnan(run.activities[i].theoreticalOccupancy) &&
                     std::isnan(withProperties.runs[0].activities[i].theoreticalOccupancy)) ||
                    run.activities[i].theoreticalOccupancy ==
                        withProperties.runs[0].activities[i].theoreticalOccupancy);
    }
    // Given a device while the file describes its own, the file's wins and a note says so.
    auto both = readOk(kImportDir / "kineto-cnn.json", options);
    EXPECT_EQ(both.runs[0].device.id, "");
    EXPECT_TRUE(hasNote(both.runs[0], "was not used")) << notesOf(both.runs[0]);
}

// A device no preset knows: what deviceProperties lack comes from the CUDA Programming Guide's
// table for its compute capability, and the note says so.
TEST(TraceImport, KinetoDeviceWithoutAPresetTakesTheGuidesFigures) {
    const std::string text =
        R"({"deviceProperties": [{"id": 0, "name": "Some Ampere GPU", "computeMajor": 8, )"
        R"("computeMinor": 6, "numSms": 28, "warpSize": 32, "maxThreadsPerMultiprocessor": 1536, )"
        R"("maxThreadsPerBlock": 1024, "regsPerBlock": 65536, "sharedMemPerBlock": 49152}], )"
        R"("traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, )"
        R"("dur": 1, "args": {"device": 0, "grid": [28, 1, 1], "block": [256, 1, 1], )"
        R"("registers per thread": 32, "shared memory": 0}}]})";
    auto trace = parseTrace(text);
    ASSERT_TRUE(trace) << trace.error().message;
    const trace::Run& run = trace->runs[0];
    EXPECT_EQ(run.device.name, "Some Ampere GPU");
    EXPECT_EQ(run.device.maxBlocksPerSm, 16U);
    EXPECT_EQ(run.device.registersPerSm, 65536U);
    EXPECT_EQ(run.device.sharedMemoryPerSmBytes, 100U * 1024);
    EXPECT_EQ(run.device.sharedMemoryPerBlockOptinBytes, 99U * 1024);
    EXPECT_EQ(run.device.reservedSharedMemoryPerBlockBytes, 1024U);
    EXPECT_EQ(run.device.maxWarpsPerSm, 48U);
    EXPECT_TRUE(hasNote(run, "from the CUDA Programming Guide's values for compute capability 8.6"))
        << notesOf(run);
    const auto calc = occupancy::calculate(run.device, {256, 32, 0, false});
    ASSERT_TRUE(calc) << calc.error().message;
    ASSERT_EQ(run.activities.size(), 1U);
    EXPECT_FLOAT_EQ(run.activities[0].theoreticalOccupancy, float(calc->occupancy));
    EXPECT_EQ(toString(run.activities[0].limiter), occupancy::toString(calc->limiter));
}

// ---- Kineto's variations, on small hand-written traces -----------------------------------------

std::string kinetoWith(const std::string& events) {
    return R"({"schemaVersion": 1, "baseTimeNanoseconds": 1000000000, "traceEvents": [)" + events +
           "]}";
}

std::string copyEvent(const std::string& name) {
    return R"({"ph": "X", "cat": "gpu_memcpy", "name": ")" + name +
           R"(", "pid": 0, "tid": 7, "ts": 10.5, "dur": 2.25, "args": {"stream": 7, "correlation": 3, "bytes": 4096}})";
}

TEST(TraceImport, KinetoCopiesTakeTheirDirectionAndMemoryFromTheName) {
    struct Case {
        const char* name;
        ActivityKind kind;
        MemoryKind src, dst;
    };
    const Case cases[] = {
        {"Memcpy HtoD (Pageable -> Device)", ActivityKind::HtoD, MemoryKind::Pageable,
         MemoryKind::Device},
        {"Memcpy DtoH (Device -> Pinned)", ActivityKind::DtoH, MemoryKind::Device,
         MemoryKind::Pinned},
        {"Memcpy DtoD (Device -> Device)", ActivityKind::DtoD, MemoryKind::Device,
         MemoryKind::Device},
        {"Memcpy PtoP (Device -> Device)", ActivityKind::DtoD, MemoryKind::Device,
         MemoryKind::Device},
        {"Memcpy HtoH (Pinned -> Pageable)", ActivityKind::HtoH, MemoryKind::Pinned,
         MemoryKind::Pageable},
        {"Memcpy HtoD (Managed -> Device Static)", ActivityKind::HtoD, MemoryKind::Managed,
         MemoryKind::Device},
        {"Memcpy HtoA (Pinned -> Array)", ActivityKind::HtoD, MemoryKind::Pinned,
         MemoryKind::Array},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        auto trace = parseTrace(kinetoWith(copyEvent(c.name)));
        ASSERT_TRUE(trace) << trace.error().message;
        ASSERT_EQ(trace->runs[0].activities.size(), 1U);
        const Activity& a = trace->runs[0].activities[0];
        EXPECT_EQ(a.kind, c.kind);
        EXPECT_EQ(a.srcKind, c.src);
        EXPECT_EQ(a.dstKind, c.dst);
        EXPECT_EQ(a.bytes, 4096U);
        EXPECT_EQ(a.stream, 7U);
        EXPECT_EQ(a.startNs, 1'000'010'500);
        EXPECT_EQ(a.durationNs(), 2250);
    }
    auto unknown = parseTrace(kinetoWith(copyEvent("Memcpy XtoY (a -> b)")));
    ASSERT_TRUE(unknown) << unknown.error().message;
    EXPECT_TRUE(unknown->runs[0].activities.empty());
    EXPECT_TRUE(hasNote(unknown->runs[0], "1 event was left out")) << notesOf(unknown->runs[0]);
}

TEST(TraceImport, KinetoReadsMemsetsDriverCallsAndArgsBeforeTheirCategory) {
    const std::string events =
        R"~({"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 7, "ts": 1, "dur": 1, "args": {"stream": 7, "correlation": 9, "bytes": 512}},)~"
        R"~({"ph": "X", "name": "cuLaunchKernel", "args": {"cbid": 307, "correlation": 12}, "cat": "cuda_driver", "pid": 5, "tid": 6, "ts": 2, "dur": 1.5e0},)~"
        R"~({"ph": "X", "cat": "python_function", "name": "f", "pid": 5, "tid": 6, "ts": 3, "dur": 1},)~"
        R"~({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 5, "tid": 6, "ts": 4, "dur": -1},)~"
        R"~({"ph": "i", "cat": "cpu_instant_event", "name": "marker", "pid": 5, "tid": 6, "ts": 5},)~"
        R"~({"ph": "s", "id": 12, "pid": 5, "tid": 6, "ts": 2, "cat": "ac2g", "name": "ac2g"})~";
    auto trace = parseTrace(kinetoWith(events));
    ASSERT_TRUE(trace) << trace.error().message;
    const trace::Run& run = trace->runs[0];
    ASSERT_EQ(run.activities.size(), 2U) << notesOf(run);
    EXPECT_EQ(run.activities[0].kind, ActivityKind::Memset);
    EXPECT_EQ(run.activities[0].dstKind, MemoryKind::Device);
    EXPECT_EQ(run.activities[0].bytes, 512U);
    EXPECT_EQ(run.activities[1].kind, ActivityKind::Api);
    EXPECT_EQ(run.name(run.activities[1]), "cuLaunchKernel");
    EXPECT_EQ(run.activities[1].correlationId, 12U) << "args read once the category came";
    EXPECT_EQ(run.activities[1].threadId, 6U);
    EXPECT_EQ(run.activities[1].durationNs(), 1500);
    EXPECT_TRUE(hasNote(run, "1 \"python_function\" event is not imported")) << notesOf(run);
    EXPECT_TRUE(hasNote(run, "a negative duration")) << notesOf(run);
}

TEST(TraceImport, KinetoTimestampsAreExactToTheNanosecond) {
    // 16 significant digits: a double would round the last one.
    const std::string events =
        R"({"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 5540631442185.357, "dur": 0.001})";
    auto trace = parseTrace(R"({"baseTimeNanoseconds": 1790857026000000000, "traceEvents": [)" +
                            events + "]}");
    ASSERT_TRUE(trace) << trace.error().message;
    EXPECT_EQ(trace->runs[0].activities[0].startNs, 1790857026000000000 + 5540631442185357);
    EXPECT_EQ(trace->runs[0].activities[0].durationNs(), 1);
}

TEST(TraceImport, KinetoErrorsSayWhereAndWhat) {
    const std::pair<std::string, const char*> cases[] = {
        {kinetoWith(R"({"ph": "X", "cat": "kernel", "ts": "soon"})"),
         "(event 0): \"ts\" must be a number"},
        {kinetoWith(R"({"ph": "X"}, {"ph": "X", "cat": "kernel", "args": {"grid": 5}})"),
         "(event 1): \"grid\" must be an array"},
        {kinetoWith(R"({"ph": "X", "cat": "kernel", "ts": 1, "ts": 2})"), "duplicate field \"ts\""},
        {R"({"traceEvents": [}}]})", "byte 17 (event 0): an event must be an object"},
        {R"({"traceEvents": {}})", "\"traceEvents\" must be an array"},
        {R"({"traceEvents": [], "baseTimeNanoseconds": -5})", "negative"},
        {R"({"traceEvents": []} trailing)", "after the end of the trace"},
    };
    for (const auto& [text, expected] : cases) {
        SCOPED_TRACE(text);
        auto trace = parseTrace(text);
        ASSERT_FALSE(trace);
        EXPECT_EQ(trace.error().code, Error::Code::Parse);
        EXPECT_EQ(trace.error().message.rfind("byte ", 0), 0U) << trace.error().message;
        EXPECT_NE(trace.error().message.find(expected), std::string::npos) << trace.error().message;
    }
}

TEST(TraceImport, KinetoRejectsEveryTruncation) {
    const std::string whole = kinetoWith(copyEvent("Memcpy HtoD (Pageable -> Device)") + "," +
                                         copyEvent("Memcpy DtoH (Device -> Pinned)"));
    ASSERT_TRUE(parseTrace(whole));
    for (std::size_t size = 0; size + 1 < whole.size(); ++size) {
        EXPECT_FALSE(parseTrace(whole.substr(0, size))) << size;
    }
}

TEST(TraceImport, KinetoReportsProgressAndStopsWhenCancelled) {
    std::string events;
    for (int i = 0; i < 20000; ++i) {
        events += (i ? "," : "") + copyEvent("Memcpy HtoD (Pageable -> Device)");
    }
    const std::string text = kinetoWith(events);
    std::vector<double> reports;
    ReadOptions options;
    options.progress = [&reports](double f) { reports.push_back(f); };
    ASSERT_TRUE(parseTrace(text, options));
    ASSERT_GE(reports.size(), 2U);
    EXPECT_TRUE(std::is_sorted(reports.begin(), reports.end()));
    EXPECT_EQ(reports.back(), 1.0);

    std::atomic<bool> cancel{true};
    ReadOptions cancelled;
    cancelled.cancel = &cancel;
    auto stopped = parseTrace(text, cancelled);
    ASSERT_FALSE(stopped);
    EXPECT_EQ(stopped.error().code, Error::Code::Cancelled);
}

// ---- Nsight Compute's CSV ----------------------------------------------------------------------

// ncu's table, split here independently of the importer: quoted fields, "" for a quote.
struct CsvTable {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
    std::size_t column(std::string_view name) const {
        const auto it = std::find(header.begin(), header.end(), name);
        EXPECT_NE(it, header.end()) << name;
        return std::size_t(it - header.begin());
    }
};

CsvTable readCsvTable(const fs::path& path) {
    const std::string text = readFile(path);
    std::size_t at = text.find("\"ID\",\"Process ID\"");
    std::vector<std::vector<std::string>> records;
    while (at < text.size()) {
        if (text[at] != '"') { // ncu's own lines
            at = std::min(text.find('\n', at), text.size()) + 1;
            continue;
        }
        std::vector<std::string> record;
        std::string field;
        bool quoted = false;
        for (; at < text.size(); ++at) {
            const char c = text[at];
            if (quoted && c == '"' && at + 1 < text.size() && text[at + 1] == '"') {
                field += '"';
                ++at;
            } else if (c == '"') {
                quoted = !quoted;
            } else if (!quoted && c == ',') {
                record.push_back(field);
                field.clear();
            } else if (!quoted && c == '\n') {
                break;
            } else {
                field += c;
            }
        }
        ++at;
        record.push_back(field);
        records.push_back(record);
    }
    CsvTable table;
    table.header = records.front();
    table.rows.assign(records.begin() + 1, records.end());
    return table;
}

double numberOf(std::string text) {
    text.erase(std::remove(text.begin(), text.end(), ','), text.end());
    return std::stod(text);
}

Dim3 dim3Of(const std::string& text) { // "(8, 8, 1)"
    Dim3 d;
    EXPECT_EQ(std::sscanf(text.c_str(), "(%u, %u, %u)", &d.x, &d.y, &d.z), 3) << text;
    return d;
}

// One kernel of either page, as the file gives it.
struct NcuFileKernel {
    std::string name;
    Dim3 grid, block;
    std::map<std::string, double> metrics; // by the details page's name
};

std::vector<NcuFileKernel> detailsPageKernels(const CsvTable& t) {
    std::vector<NcuFileKernel> kernels;
    std::string lastId;
    for (const auto& row : t.rows) {
        if (row[t.column("ID")] != lastId) {
            lastId = row[t.column("ID")];
            kernels.push_back({row[t.column("Kernel Name")],
                               dim3Of(row[t.column("Grid Size")]),
                               dim3Of(row[t.column("Block Size")]),
                               {}});
        }
        const std::string& metric = row[t.column("Metric Name")];
        if (!metric.empty()) {
            EXPECT_TRUE(row[t.column("Metric Name")] != "Duration" ||
                        row[t.column("Metric Unit")] == "ns");
            try {
                kernels.back().metrics[metric] = numberOf(row[t.column("Metric Value")]);
            } catch (const std::exception&) {
                // text values ("PolicySpread")
            }
        }
    }
    return kernels;
}

OccupancyLimiter leastOf(double warps, double blocks, double registers, double shared) {
    const double least = std::min({warps, blocks, registers, shared});
    return least == warps       ? OccupancyLimiter::Warps
           : least == blocks    ? OccupancyLimiter::Blocks
           : least == registers ? OccupancyLimiter::Registers
                                : OccupancyLimiter::SharedMemory;
}

void expectKernelsLaidOutOneAfterAnother(const trace::Run& run) {
    std::int64_t clock = 0;
    for (const Activity& a : run.activities) {
        EXPECT_EQ(a.startNs, clock);
        clock = a.endNs;
    }
    EXPECT_TRUE(hasNote(run, "laid out one after another")) << notesOf(run);
}

TEST(TraceImport, NcuDetailsPageGivesOneKernelPerProfiledKernel) {
    const CsvTable table = readCsvTable(kImportDir / "ncu-cnn.csv");
    const auto kernels = detailsPageKernels(table);
    ASSERT_EQ(kernels.size(), 30U) << "the file as committed";
    const Trace trace = readOk(kImportDir / "ncu-cnn.csv");
    ASSERT_EQ(trace.runs.size(), 1U) << "one process";
    const trace::Run& run = trace.runs[0];
    EXPECT_EQ(run.mode, RunMode::Imported);
    EXPECT_EQ(run.source, (ImportSource{"ncu-csv", "ncu-cnn.csv"}));
    EXPECT_EQ(run.command, table.rows[0][table.column("Process Name")]);
    ASSERT_EQ(run.activities.size(), kernels.size());
    for (std::size_t i = 0; i < kernels.size(); ++i) {
        const NcuFileKernel& k = kernels[i];
        const Activity& a = run.activities[i];
        SCOPED_TRACE(k.name);
        EXPECT_EQ(a.kind, ActivityKind::Kernel);
        EXPECT_EQ(run.name(a), k.name);
        EXPECT_EQ(a.grid, k.grid);
        EXPECT_EQ(a.block, k.block);
        EXPECT_EQ(a.registersPerThread, k.metrics.at("Registers Per Thread"));
        EXPECT_EQ(a.staticSharedBytes, k.metrics.at("Static Shared Memory Per Block"));
        EXPECT_EQ(a.dynamicSharedBytes, k.metrics.at("Dynamic Shared Memory Per Block"));
        EXPECT_EQ(a.durationNs(), std::llround(k.metrics.at("Duration")));
        EXPECT_FLOAT_EQ(a.achievedOccupancy, float(k.metrics.at("Achieved Occupancy") / 100));
        EXPECT_FLOAT_EQ(a.theoreticalOccupancy, float(k.metrics.at("Theoretical Occupancy") / 100));
        EXPECT_EQ(a.limiter,
                  leastOf(k.metrics.at("Block Limit Warps"), k.metrics.at("Block Limit SM"),
                          k.metrics.at("Block Limit Registers"),
                          k.metrics.at("Block Limit Shared Mem")));
        EXPECT_EQ(a.estimatedOccupancyPercent, kNoPercent);
    }
    expectKernelsLaidOutOneAfterAnother(run);
    // The details page names no device: its compute capability and SM count only.
    EXPECT_NE(run.device.name.find("compute capability 9.0"), std::string::npos) << run.device.name;
    EXPECT_EQ(run.device.smCount, std::uint32_t(kernels[0].metrics.at("# SMs")));
    EXPECT_TRUE(hasNote(run, "--device PRESET")) << notesOf(run);
    expectWritesAndReadsBack(trace);

    ReadOptions options;
    options.importDevice = *device::findPreset("h200");
    const Trace chosen = readOk(kImportDir / "ncu-cnn.csv", options);
    EXPECT_EQ(chosen.runs[0].device.id, "h200");
    EXPECT_EQ(chosen.runs[0].activities[0].theoreticalOccupancy,
              run.activities[0].theoreticalOccupancy)
        << "the file's theoretical occupancy stays";
}

TEST(TraceImport, NcuRawPageGivesTheSameAndItsDevice) {
    const CsvTable t = readCsvTable(kImportDir / "ncu-cnn-raw.csv");
    ASSERT_FALSE(t.rows.empty());
    EXPECT_TRUE(t.rows[0][t.column("ID")].empty()) << "a row of units under the header";
    const std::vector<std::vector<std::string>> rows(t.rows.begin() + 1, t.rows.end());
    ASSERT_EQ(rows.size(), 30U) << "the file as committed";
    const Trace trace = readOk(kImportDir / "ncu-cnn-raw.csv");
    ASSERT_EQ(trace.runs.size(), 1U);
    const trace::Run& run = trace.runs[0];
    EXPECT_EQ(run.device.name, rows[0][t.column("device__attribute_display_name")]);
    EXPECT_EQ(run.device.smCount,
              numberOf(rows[0][t.column("device__attribute_multiprocessor_count")]));
    EXPECT_EQ(run.device.maxBlocksPerSm,
              numberOf(rows[0][t.column("device__attribute_max_blocks_per_multiprocessor")]));
    ASSERT_EQ(run.activities.size(), rows.size());
    const auto value = [&t](const std::vector<std::string>& row, std::string_view metric) {
        return numberOf(row[t.column(metric)]);
    };
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto& row = rows[i];
        const Activity& a = run.activities[i];
        SCOPED_TRACE(row[t.column("Kernel Name")]);
        EXPECT_EQ(run.name(a), row[t.column("Kernel Name")]);
        EXPECT_EQ(a.grid, dim3Of(row[t.column("Grid Size")]));
        EXPECT_EQ(a.block, dim3Of(row[t.column("Block Size")]));
        EXPECT_EQ(a.registersPerThread, value(row, "launch__registers_per_thread"));
        EXPECT_EQ(a.staticSharedBytes, value(row, "launch__shared_mem_per_block_static"));
        EXPECT_EQ(a.dynamicSharedBytes, value(row, "launch__shared_mem_per_block_dynamic"));
        EXPECT_EQ(a.durationNs(), std::llround(value(row, "gpu__time_duration.sum")));
        EXPECT_FLOAT_EQ(
            a.achievedOccupancy,
            float(value(row, "sm__warps_active.avg.pct_of_peak_sustained_active") / 100));
        const double theoretical = value(row, "sm__maximum_warps_per_active_cycle_pct") / 100;
        EXPECT_FLOAT_EQ(a.theoreticalOccupancy, float(theoretical));
        // Nsight Compute's theoretical occupancy and its block limits are the calculator's on
        // the device the file describes.
        const std::uint64_t shared = std::uint64_t(a.staticSharedBytes) + a.dynamicSharedBytes;
        const auto calc = occupancy::calculate(
            run.device, {std::uint32_t(a.block.count()), a.registersPerThread, shared, false});
        ASSERT_TRUE(calc) << calc.error().message;
        EXPECT_DOUBLE_EQ(calc->occupancy, theoretical);
        EXPECT_EQ(calc->blocksLimitedByRegisters, value(row, "launch__occupancy_limit_registers"));
        EXPECT_EQ(a.limiter, leastOf(value(row, "launch__occupancy_limit_warps"),
                                     value(row, "launch__occupancy_limit_blocks"),
                                     value(row, "launch__occupancy_limit_registers"),
                                     value(row, "launch__occupancy_limit_shared_mem")));
        EXPECT_EQ(toString(a.limiter), occupancy::toString(calc->limiter));
    }
    expectKernelsLaidOutOneAfterAnother(run);
    expectWritesAndReadsBack(trace);

    // The same program under both pages launched the same kernels.
    const Trace details = readOk(kImportDir / "ncu-cnn.csv");
    ASSERT_EQ(details.runs[0].activities.size(), run.activities.size());
    for (std::size_t i = 0; i < run.activities.size(); ++i) {
        EXPECT_EQ(details.runs[0].activities[i].grid, run.activities[i].grid);
        EXPECT_EQ(details.runs[0].activities[i].block, run.activities[i].block);
        EXPECT_EQ(details.runs[0].activities[i].registersPerThread,
                  run.activities[i].registersPerThread);
        EXPECT_EQ(details.runs[0].activities[i].limiter, run.activities[i].limiter);
    }
}

TEST(TraceImport, NcuSkipsTheProgramsOwnOutputBeforeTheTable) {
    const std::string text = readFile(kImportDir / "ncu-cupy.csv");
    ASSERT_NE(text.find("\nsum "), std::string::npos) << "the program printed before the table";
    const auto kernels = detailsPageKernels(readCsvTable(kImportDir / "ncu-cupy.csv"));
    const Trace trace = readOk(kImportDir / "ncu-cupy.csv");
    ASSERT_EQ(trace.runs.size(), 1U);
    const trace::Run& run = trace.runs[0];
    ASSERT_EQ(run.activities.size(), kernels.size());
    for (std::size_t i = 0; i < kernels.size(); ++i) {
        EXPECT_EQ(run.name(run.activities[i]), kernels[i].name);
        EXPECT_EQ(run.activities[i].durationNs(), std::llround(kernels[i].metrics.at("Duration")));
    }
    EXPECT_TRUE(hasNote(run, "outside the table")) << notesOf(run);
}

std::string ncuTable(const std::string& rows) {
    return "\"ID\",\"Process ID\",\"Process Name\",\"Kernel Name\",\"Block Size\",\"Grid "
           "Size\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n" +
           rows;
}

TEST(TraceImport, NcuGroupsRunsByProcessAndReadsScaledTimes) {
    const std::string text = ncuTable(
        "\"0\",\"10\",\"a.out\",\"k\",\"(32, 1, 1)\",\"(4, 1, "
        "1)\",\"Duration\",\"usecond\",\"1.5\"\n"
        "==PROF== Disconnected from process 10\n"
        "\"1\",\"11\",\"b.out\",\"k\",\"(32, 1, 1)\",\"(4, 1, 1)\",\"Duration\",\"msecond\",\"2\"\n"
        "\"1\",\"11\",\"b.out\",\"k\",\"(32, 1, 1)\",\"(4, 1, 1)\",\"Static Shared Memory Per "
        "Block\",\"Kbyte/block\",\"2.30\"\n");
    auto trace = parseTrace(text);
    ASSERT_TRUE(trace) << trace.error().message;
    ASSERT_EQ(trace->runs.size(), 2U);
    EXPECT_EQ(trace->runs[0].id, "ncu-csv-10");
    EXPECT_EQ(trace->runs[1].id, "ncu-csv-11");
    EXPECT_EQ(trace->runs[0].command, "a.out");
    EXPECT_EQ(trace->runs[0].activities[0].durationNs(), 1500);
    EXPECT_EQ(trace->runs[1].activities[0].durationNs(), 2'000'000);
    EXPECT_EQ(trace->runs[1].activities[0].staticSharedBytes, 0U) << "a scaled unit is not read";
    EXPECT_TRUE(hasNote(trace->runs[1], "\"Kbyte/block\"")) << notesOf(trace->runs[1]);
}

TEST(TraceImport, NcuErrorsNameTheLine) {
    const std::pair<std::string, const char*> cases[] = {
        {ncuTable("\"0\",\"1\",\"a\",\"k\",\"\",\"\",\"\",\"\",\"\",\"\"\n"),
         "line 2: 10 fields where the header has 9"},
        {ncuTable("\"0\",\"1\",\"a\",\"k\",\"(1, 1, 1)\",\"(1, 1, 1)\",\"Duration\",\"ns\",\"5\n"),
         "line 2: a quoted field that never ends"},
        {ncuTable("\"0\",\"1\",\"a\",\"k\"x,\"\",\"\",\"\",\"\",\"\"\n"),
         "line 2: text after a quoted field"},
        {"\"ID\",\"Process ID\",\"Metric Name\"\n", "no \"ID\" or no \"Kernel Name\" column"},
    };
    for (const auto& [text, expected] : cases) {
        SCOPED_TRACE(text);
        auto trace = parseTrace(text);
        ASSERT_FALSE(trace);
        EXPECT_EQ(trace.error().code, Error::Code::Parse);
        EXPECT_NE(trace.error().message.find(expected), std::string::npos) << trace.error().message;
    }
}

TEST(TraceImport, NcuLeavesOutLaunchesBeyondCudasLimits) {
    const std::string text = ncuTable(
        "\"0\",\"1\",\"a\",\"ok\",\"(32, 1, 1)\",\"(4, 1, 1)\",\"Duration\",\"ns\",\"5\"\n"
        "\"1\",\"1\",\"a\",\"huge\",\"(4096, 1, 1)\",\"(4, 1, 1)\",\"Duration\",\"ns\",\"5\"\n"
        "\"2\",\"1\",\"a\",\"regs\",\"(32, 1, 1)\",\"(4, 1, 1)\",\"Registers Per "
        "Thread\",\"\",\"999\"\n"
        "\"3\",\"1\",\"a\",\"untimed\",\"(32, 1, 1)\",\"(4, 1, 1)\",\"Threads\",\"\",\"128\"\n");
    auto trace = parseTrace(text);
    ASSERT_TRUE(trace) << trace.error().message;
    const trace::Run& run = trace->runs[0];
    ASSERT_EQ(run.activities.size(), 2U);
    EXPECT_EQ(run.name(run.activities[0]), "ok");
    EXPECT_EQ(run.name(run.activities[1]), "untimed");
    EXPECT_EQ(run.activities[1].durationNs(), 0);
    EXPECT_TRUE(hasNote(run, "2 kernels were left out")) << notesOf(run);
    EXPECT_TRUE(hasNote(run, "1 kernel has no duration")) << notesOf(run);
    expectWritesAndReadsBack(*trace);
}

} // namespace
} // namespace slicescope::trace
