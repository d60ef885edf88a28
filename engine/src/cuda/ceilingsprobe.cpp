// The roofline's measured ceilings (slicescope/backend/ceilingsprobe.h): short copies and an
// FMA-bound kernel timed with CUDA events, in the process's primary context.
#include "slicescope/backend/ceilingsprobe.h"

#include "cudacheck.h"
#include "kernels/kerneltable.h"

#include <algorithm>
#include <cstdlib>
#include <cuda_runtime_api.h>
#include <functional>
#include <memory>

namespace slicescope::backend {

namespace {

constexpr std::size_t kDeviceCopyBytes = std::size_t(256) << 20;
constexpr std::size_t kHostCopyBytes = std::size_t(64) << 20;
constexpr int kTries = 3;
constexpr std::uint32_t kFmaSteps = 4096;

// Frees what it holds when the probe returns, on every path.
struct Buffers {
    void* deviceA = nullptr;
    void* deviceB = nullptr;
    void* pinned = nullptr;
    void* pageable = nullptr;
    cudaEvent_t start = nullptr;
    cudaEvent_t stop = nullptr;
    ~Buffers() {
        (void)cudaFree(deviceA);
        (void)cudaFree(deviceB);
        (void)cudaFreeHost(pinned);
        std::free(pageable);
        if (start != nullptr) {
            (void)cudaEventDestroy(start);
        }
        if (stop != nullptr) {
            (void)cudaEventDestroy(stop);
        }
    }
};

// The shortest of kTries timings of work (after one untimed warm-up), in seconds.
Result<double> bestSeconds(Buffers& b, const std::function<cudaError_t()>& work) {
    CUDA_CHECK(work());
    CUDA_CHECK(cudaDeviceSynchronize());
    float best = 0;
    for (int i = 0; i < kTries; ++i) {
        CUDA_CHECK(cudaEventRecord(b.start));
        CUDA_CHECK(work());
        CUDA_CHECK(cudaEventRecord(b.stop));
        CUDA_CHECK(cudaEventSynchronize(b.stop));
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, b.start, b.stop));
        best = i == 0 ? ms : std::min(best, ms);
    }
    if (best <= 0) {
        return fail(Error::Code::Internal, "a ceiling measurement took no measurable time");
    }
    return double(best) * 1e-3;
}

} // namespace

Result<trace::Ceilings> measureCeilings(int deviceIndex) {
    CUDA_CHECK(cudaSetDevice(deviceIndex));
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, deviceIndex));
    Buffers b;
    CUDA_CHECK(cudaEventCreate(&b.start));
    CUDA_CHECK(cudaEventCreate(&b.stop));
    CUDA_CHECK(cudaMalloc(&b.deviceA, kDeviceCopyBytes));
    CUDA_CHECK(cudaMalloc(&b.deviceB, kDeviceCopyBytes));
    CUDA_CHECK(cudaMallocHost(&b.pinned, kHostCopyBytes));
    b.pageable = std::malloc(kHostCopyBytes);
    if (b.pageable == nullptr) {
        return fail(Error::Code::InsufficientMemory, "no host memory for the ceilings' copies");
    }
    CUDA_CHECK(cudaMemset(b.deviceA, 1, kDeviceCopyBytes));
    std::fill_n(static_cast<char*>(b.pageable), kHostCopyBytes, char(1));
    std::fill_n(static_cast<char*>(b.pinned), kHostCopyBytes, char(1));

    trace::Ceilings c;
    c.source = "measured";
    const auto gbps = [](double bytes, double seconds) { return bytes / seconds * 1e-9; };
    const auto copy = [&](void* to, const void* from, std::size_t bytes, cudaMemcpyKind kind) {
        return bestSeconds(b, [=] { return cudaMemcpy(to, from, bytes, kind); });
    };
    // A device-to-device copy reads and writes every byte.
    auto dtod = copy(b.deviceB, b.deviceA, kDeviceCopyBytes, cudaMemcpyDeviceToDevice);
    auto pinnedIn = copy(b.deviceB, b.pinned, kHostCopyBytes, cudaMemcpyHostToDevice);
    auto pinnedOut = copy(b.pinned, b.deviceB, kHostCopyBytes, cudaMemcpyDeviceToHost);
    auto pageableIn = copy(b.deviceB, b.pageable, kHostCopyBytes, cudaMemcpyHostToDevice);
    auto pageableOut = copy(b.pageable, b.deviceB, kHostCopyBytes, cudaMemcpyDeviceToHost);
    for (auto* r : {&dtod, &pinnedIn, &pinnedOut, &pageableIn, &pageableOut}) {
        if (!*r) {
            return tl::unexpected(r->error());
        }
    }
    c.dramGBps = gbps(2.0 * kDeviceCopyBytes, *dtod);
    c.pinnedHtoDGBps = gbps(kHostCopyBytes, *pinnedIn);
    c.pinnedDtoHGBps = gbps(kHostCopyBytes, *pinnedOut);
    c.pageableHtoDGBps = gbps(kHostCopyBytes, *pageableIn);
    c.pageableDtoHGBps = gbps(kHostCopyBytes, *pageableOut);

    // Enough resident blocks to fill every SM several times over.
    const unsigned blockThreads = 256;
    const unsigned blocks = unsigned(prop.multiProcessorCount) * 8;
    kernels::KernelArgs args;
    args.cv = b.deviceA;
    args.workPerElement = kFmaSteps;
    const double flops = 2.0 * kernels::kFmaPeakChains * double(kFmaSteps) * blocks * blockThreads;
    const auto& entry = kernels::kernelEntry(kernels::Family::FmaPeak);
    for (const auto& [kernel, target] :
         {std::pair{entry.f64, &c.fp64Gflops}, std::pair{entry.f32, &c.fp32Gflops}}) {
        void* params[] = {&args};
        auto seconds = bestSeconds(b, [&, kernel = kernel] {
            return cudaLaunchKernel(kernel, dim3(blocks), dim3(blockThreads), params, 0, nullptr);
        });
        if (!seconds) {
            return tl::unexpected(seconds.error());
        }
        *target = flops / *seconds * 1e-9;
    }
    return c;
}

} // namespace slicescope::backend
