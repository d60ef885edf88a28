// Projecting measured H200 runs onto other GPUs (backend/projection.h), on the real traces of the
// repository: the same device gives the measured times back, kernels move by the model's own
// ratio, copies by the model's copy times over the two host links, host work not at all, and the
// re-laid timeline keeps every dependency in order.
#include "slicescope/backend/modelbackend.h"
#include "slicescope/backend/projection.h"
#include "slicescope/trace/exporters.h"
#include "slicescope/trace/runsummary.h"
#include "slicescope/trace/tracejson.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <gtest/gtest.h>
#include <map>
#include <sstream>

using namespace slicescope;
using backend::projectRun;
using trace::Activity;
using trace::ActivityKind;

namespace {

const std::filesystem::path kSamples =
    std::filesystem::path(SLICESCOPE_TEST_DATA_DIR) / "../../resources/samples";

trace::Trace load(const std::filesystem::path& path) {
    auto loaded = trace::readTrace(path);
    EXPECT_TRUE(loaded) << path << ": " << (loaded ? "" : loaded.error().message);
    return loaded ? std::move(*loaded) : trace::Trace{};
}

// Measured H200 traces: the seed with pageable and pinned memory, the f32 validation trace, and a
// pipeline of 16 chunks on 4 streams.
std::vector<std::filesystem::path> measuredTraces() {
    return {kSamples / "seed-100x4000x5-f64-pageable.json",
            kSamples / "seed-100x4000x5-f64-pinned.json",
            std::filesystem::path(SLICESCOPE_TEST_DATA_DIR) / "model-validation" /
                "model-validation-f32.json",
            kSamples / "pipeline" / "1000x4000x5-pinned-k16-s4.json"};
}

std::vector<trace::Run> measuredGpuRuns() {
    std::vector<trace::Run> runs;
    for (const auto& path : measuredTraces()) {
        for (auto& run : load(path).runs) {
            if (run.mode == trace::RunMode::MeasuredGpu) {
                runs.push_back(std::move(run));
            }
        }
    }
    return runs;
}

device::DeviceSpec preset(const std::string& id) {
    auto found = device::findPreset(id);
    EXPECT_TRUE(found) << id;
    return found ? *found : device::DeviceSpec{};
}

const char* const kTargets[] = {"h100-sxm", "a100-sxm4-80gb", "t4", "gtx-970", "quadro-k2000"};

// The model alone: its mean kernel time for the run's request on a preset.
double modelledKernelNs(const trace::Run& measured, const device::DeviceSpec& device) {
    backend::RunRequest request;
    request.problem = *measured.problem;
    request.block = *strategy::parseBlockOption(measured.launch->blockOption);
    request.memory = *backend::parseMemoryMode(measured.memoryMode);
    request.repeat = measured.repeat;
    request.pipeline = {measured.chunks, measured.streams};
    auto modelled = backend::modelRun(*strategy::parseStrategy(measured.strategy), request, device);
    EXPECT_TRUE(modelled) << (modelled ? "" : modelled.error().message);
    double total = 0;
    int count = 0;
    for (const auto& a : modelled->activities) {
        if (a.kind == ActivityKind::Kernel) {
            total += double(a.durationNs());
            ++count;
        }
    }
    return total / count;
}

} // namespace

TEST(Projection, OntoTheSameDeviceGivesTheMeasuredTimesBack) {
    const auto h200 = preset("h200");
    const auto runs = measuredGpuRuns();
    ASSERT_GE(runs.size(), 15U);
    for (const auto& measured : runs) {
        SCOPED_TRACE(measured.id + " " + measured.memoryMode);
        auto projected = projectRun(measured, h200);
        ASSERT_TRUE(projected) << projected.error().message;
        const trace::Run& run = projected->run;
        EXPECT_EQ(run.mode, trace::RunMode::Projected);
        ASSERT_TRUE(run.projection);
        EXPECT_EQ(run.projection->sourceRun, measured.id);
        EXPECT_EQ(run.projection->sourceDevice, "NVIDIA H200");
        EXPECT_EQ(run.projection->sourcePreset, "h200");
        EXPECT_EQ(run.projection->targetPreset, "h200");
        EXPECT_FALSE(run.verification) << "a projection verifies nothing";
        ASSERT_EQ(run.activities.size(), measured.activities.size());
        for (std::size_t i = 0; i < run.activities.size(); ++i) {
            EXPECT_EQ(run.activities[i].startNs, measured.activities[i].startNs) << i;
            EXPECT_EQ(run.activities[i].endNs, measured.activities[i].endNs) << i;
        }
        EXPECT_EQ(run.wallNs, measured.wallNs);
        EXPECT_EQ(projected->factors.kernel, 1.0);
        EXPECT_EQ(projected->factors.htod, 1.0);
    }
}

