#include "gpuprobes.h"

#include "cudacheck.h"
#include "cudadevice.h"
#include "cuptiactivitycollector.h"
#include "gpusession.h"
#include "kernels/kernelargs.h"
#include "strategykernel.h"

#include <algorithm>
#include <cuda_runtime_api.h>
#include <limits>
#include <memory>
#include <vector>

namespace slicescope::cuda::probes {

namespace {

struct Event {
    cudaEvent_t event = nullptr;
    Event() = default;
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    ~Event() {
        if (event != nullptr) {
            (void)cudaEventDestroy(event);
        }
    }
};

struct DeviceMemory {
    void* ptr = nullptr;
    DeviceMemory() = default;
    DeviceMemory(const DeviceMemory&) = delete;
    DeviceMemory& operator=(const DeviceMemory&) = delete;
    ~DeviceMemory() {
        if (ptr != nullptr) {
            (void)cudaFree(ptr);
        }
    }
};

struct PinnedMemory {
    void* ptr = nullptr;
    PinnedMemory() = default;
    PinnedMemory(const PinnedMemory&) = delete;
    PinnedMemory& operator=(const PinnedMemory&) = delete;
    ~PinnedMemory() {
        if (ptr != nullptr) {
            (void)cudaFreeHost(ptr);
        }
    }
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty()      ? 0.0
           : v.size() % 2 ? v[v.size() / 2]
                          : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// Times `copy` with events `repeats` times after one warm-up; returns the median in seconds.
template <typename Copy> Result<double> medianSeconds(int repeats, Copy copy) {
    Event start, stop;
    CUDA_CHECK(cudaEventCreate(&start.event));
    CUDA_CHECK(cudaEventCreate(&stop.event));
    CUDA_CHECK(copy());
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<double> seconds;
    for (int i = 0; i < repeats; ++i) {
        CUDA_CHECK(cudaEventRecord(start.event, nullptr));
        CUDA_CHECK(copy());
        CUDA_CHECK(cudaEventRecord(stop.event, nullptr));
        CUDA_CHECK(cudaEventSynchronize(stop.event));
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start.event, stop.event));
        seconds.push_back(ms / 1e3);
    }
    return median(seconds);
}

} // namespace

Result<OccupancyComparison> compareOccupancy(int deviceIndex, strategy::StrategyId id,
                                             problem::Dtype dtype, std::uint32_t blockThreads) {
    auto device = describe(deviceIndex);
    if (!device) {
        return tl::unexpected(device.error());
    }
    CUDA_CHECK(cudaSetDevice(deviceIndex));
    const void* kernel = strategyKernel(id, dtype);
    cudaFuncAttributes attributes{};
    CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
    auto check = crossCheckOccupancy(*device, kernel, blockThreads,
                                     std::uint32_t(attributes.numRegs), attributes.sharedSizeBytes);
    if (!check) {
        return tl::unexpected(check.error());
    }
    OccupancyComparison out;
    out.blockThreads = blockThreads;
    out.registersPerThread = std::uint32_t(attributes.numRegs);
    out.cudaActiveBlocksPerSm = check->cudaActiveBlocksPerSm;
    out.calculatorActiveBlocksPerSm = check->calculatorActiveBlocksPerSm;
    out.calculatorError = check->calculatorError;
    return out;
}

Result<std::uint32_t> kernelMaxThreadsPerBlock(int deviceIndex, strategy::StrategyId id,
                                               problem::Dtype dtype) {
    CUDA_CHECK(cudaSetDevice(deviceIndex));
    cudaFuncAttributes attributes{};
    CUDA_CHECK(cudaFuncGetAttributes(&attributes, strategyKernel(id, dtype)));
    return std::uint32_t(attributes.maxThreadsPerBlock);
}

bool hasCompiledKernel(strategy::StrategyId id, problem::Dtype dtype) {
    return strategyKernel(id, dtype) != nullptr;
}

Result<strategy::LaunchLimits> launchLimits(int deviceIndex, strategy::StrategyId id,
                                            problem::Dtype dtype,
                                            const strategy::BlockOption& block) {
    CUDA_CHECK(cudaSetDevice(deviceIndex));
    const void* kernel = strategyKernel(id, dtype);
    cudaFuncAttributes attributes{};
    CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
    return cuda::launchLimits(kernel, attributes, deviceIndex, block);
}

Result<double> deviceCopyGBps(int deviceIndex, std::uint64_t bytes, int repeats) {
    CUDA_CHECK(cudaSetDevice(deviceIndex));
    DeviceMemory from, to;
    CUDA_CHECK(cudaMalloc(&from.ptr, bytes));
    CUDA_CHECK(cudaMalloc(&to.ptr, bytes));
    CUDA_CHECK(cudaMemset(from.ptr, 0x3f, bytes));
    auto s = medianSeconds(
        repeats, [&] { return cudaMemcpy(to.ptr, from.ptr, bytes, cudaMemcpyDeviceToDevice); });
    if (!s) {
        return tl::unexpected(s.error());
    }
    return 2.0 * double(bytes) / *s / 1e9;
}

