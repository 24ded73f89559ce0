// Sequence search from the command line (issue 14): --strand, --iupac, --hamming, --circular,
// --bed and --tsv against seqkit locate on the lambda phage genome, BED rows parsed back,
// circular records against a linear search of each record followed by its head, bad input.
// With a GPU every invocation is repeated on --backend cuda and must print the same bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>
#include <sstream>
#include <tuple>
#include <string>
#include <vector>

#include "cli_test_support.hpp"
#include "warpmatch/common.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path kLambda = "/usr/share/doc/bowtie2/examples/reference/lambda_virus.fa.gz";

// Output without --json's summary line, which names the backend and its times.
std::string without_summary(const std::string& out) {
  std::string kept;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("{\"type\":\"summary\"", 0) != 0) kept += line + "\n";
  return kept;
}

class CliSequence : public warpmatch_test::CliTest {
 protected:
  CliSequence() : CliTest("warpmatch_cli_sequence_") {}

  // Runs on the CPU, and on the GPU when there is one: both must print the same bytes.
  warpmatch_test::CliResult run_both(std::vector<std::string> args, std::string_view in = {}) {
    std::vector<std::string> cpu = args;
    cpu.insert(cpu.begin() + 1, {"--backend", "cpu"});
    const auto r = run(cpu, in);
    if (!warpmatch::cuda_devices().empty()) {
      args.insert(args.begin() + 1, {"--backend", "cuda"});
      const auto g = run(args, in);
      EXPECT_EQ(g.status, r.status) << g.err;
      EXPECT_EQ(without_summary(g.out), without_summary(r.out)) << "cuda differs from cpu";
    }
    return r;
  }
};

std::vector<std::vector<std::string>> rows_of(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::istringstream l(line);
    for (std::string c; std::getline(l, c, '\t');) cells.push_back(c);
    rows.push_back(cells);
  }
  return rows;
}

// seqkit locate's rows without the pattern column (warpmatch prints the pattern as given,
// seqkit folds it with -i), sorted (seqkit lists '-' hits in descending order).
std::vector<std::string> locate_rows(const std::string& tsv) {
  std::vector<std::string> out;
  const auto rows = rows_of(tsv);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto& r = rows[i];
    if (r.size() != 7) continue;
    out.push_back(r[0] + " " + r[1] + " " + r[3] + " " + r[4] + " " + r[5] + " " + r[6]);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> sorted_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  return lines;
}

std::string random_dna(std::mt19937_64& rng, std::size_t n) {
  std::string s(n, 'A');
  for (auto& c : s) c = "ACGT"[rng() % 4];
  return s;
}

}  // namespace

