// Large byte buffers of the input layer (stream windows, the parser's buffer, read-ahead
// slots): anonymous mappings that ask for transparent huge pages, so a fresh buffer's first
// touch costs one page fault per 2 MiB instead of one per 4 KiB. A pipe's 256 MiB windows
// otherwise cost 131,072 faults each, taken by the thread that fills them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

namespace warpmatch::io {

/// An owned, uninitialised buffer of `size` bytes (not zeroed: pages cost nothing until
/// touched). Movable, like unique_ptr<uint8_t[]>; get() is null when empty.
class LargeBuffer {
 public:
  LargeBuffer() = default;
  explicit LargeBuffer(std::size_t size);
  LargeBuffer(LargeBuffer&& other) noexcept { swap(other); }
  LargeBuffer& operator=(LargeBuffer&& other) noexcept {
    LargeBuffer(std::move(other)).swap(*this);
    return *this;
  }
  LargeBuffer(const LargeBuffer&) = delete;
  LargeBuffer& operator=(const LargeBuffer&) = delete;
  ~LargeBuffer();

  std::uint8_t* get() const { return data_; }
  std::size_t size() const { return size_; }
  void reset() { LargeBuffer().swap(*this); }

 private:
  void swap(LargeBuffer& other) noexcept;
  std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t mapped_ = 0;  // bytes mapped at data_ (size_ rounded up)
};

}  // namespace warpmatch::io
