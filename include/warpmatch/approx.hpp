// warpmatch — approximate search (seed paper 000): every match of a pattern within k edits,
// or the best matches, on the CPU or the GPU.
//
//   warpmatch::ApproxOptions opt;
//   opt.k = 2;                                         // all ends within 2 edits
//   auto m = warpmatch::ApproxMatcher::compile(warpmatch::as_bytes("GATTACA"), opt);
//   m.scan(text, [](const warpmatch::ApproxMatch& h) { ...; return true; });
//
// Semantics (semi-global / "infix" Levenshtein distance, unit costs, free start and end in
// the text; edlib calls it HW mode). For an end position e (exclusive, 1 <= e <= n) let
//   dist(e) = min over s <= e of ED(pattern, text[s:e]).
// - all-hits mode (default): every e with dist(e) <= k is reported with distance = dist(e)
//   and start = the LARGEST s with ED(pattern, text[s:e]) == dist(e) (so every backend
//   reports the same start).
// - best mode: d* = min over e of dist(e) (if d* <= k when k is given), and every e with
//   dist(e) == d*, start chosen as above (edlib EDLIB_MODE_HW end locations, plus starts).
// Edge cases: k < 0 is an error (except the "unset" value -1 in best mode: no bound); k >= m
// is accepted and capped at m, where every end 1..n qualifies (dist(e) <= m always, the empty
// substring costs m) — the output then has n hits per pattern; an empty pattern is an error;
// a pattern longer than the text is defined as above (e.g. "AAAA" in "AA" has distance 2);
// an empty text has no end positions and so no hits.
//
// The matcher is immutable after compile(): share it between threads, scan any number of texts.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "warpmatch/common.hpp"
#include "warpmatch/sequence.hpp"

namespace warpmatch {

/// Algorithm names (`--algo`):
///   "auto"      — the fastest for the backend ("myers").
///   "myers"     — bit-parallel Myers 1999 / Hyyrö: CPU on 64-bit words with Ukkonen's cutoff
///                 of inactive blocks, text split over all cores; CUDA on 32-bit words, a warp
///                 pipelining the pattern's words, text in overlapping chunks.
///   "dp"        — CPU reference: the plain O(mn) dynamic programme, one thread.
///   "wavefront" — CUDA, seed paper 000 faithfully: D overlapping pieces, one block per
///                 piece, anti-diagonal wavefront over a 3 x (m+1) buffer in shared memory.
/// Backend, threads and device: see Execution (warpmatch/common.hpp).
struct ApproxOptions : Execution {
  /// Largest edit distance reported. -1 = unset: an error in all-hits mode, "no bound" in
  /// best mode. Values >= pattern length are capped at the pattern length.
  std::int64_t k = -1;
  bool best = false;                 // best mode (see above) instead of all hits within k
  std::string algorithm = "auto";
  bool case_insensitive = false;     // ASCII letters only
  /// Sequence search (warpmatch/sequence.hpp): the strand(s) searched, IUPAC codes in the
  /// patterns, and Hamming distance (substitutions only: every window as long as the pattern
  /// with at most k mismatches; `distance` = mismatches, start = end - m).
  Strand strand = Strand::forward;
  bool iupac = false;
  bool hamming = false;
  std::uint64_t max_hits = 0;        // stop a scan after this many hits (0 = no limit)
  bool best_of_cluster = false;      // of each run of consecutive end positions, keep only the
                                     // hit with the smallest distance (the leftmost on ties)
  /// What each hit carries: ends (end and distance), starts (also the start: O(m * d) per
  /// hit delivered) or cigar (also the alignment as an extended CIGAR).
  Report report = Report::starts;
};

/// One hit. `end` is exclusive; `start` is the largest s with ED(pattern, text[s:end]) ==
/// distance (0 with Report::ends). `cigar` (with Report::cigar): '=' match, 'X' mismatch,
/// 'I' a pattern byte absent from the text, 'D' a text byte absent from the pattern; applying
/// it to the pattern gives text[start:end], and its X + I + D count equals `distance`.
struct ApproxMatch {
  std::uint32_t pattern = 0;         // index of the pattern in compile() order
  char strand = '+';                 // '-': a hit of the pattern's reverse complement
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::uint32_t distance = 0;
  std::string cigar;
  friend bool operator==(const ApproxMatch&, const ApproxMatch&) = default;
};

/// Receives hits segment by segment of the text (2^23 end positions each, the same on every
/// backend; a text up to that size is one segment), in a segment pattern by pattern (compile
/// order; with Strand::both a pattern's '+' hits, then its '-' hits), each in ascending end; returns false to stop the scan. A segment's
/// hits are found, delivered and freed before the next one is searched, so a scan holds at
/// most one segment's hits (16 bytes per end) whatever the text, and stopping wastes at most
/// one segment's work. With best_of_cluster a run of ends crossing a segment boundary is
/// delivered with the segment where it ends. Best mode over more than one segment takes two
/// passes: the minimum first, then every end attaining it (same hits as one pass).
using ApproxSink = std::function<bool(const ApproxMatch&)>;

/// How far a running scan is, for a progress display on another thread: `done` grows to
/// text.size() x pattern_count() (text bytes searched, per pattern) while ends are being found.
/// The CPU backend advances it chunk by chunk; the CUDA backend, fast enough not to need it,
/// once per pattern set.
struct ScanProgress {
  std::atomic<std::uint64_t> done{0};
};

class ApproxMatcher {
 public:
  /// Throws InvalidArgument for no pattern, an empty pattern (naming its index), k < 0 (or
  /// unset in all-hits mode), an unknown algorithm for the backend, a pattern too long for
  /// the CUDA kernels; BackendUnavailable for `cuda` without a GPU.
  static ApproxMatcher compile(ByteSpan pattern, const ApproxOptions& options);
  static ApproxMatcher compile(const std::vector<std::vector<std::uint8_t>>& patterns,
                               const ApproxOptions& options);

  /// Every hit (see the header comment); returns the number delivered to the sink.
  std::uint64_t scan(ByteSpan text, const ApproxSink& sink, ScanStats* stats = nullptr,
                     ScanProgress* progress = nullptr) const;
  /// scan of text in the memory of the matcher's GPU (DeviceSpan, warpmatch/common.hpp): the
  /// kernels copy it device-to-device; starts and CIGARs are recovered on the host from copies
  /// of only the m + distance bytes before each delivered hit's end. InvalidArgument on the cpu
  /// backend, for host memory or another GPU's. Same hits as scan() of the same bytes.
  std::uint64_t scan_device_text(DeviceSpan text, const ApproxSink& sink, ScanStats* stats = nullptr) const;
  /// Convenience: all hits collected.
  std::vector<ApproxMatch> find_all(ByteSpan text) const;

  std::size_t pattern_count() const;
  std::size_t pattern_length(std::size_t index) const;
  /// The effective k of all-hits mode (capped at each pattern's length by the scan), or the
  /// bound of best mode (-1 = none).
  std::int64_t k() const;
  Backend backend() const;                 // resolved: cpu or cuda
  const std::string& algorithm() const;    // resolved name
  const ApproxOptions& options() const;
  /// "cpu (N threads)" or the GPU's name.
  const std::string& device_label() const;

  ApproxMatcher(ApproxMatcher&&) noexcept;
  ApproxMatcher& operator=(ApproxMatcher&&) noexcept;
  ~ApproxMatcher();

  struct Impl;

 private:
  explicit ApproxMatcher(std::shared_ptr<const Impl> impl);
  std::shared_ptr<const Impl> impl_;
};

}  // namespace warpmatch
