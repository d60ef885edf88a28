#include "synthetictrace.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <ctime>
#include <random>
#include <string>

namespace slicescope::bench {

namespace {

using trace::Activity;
using trace::ActivityKind;

constexpr std::int64_t kEpochNs = 1'700'000'000'000'000'000; // CUPTI-like timestamps
constexpr std::array<std::uint32_t, 3> kKernelStreams = {7, 13, 14};
constexpr std::uint32_t kCopyStream = 7;

constexpr std::array<const char*, 6> kKernelNames = {
    "void gemm_tile_kernel<double, 128, 64>(int, int, int, double const*, double const*, double*)",
    "void reduce_sum_kernel<float, 256>(float const*, float*, unsigned long)",
    "elementwise_broadcast_kernel(double const*, double const*, double*, unsigned long)",
    "layer_norm_forward_kernel(float const*, float*, float const*, float const*, int)",
    "softmax_warp_forward(float*, float const*, int, int)",
    "scatter_add_kernel(int const*, float const*, float*, int)",
};

// Builds one run's activities; stops at exactly `count`.
class RunGenerator {
  public:
    RunGenerator(trace::Run& run, std::size_t count, std::uint64_t seed)
        : run_(run), names_(run), count_(count), random_(seed) {
        apiMemcpy_ = names_.intern("cudaMemcpyAsync");
        apiLaunch_ = names_.intern("cudaLaunchKernel");
        apiSync_ = names_.intern("cudaStreamSynchronize");
        verify_ = names_.intern("verify batch");
        checkpoint_ = names_.intern("write checkpoint");
        for (const char* name : kKernelNames) {
            kernels_.push_back(names_.intern(name));
        }
    }

    void generate(std::int64_t startNs) {
        run_.activities.reserve(count_);
        std::int64_t t = startNs;
        std::int64_t verifyFree = startNs;
        std::array<std::int64_t, 3> streamFree{startNs, startNs, startNs};
        std::uint32_t correlation = 1;
        for (std::uint64_t iteration = 0; !full(); ++iteration) {
            // HtoD: the API call, then the copy once the stream is free.
            const std::uint64_t bytes = std::uint64_t(64) << 10 << uniform(0, 6); // 64 KiB .. 4 MiB
            t = api(apiMemcpy_, t, correlation);
            std::int64_t copyEnd =
                copy(ActivityKind::HtoD, bytes, std::max(t, streamFree[0]), correlation++);
            streamFree[0] = copyEnd;
            // Three kernels on three streams; the first waits for the copy (same stream).
            std::int64_t deviceDone = copyEnd;
            for (std::size_t k = 0; k < kKernelStreams.size() && !full(); ++k) {
                t = api(apiLaunch_, t, correlation);
                const bool longOne = iteration % 2851 == 2850 && k == 1;
                const std::int64_t duration =
                    longOne ? uniform(5'000'000, 40'000'000) : kernelDurationNs();
                const std::int64_t begin = std::max(t + 1'500, streamFree[k]);
                streamFree[k] = kernel(k, begin, duration, bytes, correlation++);
                deviceDone = std::max(deviceDone, streamFree[k]);
            }
            // DtoH after the first stream's kernel; then the host waits for everything.
            t = api(apiMemcpy_, t, correlation);
            copyEnd = copy(ActivityKind::DtoH, bytes, std::max(t, streamFree[0]), correlation++);
            streamFree[0] = copyEnd;
            deviceDone = std::max(deviceDone, copyEnd);
            const std::int64_t syncEnd = std::max(t + 1'000, deviceDone + 2'000);
            push(ActivityKind::Api, t, syncEnd, apiSync_, 0, 0, correlation++);
            t = syncEnd;
            // Host thread 1 checks the batch; rarely it writes a long checkpoint.
            const bool checkpoint = iteration % 7919 == 7918;
            const std::int64_t verifyStart = std::max(verifyFree, t);
            verifyFree = verifyStart +
                         (checkpoint ? uniform(100'000'000, 180'000'000) : uniform(8'000, 45'000));
            push(ActivityKind::Host, verifyStart, verifyFree, checkpoint ? checkpoint_ : verify_, 1,
                 0, 0);
            t += uniform(1'000, 20'000);
        }
    }

  private:
    bool full() const { return run_.activities.size() >= count_; }

    std::int64_t uniform(std::int64_t lo, std::int64_t hi) {
        return std::uniform_int_distribution<std::int64_t>(lo, hi)(random_);
    }
    std::int64_t kernelDurationNs() {
        // Log-normal around 15 us: most kernels short, a tail to a few hundred microseconds.
        const double us = std::exp(std::normal_distribution<double>(std::log(15.0), 0.9)(random_));
        return std::max<std::int64_t>(1'500, std::int64_t(us * 1'000));
    }

