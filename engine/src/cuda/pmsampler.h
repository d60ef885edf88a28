#pragma once

// Occupancy over time through CUPTI PM sampling: device-wide samples of
// sm__warps_active.avg.pct_of_peak_sustained_elapsed (the share of the GPU's warp slots in use)
// at a fixed GPU-time interval. Sample timestamps are on CUPTI's clock, so the caller cuts the
// series by the run's activities. Works alongside activity tracing (one pass).

#include "countervalues.h"
#include "cuptiprofilerhost.h"
#include "slicescope/core/result.h"

#include <cstdint>
#include <memory>
#include <vector>

struct CUpti_PmSampling_Object;

namespace slicescope::cuda {

struct PmSample {
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    double warpOccupancy = 0; // 0..1 of all SMs' warp slots
};

class PmSampler {
  public:
    // Samples every intervalNs where the device supports a GPU-time interval, and every as many
    // sys-clock cycles otherwise (Turing, GA100: countervalues.h, pmTriggerPlan).
    static Result<std::unique_ptr<PmSampler>> create(int deviceIndex, int computeMajor,
                                                     int computeMinor, double clockMHz,
                                                     std::uint64_t intervalNs = 10'000);
    ~PmSampler();

    Status start();
    Status stop();
    // The samples completed since start(), less the first (it spans enable to start).
    Result<std::vector<PmSample>> decode();
    // True when the hardware buffer filled and later samples were lost.
    bool overflowed() const { return overflowed_; }
    // How the samples are triggered (a note for the run when it is not the GPU-time interval).
    PmTrigger trigger() const { return plan_.trigger; }

  private:
    PmSampler() = default;
    // The counter data image, sized for the span since start() (pmDecodeCapacity) and initialised.
    Status prepareImage();
    std::shared_ptr<ProfilerInitialization> initialization_;
    std::unique_ptr<ProfilerHost> host_;
    CUpti_PmSampling_Object* object_ = nullptr;
    std::vector<std::uint8_t> counterData_;
    bool dropFirst_ = true;
    bool overflowed_ = false;
    PmTriggerPlan plan_;
    std::uint64_t intervalNs_ = 0;
    std::int64_t startNs_ = 0; // CUPTI's clock, at start() and stop()
    std::int64_t stopNs_ = 0;
};

} // namespace slicescope::cuda
