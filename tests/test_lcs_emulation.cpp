// The CUDA LCS kernels' per-thread logic (src/cuda/lcs/agent.hpp) run over an emulated
// grid on the CPU, with the same host-side steps as src/cuda/lcs/dispatch.cu (radix sort and scans
// replaced by std::stable_sort and loops), against the independent oracle. Runs without a
// GPU, so the index arithmetic of the GPU paths is checked on every machine.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "core/lcs_suffix.hpp"
#include "cuda/lcs/agent.hpp"
#include "test_lcs_support.hpp"

using namespace lcs_test;
namespace lt = warpmatch::cuda::lcs_thread;

namespace {

int bits_for(std::uint64_t v) {
  int b = 0;
  while (v >> b) ++b;
  return std::max(b, 1);
}

/// build_suffix_array of src/cuda/lcs/dispatch.cu, one emulated thread per index: the radix sorts as
/// stable sorts, the max-scan and the select as loops.
std::vector<std::uint32_t> emulated_suffix_array(const Bytes& t) {
  const auto n = static_cast<std::int64_t>(t.size());
  std::vector<std::uint32_t> sa(t.size()), rank(t.size());
  // Sorts (key, suffix) pairs by key into sorted_keys and the returned suffixes.
  std::vector<std::uint64_t> sorted_keys;
  auto sort_pairs = [&](std::vector<std::uint64_t> keys, std::vector<std::uint32_t> suffixes) {
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
  };
  // rank_sorted: group ranks (max-scan), placement and ranks, the positions still shared.
  auto rank_sorted = [&](const std::vector<std::uint32_t>& sorted, const std::uint32_t* at_positions) {
    const auto count = static_cast<std::int64_t>(sorted.size());
    std::uint32_t group_rank = 0;
    std::vector<std::uint32_t> shared;
    for (std::int64_t j = 0; j < count; ++j) {
      group_rank = std::max(group_rank, lt::group_start_rank(sorted_keys.data(), at_positions, j));
      const std::uint32_t position = at_positions ? at_positions[j] : static_cast<std::uint32_t>(j);
      if (at_positions) sa[position] = sorted[j];
      rank[sorted[j]] = group_rank;
      if (lt::in_shared_group(sorted_keys.data(), count, j)) shared.push_back(position);
    }
    return shared;
  };
  std::uint32_t present[lt::kAlphabetWords] = {};
  for (const std::uint8_t c : t) present[c >> 5] |= 1u << (c & 31);
  std::uint16_t codes[256];
  for (int c = 0; c < 256; ++c) codes[c] = static_cast<std::uint16_t>(lt::alphabet_code(present, c));
  std::vector<std::uint64_t> keys(t.size());
  std::vector<std::uint32_t> suffixes(t.size());
  for (std::int64_t i = 0; i < n; ++i) {
    keys[i] = lt::initial_key(t.data(), n, codes, lt::alphabet_code_bits(present), i);
    EXPECT_EQ(keys[i] & ((1u << (64 - lt::kInitialKeyBits)) - 1), 0u) << "initial key below the sorted bits";
    suffixes[i] = static_cast<std::uint32_t>(i);
  }
  sa = sort_pairs(keys, suffixes);
  std::vector<std::uint32_t> positions = rank_sorted(sa, nullptr);
  const int rank_bits = bits_for(static_cast<std::uint64_t>(n));
  for (std::int64_t h = lt::initial_key_chars(present); !positions.empty() && h < n; h *= 2) {
    keys.assign(positions.size(), 0);
    suffixes.assign(positions.size(), 0);
    for (std::size_t j = 0; j < positions.size(); ++j) {
      suffixes[j] = sa[positions[j]];
      keys[j] = lt::doubling_key(rank.data(), n, h, rank_bits, suffixes[j]);
      EXPECT_LT(keys[j] >> rank_bits >> rank_bits, 1u) << "key wider than the sorted bits";
    }
    const std::vector<std::uint32_t> sorted = sort_pairs(keys, suffixes);
    positions = rank_sorted(sorted, positions.data());
  }
  return sa;
}

/// lcs_suffix_array_scan of src/cuda/lcs/dispatch.cu with a given PLCP chunk, so many emulated threads
/// occur even on short inputs; the device-wide scans as std::inclusive_scan (forward, and
/// backward over reversed positions). nullopt when the PLCP budget ran out.
std::optional<warpmatch::LcsResult> emulated_suffix_array_scan(const Bytes& a, const Bytes& b, std::int64_t chunk,
                                                               std::int64_t budget) {
  warpmatch::LcsResult out;
  Bytes t(a);
  t.insert(t.end(), b.begin(), b.end());
  const auto n = static_cast<std::int64_t>(t.size());
  const auto m = static_cast<std::uint32_t>(a.size());
  const std::vector<std::uint32_t> sa = emulated_suffix_array(t);
  std::vector<std::uint32_t> plcp(t.size()), lcp(t.size());
  for (std::int64_t k = 0; k < n; ++k) plcp[sa[k]] = k == 0 ? lt::kNoSuffix : sa[k - 1];
  bool exhausted = false;
  for (std::int64_t lo = 0; lo < n; lo += chunk)
    exhausted |= !lt::plcp_range(t.data(), n, lo, std::min(n, lo + chunk), budget, plcp.data());
  if (exhausted) return std::nullopt;
  for (std::int64_t k = 0; k < n; ++k) lcp[k] = k == 0 ? 0 : plcp[sa[k]];
  std::vector<lt::NearestB> forward(t.size()), backward(t.size());
  for (std::int64_t k = 0; k < n; ++k) {
    forward[k] = lt::forward_element(sa.data(), lcp.data(), m, k);
    backward[k] = lt::backward_element(sa.data(), lcp.data(), n, m, n - 1 - k);
  }
  std::inclusive_scan(forward.begin(), forward.end(), forward.begin(), lt::chain);
  std::inclusive_scan(backward.begin(), backward.end(), backward.begin(), lt::chain);
  std::uint32_t length = 0;
  for (std::int64_t k = 0; k < n; ++k)
    length = std::max(length, lt::clamped_match(sa.data(), m, k, lt::nearest_b_lcp(forward[k]),
                                                lt::nearest_b_lcp(backward[n - 1 - k])));
  if (length == 0) return out;
  std::vector<warpmatch::core::OccurrenceGroup> groups;
  warpmatch::core::OccurrenceGroup current;
  auto close = [&] {
    if (!current.a.empty() && !current.b.empty()) groups.push_back(std::move(current));
    current = {};
  };
  for (std::int64_t k = 0; k < n; ++k) {
    if (!lt::is_run_member(lcp.data(), n, k, length)) continue;
    if (lcp[k] < length) close();
    const std::uint32_t i = sa[k];
    if (i >= m) current.b.push_back(i - m);
    else if (m - i >= length) current.a.push_back(i);
  }
  close();
  warpmatch::core::finish_lcs_from_groups(groups, length, ~0ull, out);
  return out;
}

/// lcs_diagonal of src/cuda/lcs/dispatch.cu: longest runs, max, counts, exclusive scan, keys, sort.
warpmatch::LcsResult emulated_diagonal(const Bytes& a, const Bytes& b) {
  warpmatch::LcsResult out;
  const auto m = static_cast<std::int64_t>(a.size()), n = static_cast<std::int64_t>(b.size());
  const std::int64_t diagonals = m + n - 1;
  std::vector<std::uint32_t> longest(diagonals);
  for (std::int64_t d = 0; d < diagonals; ++d) longest[d] = lt::diagonal_longest_run(a.data(), b.data(), m, n, d);
  const std::uint32_t length = *std::max_element(longest.begin(), longest.end());
  if (length == 0) return out;
  std::vector<std::uint64_t> count(diagonals, 0), slot(diagonals, 0);
  for (std::int64_t d = 0; d < diagonals; ++d)
    if (longest[d] == length)
      count[d] = lt::diagonal_runs_of_length(a.data(), b.data(), m, n, d, length, [](std::int64_t, std::int64_t) {});
  std::exclusive_scan(count.begin(), count.end(), slot.begin(), std::uint64_t{0});
  const std::uint64_t total = slot.back() + count.back();
  std::vector<std::uint64_t> keys(total, ~0ull);
  std::vector<std::uint64_t> starts;
  for (std::int64_t d = 0; d < diagonals; ++d) {
    if (longest[d] != length) continue;
    std::uint64_t s = slot[d];
    lt::diagonal_runs_of_length(a.data(), b.data(), m, n, d, length, [&](std::int64_t sa_, std::int64_t sb) {
      keys[s++] = static_cast<std::uint64_t>(sa_) * static_cast<std::uint64_t>(n) + static_cast<std::uint64_t>(sb);
      starts.push_back(static_cast<std::uint64_t>(sa_));
    });
    EXPECT_EQ(s, slot[d] + count[d]) << "diagonal " << d << " wrote outside its slots";
  }
  std::sort(keys.begin(), keys.end());
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  out.length = length;
  out.total_pairs = total;
  for (const std::uint64_t k : keys) out.pairs.push_back({k / n, k % n});
  out.count = warpmatch::core::count_distinct_substrings({a.data(), a.size()}, starts, length);
  return out;
}

}  // namespace

