// Multi-pattern exact search on the CPU backend (fast, mbndm, naive) against Hyperscan's
// literal mode and a plain double loop: random sets over alphabets 2/4/26/256, adversarial
// sets, real words in real text. Plus the public API contract and the pattern-file parser.
#include <gtest/gtest.h>

#include <set>

#include "core/multi_patterns.hpp"
#include "support/sanitizers.hpp"
#include "test_multi_oracle.hpp"
#include "warpmatch/multi.hpp"

using namespace warpmatch;
using multi_test::oracle_matches;

namespace {

std::vector<Match> cpu_matches(const std::vector<std::string>& patterns, const std::string& text,
                               const std::string& algo, bool ci = false, int threads = 0) {
  MultiOptions opt;
  opt.backend = Backend::cpu;
  opt.algorithm = algo;
  opt.case_insensitive = ci;
  opt.threads = threads;
  return MultiMatcher::compile(patterns, opt).find_all(as_bytes(text));
}

// Compares with the oracle and, on failure, names the first difference.
void expect_same(const std::vector<Match>& got, const std::vector<Match>& want,
                 const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(got[i], want[i]) << what << ": match " << i << " differs (pattern " << got[i].pattern
                               << " at " << got[i].start << " vs pattern " << want[i].pattern
                               << " at " << want[i].start << ")";
}

const char* kCpuAlgorithms[] = {"fast", "mbndm"};

}  // namespace

TEST(MultiCpu, RandomSetsMatchHyperscanOverAlphabets) {
  std::mt19937_64 rng(5);
  for (int alphabet : {2, 4, 26, 256})
    for (std::size_t count : {1u, 7u, 100u, 1000u}) {
      const std::string text = multi_test::random_text(rng, 1 << 15, alphabet);
      const auto patterns = multi_test::random_patterns(rng, count, alphabet, 64, text);
      const auto want = oracle_matches(patterns, text);
      for (const char* algo : kCpuAlgorithms)
        expect_same(cpu_matches(patterns, text, algo), want,
                    std::string(algo) + " alphabet " + std::to_string(alphabet) + " patterns " +
                        std::to_string(count));
    }
}

// Sets without patterns shorter than 4 take the 32-starts-at-a-time filter (AVX2 where the
// CPU has it): every alphabet, folding, every text length near the 40-byte reads.
TEST(MultiCpu, SetsOfLength4UpOverAlphabetsCaseAndTextEnds) {
  std::mt19937_64 rng(113);
  for (int alphabet : {2, 4, 26, 256})
    for (std::size_t count : {1u, 50u, 2000u}) {
      if (alphabet < 26 && count > 50) continue;  // bounded hits
      const std::string text = multi_test::random_text(rng, 100000 + 13, alphabet);
      auto patterns = multi_test::random_patterns(rng, count, alphabet, 30, text);
      std::erase_if(patterns, [](const std::string& p) { return p.size() < 4; });
      patterns.push_back(text.substr(text.size() - 4, 4));
      patterns.push_back(text.substr(1000, 33));
      const std::string what = "alphabet " + std::to_string(alphabet) + " patterns " + std::to_string(count);
      expect_same(cpu_matches(patterns, text, "fast"), oracle_matches(patterns, text), what);
      for (std::size_t len : {4u, 39u, 40u, 41u, 47u, 48u, 72u, 73u})
        expect_same(cpu_matches(patterns, text.substr(0, len), "fast"),
                    multi_test::naive_matches(patterns, text.substr(0, len)),
                    what + " text of " + std::to_string(len));
    }
  std::string text = multi_test::random_text(rng, 50000, 26);
  for (std::size_t i = 0; i < text.size(); i += 3) text[i] = static_cast<char>(text[i] - 32);
  text += "@[`{\xc1\xe1\xc1\xe1";
  auto patterns = multi_test::random_patterns(rng, 400, 26, 12, text);
  std::erase_if(patterns, [](const std::string& p) { return p.size() < 4; });
  for (std::size_t i = 0; i < patterns.size(); i += 2)
    for (auto& c : patterns[i]) c = static_cast<char>(c ^ 0x20);
  patterns.push_back("\xe1\xc1\xe1\xc1");  // not letters: never folded
  patterns.push_back("`{\xc1\xe1");
  expect_same(cpu_matches(patterns, text, "fast", true), oracle_matches(patterns, text, true), "-i");
}

