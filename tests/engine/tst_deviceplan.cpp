// A sweep over several GPUs, the pure half (slicescope/sweep/deviceplan.h): --devices parsed
// against the devices present, the points dealt over them, and the workers' runs merged back into
// the order of a one-GPU sweep. Synthetic runs: no GPU needed.
#include "slicescope/sweep/crossover.h"
#include "slicescope/sweep/deviceplan.h"

#include <cmath>
#include <gtest/gtest.h>
#include <numeric>
#include <string>
#include <vector>

namespace slicescope::sweep {
namespace {

using Devices = std::vector<int>;
using Strings = std::vector<std::string>;

TEST(DevicePlan, ParsesAllAndListsInTheOrderGiven) {
    EXPECT_EQ(parseDeviceList("all", 2).value(), (Devices{0, 1}));
    EXPECT_EQ(parseDeviceList("all", 1).value(), (Devices{0}));
    EXPECT_EQ(parseDeviceList("0,1", 4).value(), (Devices{0, 1}));
    EXPECT_EQ(parseDeviceList("3,0,2", 4).value(), (Devices{3, 0, 2}));
    EXPECT_EQ(parseDeviceList("1", 2).value(), (Devices{1}));
}

TEST(DevicePlan, RefusesWhatNamesNoDeviceClearly) {
    struct Case {
        const char* text;
        std::size_t present;
        const char* says;
    };
    const Case cases[] = {
        {"0,2", 2, "there is no CUDA device 2; this machine has 2 CUDA devices (indices 0 to 1)"},
        {"1", 1, "there is no CUDA device 1; this machine has 1 CUDA device (index 0)"},
        {"0,1,0", 2, "device 0 is named twice"},
        {"0,,1", 2, "'' is not a CUDA device index"},
        {"0,1,", 2, "'' is not a CUDA device index"},
        {"-1", 2, "'-1' is not a CUDA device index"},
        {"gpu0", 2, "'gpu0' is not a CUDA device index"},
        {"ALL", 2, "'ALL' is not a CUDA device index"},
        {"99999999999", 2, "'99999999999' is not a CUDA device index"},
        {"", 2, "--devices needs 'all' or a comma-separated list"},
    };
    for (const auto& c : cases) {
        const auto parsed = parseDeviceList(c.text, c.present);
        ASSERT_FALSE(parsed) << c.text;
        EXPECT_EQ(parsed.error().code, Error::Code::InvalidArgument) << c.text;
        EXPECT_NE(parsed.error().message.find(c.says), std::string::npos)
            << c.text << ": " << parsed.error().message;
    }
}

TEST(DevicePlan, NoGpuSaysSoPlainly) {
    for (const char* text : {"all", "0", "0,1"}) {
        const auto parsed = parseDeviceList(text, 0, "no CUDA device is present");
        ASSERT_FALSE(parsed) << text;
        EXPECT_EQ(parsed.error().code, Error::Code::Unsupported);
        EXPECT_NE(parsed.error().message.find("no GPU found on this machine"), std::string::npos)
            << parsed.error().message;
        EXPECT_NE(parsed.error().message.find("(no CUDA device is present)"), std::string::npos)
            << parsed.error().message;
    }
}

TEST(DevicePlan, DealsThePointsRoundRobin) {
    EXPECT_EQ(planDevices(5, {0, 1}), (std::vector<DeviceShare>{{0, {0, 2, 4}}, {1, {1, 3}}}));
    // The devices in the order given: the first named gets point 0.
    EXPECT_EQ(planDevices(4, {1, 0}), (std::vector<DeviceShare>{{1, {0, 2}}, {0, {1, 3}}}));
    EXPECT_EQ(planDevices(7, {0, 1, 2}),
              (std::vector<DeviceShare>{{0, {0, 3, 6}}, {1, {1, 4}}, {2, {2, 5}}}));
}

TEST(DevicePlan, OneDeviceTakesEveryPointInOrder) {
    std::vector<std::size_t> all(32);
    std::iota(all.begin(), all.end(), std::size_t(0));
    EXPECT_EQ(planDevices(32, {3}), (std::vector<DeviceShare>{{3, all}}));
}

TEST(DevicePlan, MoreDevicesThanPointsLeavesTheRestIdle) {
    EXPECT_EQ(planDevices(2, {0, 1, 2, 3}), (std::vector<DeviceShare>{{0, {0}}, {1, {1}}}));
    EXPECT_TRUE(planDevices(0, {0, 1}).empty());
}

TEST(DevicePlan, SharesAreBalancedCoverEveryPointOnceAndAreDeterministic) {
    for (std::size_t points : {1u, 2u, 3u, 31u, 32u, 33u, 1000u}) {
        for (std::size_t n : {1u, 2u, 3u, 4u, 8u}) {
            Devices devices(n);
            std::iota(devices.begin(), devices.end(), 0);
            const auto plan = planDevices(points, devices);
            EXPECT_EQ(plan, planDevices(points, devices));
            std::vector<int> seen(points, 0);
            std::size_t smallest = points, largest = 0;
            for (const auto& share : plan) {
                EXPECT_TRUE(std::is_sorted(share.points.begin(), share.points.end()));
                smallest = std::min(smallest, share.points.size());
                largest = std::max(largest, share.points.size());
                for (auto p : share.points) {
                    ++seen[p];
                }
            }
            EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), std::ptrdiff_t(points))
                << points << " points over " << n;
            EXPECT_LE(largest - smallest, 1u) << points << " points over " << n;
            EXPECT_EQ(plan.size(), std::min(points, n));
        }
    }
}

