// warpmatch — global edit (Levenshtein) distance of two long strings (seed paper 001: the DP
// table tiled into blocks computed as a wavefront on the GPU, block size chosen by an
// execution-time model), with an optional bound k, an optimal alignment, and batches.
//
//   warpmatch::DistanceOptions opt;              // backend auto, algorithm auto, all threads
//   opt.max_distance = 100;                      // optional: stop early beyond 100 edits
//   opt.report = warpmatch::Report::cigar;       // optional: extended CIGAR (=, X, I, D)
//   auto r = warpmatch::edit_distance(a, b, opt);
//   if (r.over_k()) ...; else use r.distance, r.cigar;
//
// Memory is linear in the lengths (bit-vectors of the shorter string; Hirschberg for the
// alignment), lengths are 64-bit.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "warpmatch/common.hpp"

namespace warpmatch {

/// `DistanceResult::distance` when the distance exceeds DistanceOptions::max_distance.
inline constexpr std::int64_t kDistanceOverK = -1;

/// Algorithm names (`--algo`):
///   "auto"   — the fastest for the backend: "myers".
///   "myers"  — CPU: Myers/Hyyrö bit-parallel columns of 64 cells per word, banded by k
///              (Ukkonen; without k the band doubles from 64 like edlib), the pattern's
///              blocks split into stripes pipelined over threads. CUDA: one warp per stripe
///              of 1024 rows (32 cells per lane per word step) sweeping all columns in one
///              persistent launch, stripes handing their bottom deltas down through a ring;
///              with k, each stripe computes only Ukkonen's band.
///              With Report::cigar on CUDA, the distance comes from the GPU and the
///              alignment from the CPU's Hirschberg, banded by that distance.
///   "dp"     — CPU reference: the plain DP, two rows, one thread.
///   "tiles"  — CUDA, seed paper 001 faithfully: the DP table tiled into blocks of B x B
///              cells (B chosen by the tuned execution-time model; ScanStats::tile_size says
///              which), one thread block per tile, tiles of one anti-diagonal per launch, tile
///              borders in device memory.
/// Backend, threads and device: see Execution (warpmatch/common.hpp).
struct DistanceOptions : Execution {
  std::string algorithm = "auto";
  /// k: report kDistanceOverK when the distance exceeds it; < 0 = no bound.
  std::int64_t max_distance = -1;
  /// Report::cigar also computes an optimal alignment as an extended CIGAR (Hirschberg,
  /// linear memory); ends and starts give the distance only.
  Report report = Report::ends;
};

struct DistanceResult {
  /// The Levenshtein distance, or kDistanceOverK when it exceeds max_distance.
  std::int64_t distance = kDistanceOverK;
  /// With Report::cigar and within k: run-length pairs over "=XID" turning A into B:
  /// '=' keep A's byte, 'X' replace it by B's byte, 'I' a byte of A absent from B (deleted),
  /// 'D' a byte of B absent from A (inserted) — SAM's convention with A the query and B the
  /// reference, as approximate search's CIGAR with the pattern the query (e.g. "2=1X3D"). Empty otherwise (and for two empty strings).
  std::string cigar;
  bool over_k() const { return distance == kDistanceOverK; }
  friend bool operator==(const DistanceResult&, const DistanceResult&) = default;
};

/// Global edit distance of a and b; `stats` (optional) gets what the computation did
/// (ScanStats: pairs, cells, tile size). Throws InvalidArgument (unknown algorithm,
/// threads < 0), BackendUnavailable (cuda without a GPU), DeviceError.
DistanceResult edit_distance(ByteSpan a, ByteSpan b, const DistanceOptions& options = {},
                             ScanStats* stats = nullptr);

/// Many pairs at once: CPU spreads pairs over all threads, CUDA fills the GPU with pairs
/// (one per warp). Results in input order, identical to edit_distance() per pair.
std::vector<DistanceResult> edit_distance_batch(std::span<const std::pair<ByteSpan, ByteSpan>> pairs,
                                                const DistanceOptions& options = {},
                                                ScanStats* stats = nullptr);

/// edit_distance_batch's distances alone (kDistanceOverK beyond max_distance), for callers
/// who want no alignments: on CUDA the results skip DistanceResult (40 bytes a pair, built on
/// one thread) — what NumPy callers and the scaling benchmark use. Report::cigar is an
/// InvalidArgument.
std::vector<std::int64_t> edit_distances(std::span<const std::pair<ByteSpan, ByteSpan>> pairs,
                                         const DistanceOptions& options = {}, ScanStats* stats = nullptr);

/// Every string of `a` against every string of `b` (a cross product, e.g. reads against
/// reads): the |a| x |b| distances row-major, out[i * b.size() + j] = distance(a[i], b[j]),
/// kDistanceOverK beyond max_distance. Identical to edit_distance() per pair; on CUDA each
/// string is uploaded once. One-vs-many is a matrix with one row. Distances only
/// (Report::cigar is an InvalidArgument).
std::vector<std::int64_t> edit_distance_matrix(std::span<const ByteSpan> a, std::span<const ByteSpan> b,
                                               const DistanceOptions& options = {},
                                               ScanStats* stats = nullptr);

/// Applies an extended CIGAR to a; returns the result and, through `cost`, the number of
/// X/I/D operations. Throws InvalidArgument when the CIGAR is malformed, does not consume
/// all of a, or claims '=' where bytes differ (X where they are equal is allowed: still a
/// valid edit). Used by tests and callers who want to check an alignment.
std::string apply_cigar(ByteSpan a, ByteSpan b, std::string_view cigar, std::int64_t* cost);

}  // namespace warpmatch
