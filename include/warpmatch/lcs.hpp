// warpmatch — longest common substring of two byte strings (seed paper 004) and maximal
// exact matches (MEMs).
//
//   auto r = warpmatch::longest_common_substring(a, b);       // r.length, r.count, r.pairs
//   auto m = warpmatch::maximal_exact_matches(a, b, 20);      // every MEM of length >= 20
//
// Inputs are arbitrary bytes (NUL and 0xFF included); no byte value is assumed absent.
// Positions are 0-based byte offsets, 64-bit. Both backends return identical results.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "warpmatch/common.hpp"

namespace warpmatch {

/// Algorithm names (`--algo`):
///   "auto"         — "suffix-array" on either backend.
///   "suffix-array" — CPU: libdivsufsort suffix array of A·B, Φ-LCP on all cores, then a scan
///                    of LCP intervals. CUDA: prefix doubling on CUB radix sort for the suffix
///                    array, Φ-LCP and the nearest-B scans on the device, CUB select of the
///                    runs holding the answer (about 37 bytes of device memory per input byte,
///                    on one GPU: no split over Execution::devices). Beyond the device memory
///                    left (within device_memory_limit), or 4 GiB of input, Backend::automatic
///                    runs on the CPU and says so in ScanStats::note, and Backend::cuda throws
///                    DeviceOutOfMemory (InvalidArgument past 4 GiB) naming the input sizes and
///                    the limit; inputs with very long repeats get their LCP on the host, noted. MEMs on CUDA: the device suffix array, then LCP
///                    and enumeration on the host.
///   "diagonal"     — seed paper 004: slide B along A, longest run of equal bytes per alignment
///                    (one GPU thread per alignment on CUDA; one thread on the CPU). O(mn).
///   "dp"           — CPU only: the O(mn) matrix recurrence c[i][j] = c[i-1][j-1] + 1 with one
///                    rolling row (the paper's "matrix method"). A small-input reference.
/// Backend, threads and device: see Execution (warpmatch/common.hpp).
struct LcsOptions : Execution {
  std::string algorithm = "auto";
  std::uint64_t max_matches = 1000;   // occurrence pairs (or MEMs) returned; counts stay exact
};

/// One occurrence of a longest common substring: A[a, a+L) == B[b, b+L).
struct LcsPair {
  std::uint64_t a = 0, b = 0;
  friend bool operator==(const LcsPair&, const LcsPair&) = default;
  friend auto operator<=>(const LcsPair&, const LcsPair&) = default;
};

struct LcsResult {
  std::uint64_t length = 0;       // L; 0 when no byte is common or an input is empty
  std::uint64_t count = 0;        // distinct common substrings of length L (exact; 0 if L = 0)
  std::uint64_t total_pairs = 0;  // all occurrence pairs (a, b) of them (exact)
  std::vector<LcsPair> pairs;     // the first min(max_matches, total_pairs) in (a, b) order
  ScanStats stats;                // how it ran: backend, algorithm, device, bytes, note
};

/// A maximal exact match: A[a, a+length) == B[b, b+length), and it cannot be extended to the
/// left (a = 0, b = 0 or A[a-1] != B[b-1]) nor to the right (end of A or B, or a mismatch).
struct Mem {
  std::uint64_t a = 0, b = 0, length = 0;
  friend bool operator==(const Mem&, const Mem&) = default;
  friend auto operator<=>(const Mem&, const Mem&) = default;
};

struct MemResult {
  std::uint64_t total = 0;  // all MEMs of length >= min_length (exact)
  std::vector<Mem> mems;    // the first min(max_matches, total) in (a, b) order
  ScanStats stats;          // how it ran: backend, algorithm, device, bytes, note
};

/// Throws InvalidArgument (unknown algorithm for the backend, threads < 0),
/// BackendUnavailable (`cuda` without a GPU), DeviceError (a CUDA failure).
LcsResult longest_common_substring(ByteSpan a, ByteSpan b, const LcsOptions& options = {});

/// All MEMs of length >= min_length (min_length >= 1, else InvalidArgument). Algorithms:
/// "suffix-array" (both backends) and "diagonal" (CPU: the maximal runs of every alignment).
MemResult maximal_exact_matches(ByteSpan a, ByteSpan b, std::uint64_t min_length,
                                const LcsOptions& options = {});

}  // namespace warpmatch
