// Sequence search (issue 14): strands, IUPAC codes, Hamming distance, on every backend this
// machine has, against independent oracles: IUPAC patterns against the minimum over their
// plain variants (the plain DP, naive search), '-' hits against searching a reverse-
// complemented copy of the text, Hamming against a direct count of mismatches.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "api/tuning_hooks.hpp"
#include "core/approx_align.hpp"
#include "core/nucleotide.hpp"
#include "cuda/approx/hamming_agent.hpp"
#include "warpmatch/approx.hpp"
#include "warpmatch/multi.hpp"
#include "warpmatch/sequence.hpp"

// The CUDA Hamming kernel compiled for the host (HammingKernelEqualsADirectCount), in a
// namespace of its own so that it never meets the CUDA build's launch stub.
#include "support/cuda_host_shim.hpp"
#define kernels hamming_kernel_emulation
#include "cuda/approx/hamming_kernels.cuh"
#undef kernels
namespace warpmatch::cuda::hamming_kernel_emulation {
std::uint32_t shared_table[256 * 4];  // the kernel's dynamic shared memory (patterns up to 128 bytes)
}  // namespace warpmatch::cuda::hamming_kernel_emulation

namespace core = warpmatch::core;
using warpmatch::ApproxMatch;
using warpmatch::ApproxMatcher;
using warpmatch::ApproxOptions;
using warpmatch::Backend;
using warpmatch::Match;
using warpmatch::MultiMatcher;
using warpmatch::MultiOptions;
using warpmatch::Strand;
using Bytes = std::vector<std::uint8_t>;

namespace {

std::vector<Backend> backends() {
  std::vector<Backend> b{Backend::cpu};
  if (!warpmatch::cuda_devices().empty()) b.push_back(Backend::cuda);
  return b;
}

std::string random_string(std::mt19937_64& rng, std::size_t n, std::string_view alphabet) {
  std::string s(n, ' ');
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  for (auto& c : s) c = alphabet[pick(rng)];
  return s;
}

Bytes bytes_of(std::string_view s) { return Bytes(s.begin(), s.end()); }

std::string revcomp(std::string_view s) {
  const Bytes rc = warpmatch::reverse_complement(warpmatch::as_bytes(s));
  return std::string(rc.begin(), rc.end());
}

// The plain sequences an IUPAC pattern stands for, written out by hand (not core::expand_iupac):
// a degenerate code becomes each of its uppercase bases or itself.
std::vector<std::string> variants(const std::string& p) {
  std::vector<std::string> out{""};
  for (const char c : p) {
    std::string choices;
    const std::string_view codes = "RYSWKMBDHVN";
    const std::vector<std::string> sets = {"AG", "CT", "CG", "AT", "GT", "AC", "CGT", "AGT", "ACT", "ACG", "ACGT"};
    const auto at = codes.find(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
    if (at != std::string_view::npos) choices = sets[at];
    choices.push_back(c);
    std::vector<std::string> next;
    for (const auto& prefix : out)
      for (const char x : choices) next.push_back(prefix + x);
    out = std::move(next);
  }
  return out;
}

bool equal_folded(char a, char b, bool fold) {
  if (!fold) return a == b;
  return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
}

}  // namespace

TEST(Nucleotide, ComplementsAndIupacRule) {
  EXPECT_EQ(revcomp("ACGTacgtNRYSWKMBDHV"), "BDHVKMWSRYNacgtACGT");
  EXPECT_EQ(revcomp(revcomp("GATTACANNRY")), "GATTACANNRY");
  EXPECT_THROW(warpmatch::reverse_complement(warpmatch::as_bytes("ACXT"), "pattern 3"), warpmatch::InvalidArgument);
  try {
    warpmatch::reverse_complement(warpmatch::as_bytes("ACXT"), "pattern 3");
  } catch (const warpmatch::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("pattern 3: byte 'X'"), std::string::npos) << e.what();
  }
  // A text N matches only a pattern N; R = A or G; lowercase text only when folded.
  EXPECT_TRUE(core::iupac_match('N', 'N', false));
  EXPECT_FALSE(core::iupac_match('R', 'N', false));
  EXPECT_TRUE(core::iupac_match('R', 'A', false));
  EXPECT_TRUE(core::iupac_match('r', 'G', false));
  EXPECT_FALSE(core::iupac_match('R', 'C', false));
  EXPECT_FALSE(core::iupac_match('N', 'a', false));
  EXPECT_TRUE(core::iupac_match('n', 'a', true));
  EXPECT_FALSE(core::iupac_match('A', 'N', false));
  std::vector<std::string> got;
  ASSERT_TRUE(core::expand_iupac("ARN", 100, got));
  std::vector<std::string> want = variants("ARN");
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want);
  got.clear();
  EXPECT_FALSE(core::expand_iupac("NNNNNNNNNN", 1000, got));
  EXPECT_TRUE(got.empty());
  EXPECT_EQ(warpmatch::parse_strand("both"), Strand::both);
  EXPECT_THROW(warpmatch::parse_strand("x"), warpmatch::InvalidArgument);
}