TEST(DevicePlan, ShareValuesAreTheValuesAtItsPoints) {
    const Strings values{"32", "64", "128", "256", "512"};
    EXPECT_EQ(shareValues({0, {0, 2, 4}}, values), (Strings{"32", "128", "512"}));
    EXPECT_EQ(shareValues({1, {1, 3}}, values), (Strings{"64", "256"}));
}

TEST(DevicePlan, MergeByPointPutsEachCellAtItsSweepPoint) {
    const auto plan = planDevices(5, {0, 1});
    std::vector<std::vector<std::string>> parts{{"p0", "p2", "p4"}, {"p1", "p3"}};
    EXPECT_EQ(mergeByPoint(plan, std::move(parts), 5, std::string("none")),
              (Strings{"p0", "p1", "p2", "p3", "p4"}));
    // A worker that stopped early: its points not reached stay missing.
    std::vector<std::vector<std::string>> shortParts{{"p0"}, {"p1", "p3"}};
    EXPECT_EQ(mergeByPoint(plan, std::move(shortParts), 5, std::string("none")),
              (Strings{"p0", "p1", "none", "p3", "none"}));
}

// A worker's report at one of its points, as the CLI holds it: a result a strategy. The run's
// SweepPoint counts the worker's own points, as a worker writes it.
using Row = std::vector<Result<trace::Run>>;

// A measured run whose one kernel takes timeNs.
trace::Run timedRun(const std::string& strategy, const std::string& value, std::uint32_t local,
                    std::int64_t timeNs, int device) {
    trace::Run run;
    run.strategy = strategy;
    run.id = strategy + "@block=" + value;
    run.mode = trace::RunMode::MeasuredGpu;
    run.sweep = trace::SweepPoint{"block", value, local};
    run.deviceIndex = std::uint32_t(device);
    trace::Activity kernel;
    kernel.kind = trace::ActivityKind::Kernel;
    kernel.endNs = timeNs;
    run.activities.push_back(kernel);
    return run;
}

// A synthetic sweep: "a" gets slower and "b" faster as the block grows; they cross near 128.
std::int64_t syntheticTimeNs(const std::string& strategy, std::size_t point) {
    return strategy == "a" ? std::int64_t(1000 * (point + 1)) : std::int64_t(5000 - 800 * point);
}

// What each device's worker reports for its share: every strategy at each of its points.
std::vector<std::vector<Row>> workerParts(const std::vector<DeviceShare>& plan,
                                          const Strings& values, const Strings& strategies) {
    std::vector<std::vector<Row>> parts;
    for (const auto& share : plan) {
        auto& part = parts.emplace_back();
        const auto mine = shareValues(share, values);
        for (std::uint32_t i = 0; i < mine.size(); ++i) {
            Row& row = part.emplace_back();
            for (const auto& s : strategies) {
                row.push_back(
                    timedRun(s, mine[i], i, syntheticTimeNs(s, share.points[i]), share.device));
            }
        }
    }
    return parts;
}