TEST(MultiCpu, NaiveReferenceAgreesWithIndependentLoop) {
  std::mt19937_64 rng(6);
  for (int alphabet : {2, 26, 256}) {
    const std::string text = multi_test::random_text(rng, 3000, alphabet);
    const auto patterns = multi_test::random_patterns(rng, 40, alphabet, 12, text);
    expect_same(cpu_matches(patterns, text, "naive"), multi_test::naive_matches(patterns, text),
                "naive alphabet " + std::to_string(alphabet));
  }
}

TEST(MultiCpu, HundredThousandPatternsMatchHyperscan) {
  std::mt19937_64 rng(7);
  // Under AddressSanitizer a quarter of the text (the set stays 100,000): the full test took
  // 98 s of the sanitized suite on the 2-core CI machine.
#if defined(WARPMATCH_UNDER_ASAN)
  constexpr std::size_t kTextBytes = 1 << 16;
#else
  constexpr std::size_t kTextBytes = 1 << 18;
#endif
  const std::string text = multi_test::random_text(rng, kTextBytes, 26);
  const auto patterns = multi_test::random_patterns(rng, 100000, 26, 32, text);
  const auto want = oracle_matches(patterns, text);
  ASSERT_GT(want.size(), 1000u);
  expect_same(cpu_matches(patterns, text, "fast"), want, "fast 100K patterns");
  // M-BNDM scans the text once per subset: a shorter text keeps the baseline quick.
  const std::string short_text = text.substr(0, 4096);
  expect_same(cpu_matches(patterns, short_text, "mbndm"), oracle_matches(patterns, short_text),
              "mbndm 100K patterns");
}

TEST(MultiCpu, PrefixSuffixSubstringAndDuplicatePatternsAllReport) {
  const std::vector<std::string> patterns = {"a",   "aa",   "aaa",  "ab", "b",   "bab", "abab",
                                             "aa",  "a",    "bab",  "abababab", "babababa",
                                             "ba",  "abababababababababab"};
  for (const std::string text :
       {std::string("ababababababababababababab"), std::string(300, 'a'), std::string("a"),
        std::string("ba"), std::string("aab") + std::string(100, 'b')}) {
    const auto want = multi_test::naive_matches(patterns, text);
    for (const char* algo : kCpuAlgorithms)
      expect_same(cpu_matches(patterns, text, algo), want, std::string(algo) + " on " + text);
  }
  // Duplicates keep their own index: "a" is patterns 0 and 8, both at every 'a'.
  const auto hits = cpu_matches(patterns, "a", "fast");
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].pattern, 0u);
  EXPECT_EQ(hits[1].pattern, 8u);
}

TEST(MultiCpu, OneBytePatternsFloodsAndEveryByteValue) {
  std::vector<std::string> patterns;
  for (int c = 0; c < 256; ++c) patterns.push_back(std::string(1, static_cast<char>(c)));
  patterns.push_back(std::string("\0\0", 2));
  patterns.push_back(std::string("\xff\xff\xff\xff\xff\xff\xff\xff\xff", 9));
  patterns.push_back(std::string("\0\xff\0", 3));
  std::string text(2000, '\0');
  for (std::size_t i = 1000; i < 1500; ++i) text[i] = '\xff';
  text[1700] = '\xff';
  text[1600] = 'x';
  const auto want = oracle_matches(patterns, text);
  EXPECT_GT(want.size(), 2000u + 1000u);  // every byte, NUL pairs, 0xFF runs
  EXPECT_EQ(want, multi_test::naive_matches(patterns, text));
  for (const char* algo : kCpuAlgorithms) expect_same(cpu_matches(patterns, text, algo), want, algo);
}

TEST(MultiCpu, MatchesAcrossChunkBoundariesOnManyThreads) {
  // Chunks own 1 MiB of starts; put occurrences of long and short patterns across them.
  std::mt19937_64 rng(8);
  std::string text = multi_test::random_text(rng, (3u << 20) + 777, 26);
  std::vector<std::string> patterns = {std::string(1000, 'q'), "zzzz", "qz", "z",
                                       multi_test::random_text(rng, 300, 26)};
  for (std::uint64_t boundary : {1ull << 20, 2ull << 20, 3ull << 20}) {
    text.replace(boundary - 500, 1000, patterns[0]);
    text.replace(boundary - 2, 4, "zzzz");
    text.replace(boundary + 600 - 150, 300, patterns[4]);
  }
  const auto want = oracle_matches(patterns, text);
  for (int threads : {1, 3, 8})
    for (const char* algo : kCpuAlgorithms)
      expect_same(cpu_matches(patterns, text, algo, false, threads), want,
                  std::string(algo) + " threads " + std::to_string(threads));
}

