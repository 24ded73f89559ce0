// The command line on streamed inputs: a multi-GiB pipe searched in bounded memory, endless
// pipes stopped by -q / -m, compressed inputs (gzip, BGZF, zstd) giving the plain file's
// output, a corrupt input reported after its matches with the other inputs still searched,
// and `auto` never starting CUDA for a small job (--stats says why); the progress line on a
// terminal, for files and for pipes of unknown size; an interactive pipe (a writer that
// pauses) has its matches printed while it waits, and -q / -m end without waiting for it.
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cli_test_support.hpp"
#include "compression_test_support.hpp"

using warpmatch_test::CliResult;
using warpmatch_test::quote;

namespace {

class CliStream : public warpmatch_test::CliTest {
 protected:
};

// The CLI as a child process whose standard input and output are pipes this test holds: the
// test plays a writer that pauses (a `tail -f`) and a reader of the results.
class Child {
 public:
  explicit Child(const std::vector<std::string>& args) {
    int in[2], out[2];
    EXPECT_EQ(::pipe(in), 0);
    EXPECT_EQ(::pipe(out), 0);
    const std::string cli = warpmatch_test::cli_path();
    std::vector<char*> argv{const_cast<char*>(cli.c_str())};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(in[0], 0);
      ::dup2(out[1], 1);
      for (int fd : {in[0], in[1], out[0], out[1]}) ::close(fd);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    in_ = in[1];
    out_ = out[0];
  }
  ~Child() {
    close_input();
    if (out_ >= 0) ::close(out_);
    if (pid_ > 0 && !exited_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }

  void write(const std::string& bytes) { EXPECT_EQ(::write(in_, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size())); }
  void close_input() {
    if (in_ >= 0) ::close(in_);
    in_ = -1;
  }
  // Its output until `lines` lines or the end came, waiting at most 60 s in all.
  std::string read_lines(int lines) {
    std::string got;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::count(got.begin(), got.end(), '\n') < lines && std::chrono::steady_clock::now() < deadline) {
      pollfd p{out_, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      char buf[4096];
      const ssize_t n = ::read(out_, buf, sizeof buf);
      if (n <= 0) break;
      got.append(buf, static_cast<std::size_t>(n));
    }
    return got;
  }
  // Its exit status once it has exited within 60 s, else -1 (still running).
  int wait_exit() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        exited_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return -1;
  }

 private:
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1;
  bool exited_ = false;
};

}  // namespace

TEST_F(CliStream, PausedPipesMatchesArePrintedBeforeTheWriterContinues) {
  // stdout is a pipe (block-buffered): the lines come because the search flushes after a
  // window whose input paused. Each case's writer sends a match, then waits for its line.
  struct Case {
    std::vector<std::string> args;
    std::string first, first_lines, rest, rest_lines;
  };
  const std::vector<Case> cases = {
      {{"find", "needle"}, "one\na needle\n", "6:needle\n", "needle\n", "13:needle\n"},
      {{"find", "-e", "needle", "-e", "eedl"}, "a needle\n", "2:needle\n3:eedl\n", "", ""},
      {{"find", "--json", "needle"}, "a needle\n",
       R"j({"type":"match","path":"(standard input)","record":null,"pattern":0,"start":2,"end":8})j" "\n", "", ""},
      {{"find", "GGATCC"}, ">r1\nACGTGGATCC\n", "r1:4:GGATCC\n", ">r2\nGGATCC\n", "r2:0:GGATCC\n"},
      {{"approx", "-k", "0", "GGATCC"}, "xxGGATCCxx\n", "2:8:0:GGATCC\n", "", ""},
  };
  for (const Case& c : cases) {
    Child child(c.args);
    child.write(c.first);
    const auto lines = [](const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); };
    EXPECT_EQ(child.read_lines(lines(c.first_lines)), c.first_lines)
        << c.args[0] << " " << c.args.back() << ": printed while the writer waits";
    child.write(c.rest);
    child.close_input();
    const std::string rest = child.read_lines(1 << 20);  // to the end
    if (c.args[1] == "--json") EXPECT_EQ(rest.rfind(R"({"type":"summary")", 0), 0u) << rest;
    else EXPECT_EQ(rest, c.rest_lines);
    EXPECT_EQ(child.wait_exit(), 0);
  }
}

