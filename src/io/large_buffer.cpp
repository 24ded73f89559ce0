// Huge-page buffers (see large_buffer.hpp).
#include "io/large_buffer.hpp"

#include <sys/mman.h>

#include <new>

namespace warpmatch::io {

namespace {
constexpr std::size_t kHugePage = std::size_t{2} << 20;
}

LargeBuffer::LargeBuffer(std::size_t size) : size_(size) {
  if (size == 0) return;
  // Small buffers are mapped as they are; large ones 2 MiB aligned (the kernel backs only
  // aligned 2 MiB ranges with huge pages), with the slack before and after unmapped.
  const bool huge = size >= kHugePage;
  const std::size_t length = huge ? (size + kHugePage - 1) / kHugePage * kHugePage : size;
  const std::size_t ask = huge ? length + kHugePage : length;
  void* p = ::mmap(nullptr, ask, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  auto* base = static_cast<std::uint8_t*>(p);
  if (huge) {
    const auto addr = reinterpret_cast<std::uintptr_t>(base);
    const std::size_t lead = (kHugePage - addr % kHugePage) % kHugePage;
    if (lead) ::munmap(base, lead);
    if (kHugePage - lead) ::munmap(base + lead + length, kHugePage - lead);
    base += lead;
    // Best effort: where huge pages are off ("never") this changes nothing.
    ::madvise(base, length, MADV_HUGEPAGE);
  }
  data_ = base;
  mapped_ = length;
}

LargeBuffer::~LargeBuffer() {
  if (data_) ::munmap(data_, mapped_);
}

void LargeBuffer::swap(LargeBuffer& other) noexcept {
  std::swap(data_, other.data_);
  std::swap(size_, other.size_);
  std::swap(mapped_, other.mapped_);
}

}  // namespace warpmatch::io
