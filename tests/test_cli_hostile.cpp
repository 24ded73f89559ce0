// Issue 16, hostile inputs and conditions on the command line: hits of a whole input (dense
// approximate hits, every pattern at every start) streamed in bounded memory and stopped at
// once by -q, -m, --max-hits and a closed pipe; write errors (disk full, closed stdout);
// option values out of range; grep's conventions; odd FASTA/FASTQ and pattern files.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <random>
#include <string>

#include "cli_test_support.hpp"
#include "warpmatch/common.hpp"

using warpmatch_test::CliResult;
using warpmatch_test::quote;

namespace {

class CliHostile : public warpmatch_test::CliTest {
 protected:
  CliHostile() : CliTest("warpmatch_hostile_") {}


  // The CLI with `args` run in dir_ (relative names as a user types them), `input` on stdin.
  CliResult run(const std::vector<std::string>& args, const std::string& input = {}) {
    file(".in", input);
    std::string command = "\"$WM\"";
    for (const auto& a : args) command += " " + quote(a);
    return shell(command + " < .in");
  }
};

// A shell command writing `bytes` bytes of the letter a.
std::string letters(const std::string& bytes) { return "head -c " + bytes + " /dev/zero | tr '\\0' a"; }

}  // namespace

// --- high: dense hits held in memory -------------------------------------------------------

TEST_F(CliHostile, ApproxHitsOfTwoGibOfOneLetterAreStreamedAndStoppedAtOnce) {
  // Every end of 2 GiB of 'a' is a hit of "aaaa" within 1 edit (34 bytes each were held
  // before: 70 GB). Each early stop must end the pipeline at once, in bounded memory.
  long rss = 0;
  CliResult head = shell(letters("2G") + " | timeout 60 \"$WM\" approx -k 1 aaaa | head -1", &rss);
  EXPECT_EQ(head.out, "0:3:1:aaa\n") << head.err;
  EXPECT_LT(rss, warpmatch_test::kMemoryScale * 800L * 1024) << "peak " << rss << " KiB";
  CliResult q = shell(letters("2G") + " | { timeout 60 \"$WM\" approx -q -k 1 aaaa; echo rc=$?; }", &rss);
  EXPECT_EQ(q.out, "rc=0\n") << q.err;
  EXPECT_LT(rss, warpmatch_test::kMemoryScale * 800L * 1024) << "peak " << rss << " KiB";
  CliResult m = shell(letters("2G") + " | { timeout 60 \"$WM\" approx --max-hits 2 -k 1 aaaa; echo rc=$?; }", &rss);
  EXPECT_EQ(m.out, "0:3:1:aaa\n0:4:0:aaaa\nrc=0\n") << m.err;
  EXPECT_LT(rss, warpmatch_test::kMemoryScale * 800L * 1024) << "peak " << rss << " KiB";
}

TEST_F(CliHostile, ApproxCountOfDenseHitsIsExactAndBounded) {
  long rss = 0;
  const CliResult c = shell(letters("20000000") + " | \"$WM\" approx -c -k 1 aaaa", &rss);
  EXPECT_EQ(c.out, "19999998\n") << c.err;
  EXPECT_LT(rss, warpmatch_test::kMemoryScale * 800L * 1024) << "peak " << rss << " KiB";
  // Best mode over a text of many segments: every end attains 0.
  const CliResult best = shell(letters("20000000") + " | \"$WM\" approx -c --best aaaa");
  EXPECT_EQ(best.out, "19999997\n") << best.err;
}