// Exact search with strands and IUPAC against naive search of every plain variant, and the
// '-' hits against a naive search of the reverse-complemented text.
TEST(SequenceExact, StrandsAndIupacEqualNaiveSearchOfVariants) {
  std::mt19937_64 rng(14);
  for (const Backend backend : backends()) {
    for (int round = 0; round < 40; ++round) {
      const bool fold = round % 3 == 0;
      std::string text = random_string(rng, 3000 + round * 17, "ACGTACGTACGTNacgt");
      if (round % 5 == 0) text.replace(100, 200, std::string(200, 'A'));  // a flood
      const std::size_t np = 1 + round % 4;
      std::vector<std::string> patterns;
      for (std::size_t i = 0; i < np; ++i) patterns.push_back(random_string(rng, 2 + (round + i) % 7, "ACGTACGTRYNnSW"));
      if (round % 7 == 0) patterns.push_back(patterns[0]);  // a duplicate keeps its own index
      for (const Strand strand : {Strand::forward, Strand::reverse, Strand::both}) {
        MultiOptions opt;
        opt.backend = backend;
        opt.strand = strand;
        opt.iupac = true;
        opt.case_insensitive = fold;
        const auto got = MultiMatcher::compile(patterns, opt).find_all(warpmatch::as_bytes(text));
        // Oracle: (start, pattern, strand) of every variant's naive occurrences.
        std::vector<std::tuple<std::uint64_t, std::uint32_t, char>> want;
        for (std::size_t p = 0; p < patterns.size(); ++p)
          for (const char s : {'+', '-'}) {
            if ((s == '+' && strand == Strand::reverse) || (s == '-' && strand == Strand::forward)) continue;
            const std::string oriented = s == '+' ? patterns[p] : revcomp(patterns[p]);
            const std::size_t m = oriented.size();
            const std::vector<std::string> spelled = variants(oriented);  // once, not per position
            for (std::size_t at = 0; at + m <= text.size(); ++at)
              for (const std::string& v : spelled) {
                bool ok = true;
                for (std::size_t i = 0; i < m && ok; ++i) ok = equal_folded(v[i], text[at + i], fold);
                if (ok) {
                  want.emplace_back(at, static_cast<std::uint32_t>(p), s);
                  break;
                }
              }
          }
        std::sort(want.begin(), want.end());
        ASSERT_EQ(got.size(), want.size()) << "round " << round;
        for (std::size_t i = 0; i < got.size(); ++i) {
          ASSERT_EQ(std::make_tuple(got[i].start, got[i].pattern, got[i].strand), want[i]) << "round " << round << " hit " << i;
          ASSERT_EQ(got[i].end - got[i].start, patterns[got[i].pattern].size());
        }
        // Counts per pattern sum both strands.
        const auto counts = MultiMatcher::compile(patterns, opt).count_per_pattern(warpmatch::as_bytes(text));
        for (std::size_t p = 0; p < patterns.size(); ++p)
          EXPECT_EQ(counts[p], static_cast<std::uint64_t>(std::count_if(got.begin(), got.end(), [&](const Match& h) {
                      return h.pattern == p;
                    })));
      }
    }
  }
}