TEST_F(CliSequence, IupacBothStrandsAndHammingEqualSeqkitLocateOnLambda) {
  if (!fs::exists(kLambda) || std::system("command -v seqkit >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "needs seqkit and bowtie2-examples";
  const auto patterns = file("p.fa", ">bam\nGGATCC\n>deg\nCCRGGTTN\n>pal\nGANTC\n>long\nGCGGCGATCGGTRYAC\n");
  const auto seqkit = shell("seqkit locate -d -f " + warpmatch_test::quote(patterns.string()) + " " +
                            warpmatch_test::quote(kLambda.string()));
  ASSERT_EQ(seqkit.status, 0) << seqkit.err;
  const auto ours = run_both({"find", "--strand", "both", "--iupac", "--tsv", "-f", patterns.string(), kLambda.string()});
  ASSERT_EQ(ours.status, 0) << ours.err;
  EXPECT_EQ(rows_of(ours.out).front(), (std::vector<std::string>{"seqID", "patternName", "pattern", "strand", "start", "end", "matched"}));
  EXPECT_GT(locate_rows(ours.out).size(), 10u);
  EXPECT_EQ(locate_rows(ours.out), locate_rows(seqkit.out));
  // seqkit -m K is Hamming distance (no degenerate bases with it).
  const auto primers = file("q.fa", ">a\nGGATCGATACCT\n>b\nTTGACCGTAAGC\n>c\nACGTTGCA\n");
  for (const std::string k : {"1", "2"}) {
    const auto want = shell("seqkit locate -m " + k + " -f " + warpmatch_test::quote(primers.string()) + " " +
                            warpmatch_test::quote(kLambda.string()));
    ASSERT_EQ(want.status, 0) << want.err;
    const auto got = run_both({"approx", "--hamming", "-k", k, "--strand", "both", "--tsv", "--patterns",
                               primers.string(), kLambda.string()});
    ASSERT_EQ(got.status, 0) << got.err;
    EXPECT_EQ(locate_rows(got.out), locate_rows(want.out)) << "k=" << k;
  }
}

// A file of short reads is scanned many reads at a time (the reads laid end to end in one
// scan): every occurrence inside a read is found and none across two reads, whatever the
// patterns; the rows equal a naive search of each read, FASTQ and FASTA, one pattern and sets.
TEST_F(CliSequence, ReadsScannedTogetherEqualANaiveSearchOfEachRead) {
  std::mt19937_64 rng(17);
  const std::string genome = random_dna(rng, 20000);
  std::vector<std::pair<std::string, std::string>> reads;  // name, bases
  std::string fq, fa;
  for (int i = 0; i < 3000; ++i) {
    const std::size_t len = 1 + rng() % 200, at = rng() % (genome.size() - len);
    reads.emplace_back("r" + std::to_string(i), genome.substr(at, len));
    fq += "@" + reads.back().first + " x\n" + reads.back().second + "\n+\n" + std::string(len, 'I') + "\n";
    fa += ">" + reads.back().first + "\n" + reads.back().second + "\n";
  }
  // Patterns that straddle two neighbouring reads laid end to end (the tail of one, the head
  // of the next), and patterns from inside reads.
  std::vector<std::string> patterns;
  for (int i = 0; i < 40; ++i) {
    const std::size_t n = rng() % (reads.size() - 1);
    const std::string& a = reads[n].second;
    const std::string& b = reads[n + 1].second;
    const std::size_t from_a = std::min<std::size_t>(a.size(), 1 + rng() % 6), from_b = std::min<std::size_t>(b.size(), 1 + rng() % 6);
    patterns.push_back(a.substr(a.size() - from_a) + b.substr(0, from_b));
    const std::string& c = reads[rng() % reads.size()].second;
    const std::size_t len = std::min<std::size_t>(c.size(), 4 + rng() % 8);
    patterns.push_back(c.substr(rng() % (c.size() - len + 1), len));
  }
  std::string set;
  for (std::size_t i = 0; i < patterns.size(); ++i) set += ">p" + std::to_string(i) + "\n" + patterns[i] + "\n";
  const auto reads_fq = file("reads.fq", fq), reads_fa = file("reads.fa", fa), set_fa = file("set.fa", set);
  // Naive: every occurrence of each pattern inside each read (seqID, start, end, matched).
  auto naive = [&](const std::vector<std::size_t>& which) {
    std::vector<std::string> rows;
    for (const auto& [name, bases] : reads)
      for (std::size_t p : which)
        for (std::size_t at = bases.find(patterns[p]); at != std::string::npos; at = bases.find(patterns[p], at + 1))
          rows.push_back(name + " " + std::to_string(at + 1) + " " + std::to_string(at + patterns[p].size()) + " " + patterns[p]);
    std::sort(rows.begin(), rows.end());
    return rows;
  };
  auto ours = [&](const std::string& tsv) {
    std::vector<std::string> rows;
    const auto all = rows_of(tsv);
    for (std::size_t i = 1; i < all.size(); ++i)
      if (all[i].size() == 7) rows.push_back(all[i][0] + " " + all[i][4] + " " + all[i][5] + " " + all[i][6]);
    std::sort(rows.begin(), rows.end());
    return rows;
  };
  std::vector<std::size_t> every(patterns.size());
  for (std::size_t i = 0; i < every.size(); ++i) every[i] = i;
  const std::vector<std::string> want_all = naive(every);
  ASSERT_GT(want_all.size(), 100u);
  for (const fs::path& in : {reads_fq, reads_fa}) {
    const auto set_run = run_both({"find", "--tsv", "-f", set_fa.string(), in.string()});
    ASSERT_EQ(set_run.status, 0) << set_run.err;
    EXPECT_EQ(ours(set_run.out), want_all) << in;
    for (std::size_t p : {std::size_t{0}, std::size_t{1}, std::size_t{2}}) {
      const auto one = run_both({"find", "--tsv", patterns[p], in.string()});
      EXPECT_EQ(ours(one.out), naive({p})) << in << " pattern " << patterns[p];
      const auto count = run_both({"find", "-c", patterns[p], in.string()});
      EXPECT_EQ(count.out, std::to_string(naive({p}).size()) + "\n") << in << " pattern " << patterns[p];
    }
  }
}

// approx scans reads together too, k + 1 gap bytes between two: every end within k edits of
// each read equals a plain DP of that read (semi-global, counted with -c), and the rows (start,
// distance, CIGAR, strand, pattern) equal those of the read-by-read search that a small
// --window forces, for pattern sets, both strands, IUPAC codes, Hamming distance, k >= m.
TEST_F(CliSequence, ApproxOnReadsScannedTogetherEqualsEachReadSearchedAlone) {
  std::mt19937_64 rng(19);
  const std::string genome = random_dna(rng, 5000);
  // First two reads that, laid end to end, hold ACGTACGTAC split between them: with a gap
  // of only k bytes an alignment across it would cost k.
  std::vector<std::string> reads = {"TTTTTACGTA", "CGTACTTTTT"};
  std::string fq = "@p0\nTTTTTACGTA\n+\nIIIIIIIIII\n@p1\nCGTACTTTTT\n+\nIIIIIIIIII\n";
  for (int i = 0; i < 2000; ++i) {
    const std::size_t len = rng() % 120, at = rng() % (genome.size() - len);  // empty reads too
    reads.push_back(genome.substr(at, len));
    fq += "@r" + std::to_string(i) + "\n" + reads.back() + "\n+\n" + std::string(len, 'I') + "\n";
  }
  const auto reads_fq = file("reads.fq", fq);
  // Ends e of `read` with min over s of ED(pattern, read[s:e]) <= k.
  auto ends_within = [](const std::string& pattern, const std::string& read, std::size_t k) {
    const std::size_t m = pattern.size();
    std::vector<std::size_t> col(m + 1), next(m + 1);
    for (std::size_t i = 0; i <= m; ++i) col[i] = i;
    std::size_t n = 0;
    for (char c : read) {
      next[0] = 0;
      for (std::size_t i = 1; i <= m; ++i)
        next[i] = std::min({col[i] + 1, next[i - 1] + 1, col[i - 1] + (pattern[i - 1] == c ? 0 : 1)});
      std::swap(col, next);
      n += col[m] <= k;
    }
    return n;
  };
  for (const auto& [pattern, k] : std::vector<std::pair<std::string, std::size_t>>{{"GATTACAGGA", 2}, {"ACGTAC", 1}, {"TTGA", 5}, {"ACGTACGTAC", 2}}) {
    std::size_t want = 0;
    for (const std::string& r : reads) want += ends_within(pattern, r, k);
    const auto got = run_both({"approx", "-c", "-k", std::to_string(k), pattern, reads_fq.string()});
    EXPECT_EQ(got.out, std::to_string(want) + "\n") << pattern << " k " << k << got.err;
  }
  const auto set = file("set.fa", ">a\nGATTACAGGA\n>b\n" + genome.substr(100, 14) + "\n>c\nACGNNRTT\n");
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"approx", "--tsv", "-k", "2", "--strand", "both", "--patterns", set.string()},
           {"approx", "--cigar", "-k", "3", "--iupac", "--patterns", set.string()},
           {"approx", "--hamming", "-k", "2", "--strand", "both", "--patterns", set.string()},
           {"approx", "--json", "-k", "2", genome.substr(2000, 12)},
           {"approx", "--max-hits", "7", "-k", "1", genome.substr(3000, 9)},
       }) {
    std::vector<std::string> together = args, alone = args;
    together.push_back(reads_fq.string());
    alone.insert(alone.begin() + 1, {"--window", "1000"});  // no room for a batch: read by read
    alone.push_back(reads_fq.string());
    const auto a = run_both(together), b = run(alone);
    EXPECT_EQ(a.status, b.status) << a.err;
    EXPECT_EQ(without_summary(a.out), without_summary(b.out)) << args[1] << " " << args[2];
    EXPECT_GT(std::count(a.out.begin(), a.out.end(), '\n'), 3) << args[1];
  }
}

