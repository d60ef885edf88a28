#include "rangeprofiler.h"

#include "countermetrics.h"
#include "cudacheck.h"
#include "cupticheck.h"

#include <cuda_runtime_api.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>

namespace slicescope::cuda {

namespace {

void disable(CUpti_RangeProfiler_Object* object) {
    auto params = cuptiParams<CUpti_RangeProfiler_Disable_Params>(
        CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
    params.pRangeProfilerObject = object;
    (void)cuptiRangeProfilerDisable(&params);
}

} // namespace

Result<CUcontext> currentContext() {
    using GetCurrent = CUresult (*)(CUcontext*);
    void* symbol = nullptr;
    cudaDriverEntryPointQueryResult found{};
    CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &symbol, 12000,
                                                cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || symbol == nullptr) {
        return fail(Error::Code::Unsupported, "the CUDA driver does not provide cuCtxGetCurrent");
    }
    CUcontext context = nullptr;
    if (reinterpret_cast<GetCurrent>(symbol)(&context) != CUDA_SUCCESS || context == nullptr) {
        return fail(Error::Code::Internal, "no current CUDA context for the Range Profiler");
    }
    return context;
}

Result<std::unique_ptr<RangeProfiler>> RangeProfiler::create(int deviceIndex, CUcontext context) {
    std::unique_ptr<RangeProfiler> profiler(new RangeProfiler());
    if (context == nullptr) {
        auto current = currentContext();
        if (!current) {
            return tl::unexpected(current.error());
        }
        context = *current;
    }
    profiler->context_ = context;
    auto init = ProfilerInitialization::acquire();
    if (!init) {
        return tl::unexpected(init.error());
    }
    profiler->initialization_ = *init;
    auto chip = chipName(deviceIndex);
    if (!chip) {
        return tl::unexpected(chip.error());
    }

    auto availability = cuptiParams<CUpti_Profiler_GetCounterAvailability_Params>(
        CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
    availability.ctx = context;
    CUPTI_CHECK(cuptiProfilerGetCounterAvailability(&availability));
    std::vector<std::uint8_t> image(availability.counterAvailabilityImageSize);
    availability.pCounterAvailabilityImage = image.data();
    CUPTI_CHECK(cuptiProfilerGetCounterAvailability(&availability));

    auto host = ProfilerHost::create(CUPTI_PROFILER_TYPE_RANGE_PROFILER, *chip, image,
                                     runCounterMetricNames());
    if (!host) {
        return tl::unexpected(host.error());
    }
    profiler->host_ = std::move(*host);
    return profiler;
}

RangeProfiler::~RangeProfiler() {
    release();
}

void RangeProfiler::release() {
    if (enabled_ != nullptr) {
        disable(enabled_);
        enabled_ = nullptr;
    }
}

Result<CUpti_RangeProfiler_Object*> RangeProfiler::enabled() {
    if (enabled_ == nullptr) {
        auto enable = cuptiParams<CUpti_RangeProfiler_Enable_Params>(
            CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
        enable.ctx = context_;
        CUPTI_CHECK(cuptiRangeProfilerEnable(&enable));
        enabled_ = enable.pRangeProfilerObject;
    }
    return enabled_;
}

Result<std::vector<RangeMetrics>> RangeProfiler::profile(std::size_t launches,
                                                         const std::function<Status()>& launch) {
    if (launches == 0) {
        return std::vector<RangeMetrics>{};
    }
    auto object = enabled();
    if (!object) {
        return tl::unexpected(object.error());
    }
    // A profile() that fails leaves the profiler disabled: the next one starts afresh.
    struct DisableUnlessDone {
        RangeProfiler* profiler;
        bool done = false;
        ~DisableUnlessDone() {
            if (!done) {
                profiler->release();
            }
        }
    } guard{this};

    auto names = host_->metricPointers();
    auto size = cuptiParams<CUpti_RangeProfiler_GetCounterDataSize_Params>(
        CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
    size.pRangeProfilerObject = *object;
    size.pMetricNames = names.data();
    size.numMetrics = names.size();
    size.maxNumOfRanges = launches;
    size.maxNumRangeTreeNodes = std::uint32_t(launches);
    CUPTI_CHECK(cuptiRangeProfilerGetCounterDataSize(&size));
    std::vector<std::uint8_t> counterData(size.counterDataSize);

    auto initImage = cuptiParams<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
    initImage.pRangeProfilerObject = *object;
    initImage.counterDataSize = counterData.size();
    initImage.pCounterData = counterData.data();
    CUPTI_CHECK(cuptiRangeProfilerCounterDataImageInitialize(&initImage));

    const auto& config = host_->configImage();
    auto setConfig = cuptiParams<CUpti_RangeProfiler_SetConfig_Params>(
        CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
    setConfig.pRangeProfilerObject = *object;
    setConfig.configSize = config.size();
    setConfig.pConfig = config.data();
    setConfig.counterDataImageSize = counterData.size();
    setConfig.pCounterDataImage = counterData.data();
    setConfig.range = CUPTI_AutoRange;
    setConfig.replayMode = CUPTI_KernelReplay;
    setConfig.maxRangesPerPass = launches;
    setConfig.numNestingLevels = 1;
    setConfig.minNestingLevel = 1;
    setConfig.passIndex = 0;
    setConfig.targetNestingLevel = 0;
    CUPTI_CHECK(cuptiRangeProfilerSetConfig(&setConfig));

    // Kernel replay submits every pass within one launch; the loop covers configurations that
    // need the workload again, with a bound so a misbehaving driver cannot loop forever.
    bool allSubmitted = false;
    for (std::size_t round = 0; !allSubmitted && round < host_->passes() + 1; ++round) {
        auto start = cuptiParams<CUpti_RangeProfiler_Start_Params>(
            CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
        start.pRangeProfilerObject = *object;
        CUPTI_CHECK(cuptiRangeProfilerStart(&start));
        const Status launched = launch();
        auto stop = cuptiParams<CUpti_RangeProfiler_Stop_Params>(
            CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
        stop.pRangeProfilerObject = *object;
        const CUptiResult stopped = cuptiRangeProfilerStop(&stop);
        if (!launched) {
            return tl::unexpected(launched.error());
        }
        if (stopped != CUPTI_SUCCESS) {
            return tl::unexpected(cuptiError(stopped, "cuptiRangeProfilerStop(&stop)"));
        }
        allSubmitted = stop.isAllPassSubmitted != 0;
    }
    if (!allSubmitted) {
        return fail(Error::Code::Internal, "the Range Profiler did not submit all " +
                                               std::to_string(host_->passes()) + " passes");
    }

    auto decode = cuptiParams<CUpti_RangeProfiler_DecodeData_Params>(
        CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
    decode.pRangeProfilerObject = *object;
    CUPTI_CHECK(cuptiRangeProfilerDecodeData(&decode));

    auto info = cuptiParams<CUpti_RangeProfiler_GetCounterDataInfo_Params>(
        CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
    info.pCounterDataImage = counterData.data();
    info.counterDataImageSize = counterData.size();
    CUPTI_CHECK(cuptiRangeProfilerGetCounterDataInfo(&info));

    std::vector<RangeMetrics> ranges;
    for (std::size_t i = 0; i < info.numTotalRanges; ++i) {
        auto rangeInfo = cuptiParams<CUpti_RangeProfiler_CounterData_GetRangeInfo_Params>(
            CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE);
        rangeInfo.pCounterDataImage = counterData.data();
        rangeInfo.counterDataImageSize = counterData.size();
        rangeInfo.rangeIndex = i;
        rangeInfo.rangeDelimiter = "/";
        CUPTI_CHECK(cuptiRangeProfilerCounterDataGetRangeInfo(&rangeInfo));
        auto values = host_->evaluate(counterData, i);
        if (!values) {
            return tl::unexpected(values.error());
        }
        RangeMetrics m;
        m.rangeName = rangeInfo.rangeName ? rangeInfo.rangeName : std::to_string(i);
        // Clamped to 0..1 here, before the trace writer's checks would refuse a 100.4 % reading.
        m.achievedOccupancy = fractionOfPercent((*values)[kRunAchievedOccupancyPct]);
        m.smBusyElapsedPct = (*values)[kRunSmBusyElapsedPct];
        ranges.push_back(std::move(m));
    }
    if (decode.numOfRangeDropped > 0 && ranges.size() < launches) {
        return fail(Error::Code::Internal, "the Range Profiler dropped " +
                                               std::to_string(decode.numOfRangeDropped) + " of " +
                                               std::to_string(launches) + " ranges");
    }
    guard.done = true;
    return ranges;
}

} // namespace slicescope::cuda