TEST(SequenceExact, MinusHitsAreHitsInTheReverseComplementedText) {
  std::mt19937_64 rng(41);
  const std::string text = random_string(rng, 20000, "ACGT");
  const std::string rc_text = revcomp(text);
  for (const Backend backend : backends()) {
    for (const std::string p : {"GATC", "ACGTT", "TTTAAAC", "GG"}) {
      MultiOptions opt;
      opt.backend = backend;
      opt.strand = Strand::reverse;
      const auto got = MultiMatcher::compile({p}, opt).find_all(warpmatch::as_bytes(text));
      std::vector<std::pair<std::uint64_t, std::uint64_t>> want;  // forward coordinates of hits in rc(text)
      for (std::size_t at = rc_text.find(p); at != std::string::npos; at = rc_text.find(p, at + 1))
        want.emplace_back(text.size() - at - p.size(), text.size() - at);
      std::sort(want.begin(), want.end());
      ASSERT_EQ(got.size(), want.size()) << p;
      for (std::size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(std::make_pair(got[i].start, got[i].end), want[i]);
        EXPECT_EQ(got[i].strand, '-');
      }
    }
  }
}

TEST(SequenceExact, BadPatternsAndTooManyVariantsAreClearErrors) {
  MultiOptions opt;
  opt.backend = Backend::cpu;
  opt.strand = Strand::both;
  EXPECT_THROW(MultiMatcher::compile({"ACGT", "AC-GT"}, opt), warpmatch::InvalidArgument);
  opt.strand = Strand::forward;
  opt.iupac = true;
  try {
    MultiMatcher::compile({std::string(12, 'N')}, opt);  // 5^12 variants
    FAIL() << "expected an error";
  } catch (const warpmatch::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("Hamming distance 0"), std::string::npos) << e.what();
  }
}

// Approximate search with IUPAC codes: dist(e) is the minimum over the pattern's plain
// variants (the plain DP of each), the start the largest over the variants attaining it.
TEST(SequenceApprox, IupacEqualsTheBestPlainVariant) {
  std::mt19937_64 rng(7);
  for (const Backend backend : backends()) {
    for (int round = 0; round < 30; ++round) {
      const bool fold = round % 2 == 1;
      const std::string text = random_string(rng, 1500, "ACGTACGTNacgt");
      const std::string pattern = random_string(rng, 4 + round % 9, "ACGTRYN");
      const std::uint32_t k = static_cast<std::uint32_t>(round % 3);
      ApproxOptions opt;
      opt.backend = backend;
      opt.k = k;
      opt.iupac = true;
      opt.case_insensitive = fold;
      opt.report = warpmatch::Report::cigar;
      const auto got = ApproxMatcher::compile(warpmatch::as_bytes(pattern), opt).find_all(warpmatch::as_bytes(text));
      std::vector<std::uint32_t> best(text.size(), ~0u);
      const auto vs = variants(pattern);
      std::vector<core::ApproxPattern> plain;
      std::vector<std::vector<std::uint32_t>> dists;
      for (const auto& v : vs) {
        core::ApproxPattern p;
        p.case_insensitive = fold;
        p.bytes = bytes_of(v);
        if (fold)
          for (auto& c : p.bytes) c = core::fold_ascii(c);
        const auto d = core::reference_end_distances(p, warpmatch::as_bytes(text));
        for (std::size_t e = 0; e < d.size(); ++e) best[e] = std::min(best[e], d[e]);
        plain.push_back(std::move(p));
        dists.push_back(d);
      }
      std::vector<ApproxMatch> want;
      for (std::size_t e = 0; e < best.size(); ++e) {
        if (best[e] > k) continue;
        ApproxMatch h;
        h.end = e + 1;
        h.distance = best[e];
        for (std::size_t v = 0; v < plain.size(); ++v)
          if (dists[v][e] == best[e])
            h.start = std::max(h.start, core::recover_start(plain[v], warpmatch::as_bytes(text), e + 1, best[e]));
        want.push_back(h);
      }
      ASSERT_EQ(got.size(), want.size()) << "round " << round << " pattern " << pattern;
      core::ApproxPattern iupac;
      iupac.case_insensitive = fold;
      iupac.iupac = true;
      iupac.bytes = bytes_of(pattern);
      if (fold)
        for (auto& c : iupac.bytes) c = core::fold_ascii(c);
      for (std::size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(std::make_tuple(got[i].end, got[i].distance, got[i].start),
                  std::make_tuple(want[i].end, want[i].distance, want[i].start))
            << "round " << round << " hit " << i;
        std::uint64_t cost = 0;
        ASSERT_TRUE(core::cigar_is_valid(iupac, warpmatch::as_bytes(text), got[i].start, got[i].end, got[i].cigar, &cost));
        EXPECT_EQ(cost, got[i].distance);
      }
    }
  }
}

