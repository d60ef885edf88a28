#include "slicescope/trace/exporters.h"
#include "slicescope/trace/tracejson.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <unistd.h>

namespace slicescope::trace {
namespace {

namespace fs = std::filesystem;

Trace formatExample() {
    auto trace = readTrace(fs::path(SLICESCOPE_TEST_DATA_DIR) / "format-example.json");
    if (!trace) {
        ADD_FAILURE() << trace.error().message;
        return {};
    }
    return *trace;
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        out.push_back(line);
    }
    return out;
}

std::string readFile(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

Activity activity(ActivityKind kind, std::int64_t startNs, std::int64_t endNs) {
    Activity a;
    a.kind = kind;
    a.startNs = startNs;
    a.endNs = endNs;
    return a;
}

// ---------------------------------------------------------------------------------------------
// CSV

TEST(Exporters, CsvHasNvprofColumnsUnitsAndOneRowPerDeviceActivity) {
    std::ostringstream out;
    writeCsv(formatExample(), out);
    const std::vector<std::string> expected{
        "Start,Duration,Grid X,Grid Y,Grid Z,Block X,Block Y,Block Z,Registers Per Thread,Static "
        "SMem,"
        "Dynamic SMem,Size,Throughput,SrcMemType,DstMemType,Device,Context,Stream,Name,Run,Mode",
        "us,us,,,,,,,,B,B,B,GB/s,,,,,,,,",
        // Measured GPU run: times from its first activity (the cudaMemcpy call), device work only.
        "1.500,6000.000,,,,,,,,,,16000000,2.667,Pageable,Device,NVIDIA H200,,7,[CUDA memcpy "
        "HtoD],slice-outer,measured-gpu",
        "6200.000,47000.250,2,1,1,64,1,1,40,0,16,,,,,NVIDIA H200,,7,"
        "\"slice_outer<double, \"\"rcn\"\">(double*, double const*, "
        "int)\",slice-outer,measured-gpu",
        "53300.000,1.000,,,,,,,,,,4096,4.096,,Device,NVIDIA H200,,7,[CUDA "
        "memset],slice-outer,measured-gpu",
        "53400.000,2.000,,,,,,,,,,8000,4.000,Device,Device,NVIDIA H200,,7,[CUDA memcpy "
        "DtoD],slice-outer,measured-gpu",
        "53500.000,6000.000,,,,,,,,,,16000000,2.667,Device,Pageable,NVIDIA H200,,7,[CUDA memcpy "
        "DtoH],slice-outer,measured-gpu",
        "59600.000,0.400,,,,,,,,,,800,2.000,Pinned,Pageable,NVIDIA H200,,0,[CUDA memcpy "
        "HtoH],slice-outer,measured-gpu",
        // Modelled run: every row says so.
        "0.000,6000.000,,,,,,,,,,16000000,2.667,Pageable,Device,NVIDIA GeForce GTX 1080 "
        "Ti,,0,[CUDA memcpy HtoD],one-worker,modelled",
        "6000.000,1200000.000,1,1,1,64,1,1,0,0,0,,,,,NVIDIA GeForce GTX 1080 "
        "Ti,,0,one_worker,one-worker,modelled",
        "1206000.000,6000.000,,,,,,,,,,16000000,2.667,Device,Pageable,NVIDIA GeForce GTX 1080 "
        "Ti,,0,[CUDA memcpy DtoH],one-worker,modelled",
        // The CPU and recorded runs have no device activities, hence no rows.
    };
    EXPECT_EQ(lines(out.str()), expected);
}

TEST(Exporters, CsvQuotesFieldsWithSeparatorsAndQuotes) {
    Trace trace;
    trace::Run& run = trace.runs.emplace_back();
    run.id = "run, \"quoted\"";
    run.device.name = "GPU \"X\"";
    Activity kernel = activity(ActivityKind::Kernel, 0, 1);
    kernel.nameId = run.intern("k<a, b>\"c\"");
    run.activities.push_back(kernel);
    std::ostringstream out;
    writeCsv(trace, out);
    EXPECT_EQ(out.str().substr(out.str().find("\n", out.str().find("\n") + 1) + 1),
              "0.000,0.001,1,1,1,1,1,1,0,0,0,,,,,\"GPU \"\"X\"\"\",,0,\"k<a, b>\"\"c\"\"\","
              "\"run, \"\"quoted\"\"\",measured-cpu\n");
}

TEST(Exporters, CsvEscapesControlCharacters) {
    // A recorded program names its kernels: NUL, ESC, line breaks and DEL must not reach the
    // file raw (one row per activity, nothing a terminal would act on).
    Trace trace;
    trace::Run& run = trace.runs.emplace_back();
    run.id = std::string("id\x1b[31m", 7);
    run.device.name = "GPU\tX";
    Activity kernel = activity(ActivityKind::Kernel, 0, 1);
    kernel.nameId = run.intern(std::string("k\0\x1b]0;x\x07\r\n,\x7f\xc3\xa9", 14));
    run.activities.push_back(kernel);
    std::ostringstream out;
    writeCsv(trace, out);
    const std::string row = out.str().substr(out.str().find("\n", out.str().find("\n") + 1) + 1);
    EXPECT_EQ(row, "0.000,0.001,1,1,1,1,1,1,0,0,0,,,,,GPU\\x09X,,0,"
                   "\"k\\x00\\x1b]0;x\\x07\\x0d\\x0a,\\x7f\xc3\xa9\",id\\x1b[31m,measured-cpu\n");
    for (const char c : out.str()) {
        const auto byte = static_cast<unsigned char>(c);
        EXPECT_TRUE((byte >= 0x20 && byte != 0x7f) || c == '\n') << int(byte);
    }
}

TEST(Exporters, CsvSortsRowsByStartAndLeavesThroughputOfZeroLengthCopiesEmpty) {
    Trace trace;
    trace::Run& run = trace.runs.emplace_back();
    run.id = "r";
    run.mode = RunMode::MeasuredGpu;
    Activity late = activity(ActivityKind::DtoH, 2000, 2000);
    late.bytes = 8;
    run.activities.push_back(late);
    run.activities.push_back(activity(ActivityKind::Api, 0, 5000)); // not a device activity
    Activity early = activity(ActivityKind::HtoD, 1000, 1500);
    early.bytes = 1000;
    run.activities.push_back(early);
    std::ostringstream out;
    writeCsv(trace, out);
    const auto rows = lines(out.str());
    ASSERT_EQ(rows.size(), 4U);
    EXPECT_EQ(rows[2].substr(0, rows[2].find(",Unknown")), "1.000,0.500,,,,,,,,,,1000,2.000");
    EXPECT_EQ(rows[3].substr(0, rows[3].find(",Unknown")), "2.000,0.000,,,,,,,,,,8,");
}

// ---------------------------------------------------------------------------------------------
// Chrome Trace Event JSON

struct ChromeView {
    nlohmann::json document;
    std::map<int, std::string> processNames;
    std::map<std::pair<int, int>, std::string> threadNames;
    std::vector<nlohmann::json> complete; // "ph": "X"
};

ChromeView parseChrome(const Trace& trace) {
    std::ostringstream out;
    writeChromeTrace(trace, out);
    ChromeView view;
    view.document = nlohmann::json::parse(out.str()); // throws, failing the test, if invalid
    for (const auto& event : view.document.at("traceEvents")) {
        if (event.at("ph") == "M" && event.at("name") == "process_name") {
            view.processNames[event.at("pid")] = event.at("args").at("name");
        } else if (event.at("ph") == "M" && event.at("name") == "thread_name") {
            view.threadNames[{event.at("pid"), event.at("tid")}] = event.at("args").at("name");
        } else if (event.at("ph") == "X") {
            view.complete.push_back(event);
        }
    }
    return view;
}

TEST(Exporters, ChromeTraceHasOneProcessPerRunNamedWithItsMode) {
    const ChromeView view = parseChrome(formatExample());
    EXPECT_EQ(view.processNames, (std::map<int, std::string>{{1, "slice-outer [measured-gpu]"},
                                                             {2, "one-worker [modelled]"},
                                                             {3, "cpu-serial [measured-cpu]"},
                                                             {4, "recorded [recorded]"}}));
    EXPECT_EQ(view.complete.size(), 16U); // every activity of every run, warm-up included
}

TEST(Exporters, ChromeTraceLanesAreNamedThreads) {
    const ChromeView view = parseChrome(formatExample());
    std::set<std::string> lanes;
    for (const auto& [key, name] : view.threadNames) {
        if (key.first == 1) {
            lanes.insert(name);
        }
    }
    EXPECT_EQ(lanes, (std::set<std::string>{"API (thread 4242)", "Sync (thread 4242)",
                                            "Memcpy HtoD (stream 7)", "Memset (stream 7)",
                                            "Kernels (stream 7)", "Memcpy DtoD (stream 7)",
                                            "Memcpy DtoH (stream 7)", "Memcpy HtoH (stream 0)",
                                            "Host (thread 0)", "Overhead (thread 4242)"}));
    for (const auto& event : view.complete) {
        const std::pair<int, int> lane{event.at("pid"), event.at("tid")};
        ASSERT_TRUE(view.threadNames.count(lane)) << event.dump();
    }
}

TEST(Exporters, ChromeTraceEventsCarryMicrosecondTimesAndNvprofFields) {
    const ChromeView view = parseChrome(formatExample());
    const auto kernel = std::find_if(view.complete.begin(), view.complete.end(),
                                     [](const auto& e) { return e.at("cat") == "kernel"; });
    ASSERT_NE(kernel, view.complete.end());
    EXPECT_EQ(kernel->at("name"), "slice_outer<double, \"rcn\">(double*, double const*, int)");
    EXPECT_EQ(view.threadNames.at({1, kernel->at("tid")}), "Kernels (stream 7)");
    EXPECT_DOUBLE_EQ(kernel->at("ts").get<double>(), 6200.0);    // us from the run's first activity
    EXPECT_DOUBLE_EQ(kernel->at("dur").get<double>(), 47000.25); // sub-microsecond digits kept
    const auto& args = kernel->at("args");
    EXPECT_EQ(args.at("Grid"), "(2,1,1)");
    EXPECT_EQ(args.at("Block"), "(64,1,1)");
    EXPECT_EQ(args.at("Registers Per Thread"), 40);
    EXPECT_EQ(args.at("Dynamic SMem (B)"), 16);
    EXPECT_EQ(args.at("Stream"), 7);
    EXPECT_EQ(args.at("Correlation ID"), 102);
    EXPECT_EQ(args.at("Device"), "NVIDIA H200");
    EXPECT_EQ(args.at("Start (ns)"), "1764675720006200000");

    const auto htod = std::find_if(view.complete.begin(), view.complete.end(),
                                   [](const auto& e) { return e.at("cat") == "htod"; });
    ASSERT_NE(htod, view.complete.end());
    EXPECT_EQ(htod->at("name"), "[CUDA memcpy HtoD]");
    EXPECT_DOUBLE_EQ(htod->at("ts").get<double>(), 1.5);
    EXPECT_EQ(htod->at("args").at("Size (B)"), 16000000);
    EXPECT_NEAR(htod->at("args").at("Throughput (GB/s)").get<double>(), 2.6667, 1e-4);
    EXPECT_EQ(htod->at("args").at("SrcMemType"), "Pageable");
    EXPECT_EQ(htod->at("args").at("DstMemType"), "Device");
}

TEST(Exporters, ChromeTraceMarksModelledEvents) {
    const ChromeView view = parseChrome(formatExample());
    int modelled = 0;
    for (const auto& event : view.complete) {
        const bool isModelledRun = event.at("pid") == 2;
        EXPECT_EQ(event.at("args").at("Mode") == "modelled", isModelledRun) << event.dump();
        EXPECT_EQ(event.at("cat").get<std::string>().find(",modelled") != std::string::npos,
                  isModelledRun);
        modelled += isModelledRun ? 1 : 0;
    }
    EXPECT_EQ(modelled, 3);
}

// A measured run of one warm-up iteration and one measured one, each a copy and a kernel.
Trace warmupTrace() {
    Trace trace;
    Run& run = trace.runs.emplace_back();
    run.id = "w";
    run.mode = RunMode::MeasuredGpu;
    run.warmup = 1;
    for (const bool warm : {true, false}) {
        const std::int64_t t = warm ? 0 : 10'000;
        Activity copy = activity(ActivityKind::HtoD, t, t + 2'000);
        copy.bytes = 1000;
        copy.warmup = warm;
        Activity kernel = activity(ActivityKind::Kernel, t + 3'000, t + (warm ? 9'000 : 4'000));
        kernel.nameId = run.intern("k");
        kernel.warmup = warm;
        run.activities.push_back(copy);
        run.activities.push_back(kernel);
    }
    return trace;
}

TEST(Exporters, TablesListTheMeasuredIterationsAndTheTimelineMarksWarmup) {
    const Trace trace = warmupTrace();
    std::ostringstream csv;
    writeCsv(trace, csv);
    const auto rows = lines(csv.str());
    ASSERT_EQ(rows.size(), 4u) << csv.str(); // header, units, the measured copy and kernel
    EXPECT_EQ(rows[2].rfind("10.000,2.000,", 0), 0u) << rows[2];
    EXPECT_EQ(rows[3].rfind("13.000,1.000,", 0), 0u) << rows[3];

    std::ostringstream table;
    printGpuTrace(trace.runs[0], table);
    EXPECT_NE(table.str().find("2 device activities of 1 warm-up iteration not listed"),
              std::string::npos)
        << table.str();
    EXPECT_EQ(table.str().find("6.0000us"), std::string::npos)
        << "the warm-up kernel is not listed";

    const ChromeView view = parseChrome(trace);
    int warm = 0;
    for (const auto& event : view.complete) {
        const bool isWarm = event.at("cat").get<std::string>().find(",warmup") != std::string::npos;
        EXPECT_EQ(event.at("args").contains("Warm-up"), isWarm) << event.dump();
        warm += isWarm ? 1 : 0;
    }
    EXPECT_EQ(warm, 2);
}

TEST(Exporters, ChromeTraceStaysValidJsonForAnyName) {
    Trace trace;
    trace.generator = "gen \"\\\x01";
    trace::Run& run = trace.runs.emplace_back();
    run.id = "id \xFF\xFE";
    Activity a = activity(ActivityKind::Host, 0, 10);
    a.nameId = run.intern(std::string("\"}]\n\t\x1F\xC3", 7));
    run.activities.push_back(a);
    std::ostringstream out;
    writeChromeTrace(trace, out);
    EXPECT_TRUE(nlohmann::json::accept(out.str())) << out.str();
    std::ostringstream empty;
    writeChromeTrace(Trace{}, empty);
    EXPECT_TRUE(nlohmann::json::accept(empty.str())) << empty.str();
}

TEST(Exporters, ChromeTraceEscapesControlCharacters) {
    Trace trace;
    trace::Run& run = trace.runs.emplace_back();
    run.id = std::string("id\x1b", 3);
    Activity a = activity(ActivityKind::Kernel, 0, 10);
    a.nameId = run.intern(std::string("k\0\x1b[2J", 6));
    run.activities.push_back(a);
    std::ostringstream out;
    writeChromeTrace(trace, out);
    for (const char c : out.str()) {
        const auto byte = static_cast<unsigned char>(c);
        EXPECT_TRUE(byte >= 0x20 || c == '\n') << int(byte);
    }
    const auto json = nlohmann::json::parse(out.str());
    bool found = false;
    for (const auto& event : json.at("traceEvents")) {
        if (event.at("ph") == "X") {
            EXPECT_EQ(event.at("name").get<std::string>(), std::string("k\0\x1b[2J", 6));
            found = true;
        }
    }
    EXPECT_TRUE(found);
}

TEST(Exporters, ChromeTraceSeparatesConcurrentHostThreads) {
    Trace trace;
    trace::Run& run = trace.runs.emplace_back();
    run.id = "cpu-parallel";
    for (std::uint32_t thread = 0; thread < 4; ++thread) {
        Activity a = activity(ActivityKind::Host, 100, 200);
        a.threadId = thread;
        run.activities.push_back(a);
    }
    const ChromeView view = parseChrome(trace);
    std::set<int> tids;
    for (const auto& event : view.complete) {
        tids.insert(event.at("tid").get<int>());
    }
    EXPECT_EQ(tids.size(), 4U);
}

// ---------------------------------------------------------------------------------------------
// The terminal table

TEST(Exporters, PrintGpuTraceShowsAnNvprofStyleTable) {
    const Trace trace = formatExample();
    std::ostringstream out;
    printGpuTrace(trace.runs[1], out);
    const auto printed = lines(out.str());
    ASSERT_GE(printed.size(), 6U);
    EXPECT_EQ(printed[0],
              "==slicescope== GPU trace of one-worker [modelled] on NVIDIA GeForce GTX 1080 Ti");
    EXPECT_NE(printed[1].find("modelled"), std::string::npos);
    EXPECT_EQ(
        printed[2],
        "   Start  Duration  Grid Size  Block Size  Regs*  SSMem*  DSMem*      Size  Throughput  "
        "SrcMemType  DstMemType                      Device  Stream  Name");
    EXPECT_EQ(
        printed[3],
        "     0ns  6.0000ms          -           -      -       -       -  16.000MB  2.6667GB/s  "
        "  Pageable      Device  NVIDIA GeForce GTX 1080 Ti       0  [CUDA memcpy HtoD]");
    EXPECT_EQ(
        printed[4],
        "6.0000ms   1.2000s    (1 1 1)    (64 1 1)      0      0B      0B         -           -  "
        "         -           -  NVIDIA GeForce GTX 1080 Ti       0  one_worker");
    EXPECT_EQ(
        printed[5],
        " 1.2060s  6.0000ms          -           -      -       -       -  16.000MB  2.6667GB/s  "
        "    Device    Pageable  NVIDIA GeForce GTX 1080 Ti       0  [CUDA memcpy DtoH]");
}

TEST(Exporters, PrintGpuTraceUsesHumanUnits) {
    trace::Run run;
    run.id = "units";
    run.mode = RunMode::MeasuredGpu;
    run.device.name = "GPU";
    run.activities.push_back(activity(ActivityKind::Api, 0, 1));
    Activity kernel = activity(ActivityKind::Kernel, 880, 880 + 999'996); // rounds up to 1 ms
    kernel.staticSharedBytes = 49152;
    run.activities.push_back(kernel);
    Activity slow = activity(ActivityKind::HtoD, 2'000'000'000, 4'000'000'000);
    slow.bytes = 1'500'000'000;
    slow.srcKind = MemoryKind::Pageable;
    slow.dstKind = MemoryKind::Device;
    run.activities.push_back(slow);
    std::ostringstream out;
    printGpuTrace(run, out);
    const std::string text = out.str();
    EXPECT_NE(text.find("880ns  1.0000ms"), std::string::npos) << text;
    EXPECT_NE(text.find("49.152KB"), std::string::npos) << text;
    EXPECT_NE(text.find("2.0000s   2.0000s"), std::string::npos) << text;
    EXPECT_NE(text.find("1.5000GB  750.00MB/s"), std::string::npos) << text;
    EXPECT_EQ(text.find("modelled"), std::string::npos)
        << "a measured run is not labelled modelled";
}

TEST(Exporters, PrintGpuTraceSaysWhenThereIsNoDeviceWork) {
    const Trace trace = formatExample();
    std::ostringstream out;
    printGpuTrace(trace.runs[2], out);
    EXPECT_EQ(out.str(), "==slicescope== GPU trace of cpu-serial [measured-cpu] on Example CPU\n"
                         "==slicescope== no GPU activities in this run\n");
}

// ---------------------------------------------------------------------------------------------
// Files

TEST(Exporters, ExportWritesFilesAtomicallyAndReportsFailures) {
    const fs::path dir =
        fs::temp_directory_path() / ("tst_exporters-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const Trace trace = formatExample();
    ASSERT_TRUE(exportCsv(trace, dir / "t.csv"));
    ASSERT_TRUE(exportChromeTrace(trace, dir / "t.chrome.json"));
    std::ostringstream csv, chrome;
    writeCsv(trace, csv);
    writeChromeTrace(trace, chrome);
    EXPECT_EQ(readFile(dir / "t.csv"), csv.str());
    EXPECT_EQ(readFile(dir / "t.chrome.json"), chrome.str());
    EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 2);

    for (const auto& status : {exportCsv(trace, dir / "missing" / "t.csv"),
                               exportChromeTrace(trace, dir / "missing" / "t.json")}) {
        ASSERT_FALSE(status);
        EXPECT_EQ(status.error().code, Error::Code::Io);
        EXPECT_NE(status.error().message.find((dir / "missing").string()), std::string::npos)
            << status.error().message;
    }
    fs::remove_all(dir);
}

} // namespace
} // namespace slicescope::trace
