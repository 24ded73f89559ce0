// The LCS kernels (src/cuda/lcs/kernels.cuh, their per-thread logic in agent.hpp) compiled for
// the host under the kernel shim and launched with the same host-side steps as
// src/cuda/lcs/dispatch.cu (CUB's radix sorts, scans and selects over the kernels' functors
// replaced by std::stable_sort and loops): the suffix-array path and the diagonal path. Used by
// tests/test_lcs_emulation.cpp and the fuzz target fuzz/fuzz_kernels.cpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <vector>

#include "core/lcs_suffix.hpp"
#include "cuda/lcs/agent.hpp"
#include "cuda_host_shim.hpp"
#include "emulation_check.hpp"
#include "warpmatch/lcs.hpp"
#define kernels lcs_kernel_emulation
#include "cuda/lcs/kernels.cuh"
#undef kernels

namespace lcs_emulation {

namespace lt = warpmatch::cuda::lcs_thread;
namespace kn = warpmatch::cuda::lcs_kernel_emulation;
using Bytes = std::vector<std::uint8_t>;

inline int bits_for(std::uint64_t v) {
  int b = 0;
  while (v >> b) ++b;
  return std::max(b, 1);
}

inline constexpr unsigned kThreads = 256;  // dispatch.cu's kThreadsPerBlock (doubling_initial_keys needs 256)
inline unsigned blocks_for(std::int64_t count) { return static_cast<unsigned>(std::max<std::int64_t>(1, (count + kThreads - 1) / kThreads)); }

/// Sorts (key, suffix) pairs by key (the device's CUB radix sort, stable): the sorted keys
/// into sorted_keys, the suffixes returned.
inline std::vector<std::uint32_t> sort_pairs(const std::vector<std::uint64_t>& keys, const std::vector<std::uint32_t>& suffixes,
                                      std::vector<std::uint64_t>& sorted_keys) {
  std::vector<std::size_t> order(keys.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return keys[x] < keys[y]; });
  sorted_keys.clear();
  std::vector<std::uint32_t> sorted;
  for (const std::size_t o : order) {
    sorted_keys.push_back(keys[o]);
    sorted.push_back(suffixes[o]);
  }
  return sorted;
}

