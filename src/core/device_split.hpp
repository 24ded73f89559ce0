// Splitting one operation's work over several GPUs (Execution::devices): a text into one
// share per device with the operation's overlap (the chunk rule of core/chunking.hpp, so a
// match is found by exactly one share), or a list of weighted items (pairs, rows) into
// contiguous ranges of about equal weight. Pure functions: tested exhaustively on small sizes
// (tests/test_device_split.cpp), no backend included.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "core/chunking.hpp"

namespace warpmatch::core {

/// The shares of an n-byte text for `workers` devices: contiguous owned ranges covering
/// [0, n) in order, each reading `overlap` bytes past its owned end (plan_chunks). No more
/// shares than workers, and no more than n / min_share_bytes (at least one), so a small text
/// stays on one device; shares differ in size by at most one chunk rounding. None for n == 0.
inline std::vector<Chunk> plan_device_shares(std::uint64_t n, std::uint64_t workers, std::uint64_t overlap,
                                             std::uint64_t min_share_bytes) {
  if (n == 0) return {};
  const std::uint64_t by_size = n / std::max<std::uint64_t>(min_share_bytes, 1);
  const std::uint64_t parts = std::clamp<std::uint64_t>(by_size, 1, std::max<std::uint64_t>(workers, 1));
  return plan_chunks(n, (n + parts - 1) / parts, overlap);
}

/// One device's contiguous range of items [begin, end).
struct ItemRange {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  friend bool operator==(const ItemRange&, const ItemRange&) = default;
};

/// Items (pairs, matrix rows) of the given weights split into at most `workers` contiguous,
/// non-empty ranges covering them in order, each range closing once it reaches an equal part
/// of the total weight; no more ranges than total / min_share_weight (at least one). None for
/// no items.
inline std::vector<ItemRange> plan_weighted_shares(std::span<const std::uint64_t> weights, std::uint64_t workers,
                                                   std::uint64_t min_share_weight) {
  std::vector<ItemRange> ranges;
  if (weights.empty()) return ranges;
  std::uint64_t total = 0;
  for (const std::uint64_t w : weights) total += w;
  const std::uint64_t by_weight = total / std::max<std::uint64_t>(min_share_weight, 1);
  const std::uint64_t parts = std::min<std::uint64_t>(
      std::clamp<std::uint64_t>(by_weight, 1, std::max<std::uint64_t>(workers, 1)), weights.size());
  std::uint64_t begin = 0, sum = 0;
  for (std::uint64_t i = 0; i < weights.size(); ++i) {
    sum += weights[i];
    // Range r closes when the running sum reaches (r + 1) / parts of the total; the last
    // range takes whatever is left. 128-bit products: weights may sum near 2^64.
    const auto r = static_cast<unsigned __int128>(ranges.size() + 1);
    const bool full = static_cast<unsigned __int128>(sum) * parts >= r * total;
    if (ranges.size() + 1 < parts && full && i + 1 < weights.size()) {
      ranges.push_back({begin, i + 1});
      begin = i + 1;
    }
  }
  ranges.push_back({begin, weights.size()});
  return ranges;
}

}  // namespace warpmatch::core