Result<double> pinnedHtoDGBps(int deviceIndex, std::uint64_t bytes, int repeats) {
    CUDA_CHECK(cudaSetDevice(deviceIndex));
    PinnedMemory host;
    DeviceMemory device;
    CUDA_CHECK(cudaMallocHost(&host.ptr, bytes));
    CUDA_CHECK(cudaMalloc(&device.ptr, bytes));
    std::fill_n(static_cast<unsigned char*>(host.ptr), bytes, 0x3f);
    auto s = medianSeconds(
        repeats, [&] { return cudaMemcpy(device.ptr, host.ptr, bytes, cudaMemcpyHostToDevice); });
    if (!s) {
        return tl::unexpected(s.error());
    }
    return double(bytes) / *s / 1e9;
}

Result<std::vector<KernelTiming>>
kernelTimingCuptiVsEvents(int deviceIndex, const problem::Problem& problem,
                          std::uint32_t blockThreads, int launches, std::uint64_t gridBlocks) {
    auto device = describe(deviceIndex);
    if (!device) {
        return tl::unexpected(device.error());
    }
    auto collector = CuptiActivityCollector::start();
    if (!collector) {
        return tl::unexpected(collector.error());
    }
    CUDA_CHECK(cudaSetDevice(deviceIndex));
    const auto id = strategy::StrategyId::ElementwiseBroadcast;
    const void* kernel = strategyKernel(id, problem.dtype);
    cudaFuncAttributes attributes{};
    CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
    strategy::LaunchLimits limits;
    limits.kernelMaxThreadsPerBlock = std::uint32_t(attributes.maxThreadsPerBlock);
    auto geometry = strategy::launchGeometry(
        id, problem, {strategy::BlockOption::Mode::Explicit, blockThreads}, limits);
    if (!geometry) {
        return tl::unexpected(geometry.error());
    }
    DeviceMemory discount, multBy, cv;
    CUDA_CHECK(cudaMalloc(&discount.ptr, problem.arrayBytes()));
    CUDA_CHECK(cudaMalloc(&multBy.ptr, problem.multByBytes()));
    CUDA_CHECK(cudaMalloc(&cv.ptr, problem.arrayBytes()));
    CUDA_CHECK(cudaMemset(discount.ptr, 0x3f, problem.arrayBytes())); // not zeros: ~0.49 as f64
    CUDA_CHECK(cudaMemset(multBy.ptr, 0x3f, problem.multByBytes()));
    kernels::KernelArgs args;
    args.discount = discount.ptr;
    args.multBy = multBy.ptr;
    args.cv = cv.ptr;
    args.r = problem.shape.r;
    args.c = problem.shape.c;
    args.n = problem.shape.n;
    args.workers = geometry->decomposition.workers;
    args.elementsPerWorker = geometry->decomposition.elementsPerWorker;
    args.workPerElement = problem.workPerElement;
    args.vectorWidth = geometry->vectorWidth;
    void* params[] = {&args};
    if (gridBlocks > std::uint64_t(std::numeric_limits<int>::max())) {
        return fail(Error::Code::OutOfRange,
                    std::to_string(gridBlocks) + " blocks is past the grid limit");
    }
    const dim3 grid(gridBlocks > 0 ? unsigned(gridBlocks) : geometry->grid.x),
        block(geometry->block.x);
    const auto count = static_cast<std::size_t>(launches);
    std::vector<Event> starts(count), stops(count);
    // One warm-up launch, not compared.
    CUDA_CHECK(cudaLaunchKernel(kernel, grid, block, params, 0, nullptr));
    CUDA_CHECK(cudaDeviceSynchronize());
    (void)(*collector)->flush();
    ActivityRecordDecoder decoder;
    (*collector)->drain(decoder, [](const DecodedActivity&) {});
    for (int i = 0; i < launches; ++i) {
        CUDA_CHECK(cudaEventCreate(&starts[std::size_t(i)].event));
        CUDA_CHECK(cudaEventCreate(&stops[std::size_t(i)].event));
        CUDA_CHECK(cudaEventRecord(starts[std::size_t(i)].event, nullptr));
        CUDA_CHECK(cudaLaunchKernel(kernel, grid, block, params, 0, nullptr));
        CUDA_CHECK(cudaEventRecord(stops[std::size_t(i)].event, nullptr));
        CUDA_CHECK(cudaEventSynchronize(stops[std::size_t(i)].event));
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    if (auto flushed = (*collector)->flush(); !flushed) {
        return tl::unexpected(flushed.error());
    }
    std::vector<std::pair<std::int64_t, std::int64_t>> kernelsByStart;
    (*collector)->drain(decoder, [&](const DecodedActivity& a) {
        if (a.activity.kind == trace::ActivityKind::Kernel && a.timed) {
            kernelsByStart.emplace_back(a.activity.startNs, a.activity.durationNs());
        }
    });
    std::sort(kernelsByStart.begin(), kernelsByStart.end());
    if (kernelsByStart.size() != std::size_t(launches)) {
        return fail(Error::Code::Internal, "expected " + std::to_string(launches) +
                                               " kernel records, got " +
                                               std::to_string(kernelsByStart.size()));
    }
    std::vector<KernelTiming> out;
    for (int i = 0; i < launches; ++i) {
        float ms = 0;
        CUDA_CHECK(
            cudaEventElapsedTime(&ms, starts[std::size_t(i)].event, stops[std::size_t(i)].event));
        out.push_back({kernelsByStart[std::size_t(i)].second, std::int64_t(double(ms) * 1e6)});
    }
    return out;
}

} // namespace slicescope::cuda::probes