TEST_F(CliStream, QuietAndMaxCountEndWhileTheWriterPauses) {
  // The writer never closes before the command has ended: -q and -m must not wait for it.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"find", "-q", "needle"}, {"find", "-m", "1", "needle"},
        {"approx", "-k", "1", "--max-hits", "1", "needle"}}) {
    Child child(args);
    child.write("a needle\n");
    EXPECT_EQ(child.wait_exit(), 0) << args[1] << ": ended while its input was still open";
  }
}

TEST_F(CliStream, LineBufferedPrintsTheSameLines) {
  std::string text;
  for (int i = 0; i < 5000; ++i) text += "line " + std::to_string(i) + (i % 3 ? " needle\n" : "\n");
  const auto f = file("t.txt", text);
  for (const std::string cmd : {"find", "approx"}) {
    std::vector<std::string> plain = {cmd, "needle", f.string()}, buffered = {cmd, "--line-buffered", "needle", f.string()};
    if (cmd == "approx") {
      plain.insert(plain.begin() + 1, {"-k", "1"});
      buffered.insert(buffered.begin() + 1, {"-k", "1"});
    }
    const CliResult want = run(plain), got = run(buffered);
    EXPECT_EQ(got.status, 0) << got.err;
    EXPECT_EQ(got.out, want.out) << cmd;
    EXPECT_FALSE(got.out.empty());
  }
}

TEST_F(CliStream, TwoGibPipeIsSearchedInBoundedMemory) {
  // 2 GiB of "needle\n" lines through a pipe: counted exactly, memory far below the input.
  const std::uint64_t bytes = 2ull << 30, line = 7;
  const std::uint64_t expected = bytes / line + (bytes % line >= 6 ? 1 : 0);
  long rss_kib = 0;
  const CliResult r = shell("yes needle | head -c " + std::to_string(bytes) + " | \"$WM\" find -c needle", &rss_kib);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, std::to_string(expected) + "\n");
  EXPECT_LT(rss_kib, warpmatch_test::kMemoryScale * 1200L * 1024) << "peak memory " << rss_kib << " KiB for a 2 GiB pipe";
}

TEST_F(CliStream, EndlessPipeStopsAtFirstMatchOrMaxCount) {
  // `yes` never ends: only an early stop can finish these (timeout guards a hang).
  CliResult q = shell("timeout 60 sh -c 'yes needle | \"$WM\" find -q needle'; echo \"rc=$?\"");
  EXPECT_EQ(q.out, "rc=0\n") << q.err;
  CliResult m = shell("timeout 60 sh -c 'yes needle | \"$WM\" find -m 3 needle'; echo \"rc=$?\"");
  EXPECT_EQ(m.out, "0:needle\n7:needle\n14:needle\nrc=0\n") << m.err;
  CliResult a = shell("timeout 60 sh -c 'yes GATTACA | \"$WM\" approx -k 1 --max-hits 2 GATTACA'; echo \"rc=$?\"");
  EXPECT_EQ(a.status, 0);
  EXPECT_NE(a.out.find("rc=0"), std::string::npos) << a.out << a.err;
}

TEST_F(CliStream, CompressedInputsPrintWhatThePlainFilePrints) {
  std::string fa;
  for (int r = 0; r < 40; ++r) {
    fa += ">r" + std::to_string(r) + "\n";
    for (int l = 0; l < 50; ++l) fa += (l % 7 == r % 7 ? "ACGTGGATCCTTGA" : "ACGTACGTACGTAC") + std::string("\n");
  }
  const auto plain = file("g.fa", fa);
  const CliResult want = run({"find", "GGATCC", plain.string()});
  ASSERT_EQ(want.status, 0);
  const std::vector<std::pair<std::string, std::string>> compressed = {
      {"gzip", warpmatch_test::gzip_member(fa)}, {"bgzf", warpmatch_test::bgzf(fa, 1000)},
      {"zstd", warpmatch_test::zstd_frame(fa)}};
  const std::string approx_want = run({"approx", "-k", "1", "GGATCC", plain.string()}).out;
  for (const auto& [kind, bytes] : compressed) {
    const auto z = file("g." + kind, bytes);
    EXPECT_EQ(run({"find", "GGATCC", z.string()}).out, want.out) << kind;
    const CliResult piped = shell("cat " + quote(z.string()) + " | \"$WM\" find --window 100 GGATCC");
    EXPECT_EQ(piped.out, want.out) << kind << " through a pipe";
    const CliResult approx = shell("cat " + quote(z.string()) + " | \"$WM\" approx -k 1 --window 50 GGATCC");
    EXPECT_EQ(approx.out, approx_want) << kind;
  }
}

