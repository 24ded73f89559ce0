// Line breaks in bulk, for the FASTA/FASTQ parsers of the input layer (text_stream.cpp,
// short_records.cpp): a census of a span's line breaks and a copy of it without them, both
// a vector register's width at a time.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

#include <emmintrin.h>

namespace warpmatch::io::detail {

/// Ends a FASTA/FASTQ record's name (its header's first word).
inline bool is_blank(std::uint8_t c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r'; }

/// One pass over p[0, n): its '\n' bytes counted, and whether it holds a '>' or a '\r' at all.
struct ByteCensus {
  std::size_t newlines = 0;
  bool has_gt = false, has_cr = false;
};
ByteCensus byte_census(const std::uint8_t* p, std::size_t n);

/// The '\n' bytes of p[0, 64) as bits (SSE2, which every x86-64 has).
inline std::uint64_t newline_bits(const std::uint8_t* p) {
  const __m128i nl = _mm_set1_epi8('\n');
  std::uint64_t bits = 0;
  for (int k = 0; k < 4; ++k) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    bits |= std::uint64_t{static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl)))} << (16 * k);
  }
  return bits;
}

/// The '\n' bytes of p[0, n) front to back, 64 at a time: a few vector compares per short
/// line instead of a memchr call (a read's four lines were four calls, most of the parse).
class Newlines {
 public:
  static constexpr std::size_t kNone = SIZE_MAX;
  Newlines(const std::uint8_t* p, std::size_t n) : p_(p), n_(n) {}
  /// The first '\n' at or after `from`; kNone when there is none.
  std::size_t at_or_after(std::size_t from) {
    if (from >= n_) return kNone;
    std::size_t block = from & ~std::size_t{63};
    if (block != block_) load(block);
    std::uint64_t bits = bits_ & (~std::uint64_t{0} << (from & 63));
    while (bits == 0) {
      block += 64;
      if (block >= n_) return kNone;
      load(block);
      bits = bits_;
    }
    return block + static_cast<std::size_t>(std::countr_zero(bits));
  }

 private:
  void load(std::size_t block) {
    block_ = block;
    if (n_ - block >= 64) {
      bits_ = newline_bits(p_ + block);
      return;
    }
    bits_ = 0;
    for (std::size_t k = block; k < n_; ++k) bits_ |= std::uint64_t{p_[k] == '\n'} << (k - block);
  }
  const std::uint8_t* p_;
  std::size_t n_;
  std::size_t block_ = kNone;
  std::uint64_t bits_ = 0;
};

/// p[0, n) without its '\n' bytes into o, which has room for exactly what is kept (o_end); for
/// text without '\r'. Returns the end of what it wrote.
std::uint8_t* copy_without_newlines(const std::uint8_t* p, std::size_t n, std::uint8_t* o, const std::uint8_t* o_end);

}  // namespace warpmatch::io::detail
