// CPU backend of multi-pattern exact search. Never includes CUDA code.
#pragma once

#include "core/multi_patterns.hpp"
#include "cpu/multi_cpu_trie.hpp"

namespace warpmatch::cpu {

enum class MultiAlgorithm {
  fast,   // prefix bitmap filter where selective + trie walks, text split over all threads
  mbndm,  // seed paper 002's CPU baseline: M-BNDM over packed pattern subsets
  naive,  // reference: every pattern at every start, one thread
};

/// Everything compiled for the CPU; `index` (its 4-byte bitmap and short gate) and `trie`
/// are needed by fast, `plan` by mbndm.
struct MultiTables {
  const core::PatternSet* set = nullptr;
  const core::PrefixIndex* index = nullptr;
  const core::MbndmPlan* plan = nullptr;
  const MultiTrie* trie = nullptr;
};

/// Finds every occurrence of every pattern in `text`. When count_only the sink is never
/// called; otherwise matches reach it in ascending (start, pattern) order, in batches, and
/// the scan stops when it returns false. Returns the matches counted or delivered.
/// The text is split into chunks owning start positions; a chunk reads up to
/// max_length - 1 bytes past its end (the overlap), so no match is lost or duplicated.
std::uint64_t multi_scan(const MultiTables& tables, ByteSpan text, MultiAlgorithm algorithm,
                         int threads, bool count_only, const core::MatchBatchSink& sink);

/// grep's line selection (core/line_select.hpp): the first match start of each line
/// ('\n'-terminated) of `text` holding one that starts below `limit`, ascending. fast
/// searches a line only up to its first match, then goes on at the next line; it stops after
/// `most` lines.
std::vector<std::uint64_t> multi_first_per_line(const MultiTables& tables, ByteSpan text, std::uint64_t limit,
                                                std::uint64_t most, MultiAlgorithm algorithm, int threads);

/// Per-pattern counts (size set->size()), on all threads without materialising matches.
std::vector<std::uint64_t> multi_count_per_pattern(const MultiTables& tables, ByteSpan text,
                                                   MultiAlgorithm algorithm, int threads);

}  // namespace warpmatch::cpu