TEST(LcsEmulation, DeviceSuffixArrayOrderEqualsTheSortedSuffixes) {
  std::mt19937_64 rng(31);
  std::vector<Bytes> texts;
  for (int trial = 0; trial < 300; ++trial)
    texts.push_back(random_bytes(rng, 1 + rng() % 70, std::vector<int>{1, 2, 4, 256}[trial % 4]));
  // Alphabets of 255 and 256 byte values: 8- and 9-bit codes, 8 and 7 characters per key.
  for (const int sigma : {255, 256}) {
    Bytes t(static_cast<std::size_t>(sigma));
    std::iota(t.begin(), t.end(), std::uint8_t{0});
    std::shuffle(t.begin(), t.end(), rng);
    const Bytes copy(t.begin(), t.begin() + 40);
    t.insert(t.end(), copy.begin(), copy.end());
    t.insert(t.end(), copy.begin(), copy.begin() + 9);
    texts.push_back(t);
  }
  // Long repeats: many doubling rounds over shrinking sets of suffixes still sharing a group.
  texts.push_back(Bytes(700, 'a'));
  Bytes periodic, fibonacci_prev = bytes("a"), fibonacci = bytes("ab");
  for (int k = 0; k < 600; ++k) periodic.push_back("abc"[k % 3]);
  texts.push_back(periodic);
  while (fibonacci.size() < 1000) {
    Bytes next = fibonacci;
    next.insert(next.end(), fibonacci_prev.begin(), fibonacci_prev.end());
    fibonacci_prev = std::exchange(fibonacci, next);
  }
  texts.push_back(fibonacci);
  Bytes copies = random_bytes(rng, 400, 4, 'A');
  Bytes mutated_copy = copies;
  for (int k = 0; k < 3; ++k) mutated_copy[rng() % mutated_copy.size()] = 'T';
  copies.insert(copies.end(), mutated_copy.begin(), mutated_copy.end());
  texts.push_back(copies);
  for (const Bytes& t : texts) {
    std::vector<std::uint32_t> expected(t.size());
    std::iota(expected.begin(), expected.end(), 0u);
    std::sort(expected.begin(), expected.end(), [&](std::uint32_t x, std::uint32_t y) {
      return std::lexicographical_compare(t.begin() + x, t.end(), t.begin() + y, t.end());
    });
    EXPECT_EQ(emulated_suffix_array(t), expected) << "text of " << t.size() << " bytes";
  }
}