const Row kNotReached{fail(Error::Code::Cancelled, "not reached")};

std::vector<Row> merged(const std::vector<int>& devices, const Strings& values,
                        const Strings& strategies) {
    const auto plan = planDevices(values.size(), devices);
    return mergeByPoint(plan, workerParts(plan, values, strategies), values.size(), kNotReached);
}

// The values each merged point's runs were measured at, and the strategies in order.
Strings pointsOf(const std::vector<Row>& rows) {
    Strings out;
    for (const auto& row : rows) {
        std::string text;
        for (const auto& r : row) {
            text +=
                (text.empty() ? "" : ",") + (r ? r->strategy + "@" + r->sweep->value : "missing");
        }
        out.push_back(text);
    }
    return out;
}

// The crossovers of the merged rows, as the CLI finds them (times by point).
std::vector<trace::Crossover> crossoversOf(const std::vector<Row>& rows, const Strings& values,
                                           const Strings& strategies) {
    std::vector<Series> series(strategies.size());
    for (std::size_t k = 0; k < strategies.size(); ++k) {
        series[k].strategy = strategies[k];
        for (const auto& row : rows) {
            series[k].timesNs.push_back(row[k] ? double(row[k]->activities.front().endNs) : NAN);
        }
    }
    return findCrossovers("block", values, series, true);
}

TEST(DevicePlan, MergedRunsAreInTheOneGpuOrderWithItsCrossovers) {
    const Strings strategies{"a", "b"};
    const Strings values{"32", "64", "128", "256", "512"};
    const auto one = merged({0}, values, strategies);
    const Strings order{"a@32,b@32", "a@64,b@64", "a@128,b@128", "a@256,b@256", "a@512,b@512"};
    ASSERT_EQ(pointsOf(one), order);
    const auto oneCrossovers = crossoversOf(one, values, strategies);
    ASSERT_EQ(oneCrossovers.size(), 1u);
    for (const auto& devices : {Devices{0, 1}, Devices{1, 0}, Devices{0, 1, 2}, Devices{2, 0, 1, 3},
                                Devices{0, 1, 2, 3, 4, 5, 6}}) {
        const auto rows = merged(devices, values, strategies);
        EXPECT_EQ(pointsOf(rows), order) << devices.size() << " devices";
        const auto crossovers = crossoversOf(rows, values, strategies);
        ASSERT_EQ(crossovers.size(), oneCrossovers.size());
        EXPECT_EQ(crossovers.front().text, oneCrossovers.front().text);
        EXPECT_DOUBLE_EQ(crossovers.front().at, oneCrossovers.front().at);
        // Every point's runs came from the one device the plan gave it, all strategies alike.
        const auto plan = planDevices(values.size(), devices);
        for (const auto& share : plan) {
            for (auto p : share.points) {
                for (const auto& r : rows[p]) {
                    EXPECT_EQ(r->deviceIndex, std::uint32_t(share.device)) << "point " << p;
                }
            }
        }
    }
}

TEST(DevicePlan, MergeKeepsWhatAWorkerReachedAndMarksTheRestMissing) {
    const Strings strategies{"a"};
    const Strings values{"32", "64", "128", "256", "512"};
    const auto plan = planDevices(values.size(), {0, 1});
    auto parts = workerParts(plan, values, strategies);
    parts[1].pop_back(); // device 1 was interrupted before its second point (256)
    parts[0].clear();    // device 0's worker crashed before it reported anything
    const auto rows = mergeByPoint(plan, std::move(parts), values.size(), kNotReached);
    EXPECT_EQ(pointsOf(rows), (Strings{"missing", "a@64", "missing", "missing", "missing"}));
}

TEST(DevicePlan, DeviceRunIdsSayTheDevice) {
    EXPECT_EQ(deviceRunId("slice-2d", 0), "slice-2d@gpu0");
    EXPECT_EQ(deviceRunId("elementwise-broadcast", 7), "elementwise-broadcast@gpu7");
}

} // namespace
} // namespace slicescope::sweep
