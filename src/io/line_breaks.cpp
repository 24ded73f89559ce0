// Line breaks in bulk (see line_breaks.hpp).
#include "io/line_breaks.hpp"

#include <cstring>

namespace warpmatch::io::detail {

// byte_census: byte-wide lanes, 64 at a time (the compiler vectorises the lane loop; a single size_t
// counter was widened to 8 lanes of 64 bits), the counters folded every 255 rounds.
[[gnu::target_clones("arch=x86-64-v4", "avx2", "default")]]
ByteCensus byte_census(const std::uint8_t* p, std::size_t n) {
  constexpr std::size_t kLanes = 64, kRounds = 255;
  ByteCensus c;
  std::uint8_t gt[kLanes] = {}, cr[kLanes] = {};
  std::size_t j = 0;
  while (n - j >= kLanes) {
    std::uint8_t nl[kLanes] = {};
    for (std::size_t r = 0; r < kRounds && n - j >= kLanes; ++r, j += kLanes)
      for (std::size_t k = 0; k < kLanes; ++k) {
        const std::uint8_t b = p[j + k];
        nl[k] += b == '\n';
        gt[k] |= b == '>';
        cr[k] |= b == '\r';
      }
    for (std::uint8_t v : nl) c.newlines += v;
  }
  for (std::size_t k = 0; k < kLanes; ++k) c.has_gt |= gt[k] != 0, c.has_cr |= cr[k] != 0;
  for (; j < n; ++j) c.newlines += p[j] == '\n', c.has_gt |= p[j] == '>', c.has_cr |= p[j] == '\r';
  return c;
}

// p[0, n) without its '\n' bytes into o, which has room for exactly what is kept (o_end); for
// text without '\r'. 64 bytes at a time, each run between line breaks copied as 64 bytes
// whose excess the next run overwrites: a few vector moves per line instead of a memchr and a
// memcpy call each (per 60-base line, those were most of the line removal's time). Returns
// the end of what it wrote.
std::uint8_t* copy_without_newlines(const std::uint8_t* p, std::size_t n, std::uint8_t* o, const std::uint8_t* o_end) {
  std::size_t j = 0;
  // While 128 bytes lie ahead in both: every 64-byte load and store stays inside.
  while (n - j >= 128 && o_end - o >= 128) {
    std::size_t from = 0;
    for (std::uint64_t bits = newline_bits(p + j); bits; bits &= bits - 1) {
      const auto at = static_cast<std::size_t>(std::countr_zero(bits));
      std::memcpy(o, p + j + from, 64);
      o += at - from;
      from = at + 1;
    }
    std::memcpy(o, p + j + from, 64);
    o += 64 - from;
    j += 64;
  }
  for (; j < n; ++j)
    if (p[j] != '\n') *o++ = p[j];
  return o;
}

}  // namespace warpmatch::io::detail
