// warpmatch — multi-pattern exact search (seed paper 002, M-BNDM on the GPU, and faster).
//
//   std::vector<std::string> words = {"he", "she", "his", "hers"};
//   auto m = warpmatch::MultiMatcher::compile(words, {});      // immutable, share freely
//   m.scan(text, [](const warpmatch::Match& x) { ...; return true; });
//   std::vector<std::uint64_t> per_pattern = m.count_per_pattern(text);
//
// The match set is exactly Hyperscan's literal mode (block mode, start of match, one id per
// pattern) or Aho-Corasick reporting all matches: every occurrence of every pattern,
// overlapping ones included, delivered in ascending order of (start, pattern index).
// Duplicate patterns each keep their own index and each report every occurrence (as
// Hyperscan does with distinct ids). Patterns are arbitrary bytes, NUL included.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "warpmatch/common.hpp"
#include "warpmatch/sequence.hpp"

namespace warpmatch {

/// Algorithm names (`--algo`):
///   "auto"/"fast" — CPU: prefix q-gram filter (1/2/3/4/8-byte keys, bitmaps) + hash table
///                   of patterns for verification, text split over all cores;
///                   CUDA: the same filter with its 4-byte bitmap in shared memory, verified
///                   on the device, hits compacted and sorted with CUB, host text streamed.
///   "mbndm"       — seed paper 002: M-BNDM over pattern subsets packed in 64-bit words
///                   (CPU: the paper's baseline, chunks on `threads` like fast — the
///                   benchmark runs it on one thread as the paper did; CUDA: the paper's kernel,
///                   subsets per block, pages with maxPLength overlap in shared memory,
///                   B tables through the read-only (texture) path, in the paper's best thread
///                   configuration: 1 KiB pages, 512 threads per block, 64 blocks per SM).
///   "naive"       — CPU reference: every pattern at every position, one thread.
/// Backend, threads and device: see Execution (warpmatch/common.hpp).
struct MultiOptions : Execution {
  std::string algorithm = "auto";
  bool case_insensitive = false;  // ASCII letters only
  /// Sequence search (warpmatch/sequence.hpp), for one pattern or many: the strand(s)
  /// searched (a '-' hit has Match::strand '-', forward coordinates) and IUPAC codes, which
  /// exact search expands into the plain sequences they stand for (at most 2^20 in all;
  /// beyond that compile() says so: approximate search with Hamming k = 0 matches codes
  /// directly). Pattern indices, counts and order stay those of the given patterns.
  Strand strand = Strand::forward;
  bool iupac = false;
};

/// What compile() built (for `--stats`).
struct MultiCompileStats {
  std::uint64_t patterns = 0;
  std::uint64_t pattern_bytes = 0;
  std::uint64_t min_length = 0, max_length = 0;
  double seconds = 0;               // wall time of compile()
  std::uint64_t memory_bytes = 0;   // host memory of the compiled tables
  std::uint64_t device_memory_bytes = 0;  // GPU memory of the uploaded tables (cuda backend)
  /// fast: the bytes of each text start that its scanning filter keys on: 4, or 8 for sets
  /// over a small alphabet whose 4-byte prefixes cover most of it (DNA k-mers of >= 8 bases),
  /// or up to 16 (the shortest pattern's length) for large sets whose 4- or 8-byte
  /// keys would pass most starts (10^5 DNA 20-mers, 10^6 words of >= 6 letters); 0 for mbndm
  /// and naive.
  int filter_key_bytes = 0;
};

class MultiMatcher {
 public:
  /// Throws InvalidArgument for an empty set, an empty pattern (naming its index), more than
  /// 2^31 patterns, or an unknown algorithm for the backend; BackendUnavailable for `cuda`
  /// without a GPU.
  static MultiMatcher compile(const std::vector<std::string>& patterns,
                              const MultiOptions& options = {});

  /// Total occurrences of all patterns.
  std::uint64_t count(ByteSpan text, ScanStats* stats = nullptr) const;
  /// Occurrences per pattern index (size pattern_count()).
  std::vector<std::uint64_t> count_per_pattern(ByteSpan text) const;
  /// Every occurrence in ascending (start, pattern) order; stops when the sink returns false.
  /// Returns the number of matches delivered.
  std::uint64_t scan(ByteSpan text, const MatchSink& sink, ScanStats* stats = nullptr) const;
  /// scan's matches in batches (in order; none empty); returns the number delivered.
  std::uint64_t scan_batches(ByteSpan text, const MatchBatchSink& sink, ScanStats* stats = nullptr) const;
  /// grep's line selection: for each line of `text` (lines end at '\n') that holds the
  /// start of a match below `starts_below`, the start of its first match, ascending — the
  /// lines grep -F prints; the first `most` such lines only (grep -m). The CPU searches a
  /// line only up to its first match; the GPU lists every match and keeps one per line.
  std::vector<std::uint64_t> first_match_per_line(ByteSpan text, std::uint64_t starts_below,
                                                  std::uint64_t most = ~std::uint64_t{0}) const;
  /// count, count_per_pattern and scan of text in the memory of the matcher's GPU (DeviceSpan,
  /// warpmatch/common.hpp); InvalidArgument on the cpu backend.
  std::uint64_t count_device_text(DeviceSpan text, ScanStats* stats = nullptr) const;
  std::vector<std::uint64_t> count_per_pattern_device_text(DeviceSpan text) const;
  std::uint64_t scan_device_text(DeviceSpan text, const MatchSink& sink, ScanStats* stats = nullptr) const;
  std::vector<Match> find_all(ByteSpan text) const;

  std::size_t pattern_count() const;
  std::size_t max_pattern_length() const;
  Backend backend() const;
  const std::string& algorithm() const;
  const std::string& device_label() const;
  const MultiCompileStats& compile_stats() const;
  const MultiOptions& options() const;

  MultiMatcher(MultiMatcher&&) noexcept;
  MultiMatcher& operator=(MultiMatcher&&) noexcept;
  ~MultiMatcher();

  struct Impl;

 private:
  explicit MultiMatcher(std::shared_ptr<const Impl> impl);
  std::shared_ptr<const Impl> impl_;
};

/// A pattern file parsed (see parse_pattern_file).
struct PatternList {
  std::vector<std::string> patterns;      // non-empty patterns, in file order
  std::vector<std::uint64_t> line_index;  // 0-based line of each pattern in the file
  std::uint64_t lines = 0;                // lines in the file (a final newline ends a line)
};

/// Parses a pattern file: one literal per line ('\n' separates; a '\r' before it is dropped).
/// Unless fixed_lines, `\xNN` (two hex digits) gives any byte and `\\` a backslash; any other
/// backslash sequence is an error. Empty lines are skipped but keep their line number, so a
/// pattern's index is always its line number - 1. Duplicates are kept (each reports its own
/// index). Throws InvalidArgument naming `source` and the line for a bad escape.
/// With fixed_lines every line is taken verbatim ('\r' kept).
PatternList parse_pattern_file(std::string_view content, bool fixed_lines,
                               std::string_view source);

}  // namespace warpmatch