TEST(Projection, KernelsMoveByTheModelsOwnRatio) {
    const auto h200 = preset("h200");
    for (const char* id : kTargets) {
        const auto target = preset(id);
        for (const auto& measured : measuredGpuRuns()) {
            SCOPED_TRACE(measured.id + " " + measured.memoryMode + " onto " + id);
            auto projected = projectRun(measured, target);
            ASSERT_TRUE(projected) << projected.error().message;
            const double ratio =
                modelledKernelNs(measured, target) / modelledKernelNs(measured, h200);
            double before = 0, after = 0, kernels = 0;
            for (std::size_t i = 0; i < measured.activities.size(); ++i) {
                const Activity& a = measured.activities[i];
                if (a.kind != ActivityKind::Kernel) {
                    continue;
                }
                ++kernels;
                before += double(a.durationNs());
                after += double(projected->run.activities[i].durationNs());
                // Launch by launch; a pipeline's chunks differ by a row at most, so each is
                // within a percent of the mean ratio.
                const double expected = double(a.durationNs()) * ratio;
                EXPECT_NEAR(double(projected->run.activities[i].durationNs()), expected,
                            measured.chunks > 1 ? 0.01 * expected : 1.0)
                    << "kernel " << i;
            }
            ASSERT_GT(before, 0);
            // Each kernel is rounded to whole nanoseconds.
            EXPECT_NEAR(after / before, ratio,
                        measured.chunks > 1 ? 1e-3 * ratio : kernels / before);
            EXPECT_EQ(projected->run.device.id, id);
        }
    }
}

TEST(Projection, CopiesMoveByTheModelsCopyTimesOverTheTwoHostLinks) {
    const auto h200 = preset("h200");
    backend::ModelParameters m;
    for (const char* id : kTargets) {
        const auto target = preset(id);
        for (const auto& measured : measuredGpuRuns()) {
            SCOPED_TRACE(measured.id + " " + measured.memoryMode + " onto " + id);
            auto projected = projectRun(measured, target);
            ASSERT_TRUE(projected) << projected.error().message;
            int copies = 0;
            for (std::size_t i = 0; i < measured.activities.size(); ++i) {
                const Activity& a = measured.activities[i];
                if (a.kind != ActivityKind::HtoD && a.kind != ActivityKind::DtoH) {
                    continue;
                }
                const bool htod = a.kind == ActivityKind::HtoD;
                const bool pageable = (htod ? a.srcKind : a.dstKind) == trace::MemoryKind::Pageable;
                ASSERT_TRUE(pageable ||
                            (htod ? a.srcKind : a.dstKind) == trace::MemoryKind::Pinned);
                const auto link = [&](const device::DeviceSpec& d) {
                    return htod ? (pageable ? d.pageableHtoDGBps : d.pinnedHtoDGBps)
                                : (pageable ? d.pageableDtoHGBps : d.pinnedDtoHGBps);
                };
                const double ratio = backend::modelCopyNs(a.bytes, link(target), m) /
                                     backend::modelCopyNs(a.bytes, link(h200), m);
                EXPECT_NEAR(double(projected->run.activities[i].durationNs()),
                            double(a.durationNs()) * ratio, 1.0)
                    << "copy " << i;
                // A slower link makes the copy longer, a faster one shorter.
                if (link(target) < link(h200)) {
                    EXPECT_GT(projected->run.activities[i].durationNs(), a.durationNs());
                }
                ++copies;
            }
            EXPECT_GT(copies, 0);
        }
    }
}

TEST(Projection, HostWorkApiCallsAndOverheadKeepTheirDurations) {
    for (const auto& measured : measuredGpuRuns()) {
        SCOPED_TRACE(measured.id);
        auto projected = projectRun(measured, preset("quadro-k2000"));
        ASSERT_TRUE(projected) << projected.error().message;
        int layoutPasses = 0;
        for (std::size_t i = 0; i < measured.activities.size(); ++i) {
            const Activity& a = measured.activities[i];
            const Activity& p = projected->run.activities[i];
            if (a.kind == ActivityKind::Host || a.kind == ActivityKind::Overhead) {
                EXPECT_EQ(p.durationNs(), a.durationNs()) << measured.name(a);
                layoutPasses += measured.name(a).starts_with("layout") ? 1 : 0;
            }
            EXPECT_EQ(p.kind, a.kind);
            EXPECT_EQ(p.stream, a.stream);
            EXPECT_EQ(p.iteration, a.iteration);
            EXPECT_EQ(p.warmup, a.warmup);
            EXPECT_EQ(p.bytes, a.bytes);
        }
        const auto before = trace::summarize(measured);
        const auto after = trace::summarize(projected->run);
        EXPECT_EQ(after.hostLayoutNs, before.hostLayoutNs);
        if (measured.strategy == "slice-middle") {
            EXPECT_GT(layoutPasses, 0);
        }
    }
}

