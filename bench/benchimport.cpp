// slicescope-bench-import: how opening a PyTorch profiler (Kineto) trace compares with opening the
// same events in SliceScope's own format (docs/performance.md, docs/import.md).
//
// It writes a synthetic Kineto trace of N kernels: the kernel events of a real trace (by default
// tests/data/import/kineto-cnn.json, torch.profiler on an H200) repeated with new times and
// correlation ids, in the layout Kineto writes, with the real trace's deviceProperties. Generated,
// labelled synthetic, never a measurement of a GPU. It imports that file, writes the result as a
// SliceScope trace, then opens each file with trace::readTrace in turns (the path every command
// and the GUI's loader take) and compares the median times and the memory each load holds. The
// last line is machine-readable:
//   kernels=N kineto_ms=X slicescope_ms=Y time_ratio=R kineto_mb=A slicescope_mb=B memory_ratio=M
#include "residentmemory.h"
#include "slicescope/trace/tracejson.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <malloc.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using namespace slicescope;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

int fail(const std::string& message) {
    std::fprintf(stderr, "slicescope-bench-import: error: %s\n", message.c_str());
    return 1;
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t mid = values.size() / 2;
    return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

// Kineto's "{us}.{ns:03}" for a time in nanoseconds (ChromeTraceLogger).
std::string micros(std::int64_t ns) {
    char text[48];
    std::snprintf(text, sizeof text, "%lld.%03lld", (long long)(ns / 1000), (long long)(ns % 1000));
    return text;
}

// Writes the synthetic trace: the template's kernels, one after another on their stream.
bool writeSyntheticKineto(const nlohmann::json& real, std::size_t kernels, const fs::path& out) {
    std::vector<nlohmann::json> templates;
    for (const auto& e : real["traceEvents"]) {
        if (e.value("ph", "") == "X" && e.value("cat", "") == "kernel") {
            templates.push_back(e);
        }
    }
    if (templates.empty()) {
        return false;
    }
    std::ofstream file(out, std::ios::binary);
    file << "\n  {\n    \"schemaVersion\": 1,\n    \"deviceProperties\": "
         << real["deviceProperties"].dump(6) << ",\n"
         << "  \"synthetic\": \"slicescope-bench-import: the kernels of a real trace repeated "
            "with new times; generated, not measured\",\n"
         << "  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": "
         << real["baseTimeNanoseconds"].get<std::int64_t>() << ",\n  \"traceEvents\": [";
    std::int64_t clock = 1'000'000'000; // 1 s after the base, in ns
    std::string event;
    for (std::size_t i = 0; i < kernels; ++i) {
        const auto& t = templates[i % templates.size()];
        const auto& a = t["args"];
        const std::int64_t dur = std::llround(t["dur"].get<double>() * 1000);
        char blocks[64];
        std::snprintf(blocks, sizeof blocks, "\"blocks per SM\": %f,      \"warps per SM\": %f",
                      a["blocks per SM"].get<double>(), a["warps per SM"].get<double>());
        event.clear();
        event += i == 0 ? "\n  {" : ",\n  {";
        event += "\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": " + t["name"].dump() +
                 ", \"pid\": 0, \"tid\": 7,\n    \"ts\": " + micros(clock) +
                 ", \"dur\": " + micros(dur) +
                 ",\n    \"args\": {\n      \"External id\": " + std::to_string(i + 1) +
                 ",      \"queued\": 0, \"device\": 0, \"context\": 1,      \"stream\": 7, "
                 "\"correlation\": " +
                 std::to_string(i + 1) +
                 ",      \"registers per thread\": " + a["registers per thread"].dump() +
                 ",      \"shared memory\": " + a["shared memory"].dump() + ",      " + blocks +
                 ",      \"grid\": " + a["grid"].dump() + ",      \"block\": " + a["block"].dump() +
                 ",      \"est. achieved occupancy %\": " + a["est. achieved occupancy %"].dump() +
                 "\n    }\n  }";
        file << event;
        clock += dur + 1500; // 1.5 us between launches
    }
    file << "\n  ],\n  \"traceName\": \"synthetic\"\n}\n";
    return bool(file);
}

struct Load {
    double ms = 0;
    std::uint64_t heldBytes = 0; // resident memory the loaded trace holds
    std::uint64_t peakBytes = 0; // the highest resident memory during the load, above the start
    std::size_t activities = 0;
};

// Resets the peak resident size (VmHWM) to the current one: Linux's /proc/self/clear_refs.
void resetPeak() {
    std::ofstream("/proc/self/clear_refs") << "5";
}

Result<Load> load(const fs::path& path) {
    ::malloc_trim(0);
    const std::uint64_t before = bench::residentBytes();
    resetPeak();
    const auto start = Clock::now();
    auto trace = trace::readTrace(path);
    Load l;
    l.ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    if (!trace) {
        return tl::unexpected(trace.error());
    }
    ::malloc_trim(0); // what the load freed goes back: what stays is what the trace holds
    l.heldBytes = bench::residentBytes() - std::min(before, bench::residentBytes());
    l.peakBytes = bench::peakResidentBytes() - std::min(before, bench::peakResidentBytes());
    for (const auto& run : trace->runs) {
        l.activities += run.activities.size();
    }
    return l;
}

} // namespace

