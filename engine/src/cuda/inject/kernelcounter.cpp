#include "kernelcounter.h"

#include "countermetrics.h"
#include "countervalues.h"
#include "cupticheck.h"

#include <cupti.h>
#include <cupti_profiler_target.h>

namespace slicescope::cuda {

bool isLaunchCallback(CUpti_CallbackDomain domain, CUpti_CallbackId id) {
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
        switch (id) {
        case CUPTI_DRIVER_TRACE_CBID_cuLaunch:
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid:
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync:
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
            return true;
        default:
            return false;
        }
    }
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
        switch (id) {
        case CUPTI_RUNTIME_TRACE_CBID_cudaLaunch_v3020:
        case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
        case CUPTI_RUNTIME_TRACE_CBID_cudaLaunch_ptsz_v7000:
        case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
        case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000:
        case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000:
        case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
        case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060:
        case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000:
        case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000:
            return true;
        default:
            return false;
        }
    }
    return false;
}

KernelCounter::KernelCounter(std::size_t batch, RangeSink ranges, MessageSink messages)
    : batch_(batch < 1 ? 1 : batch), ranges_(std::move(ranges)), messages_(std::move(messages)) {}

KernelCounter::~KernelCounter() {
    finish();
    if (subscriber_ != nullptr) {
        (void)cuptiUnsubscribe(subscriber_);
    }
}

Status KernelCounter::subscribe() {
    CUPTI_CHECK(cuptiSubscribe(&subscriber_, &KernelCounter::callback, this));
    CUPTI_CHECK(cuptiEnableCallback(1, subscriber_, CUPTI_CB_DOMAIN_RESOURCE,
                                    CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING));
    // Every launch entry point of both APIs: a launch counted twice (a runtime launch that goes
    // through the driver's) only makes a pass end sooner.
    for (auto domain : {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_CB_DOMAIN_RUNTIME_API}) {
        const CUpti_CallbackId last = domain == CUPTI_CB_DOMAIN_DRIVER_API
                                          ? CUpti_CallbackId(CUPTI_DRIVER_TRACE_CBID_SIZE)
                                          : CUpti_CallbackId(CUPTI_RUNTIME_TRACE_CBID_SIZE);
        for (CUpti_CallbackId id = 0; id < last; ++id) {
            if (isLaunchCallback(domain, id)) {
                (void)cuptiEnableCallback(1, subscriber_, domain, id);
            }
        }
    }
    return {};
}

void CUPTIAPI KernelCounter::callback(void* self, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                                      const void* data) {
    auto* counter = static_cast<KernelCounter*>(self);
    if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
        if (id == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
            counter->onContextDestroy(static_cast<const CUpti_ResourceData*>(data)->context);
        }
        return;
    }
    if (!isLaunchCallback(domain, id)) {
        return;
    }
    const auto* info = static_cast<const CUpti_CallbackData*>(data);
    if (info->context != nullptr) {
        counter->onLaunch(info->context, info->callbackSite == CUPTI_API_ENTER);
    }
}

void KernelCounter::onLaunch(CUcontext context, bool enter) {
    const std::lock_guard lock(mutex_);
    if (finished_) {
        return;
    }
    auto [it, inserted] = contexts_.try_emplace(context);
    Context& c = it->second;
    if (inserted) {
        c.context = context;
        (void)cuptiGetContextId(context, &c.contextId);
        (void)cuptiGetDeviceId(context, &c.deviceId);
    }
    if (c.failed) {
        return;
    }
    if (enter) {
        if (!c.running) {
            if (auto started = start(c); !started) {
                failed(c, started.error());
            }
        }
        return;
    }
    // Kernel replay has run the kernel to completion (every pass) by the time the launch returns.
    if (c.running && ++c.launchesInPass >= batch_) {
        if (auto collected = collect(c); !collected) {
            failed(c, collected.error());
        }
    }
}

void KernelCounter::onContextDestroy(CUcontext context) {
    const std::lock_guard lock(mutex_);
    auto it = contexts_.find(context);
    if (it == contexts_.end()) {
        return;
    }
    if (it->second.running && !it->second.failed) {
        if (auto collected = collect(it->second); !collected) {
            failed(it->second, collected.error());
        }
    }
    disable(it->second);
    contexts_.erase(it);
}

void KernelCounter::finish() {
    const std::lock_guard lock(mutex_);
    if (finished_) {
        return;
    }
    finished_ = true;
    for (auto& [context, c] : contexts_) {
        if (c.running && !c.failed) {
            if (auto collected = collect(c); !collected) {
                failed(c, collected.error());
            }
        }
        disable(c);
    }
}