TEST(LcsEmulation, InitialKeysPackAsManyCompactedBytesAsFit) {
  auto chars_for = [](std::initializer_list<std::uint8_t> bytes) {
    std::uint32_t present[lt::kAlphabetWords] = {};
    for (const std::uint8_t c : bytes) present[c >> 5] |= 1u << (c & 31);
    return lt::initial_key_chars(present);
  };
  EXPECT_EQ(chars_for({'a'}), 56);
  EXPECT_EQ(chars_for({'A', 'C', 'G', 'T'}), 18);
  EXPECT_EQ(chars_for({0, 255, 7}), 28);
  Bytes all(256);
  std::iota(all.begin(), all.end(), std::uint8_t{0});
  std::uint32_t present[lt::kAlphabetWords] = {};
  for (const std::uint8_t c : all) present[c >> 5] |= 1u << (c & 31);
  EXPECT_EQ(lt::initial_key_chars(present), 6);
  EXPECT_EQ(lt::alphabet_code(present, 0), 1u);
  EXPECT_EQ(lt::alphabet_code(present, 255), 256u);
}

TEST(LcsEmulation, NearestBChainIsAssociative) {
  // The device runs the nearest-B scans as parallel scans, which regroup the operator freely.
  std::mt19937_64 rng(35);
  auto state = [&] {
    const bool seen = rng() % 2;
    const std::uint32_t lcp = rng() % 5 == 0 ? lt::kInfiniteLcp : static_cast<std::uint32_t>(rng() % 8);
    return lt::NearestB{seen ? 1u : 0u, lcp};
  };
  for (int trial = 0; trial < 2000; ++trial) {
    const lt::NearestB x = state(), y = state(), z = state();
    const lt::NearestB left = lt::chain(lt::chain(x, y), z), right = lt::chain(x, lt::chain(y, z));
    EXPECT_EQ(left.seen, right.seen);
    EXPECT_EQ(left.min_lcp, right.min_lcp);
  }
}

