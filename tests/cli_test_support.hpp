// Shared by the CLI tests (test_cli*.cpp, test_bench_e2e.cpp): run the built `warpmatch` (or
// `warpmatch-bench`) binary in a per-test temporary directory and capture its exit status,
// stdout and stderr. WARPMATCH_CLI and WARPMATCH_BENCH override the compiled-in paths
// (WARPMATCH_CLI_PATH, WARPMATCH_BENCH_PATH), e.g. on the GPU machine.
#pragma once

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <cctype>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/sanitizers.hpp"

namespace warpmatch_test {

struct CliResult {
  int status = -1;
  std::string out, err;
};

// Built with AddressSanitizer (the `debug` preset): its shadow memory and quarantine make a
// process's resident memory several times larger, so memory bounds are scaled by this.
#if defined(WARPMATCH_UNDER_ASAN)
inline constexpr long kMemoryScale = 4;
#else
inline constexpr long kMemoryScale = 1;
#endif

inline std::string cli_path() {
  if (const char* p = std::getenv("WARPMATCH_CLI")) return p;
  return WARPMATCH_CLI_PATH;
}

inline std::string bench_path() {
  if (const char* p = std::getenv("WARPMATCH_BENCH")) return p;
  return WARPMATCH_BENCH_PATH;
}

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline void write_file(const std::filesystem::path& p, std::string_view content) {
  std::ofstream f(p, std::ios::binary);
  f.write(content.data(), static_cast<std::streamsize>(content.size()));
}

inline void write_gzip(const std::filesystem::path& p, std::string_view content) {
  gzFile g = gzopen(p.c_str(), "wb");
  ASSERT_NE(g, nullptr);
  gzwrite(g, content.data(), static_cast<unsigned>(content.size()));
  gzclose(g);
}

// Single-quotes `s` for /bin/sh.
/// Edit distance of a and b by the plain DP: the approx commands' oracle.
inline std::size_t levenshtein(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

inline std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') q += "'\\''";
    else q += c;
  }
  return q + "'";
}

