#pragma once

#include "slicescope/backend/modelparameters.h"
#include "slicescope/backend/runrequest.h"
#include "slicescope/device/devicespec.h"
#include "slicescope/trace/trace.h"

namespace slicescope::backend {

// Predicts a GPU strategy's HtoD, kernel and DtoH activities on a device preset
// (docs/model.md gives the formulas). The run says mode "modelled" and carries no verification.
// `parameters` other than the defaults are for fitting them (modelfit.h).
Result<trace::Run> modelRun(strategy::StrategyId id, const RunRequest& request,
                            const device::DeviceSpec& device,
                            const ModelParameters& parameters = ModelParameters{});

// A measured GPU run beside the model's prediction for the same problem, strategy, block option,
// memory mode and repeat count, on the preset whose name is the run's device's (docs/model.md,
// "Validation"). Times are kernel nanoseconds per repetition.
struct ModelComparison {
    strategy::StrategyId strategy{};
    std::string presetId;
    std::string setting; // "100x4000x5 f64, work 1, block numba, pageable"
    double measuredKernelNs = 0;
    double modelledKernelNs = 0;
    double ratio() const { return modelledKernelNs / measuredKernelNs; } // modelled / measured
};
// Fails for runs that are not measured on a GPU, lack a problem, launch or kernel activity, or
// whose device matches no preset.
Result<ModelComparison> compareWithModel(const trace::Run& measured,
                                         const ModelParameters& parameters = ModelParameters{});

} // namespace slicescope::backend