TEST(MultiCpu, LongPatternsAndPatternsLongerThanTheText) {
  std::mt19937_64 rng(9);
  const std::string text = multi_test::random_text(rng, 5000, 4);
  std::vector<std::string> patterns = {text.substr(100, 1000), text.substr(4000, 1000),
                                       text.substr(3000, 2000), text + "A", text,
                                       text.substr(4990, 10), text.substr(4999, 1)};
  // Not Hyperscan here: 5.4 drops matches ending at the end of the buffer when the set holds
  // literals of ~1000 bytes or more (found while writing this test).
  const auto want = multi_test::naive_matches(patterns, text);
  ASSERT_GE(want.size(), 6u);
  for (const char* algo : kCpuAlgorithms) expect_same(cpu_matches(patterns, text, algo), want, algo);
}

TEST(MultiCpu, CaseInsensitiveMatchesHyperscanCaseless) {
  std::mt19937_64 rng(10);
  std::string text = multi_test::random_text(rng, 1 << 14, 26);
  for (std::size_t i = 0; i < text.size(); i += 3) text[i] = static_cast<char>(text[i] - 32);
  text += "[@`{ \xc1\xe1";  // bytes next to the letter ranges must not fold
  auto patterns = multi_test::random_patterns(rng, 300, 26, 12, text);
  for (std::size_t i = 0; i < patterns.size(); i += 2)
    for (auto& c : patterns[i])
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
  patterns.push_back("[");
  patterns.push_back("{");
  patterns.push_back("\xe1");
  const auto want = oracle_matches(patterns, text, true);
  EXPECT_EQ(want, multi_test::naive_matches(patterns, text, true));
  for (const char* algo : kCpuAlgorithms)
    expect_same(cpu_matches(patterns, text, algo, true), want, std::string(algo) + " -i");
}

TEST(MultiCpu, DictionaryWordsInEnglishText) {
  const auto words = multi_test::dictionary_words();
  const std::string text = multi_test::english_text();
  if (words.empty() || text.empty()) GTEST_SKIP() << "no /usr/share/dict/words or licence texts";
  const auto want = oracle_matches(words, text);
  ASSERT_GT(want.size(), 10000u);
  expect_same(cpu_matches(words, text, "fast"), want, "fast words");
  const std::vector<std::string> some(words.begin(), words.begin() + std::min<std::size_t>(2000, words.size()));
  expect_same(cpu_matches(some, text, "mbndm"), oracle_matches(some, text), "mbndm words");
  expect_same(cpu_matches(words, text, "fast", true), oracle_matches(words, text, true),
              "fast words -i");
}

TEST(MultiCpu, GenomeKmersInLambdaPhage) {
  const std::string genome = multi_test::lambda_genome();
  if (genome.empty()) GTEST_SKIP() << "lambda_virus.fa.gz not installed (bowtie2-examples)";
  std::mt19937_64 rng(11);
  std::vector<std::string> kmers = {"GGATCC", "GAATTC", "A", "AC"};
  for (int i = 0; i < 2000; ++i) {
    const std::size_t len = 4 + rng() % 20;
    kmers.push_back(genome.substr(rng() % (genome.size() - len), len));
  }
  const auto want = oracle_matches(kmers, genome);
  for (const char* algo : kCpuAlgorithms) expect_same(cpu_matches(kmers, genome, algo), want, algo);
}

