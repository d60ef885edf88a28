#pragma once

#include "slicescope/backend/modelparameters.h"
#include "slicescope/core/result.h"
#include "slicescope/trace/trace.h"

#include <string>
#include <vector>

// The fit of the model's kernel constants to a measured calibration sample (docs/model.md,
// "Calibration"): the figures in ModelParameters are what this gives for
// resources/samples/seed-100x4000x5-f64-pageable.json, and a test holds them to it, so a
// re-recorded sample cannot leave the model fitted to the old one.
namespace slicescope::backend {

// One fitted strategy: its measured and modelled kernel time per launch with the fitted constants.
struct FitResidual {
    std::string strategy;
    double measuredKernelNs = 0;
    double modelledKernelNs = 0;
};

struct ModelFit {
    ModelParameters parameters; // the defaults with the fitted constants replaced
    std::vector<FitResidual> residuals;
};

// Fits, in whole cycles, l2MissCycles and lineMissCycles to one-worker, slice-middle and
// slice-middle-strided together (least squares of log(modelled / measured)), then
// blockLaunchCycles to elementwise-materialized. The sample's measured GPU runs of those four
// strategies must be there, on a device with a preset; anything else is an error.
Result<ModelFit> fitModelConstants(const trace::Trace& sample);

} // namespace slicescope::backend
