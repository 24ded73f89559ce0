// CPU backend of exact search. Never includes CUDA code.
#pragma once

#include <vector>

#include "core/exact_pattern.hpp"

namespace warpmatch::cpu {

enum class ExactAlgorithm {
  fast,   // first/last-byte SIMD filter + verification, text split across all threads
  naive,  // reference: compare at every start position, single thread
};

/// Finds every occurrence of `pattern` in `text` (overlapping included). When count_only,
/// the sink is never called. Otherwise starts reach `sink` in ascending order, in batches;
/// the scan stops early when the sink returns false. Returns the number of occurrences
/// counted (count_only) or delivered to the sink.
/// threads <= 0 means all hardware threads. pattern.size() >= 1 (checked by the caller).
std::uint64_t exact_scan(const core::ExactPattern& pattern, ByteSpan text,
                         ExactAlgorithm algorithm, int threads, bool count_only,
                         const core::StartsSink& sink);

/// grep's line selection (core/line_select.hpp): the first occurrence start of each line
/// ('\n'-terminated) of `text` holding one that starts below `limit`, ascending. fast
/// searches a line only up to its first occurrence, then goes on at the next line; it stops
/// after `most` lines.
std::vector<std::uint64_t> exact_first_per_line(const core::ExactPattern& pattern, ByteSpan text,
                                                std::uint64_t limit, std::uint64_t most, ExactAlgorithm algorithm,
                                                int threads);

}  // namespace warpmatch::cpu
