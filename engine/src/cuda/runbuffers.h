#pragma once

// The buffers and the sampling guard one GPU run holds, each freed on every way out of the run,
// unless the device hung (then freeing would wait for the hung kernel).

#include "cudacheck.h"
#include "pmsampler.h"
#include "slicescope/backend/runrequest.h"

#include <cstdint>
#include <new>
#include <string>
#include <utility>

namespace slicescope::cuda {

// Set once a kernel outlives --kernel-timeout. From then on every CUDA free or stop would wait for
// that kernel, so buffers and samplers are abandoned instead: the process is about to end, and the
// driver reclaims everything with the context. Process-wide because the CUDA context is.
void markDeviceHung();
bool deviceHung();

// Host memory in one of the four modes. Managed and mapped buffers are also what the kernel uses.
class HostBuffer {
  public:
    HostBuffer() = default;
    HostBuffer(HostBuffer&& other) noexcept { *this = std::move(other); }
    HostBuffer& operator=(HostBuffer&& other) noexcept {
        std::swap(mode_, other.mode_);
        std::swap(host_, other.host_);
        std::swap(device_, other.device_);
        return *this;
    }
    ~HostBuffer() { reset(); }

    static Result<HostBuffer> allocate(backend::MemoryMode mode, std::uint64_t bytes) {
        HostBuffer b;
        b.mode_ = mode;
        switch (mode) {
        case backend::MemoryMode::Pageable:
            b.host_ = ::operator new(bytes, std::align_val_t(64), std::nothrow);
            if (b.host_ == nullptr) {
                return fail(Error::Code::InsufficientMemory, "could not allocate " +
                                                                 std::to_string(bytes >> 20) +
                                                                 " MiB of host memory");
            }
            break;
        case backend::MemoryMode::Pinned:
            CUDA_CHECK(cudaMallocHost(&b.host_, bytes));
            break;
        case backend::MemoryMode::Managed:
            CUDA_CHECK(cudaMallocManaged(&b.host_, bytes, cudaMemAttachGlobal));
            b.device_ = b.host_;
            break;
        case backend::MemoryMode::Mapped:
            CUDA_CHECK(cudaHostAlloc(&b.host_, bytes, cudaHostAllocMapped));
            CUDA_CHECK(cudaHostGetDevicePointer(&b.device_, b.host_, 0));
            break;
        }
        return b;
    }
    void reset() {
        if (host_ == nullptr) {
            return;
        }
        switch (mode_) {
        case backend::MemoryMode::Pageable:
            ::operator delete(host_, std::align_val_t(64));
            break;
        case backend::MemoryMode::Pinned:
        case backend::MemoryMode::Mapped:
            if (!deviceHung()) {
                (void)cudaFreeHost(host_);
            }
            break;
        case backend::MemoryMode::Managed:
            if (!deviceHung()) {
                (void)cudaFree(host_);
            }
            break;
        }
        host_ = device_ = nullptr;
    }
    template <typename T> T* host() const { return static_cast<T*>(host_); }
    void* device() const { return device_; } // managed and mapped only

  private:
    backend::MemoryMode mode_ = backend::MemoryMode::Pageable;
    void* host_ = nullptr;
    void* device_ = nullptr;
};

class DeviceBuffer {
  public:
    DeviceBuffer() = default;
    DeviceBuffer(DeviceBuffer&& other) noexcept { std::swap(ptr_, other.ptr_); }
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
        std::swap(ptr_, other.ptr_);
        return *this;
    }
    ~DeviceBuffer() { reset(); }
    static Result<DeviceBuffer> allocate(std::uint64_t bytes) {
        DeviceBuffer b;
        CUDA_CHECK(cudaMalloc(&b.ptr_, bytes));
        return b;
    }
    void reset() {
        if (ptr_ != nullptr && !deviceHung()) {
            (void)cudaFree(ptr_);
            ptr_ = nullptr;
        }
    }
    void* get() const { return ptr_; }

  private:
    void* ptr_ = nullptr;
};

// Stops PM sampling on every way out of a run.
class SamplingGuard {
  public:
    explicit SamplingGuard(PmSampler* sampler) : sampler_(sampler) {}
    ~SamplingGuard() { stop(); }
    SamplingGuard(const SamplingGuard&) = delete;
    SamplingGuard& operator=(const SamplingGuard&) = delete;
    void arm(PmSampler* sampler) { sampler_ = sampler; }
    void stop() {
        if (sampler_ != nullptr && !deviceHung()) {
            (void)sampler_->stop();
            sampler_ = nullptr;
        }
    }

  private:
    PmSampler* sampler_;
};

} // namespace slicescope::cuda
