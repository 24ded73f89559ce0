// CPU longest common substring and MEMs. The fast path builds T = A·B's suffix array with
// libdivsufsort (no separator: see core/lcs_suffix.hpp), the LCP array with Φ on all cores,
// and scans LCP intervals. The references follow seed paper 004 (Zhang et al., 2013):
// the "BF-like" diagonal method and the matrix method, both O(mn), for small inputs.
#include "cpu/lcs_cpu.hpp"

#include <divsufsort.h>
#include <divsufsort64.h>

#include <algorithm>
#include <string>

#include "core/lcs_suffix.hpp"

namespace warpmatch::cpu {

namespace {

std::vector<std::uint8_t> concatenate(ByteSpan a, ByteSpan b) {
  std::vector<std::uint8_t> t(a.size() + b.size());
  std::copy(a.begin(), a.end(), t.begin());
  std::copy(b.begin(), b.end(), t.begin() + static_cast<std::ptrdiff_t>(a.size()));
  return t;
}

/// Calls on_run(a_start, b_start, run_length) for every maximal run of equal bytes on every
/// alignment of B against A (diagonal b - a = offset, offsets -(m-1) .. n-1).
template <class OnRun>
void for_each_diagonal_run(ByteSpan a, ByteSpan b, OnRun&& on_run) {
  const auto m = static_cast<std::int64_t>(a.size()), n = static_cast<std::int64_t>(b.size());
  for (std::int64_t offset = -(m - 1); offset <= n - 1; ++offset) {
    const std::int64_t a0 = std::max<std::int64_t>(0, -offset);
    const std::int64_t b0 = a0 + offset;
    const std::int64_t len = std::min(m - a0, n - b0);
    std::int64_t run = 0;
    for (std::int64_t k = 0; k < len; ++k) {
      if (a[a0 + k] == b[b0 + k]) {
        ++run;
      } else if (run > 0) {
        on_run(a0 + k - run, b0 + k - run, run);
        run = 0;
      }
    }
    if (run > 0) on_run(a0 + len - run, b0 + len - run, run);
  }
}

/// From every occurrence pair of the longest length: sorted, counted, truncated.
void finish_from_pairs(ByteSpan a, std::uint64_t length, std::vector<LcsPair>& pairs,
                       std::uint64_t max_matches, LcsResult& out) {
  out.length = length;
  if (length == 0) pairs.clear();
  std::sort(pairs.begin(), pairs.end());
  out.total_pairs = pairs.size();
  std::vector<std::uint64_t> starts;
  for (const auto& p : pairs)
    if (starts.empty() || starts.back() != p.a) starts.push_back(p.a);
  out.count = core::count_distinct_substrings(a, starts, length);
  if (pairs.size() > max_matches) pairs.resize(static_cast<std::size_t>(max_matches));
  out.pairs = std::move(pairs);
}

void lcs_diagonal(ByteSpan a, ByteSpan b, std::uint64_t max_matches, LcsResult& out) {
  std::int64_t best = 0;
  std::vector<LcsPair> pairs;
  for_each_diagonal_run(a, b, [&](std::int64_t ia, std::int64_t ib, std::int64_t run) {
    if (run < best) return;
    if (run > best) {
      best = run;
      pairs.clear();
    }
    pairs.push_back({static_cast<std::uint64_t>(ia), static_cast<std::uint64_t>(ib)});
  });
  finish_from_pairs(a, static_cast<std::uint64_t>(best), pairs, max_matches, out);
}

void lcs_dp(ByteSpan a, ByteSpan b, std::uint64_t max_matches, LcsResult& out) {
  // row[j + 1] = length of the common suffix of A[..i] and B[..j]; updated right to left so
  // row[j] still holds the previous row's value.
  const std::size_t n = b.size();
  std::vector<std::uint64_t> row(n + 1, 0);
  std::uint64_t best = 0;
  std::vector<LcsPair> pairs;
  for (std::size_t i = 0; i < a.size(); ++i) {
    for (std::size_t j = n; j-- > 0;) {
      const std::uint64_t c = a[i] == b[j] ? row[j] + 1 : 0;
      row[j + 1] = c;
      if (c == 0 || c < best) continue;
      if (c > best) {
        best = c;
        pairs.clear();
      }
      pairs.push_back({i + 1 - c, j + 1 - c});
    }
  }
  finish_from_pairs(a, best, pairs, max_matches, out);
}

}  // namespace

std::vector<std::int64_t> suffix_array(ByteSpan text) {
  std::vector<std::int64_t> sa(text.size());
  if (text.empty()) return sa;
  static_assert(sizeof(saidx64_t) == sizeof(std::int64_t));
  if (divsufsort64(text.data(), reinterpret_cast<saidx64_t*>(sa.data()),
                   static_cast<saidx64_t>(text.size())) != 0)
    throw Error("libdivsufsort failed on a text of " + std::to_string(text.size()) + " bytes");
  return sa;
}

std::vector<std::int32_t> suffix_array32(ByteSpan text) {
  if (text.size() > kSuffixArray32MaxBytes)
    throw InvalidArgument("a 32-bit suffix array holds at most " + std::to_string(kSuffixArray32MaxBytes) +
                          " bytes, not " + std::to_string(text.size()));
  std::vector<std::int32_t> sa(text.size());
  if (text.empty()) return sa;
  static_assert(sizeof(saidx_t) == sizeof(std::int32_t));
  if (divsufsort(text.data(), reinterpret_cast<saidx_t*>(sa.data()), static_cast<saidx_t>(text.size())) != 0)
    throw Error("libdivsufsort failed on a text of " + std::to_string(text.size()) + " bytes");
  return sa;
}

namespace {

// T = A·B with its suffix and LCP arrays, `Index` wide (core/lcs_suffix.hpp).
template <class Index>
struct SuffixArrays {
  std::vector<std::uint8_t> text;
  std::vector<Index> sa, lcp;
  SuffixArrays(ByteSpan a, ByteSpan b, int threads) : text(concatenate(a, b)) {
    if constexpr (sizeof(Index) == 4) sa = suffix_array32(text);
    else sa = suffix_array(text);
    lcp = core::lcp_from_suffix_array<Index>(text, sa, threads);
  }
};

template <class Index>
void lcs_by_suffix_array(ByteSpan a, ByteSpan b, std::uint64_t max_matches, int threads, LcsResult& out) {
  const SuffixArrays<Index> t(a, b, threads);
  core::lcs_from_suffix_array<Index>(t.text, a.size(), t.sa, t.lcp, max_matches, threads, out);
}

template <class Index>
void mems_by_suffix_array(ByteSpan a, ByteSpan b, std::uint64_t min_length, std::uint64_t max_matches, int threads,
                          MemResult& out) {
  const SuffixArrays<Index> t(a, b, threads);
  core::mems_from_suffix_array<Index>(t.text, a.size(), t.sa, t.lcp, min_length, max_matches, threads, out);
}

}  // namespace

void lcs(ByteSpan a, ByteSpan b, LcsAlgorithm algorithm, std::uint64_t max_matches, int threads,
         LcsResult& out) {
  switch (algorithm) {
    case LcsAlgorithm::diagonal:
      return lcs_diagonal(a, b, max_matches, out);
    case LcsAlgorithm::dp:
      return lcs_dp(a, b, max_matches, out);
    case LcsAlgorithm::suffix_array:
    case LcsAlgorithm::suffix_array64:
      break;
  }
  if (algorithm == LcsAlgorithm::suffix_array64 || a.size() + b.size() > kSuffixArray32MaxBytes)
    lcs_by_suffix_array<std::int64_t>(a, b, max_matches, threads, out);
  else
    lcs_by_suffix_array<std::int32_t>(a, b, max_matches, threads, out);
}

void mems(ByteSpan a, ByteSpan b, std::uint64_t min_length, LcsAlgorithm algorithm,
          std::uint64_t max_matches, int threads, MemResult& out) {
  if (algorithm == LcsAlgorithm::suffix_array64 ||
      (algorithm == LcsAlgorithm::suffix_array && a.size() + b.size() > kSuffixArray32MaxBytes)) {
    mems_by_suffix_array<std::int64_t>(a, b, min_length, max_matches, threads, out);
    return;
  }
  if (algorithm == LcsAlgorithm::suffix_array) {
    mems_by_suffix_array<std::int32_t>(a, b, min_length, max_matches, threads, out);
    return;
  }
  // A MEM is exactly a maximal run of equal bytes on one alignment.
  std::vector<Mem> found;
  for_each_diagonal_run(a, b, [&](std::int64_t ia, std::int64_t ib, std::int64_t run) {
    if (static_cast<std::uint64_t>(run) >= min_length)
      found.push_back({static_cast<std::uint64_t>(ia), static_cast<std::uint64_t>(ib),
                       static_cast<std::uint64_t>(run)});
  });
  std::sort(found.begin(), found.end());
  out.total = found.size();
  if (found.size() > max_matches) found.resize(static_cast<std::size_t>(max_matches));
  out.mems = std::move(found);
}

}  // namespace warpmatch::cpu