// Megabytes of reads: parsed on all threads (io/short_records.cpp) and scanned in runs on
// all threads (Searcher::search_record_runs). What -j 4 prints equals -j 1 and a naive search
// of each read; a flood of hits (reads of one letter) outgrows the runs' share and is
// searched window by window, printing the same.
TEST_F(CliSequence, MegabytesOfReadsOnAllThreadsEqualOneThreadAndANaiveSearch) {
  std::mt19937_64 rng(23);
  const std::string genome = random_dna(rng, 50000);
  std::vector<std::pair<std::string, std::string>> reads;
  std::string fq;
  for (int i = 0; i < 24000; ++i) {
    const std::size_t len = 50 + rng() % 150;
    std::string bases = i >= 10000 && i < 12000 ? std::string(len, 'A') : genome.substr(rng() % (genome.size() - len), len);
    reads.emplace_back("r" + std::to_string(i), bases);
    fq += "@" + reads.back().first + "\n" + bases + "\n+\n" + std::string(len, 'I') + "\n";
  }
  ASSERT_GT(fq.size(), std::size_t{5} << 20);
  const auto reads_fq = file("many.fq", fq);
  const std::string p1 = genome.substr(777, 9), p2 = genome.substr(4321, 12);
  const auto set = file("set.fa", ">a\n" + p1 + "\n>b\n" + p2 + "\n>c\nAAAAAAAAAA\n");
  std::size_t want = 0;
  for (const auto& [name, bases] : reads)
    for (std::size_t at = bases.find(p1); at != std::string::npos; at = bases.find(p1, at + 1)) ++want;
  const auto count = run_both({"find", "-c", "-j", "4", p1, reads_fq.string()});
  EXPECT_EQ(count.out, std::to_string(want) + "\n") << count.err;
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"find", "--tsv", "-f", set.string()},
           {"find", "--tsv", "--strand", "both", genome.substr(4321, 8)},
           {"find", "--json", "-m", "5000", "AA"},
           {"approx", "--tsv", "--cigar", "-k", "2", "--strand", "both", "--patterns", set.string()},
       }) {
    std::vector<std::string> four = args, one = args;
    four.insert(four.end(), {"-j", "4", reads_fq.string()});
    one.insert(one.end(), {"-j", "1", reads_fq.string()});
    const auto a = run_both(four), b = run(one);
    EXPECT_EQ(a.status, 0) << a.err;
    // Compared as whole strings, the first difference named (gtest's diff of megabytes of
    // output would not fit in memory).
    const std::string x = without_summary(a.out), y = without_summary(b.out);
    const auto differ = std::mismatch(x.begin(), x.end(), y.begin(), y.end());
    EXPECT_TRUE(x == y) << args[1] << " " << args[2] << ": -j 4 and -j 1 differ at byte " << (differ.first - x.begin())
                        << " of " << x.size() << " / " << y.size();
    EXPECT_GT(std::count(a.out.begin(), a.out.end(), '\n'), 100) << args[1] << " " << args[2];
  }
}

