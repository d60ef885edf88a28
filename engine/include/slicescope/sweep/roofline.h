#pragma once

#include "slicescope/device/devicespec.h"
#include "slicescope/trace/runsummary.h"
#include "slicescope/trace/trace.h"

#include <optional>
#include <string>

// The roofline with the copies: each GPU run placed twice, kernel only against device memory and
// whole run against the host link. Pure functions, no I/O.
namespace slicescope::sweep {

// Which roof bounds a point: the bandwidth slope (left of the ridge) or the compute ceiling.
enum class Bound { Bandwidth, Compute };

struct RooflinePoint {
    double flops = 0;
    double bytes = 0;
    double intensity = 0;        // flop per byte
    double bandwidthGBps = 0;    // the slope's ceiling
    double peakGflops = 0;       // the flat ceiling
    double ridgeIntensity = 0;   // peak / bandwidth: where the roofs meet
    double attainableGflops = 0; // min(peak, intensity x bandwidth)
    double achievedGflops = 0;   // flops / time (0 without a time)
    Bound bound = Bound::Bandwidth;
};

// Places a point of flops over bytes, done in timeNs (0: unknown), under a bandwidth and a peak.
RooflinePoint place(double flops, double bytes, double timeNs, double bandwidthGBps,
                    double peakGflops);

// The floating-point operations of one repetition of the problem (one multiply, then one
// multiply-add of 2 flop per extra unit of work, per element).
double problemFlops(const problem::Problem& problem);

struct RunRoofline {
    RooflinePoint kernel;       // flop per DRAM byte the kernel moves, device-memory roof
    RooflinePoint wholeRun;     // flop per byte crossing the host link, host-link roof
    std::string hostLink;       // "pinned" or "pageable": which link roof applies
    std::string ceilingsSource; // "measured" or "datasheet"
};

// The two points of a GPU run (it needs a problem, a GPU strategy and ceilings); an error for CPU
// and recorded runs. Times are per repetition, from the run's activities.
Result<RunRoofline> runRoofline(const trace::Run& run, const trace::Ceilings& ceilings);
// The same from the run's summary made before (trace::summarize(run)): a window placing every run
// of a session has it already.
Result<RunRoofline> runRoofline(const trace::Run& run, const trace::RunSummary& summary,
                                const trace::Ceilings& ceilings);

// Datasheet ceilings of a preset: bandwidths from the preset; FMA peaks from the preset's
// per-SM FMA rates (every preset carries them; a device without them gives 0, unknown).
trace::Ceilings datasheetCeilings(const device::DeviceSpec& device);

// The ceilings a run is placed against: those measured and stored with it, else, for a modelled
// or projected run, its preset's datasheet ones; none for anything else.
std::optional<trace::Ceilings> ceilingsOf(const trace::Run& run);

} // namespace slicescope::sweep
