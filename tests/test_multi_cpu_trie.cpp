// The CPU fast path's double-array trie (src/cpu/multi_cpu_trie.*): the walk from one start
// and the level-by-level batch walk against the naive oracle, start by start, on sets built
// to hit its corners (patterns that are prefixes of others, duplicates, 1-byte patterns,
// NUL and 0xFF bytes, tails of 7 to 17 bytes, case folding, wide nodes), then through the
// public API (ordered matches, totals, per-pattern counts, chunk boundaries, small sets
// with case folding).
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "cpu/multi_cpu_trie.hpp"
#include "test_multi_oracle.hpp"
#include "warpmatch/multi.hpp"

using namespace warpmatch;

namespace {

using Found = std::map<std::uint64_t, std::vector<std::uint32_t>>;  // start -> pattern ids

Found by_start(const std::vector<Match>& matches) {
  Found found;
  for (const Match& m : matches) found[m.start].push_back(m.pattern);
  for (auto& [start, ids] : found) std::sort(ids.begin(), ids.end());
  return found;
}

// Walks from every start, one at a time and in batches of every size the text allows.
void expect_walks_match_oracle(const std::vector<std::string>& patterns, const std::string& text,
                               bool ci, const std::string& what) {
  const core::PatternSet set = core::make_pattern_set(patterns, ci);
  const cpu::MultiTrie trie = cpu::build_multi_trie(set);
  const Found want = by_start(multi_test::naive_matches(patterns, text, ci));
  const auto* t = reinterpret_cast<const std::uint8_t*>(text.data());
  const std::uint64_t n = text.size();

  Found walked;
  for (std::uint64_t pos = 0; pos < n; ++pos)
    cpu::walk_trie(trie, t, n, pos, [&](std::uint32_t count, std::uint32_t out) {
      for (std::uint32_t k = 0; k < count; ++k) walked[pos].push_back(trie.ids[out + k]);
    });
  for (auto& [start, ids] : walked) std::sort(ids.begin(), ids.end());
  EXPECT_EQ(walked, want) << what << ": walk_trie";
  // The head check (it reads 8 bytes) passes every start where a pattern begins.
  for (const auto& [start, ids] : want)
    if (start + 8 <= n) ASSERT_TRUE(cpu::heads_may_start(trie, t + start)) << what << ": head check at " << start;

  // The batch walk needs max_length + 8 readable bytes after each start.
  if (n <= set.max_length + 8) return;
  const std::uint64_t limit = n - set.max_length - 8;
  Found batched;
  cpu::TrieBatchScratch scratch;
  for (const std::uint64_t block : {std::uint64_t{1}, std::uint64_t{7}, std::uint64_t{64}, limit}) {
    batched.clear();
    for (std::uint64_t from = 0; from < limit; from += block) {
      std::vector<std::uint32_t> starts;
      for (std::uint64_t p = from; p < std::min(limit, from + block); ++p)
        starts.push_back(static_cast<std::uint32_t>(p - from));
      // Reports carry no start: attribute each batch to its starts by walking one at a time.
      std::uint64_t total = 0;
      cpu::walk_trie_batch(trie, t + from, starts.data(), starts.size(), scratch,
                           [&](std::uint32_t count, std::uint32_t) { total += count; });
      std::uint64_t expected = 0;
      for (std::uint64_t p = from; p < std::min(limit, from + block); ++p)
        if (auto it = want.find(p); it != want.end()) expected += it->second.size();
      ASSERT_EQ(total, expected) << what << ": walk_trie_batch, blocks of " << block << " at " << from;
    }
  }
  // Batch reports name the patterns: a single start per batch gives them per start.
  for (std::uint64_t p = 0; p < limit; ++p) {
    const std::uint32_t start = 0;
    cpu::walk_trie_batch(trie, t + p, &start, 1, scratch, [&](std::uint32_t count, std::uint32_t out) {
      for (std::uint32_t k = 0; k < count; ++k) batched[p].push_back(trie.ids[out + k]);
    });
  }
  for (auto& [start, ids] : batched) std::sort(ids.begin(), ids.end());
  Found want_before_limit(want.begin(), want.lower_bound(limit));
  EXPECT_EQ(batched, want_before_limit) << what << ": walk_trie_batch ids";
}

std::vector<Match> fast_matches(const std::vector<std::string>& patterns, const std::string& text,
                                bool ci, int threads) {
  MultiOptions opt;
  opt.backend = Backend::cpu;
  opt.algorithm = "fast";
  opt.case_insensitive = ci;
  opt.threads = threads;
  return MultiMatcher::compile(patterns, opt).find_all(as_bytes(text));
}

}  // namespace