// Best mode and --best-per-cluster search each read by itself; on the CPU's threads several
// reads at once (Searcher::search_records_apart). Every read's best ends equal a plain DP of
// that read, and what -j 4 prints equals the one-read-after-the-other -j 1 (records longer
// than the parallel runs take, 20 KiB, mixed in).
TEST_F(CliSequence, BestModeOnReadsSeveralAtOnceEqualsEachReadAlone) {
  std::mt19937_64 rng(23);
  const std::string genome = random_dna(rng, 40000);
  std::vector<std::string> reads;
  std::string fq;
  for (int i = 0; i < 3000; ++i) {
    const std::size_t len = i % 500 == 7 ? 20000 : rng() % 160, at = rng() % (genome.size() - len);
    reads.push_back(genome.substr(at, len));
    fq += "@r" + std::to_string(i) + "\n" + reads.back() + "\n+\n" + std::string(len, 'I') + "\n";
  }
  const auto reads_fq = file("best.fq", fq);
  // The ends of `read` at its minimal distance (within k when k >= 0); none for an empty read.
  auto best_ends = [](const std::string& pattern, const std::string& read, long k) {
    const std::size_t m = pattern.size();
    std::vector<std::size_t> col(m + 1), next(m + 1), at_end;
    for (std::size_t i = 0; i <= m; ++i) col[i] = i;
    for (char c : read) {
      next[0] = 0;
      for (std::size_t i = 1; i <= m; ++i)
        next[i] = std::min({col[i] + 1, next[i - 1] + 1, col[i - 1] + (pattern[i - 1] == c ? 0 : 1)});
      std::swap(col, next);
      at_end.push_back(col[m]);
    }
    if (at_end.empty()) return std::size_t{0};
    const std::size_t low = *std::min_element(at_end.begin(), at_end.end());
    if (k >= 0 && low > static_cast<std::size_t>(k)) return std::size_t{0};
    return static_cast<std::size_t>(std::count(at_end.begin(), at_end.end(), low));
  };
  for (const auto& [pattern, k] : std::vector<std::pair<std::string, long>>{{"GATTACAGGATTACA", -1}, {genome.substr(900, 12), 2}}) {
    std::size_t want = 0;
    for (const std::string& r : reads) want += best_ends(pattern, r, k);
    std::vector<std::string> args = {"approx", "-c", "--best", "-j", "4"};
    if (k >= 0) args.insert(args.end(), {"-k", std::to_string(k)});
    args.insert(args.end(), {pattern, reads_fq.string()});
    const auto got = run_both(args);
    EXPECT_EQ(got.out, std::to_string(want) + "\n") << pattern << " k " << k << got.err;
  }
  const auto set = file("best_set.fa", ">a\nGATTACAGGA\n>b\n" + genome.substr(100, 14) + "\n>c\nACGNNRTT\n");
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"approx", "--tsv", "--best", "--strand", "both", "--patterns", set.string()},
           {"approx", "--cigar", "--best", "-k", "4", "--iupac", "--patterns", set.string()},
           {"approx", "--best-per-cluster", "-k", "2", "--strand", "both", "--patterns", set.string()},
           {"approx", "--json", "--best", genome.substr(2000, 12)},
           {"approx", "-m", "5", "--best", genome.substr(3000, 9)},
       }) {
    std::vector<std::string> several = args, one = args;
    several.insert(several.begin() + 1, {"-j", "4"});
    several.push_back(reads_fq.string());
    one.insert(one.begin() + 1, {"--backend", "cpu", "-j", "1"});
    one.push_back(reads_fq.string());
    const auto a = run_both(several), b = run(one);
    EXPECT_EQ(a.status, b.status) << a.err;
    EXPECT_EQ(without_summary(a.out), without_summary(b.out)) << args[1] << " " << args[2];
    EXPECT_GT(std::count(a.out.begin(), a.out.end(), '\n'), 4) << args[1];
  }
}

