// The CUDA LCS kernels' per-thread logic (src/cuda/lcs_thread_logic.hpp) run over an emulated
// grid on the CPU, with the same host-side steps as lcs_dispatch.cu (radix sort and scans
// replaced by std::stable_sort and loops), against the independent oracle. Runs without a
// GPU, so the index arithmetic of the GPU paths is checked on every machine.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "core/lcs_suffix.hpp"
#include "cuda/lcs_thread_logic.hpp"
#include "test_lcs_support.hpp"

using namespace lcs_test;
namespace lt = warpmatch::cuda::lcs_thread;

namespace {

int bits_for(std::uint64_t v) {
  int b = 0;
  while (v >> b) ++b;
  return std::max(b, 1);
}

/// build_suffix_array of lcs_dispatch.cu, one emulated thread per index.
std::vector<std::uint32_t> emulated_suffix_array(const Bytes& t) {
  const auto n = static_cast<std::int64_t>(t.size());
  std::vector<std::uint32_t> rank(t.size()), sa(t.size()), heads(t.size());
  std::vector<std::uint64_t> keys(t.size());
  for (std::int64_t i = 0; i < n; ++i) rank[i] = lt::initial_rank(t.data(), n, i);
  std::uint64_t groups = lt::kInitialRankLimit;
  for (std::int64_t h = lt::kInitialBytes;; h *= 2) {
    const int rank_bits = bits_for(groups);
    for (std::int64_t i = 0; i < n; ++i) {
      keys[i] = lt::doubling_key(rank.data(), n, h, rank_bits, i);
      EXPECT_LT(keys[i] >> rank_bits >> rank_bits, 1u) << "key wider than the sorted bits";
      sa[i] = static_cast<std::uint32_t>(i);
    }
    std::stable_sort(sa.begin(), sa.end(), [&](std::uint32_t x, std::uint32_t y) { return keys[x] < keys[y]; });
    std::uint32_t running = 0;
    for (std::int64_t k = 0; k < n; ++k) {
      running += (k == 0 || keys[sa[k]] != keys[sa[k - 1]]) ? 1 : 0;
      heads[k] = running;
    }
    for (std::int64_t k = 0; k < n; ++k) rank[sa[k]] = heads[k];
    groups = running;
    if (static_cast<std::int64_t>(running) == n || h >= n) break;
  }
  return sa;
}

/// lcs_suffix_array_scan of lcs_dispatch.cu with small chunks and blocks, so many emulated
/// threads and block boundaries occur even on short inputs. nullopt when the PLCP budget ran out.
std::optional<warpmatch::LcsResult> emulated_suffix_array_scan(const Bytes& a, const Bytes& b, std::int64_t chunk,
                                                               std::int64_t budget, std::int64_t block) {
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
  const std::int64_t blocks = (n + block - 1) / block;
  std::vector<lt::NearestB> fwd(blocks), bwd(blocks);
  for (std::int64_t t_id = 0; t_id < blocks; ++t_id)
    lt::nearest_b_summary(sa.data(), lcp.data(), n, m, t_id * block, std::min(n, (t_id + 1) * block), fwd[t_id],
                          bwd[t_id]);
  std::vector<lt::NearestB> fwd_in(blocks, {0, lt::kInfiniteLcp}), bwd_in(blocks, {0, lt::kInfiniteLcp});
  for (std::int64_t k = 1; k < blocks; ++k) fwd_in[k] = lt::chain(fwd_in[k - 1], fwd[k - 1]);
  for (std::int64_t k = blocks - 2; k >= 0; --k) bwd_in[k] = lt::chain(bwd_in[k + 1], bwd[k + 1]);
  std::uint32_t length = 0;
  for (std::int64_t t_id = 0; t_id < blocks; ++t_id)
    length = std::max(length, lt::nearest_b_best(sa.data(), lcp.data(), n, m, t_id * block,
                                                 std::min(n, (t_id + 1) * block), fwd_in[t_id], bwd_in[t_id],
                                                 plcp.data()));
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

/// lcs_diagonal of lcs_dispatch.cu: longest runs, max, counts, exclusive scan, keys, sort.
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
  for (int trial = 0; trial < 300; ++trial) {
    const int alphabet = std::vector<int>{1, 2, 4, 256}[trial % 4];
    const Bytes t = random_bytes(rng, 1 + rng() % 70, alphabet);
    std::vector<std::uint32_t> expected(t.size());
    std::iota(expected.begin(), expected.end(), 0u);
    std::sort(expected.begin(), expected.end(), [&](std::uint32_t x, std::uint32_t y) {
      return std::lexicographical_compare(t.begin() + x, t.end(), t.begin() + y, t.end());
    });
    EXPECT_EQ(emulated_suffix_array(t), expected) << "trial " << trial;
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
    for (const auto& [chunk, block] : std::vector<std::pair<int, int>>{{1, 1}, {3, 4}, {64, 1024}}) {
      const auto r = emulated_suffix_array_scan(a, b, chunk, 1'000'000, block);
      ASSERT_TRUE(r.has_value());
      expect_matches_oracle(*r, o, ~0ull, name + " chunk " + std::to_string(chunk) + " block " + std::to_string(block));
    }
  }
}

TEST(LcsEmulation, PlcpBudgetRunsOutOnlyOnRepeatsLongerThanTheBudget) {
  // A chunk costs about the PLCP at its start: a flood's PLCP reaches its length.
  EXPECT_FALSE(emulated_suffix_array_scan(Bytes(20000, 'a'), Bytes(10000, 'a'), 64, 256 * 64, 1024).has_value());
  const auto short_flood = emulated_suffix_array_scan(Bytes(3000, 'a'), Bytes(2000, 'a'), 64, 256 * 64, 1024);
  ASSERT_TRUE(short_flood.has_value());
  EXPECT_EQ(short_flood->length, 2000u);
  EXPECT_EQ(short_flood->total_pairs, 1001u);
  std::mt19937_64 rng(33);
  EXPECT_TRUE(emulated_suffix_array_scan(random_bytes(rng, 3000, 4), random_bytes(rng, 2000, 4), 64, 256 * 64, 1024)
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
