// Longest common substring and MEMs from T = A·B's suffix and LCP arrays (see lcs_suffix.hpp
// for why there is no separator and how clamping keeps the scans correct).
#include "core/lcs_suffix.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <string_view>
#include <unordered_set>

#include "core/parallel.hpp"

namespace warpmatch::core {

namespace {

constexpr std::int64_t kInfinity = std::numeric_limits<std::int64_t>::max();

/// [lo, hi) of block `b` when `count` items are cut into `blocks` nearly equal blocks.
std::pair<std::int64_t, std::int64_t> block_range(std::int64_t count, std::int64_t blocks,
                                                  std::int64_t b) {
  return {count * b / blocks, count * (b + 1) / blocks};
}

std::int64_t block_count(std::int64_t items, int threads, std::int64_t min_block) {
  const std::int64_t by_size = std::max<std::int64_t>(1, items / min_block);
  return std::max<std::int64_t>(1, std::min<std::int64_t>(by_size, std::int64_t{threads} * 4));
}

/// State of a scan for the nearest B-suffix: whether one was seen, and the minimum LCP between
/// it and the current position.
struct NearestB {
  bool seen = false;
  std::int64_t min_lcp = kInfinity;
};

}  // namespace

template <class Index>
std::vector<Index> lcp_from_suffix_array(ByteSpan text, std::span<const Index> sa, int threads) {
  const auto n = static_cast<std::int64_t>(text.size());
  std::vector<Index> lcp(static_cast<std::size_t>(n), 0);
  if (n <= 1) return lcp;
  // phi[sa[k]] = sa[k-1]: the suffix just before T[i..] in SA order (-1 for the first).
  std::vector<Index> plcp(static_cast<std::size_t>(n));
  const std::int64_t blocks = block_count(n, threads, 1 << 16);
  parallel_for(static_cast<std::size_t>(blocks), threads, [&](std::size_t b) {
    const auto [lo, hi] = block_range(n, blocks, static_cast<std::int64_t>(b));
    for (std::int64_t k = lo; k < hi; ++k) plcp[sa[k]] = k == 0 ? Index{-1} : sa[k - 1];
  });
  // plcp[i] = lcp(T[i..], T[phi[i]..]), computed in text order so h drops by at most 1 per step.
  const std::uint8_t* t = text.data();
  parallel_for(static_cast<std::size_t>(blocks), threads, [&](std::size_t b) {
    const auto [lo, hi] = block_range(n, blocks, static_cast<std::int64_t>(b));
    std::int64_t h = 0;
    for (std::int64_t i = lo; i < hi; ++i) {
      const std::int64_t j = plcp[i];
      if (j < 0) {
        plcp[i] = 0;
        h = 0;
        continue;
      }
      while (i + h < n && j + h < n && t[i + h] == t[j + h]) ++h;
      plcp[i] = static_cast<Index>(h);
      if (h > 0) --h;
    }
  });
  parallel_for(static_cast<std::size_t>(blocks), threads, [&](std::size_t b) {
    const auto [lo, hi] = block_range(n, blocks, static_cast<std::int64_t>(b));
    for (std::int64_t k = std::max<std::int64_t>(lo, 1); k < hi; ++k) lcp[k] = plcp[sa[k]];
  });
  return lcp;
}

namespace {

/// The longest clamped match of any A-suffix with its nearest B-suffix on either side.
/// Blocks of SA positions run in parallel; the scan state entering each block is found first
/// from per-block summaries (a block with a B-suffix resets the state, one without only
/// lowers the running minimum).
template <class Index>
std::int64_t longest_clamped_match(std::int64_t m, std::span<const Index> sa, std::span<const Index> lcp, int threads) {
  const auto n = static_cast<std::int64_t>(sa.size());
  const std::int64_t blocks = block_count(n, threads, 1 << 16);
  // Forward: the state after position k covers the nearest B-suffix at or before k.
  auto forward_step = [&](NearestB& s, std::int64_t k) {
    s.min_lcp = std::min<std::int64_t>(s.min_lcp, lcp[k]);
    if (sa[k] >= m) s = NearestB{true, kInfinity};
  };
  // Backward: stepping from k+1 to k crosses lcp[k+1].
  auto backward_step = [&](NearestB& s, std::int64_t k) {
    if (k + 1 < n) s.min_lcp = std::min<std::int64_t>(s.min_lcp, lcp[k + 1]);
    if (sa[k] >= m) s = NearestB{true, kInfinity};
  };
  auto combine = [](const NearestB& in, const NearestB& block) {
    return block.seen ? block : NearestB{in.seen, std::min(in.min_lcp, block.min_lcp)};
  };
  std::vector<NearestB> forward_out(blocks), backward_out(blocks);
  parallel_for(static_cast<std::size_t>(blocks), threads, [&](std::size_t b) {
    const auto [lo, hi] = block_range(n, blocks, static_cast<std::int64_t>(b));
    NearestB f, r;
    for (std::int64_t k = lo; k < hi; ++k) forward_step(f, k);
    for (std::int64_t k = hi - 1; k >= lo; --k) backward_step(r, k);
    forward_out[b] = f;
    backward_out[b] = r;
  });
  std::vector<NearestB> forward_in(blocks), backward_in(blocks);
  for (std::int64_t b = 1; b < blocks; ++b)
    forward_in[b] = combine(forward_in[b - 1], forward_out[b - 1]);
  for (std::int64_t b = blocks - 2; b >= 0; --b)
    backward_in[b] = combine(backward_in[b + 1], backward_out[b + 1]);

  std::vector<std::int64_t> best(blocks, 0);
  parallel_for(static_cast<std::size_t>(blocks), threads, [&](std::size_t b) {
    const auto [lo, hi] = block_range(n, blocks, static_cast<std::int64_t>(b));
    std::vector<std::int64_t> left(static_cast<std::size_t>(hi - lo), 0);
    NearestB f = forward_in[b];
    for (std::int64_t k = lo; k < hi; ++k) {
      // Before stepping over k itself: the nearest B strictly before k.
      f.min_lcp = std::min<std::int64_t>(f.min_lcp, lcp[k]);
      if (sa[k] < m && f.seen) left[k - lo] = f.min_lcp;
      if (sa[k] >= m) f = NearestB{true, kInfinity};
    }
    NearestB r = backward_in[b];
    std::int64_t block_best = 0;
    for (std::int64_t k = hi - 1; k >= lo; --k) {
      if (k + 1 < n) r.min_lcp = std::min<std::int64_t>(r.min_lcp, lcp[k + 1]);
      if (sa[k] < m) {
        const std::int64_t right = r.seen ? r.min_lcp : 0;
        const std::int64_t room = m - std::int64_t{sa[k]};
        block_best = std::max(block_best, std::min(room, std::max(left[k - lo], right)));
      } else {
        r = NearestB{true, kInfinity};
      }
    }
    best[b] = block_best;
  });
  return *std::max_element(best.begin(), best.end());
}

}  // namespace

template <class Index>
void lcs_from_suffix_array(ByteSpan text, std::uint64_t m_bytes, std::span<const Index> sa, std::span<const Index> lcp,
                           std::uint64_t max_matches, int threads, LcsResult& out) {
  out.length = out.count = out.total_pairs = 0;
  out.pairs.clear();
  const auto n = static_cast<std::int64_t>(text.size());
  const auto m = static_cast<std::int64_t>(m_bytes);
  if (m == 0 || m == n) return;
  const std::int64_t length = longest_clamped_match(m, sa, lcp, threads);
  if (length == 0) return;

  // Runs of SA positions whose adjacent LCPs are >= length; each block owns the runs that
  // start in it (a run may extend past the block's end).
  const std::int64_t blocks = block_count(n, threads, 1 << 16);
  std::vector<std::vector<OccurrenceGroup>> groups_of_block(blocks);
  parallel_for(static_cast<std::size_t>(blocks), threads, [&](std::size_t blk) {
    const auto [lo, hi] = block_range(n, blocks, static_cast<std::int64_t>(blk));
    for (std::int64_t s = lo; s < hi; ++s) {
      const bool starts_run = (s == 0 || lcp[s] < length) && s + 1 < n && lcp[s + 1] >= length;
      if (!starts_run) continue;
      OccurrenceGroup g;
      std::int64_t e = s;
      for (;;) {
        const std::int64_t i = sa[e];
        if (i >= m) g.b.push_back(static_cast<std::uint64_t>(i - m));
        else if (m - i >= length) g.a.push_back(static_cast<std::uint64_t>(i));
        if (e + 1 < n && lcp[e + 1] >= length) ++e;
        else break;
      }
      if (!g.a.empty() && !g.b.empty()) groups_of_block[blk].push_back(std::move(g));
    }
  });
  std::vector<OccurrenceGroup> groups;
  for (auto& v : groups_of_block)
    for (auto& g : v) groups.push_back(std::move(g));

  finish_lcs_from_groups(groups, static_cast<std::uint64_t>(length), max_matches, out);
}

template <class Index>
void mems_from_suffix_array(ByteSpan text, std::uint64_t m_bytes, std::span<const Index> sa, std::span<const Index> lcp,
                            std::uint64_t min_length, std::uint64_t max_matches, int threads, MemResult& out) {
  out.total = 0;
  out.mems.clear();
  const auto n = static_cast<std::int64_t>(text.size());
  const auto m = static_cast<std::int64_t>(m_bytes);
  const auto min_len = static_cast<std::int64_t>(min_length);
  if (m == 0 || m == n || min_len > m || min_len > n - m) return;
  std::vector<Index> rank(static_cast<std::size_t>(n));
  const std::int64_t sa_blocks = block_count(n, threads, 1 << 16);
  parallel_for(static_cast<std::size_t>(sa_blocks), threads, [&](std::size_t b) {
    const auto [lo, hi] = block_range(n, sa_blocks, static_cast<std::int64_t>(b));
    for (std::int64_t k = lo; k < hi; ++k) rank[sa[k]] = static_cast<Index>(k);
  });
  const std::uint8_t* t = text.data();
  const std::int64_t starts = m - min_len + 1;  // A positions with room for min_len bytes
  const std::int64_t blocks = block_count(starts, threads, 1 << 12);
  std::vector<std::vector<Mem>> mems_of_block(blocks);
  parallel_for(static_cast<std::size_t>(blocks), threads, [&](std::size_t blk) {
    const auto [lo, hi] = block_range(starts, blocks, static_cast<std::int64_t>(blk));
    auto& found = mems_of_block[blk];
    std::vector<Mem> here;
    for (std::int64_t a = lo; a < hi; ++a) {
      here.clear();
      const std::int64_t room = m - a;
      auto consider = [&](std::int64_t k, std::int64_t common) {
        const std::int64_t i = sa[k];
        if (i < m) return;
        const std::int64_t b = i - m;
        if (a > 0 && b > 0 && t[a - 1] == t[m + b - 1]) return;  // extends to the left
        here.push_back({static_cast<std::uint64_t>(a), static_cast<std::uint64_t>(b),
                        static_cast<std::uint64_t>(std::min(common, room))});
      };
      const std::int64_t r = rank[a];
      std::int64_t common = kInfinity;
      for (std::int64_t k = r - 1; k >= 0; --k) {
        common = std::min<std::int64_t>(common, lcp[k + 1]);
        if (common < min_len) break;
        consider(k, common);
      }
      common = kInfinity;
      for (std::int64_t k = r + 1; k < n; ++k) {
        common = std::min<std::int64_t>(common, lcp[k]);
        if (common < min_len) break;
        consider(k, common);
      }
      std::sort(here.begin(), here.end());
      found.insert(found.end(), here.begin(), here.end());
    }
  });
  for (const auto& v : mems_of_block) out.total += v.size();
  const std::uint64_t keep = std::min<std::uint64_t>(max_matches, out.total);
  for (const auto& v : mems_of_block) {
    for (const Mem& x : v) {
      if (out.mems.size() >= keep) return;
      out.mems.push_back(x);
    }
  }
}

template std::vector<std::int32_t> lcp_from_suffix_array(ByteSpan, std::span<const std::int32_t>, int);
template std::vector<std::int64_t> lcp_from_suffix_array(ByteSpan, std::span<const std::int64_t>, int);
template void lcs_from_suffix_array(ByteSpan, std::uint64_t, std::span<const std::int32_t>, std::span<const std::int32_t>,
                                    std::uint64_t, int, LcsResult&);
template void lcs_from_suffix_array(ByteSpan, std::uint64_t, std::span<const std::int64_t>, std::span<const std::int64_t>,
                                    std::uint64_t, int, LcsResult&);
template void mems_from_suffix_array(ByteSpan, std::uint64_t, std::span<const std::int32_t>, std::span<const std::int32_t>,
                                     std::uint64_t, std::uint64_t, int, MemResult&);
template void mems_from_suffix_array(ByteSpan, std::uint64_t, std::span<const std::int64_t>, std::span<const std::int64_t>,
                                     std::uint64_t, std::uint64_t, int, MemResult&);

void finish_lcs_from_groups(std::vector<OccurrenceGroup>& groups, std::uint64_t length,
                            std::uint64_t max_matches, LcsResult& out) {
  out.total_pairs = 0;
  out.pairs.clear();
  out.length = length;
  out.count = groups.size();
  // Each A position starts exactly one length-L substring, so it is in at most one group:
  // the first pairs in (a, b) order come from walking A positions in order.
  std::vector<std::pair<std::uint64_t, std::uint32_t>> a_order;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    out.total_pairs += groups[g].a.size() * groups[g].b.size();
    for (const std::uint64_t a : groups[g].a) a_order.emplace_back(a, static_cast<std::uint32_t>(g));
  }
  std::sort(a_order.begin(), a_order.end());
  const std::uint64_t keep = std::min<std::uint64_t>(max_matches, out.total_pairs);
  out.pairs.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(keep, 1u << 24)));
  std::vector<bool> b_sorted(groups.size(), false);
  for (const auto& [a, g] : a_order) {
    if (out.pairs.size() >= keep) break;
    auto& bs = groups[g].b;
    if (!b_sorted[g]) {
      std::sort(bs.begin(), bs.end());
      b_sorted[g] = true;
    }
    for (const std::uint64_t b : bs) {
      if (out.pairs.size() >= keep) break;
      out.pairs.push_back({a, b});
    }
  }
}