TEST_F(CliHostile, HundredPatternsOverHundredMegabytesOfOneLetterStopAtOnce) {
  // Patterns a, aa, ..., a^100 all match at (almost) every start of 100 MB of 'a'.
  std::string patterns;
  for (int i = 1; i <= 100; ++i) patterns += std::string(static_cast<std::size_t>(i), 'a') + "\n";
  file("pats.txt", patterns);
  ASSERT_EQ(shell(letters("100000000") + " > a.txt").status, 0);
  long rss = 0;
  // Where auto picks the GPU, the CUDA runtime and its pinned staging (the process-wide cache
  // holds up to 512 MiB) come on top of the bounded hits: 1.2 GiB peak on the H100 host.
  const long limit = warpmatch_test::kMemoryScale * (warpmatch::cuda_devices().empty() ? 800L : 1600L) * 1024;
  const CliResult head = shell("timeout 60 sh -c '\"$WM\" find -f pats.txt a.txt | head -1'", &rss);
  EXPECT_EQ(head.out, "0:a\n") << head.err;
  EXPECT_LT(rss, limit) << "peak " << rss << " KiB";
  const CliResult q = shell("timeout 60 \"$WM\" find -q -f pats.txt a.txt; echo rc=$?", &rss);
  EXPECT_EQ(q.out, "rc=0\n") << q.err;
  EXPECT_LT(rss, limit) << "peak " << rss << " KiB";
  const CliResult m = shell("timeout 60 \"$WM\" find -m 3 -f pats.txt a.txt", &rss);
  EXPECT_EQ(m.out, "0:a\n0:aa\n0:aaa\n") << m.err;
  EXPECT_LT(rss, limit) << "peak " << rss << " KiB";
  // -m with -c counts up to the limit (grep -c -m 3 prints 3).
  const CliResult mc = shell("timeout 60 \"$WM\" find -c -m 3 aaaa a.txt");
  EXPECT_EQ(mc.out, "3\n") << mc.err;
}

// --- medium: write errors and closed pipes --------------------------------------------------

TEST_F(CliHostile, WriteErrorOnAFullDiskIsReportedWithStatusTwo) {
  file("t.txt", "hello world\n");
  file("b.txt", "hello there\n");
  const std::vector<std::string> commands = {
      "\"$WM\" find hello t.txt", "\"$WM\" find -c hello t.txt", "\"$WM\" approx -k 1 hello t.txt",
      "\"$WM\" distance t.txt b.txt", "\"$WM\" lcs t.txt b.txt", "\"$WM\" info"};
  for (const std::string& command : commands) {
    const CliResult r = shell(command + " > /dev/full");
    EXPECT_EQ(r.status, 2) << command;
    EXPECT_EQ(r.err, "warpmatch: write error: standard output: No space left on device\n") << command;
  }
}

TEST_F(CliHostile, ClosedStdoutIsAWriteError) {
  file("t.txt", "hello world\n");
  const CliResult r = shell("\"$WM\" find hello t.txt >&-");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("warpmatch: write error: standard output: "), std::string::npos) << r.err;
}

TEST_F(CliHostile, ClosedPipeEndsQuietlyWithOrWithoutSigpipe) {
  ASSERT_EQ(shell("yes needle | head -c 50000000 > t.txt").status, 0);
  // SIGPIPE at its default: the process ends at the first write after the reader left.
  const CliResult r = shell("timeout 60 \"$WM\" find needle t.txt 2> wm.err | head -1; cat wm.err");
  EXPECT_EQ(r.out, "0:needle\n");
  // SIGPIPE ignored (as some parents leave it): EPIPE ends the run quietly with status 2.
  const CliResult ignored =
      shell("trap '' PIPE; { timeout 60 \"$WM\" find needle t.txt 2> wm.err; echo $? > rc; } | head -1; "
            "cat rc wm.err");
  EXPECT_EQ(ignored.out, "0:needle\n2\n");
}