TEST_F(CliStream, LargeGzipMemberDecodedInParallelPrintsWhatThePlainFilePrints) {
  // Over 8 MiB compressed in one member: with 4 threads it is decoded on all of them
  // (io/parallel_inflate.hpp), without a read-ahead stage; with 1 thread by ISA-L.
  std::mt19937_64 rng(17);
  std::string fa;
  while (fa.size() < (std::size_t{22} << 20)) {
    fa += ">r" + std::to_string(fa.size()) + "\n";
    for (int l = 0; l < 40; ++l) {
      for (int c = 0; c < 60; ++c) fa.push_back("ACGTNRYKMSWBDHVacgt"[rng() % 16]);
      fa.push_back('\n');
    }
  }
  const auto plain = file("big.fa", fa);
  const std::string gz = warpmatch_test::gzip_member(fa);
  ASSERT_GT(gz.size(), std::size_t{8} << 20);
  const auto z = file("big.fa.gz", gz);
  const CliResult want = run({"find", "-j", "4", "GATC", plain.string()});
  ASSERT_EQ(want.status, 0);
  ASSERT_GT(want.out.size(), 1000u);
  for (const char* threads : {"4", "1"}) {
    const CliResult got = run({"find", "-j", threads, "GATC", z.string()});
    EXPECT_EQ(got.status, 0) << threads << got.err;
    EXPECT_TRUE(got.out == want.out) << threads << " threads";
  }
  // Cut: the matches before the cut, then the error (exit 2), as the sequential decoder.
  const auto cut = file("cut.fa.gz", gz.substr(0, gz.size() * 3 / 5));
  const CliResult parallel = run({"find", "-j", "4", "-c", "GATC", cut.string()});
  const CliResult sequential = run({"find", "-j", "1", "-c", "GATC", cut.string()});
  EXPECT_EQ(parallel.status, 2);
  EXPECT_EQ(parallel.out, sequential.out);
  EXPECT_EQ(parallel.err, sequential.err);
  EXPECT_NE(parallel.err.find("corrupt gzip data at compressed byte offset"), std::string::npos) << parallel.err;
}

TEST_F(CliStream, CorruptInputIsReportedAfterItsMatchesAndOthersAreSearched) {
  std::string text;
  for (int i = 0; i < 200000; ++i) text += "line " + std::to_string(i) + " needle\n";
  file("t.txt", text);
  // Truncate a gzip of it: the matches before the cut are printed, then the error (exit 2),
  // and the next input is still searched.
  const CliResult r = shell("cd " + quote(dir_.string()) +
                            " && gzip -c t.txt | head -c 300000 > cut.gz && \"$WM\" find -c needle cut.gz t.txt");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("cut.gz: corrupt gzip data at compressed byte offset"), std::string::npos) << r.err;
  const auto first = r.out.substr(0, r.out.find('\n'));
  ASSERT_EQ(first.rfind("cut.gz:", 0), 0u) << r.out;
  EXPECT_GT(std::stoull(first.substr(7)), 1000u) << "matches before the cut are counted";
  EXPECT_NE(r.out.find("t.txt:200000\n"), std::string::npos) << r.out;
}

TEST_F(CliStream, AutoOnASmallJobNamesItsChoice) {
  const auto f = file("tiny.txt", "a needle in a haystack\n");
  const CliResult r = run({"find", "--stats", "-c", "needle", f.string()});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "1\n");
  EXPECT_NE(r.err.find("backend choice: auto: cpu"), std::string::npos) << r.err;
  const CliResult forced = run({"find", "--stats", "--backend", "cpu", "-c", "needle", f.string()});
  EXPECT_NE(forced.err.find("backend choice: --backend cpu"), std::string::npos) << forced.err;
}