std::uint64_t count_distinct_substrings(ByteSpan a, std::span<const std::uint64_t> starts,
                                        std::uint64_t length) {
  std::unordered_set<std::string_view> seen;
  seen.reserve(starts.size());
  for (const std::uint64_t s : starts)
    seen.emplace(reinterpret_cast<const char*>(a.data() + s), static_cast<std::size_t>(length));
  return seen.size();
}

std::uint64_t lcs_suffix_array_device_bytes(std::uint64_t text_bytes) {
  return text_bytes * 37 + text_bytes / 8 + (std::uint64_t{64} << 20);
}

LcsDeviceFit lcs_device_fit(std::uint64_t a_bytes, std::uint64_t b_bytes, std::uint64_t available) {
  return LcsDeviceFit{.a_bytes = a_bytes,
                      .b_bytes = b_bytes,
                      .needed = lcs_suffix_array_device_bytes(a_bytes + b_bytes),
                      .available = available};
}

std::string LcsDeviceFit::shortfall(std::string_view where) const {
  auto size = [](std::uint64_t bytes) {
    char mib[32];
    std::snprintf(mib, sizeof mib, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
    return std::string(mib) + " (" + std::to_string(bytes) + " bytes)";
  };
  const std::string inputs = "inputs of " + std::to_string(a_bytes) + " + " + std::to_string(b_bytes) + " bytes";
  if (!fits_index())
    return inputs + " exceed the GPU suffix array's 32-bit index limit of " + std::to_string(kLcsDeviceMaxTextBytes) +
           " bytes in all";
  if (!fits_memory())
    return inputs + " need " + size(needed) + " of device memory for the suffix array on " + std::string(where) +
           ", " + size(available) + " available";
  return "";
}

}  // namespace warpmatch::core