TEST(LcsEmulation, DeviceSuffixArrayPathMatchesTheOracle) {
  std::mt19937_64 rng(32);
  auto cases = adversarial_cases();
  for (int trial = 0; trial < 150; ++trial) {
    const int alphabet = std::vector<int>{2, 3, 4, 256}[trial % 4];
    cases.emplace_back("random " + std::to_string(alphabet), random_bytes(rng, 1 + rng() % 50, alphabet),
                       random_bytes(rng, 1 + rng() % 50, alphabet));
  }
  for (const auto& [name, a, b] : cases) {
    const OracleLcs o = oracle_lcs(a, b);
    for (const std::int64_t chunk : {std::int64_t{1}, std::int64_t{3}, lt::kPlcpChunk}) {
      const auto r = emulated_suffix_array_scan(a, b, chunk, lt::kPlcpBudget);
      ASSERT_TRUE(r.has_value());
      expect_matches_oracle(*r, o, ~0ull, name + " chunk " + std::to_string(chunk));
    }
  }
}

TEST(LcsEmulation, PlcpBudgetRunsOutOnlyOnRepeatsLongerThanTheBudget) {
  // A chunk costs about the PLCP at its start: a flood's PLCP reaches its length.
  EXPECT_FALSE(emulated_suffix_array_scan(Bytes(20000, 'a'), Bytes(10000, 'a'), lt::kPlcpChunk, lt::kPlcpBudget)
                   .has_value());
  const auto short_flood =
      emulated_suffix_array_scan(Bytes(3000, 'a'), Bytes(2000, 'a'), lt::kPlcpChunk, lt::kPlcpBudget);
  ASSERT_TRUE(short_flood.has_value());
  EXPECT_EQ(short_flood->length, 2000u);
  EXPECT_EQ(short_flood->total_pairs, 1001u);
  std::mt19937_64 rng(33);
  EXPECT_TRUE(emulated_suffix_array_scan(random_bytes(rng, 3000, 4), random_bytes(rng, 2000, 4), lt::kPlcpChunk,
                                         lt::kPlcpBudget)
                  .has_value());
}

TEST(LcsEmulation, DiagonalPathMatchesTheOracle) {
  std::mt19937_64 rng(34);
  auto cases = adversarial_cases();
  for (int trial = 0; trial < 150; ++trial) {
    const int alphabet = std::vector<int>{2, 3, 4, 256}[trial % 4];
    cases.emplace_back("random " + std::to_string(alphabet), random_bytes(rng, 1 + rng() % 60, alphabet),
                       random_bytes(rng, 1 + rng() % 60, alphabet));
  }
  std::uint64_t nonzero = 0;
  for (const auto& [name, a, b] : cases) {
    const auto r = emulated_diagonal(a, b);
    nonzero += r.length > 0;
    expect_matches_oracle(r, oracle_lcs(a, b), ~0ull, name);
  }
  EXPECT_GT(nonzero, 100u);  // the inputs exercise the emitting kernels
}
