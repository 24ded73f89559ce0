// Issue 16, hostile inputs and conditions on the command line: hits of a whole input (dense
// approximate hits, every pattern at every start) streamed in bounded memory and stopped at
// once by -q, -m, --max-hits and a closed pipe; write errors (disk full, closed stdout);
// option values out of range; grep's conventions; odd FASTA/FASTQ and pattern files.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "cli_test_support.hpp"

using warpmatch_test::CliResult;
using warpmatch_test::quote;

namespace {

class CliHostile : public warpmatch_test::CliTest {
 protected:
  CliHostile() : CliTest("warpmatch_hostile_") {}

  // Runs `pipeline` (/bin/sh, "$WM" = the CLI, in dir_) and returns its result and the peak
  // resident memory of its largest process.
  CliResult shell(const std::string& pipeline, long* max_rss_kib = nullptr) {
    const std::string out = (dir_ / ".out").string(), err = (dir_ / ".err").string();
    const std::string cmd = "export WM=" + quote(warpmatch_test::cli_path()) + "; cd " + quote(dir_.string()) +
                            " && " + pipeline;
    const pid_t pid = ::fork();
    if (pid == 0) {
      std::freopen(out.c_str(), "w", stdout);
      std::freopen(err.c_str(), "w", stderr);
      ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    int status = 0;
    struct rusage usage {};
    ::wait4(pid, &status, 0, &usage);
    if (max_rss_kib) *max_rss_kib = usage.ru_maxrss;
    CliResult r;
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = warpmatch_test::read_file(out);
    r.err = warpmatch_test::read_file(err);
    return r;
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
  EXPECT_LT(rss, 800L * 1024) << "peak " << rss << " KiB";
  CliResult q = shell(letters("2G") + " | { timeout 60 \"$WM\" approx -q -k 1 aaaa; echo rc=$?; }", &rss);
  EXPECT_EQ(q.out, "rc=0\n") << q.err;
  EXPECT_LT(rss, 800L * 1024) << "peak " << rss << " KiB";
  CliResult m = shell(letters("2G") + " | { timeout 60 \"$WM\" approx --max-hits 2 -k 1 aaaa; echo rc=$?; }", &rss);
  EXPECT_EQ(m.out, "0:3:1:aaa\n0:4:0:aaaa\nrc=0\n") << m.err;
  EXPECT_LT(rss, 800L * 1024) << "peak " << rss << " KiB";
}

TEST_F(CliHostile, ApproxCountOfDenseHitsIsExactAndBounded) {
  long rss = 0;
  const CliResult c = shell(letters("20000000") + " | \"$WM\" approx -c -k 1 aaaa", &rss);
  EXPECT_EQ(c.out, "19999998\n") << c.err;
  EXPECT_LT(rss, 800L * 1024) << "peak " << rss << " KiB";
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
  const CliResult head = shell("timeout 60 sh -c '\"$WM\" find -f pats.txt a.txt | head -1'", &rss);
  EXPECT_EQ(head.out, "0:a\n") << head.err;
  EXPECT_LT(rss, 800L * 1024) << "peak " << rss << " KiB";
  const CliResult q = shell("timeout 60 \"$WM\" find -q -f pats.txt a.txt; echo rc=$?", &rss);
  EXPECT_EQ(q.out, "rc=0\n") << q.err;
  EXPECT_LT(rss, 800L * 1024) << "peak " << rss << " KiB";
  const CliResult m = shell("timeout 60 \"$WM\" find -m 3 -f pats.txt a.txt", &rss);
  EXPECT_EQ(m.out, "0:a\n0:aa\n0:aaa\n") << m.err;
  EXPECT_LT(rss, 800L * 1024) << "peak " << rss << " KiB";
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
