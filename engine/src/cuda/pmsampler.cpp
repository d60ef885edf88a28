#include "pmsampler.h"

#include "cupticheck.h"

#include <cupti_activity.h>
#include <cupti_pmsampling.h>

namespace slicescope::cuda {

namespace {
constexpr std::size_t kHardwareBufferBytes = std::size_t(256) << 20;
// One decode reads every sample of a sampled span, so the counter data image must hold them all:
// on the H200 a decode that fills the image leaves nothing for the next one (a second decode after
// re-initialising the image ended at once with no samples), so what did not fit is lost. The
// image is sized for the span at decode time (pmDecodeCapacity), up to 50,000 samples: 0.5 s at
// 10 us and about 350 MB of image on the H200 (7 KB a sample); a longer span is cut short and
// says so. Beyond about 1.4 s the 256 MB hardware buffer itself fails the decode.
constexpr std::uint32_t kMaxSamplesPerDecode = 50'000;

std::int64_t cuptiNowNs() {
    std::uint64_t ts = 0;
    cuptiGetTimestamp(&ts);
    return std::int64_t(ts);
}
} // namespace

Result<std::unique_ptr<PmSampler>> PmSampler::create(int deviceIndex, int computeMajor,
                                                     int computeMinor, double clockMHz,
                                                     std::uint64_t intervalNs) {
    std::unique_ptr<PmSampler> sampler(new PmSampler());
    sampler->plan_ = pmTriggerPlan(computeMajor, computeMinor, clockMHz, intervalNs);
    auto init = ProfilerInitialization::acquire();
    if (!init) {
        return tl::unexpected(init.error());
    }
    sampler->initialization_ = *init;
    auto chip = chipName(deviceIndex);
    if (!chip) {
        return tl::unexpected(chip.error());
    }

    auto availability = cuptiParams<CUpti_PmSampling_GetCounterAvailability_Params>(
        CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE);
    availability.deviceIndex = std::size_t(deviceIndex);
    CUPTI_CHECK(cuptiPmSamplingGetCounterAvailability(&availability));
    std::vector<std::uint8_t> image(availability.counterAvailabilityImageSize);
    availability.pCounterAvailabilityImage = image.data();
    CUPTI_CHECK(cuptiPmSamplingGetCounterAvailability(&availability));

    auto host = ProfilerHost::create(CUPTI_PROFILER_TYPE_PM_SAMPLING, *chip, image,
                                     {"sm__warps_active.avg.pct_of_peak_sustained_elapsed"});
    if (!host) {
        return tl::unexpected(host.error());
    }
    sampler->host_ = std::move(*host);

    auto enable =
        cuptiParams<CUpti_PmSampling_Enable_Params>(CUpti_PmSampling_Enable_Params_STRUCT_SIZE);
    enable.deviceIndex = std::size_t(deviceIndex);
    CUPTI_CHECK(cuptiPmSamplingEnable(&enable));
    sampler->object_ = enable.pPmSamplingObject;

    const auto& config = sampler->host_->configImage();
    auto setConfig = cuptiParams<CUpti_PmSampling_SetConfig_Params>(
        CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE);
    setConfig.pPmSamplingObject = sampler->object_;
    setConfig.configSize = config.size();
    setConfig.pConfig = config.data();
    setConfig.hardwareBufferSize = kHardwareBufferBytes;
    setConfig.samplingInterval = sampler->plan_.interval;
    setConfig.triggerMode = sampler->plan_.trigger == PmTrigger::GpuTimeInterval
                                ? CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL
                                : CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_SYSCLK_INTERVAL;
    setConfig.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
    CUPTI_CHECK(cuptiPmSamplingSetConfig(&setConfig));

    sampler->intervalNs_ = intervalNs;
    return sampler;
}

PmSampler::~PmSampler() {
    if (object_ != nullptr) {
        auto params = cuptiParams<CUpti_PmSampling_Disable_Params>(
            CUpti_PmSampling_Disable_Params_STRUCT_SIZE);
        params.pPmSamplingObject = object_;
        (void)cuptiPmSamplingDisable(&params);
    }
}

Status PmSampler::start() {
    auto params =
        cuptiParams<CUpti_PmSampling_Start_Params>(CUpti_PmSampling_Start_Params_STRUCT_SIZE);
    params.pPmSamplingObject = object_;
    CUPTI_CHECK(cuptiPmSamplingStart(&params));
    dropFirst_ = true;
    startNs_ = cuptiNowNs();
    stopNs_ = startNs_;
    return {};
}

Status PmSampler::stop() {
    auto params =
        cuptiParams<CUpti_PmSampling_Stop_Params>(CUpti_PmSampling_Stop_Params_STRUCT_SIZE);
    params.pPmSamplingObject = object_;
    CUPTI_CHECK(cuptiPmSamplingStop(&params));
    stopNs_ = cuptiNowNs();
    return {};
}

Status PmSampler::prepareImage() {
    auto names = host_->metricPointers();
    auto size = cuptiParams<CUpti_PmSampling_GetCounterDataSize_Params>(
        CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE);
    size.pPmSamplingObject = object_;
    size.pMetricNames = names.data();
    size.numMetrics = names.size();
    size.maxSamples = pmDecodeCapacity(stopNs_ - startNs_, intervalNs_, kMaxSamplesPerDecode);
    CUPTI_CHECK(cuptiPmSamplingGetCounterDataSize(&size));
    counterData_.assign(size.counterDataSize, 0);
    auto init = cuptiParams<CUpti_PmSampling_CounterDataImage_Initialize_Params>(
        CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE);
    init.pPmSamplingObject = object_;
    init.counterDataSize = counterData_.size();
    init.pCounterData = counterData_.data();
    CUPTI_CHECK(cuptiPmSamplingCounterDataImageInitialize(&init));
    return {};
}

Result<std::vector<PmSample>> PmSampler::decode() {
    std::vector<PmSample> samples;
    if (auto prepared = prepareImage(); !prepared) {
        return tl::unexpected(prepared.error());
    }
    // The image is large (about 7 KB a sample): it lives for the decode only.
    struct Release {
        std::vector<std::uint8_t>& image;
        ~Release() { std::vector<std::uint8_t>().swap(image); }
    } release{counterData_};
    auto decode = cuptiParams<CUpti_PmSampling_DecodeData_Params>(
        CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE);
    decode.pPmSamplingObject = object_;
    decode.pCounterDataImage = counterData_.data();
    decode.counterDataImageSize = counterData_.size();
    CUPTI_CHECK(cuptiPmSamplingDecodeData(&decode));
    // A full image means samples were left undecoded, and they cannot be decoded later.
    overflowed_ = overflowed_ || decode.overflow != 0 ||
                  decode.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL;

    auto info = cuptiParams<CUpti_PmSampling_GetCounterDataInfo_Params>(
        CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE);
    info.pCounterDataImage = counterData_.data();
    info.counterDataImageSize = counterData_.size();
    CUPTI_CHECK(cuptiPmSamplingGetCounterDataInfo(&info));
    for (std::size_t i = 0; i < info.numCompletedSamples; ++i) {
        auto sample = cuptiParams<CUpti_PmSampling_CounterData_GetSampleInfo_Params>(
            CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE);
        sample.pPmSamplingObject = object_;
        sample.pCounterDataImage = counterData_.data();
        sample.counterDataImageSize = counterData_.size();
        sample.sampleIndex = i;
        CUPTI_CHECK(cuptiPmSamplingCounterDataGetSampleInfo(&sample));
        auto values = host_->evaluate(counterData_, i);
        if (!values) {
            return tl::unexpected(values.error());
        }
        if (dropFirst_) {
            dropFirst_ = false;
            continue;
        }
        // Clamped: a sample at a kernel's edge can read a little above 100 %.
        samples.push_back({std::int64_t(sample.startTimestamp), std::int64_t(sample.endTimestamp),
                           fractionOfPercent((*values)[0])});
    }
    return samples;
}

} // namespace slicescope::cuda