int main(int argc, char** argv) {
    std::size_t kernels = 1'000'000;
    int rounds = 5;
    fs::path templatePath = SLICESCOPE_IMPORT_TEMPLATE;
    fs::path keep;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool hasValue = i + 1 < argc;
        if (arg == "--kernels" && hasValue) {
            kernels = std::strtoull(argv[++i], nullptr, 10);
        } else if (arg == "--rounds" && hasValue) {
            rounds = std::atoi(argv[++i]);
        } else if (arg == "--template" && hasValue) {
            templatePath = argv[++i];
        } else if (arg == "--keep" && hasValue) {
            keep = argv[++i];
        } else {
            std::printf("usage: slicescope-bench-import [--kernels N (1000000)] [--rounds R (5)] "
                        "[--template KINETO.json] [--keep DIR]\n");
            return arg == "--help" ? 0 : 2;
        }
    }
    if (kernels == 0 || kernels > 1'200'000 || rounds < 1 || rounds > 50) {
        return fail("--kernels must be from 1 to 1200000 (the file stays under 1 GiB), --rounds "
                    "from 1 to 50");
    }
    std::ifstream in(templatePath, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    const auto real = nlohmann::json::parse(text.str(), nullptr, false);
    if (real.is_discarded() || !real.contains("traceEvents")) {
        return fail(templatePath.string() + " is not a PyTorch profiler trace");
    }
    const fs::path dir = keep.empty() ? fs::temp_directory_path() /
                                            ("slicescope-bench-import-" + std::to_string(getpid()))
                                      : keep;
    fs::create_directories(dir);
    const fs::path kineto = dir / "synthetic-kineto.json";
    const fs::path own = dir / "synthetic-slicescope.json";
    if (!writeSyntheticKineto(real, kernels, kineto)) {
        return fail("could not write " + kineto.string());
    }
    {
        auto imported = trace::readTrace(kineto);
        if (!imported) {
            return fail(imported.error().message);
        }
        if (auto written = trace::writeTrace(*imported, own); !written) {
            return fail(written.error().message);
        }
    }
    std::printf("synthetic (generated, not measured): %zu kernels of %s repeated; Kineto file "
                "%.1f MB, the same events as a SliceScope trace %.1f MB\n",
                kernels, templatePath.filename().c_str(), double(fs::file_size(kineto)) / 1e6,
                double(fs::file_size(own)) / 1e6);

    std::vector<double> kinetoMs, ownMs;
    Load kinetoLoad, ownLoad;
    for (int r = 0; r < rounds; ++r) {
        auto a = load(kineto);
        auto b = load(own);
        if (!a || !b) {
            return fail(!a ? a.error().message : b.error().message);
        }
        if (a->activities != kernels || b->activities != kernels) {
            return fail("loaded " + std::to_string(a->activities) + " and " +
                        std::to_string(b->activities) + " activities, expected " +
                        std::to_string(kernels));
        }
        kinetoMs.push_back(a->ms);
        ownMs.push_back(b->ms);
        std::printf("round %d: Kineto %.0f ms, SliceScope %.0f ms\n", r + 1, a->ms, b->ms);
        if (r == 0) {
            kinetoLoad = *a;
            ownLoad = *b;
        }
    }
    if (keep.empty()) {
        fs::remove_all(dir);
    }
    const double kMs = median(kinetoMs), oMs = median(ownMs);
    const double kMb = double(kinetoLoad.heldBytes) / 1e6, oMb = double(ownLoad.heldBytes) / 1e6;
    std::printf("memory held after the load: Kineto %.1f MB, SliceScope %.1f MB; peak during "
                "the load (the file's text included): Kineto %.1f MB, SliceScope %.1f MB\n",
                kMb, oMb, double(kinetoLoad.peakBytes) / 1e6, double(ownLoad.peakBytes) / 1e6);
    std::printf("kernels=%zu kineto_ms=%.1f slicescope_ms=%.1f time_ratio=%.2f kineto_mb=%.1f "
                "slicescope_mb=%.1f memory_ratio=%.2f\n",
                kernels, kMs, oMs, kMs / oMs, kMb, oMb, oMb > 0 ? kMb / oMb : 0.0);
    return 0;
}
