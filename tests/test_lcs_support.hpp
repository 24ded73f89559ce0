// Shared by the LCS tests: an independent quadratic oracle, a k-gram oracle for large inputs,
// input generators and the comparison of a result against the oracle.
#pragma once

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "warpmatch/lcs.hpp"

namespace lcs_test {

using Bytes = std::vector<std::uint8_t>;

inline warpmatch::ByteSpan span(const Bytes& v) { return {v.data(), v.size()}; }
inline Bytes bytes(std::string_view s) { return Bytes(s.begin(), s.end()); }

inline Bytes random_bytes(std::mt19937_64& rng, std::size_t n, int alphabet, int first = 0) {
  Bytes v(n);
  std::uniform_int_distribution<int> d(0, alphabet - 1);
  for (auto& c : v) c = static_cast<std::uint8_t>(first + d(rng));
  return v;
}

/// Every occurrence pair of the longest common substring, by the plain O(mn) recurrence,
/// written here independently of the library.
struct OracleLcs {
  std::uint64_t length = 0, count = 0;
  std::vector<warpmatch::LcsPair> pairs;  // all, sorted
};

inline OracleLcs oracle_lcs(const Bytes& a, const Bytes& b) {
  OracleLcs r;
  std::vector<std::uint32_t> prev(b.size() + 1, 0), cur(b.size() + 1, 0);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      cur[j] = a[i - 1] == b[j - 1] ? prev[j - 1] + 1 : 0;
      if (cur[j] == 0 || cur[j] < r.length) continue;
      if (cur[j] > r.length) {
        r.length = cur[j];
        r.pairs.clear();
      }
      r.pairs.push_back({i - cur[j], j - cur[j]});
    }
    std::swap(prev, cur);
  }
  std::sort(r.pairs.begin(), r.pairs.end());
  std::set<std::string> distinct;
  for (const auto& p : r.pairs) distinct.emplace(a.begin() + p.a, a.begin() + p.a + r.length);
  r.count = distinct.size();
  return r;
}

/// Every MEM: maximal runs of equal bytes on every diagonal, by a direct double loop.
inline std::vector<warpmatch::Mem> oracle_mems(const Bytes& a, const Bytes& b, std::uint64_t min_len) {
  std::vector<warpmatch::Mem> out;
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = 0; j < b.size(); ++j) {
      if (a[i] != b[j]) continue;
      if (i > 0 && j > 0 && a[i - 1] == b[j - 1]) continue;  // not left-maximal
      std::size_t len = 0;
      while (i + len < a.size() && j + len < b.size() && a[i + len] == b[j + len]) ++len;
      if (len >= min_len) out.push_back({i, j, len});
    }
  return out;  // (a, b) order by construction
}

/// For large inputs with a short answer: counts of the length-k common substrings by hashing
/// every k-gram of A. Returns {distinct common k-grams, occurrence pairs}.
inline std::pair<std::uint64_t, std::uint64_t> kgram_counts(const Bytes& a, const Bytes& b,
                                                            std::uint64_t k) {
  if (k == 0 || k > a.size() || k > b.size()) return {0, 0};
  std::unordered_map<std::string_view, std::uint64_t> in_a;
  const auto* pa = reinterpret_cast<const char*>(a.data());
  const auto* pb = reinterpret_cast<const char*>(b.data());
  for (std::size_t i = 0; i + k <= a.size(); ++i) ++in_a[std::string_view(pa + i, k)];
  std::unordered_map<std::string_view, bool> seen;
  std::uint64_t pairs = 0, distinct = 0;
  for (std::size_t j = 0; j + k <= b.size(); ++j) {
    const auto it = in_a.find(std::string_view(pb + j, k));
    if (it == in_a.end()) continue;
    pairs += it->second;
    if (!seen[it->first]) {
      seen[it->first] = true;
      ++distinct;
    }
  }
  return {distinct, pairs};
}

/// Checks length, count, total and the complete (or first max_matches) pairs.
inline void expect_matches_oracle(const warpmatch::LcsResult& r, const OracleLcs& o,
                                  std::uint64_t max_matches, const std::string& what) {
  EXPECT_EQ(r.length, o.length) << what;
  EXPECT_EQ(r.count, o.count) << what;
  EXPECT_EQ(r.total_pairs, o.pairs.size()) << what;
  std::vector<warpmatch::LcsPair> expected = o.pairs;
  if (expected.size() > max_matches) expected.resize(max_matches);
  EXPECT_EQ(r.pairs, expected) << what;
}

