#include "filebuffer.h"

#include <cstdint>
#include <cstring>
#include <new>
#include <sys/mman.h>
#include <unistd.h>
#include <utility>

namespace slicescope::trace {

namespace {

constexpr std::size_t kHugePage = std::size_t(2) << 20;

std::size_t pageSize() {
    static const std::size_t size = [] {
        const long page = ::sysconf(_SC_PAGESIZE);
        return page > 0 ? std::size_t(page) : std::size_t(4096);
    }();
    return size;
}

} // namespace

FileBuffer::~FileBuffer() {
    release();
}

FileBuffer::FileBuffer(FileBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)),
      capacity_(std::exchange(other.capacity_, 0)) {}

FileBuffer& FileBuffer::operator=(FileBuffer&& other) noexcept {
    if (this != &other) {
        release();
        data_ = std::exchange(other.data_, nullptr);
        size_ = std::exchange(other.size_, 0);
        capacity_ = std::exchange(other.capacity_, 0);
    }
    return *this;
}

void FileBuffer::release() {
    if (data_ != nullptr) {
        ::munmap(data_, capacity_);
    }
    data_ = nullptr;
    size_ = 0;
    capacity_ = 0;
}

void FileBuffer::reserve(std::size_t bytes) {
    if (bytes <= capacity_) {
        return;
    }
    // Whole pages; a large buffer in whole huge pages, so that its last one can be huge too.
    const std::size_t unit = bytes >= kHugePage ? kHugePage : pageSize();
    if (bytes > SIZE_MAX - unit) {
        throw std::bad_alloc();
    }
    const std::size_t capacity = (bytes + unit - 1) / unit * unit;
    void* mapped =
        ::mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) {
        throw std::bad_alloc();
    }
#ifdef MADV_HUGEPAGE
    if (capacity >= kHugePage) {
        ::madvise(mapped, capacity, MADV_HUGEPAGE); // a hint: without huge pages, small ones
    }
#endif
    auto* data = static_cast<char*>(mapped);
    if (size_ > 0) {
        std::memcpy(data, data_, size_);
    }
    const std::size_t size = size_;
    release();
    data_ = data;
    size_ = size;
    capacity_ = capacity;
}

} // namespace slicescope::trace