TEST_F(CliSequence, BedRowsParseBackToTheHits) {
  std::mt19937_64 rng(3);
  std::string fasta;
  std::vector<std::string> seqs;
  for (int r = 0; r < 3; ++r) {
    seqs.push_back(random_dna(rng, 5000));
    fasta += ">chr" + std::to_string(r) + " description\n" + seqs.back() + "\n";
  }
  const auto genome = file("g.fa", fasta);
  const auto out = run_both({"approx", "-k", "1", "--strand", "both", "--bed", "GATTACA", genome.string()});
  ASSERT_EQ(out.status, 0) << out.err;
  const auto rows = rows_of(out.out);
  ASSERT_FALSE(rows.empty());
  for (const auto& r : rows) {
    ASSERT_EQ(r.size(), 6u);
    const int chrom = r[0].back() - '0';
    const std::uint64_t start = std::stoull(r[1]), end = std::stoull(r[2]);
    ASSERT_LT(start, end);
    ASSERT_LE(end, seqs[chrom].size());
    EXPECT_EQ(r[3], "0");
    EXPECT_TRUE(r[5] == "+" || r[5] == "-");
    EXPECT_LE(std::stoul(r[4]), 1u);
  }
  // The JSON of the same search: the same hits.
  const auto json = run({"approx", "-k", "1", "--strand", "both", "--json", "GATTACA", genome.string()});
  std::size_t matches = 0;
  for (const auto& j : warpmatch_test::json_lines(json.out))
    if (j["type"] == "match") {
      const auto& r = rows[matches++];
      EXPECT_EQ(j["record"], r[0]);
      EXPECT_EQ(j["start"].get<std::uint64_t>(), std::stoull(r[1]));
      EXPECT_EQ(j["strand"], r[5]);
    }
  EXPECT_EQ(matches, rows.size());
}

// --circular equals a linear search of each record followed by its first bytes (the record
// repeated when shorter), keeping the hits that start inside the record; with windows
// smaller than the records too.
TEST_F(CliSequence, CircularEqualsLinearSearchOfRecordFollowedByItsHead) {
  std::mt19937_64 rng(5);
  const std::string pattern = "GATTACAGG";
  std::vector<std::string> records = {random_dna(rng, 3000), "TACAGGGATTA" /* wraps, shorter than m + k */,
                                      random_dna(rng, 50), "ACAGG", "G"};
  records[0] = "TACAGG" + records[0] + "GAT";  // a hit across the junction
  records[2] = "CAGG" + records[2] + "GATTA";
  std::string circular, linear;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const std::string& r = records[i];
    circular += ">r" + std::to_string(i) + "\n" + r + "\n";
    std::string extended = r;
    for (std::size_t j = 0; j < pattern.size() + 2; ++j) extended.push_back(r[j % r.size()]);
    linear += ">r" + std::to_string(i) + "\n" + extended + "\n";
  }
  const auto c = file("c.fa", circular), l = file("l.fa", linear);
  const std::vector<std::vector<std::string>> jobs = {{"find", "--strand", "both", pattern},
                                                      {"find", "-e", pattern, "-e", "ACAGGG"},
                                                      {"approx", "-k", "2", pattern},
                                                      {"approx", "-k", "1", "--hamming", "--strand", "both", pattern}};
  for (const auto& job : jobs) {
    auto args = job;
    args.push_back("--bed");
    args.push_back(l.string());
    const auto want_run = run(args);
    std::string want;
    for (const auto& r : rows_of(want_run.out)) {
      const std::size_t rec = static_cast<std::size_t>(r[0][1] - '0');
      if (std::stoull(r[1]) < records[rec].size())
        want += r[0] + "\t" + r[1] + "\t" + r[2] + "\t" + r[3] + "\t" + r[4] + "\t" + r[5] + "\n";
    }
    args.back() = c.string();
    args.push_back("--circular");
    for (const std::string window : {"256M", "7"}) {
      auto a = args;
      a.insert(a.end(), {"--window", window});
      const auto got = run_both(a);
      // Junction hits come after the record's own (several patterns or strands: not merged).
      EXPECT_EQ(sorted_lines(got.out), sorted_lines(want)) << job[0] << " " << job.back() << " window " << window << "\n" << got.err;
    }
  }
  // A wrapping hit has end > record length.
  const auto wrap = run({"find", "--circular", "--bed", pattern, c.string()});
  EXPECT_NE(wrap.out.find("r0\t3006\t3015\t0\t0\t+"), std::string::npos) << wrap.out;
}