/// Checks a large result without the quadratic oracle: every reported pair is a genuine
/// common substring, nothing of length L + 1 is common, counts agree with the k-gram oracle.
inline void expect_consistent_large(const warpmatch::LcsResult& r, const Bytes& a, const Bytes& b,
                                    const std::string& what) {
  for (const auto& p : r.pairs) {
    ASSERT_LE(p.a + r.length, a.size()) << what;
    ASSERT_LE(p.b + r.length, b.size()) << what;
    ASSERT_TRUE(std::equal(a.begin() + p.a, a.begin() + p.a + r.length, b.begin() + p.b)) << what;
  }
  EXPECT_TRUE(std::is_sorted(r.pairs.begin(), r.pairs.end())) << what;
  const auto [distinct, pairs] = kgram_counts(a, b, r.length);
  EXPECT_EQ(r.count, distinct) << what;
  EXPECT_EQ(r.total_pairs, pairs) << what;
  EXPECT_EQ(kgram_counts(a, b, r.length + 1).second, 0u) << what << ": a longer one exists";
}

/// Phage lambda (Debian bowtie2-examples), sequence bytes only; empty when absent.
inline Bytes lambda_genome() {
  Bytes seq;
  gzFile g = gzopen("/usr/share/doc/bowtie2/examples/reference/lambda_virus.fa.gz", "rb");
  if (!g) return seq;
  std::string all;
  char buf[1 << 16];
  for (int n; (n = gzread(g, buf, sizeof buf)) > 0;) all.append(buf, static_cast<std::size_t>(n));
  gzclose(g);
  bool header = false;
  for (char c : all) {
    if (c == '>') header = true;
    if (c == '\n') {
      header = false;
      continue;
    }
    if (!header && c != '\r') seq.push_back(static_cast<std::uint8_t>(c));
  }
  return seq;
}

/// A copy with about one substitution per `every` bytes (fixed seed).
inline Bytes mutated(const Bytes& s, int every, std::uint64_t seed) {
  Bytes m = s;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> pos(0, s.size() - 1);
  const std::string acgt = "ACGT";
  for (std::size_t k = 0; k < s.size() / static_cast<std::size_t>(every); ++k) {
    const std::size_t p = pos(rng);
    m[p] = static_cast<std::uint8_t>(acgt[(acgt.find(static_cast<char>(m[p])) + 1 + rng() % 3) % 4]);
  }
  return m;
}

/// The paper's test: "zhangchangzhi001" planted in two random strings of the given sizes.
struct Planted {
  Bytes a, b;
  std::size_t at_a = 0, at_b = 0;
};
inline Planted planted(std::size_t m, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Planted p;
  p.a = random_bytes(rng, m, 26, 'a');
  p.b = random_bytes(rng, n, 26, 'a');
  const std::string sig = "zhangchangzhi001";
  p.at_a = rng() % (m - sig.size());
  p.at_b = rng() % (n - sig.size());
  std::copy(sig.begin(), sig.end(), p.a.begin() + p.at_a);
  std::copy(sig.begin(), sig.end(), p.b.begin() + p.at_b);
  return p;
}

/// Inputs every backend must get right, named for failure messages.
inline std::vector<std::tuple<std::string, Bytes, Bytes>> adversarial_cases() {
  std::vector<std::tuple<std::string, Bytes, Bytes>> c;
  c.emplace_back("no common byte", bytes("aaaabbbb"), bytes("xyzxyz"));
  c.emplace_back("identical", bytes("the quick brown fox"), bytes("the quick brown fox"));
  c.emplace_back("B inside A", bytes("xxxxhello worldyyyy"), bytes("hello world"));
  c.emplace_back("A inside B", bytes("hello"), bytes("say hello, hello again"));
  c.emplace_back("flood equal", Bytes(40, 'a'), Bytes(40, 'a'));
  c.emplace_back("flood A longer", Bytes(50, 'a'), Bytes(17, 'a'));
  c.emplace_back("flood B longer", Bytes(9, 'a'), Bytes(33, 'a'));
  c.emplace_back("periodic", bytes("abababababababababab"), bytes("babababab"));
  c.emplace_back("periodic 3", bytes("abcabcabcabcabcab"), bytes("cabcabcabx"));
  c.emplace_back("one byte equal", bytes("q"), bytes("q"));
  c.emplace_back("one byte differ", bytes("q"), bytes("r"));
  c.emplace_back("one byte in long", bytes("z"), bytes("abczabcz"));
  c.emplace_back("NUL and 0xFF", Bytes{0, 0, 255, 0, 255, 255, 1, 0}, Bytes{255, 0, 255, 255, 0, 0});
  c.emplace_back("NUL floods", Bytes(20, 0), Bytes(7, 0));
  c.emplace_back("0xFF floods", Bytes(6, 255), Bytes(31, 255));
  c.emplace_back("A's tail runs into B", bytes("xyzab"), bytes("abcdqqq xyzabcd"));
  c.emplace_back("clamp: A suffix equals B prefix", bytes("cabcd"), bytes("abcdxxxabc"));
  c.emplace_back("many short repeats", bytes("ax ax ax ax ax"), bytes("ay ay ay ay"));
  c.emplace_back("A then B continues A", bytes("abcabc"), bytes("abcabcabc"));
  return c;
}

}  // namespace lcs_test