TEST_F(CliHostile, LcsAndDistanceOfAGzipBombStopAtTheirLimitWithAClearError) {
  // 64 MiB of one letter in 64 KiB of gzip; the memory these commands may take is set to
  // 256 MiB (WARPMATCH_MEMORY_BYTES): lcs (45 bytes per input byte) stops reading at 5.7 MiB.
  ASSERT_EQ(shell(letters("64M") + " | gzip -1 > bomb.gz && echo xyz > b.txt").status, 0);
  long rss = 0;
  const CliResult lcs = shell("WARPMATCH_MEMORY_BYTES=256M \"$WM\" lcs bomb.gz b.txt", &rss);
  EXPECT_EQ(lcs.status, 2);
  EXPECT_EQ(lcs.err, "warpmatch: bomb.gz: more than 5965232 bytes (the most lcs can take: it needs about 45 "
                     "bytes of memory per input byte and 256 MiB are available)\n");
  // With a GPU visible, auto may start the CUDA runtime (~100 MiB of host memory of its own),
  // as the 100-pattern test above allows for; far below the 2.9 GB the whole bomb would need.
  EXPECT_LT(rss, warpmatch_test::kMemoryScale * (warpmatch::cuda_devices().empty() ? 100L : 250L) * 1024)
      << "peak " << rss << " KiB";
  const CliResult distance = shell("WARPMATCH_MEMORY_BYTES=64M \"$WM\" distance bomb.gz b.txt");
  EXPECT_EQ(distance.status, 2);
  EXPECT_NE(distance.err.find("bomb.gz: more than 33554432 bytes (the most distance can take"), std::string::npos)
      << distance.err;
  // The CPU forced: its 32-bit arrays take 16 bytes per input byte.
  const CliResult lcs_cpu = shell("WARPMATCH_MEMORY_BYTES=256M \"$WM\" lcs --backend cpu bomb.gz b.txt");
  EXPECT_EQ(lcs_cpu.err, "warpmatch: bomb.gz: more than 16777216 bytes (the most lcs can take: it needs about 16 "
                         "bytes of memory per input byte and 256 MiB are available)\n");
  // Two inputs that fit one by one but not together: named with what they need.
  ASSERT_EQ(shell(letters("4M") + " > four.txt").status, 0);
  const CliResult both = shell("WARPMATCH_MEMORY_BYTES=256M \"$WM\" lcs four.txt four.txt");
  EXPECT_EQ(both.status, 2);
  EXPECT_EQ(both.err, "warpmatch: lcs of four.txt (4.0 MiB) and four.txt (4.0 MiB) needs about 360 MiB of "
                      "memory (45 bytes per input byte); 256 MiB are available\n");
  // find and approx stream the bomb in bounded memory.
  const CliResult find = shell("\"$WM\" find -c aaaa bomb.gz", &rss);
  EXPECT_EQ(find.out, std::to_string((64u << 20) - 3) + "\n") << find.err;
}

// offtarget over a single-record genome file of 256 MiB (a chromosome): the record is searched
// window by window and the parsed pages of the mapped file are given back, so peak memory
// stays far below the record's size (it was the whole file's: 2.4 GiB for a 2 GiB genome).
// A 1 MiB chunk with one planted site, copied 256 times: 256 sites, in order.
TEST_F(CliHostile, OfftargetOfALargeSingleRecordGenomeIsStreamedInBoundedMemory) {
  const std::string guide = "GAGTCCGAGCAGAAGAAGAA";
  constexpr std::size_t kChunk = std::size_t{1} << 20, kCopies = 256, kSiteAt = 1000;
  std::mt19937_64 rng(11);
  std::string bases(kChunk, 'A');
  for (auto& c : bases) c = "ACGT"[rng() % 4];
  bases.replace(kSiteAt, guide.size() + 3, guide + "AGG");
  std::string chunk;
  for (std::size_t i = 0; i < kChunk; i += 60) chunk += bases.substr(i, 60) + "\n";
  file("chunk.txt", chunk);
  ASSERT_EQ(shell("{ echo '>chr1 one record'; for i in $(seq " + std::to_string(kCopies) +
                  "); do cat chunk.txt; done; } > genome.fa").status, 0);
  std::string want;
  for (std::size_t i = 0; i < kCopies; ++i) {
    const std::size_t start = i * kChunk + kSiteAt;
    want += "chr1\t" + std::to_string(start) + "\t" + std::to_string(start + guide.size() + 3) + "\t" + guide + "\t0\t+\n";
  }
  long rss = 0;
  const std::string search = " -k 1 --window 16M --bed -g " + guide + " genome.fa";
  const CliResult cpu = shell("\"$WM\" offtarget --backend cpu" + search, &rss);
  ASSERT_EQ(cpu.status, 0) << cpu.err;
  EXPECT_EQ(cpu.out, want);
  // Two 16 MiB windows (one searched, one built), the parse's 32 MiB release step, the program.
  EXPECT_LT(rss, warpmatch_test::kMemoryScale * 128L * 1024) << "peak " << rss << " KiB for a 256 MiB record";
  if (!warpmatch::cuda_devices().empty()) {
    const CliResult cuda = shell("\"$WM\" offtarget --backend cuda" + search);
    EXPECT_EQ(cuda.status, 0) << cuda.err;
    EXPECT_EQ(cuda.out, cpu.out);
  }
}