// approx --best --circular equals a best-mode search of each record followed by its first
// m - 1 + k bases (the record repeated when shorter; k the bound, m when unset), keeping the
// hits that start inside the record: a hit starting after the record's end repeats one inside
// it at the same distance, so it never lowers the minimum. Records whose best hit is inside,
// across the junction, or both at one distance; several patterns, both strands, Hamming.
TEST_F(CliSequence, CircularBestEqualsBestOfRecordFollowedByItsHead) {
  std::mt19937_64 rng(23);
  const std::string pattern = "GATTACAGG";
  std::vector<std::string> records = {
      "TACAGG" + random_dna(rng, 3000) + "GAT",                                     // only across
      "CAGG" + random_dna(rng, 30) + "GATTACAGG" + random_dna(rng, 30) + "GATTA",  // inside and across
      "GATTTCAGG" + random_dna(rng, 40) + "GATT",                                   // inside beats across
      "TACAGGGATTA", "ACAGG", "G", random_dna(rng, 200)};
  const auto patterns = file("p.txt", pattern + "\nCCTGTAATC\nACGTTGCAAC\n");
  std::string circular;
  for (std::size_t i = 0; i < records.size(); ++i) circular += ">r" + std::to_string(i) + "\n" + records[i] + "\n";
  const auto c = file("c.fa", circular);
  struct Job { std::vector<std::string> args; std::size_t k; };
  const std::size_t m = pattern.size();
  for (const Job& job : {Job{{"--best", pattern}, m}, Job{{"--best", "-k", "3", "--strand", "both", pattern}, 3},
                         Job{{"--best", "-k", "4", "--hamming", "--strand", "both", pattern}, 4},
                         Job{{"--best", "-k", "2", "--patterns", patterns.string()}, 2}}) {
    std::string linear;
    for (std::size_t i = 0; i < records.size(); ++i) {
      std::string extended = records[i];
      for (std::size_t j = 0; j < m - 1 + job.k; ++j) extended.push_back(records[i][j % records[i].size()]);
      linear += ">r" + std::to_string(i) + "\n" + extended + "\n";
    }
    const auto l = file("l.fa", linear);
    auto args = job.args;
    args.insert(args.begin(), {"approx", "--json", "-h"});
    args.push_back(l.string());
    const auto want_run = run(args);
    ASSERT_EQ(want_run.status, 0) << want_run.err;
    std::vector<std::string> want;
    for (auto j : warpmatch_test::json_lines(want_run.out)) {
      if (j["type"] != "match") continue;
      const std::size_t rec = std::stoul(j["record"].get<std::string>().substr(1));
      j.erase("path");
      if (j["start"].get<std::uint64_t>() < records[rec].size()) want.push_back(j.dump());
    }
    std::sort(want.begin(), want.end());
    args.back() = c.string();
    args.push_back("--circular");
    for (const std::string window : {"256M", "7"}) {  // best mode reads whole records whatever --window says
      auto a = args;
      a.insert(a.end(), {"--window", window});
      const auto got_run = run_both(a);
      ASSERT_EQ(got_run.status, 0) << got_run.err;
      std::vector<std::string> got;
      for (auto j : warpmatch_test::json_lines(got_run.out)) {
        if (j["type"] != "match") continue;
        j.erase("path");
        got.push_back(j.dump());
      }
      std::sort(got.begin(), got.end());
      EXPECT_EQ(got, want) << job.args[job.args.size() - 1] << " window " << window;
    }
  }
  // -c counts what is listed, all hits and best (it once counted a junction hit lying in the
  // record's head, whose start it did not recover, as crossing).
  for (const std::vector<std::string>& job : {std::vector<std::string>{"-k", "2"}, {"--best"}, {"--best", "-k", "3", "--strand", "both"}}) {
    auto listing = job, counting = job;
    listing.insert(listing.begin(), {"approx", "--circular", "-h"});
    listing.insert(listing.end(), {pattern, c.string()});
    counting.insert(counting.begin(), {"approx", "--circular", "-c"});
    counting.insert(counting.end(), {pattern, c.string()});
    const auto listed = run_both(listing), counted = run_both(counting);
    EXPECT_EQ(counted.out, std::to_string(std::count(listed.out.begin(), listed.out.end(), '\n')) + "\n") << job[0];
  }
  // A record's best hit across the junction alone (end > record length), and tied with one inside.
  const auto best = run_both({"approx", "--best", "--circular", "--bed", pattern, c.string()});
  EXPECT_NE(best.out.find("r0\t3006\t3015\t0\t0\t+\n"), std::string::npos) << best.out;
  EXPECT_NE(best.out.find("r1\t34\t43\t0\t0\t+\n"), std::string::npos) << best.out;
  EXPECT_NE(best.out.find("r1\t73\t82\t0\t0\t+\n"), std::string::npos) << best.out;
  std::string r2;  // across the junction at 2 edits or more: the hit inside at 1 wins
  for (const auto& line : sorted_lines(best.out))
    if (line.rfind("r2\t", 0) == 0) r2 += line + "\n";
  EXPECT_EQ(r2, "r2\t0\t9\t0\t1\t+\n");
}

TEST_F(CliSequence, BadSequenceInputsAreClearErrors) {
  const auto f = file("g.fa", ">x\nACGTACGT\n");
  const auto bad_byte = run({"find", "--strand", "both", "ACXT", f.string()});
  EXPECT_EQ(bad_byte.status, 2);
  EXPECT_NE(bad_byte.err.find("'X'"), std::string::npos) << bad_byte.err;
  const auto bad_iupac = run({"approx", "-k", "1", "--iupac", "AC-T", f.string()});
  EXPECT_EQ(bad_iupac.status, 2);
  EXPECT_NE(bad_iupac.err.find("'-'"), std::string::npos) << bad_iupac.err;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"find", "--strand", "x", "ACGT", f.string()},
        {"find", "--bed", "--json", "ACGT", f.string()},
        {"find", "--bed", "--tsv", "ACGT", f.string()},
        {"approx", "-k", "1", "--best-per-cluster", "--circular", "ACGT", f.string()},
        {"find", "--iupac", std::string(12, 'N'), f.string()}}) {
    const auto r = run(args);
    EXPECT_EQ(r.status, 2) << args[1] << " " << args[2];
    EXPECT_FALSE(r.err.empty());
  }
}

