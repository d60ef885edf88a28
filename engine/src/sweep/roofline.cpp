#include "slicescope/sweep/roofline.h"

#include "slicescope/strategy/strategy.h"
#include "slicescope/trace/runsummary.h"

#include <algorithm>

namespace slicescope::sweep {

RooflinePoint place(double flops, double bytes, double timeNs, double bandwidthGBps,
                    double peakGflops) {
    RooflinePoint p;
    p.flops = flops;
    p.bytes = bytes;
    p.intensity = bytes > 0 ? flops / bytes : 0;
    p.bandwidthGBps = bandwidthGBps;
    p.peakGflops = peakGflops;
    p.ridgeIntensity = bandwidthGBps > 0 ? peakGflops / bandwidthGBps : 0;
    const double slope = p.intensity * bandwidthGBps; // GB/s x flop/B = Gflop/s
    if (peakGflops > 0 && slope >= peakGflops) {
        p.attainableGflops = peakGflops;
        p.bound = Bound::Compute;
    } else {
        p.attainableGflops = slope;
        p.bound = Bound::Bandwidth;
    }
    p.achievedGflops = timeNs > 0 ? flops / timeNs : 0; // flop/ns = Gflop/s
    return p;
}

double problemFlops(const problem::Problem& problem) {
    return double(problem.elements()) * (1.0 + 2.0 * double(problem.workPerElement - 1));
}

Result<RunRoofline> runRoofline(const trace::Run& run, const trace::Ceilings& ceilings) {
    return runRoofline(run, trace::summarize(run), ceilings);
}

Result<RunRoofline> runRoofline(const trace::Run& run, const trace::RunSummary& summary,
                                const trace::Ceilings& ceilings) {
    const auto id = strategy::parseStrategy(run.strategy);
    if (!run.problem || !id || !strategy::isGpu(*id)) {
        return fail(Error::Code::InvalidArgument,
                    "run '" + run.id + "' is not a GPU strategy on a known problem: no roofline");
    }
    const auto& problem = *run.problem;
    const double flops = problemFlops(problem);
    const double in = double(strategy::bytesToDevice(*id, problem));
    const double out = double(strategy::bytesFromDevice(*id, problem));
    const double peak =
        problem.dtype == problem::Dtype::F64 ? ceilings.fp64Gflops : ceilings.fp32Gflops;

    const double repeat = std::max<double>(1, summary.repeat);
    RunRoofline result;
    result.ceilingsSource = ceilings.source;
    // The kernel reads its inputs from device memory and writes its output there: the bytes
    // the copies bring in and take out.
    result.kernel =
        place(flops, in + out, double(summary.kernelNs) / repeat, ceilings.dramGBps, peak);

    const bool pinned =
        run.memoryMode == "pinned" || run.memoryMode == "mapped" || run.memoryMode == "managed";
    result.hostLink = pinned ? "pinned" : "pageable";
    const double htod = pinned ? ceilings.pinnedHtoDGBps : ceilings.pageableHtoDGBps;
    const double dtoh = pinned ? ceilings.pinnedDtoHGBps : ceilings.pageableDtoHGBps;
    // Both directions share one stream, one after the other: the link's rate for these bytes
    // is their total over the time each direction takes.
    const double linkSeconds = (htod > 0 ? in / htod : 0) + (dtoh > 0 ? out / dtoh : 0);
    const double linkGBps = linkSeconds > 0 && htod > 0 && dtoh > 0 ? (in + out) / linkSeconds : 0;
    result.wholeRun = place(flops, in + out, double(summary.perRepetitionNs()), linkGBps, peak);
    return result;
}

trace::Ceilings datasheetCeilings(const device::DeviceSpec& device) {
    trace::Ceilings c;
    c.source = "datasheet";
    c.dramGBps = device.memoryBandwidthGBps;
    c.pinnedHtoDGBps = device.pinnedHtoDGBps;
    c.pinnedDtoHGBps = device.pinnedDtoHGBps;
    c.pageableHtoDGBps = device.pageableHtoDGBps;
    c.pageableDtoHGBps = device.pageableDtoHGBps;
    // 2 flop per FMA; SMs x clock (MHz) x results per clock = 1e6 results per second. The rates
    // per SM per clock are the preset's (resources/devices.json, from the CUDA C++ Programming
    // Guide's arithmetic-instruction throughput table).
    const double perClock = double(device.smCount) * device.clockMHz * 1e-3 * 2.0;
    c.fp64Gflops = device.fp64FmaPerSmPerClock * perClock;
    c.fp32Gflops = device.fp32FmaPerSmPerClock * perClock;
    return c;
}

std::optional<trace::Ceilings> ceilingsOf(const trace::Run& run) {
    if (run.ceilings) {
        return run.ceilings;
    }
    if (trace::isPredicted(run.mode)) { // modelled or projected onto a preset
        // By reference: findPreset copies the preset, sources and all, for each of many runs.
        for (const device::DeviceSpec& preset : device::presets()) {
            if (preset.id == run.device.id) {
                return datasheetCeilings(preset);
            }
        }
    }
    return std::nullopt;
}

} // namespace slicescope::sweep