    Activity* push(ActivityKind kind, std::int64_t startNs, std::int64_t endNs, std::uint32_t name,
                   std::uint32_t thread, std::uint32_t stream, std::uint32_t correlation) {
        if (full()) {
            return nullptr;
        }
        Activity& a = run_.activities.emplace_back();
        a.kind = kind;
        a.startNs = startNs;
        a.endNs = endNs;
        a.nameId = name;
        a.threadId = thread;
        a.stream = stream;
        a.correlationId = correlation;
        return &a;
    }
    // An API call on host thread 0 starting a little after t; returns its end.
    std::int64_t api(std::uint32_t name, std::int64_t t, std::uint32_t correlation) {
        const std::int64_t begin = t + uniform(300, 2'000);
        const std::int64_t end = begin + uniform(2'000, 7'000);
        push(ActivityKind::Api, begin, end, name, 0, 0, correlation);
        return end;
    }
    std::int64_t copy(ActivityKind kind, std::uint64_t bytes, std::int64_t startNs,
                      std::uint32_t correlation) {
        // Pageable copies at 9..13 GB/s (bytes per ns) plus a fixed 3 us.
        const double gbps = double(uniform(9'000, 13'000)) / 1'000.0;
        const std::int64_t end = startNs + 3'000 + std::int64_t(double(bytes) / gbps);
        if (Activity* a = push(kind, startNs, end, 0, 0, kCopyStream, correlation)) {
            a->bytes = bytes;
            a->srcKind = kind == ActivityKind::HtoD ? trace::MemoryKind::Pageable
                                                    : trace::MemoryKind::Device;
            a->dstKind = kind == ActivityKind::HtoD ? trace::MemoryKind::Device
                                                    : trace::MemoryKind::Pageable;
        }
        return end;
    }
    // As a real program launches them: each kernel has its own block size, registers and shared
    // memory; its grid covers the batch (one thread per double).
    std::int64_t kernel(std::size_t streamIndex, std::int64_t startNs, std::int64_t durationNs,
                        std::uint64_t bytes, std::uint32_t correlation) {
        const std::int64_t end = startNs + durationNs;
        const std::size_t which = std::size_t(uniform(0, std::int64_t(kernels_.size()) - 1));
        if (Activity* a = push(ActivityKind::Kernel, startNs, end, kernels_[which], 0,
                               kKernelStreams[streamIndex], correlation)) {
            const std::uint32_t blockThreads = std::uint32_t(128) << (which % 3);
            a->block = Dim3{blockThreads, 1, 1};
            a->grid = Dim3{std::uint32_t((bytes / 8 + blockThreads - 1) / blockThreads), 1, 1};
            a->registersPerThread = std::uint16_t(24 + 8 * which);
            a->staticSharedBytes = std::uint32_t(which % 2) * 4096;
            a->theoreticalOccupancy = which < 3 ? 1.0f : 0.5f;
        }
        return end;
    }

    trace::Run& run_;
    trace::NameTable names_;
    std::size_t count_;
    std::mt19937_64 random_;
    std::uint32_t apiMemcpy_ = 0, apiLaunch_ = 0, apiSync_ = 0, verify_ = 0, checkpoint_ = 0;
    std::vector<std::uint32_t> kernels_;
};

std::string nowUtc() {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

device::DeviceSpec syntheticDevice() {
    device::DeviceSpec d;
    d.id = "synthetic";
    d.name = "synthetic device (no measurement)";
    return d;
}

} // namespace

trace::Trace makeSyntheticTrace(const SyntheticOptions& options) {
    trace::Trace t;
    t.generator = "slicescope-bench-timeline (synthetic)";
    const int runs = std::max(1, options.runs);
    const std::size_t perRun = options.events / std::size_t(runs);
    std::size_t left = options.events;
    t.runs.resize(std::size_t(runs));
    for (int r = 0; r < runs; ++r) {
        trace::Run& run = t.runs[std::size_t(r)];
        const std::size_t count = r == runs - 1 ? left : perRun;
        left -= count;
        run.id = "synthetic-" + std::to_string(r + 1);
        run.strategy = "recorded";
        run.mode = trace::RunMode::Recorded;
        run.device = syntheticDevice();
        run.command =
            "slicescope-bench-timeline --events " + std::to_string(options.events) + " (synthetic)";
        run.createdAt = nowUtc();
        run.notes.push_back("Synthetic trace generated by slicescope-bench-timeline for "
                            "benchmarking: the activities "
                            "are invented, not measured.");
        // Runs one after another, 1 s apart, each with its own stream of random numbers.
        RunGenerator generator(run, count, options.seed * 1'000'003 + std::uint64_t(r));
        const std::int64_t begin =
            r == 0 ? kEpochNs : t.runs[std::size_t(r - 1)].endNs() + 1'000'000'000;
        generator.generate(begin);
        run.wallNs = run.endNs() - run.beginNs();
    }
    return t;
}

} // namespace slicescope::bench
