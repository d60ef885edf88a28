#pragma once

#include "slicescope/backend/modelparameters.h"
#include "slicescope/core/result.h"
#include "slicescope/device/devicespec.h"
#include "slicescope/trace/trace.h"

#include <string>
#include <vector>

// Projecting a measured GPU run onto another GPU (docs/model.md, "Projecting a measured run"): the
// measurement is kept, and only what the model says changes between the two devices is applied to
// it, so the model's own error on the measured device cancels.
namespace slicescope::backend {

// The factors a projection applies, per activity kind (what the run's notes and the CLI report).
struct ProjectionFactors {
    double kernel = 1; // modelled kernel time on the target over the source, over all kernels
    double htod = 1;   // modelled HtoD copy time on the target over the source, over all copies
    double dtoh = 1;   // the same for DtoH copies
    double deviceMemory = 1; // memsets and DtoD copies: source over target DRAM bandwidth
};

// `measured` (a measured GPU run of a SliceScope strategy on a device a preset is named after)
// moved onto the preset `target`:
// - each kernel: its measured time × the model's time on the target / the model's time on the
//   source, for the same strategy, problem, block option, memory mode and pipeline, chunk by chunk;
// - each HtoD and DtoH copy: its measured time × the model's copy time of its bytes over the
//   target's host link / over the source's (modelCopyNs, the link of its host memory kind);
// - memsets and DtoD copies: × source / target device memory bandwidth (the model has no term of
//   its own for them);
// - host work (layout passes, allocation, verification), API calls and profiler overhead: as
//   measured; waits (synchronizations, blocking copies) end as long after the device work they
//   waited for as they did;
// - the timeline keeps its order, streams, iterations and warm-up, re-laid so that no device
//   activity starts before the call that issued it or overlaps the one before it on its stream or
//   copy engine. The first activity keeps its start.
// The run says mode "projected" and names its source (Run::projection); its launch and occupancy
// are the model's on the target, its verification, counters and occupancy series are dropped
// (they were the source device's). Projecting onto the source's own preset gives the measured
// times back.
struct ProjectedRun {
    trace::Run run;
    ProjectionFactors factors;
};
Result<ProjectedRun> projectRun(const trace::Run& measured, const device::DeviceSpec& target,
                                const ModelParameters& parameters = ModelParameters{});

// Every measured GPU run of `trace` projected onto `target`, and its measured CPU runs copied
// unchanged (the host they ran on is the same whatever the GPU: verdicts compare them with the
// projected runs). Runs of other modes are left out and named in `leftOut` ("slice-2d (modelled)").
// Fails when the trace has no measured GPU run, or when one cannot be projected (its message
// names the run). The trace's sweeps are not kept: their crossovers were found in the measured
// times; the runs keep their sweep points.
struct ProjectedTrace {
    trace::Trace trace;
    std::vector<std::string> leftOut;
    std::vector<ProjectionFactors> factors; // of each projected run, in trace order
};
Result<ProjectedTrace> projectTrace(const trace::Trace& trace, const device::DeviceSpec& target,
                                    const ModelParameters& parameters = ModelParameters{});

} // namespace slicescope::backend
