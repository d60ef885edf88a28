#include "activitybufferpool.h"

#include <new>

namespace slicescope::cuda {

namespace {
std::uint8_t* allocateBuffer(std::size_t bytes) {
    return static_cast<std::uint8_t*>(
        ::operator new(bytes, std::align_val_t(ActivityBufferPool::kAlignment), std::nothrow));
}
void freeBuffer(std::uint8_t* buffer) {
    ::operator delete(buffer, std::align_val_t(ActivityBufferPool::kAlignment));
}
} // namespace

ActivityBufferPool::ActivityBufferPool(std::size_t bufferBytes, std::size_t maxBuffers)
    : bufferBytes_(bufferBytes), maxBuffers_(maxBuffers) {
    free_.reserve(maxBuffers_); // release() then never allocates inside a CUPTI callback
}

ActivityBufferPool::~ActivityBufferPool() {
    // Buffers still out belong to CUPTI; the owner flushes before destroying the pool.
    for (auto* buffer : free_) {
        freeBuffer(buffer);
    }
}

std::uint8_t* ActivityBufferPool::acquire() {
    const std::lock_guard lock(mutex_);
    if (!free_.empty()) {
        auto* buffer = free_.back();
        free_.pop_back();
        ++outstanding_;
        return buffer;
    }
    if (allocated_ >= maxBuffers_) {
        ++refused_;
        return nullptr;
    }
    auto* buffer = allocateBuffer(bufferBytes_);
    if (buffer == nullptr) {
        ++refused_;
        return nullptr;
    }
    ++allocated_;
    ++outstanding_;
    return buffer;
}

void ActivityBufferPool::release(std::uint8_t* buffer) {
    if (buffer == nullptr) {
        return;
    }
    const std::lock_guard lock(mutex_);
    free_.push_back(buffer);
    --outstanding_;
}

void ActivityBufferPool::freeOrphan(std::uint8_t* buffer) {
    freeBuffer(buffer);
}

std::size_t ActivityBufferPool::outstanding() const {
    const std::lock_guard lock(mutex_);
    return outstanding_;
}

std::size_t ActivityBufferPool::allocated() const {
    const std::lock_guard lock(mutex_);
    return allocated_;
}

std::uint64_t ActivityBufferPool::refused() const {
    const std::lock_guard lock(mutex_);
    return refused_;
}

} // namespace slicescope::cuda
