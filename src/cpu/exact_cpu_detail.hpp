// Internals of the CPU exact-search backend that tests and diagnostics may reach:
// the tuning knobs behind cpu::exact_scan (chunk size, instruction set, filter width).
#pragma once

#include <array>
#include <cstdint>

#include "cpu/exact_cpu.hpp"

namespace warpmatch::cpu::detail {

enum class Isa { automatic, sse, avx2 };

/// True when this CPU runs the AVX2 kernels (checked once at run time).
bool avx2_available();

/// The byte filter chosen for a pattern: the text is tested at `k` pattern offsets at once;
/// when `exact`, those offsets cover the whole pattern and no verification is needed.
struct FilterChoice {
  int k = 0;
  bool exact = false;
  bool dense = false;  // exact and frequent: matches are written without branching on them
  std::array<std::uint32_t, 8> offsets{};
};
inline constexpr int kMaxFilterBytes = 8;

/// The filter exact_scan would use for `pattern` on `text` (text is only sampled).
FilterChoice choose_filter(const core::ExactPattern& pattern, ByteSpan text);

struct ScanTuning {
  /// Owned bytes per chunk. 0: chosen from the text size and thread count, and small texts
  /// run on one thread. Non-zero: exactly `threads` workers (as resolved) on chunks this big,
  /// whatever the text size (to exercise chunk boundaries in tests).
  std::uint64_t chunk_bytes = 0;
  Isa isa = Isa::automatic;  // avx2 falls back to sse where the CPU lacks it
  int force_k = 0;           // 1..8: filter width to use instead of the cost model's choice
  bool force_dense = false;  // branch-free report loop wherever the filter is exact
};

/// exact_scan with explicit tuning (exact_scan itself uses the defaults).
std::uint64_t exact_scan_tuned(const core::ExactPattern& pattern, ByteSpan text,
                               ExactAlgorithm algorithm, int threads, bool count_only,
                               const core::StartsSink& sink, const ScanTuning& tuning);

/// exact_first_per_line with explicit tuning (chunk_bytes: the least bytes of lines a thread
/// takes, and exactly `threads` threads; tests cut short texts into many runs with it).
std::vector<std::uint64_t> first_per_line_tuned(const core::ExactPattern& pattern, ByteSpan text,
                                                std::uint64_t limit, std::uint64_t most, ExactAlgorithm algorithm,
                                                int threads, const ScanTuning& tuning);

}  // namespace warpmatch::cpu::detail
