#pragma once

// Buffers handed to CUPTI for activity records: a fixed size each, at most maxBuffers out at once,
// reused rather than freed. Acquire and release are O(1) and thread-safe, so CUPTI's buffer
// callbacks (which may run on CUPTI's own thread) can call them. When every buffer is out, acquire
// returns nullptr: CUPTI then drops records and counts them, which the run reports, instead of
// the process growing without bound (an injected recorder tracing a long program relies on this).
// No CUDA or CUPTI here, so the policy is unit-tested without a GPU.

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace slicescope::cuda {

class ActivityBufferPool {
  public:
    static constexpr std::size_t kAlignment = 8; // CUPTI requires 8-byte aligned buffers

    ActivityBufferPool(std::size_t bufferBytes, std::size_t maxBuffers);
    ~ActivityBufferPool();
    ActivityBufferPool(const ActivityBufferPool&) = delete;
    ActivityBufferPool& operator=(const ActivityBufferPool&) = delete;

    // A buffer of bufferBytes(), or nullptr when maxBuffers are out (counted in refused()).
    std::uint8_t* acquire();
    // Gives a buffer from acquire() back for reuse.
    void release(std::uint8_t* buffer);

    // Frees a buffer whose pool is gone (a late callback after its collector was destroyed).
    static void freeOrphan(std::uint8_t* buffer);

    std::size_t bufferBytes() const { return bufferBytes_; }
    std::size_t maxBuffers() const { return maxBuffers_; }
    std::size_t outstanding() const;
    std::size_t allocated() const;
    std::uint64_t refused() const;

  private:
    const std::size_t bufferBytes_;
    const std::size_t maxBuffers_;
    mutable std::mutex mutex_;
    std::vector<std::uint8_t*> free_;
    std::size_t allocated_ = 0;
    std::size_t outstanding_ = 0;
    std::uint64_t refused_ = 0;
};

} // namespace slicescope::cuda
