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
  /// `route`: automatic decides on this text (choose_route); a caller scanning one text in
  /// pieces passes the route it chose once for the whole text.
  std::vector<std::vector<core::EndHit>> scan(ByteSpan text, const std::vector<core::ApproxQuery>& queries,
                                              int threads, std::atomic<std::uint64_t>* bytes_done = nullptr,
                                              SetRoute route = SetRoute::automatic) const;

  /// The route scan takes over `text` (set_pass or seed_filter): the constructor's when
  /// forced, else the seed filter where it exists for these queries and a timed sample of the
  /// text says it is faster. A text too small to sample (under 16 samples) gets the set pass,
  /// so a caller scanning in pieces (the API's 8 Mi-end segments) decides on the whole text:
  /// per segment the filter was never taken (one 20-mer on the H200 host, 16 threads: 6.1
  /// GB/s segmented against 18 GB/s).
  SetRoute choose_route(ByteSpan text, const std::vector<core::ApproxQuery>& queries) const;

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
