#pragma once

// Memory for the bytes of a file being read whole (engine-internal; readTrace in tracejson.cpp).

#include <cstddef>
#include <string_view>

namespace slicescope::trace {

// A mapping of its own: nothing is zeroed before the read fills it, and the pages of a large one
// are asked to be huge ones (MADV_HUGEPAGE, where the kernel has them). Reading a 173 MB trace
// into a std::string spent longer zeroing it and faulting its 4 KiB pages in than the parser
// then took to read it (docs/reliability.md, "100,000 runs"). Move-only; running out of memory
// throws std::bad_alloc, as a std::string would.
class FileBuffer {
  public:
    FileBuffer() = default;
    ~FileBuffer();
    FileBuffer(FileBuffer&& other) noexcept;
    FileBuffer& operator=(FileBuffer&& other) noexcept;
    FileBuffer(const FileBuffer&) = delete;
    FileBuffer& operator=(const FileBuffer&) = delete;

    // Room for at least bytes, keeping the first size() bytes.
    void reserve(std::size_t bytes);
    std::size_t capacity() const { return capacity_; }
    char* data() { return data_; }
    // The bytes read so far: set by the reader, at most capacity().
    std::size_t size() const { return size_; }
    void setSize(std::size_t size) { size_ = size <= capacity_ ? size : capacity_; }
    std::string_view view() const { return {data_, size_}; }

  private:
    void release();

    char* data_ = nullptr;
    std::size_t size_ = 0;
    std::size_t capacity_ = 0; // what was mapped
};

} // namespace slicescope::trace
