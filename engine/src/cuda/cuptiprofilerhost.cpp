#include "cuptiprofilerhost.h"

#include "cupticheck.h"

#include <cupti_profiler_target.h>
#include <cupti_target.h>
#include <mutex>

namespace slicescope::cuda {

namespace {
std::mutex initializationMutex;
std::weak_ptr<ProfilerInitialization> current;
} // namespace

Result<std::shared_ptr<ProfilerInitialization>> ProfilerInitialization::acquire() {
    const std::lock_guard lock(initializationMutex);
    if (auto held = current.lock()) {
        return held;
    }
    CUpti_Profiler_Initialize_Params params{CUpti_Profiler_Initialize_Params_STRUCT_SIZE, nullptr};
    CUPTI_CHECK(cuptiProfilerInitialize(&params));
    std::shared_ptr<ProfilerInitialization> made(new ProfilerInitialization());
    current = made;
    return made;
}

ProfilerInitialization::~ProfilerInitialization() {
    CUpti_Profiler_DeInitialize_Params params{CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE,
                                              nullptr};
    (void)cuptiProfilerDeInitialize(&params);
}

Result<std::string> chipName(int deviceIndex) {
    CUpti_Device_GetChipName_Params params{CUpti_Device_GetChipName_Params_STRUCT_SIZE, nullptr,
                                           std::size_t(deviceIndex), nullptr};
    CUPTI_CHECK(cuptiDeviceGetChipName(&params));
    return std::string(params.pChipName ? params.pChipName : "");
}

Result<std::unique_ptr<ProfilerHost>>
ProfilerHost::create(CUpti_ProfilerType type, const std::string& chip,
                     const std::vector<std::uint8_t>& counterAvailability,
                     std::vector<std::string> metrics) {
    std::unique_ptr<ProfilerHost> host(new ProfilerHost());
    host->metrics_ = std::move(metrics);

    auto init = cuptiParams<CUpti_Profiler_Host_Initialize_Params>(
        CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
    init.profilerType = type;
    init.pChipName = chip.c_str();
    init.pCounterAvailabilityImage =
        counterAvailability.empty() ? nullptr : counterAvailability.data();
    CUPTI_CHECK(cuptiProfilerHostInitialize(&init));
    host->object_ = init.pHostObject;

    auto names = host->metricPointers();
    auto add = cuptiParams<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
        CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
    add.pHostObject = host->object_;
    add.ppMetricNames = names.data();
    add.numMetrics = names.size();
    CUPTI_CHECK(cuptiProfilerHostConfigAddMetrics(&add));

    auto size = cuptiParams<CUpti_Profiler_Host_GetConfigImageSize_Params>(
        CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
    size.pHostObject = host->object_;
    CUPTI_CHECK(cuptiProfilerHostGetConfigImageSize(&size));
    host->config_.resize(size.configImageSize);

    auto image = cuptiParams<CUpti_Profiler_Host_GetConfigImage_Params>(
        CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
    image.pHostObject = host->object_;
    image.configImageSize = host->config_.size();
    image.pConfigImage = host->config_.data();
    CUPTI_CHECK(cuptiProfilerHostGetConfigImage(&image));

    auto passes = cuptiParams<CUpti_Profiler_Host_GetNumOfPasses_Params>(
        CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
    passes.configImageSize = host->config_.size();
    passes.pConfigImage = host->config_.data();
    CUPTI_CHECK(cuptiProfilerHostGetNumOfPasses(&passes));
    host->passes_ = passes.numOfPasses;
    return host;
}

ProfilerHost::~ProfilerHost() {
    if (object_ != nullptr) {
        auto params = cuptiParams<CUpti_Profiler_Host_Deinitialize_Params>(
            CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
        params.pHostObject = object_;
        (void)cuptiProfilerHostDeinitialize(&params);
    }
}

std::vector<const char*> ProfilerHost::metricPointers() const {
    std::vector<const char*> names;
    for (const auto& m : metrics_) {
        names.push_back(m.c_str());
    }
    return names;
}

Result<std::vector<double>> ProfilerHost::evaluate(const std::vector<std::uint8_t>& counterData,
                                                   std::size_t index) const {
    auto names = metricPointers();
    std::vector<double> values(names.size(), 0.0);
    auto params = cuptiParams<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
        CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
    params.pHostObject = object_;
    params.pCounterDataImage = counterData.data();
    params.counterDataImageSize = counterData.size();
    params.rangeIndex = index;
    params.ppMetricNames = names.data();
    params.numMetrics = names.size();
    params.pMetricValues = values.data();
    CUPTI_CHECK(cuptiProfilerHostEvaluateToGpuValues(&params));
    return values;
}

} // namespace slicescope::cuda