// --- low: option values ---------------------------------------------------------------------

TEST_F(CliHostile, BadOptionValuesNameTheOptionInAFewWords) {
  file("a.txt", "hello\n");
  file("b.txt", "help\n");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"distance", "-k", "-1", "a.txt", "b.txt"}, "--max-distance: must be >= 0 (got -1)"},
      {{"distance", "-k", "abc", "a.txt", "b.txt"}, "--max-distance: not a number: 'abc'"},
      {{"find", "-j", "-1", "x", "a.txt"}, "--threads: must be >= 0 (got -1)"},
      {{"find", "--threads", "1000000", "x", "a.txt"}, "--threads: 1000000 is too large (at most 4096)"},
      {{"lcs", "-l", "0", "a.txt", "b.txt"}, "--min-length: must be >= 1 (got 0)"},
      {{"lcs", "-m", "-1", "a.txt", "b.txt"}, "--max-matches: must be >= 0 (got -1)"},
      {{"approx", "-k", "", "x", "a.txt"}, "--max-edits: a number is required (got an empty value)"},
      {{"approx", "-k", "99999999999999999999", "x", "a.txt"},
       "--max-edits: 99999999999999999999 is too large (at most 9223372036854775807)"},
      {{"approx", "-k", "1", "--max-hits", "-2", "x", "a.txt"}, "--max-hits: must be >= -1 (got -2)"},
      {{"find", "-m", "x1", "x", "a.txt"}, "--max-count: not a number: 'x1'"},
  };
  for (const auto& [args, message] : cases) {
    const CliResult r = run(args);
    EXPECT_EQ(r.status, 2) << args[0] << " " << args[1];
    EXPECT_EQ(r.err.substr(0, r.err.find('\n')), message);
    EXPECT_LT(r.err.size(), 200u) << r.err;
  }
  // --threads 0 is every core; a GPU that is not there is an error (this machine may have some).
  EXPECT_EQ(run({"find", "--threads", "0", "hello", "a.txt"}).out, "0:hello\n");
  const CliResult device = run({"find", "--device", "99", "hello", "a.txt"});
  EXPECT_EQ(device.status, 2);
  EXPECT_NE(device.err.find("--device: no CUDA device 99 ("), std::string::npos) << device.err;
}