// Sets over a small alphabet whose 4-byte prefixes cover most of it get the 8-byte scan
// bitmap (DNA of length >= 8); others keep the 4-byte one.
TEST(MultiCpu, EightByteScanBitmapOnlyWhereFourBytePrefixesSaturate) {
  std::mt19937_64 rng(13);
  auto index_of = [](const std::vector<std::string>& ps, bool ci = false) {
    return core::build_prefix_index(core::make_pattern_set(ps, ci));
  };
  std::vector<std::string> kmers, primers, protein;
  for (int i = 0; i < 1000; ++i) kmers.push_back(multi_test::random_text(rng, 12, 4));
  for (int i = 0; i < 5; ++i) primers.push_back(multi_test::random_text(rng, 20, 4));
  for (int i = 0; i < 1000; ++i) protein.push_back(multi_test::random_text(rng, 12, 20));
  const core::PrefixIndex dna = index_of(kmers);
  ASSERT_TRUE(dna.key8_scan());
  EXPECT_EQ(dna.key8_bits, 18);
  // What compile_stats() says of it: the filter's key per start (0 without the fast filter).
  EXPECT_EQ(MultiMatcher::compile(kmers, {{.backend = Backend::cpu}}).compile_stats().filter_key_bytes, 8);
  EXPECT_EQ(MultiMatcher::compile(protein, {{.backend = Backend::cpu}}).compile_stats().filter_key_bytes, 4);
  MultiOptions mbndm;
  mbndm.backend = Backend::cpu;
  mbndm.algorithm = "mbndm";
  EXPECT_EQ(MultiMatcher::compile(kmers, mbndm).compile_stats().filter_key_bytes, 0);
  std::vector<std::string> lower = kmers;
  for (auto& k : lower) for (auto& c : k) c = static_cast<char>(c + 32);
  EXPECT_TRUE(index_of(lower, true).key8_scan());
  kmers.push_back("ACGTACG");  // one pattern shorter than 8: its q = 4 class needs the 4-byte bitmap
  EXPECT_FALSE(index_of(kmers).key8_scan());
  EXPECT_FALSE(index_of(primers).key8_scan());  // 5 of 256 4-mers: the 4-byte bitmap rejects most starts
  EXPECT_FALSE(index_of(protein).key8_scan());  // 20 letters
  EXPECT_FALSE(index_of(multi_test::dictionary_words()).key8_scan());
}

// DNA k-mers of length >= 8 (the 8-byte scan bitmap) against Hyperscan (else the double
// loop): planted across
// chunk boundaries on several threads, soft-masked text folded, the genome's own k-mers.
TEST(MultiCpu, DnaKmersThroughTheEightByteScanMatchTheOracle) {
  std::mt19937_64 rng(14);
  std::string text = multi_test::random_text(rng, (2u << 20) + 333, 4);
  std::vector<std::string> kmers;
  for (int i = 0; i < 1000; ++i) kmers.push_back(multi_test::random_text(rng, 8 + i % 25, 4));
  for (std::uint64_t boundary : {1ull << 20, 2ull << 20}) {
    text.replace(boundary - 6, 12, kmers[4]);
    text.replace(boundary - 1, 8, kmers[0]);
  }
  text.replace(text.size() - 8, 8, kmers[0]);
  ASSERT_TRUE(core::build_prefix_index(core::make_pattern_set(kmers, false)).key8_scan());
  const auto want = oracle_matches(kmers, text);
  ASSERT_GT(want.size(), 50u);
  for (int threads : {1, 3})
    expect_same(cpu_matches(kmers, text, "fast", false, threads), want, "threads " + std::to_string(threads));
  std::string soft = text.substr(0, 1 << 18);
  for (std::size_t i = 0; i < soft.size(); i += 1 + i % 5) soft[i] = static_cast<char>(soft[i] + 32);
  expect_same(cpu_matches(kmers, soft, "fast", true), oracle_matches(kmers, soft, true), "folded");
  const std::string genome = multi_test::lambda_genome();
  if (genome.empty()) return;
  std::vector<std::string> from_genome;
  for (int i = 0; i < 3000; ++i) {
    const std::size_t len = 8 + rng() % 24;
    from_genome.push_back(genome.substr(rng() % (genome.size() - len), len));
  }
  expect_same(cpu_matches(from_genome, genome, "fast"), oracle_matches(from_genome, genome), "lambda k-mers");
}