TEST_F(CliStream, TuneCostModelStoresMeasuredRates) {
  const std::string cache = (dir_ / "cache").string();
  const CliResult r = shell("XDG_CACHE_HOME=" + quote(cache) + " \"$WM\" tune --cost-model --cost-bytes 4M");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string stored = warpmatch_test::read_file(dir_ / "cache" / "warpmatch" / "cost_model.txt");
  for (const char* key : {"cpu_exact_gbps_per_thread", "cpu_multi_gbps_per_thread_1000",
                          "cpu_approx_gbps_per_thread_pattern", "cuda_start_seconds"}) {
    const auto at = stored.find(std::string(key) + " ");
    ASSERT_NE(at, std::string::npos) << key << " missing in\n" << stored;
    EXPECT_GT(std::stod(stored.substr(at + std::string(key).size() + 1)), 0.0) << key;
  }
  // A later run reads them (and still answers correctly).
  const auto f = file("t.txt", "needle\n");
  const CliResult after = shell("XDG_CACHE_HOME=" + quote(cache) + " \"$WM\" find -c needle " + quote(f.string()));
  EXPECT_EQ(after.out, "1\n");
}

TEST_F(CliStream, BadWindowSizeIsAUsageErrorNamingTheOption) {
  const auto f = file("t.txt", "needle\n");
  for (const std::string cmd : {"find", "approx"}) {
    std::vector<std::string> args = {cmd, "--window", "5X"};
    if (cmd == "approx") args.insert(args.end(), {"-k", "1"});
    args.insert(args.end(), {"needle", f.string()});
    const CliResult r = run(args);
    EXPECT_EQ(r.status, 2) << cmd;
    EXPECT_NE(r.err.find("--window: invalid size suffix in '5X'"), std::string::npos) << cmd << ": " << r.err;
    EXPECT_EQ(r.err.find("t.txt"), std::string::npos) << "not an error of the input: " << r.err;
  }
}

// The searcher's progress line, with stderr on a terminal (script(1) gives the command a
// pseudo-terminal and copies what it shows): a file of known size draws a bar with its
// percentage; standard input through a pipe, of unknown size, draws the bytes done and the
// rate; --no-progress and a small job draw nothing. Every line is erased at the end.
TEST_F(CliStream, ProgressLineOnATerminalForFilesAndPipesOfUnknownSize) {
  if (std::system("command -v script >/dev/null 2>&1 && command -v truncate >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "script(1) or truncate(1) is not installed";
  auto on_terminal = [&](const std::string& command) {
    return shell("script -qec " + quote(command + " > /dev/null") + " /dev/null < /dev/null");
  };
  const CliResult file = on_terminal("truncate -s 300M big && \"$WM\" find -c --backend cpu needle big");
  ASSERT_EQ(file.status, 1) << file.err;  // no needle in zeros
  EXPECT_NE(file.out.find("] 100.0%  0.29 / 0.29 GiB"), std::string::npos) << file.out;
  EXPECT_NE(file.out.find("\r\033[K"), std::string::npos) << file.out;

  const CliResult pipe = on_terminal("head -c 300M /dev/zero | \"$WM\" find -c --backend cpu needle -");
  ASSERT_EQ(pipe.status, 1) << pipe.err;
  EXPECT_NE(pipe.out.find(" GiB  "), std::string::npos) << pipe.out;
  EXPECT_NE(pipe.out.find(" GB/s"), std::string::npos) << pipe.out;
  EXPECT_EQ(pipe.out.find('%'), std::string::npos) << "no percentage without a size: " << pipe.out;
  EXPECT_NE(pipe.out.find("\r\033[K"), std::string::npos) << pipe.out;

  const CliResult off = on_terminal("head -c 300M /dev/zero | \"$WM\" find -c --no-progress --backend cpu needle -");
  EXPECT_EQ(off.out.find("GiB"), std::string::npos) << off.out;
  const CliResult small = on_terminal("head -c 1M /dev/zero | \"$WM\" find -c --backend cpu needle -");
  EXPECT_EQ(small.out.find("GiB"), std::string::npos) << small.out;
}