TEST_F(CliHostile, PatternFileThatIsADirectoryIsNamed) {
  const CliResult r = run({"find", "-f", dir_.string(), "a.txt"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "warpmatch: " + dir_.string() + ": is a directory\n");
  const CliResult approx = run({"approx", "-k", "1", "--patterns", dir_.string(), "a.txt"});
  EXPECT_EQ(approx.status, 2);
  EXPECT_NE(approx.err.find(dir_.string() + ": is a directory"), std::string::npos) << approx.err;
}

TEST_F(CliHostile, FormatPlainOnEveryCommandReadsHeadersAsText) {
  file("a.fa", ">x\nACGT\n");
  file("b.fa", ">y\nACGT\n");
  // As FASTA the sequences are equal; as plain text the headers differ.
  EXPECT_EQ(run({"distance", "a.fa", "b.fa"}).out, "0\n");
  EXPECT_EQ(run({"distance", "--format", "plain", "a.fa", "b.fa"}).out, "1\n");
  EXPECT_EQ(run({"lcs", "--format", "plain", "a.fa", "b.fa"}).out.substr(0, 9), "length 6,");  // "\nACGT\n"
  EXPECT_EQ(run({"find", "--format", "plain", ">x", "a.fa"}).out, "0:>x\n");
  EXPECT_EQ(run({"approx", "-k", "0", "--format", "plain", ">x", "a.fa"}).out, "0:2:0:>x\n");
}

TEST_F(CliHostile, CigarsFollowSamWithThePatternOrAAsTheQuery) {
  // A byte of the query absent from the reference is 'I', in both commands.
  const CliResult d = run({"distance", "-s", "--align", "GATTACA", "GATACA"});
  EXPECT_EQ(d.out, "1\t2=1I4=\n") << d.err;
  file("t.txt", "xxGATACAxx");
  const CliResult a = run({"approx", "-k", "1", "--cigar", "--best", "GATTACA", "t.txt"});
  EXPECT_NE(a.out.find(":2=1I4=:"), std::string::npos) << a.out;
  for (const std::string cmd : {"distance", "approx"})
    EXPECT_NE(run({cmd, "--help"}).out.find("SAM's convention"), std::string::npos) << cmd;
}

// --- grep conventions -------------------------------------------------------------------------

TEST_F(CliHostile, GrepConventionsForCountsQuietAndStdin) {
  file("a.txt", "hello\n");
  file("b.txt", "nothing\n");
  // -c with no match prints 0 per input (status 1).
  CliResult c = run({"find", "-c", "zzz", "a.txt", "b.txt"});
  EXPECT_EQ(c.out, "a.txt:0\nb.txt:0\n");
  EXPECT_EQ(c.status, 1);
  EXPECT_EQ(run({"approx", "-c", "-k", "0", "zzz", "a.txt"}).out, "0\n");
  // With a pattern set, zero counts only when asked.
  file("p.txt", "hello\nzzz\n");
  EXPECT_EQ(run({"find", "-c", "-f", "p.txt", "a.txt"}).out, "0:1\n");
  EXPECT_EQ(run({"find", "-c", "--include-zero", "-f", "p.txt", "a.txt"}).out, "0:1\n1:0\n");
  // -m with -c counts up to N.
  file("many.txt", "hello hello hello hello\n");
  EXPECT_EQ(run({"find", "-c", "-m", "2", "hello", "many.txt"}).out, "2\n");
  EXPECT_EQ(run({"approx", "-c", "-k", "0", "--max-hits", "2", "hello", "many.txt"}).out, "2\n");
  // -q: a match wins over an error (0); no match with an error is 2.
  EXPECT_EQ(run({"find", "-q", "hello", "missing.txt", "a.txt"}).status, 0);
  EXPECT_EQ(run({"find", "-q", "zzz", "missing.txt", "a.txt"}).status, 2);
  EXPECT_EQ(run({"approx", "-q", "-k", "0", "hello", "missing.txt", "a.txt"}).status, 0);
  EXPECT_EQ(run({"find", "-q", "-c", "hello", "a.txt"}).out, "");
  // '-' among files is standard input, named as grep names it.
  const CliResult mixed = run({"find", "hello", "a.txt", "-", "b.txt"}, "hello stdin\n");
  EXPECT_EQ(mixed.out, "a.txt:0:hello\n(standard input):0:hello\n");
}

// --- hostile inputs -------------------------------------------------------------------------

TEST_F(CliHostile, OddFastaAndFastqRecords) {
  // A record with no sequence, '>' alone, CRLF line ends, a NUL byte, a 1 MB single line.
  file("noseq.fa", ">r1\n>r2\nACGT\n");
  EXPECT_EQ(run({"find", "GT", "noseq.fa"}).out, "r2:2:GT\n");
  file("gt.fa", ">");
  const CliResult gt = run({"find", "-c", "A", "gt.fa"});
  EXPECT_EQ(gt.out, "0\n");
  EXPECT_EQ(gt.status, 1);
  file("crlf.fa", ">r1 x\r\nACG\r\nTAC\r\n>r2\r\nGGG\r\n");
  EXPECT_EQ(run({"find", "GTAC", "crlf.fa"}).out, "r1:2:GTAC\n");
  EXPECT_EQ(run({"approx", "-k", "0", "GTAC", "crlf.fa"}).out, "r1:2:6:0:GTAC\n");
  file("nul.fa", std::string(">r1\nAC\0GT\n", 10));
  EXPECT_EQ(run({"find", "-c", "GT", "nul.fa"}).out, "1\n");
  EXPECT_EQ(run({"find", "AC", "nul.fa"}).out, "r1:0:AC\n");
  std::string line = ">big\n";
  for (int i = 0; i < 262144; ++i) line += "ACGT";
  line += "GATTACA\n";
  file("big.fa", line);
  EXPECT_EQ(run({"find", "GATTACA", "big.fa"}).out, "big:1048576:GATTACA\n");
  EXPECT_EQ(run({"approx", "-k", "1", "--best", "GATTACA", "big.fa"}).out, "big:1048576:1048583:0:GATTACA\n");
  // FASTQ with fewer quality values than bases: an error naming the line and record, exit 2.
  file("bad.fq", "@r1\nACGT\n+\nII\n");
  const CliResult fq = run({"find", "AC", "bad.fq"});
  EXPECT_EQ(fq.status, 2);
  EXPECT_EQ(fq.err, "warpmatch: bad.fq: line 4: FASTQ record 'r1' has 4 bases but 2 quality values\n");
}

TEST_F(CliHostile, MillionLinePatternFileAndOneMegabytePattern) {
  std::string patterns;
  for (int i = 1; i <= 1000000; ++i) patterns += "w" + std::to_string(i) + "\n";
  file("million.txt", patterns);
  file("t.txt", "xx w999999 yy w1000000\n");
  const CliResult r = run({"find", "-c", "--include-zero", "-f", "million.txt", "t.txt"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\n999998:1\n"), std::string::npos);   // w999999 (line 999999)
  EXPECT_NE(r.out.find("\n999999:1\n"), std::string::npos);   // w1000000
  EXPECT_NE(r.out.find("\n9:1\n"), std::string::npos);        // w10, inside w1000000
  EXPECT_NE(r.out.find("\n11:0\n"), std::string::npos);       // w12: absent
  std::string big(1 << 20, 'a');
  big[1000] = 'b';
  file("one.txt", big + "\n");
  file("text.txt", "zz" + big + "zz");
  EXPECT_EQ(run({"find", "-c", "-f", "one.txt", "text.txt"}).out, "0:1\n");
  file("short.txt", "zz" + big.substr(0, 2000) + "zz");
  EXPECT_EQ(run({"approx", "-c", "-k", "3", "--patterns", "one.txt", "short.txt"}).out, "0\n");
}

TEST_F(CliHostile, FifoWithNoWriterWaitsLikeGrepAndReadsWhatComes) {
  ASSERT_EQ(shell("mkfifo fifo").status, 0);
  // No writer: open() waits (as grep does); a timeout ends it with the timeout's status.
  const CliResult waiting = shell("timeout 1 \"$WM\" find x fifo; echo rc=$?");
  EXPECT_EQ(waiting.out, "rc=124\n");
  // A writer that comes later is read.
  const CliResult late = shell("(sleep 0.2; timeout 30 sh -c 'echo a needle > fifo') & timeout 30 \"$WM\" find needle fifo; wait");
  EXPECT_EQ(late.out, "2:needle\n") << late.err;
}

TEST_F(CliHostile, MatchesBeyondFourGibInASparseFileAndAPipe) {
  // 4 GiB + 100 bytes of holes, then the needle: offsets past 2^32 are printed exactly.
  ASSERT_EQ(shell("truncate -s 4294967396 big.bin && printf needle >> big.bin").status, 0);
  const CliResult sparse = shell("timeout 300 \"$WM\" find needle big.bin");
  EXPECT_EQ(sparse.out, "4294967396:needle\n") << sparse.err;
  const CliResult piped =
      shell("{ head -c 4294967396 /dev/zero; printf needleXneedle; } | timeout 300 \"$WM\" find -c needle");
  EXPECT_EQ(piped.out, "2\n") << piped.err;
}