// Large sets whose 4- or 8-byte scan key passes most starts of text over their alphabet get the
// long-key bitmap (L = the shortest pattern, at most 16); small or selective sets, sets with
// short patterns, and indexes built without it (long_key = false) do not.
TEST(MultiCpu, LongKeyScanBitmapOnlyForLargeSetsWhoseShortKeysSaturate) {
  std::mt19937_64 rng(15);
  auto index_of = [](const std::vector<std::string>& ps, bool long_key = true) {
    return core::build_prefix_index(core::make_pattern_set(ps, false), long_key);
  };
  const auto dna = multi_test::random_words(rng, 20000, 4, 12, 30);      // every ACGT 8-mer's bit nearly
  const auto words = multi_test::random_words(rng, 100000, 26, 6, 12);   // most a-z 4-grams
  const auto protein = multi_test::random_words(rng, 30000, 20, 9, 20);  // 9 bytes: a partial third word
  const core::PrefixIndex d = index_of(dna), w = index_of(words), p = index_of(protein);
  ASSERT_TRUE(d.long_key_scan());
  EXPECT_EQ(d.long_key_bytes, 12);
  EXPECT_TRUE(d.key8_scan());  // the GPU's filter is still there
  ASSERT_TRUE(w.long_key_scan());
  EXPECT_EQ(w.long_key_bytes, 6);
  ASSERT_TRUE(p.long_key_scan());
  EXPECT_EQ(p.long_key_bytes, 9);
  EXPECT_EQ(d.long_key_bits, 21);  // ~64 bits per pattern
  EXPECT_FALSE(index_of(dna, false).long_key_scan());
  EXPECT_EQ(MultiMatcher::compile(dna, {{.backend = Backend::cpu}}).compile_stats().filter_key_bytes, 12);
  EXPECT_EQ(MultiMatcher::compile(words, {{.backend = Backend::cpu}}).compile_stats().filter_key_bytes, 6);
  EXPECT_FALSE(index_of(multi_test::random_words(rng, 1000, 4, 12, 12)).long_key_scan());   // the 8-byte key is selective
  EXPECT_FALSE(index_of(multi_test::random_words(rng, 1000, 26, 6, 12)).long_key_scan());   // the 4-byte key is selective
  EXPECT_FALSE(index_of(multi_test::random_words(rng, 20000, 4, 8, 30)).long_key_scan());   // L = 8 adds nothing to key8
  EXPECT_FALSE(index_of(multi_test::random_words(rng, 100000, 4, 9, 30)).long_key_scan());  // 4^9 < 64 x 10^5: too few
  auto with_short = words;
  with_short.push_back("abcd");
  EXPECT_FALSE(index_of(with_short).long_key_scan());
  EXPECT_FALSE(index_of(multi_test::dictionary_words()).long_key_scan());
}

// The long-key filter never drops a match: planted across chunk boundaries and at the text's
// end, on one and several threads, case-folded, counted per pattern; both of its loads (L <= 8
// and L > 8, a partial last word at L = 9).
TEST(MultiCpu, LargeSetsThroughTheLongKeyScanMatchTheOracle) {
  std::mt19937_64 rng(16);
  struct Case {
    const char* what;
    int alphabet;
    std::size_t count, min_len, max_len;
  };
  for (const Case c : {Case{"dna 12..30", 4, 20000, 12, 30}, Case{"dna 16..40", 4, 20000, 16, 40},
                       Case{"words 6..12", 26, 100000, 6, 12}, Case{"protein 9..20", 20, 30000, 9, 20}}) {
    std::string text = multi_test::random_text(rng, (1u << 20) + 4099, c.alphabet);
    auto patterns = multi_test::random_words(rng, c.count, c.alphabet, c.min_len, c.max_len);
    for (int i = 0; i < 300; ++i) {  // planted copies, and patterns cut from the text
      const std::string& p = patterns[rng() % patterns.size()];
      text.replace(rng() % (text.size() - p.size()), p.size(), p);
      const std::size_t len = c.min_len + rng() % (c.max_len - c.min_len + 1);
      patterns[rng() % patterns.size()] = text.substr(rng() % (text.size() - len), len);
    }
    text.replace((1u << 20) - 3, patterns[1].size(), patterns[1]);
    text.replace(text.size() - patterns[2].size(), patterns[2].size(), patterns[2]);
    ASSERT_TRUE(core::build_prefix_index(core::make_pattern_set(patterns, false), true).long_key_scan()) << c.what;
    const auto want = multi_test::hashed_matches(patterns, text);
    ASSERT_GT(want.size(), 500u) << c.what;
    for (int threads : {1, 3})
      expect_same(cpu_matches(patterns, text, "fast", false, threads), want,
                  std::string(c.what) + ", threads " + std::to_string(threads));
    std::vector<std::uint64_t> tally(patterns.size(), 0);
    for (const Match& m : want) ++tally[m.pattern];
    MultiOptions opt;
    opt.backend = Backend::cpu;
    EXPECT_EQ(MultiMatcher::compile(patterns, opt).count_per_pattern(as_bytes(text)), tally) << c.what;
    if (c.alphabet == 20) continue;  // 'A'.. letters: folding them would leave the alphabet
    std::string mixed = text.substr(0, 1 << 18);
    for (std::size_t i = 0; i < mixed.size(); i += 1 + i % 3)
      mixed[i] = static_cast<char>(c.alphabet == 4 ? mixed[i] + 32 : mixed[i] - 32);
    expect_same(cpu_matches(patterns, mixed, "fast", true), multi_test::hashed_matches(patterns, mixed, true),
                std::string(c.what) + " -i");
  }
}