TEST(Projection, TheTimelineKeepsEveryDependencyInOrder) {
    for (const char* id : kTargets) {
        for (const auto& measured : measuredGpuRuns()) {
            SCOPED_TRACE(measured.id + " onto " + id);
            auto projected = projectRun(measured, preset(id));
            ASSERT_TRUE(projected) << projected.error().message;
            const auto& in = measured.activities;
            const auto& out = projected->run.activities;
            // Per stream and per copy direction, device work neither overlaps nor reorders.
            std::map<std::pair<int, std::uint32_t>, std::vector<std::size_t>> lanes;
            std::map<std::uint32_t, std::size_t> apiOf;
            for (std::size_t i = 0; i < in.size(); ++i) {
                if (trace::isDeviceActivity(in[i].kind)) {
                    lanes[{-1, in[i].stream}].push_back(i);
                    if (in[i].kind == ActivityKind::HtoD || in[i].kind == ActivityKind::DtoH) {
                        lanes[{int(in[i].kind), 0}].push_back(i);
                    }
                } else if (in[i].kind == ActivityKind::Api && in[i].correlationId != 0) {
                    apiOf[in[i].correlationId] = i;
                }
            }
            for (auto& [lane, members] : lanes) {
                std::sort(members.begin(), members.end(), [&](std::size_t a, std::size_t b) {
                    return in[a].startNs < in[b].startNs;
                });
                for (std::size_t k = 1; k < members.size(); ++k) {
                    if (in[members[k]].startNs >= in[members[k - 1]].endNs) {
                        EXPECT_GE(out[members[k]].startNs, out[members[k - 1]].endNs)
                            << "activities " << members[k - 1] << " and " << members[k];
                    }
                }
            }
            for (std::size_t i = 0; i < in.size(); ++i) {
                EXPECT_GE(out[i].endNs, out[i].startNs);
                if (trace::isDeviceActivity(in[i].kind) && apiOf.count(in[i].correlationId)) {
                    EXPECT_GE(out[i].startNs, out[apiOf[in[i].correlationId]].startNs)
                        << "issued before its call";
                }
            }
            // A synchronization still ends after the device work it waited for.
            for (std::size_t s = 0; s < in.size(); ++s) {
                if (in[s].kind != ActivityKind::Sync) {
                    continue;
                }
                for (std::size_t d = 0; d < in.size(); ++d) {
                    if (trace::isDeviceActivity(in[d].kind) && in[d].endNs >= in[s].startNs &&
                        in[d].endNs <= in[s].endNs &&
                        (in[s].stream == 0 || in[s].stream == in[d].stream)) {
                        EXPECT_GE(out[s].endNs, out[d].endNs) << "sync " << s << ", work " << d;
                    }
                }
            }
        }
    }
}

TEST(Projection, ATraceKeepsItsCpuRunsAndLeavesOutWhatWasNotMeasuredOnAGpu) {
    trace::Trace measured = load(kSamples / "seed-100x4000x5-f64-pageable.json");
    trace::Run modelled = measured.runs.front();
    modelled.id = "modelled-one";
    modelled.mode = trace::RunMode::Modelled;
    measured.runs.push_back(modelled);
    auto projected = backend::projectTrace(measured, preset("t4"));
    ASSERT_TRUE(projected) << projected.error().message;
    ASSERT_EQ(projected->leftOut, std::vector<std::string>{"modelled-one (modelled)"});
    ASSERT_EQ(projected->trace.runs.size(), measured.runs.size() - 1);
    std::size_t cpu = 0;
    for (std::size_t i = 0; i + 1 < measured.runs.size(); ++i) {
        const auto& before = measured.runs[i];
        const auto& after = projected->trace.runs[i];
        EXPECT_EQ(after.id, before.id);
        if (before.mode == trace::RunMode::MeasuredCpu) {
            ++cpu;
            EXPECT_EQ(after.mode, trace::RunMode::MeasuredCpu);
            EXPECT_EQ(trace::toJson(trace::Trace{"t", {after}}),
                      trace::toJson(trace::Trace{"t", {before}}))
                << "a CPU run is copied as it was";
        } else {
            EXPECT_EQ(after.mode, trace::RunMode::Projected);
        }
    }
    EXPECT_EQ(cpu, 2U);
    EXPECT_EQ(projected->factors.size(), measured.runs.size() - 3);
}