// offtarget against a brute force: every window of the genome on both strands, every bulge
// placement inside the protospacer, the PAM matched exactly (IUPAC), mismatches counted
// directly; a site (guide, start, end, strand, bulge type and size) keeps its fewest.
namespace {

struct OracleSite {
  std::string guide, strand, type;
  std::uint64_t start = 0, end = 0, size = 0, mismatches = 0;
  auto key() const { return std::tie(guide, start, end, strand, type, size); }
  bool operator<(const OracleSite& o) const { return std::tie(guide, start, end, strand, type, size, mismatches) < std::tie(o.guide, o.start, o.end, o.strand, o.type, o.size, o.mismatches); }
  bool operator==(const OracleSite& o) const { return !(*this < o) && !(o < *this); }
};

bool base_matches(char pattern, char text) {  // IUPAC pattern vs genome base, case-insensitive
  const char t = static_cast<char>(std::toupper(static_cast<unsigned char>(text)));
  const char p = static_cast<char>(std::toupper(static_cast<unsigned char>(pattern)));
  if (p == t) return true;
  static const std::string codes = "RYSWKMBDHVN";
  static const std::vector<std::string> sets = {"AG", "CT", "CG", "AT", "GT", "AC", "CGT", "AGT", "ACT", "ACG", "ACGT"};
  const auto at = codes.find(p);
  return at != std::string::npos && sets[at].find(t) != std::string::npos;
}

std::string rc(const std::string& s) {
  std::string out(s.rbegin(), s.rend());
  for (auto& c : out) {
    const char u = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    c = u == 'A' ? 'T' : u == 'T' ? 'A' : u == 'C' ? 'G' : u == 'G' ? 'C' : u;
  }
  return out;
}

std::vector<OracleSite> brute_force_sites(const std::string& genome, const std::vector<std::string>& guides,
                                          const std::string& pam, int side, int k, int dna, int rna) {
  std::map<std::tuple<std::string, std::uint64_t, std::uint64_t, std::string, std::string, std::uint64_t>, std::uint64_t> best;
  for (std::size_t g = 0; g < guides.size(); ++g) {
    const std::string& s = guides[g];
    struct P { std::string proto, type; std::size_t size; std::vector<bool> bulge; };
    std::vector<P> ps{{s, "X", 0, std::vector<bool>(s.size(), false)}};
    for (int b = 1; b <= dna; ++b)
      for (std::size_t at = 1; at < s.size(); ++at) {
        std::vector<bool> bulge(s.size() + b, false);
        for (int i = 0; i < b; ++i) bulge[at + i] = true;
        ps.push_back({s.substr(0, at) + std::string(b, '?') + s.substr(at), "DNA", static_cast<std::size_t>(b), bulge});
      }
    for (int b = 1; b <= rna; ++b)
      for (std::size_t at = 1; at + b < s.size(); ++at)
        ps.push_back({s.substr(0, at) + s.substr(at + b), "RNA", static_cast<std::size_t>(b), std::vector<bool>(s.size() - b, false)});
    for (const P& p : ps) {
      const std::size_t len = p.proto.size() + pam.size();
      for (std::size_t start = 0; start + len <= genome.size(); ++start)
        for (const std::string strand : {"+", "-"}) {
          std::string site = genome.substr(start, len);
          if (strand == "-") site = rc(site);
          const std::size_t pam_at = side == 3 ? p.proto.size() : 0, proto_at = side == 3 ? 0 : pam.size();
          bool ok = true;
          for (std::size_t i = 0; i < pam.size() && ok; ++i) ok = base_matches(pam[i], site[pam_at + i]);
          if (!ok) continue;
          std::uint64_t mm = 0;
          for (std::size_t i = 0; i < p.proto.size(); ++i)
            if (!p.bulge[i] && !base_matches(p.proto[i], site[proto_at + i])) ++mm;
          if (mm > static_cast<std::uint64_t>(k)) continue;
          const auto key = std::make_tuple(std::to_string(g), start, start + len, strand, p.type, p.size);
          auto [it, inserted] = best.try_emplace(key, mm);
          if (!inserted) it->second = std::min(it->second, mm);
        }
    }
  }
  std::vector<OracleSite> out;
  for (const auto& [key, mm] : best)
    out.push_back({std::get<0>(key), std::get<3>(key), std::get<4>(key), std::get<1>(key), std::get<2>(key), std::get<5>(key), mm});
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_F(CliSequence, OfftargetEqualsBruteForceOverEveryWindowAndBulgePlacement) {
  std::mt19937_64 rng(17);
  std::vector<std::string> guides;
  for (int g = 0; g < 3; ++g) guides.push_back(random_dna(rng, 12));
  std::string genome = random_dna(rng, 1500);
  // Plant near-copies of each guide with PAMs on both strands, a repeat, N's, soft-masking.
  for (std::size_t g = 0; g < guides.size(); ++g) {
    std::string site = guides[g] + "AGG";
    site[3] = site[3] == 'A' ? 'C' : 'A';
    genome.replace(100 + 400 * g, site.size(), site);
    const std::string minus = rc(guides[g].substr(0, 5) + guides[g].substr(6) + "TGG");  // an RNA bulge
    genome.replace(300 + 400 * g, minus.size(), minus);
  }
  genome.replace(50, 20, std::string(20, 'N'));
  for (std::size_t i = 700; i < 760; ++i) genome[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(genome[i])));
  std::string guide_file;
  for (std::size_t g = 0; g < guides.size(); ++g) guide_file += ">" + std::to_string(g) + "\n" + guides[g] + "\n";
  const auto gf = file("guides.fa", guide_file), gen = file("genome.fa", ">chr\n" + genome + "\n");
  struct Job { std::string pam; int side, k, dna, rna; };
  for (const Job& job : {Job{"NGG", 3, 2, 0, 0}, Job{"NGG", 3, 2, 1, 1}, Job{"TTTV", 5, 3, 0, 2}, Job{"NRG", 3, 1, 2, 0}}) {
    const auto r = run_both({"offtarget", "--json", "--guides", gf.string(), "--pam", job.pam, "--pam-side",
                             std::to_string(job.side), "-k", std::to_string(job.k), "--dna-bulges",
                             std::to_string(job.dna), "--rna-bulges", std::to_string(job.rna), "--window", "301", gen.string()});
    ASSERT_NE(r.status, 2) << r.err;
    std::vector<OracleSite> got;
    for (const auto& j : warpmatch_test::json_lines(r.out)) {
      OracleSite s;
      s.guide = j["guide"];
      s.strand = j["strand"];
      s.type = j["bulge_type"];
      s.start = j["start"];
      s.end = j["end"];
      s.size = j["bulge_size"];
      s.mismatches = j["mismatches"];
      got.push_back(s);
    }
    std::sort(got.begin(), got.end());
    const auto want = brute_force_sites(genome, guides, job.pam, job.side, job.k, job.dna, job.rna);
    EXPECT_FALSE(want.empty());
    EXPECT_EQ(got.size(), want.size()) << job.pam << " k=" << job.k;
    EXPECT_TRUE(got == want) << job.pam << " k=" << job.k << " bulges " << job.dna << "/" << job.rna;
  }
  // Bad input: a PAM longer than the guide, a non-nucleotide guide, a bad PAM side.
  EXPECT_EQ(run({"offtarget", "-g", "ACG", "--pam", "NNGRRT", gen.string()}).status, 2);
  EXPECT_EQ(run({"offtarget", "-g", "ACGTXACGT", gen.string()}).status, 2);
  EXPECT_EQ(run({"offtarget", "-g", "ACGTACGT", "--pam-side", "4", gen.string()}).status, 2);
  EXPECT_EQ(run({"offtarget", "-g", "ACGTACGT", (dir_ / "missing.fa").string()}).status, 2);
}

// offtarget streams a record in windows: with windows of 1 to 301 bytes it prints the bytes one
// window over the whole record prints, sites in the same order (by start, then end, guide,
// strand, bulge), also where a longer site (a DNA bulge's) starts before a shorter one that
// ends first. A repetitive genome gives many overlapping sites of every bulge kind.
TEST_F(CliSequence, OfftargetStreamedInSmallWindowsPrintsWhatOneWholeRecordWindowPrints) {
  std::mt19937_64 rng(29);
  const std::string repeat = "ACGTACGTAGG";
  // Sites of ACGTACGTAC at [3, 17) (a DNA bulge) and [4, 16) (an RNA bulge): nested.
  std::string genome = "TCAAAACTACGTGCGGGAGTACTCTGGCATAGCGGACGACAAGTGGAATCCACTACCGAGTACTCGTCGGAACGCAATGAAAAAGA";
  genome += random_dna(rng, 200);
  for (int i = 0; i < 30; ++i) genome += repeat;
  genome += random_dna(rng, 2800) + rc("ACGTACGTACAGG") + random_dna(rng, 100);
  for (int i = 0; i < 20; ++i) genome += "TTTGACGTACGTAC";  // Cas12a-like sites (5' PAM)
  genome += random_dna(rng, 50);
  const auto gen = file("genome.fa", ">chr1\n" + genome.substr(0, 400) + "\n" + genome.substr(400) + "\n>chr2\n" +
                                         genome.substr(150, 300) + "\n");
  for (const std::vector<std::string>& job :
       {std::vector<std::string>{"-g", "ACGTACGTAC", "-k", "3", "--dna-bulges", "2", "--rna-bulges", "2"},
        {"-g", "ACGTACGTAC", "-g", "GTACGTAGTA", "-k", "2", "--pam", "TTTV", "--pam-side", "5", "--dna-bulges", "1",
         "--rna-bulges", "1"}}) {
    auto args = job;
    args.insert(args.begin(), "offtarget");
    args.push_back(gen.string());
    const auto whole = run_both(args);
    ASSERT_EQ(whole.status, 0) << whole.err;
    EXPECT_GT(std::count(whole.out.begin(), whole.out.end(), '\n'), 30) << whole.out;
    for (const std::string window : {"1", "2", "3", "7", "31", "301"}) {
      auto a = args;
      a.insert(a.end() - 1, {"--window", window});
      const auto streamed = run_both(a);
      EXPECT_EQ(streamed.status, 0) << streamed.err;
      EXPECT_EQ(streamed.out, whole.out) << "window " << window;
    }
  }
}