TEST(MultiCpuTrie, PrefixesDuplicatesAndTailsOfEveryLength) {
  std::vector<std::string> patterns = {"a", "ab", "abc", "abcdefg", "abcdefgh", "abcdefghi",
                                       "abcdefghijklmnop", "abcdefghijklmnopq", "b", "ab", "a",
                                       "bcdefghijklmnopqrstu", "zzzzzzzzz", "zzz", "cd", "cdx"};
  std::string text = "abcdefghijklmnopqrstuvwxyz zzzzzzzzzzzzzzz abcdefgh abcdefghijklmnopq cdxcd";
  text += text;
  expect_walks_match_oracle(patterns, text, false, "prefixes");
  // Text ends inside a tail, inside an 8-byte word and exactly at a pattern's end.
  for (std::size_t cut : {1u, 2u, 8u, 9u, 16u, 17u, 20u})
    expect_walks_match_oracle(patterns, text.substr(0, 27 + cut), false, "cut " + std::to_string(cut));
}

TEST(MultiCpuTrie, NulAndFFBytesOneBytePatternsAndCaseFolding) {
  std::vector<std::string> patterns = {std::string("\0", 1), "\xff", std::string("\0\xff\0", 3),
                                       std::string("\xff\0\xff\xff\xff\xff\xff\xff\xff\0", 10),
                                       "A", "Ab", "aBcDeFgHiJ", "[", "@", "`", "{", "\xc1", "\xe1"};
  std::string text = std::string("\0\xff\0\xff\0\xff\xff\xff\xff\xff\xff\xff\0\0", 14) +
                     "abcdefghij ABCDEFGHIJ aBcDeFgHiJ [@`{ \xc1\xe1 AaBb" + std::string(20, '\0');
  for (const bool ci : {false, true})
    expect_walks_match_oracle(patterns, text, ci, ci ? "-i" : "exact");
}

TEST(MultiCpuTrie, RandomSetsOverAlphabetsAndWideNodes) {
  std::mt19937_64 rng(21);
  for (const int alphabet : {2, 4, 26, 256})
    for (const std::size_t count : {1u, 30u, 3000u}) {
      const std::string text = multi_test::random_text(rng, 3000, alphabet);
      const auto patterns = multi_test::random_patterns(rng, count, alphabet, 24, text);
      expect_walks_match_oracle(patterns, text, false,
                                "alphabet " + std::to_string(alphabet) + " count " + std::to_string(count));
    }
  // Every pattern finds itself: 20,000 random byte strings make nodes of up to 256 children.
  std::vector<std::string> patterns;
  for (int i = 0; i < 20000; ++i) patterns.push_back(multi_test::random_text(rng, 2 + rng() % 14, 256));
  const core::PatternSet set = core::make_pattern_set(patterns, false);
  const cpu::MultiTrie trie = cpu::build_multi_trie(set);
  for (std::uint32_t id = 0; id < patterns.size(); ++id) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(patterns[id].data());
    bool found = false;
    cpu::walk_trie(trie, p, patterns[id].size(), 0, [&](std::uint32_t count, std::uint32_t out) {
      for (std::uint32_t k = 0; k < count; ++k) found |= trie.ids[out + k] == id;
    });
    ASSERT_TRUE(found) << "pattern " << id;
  }
}

TEST(MultiCpuTrie, PublicApiCountsAndOrderAcrossChunkBoundaries) {
  // 1 MiB chunks: words, their prefixes and a 1-byte pattern straddle each boundary.
  std::mt19937_64 rng(22);
  std::string text = multi_test::random_text(rng, (2u << 20) + 321, 26);
  const std::vector<std::string> patterns = {"license", "licensee", "lic", "l", "e", "ee",
                                             "LICENSEE", "abcdabcdabcdabcd", "dab"};
  for (const std::uint64_t boundary : {1ull << 20, 2ull << 20}) {
    text.replace(boundary - 4, 8, "licensee");
    text.replace(boundary - 9, 16, "abcdabcdabcdabcd");
  }
  for (const bool ci : {false, true}) {
    const auto want = multi_test::naive_matches(patterns, text, ci);
    ASSERT_GT(want.size(), 500u);
    for (const int threads : {1, 3}) {
      const auto got = fast_matches(patterns, text, ci, threads);
      ASSERT_EQ(got.size(), want.size());
      EXPECT_TRUE(got == want) << "order or content differs, threads " << threads << (ci ? " -i" : "");
      MultiOptions opt;
      opt.backend = Backend::cpu;
      opt.case_insensitive = ci;
      opt.threads = threads;
      const auto m = MultiMatcher::compile(patterns, opt);
      EXPECT_EQ(m.count(as_bytes(text)), want.size());
      std::vector<std::uint64_t> per_pattern(patterns.size(), 0);
      for (const Match& h : want) ++per_pattern[h.pattern];
      EXPECT_EQ(m.count_per_pattern(as_bytes(text)), per_pattern);
    }
  }
}