TEST(Projection, ATraceWithoutMeasuredGpuRunsIsRefused) {
    trace::Trace trace = load(kSamples / "seed-100x4000x5-f64-pageable.json");
    std::erase_if(trace.runs,
                  [](const trace::Run& r) { return r.mode == trace::RunMode::MeasuredGpu; });
    auto projected = backend::projectTrace(trace, preset("t4"));
    ASSERT_FALSE(projected);
    EXPECT_EQ(projected.error().code, Error::Code::Unsupported) << "not a usage error";
    EXPECT_NE(projected.error().message.find("no measured GPU run"), std::string::npos)
        << projected.error().message;
    EXPECT_NE(projected.error().message.find("2 measured-cpu"), std::string::npos)
        << projected.error().message;
}

TEST(Projection, ADeviceNoPresetIsNamedAfterCannotBeModelled) {
    trace::Run measured = measuredGpuRuns().front();
    measured.device.name = "NVIDIA Imaginary 9000";
    auto projected = projectRun(measured, preset("t4"));
    ASSERT_FALSE(projected);
    EXPECT_EQ(projected.error().code, Error::Code::Unsupported);
    EXPECT_NE(projected.error().message.find("'NVIDIA Imaginary 9000'"), std::string::npos)
        << projected.error().message;
    EXPECT_NE(projected.error().message.find("cannot model"), std::string::npos);

    device::DeviceSpec detected = preset("t4");
    detected.id.clear(); // a device found at run time, not a preset
    EXPECT_FALSE(projectRun(measuredGpuRuns().front(), detected));
}

TEST(Projection, TheProjectedRunDescribesTheTargetsLaunchAndDropsTheSourcesCounters) {
    const trace::Trace counters = load(kSamples / "seed-100x4000x5-f64-pageable-counters.json");
    for (const auto& measured : counters.runs) {
        if (measured.mode != trace::RunMode::MeasuredGpu) {
            continue;
        }
        SCOPED_TRACE(measured.id);
        auto projected = projectRun(measured, preset("t4"));
        ASSERT_TRUE(projected) << projected.error().message;
        EXPECT_EQ(projected->run.device.name, "Tesla T4");
        EXPECT_EQ(projected->run.device.smCount, preset("t4").smCount);
        ASSERT_TRUE(projected->run.occupancy);
        EXPECT_FALSE(projected->run.occupancy->achieved) << "measured on the H200, not the T4";
        EXPECT_TRUE(projected->run.occupancySeries.empty());
        for (const auto& a : projected->run.activities) {
            if (a.kind == ActivityKind::Kernel) {
                EXPECT_TRUE(std::isnan(a.achievedOccupancy));
                EXPECT_TRUE(std::isnan(a.activeLaneShare));
                EXPECT_EQ(a.grid, projected->run.launch->grid);
            }
        }
        ASSERT_FALSE(projected->run.notes.empty());
        EXPECT_TRUE(projected->run.notes.front().starts_with("projected, not measured"));
        // It reads back as it was written.
        auto back = trace::parseTrace(trace::toJson(trace::Trace{"t", {projected->run}}));
        ASSERT_TRUE(back) << back.error().message;
        EXPECT_EQ(back->runs.front().mode, trace::RunMode::Projected);
        EXPECT_EQ(back->runs.front().projection, projected->run.projection);
    }
}

TEST(Projection, ExportsAndVerdictsCallItProjectedNeverMeasured) {
    const trace::Trace measured = load(kSamples / "seed-100x4000x5-f64-pageable.json");
    auto projected = backend::projectTrace(measured, preset("t4"));
    ASSERT_TRUE(projected) << projected.error().message;
    const trace::Run& run = projected->trace.runs.front();
    ASSERT_EQ(run.mode, trace::RunMode::Projected);

    std::ostringstream table;
    trace::printGpuTrace(run, table);
    EXPECT_NE(table.str().find("[projected] on Tesla T4"), std::string::npos) << table.str();
    EXPECT_NE(table.str().find("==slicescope== projected: run " + run.id +
                               " measured on the NVIDIA H200"),
              std::string::npos)
        << table.str();

    std::ostringstream chrome;
    trace::writeChromeTrace(trace::Trace{"t", {run}}, chrome);
    EXPECT_NE(chrome.str().find("\"cat\":\"kernel,projected\""), std::string::npos);

    std::vector<trace::SummarizedRun> all;
    for (const auto& r : projected->trace.runs) {
        all.push_back({&r, trace::summarize(r), r.batch, {}});
    }
    const std::string verdict = trace::verdict(all.front(), all);
    EXPECT_EQ(verdict.rfind("projected onto the Tesla T4 from " + run.id +
                                " measured on the NVIDIA H200: ",
                            0),
              0U)
        << verdict;
    // The CPU runs' verdicts name the fastest GPU run as projected.
    const std::string cpu = trace::verdict(all.back(), all);
    EXPECT_NE(cpu.find(", projected"), std::string::npos) << cpu;
}