// Both strands: a pattern's '+' hits, then its '-' hits, each those of the plain DP of the
// pattern and of its reverse complement.
TEST(SequenceApprox, BothStrandsEqualThePatternAndItsReverseComplement) {
  std::mt19937_64 rng(8);
  for (const Backend backend : backends()) {
    const std::string text = random_string(rng, 5000, "ACGT");
    const std::vector<std::string> patterns = {"GATTACA", "CCGTA", "AAGTTCGA"};
    ApproxOptions opt;
    opt.backend = backend;
    opt.k = 1;
    opt.strand = Strand::both;
    std::vector<Bytes> ps;
    for (const auto& p : patterns) ps.push_back(bytes_of(p));
    const auto got = ApproxMatcher::compile(ps, opt).find_all(warpmatch::as_bytes(text));
    std::vector<ApproxMatch> want;
    for (std::size_t i = 0; i < patterns.size(); ++i)
      for (const char s : {'+', '-'}) {
        core::ApproxPattern p;
        p.bytes = bytes_of(s == '+' ? patterns[i] : revcomp(patterns[i]));
        for (const auto& h : core::reference_hits(p, warpmatch::as_bytes(text), {core::ApproxMode::all_within_k, 1, 0})) {
          ApproxMatch m;
          m.pattern = static_cast<std::uint32_t>(i);
          m.strand = s;
          m.end = h.end;
          m.distance = h.distance;
          m.start = core::recover_start(p, warpmatch::as_bytes(text), h.end, h.distance);
          want.push_back(m);
        }
      }
    ASSERT_EQ(got, want);
  }
}

// Hamming: every window with <= k mismatches (a direct count), any chunking, best mode, IUPAC,
// case folding, floods and N runs.
TEST(SequenceApprox, HammingEqualsADirectCount) {
  std::mt19937_64 rng(9);
  for (const Backend backend : backends()) {
    for (int round = 0; round < 36; ++round) {
      std::string text = random_string(rng, 4000 + round * 31, round % 4 == 0 ? "AC" : "ACGTacgtN");
      if (round % 6 == 1) text.replace(300, 500, std::string(500, 'A'));
      if (round % 6 == 2) text.replace(900, 100, std::string(100, 'N'));
      const std::size_t m = 1 + static_cast<std::size_t>(round * 7) % 70;
      std::string pattern = random_string(rng, m, round % 3 == 0 ? "ACGTN" : "ACGT");
      if (round % 6 == 1) pattern = std::string(m, 'A');
      const bool fold = round % 5 == 0, iupac = round % 3 == 0, best = round % 4 == 3;
      const std::uint32_t k = static_cast<std::uint32_t>(round % 5 == 4 ? m : round % 4);
      ApproxOptions opt;
      opt.backend = backend;
      opt.hamming = true;
      opt.iupac = iupac;
      opt.case_insensitive = fold;
      opt.k = k;
      opt.best = best;
      opt.report = warpmatch::Report::cigar;
      warpmatch::tuning_hooks::ApproxKnobs knobs;
      if (round % 2 == 0) knobs.chunk_ends = 1 + round * 13;
      if (round % 3 == 1) opt.threads = 3;
      const auto got = warpmatch::tuning_hooks::compile_approx(warpmatch::as_bytes(pattern), opt, knobs)
                           .find_all(warpmatch::as_bytes(text));
      std::vector<std::pair<std::uint64_t, std::uint32_t>> all;  // (start, mismatches)
      for (std::size_t s = 0; s + m <= text.size(); ++s) {
        std::uint32_t mismatches = 0;
        for (std::size_t i = 0; i < m; ++i) {
          const auto p = static_cast<std::uint8_t>(fold ? core::fold_ascii(pattern[i]) : pattern[i]);
          const auto t = static_cast<std::uint8_t>(fold ? core::fold_ascii(text[s + i]) : text[s + i]);
          const bool match = p == t || (iupac && p == (fold ? 'n' : 'N') && (fold ? std::string_view("acgt") : std::string_view("ACGT")).find(static_cast<char>(t)) != std::string_view::npos);
          mismatches += match ? 0 : 1;
        }
        all.emplace_back(s, mismatches);
      }
      std::uint32_t limit = k;
      if (best) {
        std::uint32_t low = ~0u;
        for (const auto& [s, d] : all) low = std::min(low, d);
        limit = low <= k ? low : ~0u;
      }
      std::vector<std::pair<std::uint64_t, std::uint32_t>> want;
      for (const auto& [s, d] : all)
        if (limit != ~0u && d <= limit && (!best || d == limit)) want.emplace_back(s, d);
      ASSERT_EQ(got.size(), want.size()) << "round " << round << " m=" << m << " k=" << k;
      for (std::size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(std::make_pair(got[i].start, got[i].distance), want[i]) << "round " << round << " hit " << i;
        ASSERT_EQ(got[i].end, got[i].start + m);
        ASSERT_EQ(got[i].cigar.find_first_of("ID"), std::string::npos) << got[i].cigar;
      }
    }
  }
}