TEST(MultiCpuTrie, HeadCheckPassesEveryMatchAndRejectsMostOtherStarts) {
  // 1000 words of 4-16 letters over 8 letters' text: every start matching passes, and of
  // the starts that begin no pattern most are rejected, though their first 4 bytes often
  // begin one (what the scan's 4-byte filter alone lets through to a walk).
  std::mt19937_64 rng(29);
  const std::string text = multi_test::random_text(rng, 100000, 8);
  std::vector<std::string> patterns;
  while (patterns.size() < 1000) {
    const std::size_t at = rng() % (text.size() - 16);
    patterns.push_back(text.substr(at, 4 + rng() % 13));
  }
  for (const bool ci : {false, true}) {
    const core::PatternSet set = core::make_pattern_set(patterns, ci);
    const cpu::MultiTrie trie = cpu::build_multi_trie(set);
    const Found want = by_start(multi_test::naive_matches(patterns, text, ci));
    std::set<std::string> prefixes4;
    for (const auto& p : patterns) prefixes4.insert(p.substr(0, 4));
    const auto* t = reinterpret_cast<const std::uint8_t*>(text.data());
    std::uint64_t other = 0, other_passed = 0, prefix_only = 0;
    for (std::uint64_t pos = 0; pos + 8 <= text.size(); ++pos) {
      const bool passed = cpu::heads_may_start(trie, t + pos);
      if (want.count(pos)) {
        ASSERT_TRUE(passed) << "a match at " << pos << (ci ? " (-i)" : "");
        continue;
      }
      ++other;
      other_passed += passed;
      prefix_only += prefixes4.count(text.substr(pos, 4));
    }
    ASSERT_GT(want.size(), 500u);
    EXPECT_GT(prefix_only, other / 10) << "the 4-byte filter would pass these";
    EXPECT_LT(other_passed, other / 10) << "head check passed " << other_passed << " of " << other;
    EXPECT_TRUE(fast_matches(patterns, text, ci, 2) == multi_test::naive_matches(patterns, text, ci));
  }
  // Dense matches (every 4-mer of ACGT begins a pattern): the scan stops checking heads.
  const std::string dense = multi_test::random_text(rng, 300000, 4);
  std::vector<std::string> kmers;
  for (int k = 0; k < 256; ++k) {
    const std::string kmer{"ACGT"[k % 4], "ACGT"[k / 4 % 4], "ACGT"[k / 16 % 4], "ACGT"[k / 64]};
    kmers.push_back(kmer);
    kmers.push_back(dense.substr(dense.find(kmer), 5));
  }
  EXPECT_TRUE(fast_matches(kmers, dense, false, 2) == multi_test::naive_matches(kmers, dense, false));
}

TEST(MultiCpuTrie, SmallSetsOfLength4UpWithCaseFolding) {
  // Up to 128 patterns, none shorter than 4 (no short gate), some upper case, both modes.
  std::mt19937_64 rng(23);
  std::string text = multi_test::random_text(rng, 200000, 26);
  for (std::size_t i = 0; i < text.size(); i += 5) text[i] = static_cast<char>(text[i] - 32);
  for (const std::size_t count : {1u, 100u, 128u}) {
    auto patterns = multi_test::random_patterns(rng, count, 26, 12, text);
    for (auto& p : patterns)
      while (p.size() < 4) p += static_cast<char>('a' + rng() % 26);
    for (std::size_t i = 0; i < patterns.size(); i += 3) patterns[i][0] = static_cast<char>(patterns[i][0] ^ 0x20);
    for (const bool ci : {false, true}) {
      const auto want = multi_test::naive_matches(patterns, text, ci);
      const std::string what = std::to_string(count) + " patterns" + (ci ? " -i" : "");
      if (count > 1) ASSERT_GT(want.size(), 10u) << what;
      EXPECT_TRUE(fast_matches(patterns, text, ci, 2) == want) << what;
      MultiOptions opt;
      opt.backend = Backend::cpu;
      opt.case_insensitive = ci;
      EXPECT_EQ(MultiMatcher::compile(patterns, opt).count(as_bytes(text)), want.size()) << what;
    }
  }
}
