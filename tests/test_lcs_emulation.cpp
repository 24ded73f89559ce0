// The CUDA LCS kernels (src/cuda/lcs/kernels.cuh, their per-thread logic in agent.hpp) compiled
// for the host under the shared kernel shim (tests/support/cuda_host_shim.hpp) and launched with
// the same host-side steps as src/cuda/lcs/dispatch.cu (CUB's radix sorts, scans and selects
// over the kernels' functors replaced by std::stable_sort and loops), against the independent
// oracle. Runs without a GPU, so the GPU paths are checked on every machine.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "core/lcs_suffix.hpp"
#include "cuda/lcs/agent.hpp"
#include "support/cuda_host_shim.hpp"
#define kernels lcs_kernel_emulation
#include "cuda/lcs/kernels.cuh"
#undef kernels
#include "test_lcs_support.hpp"

using namespace lcs_test;
namespace lt = warpmatch::cuda::lcs_thread;
namespace kn = warpmatch::cuda::lcs_kernel_emulation;

namespace {

int bits_for(std::uint64_t v) {
  int b = 0;
  while (v >> b) ++b;
  return std::max(b, 1);
}

constexpr unsigned kThreads = 256;  // dispatch.cu's kThreadsPerBlock (doubling_initial_keys needs 256)
unsigned blocks_for(std::int64_t count) { return static_cast<unsigned>(std::max<std::int64_t>(1, (count + kThreads - 1) / kThreads)); }

/// Sorts (key, suffix) pairs by key (the device's CUB radix sort, stable): the sorted keys
/// into sorted_keys, the suffixes returned.
std::vector<std::uint32_t> sort_pairs(const std::vector<std::uint64_t>& keys, const std::vector<std::uint32_t>& suffixes,
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
std::vector<std::uint32_t> emulated_suffix_array(const Bytes& t) {
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
    EXPECT_EQ(keys[i] & ((1u << (64 - lt::kInitialKeyBits)) - 1), 0u) << "initial key below the sorted bits";
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
      EXPECT_LT(keys[j] >> rank_bits >> rank_bits, 1u) << "key wider than the sorted bits";
    const std::vector<std::uint32_t> sorted = sort_pairs(keys, suffixes, sorted_keys);
    positions = rank_sorted(sorted, positions.data());
  }
  return sa;
}

/// lcs_suffix_array_scan of src/cuda/lcs/dispatch.cu with a given PLCP chunk, so many emulated
/// threads occur even on short inputs: its kernels as it launches them, the device-wide scans
/// over the kernels' functors as loops (length_and_runs). nullopt when the PLCP budget ran out.
std::optional<warpmatch::LcsResult> emulated_suffix_array_scan(const Bytes& a, const Bytes& b, std::int64_t chunk,
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
warpmatch::LcsResult emulated_diagonal(const Bytes& a, const Bytes& b) {
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
  EXPECT_EQ(std::count(keys.begin(), keys.end(), ~0ull), static_cast<std::ptrdiff_t>(kGuard))
      << "diagonals wrote outside their slots";
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