Status KernelCounter::start(Context& c) {
    if (c.object == nullptr) {
        if (!initialization_) {
            auto init = ProfilerInitialization::acquire();
            if (!init) {
                return tl::unexpected(init.error());
            }
            initialization_ = *init;
        }
        auto chip = chipName(int(c.deviceId));
        if (!chip) {
            return tl::unexpected(chip.error());
        }
        auto availability = cuptiParams<CUpti_Profiler_GetCounterAvailability_Params>(
            CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
        availability.ctx = c.context;
        CUPTI_CHECK(cuptiProfilerGetCounterAvailability(&availability));
        std::vector<std::uint8_t> image(availability.counterAvailabilityImageSize);
        availability.pCounterAvailabilityImage = image.data();
        CUPTI_CHECK(cuptiProfilerGetCounterAvailability(&availability));
        auto host = ProfilerHost::create(CUPTI_PROFILER_TYPE_RANGE_PROFILER, *chip, image,
                                         counterMetricNames());
        if (!host) {
            return tl::unexpected(host.error());
        }
        c.host = std::move(*host);

        auto enable = cuptiParams<CUpti_RangeProfiler_Enable_Params>(
            CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
        enable.ctx = c.context;
        CUPTI_CHECK(cuptiRangeProfilerEnable(&enable));
        c.object = enable.pRangeProfilerObject;

        auto names = c.host->metricPointers();
        auto size = cuptiParams<CUpti_RangeProfiler_GetCounterDataSize_Params>(
            CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
        size.pRangeProfilerObject = c.object;
        size.pMetricNames = names.data();
        size.numMetrics = names.size();
        // Room for twice the batch: a launch entry point this counter does not know still lands
        // in the image rather than being dropped.
        size.maxNumOfRanges = 2 * batch_;
        size.maxNumRangeTreeNodes = std::uint32_t(2 * batch_);
        CUPTI_CHECK(cuptiRangeProfilerGetCounterDataSize(&size));
        c.counterData.resize(size.counterDataSize);
    }

    auto initImage = cuptiParams<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
    initImage.pRangeProfilerObject = c.object;
    initImage.counterDataSize = c.counterData.size();
    initImage.pCounterData = c.counterData.data();
    CUPTI_CHECK(cuptiRangeProfilerCounterDataImageInitialize(&initImage));

    const auto& config = c.host->configImage();
    auto setConfig = cuptiParams<CUpti_RangeProfiler_SetConfig_Params>(
        CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
    setConfig.pRangeProfilerObject = c.object;
    setConfig.configSize = config.size();
    setConfig.pConfig = config.data();
    setConfig.counterDataImageSize = c.counterData.size();
    setConfig.pCounterDataImage = c.counterData.data();
    setConfig.range = CUPTI_AutoRange;
    setConfig.replayMode = CUPTI_KernelReplay;
    setConfig.maxRangesPerPass = 2 * batch_;
    setConfig.numNestingLevels = 1;
    setConfig.minNestingLevel = 1;
    setConfig.passIndex = 0;
    setConfig.targetNestingLevel = 0;
    CUPTI_CHECK(cuptiRangeProfilerSetConfig(&setConfig));

    auto startParams =
        cuptiParams<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
    startParams.pRangeProfilerObject = c.object;
    CUPTI_CHECK(cuptiRangeProfilerStart(&startParams));
    c.running = true;
    c.launchesInPass = 0;
    return {};
}

Status KernelCounter::collect(Context& c) {
    c.running = false;
    auto stop =
        cuptiParams<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
    stop.pRangeProfilerObject = c.object;
    CUPTI_CHECK(cuptiRangeProfilerStop(&stop));

    auto decode = cuptiParams<CUpti_RangeProfiler_DecodeData_Params>(
        CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
    decode.pRangeProfilerObject = c.object;
    CUPTI_CHECK(cuptiRangeProfilerDecodeData(&decode));
    if (decode.numOfRangeDropped > 0) {
        messages_(record::MessageSeverity::Error,
                  "the Range Profiler dropped " + std::to_string(decode.numOfRangeDropped) +
                      " kernel ranges in context " + std::to_string(c.contextId) +
                      "; achieved occupancy is missing for those kernels");
    }

    auto info = cuptiParams<CUpti_RangeProfiler_GetCounterDataInfo_Params>(
        CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
    info.pCounterDataImage = c.counterData.data();
    info.counterDataImageSize = c.counterData.size();
    CUPTI_CHECK(cuptiRangeProfilerGetCounterDataInfo(&info));
    for (std::size_t i = 0; i < info.numTotalRanges; ++i) {
        auto values = c.host->evaluate(c.counterData, i);
        if (!values) {
            return tl::unexpected(values.error());
        }
        record::RangeFrame range;
        range.contextId = c.contextId;
        range.deviceId = c.deviceId;
        range.rangeIndex = c.rangesDone++;
        range.achievedOccupancy = fractionOfPercent((*values)[kAchievedOccupancyPct]);
        range.smCyclesActiveAvg = (*values)[kSmCyclesActiveAvg];
        range.smCyclesActiveMax = (*values)[kSmCyclesActiveMax];
        range.gpuTimeNs = (*values)[kGpuTimeNs];
        range.threadInstExecuted = (*values)[kThreadInstExecuted];
        range.instExecuted = (*values)[kInstExecuted];
        ranges_(range);
    }
    return {};
}

void KernelCounter::disable(Context& c) {
    if (c.running) {
        auto stop = cuptiParams<CUpti_RangeProfiler_Stop_Params>(
            CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
        stop.pRangeProfilerObject = c.object;
        (void)cuptiRangeProfilerStop(&stop);
        c.running = false;
    }
    if (c.object != nullptr) {
        auto params = cuptiParams<CUpti_RangeProfiler_Disable_Params>(
            CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
        params.pRangeProfilerObject = c.object;
        (void)cuptiRangeProfilerDisable(&params);
        c.object = nullptr;
    }
    c.host.reset();
}

void KernelCounter::failed(Context& c, const Error& error) {
    c.failed = true;
    disable(c);
    if (!reportedFailure_) {
        reportedFailure_ = true;
        messages_(isPrivilegeError(error) || error.code == Error::Code::Unsupported
                      ? record::MessageSeverity::CountersUnavailable
                      : record::MessageSeverity::Error,
                  "achieved occupancy: " + error.message);
    }
}

} // namespace slicescope::cuda