/// build_suffix_array of src/cuda/lcs/dispatch.cu: its kernels (src/cuda/lcs/kernels.cuh under
/// the host shim) as it launches them; CUB's radix sorts as stable sorts, its max-scan and
/// select over the kernels' functors as loops.
inline std::vector<std::uint32_t> emulated_suffix_array(const Bytes& t) {
  const auto n = static_cast<std::int64_t>(t.size());
  std::vector<std::uint32_t> sa(t.size()), rank(t.size());
  std::vector<std::uint64_t> sorted_keys;
  // rank_sorted: group ranks (max-scan), doubling_place_ranks, the positions still shared.
  auto rank_sorted = [&](const std::vector<std::uint32_t>& sorted, const std::uint32_t* at_positions) {
    const auto count = static_cast<std::int64_t>(sorted.size());
    const kn::GroupStartRank start_rank{sorted_keys.data(), at_positions};
    const kn::InSharedGroup in_shared{sorted_keys.data(), count};
    const kn::PositionOf position_of{at_positions};
    std::vector<std::uint32_t> group_ranks(sorted.size()), shared;
    for (std::int64_t j = 0; j < count; ++j) {
      group_ranks[j] = kn::MaxOp{}(j == 0 ? 0u : group_ranks[j - 1], start_rank(j));
      if (in_shared(j)) shared.push_back(position_of(j));
    }
    emu::launch(blocks_for(count), kThreads, [&] {
      kn::doubling_place_ranks(sorted.data(), at_positions, group_ranks.data(), count, sa.data(), rank.data());
    });
    return shared;
  };
  std::uint32_t present[lt::kAlphabetWords] = {};
  emu::launch(std::min(blocks_for(n), 2u), kThreads, [&] { kn::mark_present_bytes(t.data(), n, present); });
  std::vector<std::uint64_t> keys(t.size());
  std::vector<std::uint32_t> suffixes(t.size());
  std::int64_t key_chars = 0;
  emu::launch(blocks_for(n), kThreads, [&] {
    kn::doubling_initial_keys(t.data(), n, present, keys.data(), suffixes.data(), &key_chars);
  });
  for (std::int64_t i = 0; i < n; ++i)
    emu::check((keys[i] & ((1u << (64 - lt::kInitialKeyBits)) - 1)) == 0, "lcs: initial key below the sorted bits");
  const std::vector<std::uint32_t> first = sort_pairs(keys, suffixes, sorted_keys);
  sa = first;
  std::vector<std::uint32_t> positions = rank_sorted(first, nullptr);
  const int rank_bits = bits_for(static_cast<std::uint64_t>(n));
  for (std::int64_t h = key_chars; !positions.empty() && h < n; h *= 2) {
    const auto count = static_cast<std::int64_t>(positions.size());
    keys.assign(positions.size(), 0);
    suffixes.assign(positions.size(), 0);
    emu::launch(blocks_for(count), kThreads, [&] {
      kn::doubling_keys(sa.data(), positions.data(), count, rank.data(), n, h, rank_bits, keys.data(),
                        suffixes.data());
    });
    for (std::int64_t j = 0; j < count; ++j)
      emu::check((keys[j] >> rank_bits >> rank_bits) < 1, "lcs: key wider than the sorted bits");
    const std::vector<std::uint32_t> sorted = sort_pairs(keys, suffixes, sorted_keys);
    positions = rank_sorted(sorted, positions.data());
  }
  return sa;
}

/// lcs_suffix_array_scan of src/cuda/lcs/dispatch.cu with a given PLCP chunk, so many emulated
/// threads occur even on short inputs: its kernels as it launches them, the device-wide scans
/// over the kernels' functors as loops (length_and_runs). nullopt when the PLCP budget ran out.
inline std::optional<warpmatch::LcsResult> emulated_suffix_array_scan(const Bytes& a, const Bytes& b, std::int64_t chunk,
                                                               std::int64_t budget) {
  warpmatch::LcsResult out;
  Bytes t(a);
  t.insert(t.end(), b.begin(), b.end());
  const auto n = static_cast<std::int64_t>(t.size());
  const auto m = static_cast<std::uint32_t>(a.size());
  const std::vector<std::uint32_t> sa = emulated_suffix_array(t);
  std::vector<std::uint32_t> plcp(t.size()), lcp(t.size());
  int exhausted = 0;
  emu::launch(blocks_for(n), kThreads, [&] { kn::lcp_phi(sa.data(), n, plcp.data()); });
  const std::int64_t plcp_threads = (n + chunk - 1) / chunk;
  emu::launch(blocks_for(plcp_threads), kThreads,
              [&] { kn::lcp_plcp_chunks(t.data(), n, chunk, budget, plcp.data(), &exhausted); });
  if (exhausted) return std::nullopt;
  emu::launch(blocks_for(n), kThreads, [&] { kn::lcp_gather(sa.data(), plcp.data(), n, lcp.data()); });
  // length_and_runs: the nearest-B scans (inclusive, ChainOp) into StoreLeft / StoreClampedMatch,
  // the max of the clamped matches, the run members selected and packed.
  std::vector<std::uint32_t> left(t.size());
  const kn::ForwardElement forward{sa.data(), lcp.data(), m};
  const kn::BackwardElement backward{sa.data(), lcp.data(), n, m};
  const kn::StoreLeft store_left{left.data()};
  const kn::StoreClampedMatch store_match{sa.data(), n, m, left.data()};
  lt::NearestB state{};
  for (std::int64_t k = 0; k < n; ++k) store_left(k, state = k == 0 ? forward(k) : kn::ChainOp{}(state, forward(k)));
  for (std::int64_t j = 0; j < n; ++j) store_match(j, state = j == 0 ? backward(j) : kn::ChainOp{}(state, backward(j)));
  const std::uint32_t length = *std::max_element(left.begin(), left.end());
  const kn::RunMember member{lcp.data(), n, &length};
  const kn::PackRunMember pack{sa.data(), lcp.data()};
  std::vector<std::uint64_t> members;
  for (std::int64_t k = 0; k < n; ++k)
    if (member(k)) members.push_back(pack(k));
  if (length == 0) return out;
  // The host's side, as lcs_suffix_array_scan: runs from the packed members.
  std::vector<warpmatch::core::OccurrenceGroup> groups;
  warpmatch::core::OccurrenceGroup current;
  auto close = [&] {
    if (!current.a.empty() && !current.b.empty()) groups.push_back(std::move(current));
    current = {};
  };
  for (const std::uint64_t packed : members) {
    const auto i = static_cast<std::uint32_t>(packed >> 32);
    if ((packed & 0xFFFFFFFFu) < length) close();
    if (i >= m) current.b.push_back(i - m);
    else if (m - i >= length) current.a.push_back(i);
  }
  close();
  warpmatch::core::finish_lcs_from_groups(groups, length, ~0ull, out);
  return out;
}