TEST(MultiApi, CountsPerPatternAndTotalsAgreeWithMatches) {
  std::mt19937_64 rng(12);
  const std::string text = multi_test::random_text(rng, 1 << 16, 4);
  const auto patterns = multi_test::random_patterns(rng, 500, 4, 10, text);
  for (const char* algo : kCpuAlgorithms) {
    MultiOptions opt;
    opt.backend = Backend::cpu;
    opt.algorithm = algo;
    const auto m = MultiMatcher::compile(patterns, opt);
    const auto all = m.find_all(as_bytes(text));
    std::vector<std::uint64_t> tally(patterns.size(), 0);
    for (const auto& x : all) ++tally[x.pattern];
    EXPECT_EQ(m.count_per_pattern(as_bytes(text)), tally) << algo;
    EXPECT_EQ(m.count(as_bytes(text)), all.size()) << algo;
  }
}

TEST(MultiApi, ScanStopsWhenTheSinkSaysSo) {
  const std::string text(5 << 20, 'a');
  const auto m = MultiMatcher::compile({"a", "aa"}, {{.backend = Backend::cpu}});
  std::uint64_t seen = 0;
  const std::uint64_t delivered = m.scan(as_bytes(text), [&](const Match&) { return ++seen < 10; });
  EXPECT_EQ(seen, 10u);
  EXPECT_EQ(delivered, 10u);
}

TEST(MultiApi, InvalidSetsAndOptionsThrowNamingTheProblem) {
  MultiOptions cpu;
  cpu.backend = Backend::cpu;
  EXPECT_THROW(MultiMatcher::compile({}, cpu), InvalidArgument);
  try {
    MultiMatcher::compile({"a", "", "b"}, cpu);
    FAIL() << "empty pattern accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("index 1"), std::string::npos) << e.what();
  }
  cpu.algorithm = "bf";
  EXPECT_THROW(MultiMatcher::compile({"a"}, cpu), InvalidArgument);
  cpu.algorithm = "auto";
  cpu.threads = -1;
  EXPECT_THROW(MultiMatcher::compile({"a"}, cpu), InvalidArgument);
  if (cuda_devices().empty()) {
    MultiOptions gpu;
    gpu.backend = Backend::cuda;
    EXPECT_THROW(MultiMatcher::compile({"a"}, gpu), BackendUnavailable);
  }
}

TEST(MultiApi, CompileStatsDescribeTheSet) {
  const auto m = MultiMatcher::compile({"abc", "x", "hello world"}, {{.backend = Backend::cpu}});
  const auto& s = m.compile_stats();
  EXPECT_EQ(s.patterns, 3u);
  EXPECT_EQ(s.pattern_bytes, 15u);
  EXPECT_EQ(s.min_length, 1u);
  EXPECT_EQ(s.max_length, 11u);
  EXPECT_GT(s.memory_bytes, 0u);
  EXPECT_GE(s.seconds, 0.0);
  EXPECT_EQ(m.algorithm(), "fast");
  EXPECT_EQ(m.backend(), Backend::cpu);
  EXPECT_TRUE(m.find_all({}).empty());
}