TEST(SequenceApprox, WavefrontRefusesIupacAndHamming) {
  ApproxOptions opt;
  opt.k = 1;
  opt.backend = Backend::cuda;
  opt.algorithm = "wavefront";
  opt.hamming = true;
  if (warpmatch::cuda_devices().empty()) GTEST_SKIP() << "no CUDA GPU";
  EXPECT_THROW(ApproxMatcher::compile(warpmatch::as_bytes("ACGT"), opt), warpmatch::InvalidArgument);
}

// The CUDA Hamming kernel (src/cuda/approx/hamming_kernels.cuh, under the host shim) launched
// as hamming.cu launches it (grid-stride, the table in shared or global memory) over every
// window start, against a direct count.
TEST(SequenceApprox, HammingKernelEqualsADirectCount) {
  namespace hk = warpmatch::cuda::hamming_kernel_emulation;
  std::mt19937_64 rng(10);
  for (int round = 0; round < 24; ++round) {
    const std::size_t m = 1 + static_cast<std::size_t>(round * 11) % 90;
    const std::string text = random_string(rng, 600, "ACGTNacgt");
    core::ApproxPattern p;
    p.iupac = round % 2 == 0;
    p.case_insensitive = round % 3 == 0;
    p.hamming = true;
    p.bytes = bytes_of(random_string(rng, m, "ACGTRN"));
    if (p.case_insensitive)
      for (auto& c : p.bytes) c = core::fold_ascii(c);
    const auto table = warpmatch::cuda::logic::make_hamming_table(p);
    const std::uint32_t limit = static_cast<std::uint32_t>(round % 4);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> want;  // (start, mismatches) within the limit
    for (std::size_t s = 0; s + m <= text.size(); ++s) {
      std::uint32_t direct = 0;
      for (std::size_t i = 0; i < m; ++i) direct += p.matches(p.bytes[i], static_cast<std::uint8_t>(text[s + i])) ? 0 : 1;
      if (direct <= limit) want.emplace_back(static_cast<std::uint32_t>(s), direct);
    }
    const auto starts = static_cast<std::uint32_t>(text.size() - m + 1);
    std::vector<uint2> hits(starts);
    unsigned long long count = 0;
    const bool in_shared = round % 2 == 1;
    ASSERT_LE(table.bits.size(), std::size(hk::shared_table));
    emu::launch(1 + round % 3, hk::kHammingThreads, [&] {
      hk::hamming_windows(reinterpret_cast<const std::uint8_t*>(text.data()), starts, table.bits.data(), table.words,
                          static_cast<std::uint32_t>(m), limit, &count, hits.data(), hits.size(), in_shared);
    });
    ASSERT_LE(count, hits.size());
    std::vector<std::pair<std::uint32_t, std::uint32_t>> got;
    for (std::size_t i = 0; i < count; ++i) got.emplace_back(hits[i].x, hits[i].y);
    std::sort(got.begin(), got.end());
    ASSERT_EQ(got, want) << "round " << round;
  }
}