// One JSON value per line of `out`.
inline std::vector<nlohmann::json> json_lines(const std::string& out) {
  std::vector<nlohmann::json> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

// Fixture base: each test gets its own empty directory dir_, named
// <prefix><pid>_<test name>, so parallel test processes never share one.
/// got == want for outputs of megabytes: on a difference, their sizes and the first line that
/// differs (gtest's diff of two such strings takes minutes and gigabytes).
inline ::testing::AssertionResult same_output(const std::string& got, const std::string& want) {
  if (got == want) return ::testing::AssertionSuccess();
  const auto [g, w] = std::mismatch(got.begin(), got.end(), want.begin(), want.end());
  const std::size_t at = static_cast<std::size_t>(g - got.begin());
  const std::size_t newline = at == 0 ? std::string::npos : got.rfind('\n', at - 1);
  const std::size_t line_begin = newline == std::string::npos ? 0 : newline + 1;
  const auto line = [&](const std::string& s) {
    if (line_begin >= s.size()) return std::string("(end)");
    return quote(s.substr(line_begin, std::min<std::size_t>(s.find('\n', line_begin) - line_begin, 200)));
  };
  return ::testing::AssertionFailure() << "outputs of " << got.size() << " and " << want.size()
                                       << " bytes differ at byte " << at << ", line " << 1 + std::count(got.begin(), g, '\n')
                                       << ": got " << line(got) << ", want " << line(want);
}

class CliTest : public ::testing::Test {
 protected:
  explicit CliTest(std::string dir_prefix = "warpmatch_cli_") : dir_prefix_(std::move(dir_prefix)) {}

  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           (dir_prefix_ + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Writes `content` to dir_/name and returns that path.
  std::filesystem::path file(const std::string& name, std::string_view content) {
    write_file(dir_ / name, content);
    return dir_ / name;
  }

  // Runs the CLI with `args` and `stdin_data` on its standard input.
  CliResult run(const std::vector<std::string>& args, std::string_view stdin_data = {}) {
    const std::filesystem::path in = dir_ / ".stdin";
    write_file(in, stdin_data);
    return run_with_stdin_from(args, in);
  }

  // Runs the CLI with `args`, standard input redirected from `stdin_path`; `env` (e.g.
  // "NAME=value ") is put in front of the command line.
  CliResult run_with_stdin_from(const std::vector<std::string>& args, const std::filesystem::path& stdin_path,
                                const std::string& env = "") {
    return run_program(cli_path(), args, stdin_path, env);
  }

  // Runs `program` with `args`, standard input redirected from `stdin_path`, `env` in front.
  CliResult run_program(const std::string& program, const std::vector<std::string>& args,
                        const std::filesystem::path& stdin_path, const std::string& env = "") {
    const std::filesystem::path out = dir_ / ".stdout", err = dir_ / ".stderr";
    std::string cmd = env + quote(program);
    for (const auto& a : args) cmd += " " + quote(a);
    cmd += " < " + quote(stdin_path) + " > " + quote(out) + " 2> " + quote(err);
    const int raw = std::system(cmd.c_str());
    CliResult r;
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
    r.out = read_file(out);
    r.err = read_file(err);
    return r;
  }

  // Runs `pipeline` (/bin/sh, "$WM" = the CLI, in dir_) and returns its result and the peak
  // resident memory of its largest process. A child forked from this test process starts with
  // its memory image, and Linux keeps that image's peak in the rusage across exec (on the GPU
  // machine a test binary of ~480 MB made a 73 MB run read 483 MB), so the pipeline is started
  // by /usr/bin/time, a small process, whose report of its child is the figure; without it,
  // wait4's rusage of the shell (an upper bound).
  CliResult shell(const std::string& pipeline, long* max_rss_kib = nullptr) {
    const std::string out = (dir_ / ".out").string(), err = (dir_ / ".err").string();
    const std::string peak = (dir_ / ".peak").string();
    const std::string cmd = "export WM=" + quote(cli_path()) + "; cd " + quote(dir_.string()) +
                            " && {\n" + pipeline + "\n}";
    const bool timed = max_rss_kib && ::access("/usr/bin/time", X_OK) == 0;
    const pid_t pid = ::fork();
    if (pid == 0) {
      std::freopen(out.c_str(), "w", stdout);
      std::freopen(err.c_str(), "w", stderr);
      if (timed)
        ::execl("/usr/bin/time", "time", "-q", "-f", "%M", "-o", peak.c_str(), "/bin/sh", "-c", cmd.c_str(),
                static_cast<char*>(nullptr));
      else
        ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    int status = 0;
    struct rusage usage {};
    ::wait4(pid, &status, 0, &usage);
    if (max_rss_kib) *max_rss_kib = usage.ru_maxrss;
    if (timed) {
      const std::string reported = read_file(peak);  // "%M\n", KiB
      if (!reported.empty() && std::isdigit(static_cast<unsigned char>(reported[0]))) *max_rss_kib = std::stol(reported);
    }
    CliResult r;
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = read_file(out);
    r.err = read_file(err);
    return r;
  }

  // The CLI with `args` and the file at `path` on a pipe, not mapped: it is streamed in
  // windows of --window bytes.
  CliResult piped(const std::string& path, const std::vector<std::string>& args) {
    std::string line = "cat " + quote(path) + " | \"$WM\"";
    for (const auto& a : args) line += " " + quote(a);
    return shell(line);
  }

  // GNU grep in the C locale with `args`, run in the test's directory.
  CliResult gnu_grep(const std::vector<std::string>& args) {
    std::string line = "LC_ALL=C /usr/bin/grep";
    for (const auto& a : args) line += " " + quote(a);
    return shell(line);
  }

  std::filesystem::path dir_;

 private:
  std::string dir_prefix_;
};

}  // namespace warpmatch_test
