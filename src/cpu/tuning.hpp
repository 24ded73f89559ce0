// Tuning of the CPU backend: the loose constants of exact and multi-pattern search gathered
// in policy structs (values unchanged; issue 11). Each says what chose it; "no measurement
// recorded" where the commit that set it gives none. Sizes that follow from a kernel's layout
// (SIMD widths, the bit-parallel word) stay next to the kernel.
#pragma once

#include <cstdint>

namespace warpmatch::cpu {

struct ExactCpuPolicy {
  static constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
  // No thread for less than about this much text (thread start-up; no measurement recorded).
  static constexpr std::uint64_t bytes_per_worker = kMiB;
  // Counting: a few chunks per thread for balance, each between these sizes.
  static constexpr std::uint64_t count_chunks_per_worker = 4;
  static constexpr std::uint64_t count_chunk_min = kMiB;
  static constexpr std::uint64_t count_chunk_max = 4 * kMiB;
  // Reporting: a flood of matches then holds at most 4 MiB of starts per slot (69b1fbc).
  static constexpr std::uint64_t report_chunk = kMiB / 2;
  // Filter choice: texts from this size are sampled (16 blocks of 1 KiB spread evenly) to
  // refine the byte frequencies and to measure how often each candidate filter fires
  // (f428d6a, with the rare-byte filter; no separate measurement recorded).
  static constexpr std::uint64_t sample_from = 4u << 20;
  static constexpr std::uint64_t samples = 16;
  static constexpr std::uint64_t sample_bytes = 1024;
  // The scan loop's software prefetch distance, bytes ahead of the start being tested: one
  // page. H200 host (16-core Xeon VM), 1 GiB in the page cache, one thread 6.2-6.4 ->
  // 7.3-8.1 GB/s, 8 processes at once 4.7-6.0 -> 7.0 GB/s each, 16 threads 65-77 -> 86-94 GB/s;
  // 1024 gains less, 8192 and 16384 the same within noise.
  static constexpr std::uint64_t prefetch_ahead = 4096;
};

struct MultiCpuPolicy {
  // Owned start positions per chunk: large enough to amortise thread start-up, small enough
  // that a round's matches stay bounded and all threads get work.
  static constexpr std::uint64_t chunk_bytes = std::uint64_t{1} << 20;
  // Matches a chunk of a listing scan holds before it is delivered (24 bytes each; d6210d1,
  // bounded memory for floods).
  static constexpr std::uint64_t chunk_matches = std::uint64_t{1} << 20;
  // ... and a round's chunks together (2 per worker): per chunk chunk_matches at most, fewer
  // on many cores. 100 patterns over 100 MB of one letter peaked at 3.8 GB on a 64-core host
  // when each chunk held chunk_matches (0.8 GB on 16 cores); 16 Mi matches is 384 MB.
  static constexpr std::uint64_t round_matches = std::uint64_t{1} << 24;
  // Starts per block: the batch walk's lists stay in L1/L2 (c5a456b: English words 0.78x ->
  // 1.92x Hyperscan on 16 threads, H200 host, with the level-by-level walk).
  static constexpr std::uint64_t block_starts = 2048;
};

}  // namespace warpmatch::cpu
