// warpmatch — exact search of one pattern (seed paper 003, brute force on the GPU, and faster).
//
//   auto m = warpmatch::ExactMatcher::compile(warpmatch::as_bytes("GATTACA"), {});
//   std::uint64_t n = m.count(text);                 // just count
//   m.scan(text, [](const warpmatch::Match& x) { ...; return true; });  // every occurrence
//
// The matcher is immutable after compile(): share it between threads, scan any number of texts.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "warpmatch/common.hpp"

namespace warpmatch {

/// Algorithm names (`--algo`):
///   "auto"  — the fastest for the backend (CPU: first/last-byte SIMD filter, all cores;
///             CUDA: 16-byte loads, first/last-byte filter, warp-compacted hits).
///   "naive" — CPU reference: compare at every start position, one thread.
///   "bf"    — CUDA, seed paper 003 faithfully: one thread per start position, grid-stride,
///             per-thread counters, block reduction.
/// Backend, threads and device: see Execution (warpmatch/common.hpp).
struct ExactOptions : Execution {
  std::string algorithm = "auto";
  bool case_insensitive = false;  // ASCII letters only; other bytes compare exactly
};

class ExactMatcher {
 public:
  /// Throws InvalidArgument for an empty pattern or an unknown algorithm for the backend,
  /// BackendUnavailable for `cuda` without a GPU.
  static ExactMatcher compile(ByteSpan pattern, const ExactOptions& options = {});

  /// Number of occurrences, overlapping ones included. A pattern longer than the text: 0.
  /// `stats` (optional) gets what the scan did (ScanStats, warpmatch/common.hpp).
  std::uint64_t count(ByteSpan text, ScanStats* stats = nullptr) const;
  /// Every occurrence in ascending order of start; stops when the sink returns false.
  /// Returns the number of matches delivered.
  std::uint64_t scan(ByteSpan text, const MatchSink& sink, ScanStats* stats = nullptr) const;
  /// scan's matches in batches (in order; none empty); returns the number delivered.
  std::uint64_t scan_batches(ByteSpan text, const MatchBatchSink& sink, ScanStats* stats = nullptr) const;
  /// count and scan of text in the memory of the matcher's GPU (DeviceSpan, warpmatch/common.hpp;
  /// own names: `count({p, n})` would be ambiguous); InvalidArgument on the cpu backend.
  std::uint64_t count_device_text(DeviceSpan text, ScanStats* stats = nullptr) const;
  std::uint64_t scan_device_text(DeviceSpan text, const MatchSink& sink, ScanStats* stats = nullptr) const;
  /// grep's line selection: for each line of `text` (lines end at '\n') that holds the
  /// start of a match below `starts_below`, the start of its first match, ascending — the
  /// lines grep -F prints; the first `most` such lines only (grep -m). The CPU searches a
  /// line only up to its first match; the GPU lists every match and keeps one per line.
  std::vector<std::uint64_t> first_match_per_line(ByteSpan text, std::uint64_t starts_below,
                                                  std::uint64_t most = ~std::uint64_t{0}) const;
  /// Convenience: all occurrences collected.
  std::vector<Match> find_all(ByteSpan text) const;

  std::size_t pattern_length() const;
  Backend backend() const;          // resolved: cpu or cuda
  const std::string& algorithm() const;  // resolved name
  const ExactOptions& options() const;
  /// "cpu (N threads)" or the GPU's name.
  const std::string& device_label() const;

  ExactMatcher(ExactMatcher&&) noexcept;
  ExactMatcher& operator=(ExactMatcher&&) noexcept;
  ~ExactMatcher();

  struct Impl;

 private:
  explicit ExactMatcher(std::shared_ptr<const Impl> impl);
  std::shared_ptr<const Impl> impl_;
};

}  // namespace warpmatch
