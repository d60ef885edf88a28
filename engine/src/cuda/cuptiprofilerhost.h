#pragma once

// What the Range Profiler and PM sampling share: CUPTI's profiler initialization, the chip name,
// and a host object that turns metric names into a config image and evaluates counter data.

#include "slicescope/core/result.h"

#include <cstdint>
#include <cupti_profiler_host.h>
#include <memory>
#include <string>
#include <vector>

namespace slicescope::cuda {

// A CUPTI parameter struct, zeroed, with structSize set (CUPTI reads it to know the version).
template <typename Params> Params cuptiParams(std::size_t structSize) {
    Params params{};
    params.structSize = structSize;
    return params;
}

// cuptiProfilerInitialize is process-wide in CUPTI: holders share one initialization, undone
// when the last holder goes.
class ProfilerInitialization {
  public:
    static Result<std::shared_ptr<ProfilerInitialization>> acquire();
    ~ProfilerInitialization();
    ProfilerInitialization(const ProfilerInitialization&) = delete;
    ProfilerInitialization& operator=(const ProfilerInitialization&) = delete;

  private:
    ProfilerInitialization() = default;
};

// "GH100" for an H100 or H200.
Result<std::string> chipName(int deviceIndex);

class ProfilerHost {
  public:
    static Result<std::unique_ptr<ProfilerHost>>
    create(CUpti_ProfilerType type, const std::string& chip,
           const std::vector<std::uint8_t>& counterAvailability, std::vector<std::string> metrics);
    ~ProfilerHost();
    ProfilerHost(const ProfilerHost&) = delete;
    ProfilerHost& operator=(const ProfilerHost&) = delete;

    const std::vector<std::uint8_t>& configImage() const { return config_; }
    std::size_t passes() const { return passes_; }
    const std::vector<std::string>& metrics() const { return metrics_; }
    std::vector<const char*> metricPointers() const;

    // The metrics' values for one range (Range Profiler) or sample (PM sampling).
    Result<std::vector<double>> evaluate(const std::vector<std::uint8_t>& counterData,
                                         std::size_t index) const;

  private:
    ProfilerHost() = default;
    CUpti_Profiler_Host_Object* object_ = nullptr;
    std::vector<std::string> metrics_;
    std::vector<std::uint8_t> config_;
    std::size_t passes_ = 0;
};

} // namespace slicescope::cuda
