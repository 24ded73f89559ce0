// CPU approximate search of a whole pattern set in one pass over the text (issue 15: many
// short primers, guides and barcodes). The text is cut into cache-sized blocks; each block is
// translated once into small class codes (text bytes that every pattern byte of the set
// treats alike share a class) and every pattern of the set runs over it:
//  - edit distance, m <= 64: Myers' bit-vector step with text sub-ranges, not pattern
//    positions, across the SIMD lanes (as Sassy does): 8 (AVX2) or 16 (AVX-512) lanes each
//    advance their own stretch of the block, so one step covers 8-16 text bytes;
//  - Hamming (any m): bit-sliced mismatch counters over 64 window starts per word and 4-8
//    words per vector, reading per-byte match bitmaps built once per block for the set.
// Longer edit-distance patterns run alone (cpu::approx_scan's blocked Myers).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "core/approx_pattern.hpp"

namespace warpmatch::cpu {

/// Longest edit-distance pattern of the shared pass (one 64-bit word per lane).
inline constexpr std::uint64_t kSetMaxEditPattern = 64;

/// How a scan runs the set's short patterns: the set pass, the pigeonhole seed filter
/// (approx_seed_filter.hpp) where the set and its queries qualify, or (automatic) whichever of
/// the two times faster on a sample of the text. Tests force one.
enum class SetRoute { automatic, set_pass, seed_filter };

class ApproxSet {
 public:
  /// Every pattern has the same flags (one matcher's options); none is empty. `isa` ("sse",
  /// "avx2", "avx512"; tests and benchmarks) forces an instruction set instead of the widest
  /// this CPU has; one the CPU lacks is an InvalidArgument.
  explicit ApproxSet(std::vector<core::ApproxPattern> patterns, std::string_view isa = {},
                     SetRoute route = SetRoute::automatic);
  ~ApproxSet();
  ApproxSet(ApproxSet&&) noexcept;
  ApproxSet& operator=(ApproxSet&&) noexcept;

  /// For each pattern i, the same ends as the single-pattern scan with queries[i] (every end
  /// with distance <= k ascending, or in best mode those at the pattern's minimum).
  /// threads <= 0: all hardware threads. query.chunk_ends (test hook) sets a lane's length.
  std::vector<std::vector<core::EndHit>> scan(ByteSpan text, const std::vector<core::ApproxQuery>& queries,
                                              int threads, std::atomic<std::uint64_t>* bytes_done = nullptr) const;

  std::size_t size() const;
  /// The instruction set its loops run on ("sse", "avx2" or "avx512").
  const char* isa() const;

  struct Compiled;  // tables built once (src/cpu/approx_set_cpu.cpp)

 private:
  std::unique_ptr<const Compiled> compiled_;
};

/// Whether this CPU runs the shared pass's loops of `isa` ("sse" always does).
bool approx_set_isa_available(std::string_view isa);

}  // namespace warpmatch::cpu