/// lcs_diagonal of src/cuda/lcs/dispatch.cu: its kernels as it launches them (longest runs,
/// the counting and the writing pass of diagonal_emit_runs), CUB's max, exclusive scan and
/// sort as loops.
inline warpmatch::LcsResult emulated_diagonal(const Bytes& a, const Bytes& b) {
  warpmatch::LcsResult out;
  const auto m = static_cast<std::int64_t>(a.size()), n = static_cast<std::int64_t>(b.size());
  const std::int64_t diagonals = m + n - 1;
  std::vector<std::uint32_t> longest(diagonals);
  emu::launch(blocks_for(diagonals), kThreads,
              [&] { kn::diagonal_longest_run(a.data(), b.data(), m, n, longest.data()); });
  const std::uint32_t length = *std::max_element(longest.begin(), longest.end());
  if (length == 0) return out;
  std::vector<std::uint64_t> count(diagonals, ~0ull), slot(diagonals, 0);
  emu::launch(blocks_for(diagonals), kThreads, [&] {
    kn::diagonal_emit_runs(a.data(), b.data(), m, n, longest.data(), length, count.data(), nullptr, nullptr, nullptr);
  });
  std::exclusive_scan(count.begin(), count.end(), slot.begin(), std::uint64_t{0});
  const std::uint64_t total = slot.back() + count.back();
  constexpr std::uint64_t kGuard = 8;  // slots past the total: a diagonal writing outside its own shows there
  std::vector<std::uint64_t> keys(total + kGuard, ~0ull);
  std::vector<std::uint8_t> a_starts(a.size(), 0);
  emu::launch(blocks_for(diagonals), kThreads, [&] {
    kn::diagonal_emit_runs(a.data(), b.data(), m, n, longest.data(), length, count.data(), slot.data(), keys.data(),
                           a_starts.data());
  });
  emu::check(std::count(keys.begin(), keys.end(), ~0ull) == static_cast<std::ptrdiff_t>(kGuard),
             "lcs: diagonals wrote outside their slots");
  keys.resize(total);
  std::sort(keys.begin(), keys.end());
  std::vector<std::uint64_t> starts;
  for (std::size_t i = 0; i < a_starts.size(); ++i)
    if (a_starts[i]) starts.push_back(i);
  out.length = length;
  out.total_pairs = total;
  for (const std::uint64_t k : keys) out.pairs.push_back({k / n, k % n});
  out.count = warpmatch::core::count_distinct_substrings({a.data(), a.size()}, starts, length);
  return out;
}

}  // namespace lcs_emulation