TEST(MultiApi, MillionPatternsCompileAndMatch) {
  std::mt19937_64 rng(13);
  const std::string text = multi_test::random_text(rng, 1 << 16, 256);
  std::vector<std::string> patterns;
  patterns.reserve(1000000);
  for (int i = 0; i < 1000000; ++i) patterns.push_back(multi_test::random_text(rng, 4 + rng() % 13, 256));
  patterns[777777] = text.substr(1234, 9);
  patterns[3] = text.substr(60000, 5);
  const auto m = MultiMatcher::compile(patterns, {{.backend = Backend::cpu}});
  const auto hits = m.find_all(as_bytes(text));
  std::set<std::pair<std::uint64_t, std::uint32_t>> found;
  for (const auto& h : hits) found.insert({h.start, h.pattern});
  EXPECT_TRUE(found.count({1234, 777777}));
  EXPECT_TRUE(found.count({60000, 3}));
  EXPECT_LT(m.compile_stats().seconds, 30.0);
  // Every reported match is real.
  for (const auto& h : hits)
    EXPECT_EQ(text.compare(h.start, h.end - h.start, patterns[h.pattern]), 0);
}

TEST(MultiPatternFile, EscapesEmptyLinesAndLineNumbers) {
  const std::string content = "abc\n\nx\\x00y\\\\z\r\n\\xfF\nabc\n";
  const PatternList list = parse_pattern_file(content, false, "p.txt");
  ASSERT_EQ(list.patterns.size(), 4u);
  EXPECT_EQ(list.patterns[0], "abc");
  EXPECT_EQ(list.patterns[1], std::string("x\0y\\z", 5));
  EXPECT_EQ(list.patterns[2], "\xff");
  EXPECT_EQ(list.patterns[3], "abc");
  EXPECT_EQ(list.line_index, (std::vector<std::uint64_t>{0, 2, 3, 4}));
  EXPECT_EQ(list.lines, 5u);
}

TEST(MultiPatternFile, FixedLinesAreVerbatim) {
  const PatternList list = parse_pattern_file("a\\x41\r\nb\\q\nlast", true, "p.txt");
  ASSERT_EQ(list.patterns.size(), 3u);
  EXPECT_EQ(list.patterns[0], "a\\x41\r");
  EXPECT_EQ(list.patterns[1], "b\\q");
  EXPECT_EQ(list.patterns[2], "last");
}

TEST(MultiPatternFile, BadEscapesNameTheFileAndLine) {
  for (const char* bad : {"ok\nbad\\q\n", "ok\n\\x4\n", "ok\nend\\"}) {
    try {
      parse_pattern_file(bad, false, "pats.txt");
      FAIL() << "accepted " << bad;
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("pats.txt:2"), std::string::npos) << e.what();
    }
  }
}

// Issue 16: dense matches (every pattern at every start) are delivered in bounded rounds: a
// chunk stops when it holds its share of matches and the next round resumes after it. The
// result must equal the naive double loop, order included, on every algorithm and thread count.
TEST(MultiCpu, DenseMatchesDeliveredInBoundedRoundsEqualTheDoubleLoop) {
  std::vector<std::string> patterns;
  for (int i = 1; i <= 100; ++i) patterns.push_back(std::string(static_cast<std::size_t>(i), 'a'));
  patterns.push_back("a");  // a duplicate reports too
  std::string text(40000, 'a');
  text[12345] = 'b';
  const auto want = cpu_matches(patterns, text, "naive");
  ASSERT_GT(want.size(), std::size_t{3} << 20);  // more than one chunk's share
  for (const char* algo : {"fast", "mbndm"})
    for (const int threads : {1, 3}) expect_same(cpu_matches(patterns, text, algo, false, threads), want, algo);
}

TEST(MultiApi, DenseMatchesStopAtOnceWhenTheSinkSaysSo) {
  std::vector<std::string> patterns;
  for (int i = 1; i <= 100; ++i) patterns.push_back(std::string(static_cast<std::size_t>(i), 'a'));
  const std::string text(8 << 20, 'a');
  const auto m = MultiMatcher::compile(patterns, {{.backend = Backend::cpu, .threads = 2}});
  std::uint64_t seen = 0;
  EXPECT_EQ(m.scan(as_bytes(text), [&](const Match&) { return ++seen < 5; }), 5u);
  const auto counts = m.count_per_pattern(as_bytes(text.substr(0, 1000)));
  for (std::size_t i = 0; i < counts.size(); ++i) EXPECT_EQ(counts[i], 1000 - i) << i;
}
