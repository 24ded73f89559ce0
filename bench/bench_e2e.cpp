// `warpmatch bench e2e` — the command line timed as a user runs it (issue 12).
//
// Every measurement is one process (or a `/bin/sh -c` pipeline) started with posix_spawn and
// reaped with wait4: wall clock from spawn to reap, peak resident memory from the rusage
// (for a shell, the largest of the shell and its children). The data is generated into a
// temporary directory first — English-like text with a planted rare word, a random-ACGT
// FASTA and its gzip / BGZF / zstd copies (written here with zlib, libdeflate and libzstd),
// a 100-byte file, a TSV of sequence pairs — so it sits in the page cache; each command then
// runs once as a warm-up and --repeats times timed (median). The generator counts what each
// job must find, so every row's count is checked against an exact oracle (or, where there is
// none, warpmatch's backends against each other). The warpmatch timed is this binary
// (/proc/self/exe); its GPU is probed with `warpmatch info --json` in a child process, so the
// benchmark itself never holds a CUDA context.
#include "bench/bench_e2e.hpp"

#include <fcntl.h>
#include <libdeflate.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <random>
#include <array>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <optional>
#include <regex>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench/bench_support.hpp"
#include "core/parallel.hpp"
#include "warpmatch/common.hpp"

extern char** environ;

namespace warpmatch::bench {
namespace {

using support::lower_ascii;
using support::trim;
using support::SplitMix64;

namespace fs = std::filesystem;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// ---- fixed parameters ------------------------------------------------------------------------
constexpr std::uint64_t kSeed = 0x6532652d'77617270ull;  // "e2e-warp"
constexpr std::string_view kWord = "Sherlock";           // jobs 1, 2, 6: planted, else absent
constexpr std::uint64_t kPlants = 50;                     // at most one per line
constexpr std::string_view kKmer = "ACGTTGCA";            // jobs 4, 5
constexpr std::size_t kListWords = 1000;                  // job 3
constexpr std::size_t kMinListWordLength = 4;
constexpr std::size_t kLineWidth = 80;
constexpr std::uint64_t kTextChunk = 16ull << 20;  // text written in independent chunks
constexpr std::uint64_t kMinTextBytes = 64 << 10;
constexpr std::uint64_t kMinFastaBytes = 64 << 10;
constexpr int kFastaColumns = 60;
constexpr int kMaxRecords = 16;
constexpr std::uint64_t kTinyBytes = 100;
constexpr int kGzipLevel = 6;  // what `gzip` writes by default
constexpr int kBgzfLevel = 6;  // bgzip's default (zlib's)
constexpr int kZstdLevel = 3;  // zstd's default
constexpr std::size_t kBgzfBlockInput = 0xff00;  // as bgzip: the block always fits in 64 KiB
constexpr std::uint64_t kGzipChunk = 4ull << 20;  // independently deflated parts of the member
constexpr int kPairMinLength = 100, kPairMaxLength = 300;
constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kRssLimitMiB = 1.2 * 1024.0;  // PERF.md: peak memory <= 1.2 GiB

// The most frequent English words, most frequent first: the first ranks of the Zipf law.
constexpr std::string_view kCommonEnglish[] = {
    "the",  "of",   "and",   "to",    "a",     "in",    "is",    "you",   "that",  "it",
    "he",   "was",  "for",   "on",    "are",   "as",    "with",  "his",   "they",  "I",
    "at",   "be",   "this",  "have",  "from",  "or",    "one",   "had",   "by",    "word",
    "but",  "not",  "what",  "all",   "were",  "we",    "when",  "your",  "can",   "said",
    "there", "use", "an",    "each",  "which", "she",   "do",    "how",   "their", "if",
    "will", "up",   "other", "about", "out",   "many",  "then",  "them",  "these", "so",
    "some", "her",  "would", "make",  "like",  "him",   "into",  "time",  "has",   "look"};

// ---- small utilities -------------------------------------------------------------------------

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789_-./=:,+@") == std::string::npos)
    return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string shell_join(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + shell_quote(a);
  return s;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string first_field(const char* path, std::string_view key) {  // "key : value" files
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key, 0) == 0 && line.find(':') != std::string::npos)
      return trim(line.substr(line.find(':') + 1));
  return {};
}

std::string utc_timestamp() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::vector<std::string> own_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> args;
  for (std::string a; std::getline(in, a, '\0');) args.push_back(a);
  return args;
}

std::string fmt_size(std::uint64_t b) {
  if (b >= (1ull << 30)) return b % (1ull << 30) ? fmt::format("{:.2f} GiB", b / kMiB / 1024) : fmt::format("{} GiB", b >> 30);
  if (b >= (1ull << 20)) return b % (1ull << 20) ? fmt::format("{:.1f} MiB", b / kMiB) : fmt::format("{} MiB", b >> 20);
  if (b >= (1ull << 10)) return fmt::format("{:.1f} KiB", b / 1024.0);
  return fmt::format("{} B", b);
}

std::string fmt_seconds(double s) {
  if (s <= 0) return "-";
  return s < 1 ? fmt::format("{:.1f} ms", s * 1e3) : fmt::format("{:.3f} s", s);
}

std::string fmt_num(double v, int decimals) {
  return v > 0 && std::isfinite(v) ? fmt::format("{:.{}f}", v, decimals) : "-";
}

/// Throws with the path and errno's message.
[[noreturn]] void fail_io(const std::string& what, const fs::path& p) {
  throw std::runtime_error(fmt::format("{} {}: {}", what, p.string(), std::strerror(errno)));
}

/// A file open for writing (created, truncated); pwrite from any thread, or appended in order.
class OutFile {
 public:
  explicit OutFile(const fs::path& p) : path_(p) {
    fd_ = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) fail_io("cannot create", p);
  }
  OutFile(const OutFile&) = delete;
  OutFile& operator=(const OutFile&) = delete;
  ~OutFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  void pwrite_all(const void* data, std::size_t n, std::uint64_t offset) {
    const auto* p = static_cast<const std::uint8_t*>(data);
    while (n > 0) {
      const ssize_t w = ::pwrite(fd_, p, std::min<std::size_t>(n, 1 << 30), static_cast<off_t>(offset));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) fail_io("cannot write", path_);
      p += w, n -= static_cast<std::size_t>(w), offset += static_cast<std::uint64_t>(w);
    }
  }
  void append(const void* data, std::size_t n) {
    pwrite_all(data, n, end_);
    end_ += n;
  }
  void append(std::string_view s) { append(s.data(), s.size()); }
  std::uint64_t size() const { return end_; }

 private:
  fs::path path_;
  int fd_ = -1;
  std::uint64_t end_ = 0;
};

/// A whole file mapped read-only.
class Mapped {
 public:
  explicit Mapped(const fs::path& p) {
    const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail_io("cannot open", p);
    struct stat st {};
    ::fstat(fd, &st);
    size_ = static_cast<std::size_t>(st.st_size);
    if (size_ > 0) {
      void* m = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (m == MAP_FAILED) {
        ::close(fd);
        fail_io("cannot map", p);
      }
      data_ = static_cast<const std::uint8_t*>(m);
    }
    ::close(fd);
  }
  Mapped(const Mapped&) = delete;
  Mapped& operator=(const Mapped&) = delete;
  ~Mapped() {
    if (data_) ::munmap(const_cast<std::uint8_t*>(data_), size_);
  }
  const std::uint8_t* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  const std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
};

// ---- running a command -----------------------------------------------------------------------
struct RunResult {
  bool ok = false;      // started, not killed, exit status 0 or 1 (grep's "no match")
  std::string error;    // why not ok
  int exit_code = -1;
  double wall_s = 0;    // posix_spawn to wait4
  double max_rss_mib = 0;
  std::string out, err;
};

/// Kills the process group of the child when the run outlives the timeout.
class Watchdog {
 public:
  explicit Watchdog(double timeout_s)
      : thread_([this, timeout_s] {
          std::unique_lock lock(mutex_);
          if (!cv_.wait_for(lock, std::chrono::duration<double>(timeout_s), [this] { return done_; }) &&
              pgid_ > 0) {
            ::kill(-pgid_, SIGKILL);
            fired_ = true;
          }
        }) {}
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  void arm(pid_t pgid) {
    std::lock_guard lock(mutex_);
    pgid_ = pgid;
  }
  bool disarm() {  // returns whether it fired
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
    return fired_;
  }
  ~Watchdog() { disarm(); }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false, fired_ = false;
  pid_t pgid_ = 0;
  std::thread thread_;
};

struct Reply {  // what the helper reports of one run
  double wall_s = 0;
  int status = 0;       // wait4's
  int spawn_errno = 0;  // posix_spawnp's error, 0 = started
  int timed_out = 0;
  long max_rss_kib = 0;
};

/// In the helper: runs argv (argv[0] searched in PATH) with stdin from /dev/null, stdout and
/// stderr to the given files, in its own process group (so the watchdog can kill a pipeline).
Reply spawn_and_wait(const std::vector<std::string>& argv, const std::string& out_path,
                     const std::string& err_path, double timeout_s) {
  Reply reply;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, pipe_only;
  sigemptyset(&none);
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &pipe_only);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);

  Watchdog watchdog(timeout_s);
  const auto t0 = Clock::now();
  pid_t pid = -1;
  reply.spawn_errno = posix_spawnp(&pid, cargv[0], &fa, &attr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (reply.spawn_errno != 0) return reply;
  watchdog.arm(pid);
  rusage ru{};
  while (::wait4(pid, &reply.status, 0, &ru) < 0 && errno == EINTR) {
  }
  reply.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  reply.timed_out = watchdog.disarm();
  reply.max_rss_kib = ru.ru_maxrss;
  return reply;
}

bool read_all(int fd, void* data, std::size_t n) {
  auto* p = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t r = ::read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r, n -= static_cast<std::size_t>(r);
  }
  return true;
}

bool write_all(int fd, const void* data, std::size_t n) {
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w, n -= static_cast<std::size_t>(w);
  }
  return true;
}

/// Starts the timed commands from a helper process forked before the benchmark allocates
/// anything. Why: exec records the high-water RSS of the address space it replaces into the
/// new program's ru_maxrss, and posix_spawn's child shares the caller's (vfork), so a command
/// spawned from the benchmark itself would report at least the benchmark's own peak (the
/// generated data). The helper's is a few MiB; `baseline` measures it with /bin/true.
class Spawner {
 public:
  Spawner() {
    int down[2], up[2];
    if (::pipe2(down, O_CLOEXEC) != 0 || ::pipe2(up, O_CLOEXEC) != 0)
      throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    std::fflush(stdout);
    std::fflush(stderr);
    helper_ = ::fork();
    if (helper_ < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (helper_ == 0) {
      ::close(down[1]);
      ::close(up[0]);
      serve(down[0], up[1]);
      ::_exit(0);
    }
    ::close(down[0]);
    ::close(up[1]);
    to_ = down[1];
    from_ = up[0];
  }
  Spawner(const Spawner&) = delete;
  Spawner& operator=(const Spawner&) = delete;
  ~Spawner() {
    ::close(to_);  // the helper sees end of file and exits
    ::close(from_);
    int status = 0;
    while (::waitpid(helper_, &status, 0) < 0 && errno == EINTR) {
    }
  }

  /// Runs argv; stdout and stderr go to files in `scratch`, read back after the clock stopped.
  RunResult run(const std::vector<std::string>& argv, const fs::path& scratch, double timeout_s) {
    RunResult r;
    const std::string out_path = (scratch / "stdout").string(), err_path = (scratch / "stderr").string();
    std::vector<std::string> msg{out_path, err_path};
    msg.insert(msg.end(), argv.begin(), argv.end());
    std::string req;
    auto put = [&](const void* p, std::size_t n) { req.append(static_cast<const char*>(p), n); };
    const auto count = static_cast<std::uint32_t>(msg.size());
    put(&count, sizeof count);
    for (const auto& m : msg) {
      const auto len = static_cast<std::uint32_t>(m.size());
      put(&len, sizeof len);
      put(m.data(), m.size());
    }
    put(&timeout_s, sizeof timeout_s);
    Reply reply;
    if (!write_all(to_, req.data(), req.size()) || !read_all(from_, &reply, sizeof reply))
      throw std::runtime_error("the benchmark's process-starting helper died");
    if (reply.spawn_errno != 0) {
      r.error = fmt::format("cannot run {}: {}", argv[0], std::strerror(reply.spawn_errno));
      return r;
    }
    r.wall_s = reply.wall_s;
    r.max_rss_mib = static_cast<double>(reply.max_rss_kib) / 1024.0;  // ru_maxrss is in KiB
    r.out = read_text(out_path);
    r.err = read_text(err_path);
    if (reply.timed_out) {
      r.error = fmt::format("killed after {:.0f} s (the run timeout)", timeout_s);
    } else if (WIFSIGNALED(reply.status)) {
      r.error = fmt::format("killed by signal {}", WTERMSIG(reply.status));
    } else {
      r.exit_code = WEXITSTATUS(reply.status);
      if (r.exit_code > 1) {
        std::string text = trim(r.err.empty() ? r.out : r.err);
        if (text.size() > 300) text = text.substr(0, 300) + "...";
        r.error = fmt::format("exit status {}: {}", r.exit_code, text);
      }
    }
    r.ok = r.error.empty();
    return r;
  }

 private:
  static void serve(int in, int out) {
    for (;;) {
      std::uint32_t count = 0;
      if (!read_all(in, &count, sizeof count)) return;
      std::vector<std::string> msg(count);
      for (auto& m : msg) {
        std::uint32_t len = 0;
        if (!read_all(in, &len, sizeof len)) return;
        m.resize(len);
        if (len && !read_all(in, m.data(), len)) return;
      }
      double timeout_s = 0;
      if (!read_all(in, &timeout_s, sizeof timeout_s) || msg.size() < 3) return;
      const Reply reply = spawn_and_wait({msg.begin() + 2, msg.end()}, msg[0], msg[1], timeout_s);
      if (!write_all(out, &reply, sizeof reply)) return;
    }
  }

  pid_t helper_ = -1;
  int to_ = -1, from_ = -1;
};

// ---- the generated data ----------------------------------------------------------------------
/// Pseudo-words of 1-4 syllables (when no word list is readable); none contains the rare word.
std::vector<std::string> pseudo_words(std::size_t n) {
  static constexpr std::string_view onsets[] = {"b", "c", "d", "f", "g", "h", "l", "m", "n", "p", "r",
                                                "s", "t", "v", "w", "br", "ch", "cl", "dr", "gr", "sh",
                                                "st", "th", "tr"};
  static constexpr std::string_view vowels[] = {"a", "e", "i", "o", "u", "ea", "ou", "ai", "ee", "y"};
  static constexpr std::string_view codas[] = {"", "", "", "", "", "n", "r", "s", "t", "l", "nd", "st",
                                               "ng", "ck"};
  SplitMix64 rng{kSeed ^ 0x1234};
  std::unordered_set<std::string> seen;
  std::vector<std::string> out;
  while (out.size() < n) {
    const std::uint64_t r = rng.below(100);
    const int syllables = r < 30 ? 1 : r < 75 ? 2 : r < 95 ? 3 : 4;
    std::string w;
    for (int s = 0; s < syllables; ++s) {
      w += onsets[rng.below(std::size(onsets))];
      w += vowels[rng.below(std::size(vowels))];
      w += codas[rng.below(std::size(codas))];
    }
    if (lower_ascii(w).find(lower_ascii(kWord)) == std::string::npos && seen.insert(w).second)
      out.push_back(std::move(w));
  }
  return out;
}

struct Vocabulary {
  std::vector<std::string> words;  // by Zipf rank: common English, then the list (shuffled)
  std::size_t common = 0;
  std::string source;
  std::vector<std::string> list_words;  // job 3: kListWords of length >= 4, spread over the ranks
};

/// The word list's plain ASCII words (no possessives, no accents, none containing the rare
/// word in any case), shuffled by a fixed seed; built-in pseudo-words when unreadable.
Vocabulary load_vocabulary(const std::string& path) {
  Vocabulary v;
  std::unordered_set<std::string> seen;
  for (auto w : kCommonEnglish)
    if (seen.insert(std::string(w)).second) v.words.emplace_back(w);
  v.common = v.words.size();
  const std::string rare = lower_ascii(kWord);
  std::vector<std::string> rest;
  if (!path.empty()) {
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
      line = trim(line);
      const bool letters = !line.empty() && line.size() <= 32 &&
                           std::all_of(line.begin(), line.end(), [](char c) {
                             return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
                           });
      if (letters && lower_ascii(line).find(rare) == std::string::npos && seen.insert(line).second)
        rest.push_back(line);
    }
  }
  v.source = path;
  if (rest.size() < 10 * kListWords) {
    if (!path.empty())
      fmt::print("  note: word list '{}' unreadable or small ({} words): built-in pseudo-words\n", path,
                 rest.size());
    rest = pseudo_words(60000);
    v.source = "built-in pseudo-words";
  }
  SplitMix64 rng{kSeed ^ 0x5151};
  for (std::size_t i = rest.size(); i > 1; --i) std::swap(rest[i - 1], rest[rng.below(i)]);
  std::vector<std::string> longer;
  for (const auto& w : rest)
    if (w.size() >= kMinListWordLength) longer.push_back(w);
  for (std::size_t i = 0; i < kListWords && !longer.empty(); ++i)
    v.list_words.push_back(longer[i * longer.size() / kListWords]);
  for (auto& w : rest) v.words.push_back(std::move(w));
  return v;
}

struct TextInfo {
  fs::path path;
  std::uint64_t bytes = 0, lines = 0, planted = 0;  // planted = occurrences = lines holding it
  double seconds = 0;
};

/// Fills out[0, len) with sentences of Zipf-drawn words (exponent 1, inverse-CDF of the
/// continuous law), lines of at most kLineWidth bytes, the last byte '\n'. The rare word
/// replaces the next word once the write position passes each of `plants` (chunk offsets),
/// never twice on one line. Returns {lines, planted}.
std::pair<std::uint64_t, std::uint64_t> fill_text(char* out, std::size_t len, std::uint64_t chunk,
                                                  const Vocabulary& v,
                                                  std::span<const std::uint64_t> plants) {
  SplitMix64 rng{kSeed + 0x632be59bd9b4e019ull * (chunk + 1)};
  const double log_n = std::log(static_cast<double>(v.words.size()) + 1.0);
  char* p = out;
  char* const end = out + len;
  std::uint64_t lines = 0, planted = 0;
  std::size_t line_len = 0, next_plant = 0;
  bool line_has_plant = false, sentence_start = true;
  std::uint64_t words_left = 4 + rng.below(21);
  for (;;) {
    const bool plant = next_plant < plants.size() && static_cast<std::uint64_t>(p - out) >= plants[next_plant] &&
                       !line_has_plant;
    std::string_view w = kWord;
    if (!plant) {
      const auto rank = static_cast<std::size_t>(std::exp(rng.unit() * log_n)) - 1;
      w = v.words[std::min(rank, v.words.size() - 1)];
    }
    if (static_cast<std::size_t>(end - p) < w.size() + 4) break;  // ' ', word, '.', '\n'
    if (line_len > 0) {
      if (line_len + 1 + w.size() + 1 > kLineWidth) {
        *p++ = '\n';
        ++lines;
        line_len = 0;
        line_has_plant = false;
      } else {
        *p++ = ' ';
        ++line_len;
      }
    }
    std::memcpy(p, w.data(), w.size());
    if (sentence_start && *p >= 'a' && *p <= 'z') *p = static_cast<char>(*p - 32);
    if (plant) ++next_plant, ++planted, line_has_plant = true;
    p += w.size();
    line_len += w.size();
    sentence_start = false;
    if (--words_left == 0) {
      *p++ = '.';
      ++line_len;
      sentence_start = true;
      words_left = 4 + rng.below(21);
    } else if (rng.below(100) < 7) {
      *p++ = ',';
      ++line_len;
    }
  }
  while (p < end - 1) *p++ = ' ';
  *p = '\n';
  return {lines + 1, planted};
}

TextInfo write_text(const fs::path& path, std::uint64_t bytes, const Vocabulary& v, int threads) {
  const auto t0 = Clock::now();
  TextInfo t;
  t.path = path;
  t.bytes = bytes;
  const std::uint64_t chunks = std::max<std::uint64_t>(1, bytes / kTextChunk);  // last one: < 2x
  auto begin = [&](std::uint64_t c) { return c * kTextChunk; };
  auto length = [&](std::uint64_t c) { return c + 1 == chunks ? bytes - begin(c) : kTextChunk; };
  std::vector<std::vector<std::uint64_t>> plants(chunks);
  const std::uint64_t n_plants = std::min<std::uint64_t>(kPlants, bytes / 1024);
  for (std::uint64_t i = 0; i < n_plants; ++i) {  // evenly spaced, far apart
    const std::uint64_t pos = (2 * i + 1) * bytes / (2 * n_plants);
    const std::uint64_t c = std::min(pos / kTextChunk, chunks - 1);
    plants[c].push_back(std::min(pos - begin(c), length(c) - 256));
  }
  OutFile out(path);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> tally(chunks);
  core::parallel_for(chunks, threads, [&](std::size_t c) {
    std::vector<char> buf(length(c));
    tally[c] = fill_text(buf.data(), buf.size(), c, v, plants[c]);
    out.pwrite_all(buf.data(), buf.size(), begin(c));
  });
  for (auto [lines, planted] : tally) t.lines += lines, t.planted += planted;
  t.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return t;
}

struct FastaInfo {
  fs::path path;
  std::uint64_t bytes = 0, bases = 0, records = 0;
  std::uint64_t occurrences = 0;  // of kKmer in the records' sequences (overlaps counted)
  std::uint64_t lines_with = 0;   // lines holding a whole occurrence (what `rg -c` counts)
  double seconds = 0;
};

/// Random ACGT records of equal length, kFastaColumns bases per line, ~`bytes` in all; one
/// record per task. The k-mer is counted as the bases are drawn.
FastaInfo write_fasta(const fs::path& path, std::uint64_t bytes, int threads) {
  const auto t0 = Clock::now();
  FastaInfo f;
  f.path = path;
  f.records = static_cast<std::uint64_t>(std::clamp<std::uint64_t>(bytes >> 20, 1, kMaxRecords));
  const std::uint64_t per_record = bytes / f.records;
  const std::uint64_t bases_per_record = (per_record - 32) * kFastaColumns / (kFastaColumns + 1);
  std::vector<std::string> headers;
  std::vector<std::uint64_t> offsets;
  std::uint64_t offset = 0;
  for (std::uint64_t r = 0; r < f.records; ++r) {
    headers.push_back(fmt::format(">seq{:02d} random ACGT, {} bp\n", r + 1, bases_per_record));
    offsets.push_back(offset);
    offset += headers.back().size() + bases_per_record + (bases_per_record + kFastaColumns - 1) / kFastaColumns;
  }
  f.bytes = offset;
  f.bases = bases_per_record * f.records;
  std::uint32_t target = 0;  // 2 bits per base: A 0, C 1, G 2, T 3
  for (char c : kKmer) target = (target << 2) | static_cast<std::uint32_t>(std::string_view("ACGT").find(c));
  const std::uint32_t mask = (1u << (2 * kKmer.size())) - 1;

  OutFile out(path);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> tally(f.records);
  core::parallel_for(f.records, threads, [&](std::size_t r) {
    SplitMix64 rng{kSeed ^ (0xfa57aull + r * 0x9e3779b97f4a7c15ull)};
    constexpr std::size_t kLinesPerWrite = 65536;
    std::string buf;
    buf.reserve(kLinesPerWrite * (kFastaColumns + 1));
    std::uint64_t pos = offsets[r];
    out.pwrite_all(headers[r].data(), headers[r].size(), pos);
    pos += headers[r].size();
    std::uint32_t code = 0;
    std::uint64_t seen = 0, occ = 0, lines_with = 0, random = 0;
    int random_left = 0;
    for (std::uint64_t done = 0; done < bases_per_record;) {
      buf.clear();
      for (std::size_t l = 0; l < kLinesPerWrite && done < bases_per_record; ++l) {
        const int n = static_cast<int>(std::min<std::uint64_t>(kFastaColumns, bases_per_record - done));
        bool line_has = false;
        for (int col = 0; col < n; ++col) {
          if (random_left == 0) random = rng.next(), random_left = 32;
          const auto b = static_cast<std::uint32_t>(random & 3);
          random >>= 2, --random_left;
          buf += "ACGT"[b];
          code = ((code << 2) | b) & mask;
          if (++seen >= kKmer.size() && code == target) {
            ++occ;
            line_has |= col + 1 >= static_cast<int>(kKmer.size());
          }
        }
        buf += '\n';
        lines_with += line_has;
        done += static_cast<std::uint64_t>(n);
      }
      out.pwrite_all(buf.data(), buf.size(), pos);
      pos += buf.size();
    }
    tally[r] = {occ, lines_with};
  });
  for (auto [occ, lines] : tally) f.occurrences += occ, f.lines_with += lines;
  f.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return f;
}

struct Compressed {
  std::string kind;  // gzip, bgzf, zstd
  fs::path path;
  std::uint64_t bytes = 0;
  std::string how;
  double seconds = 0;
};

void put_le32(std::uint8_t* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

/// One gzip member, like `gzip -6` writes but in parallel (as pigz): the input in kGzipChunk
/// parts, each deflated by zlib on its own and ended with a sync flush (the last one with the
/// final block), the CRC-32s combined.
Compressed write_gzip(const Mapped& in, const fs::path& path, int threads) {
  const auto t0 = Clock::now();
  OutFile out(path);
  const std::uint8_t header[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
  out.append(header, sizeof header);
  const std::uint64_t parts = std::max<std::uint64_t>(1, (in.size() + kGzipChunk - 1) / kGzipChunk);
  const std::uint64_t window = static_cast<std::uint64_t>(std::max(1, threads)) * 4;
  uLong crc = ::crc32(0, nullptr, 0);
  for (std::uint64_t first = 0; first < parts; first += window) {
    const std::uint64_t n = std::min(window, parts - first);
    std::vector<std::vector<std::uint8_t>> deflated(n);
    std::vector<uLong> crcs(n);
    core::parallel_for(n, threads, [&](std::size_t i) {
      const std::uint64_t part = first + i, begin = part * kGzipChunk;
      const std::size_t len = static_cast<std::size_t>(std::min<std::uint64_t>(kGzipChunk, in.size() - begin));
      const bool last = part + 1 == parts;
      z_stream z{};
      if (deflateInit2(&z, kGzipLevel, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw std::runtime_error("zlib deflateInit2 failed");
      auto& buf = deflated[i];
      buf.resize(deflateBound(&z, len) + 64);
      z.next_in = const_cast<Bytef*>(in.data() + begin);
      z.avail_in = static_cast<uInt>(len);
      z.next_out = buf.data();
      z.avail_out = static_cast<uInt>(buf.size());
      const int rc = deflate(&z, last ? Z_FINISH : Z_SYNC_FLUSH);
      const bool done = last ? rc == Z_STREAM_END : (rc == Z_OK && z.avail_in == 0 && z.avail_out > 0);
      buf.resize(z.total_out);
      deflateEnd(&z);
      if (!done) throw std::runtime_error("zlib deflate did not finish a part in one call");
      crcs[i] = ::crc32(0, in.data() + begin, static_cast<uInt>(len));
    });
    for (std::uint64_t i = 0; i < n; ++i) {
      out.append(deflated[i].data(), deflated[i].size());
      const std::uint64_t begin = (first + i) * kGzipChunk;
      crc = ::crc32_combine(crc, crcs[i], static_cast<z_off_t>(std::min<std::uint64_t>(kGzipChunk, in.size() - begin)));
    }
  }
  std::uint8_t trailer[8];
  put_le32(trailer, static_cast<std::uint32_t>(crc));
  put_le32(trailer + 4, static_cast<std::uint32_t>(in.size()));
  out.append(trailer, sizeof trailer);
  return {"gzip", path, out.size(),
          fmt::format("one gzip member, zlib level {}, deflated in {} parallel parts (as pigz)", kGzipLevel, parts),
          std::chrono::duration<double>(Clock::now() - t0).count()};
}

/// BGZF (SAM specification 4.1): independent gzip members of at most 64 KiB with the 'BC'
/// extra field giving the block size, libdeflate level 6, blocks compressed in parallel, then
/// the 28-byte end-of-file block.
Compressed write_bgzf(const Mapped& in, const fs::path& path, int threads) {
  const auto t0 = Clock::now();
  OutFile out(path);
  const std::uint64_t blocks = (in.size() + kBgzfBlockInput - 1) / kBgzfBlockInput;
  constexpr std::uint64_t kBlocksPerTask = 256;
  const std::uint64_t tasks = (blocks + kBlocksPerTask - 1) / kBlocksPerTask;
  const std::uint64_t window = static_cast<std::uint64_t>(std::max(1, threads)) * 2;
  for (std::uint64_t first = 0; first < tasks; first += window) {
    const std::uint64_t n = std::min(window, tasks - first);
    std::vector<std::vector<std::uint8_t>> packed(n);
    core::parallel_for(n, threads, [&](std::size_t i) {
      libdeflate_compressor* c = libdeflate_alloc_compressor(kBgzfLevel);
      libdeflate_compressor* stored = libdeflate_alloc_compressor(0);
      if (!c || !stored) throw std::runtime_error("libdeflate_alloc_compressor failed");
      auto& buf = packed[i];
      const std::uint64_t b0 = (first + i) * kBlocksPerTask, b1 = std::min(blocks, b0 + kBlocksPerTask);
      for (std::uint64_t b = b0; b < b1; ++b) {
        const std::uint8_t* src = in.data() + b * kBgzfBlockInput;
        const std::size_t len = static_cast<std::size_t>(std::min<std::uint64_t>(kBgzfBlockInput, in.size() - b * kBgzfBlockInput));
        const std::size_t at = buf.size();
        buf.resize(at + 65536);
        std::uint8_t* blk = buf.data() + at;
        const std::uint8_t head[18] = {0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, 'B', 'C', 2, 0, 0, 0};
        std::memcpy(blk, head, sizeof head);
        std::size_t clen = libdeflate_deflate_compress(c, src, len, blk + 18, 65536 - 26);
        if (clen == 0) clen = libdeflate_deflate_compress(stored, src, len, blk + 18, 65536 - 26);
        if (clen == 0) throw std::runtime_error("BGZF block does not fit in 64 KiB");
        const std::size_t total = 18 + clen + 8;
        blk[16] = static_cast<std::uint8_t>((total - 1) & 0xff);
        blk[17] = static_cast<std::uint8_t>((total - 1) >> 8);
        put_le32(blk + 18 + clen, libdeflate_crc32(0, src, len));
        put_le32(blk + 22 + clen, static_cast<std::uint32_t>(len));
        buf.resize(at + total);
      }
      libdeflate_free_compressor(c);
      libdeflate_free_compressor(stored);
    });
    for (const auto& p : packed) out.append(p.data(), p.size());
  }
  const std::uint8_t eof[28] = {0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, 0x42, 0x43,
                                2,    0,    0x1b, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  out.append(eof, sizeof eof);
  return {"bgzf", path, out.size(),
          fmt::format("BGZF, {} blocks of <= {} bytes, libdeflate level {}, EOF block", blocks,
                      kBgzfBlockInput, kBgzfLevel),
          std::chrono::duration<double>(Clock::now() - t0).count()};
}

/// One zstd frame, level 3, libzstd's own worker threads.
Compressed write_zstd(const Mapped& in, const fs::path& path, int threads) {
  const auto t0 = Clock::now();
  OutFile out(path);
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  if (!cctx) throw std::runtime_error("ZSTD_createCCtx failed");
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, kZstdLevel);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  const bool mt = !ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_nbWorkers, std::max(1, threads)));
  std::vector<std::uint8_t> buf(ZSTD_CStreamOutSize() * 16);
  ZSTD_inBuffer src{in.data(), in.size(), 0};
  for (;;) {
    ZSTD_outBuffer dst{buf.data(), buf.size(), 0};
    const std::size_t left = ZSTD_compressStream2(cctx, &dst, &src, ZSTD_e_end);
    if (ZSTD_isError(left)) {
      ZSTD_freeCCtx(cctx);
      throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(left));
    }
    out.append(buf.data(), dst.pos);
    if (left == 0) break;
  }
  ZSTD_freeCCtx(cctx);
  return {"zstd", path, out.size(),
          fmt::format("one zstd frame, level {}, {}", kZstdLevel,
                      mt ? fmt::format("{} worker threads", std::max(1, threads)) : std::string("single-threaded libzstd")),
          std::chrono::duration<double>(Clock::now() - t0).count()};
}

struct PairsInfo {
  fs::path path;
  std::uint64_t pairs = 0, bytes = 0, a_strings = 0, b_strings = 0;
};

/// The first `n` pairs of the cross product A x B of random ACGT strings of 100-300 bytes,
/// |A| = ceil(sqrt(n)), |B| = ceil(n / |A|) (n = 100,172: 317 x 316, StringZilla's workload);
/// one `A TAB B` line per pair.
PairsInfo write_pairs(const fs::path& path, std::uint64_t n) {
  PairsInfo p;
  p.path = path;
  p.pairs = n;
  p.a_strings = static_cast<std::uint64_t>(std::ceil(std::sqrt(static_cast<double>(n))));
  p.b_strings = (n + p.a_strings - 1) / p.a_strings;
  SplitMix64 rng{kSeed ^ 0xd157};
  auto random_string = [&] {
    std::string s(kPairMinLength + rng.below(kPairMaxLength - kPairMinLength + 1), 'A');
    for (char& c : s) c = "ACGT"[rng.below(4)];
    return s;
  };
  std::vector<std::string> a(p.a_strings), b(p.b_strings);
  for (auto& s : a) s = random_string();
  for (auto& s : b) s = random_string();
  OutFile out(path);
  std::string buf;
  for (std::uint64_t k = 0; k < n; ++k) {
    buf += a[k / p.b_strings];
    buf += '\t';
    buf += b[k % p.b_strings];
    buf += '\n';
    if (buf.size() > (8u << 20)) out.append(buf), buf.clear();
  }
  out.append(buf);
  p.bytes = out.size();
  return p;
}

// ---- jobs and rows ---------------------------------------------------------------------------
enum class Status { ok, skipped, failed };
std::string_view status_name(Status s) {
  return s == Status::ok ? "ok" : (s == Status::skipped ? "skipped" : "failed");
}

/// How a row's stdout becomes a number.
enum class Parse {
  count,           // one count, maybe after "NAME:" (warpmatch -c, rg -c; empty = 0)
  pattern_counts,  // warpmatch -c with -f: "INDEX:COUNT" per pattern, summed
  seqkit_lines,    // seqkit locate: a header line, then one line per match
  distance_sum,    // warpmatch distance --pairs: "A TAB B TAB D" per pair, D summed
  line_count,      // one line per result (offtarget --bed)
};

struct Row {
  // what runs
  std::string method;   // e.g. "warpmatch auto", "ripgrep -F -c"
  std::string backend;  // auto / cpu / cuda for warpmatch rows, "" for a peer
  bool peer = false;
  bool optional = false;  // a failure does not change the exit status (StringZilla)
  std::vector<std::string> argv, warmup_argv;  // warm-up: with --stats (backend, scan speed)
  Parse parse = Parse::count;
  std::string unit;  // occurrences, lines, sum over patterns, sum of distances
  // what came out
  Status status = Status::ok;
  std::string note;
  std::vector<double> samples_s;
  double wall_s = 0, rss_mib = 0;
  std::string output;
  std::optional<std::uint64_t> count;
  std::string backend_used;           // from the warm-up's --stats
  std::optional<double> scan_gbps;    // from the warm-up's --stats (find)
  std::optional<double> inprocess_s;  // median of --stats seconds (distance)
  std::optional<std::uint64_t> expected;
  std::optional<bool> agrees;  // null: nothing to compare with
  double vs_peer = 0;          // the peer's wall / this wall (> 1: faster than the peer)
  std::optional<bool> met;     // null: no target for this row, or not measurable
  std::vector<std::string> target_notes;

  bool ok() const { return status == Status::ok; }
  std::string label() const {
    return backend == "auto" && !backend_used.empty() ? fmt::format("{} ({})", method, backend_used) : method;
  }
};

enum class Metric { gbps, vs_peer, rss_mib, wall_ms, inprocess_ms, scan_gbps };

struct Target {
  std::string backend;  // the row it applies to
  Metric metric;
  double goal;
  bool at_least;  // value >= goal, else value <= goal
  std::string text;
};

struct Job {
  int number = 0;
  std::string id, title;
  std::uint64_t bytes = 0;  // what GB/s divides (decompressed bytes for job 5)
  std::string bytes_note;
  std::optional<std::uint64_t> expected_occurrences, expected_lines;  // the oracle
  std::vector<Target> targets;
  std::vector<Row> rows;
  std::optional<double> auto_vs_best;  // min(cpu, cuda) / auto, where both ran
  std::string auto_vs_best_note;

  const Row* peer() const {
    for (const auto& r : rows)
      if (r.peer) return &r;
    return nullptr;
  }
  const Row* backend_row(std::string_view b) const {
    for (const auto& r : rows)
      if (!r.peer && r.backend == b) return &r;
    return nullptr;
  }
};

/// "7", "5" or a job id; the job groups of issue 12's table.
/// `count` random 20-nt guides as FASTA (>g0, >g1, ...).
void write_guides(const fs::path& path, std::uint64_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string guides;
  for (std::uint64_t g = 0; g < count; ++g) {
    guides += ">g" + std::to_string(g) + "\n";
    for (int i = 0; i < 20; ++i) guides.push_back("ACGT"[rng() % 4]);
    guides.push_back('\n');
  }
  OutFile(path).append(guides);
}

struct JobSpec {
  int number;
  std::string id;
};
/// The backends of warpmatch's rows (cuda rows are skipped, with the reason, without a GPU).
const std::vector<std::string> kBackends = {"auto", "cpu", "cuda"};

const JobSpec kJobs[] = {{1, "word"}, {2, "stdin"}, {3, "words"}, {4, "fasta"}, {5, "gz"},
                             {5, "bgzf"}, {5, "zst"},   {6, "tiny"},  {7, "pairs"},
                             {8, "primers"}, {9, "offtarget"}, {10, "guides"}};

std::vector<std::string> parse_rows(const std::string& list) {
  std::vector<std::string> ids;
  if (list.empty() || list == "all") {
    for (const auto& j : kJobs) ids.push_back(j.id);
    return ids;
  }
  std::stringstream ss(list);
  for (std::string tok; std::getline(ss, tok, ',');) {
    tok = trim(tok);
    if (tok.empty()) continue;
    bool found = false;
    for (const auto& j : kJobs)
      if (tok == j.id || tok == std::to_string(j.number)) {
        if (std::find(ids.begin(), ids.end(), j.id) == ids.end()) ids.push_back(j.id);
        found = true;
      }
    if (!found)
      throw InvalidArgument("--rows: unknown job '" + tok +
                            "' (numbers 1-7 or word, stdin, words, fasta, gz, bgzf, zst, tiny, pairs)");
  }
  // keep the table's order
  std::vector<std::string> ordered;
  for (const auto& j : kJobs)
    if (std::find(ids.begin(), ids.end(), j.id) != ids.end()) ordered.push_back(j.id);
  return ordered;
}

std::optional<std::uint64_t> to_u64(std::string_view s) {
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

/// The row's number from its stdout, or nullopt when the output has another shape.
std::optional<std::uint64_t> parse_output(Parse how, const std::string& out) {
  std::vector<std::string> lines;
  std::stringstream ss(out);
  for (std::string l; std::getline(ss, l);)
    if (!trim(l).empty()) lines.push_back(trim(l));
  switch (how) {
    case Parse::count:
      if (lines.empty()) return 0;  // rg -c prints nothing when nothing matched
      if (lines.size() != 1) return std::nullopt;
      return to_u64(std::string_view(lines[0]).substr(lines[0].rfind(':') + 1));
    case Parse::pattern_counts: {
      std::uint64_t sum = 0;
      for (const auto& l : lines) {
        auto v = to_u64(std::string_view(l).substr(l.rfind(':') + 1));
        if (!v) return std::nullopt;
        sum += *v;
      }
      return sum;
    }
    case Parse::seqkit_lines:
      return lines.empty() ? 0 : lines.size() - 1;
    case Parse::line_count:
      return lines.size();
    case Parse::distance_sum: {
      std::uint64_t sum = 0;
      for (const auto& l : lines) {
        auto v = to_u64(std::string_view(l).substr(l.rfind('\t') + 1));
        if (!v) return std::nullopt;
        sum += *v;
      }
      return sum;
    }
  }
  return std::nullopt;
}

/// Runs the row once as a warm-up (files into the page cache, CUDA's first start-up), then
/// `repeats` times timed.
void measure(Spawner& spawner, Row& row, int repeats, const fs::path& scratch, double timeout_s) {
  static const std::regex backend_re(R"(backend (\w+))");
  static const std::regex scan_re(R"(s scanning \(([0-9.]+) GB/s\))");
  static const std::regex distance_re(R"(cells, ([0-9.eE+-]+) s)");
  const RunResult warm = spawner.run(row.warmup_argv.empty() ? row.argv : row.warmup_argv, scratch, timeout_s);
  if (!warm.ok) {
    row.status = Status::failed;
    row.note = "warm-up: " + warm.error;
    return;
  }
  std::smatch m;
  if (std::regex_search(warm.err, m, backend_re)) row.backend_used = m[1];
  if (std::regex_search(warm.err, m, scan_re)) row.scan_gbps = std::stod(m[1]);
  row.output = warm.out;
  row.count = parse_output(row.parse, warm.out);
  if (!row.count) {
    row.status = Status::failed;
    row.note = "unexpected output: " + trim(warm.out.substr(0, 200));
    return;
  }
  std::vector<double> inprocess;
  for (int i = 0; i < repeats; ++i) {
    const RunResult r = spawner.run(row.argv, scratch, timeout_s);
    if (!r.ok) {
      row.status = Status::failed;
      row.note = r.error;
      return;
    }
    row.samples_s.push_back(r.wall_s);
    row.rss_mib = std::max(row.rss_mib, r.max_rss_mib);
    if (std::regex_search(r.err, m, distance_re)) inprocess.push_back(std::stod(m[1]));
    // seqkit -j N lists records in the order its threads finish: compare the count only.
    if (r.out != row.output && !(row.peer && row.parse == Parse::seqkit_lines && parse_output(row.parse, r.out) == row.count))
      row.note = "output changed between runs";
  }
  row.wall_s = support::median(row.samples_s);
  if (!inprocess.empty()) row.inprocess_s = support::median(inprocess);
}

double metric_value(const Job& job, const Row& r, Metric m) {
  switch (m) {
    case Metric::gbps: return r.wall_s > 0 ? static_cast<double>(job.bytes) / r.wall_s / 1e9 : 0;
    case Metric::vs_peer: return r.vs_peer;
    case Metric::rss_mib: return r.rss_mib;
    case Metric::wall_ms: return r.wall_s * 1e3;
    case Metric::inprocess_ms: return r.inprocess_s ? *r.inprocess_s * 1e3 : 0;
    case Metric::scan_gbps: return r.scan_gbps.value_or(0);
  }
  return 0;
}

const char* metric_unit(Metric m) {
  switch (m) {
    case Metric::gbps: case Metric::scan_gbps: return "GB/s";
    case Metric::vs_peer: return "x";
    case Metric::rss_mib: return "MiB";
    case Metric::wall_ms: case Metric::inprocess_ms: return "ms";
  }
  return "";
}

/// Counts against the oracle (or the backends against each other), ratios, targets.
void evaluate(Job& job) {
  const Row* peer = job.peer();
  const Row* reference = nullptr;  // the first warpmatch row that ran: backends must agree
  for (const auto& r : job.rows)
    if (!r.peer && r.ok()) {
      reference = &r;
      break;
    }
  for (auto& r : job.rows) {
    if (!r.ok()) continue;
    if (peer && peer->ok() && peer != &r && r.wall_s > 0) r.vs_peer = peer->wall_s / r.wall_s;
    if (r.unit == "occurrences" && job.expected_occurrences) r.expected = job.expected_occurrences;
    if (r.unit == "lines" && job.expected_lines) r.expected = job.expected_lines;
    if (r.expected) {
      r.agrees = r.count == r.expected;
    } else if (!r.peer && reference && reference != &r) {
      r.agrees = r.output == reference->output;
      if (!*r.agrees) r.note = fmt::format("output differs from warpmatch {}", reference->backend);
    } else if (r.peer && reference && reference->unit == r.unit) {
      r.agrees = r.count == reference->count;
    }
    if (r.note == "output changed between runs") r.agrees = false;
  }
  if (reference && !reference->expected) {  // the reference itself agrees when another does
    for (const auto& r : job.rows)
      if (&r != reference && !r.peer && r.agrees) job.rows[reference - job.rows.data()].agrees = true;
  }
  for (auto& r : job.rows) {  // met: every target of the row met; NOT MET: one measured and missed
    bool any = false, missed = false, unmeasured = false;
    for (const auto& t : job.targets) {
      if (r.peer || t.backend != r.backend) continue;
      any = true;
      const double v = metric_value(job, r, t.metric);
      if (!r.ok() || v <= 0 || r.agrees == false) {
        unmeasured = true;
        continue;
      }
      missed = missed || !(t.at_least ? v >= t.goal : v <= t.goal);
    }
    if (any && (missed || !unmeasured)) r.met = !missed;
  }
  const Row* a = job.backend_row("auto");
  const Row* c = job.backend_row("cpu");
  const Row* g = job.backend_row("cuda");
  if (a && c && g && a->ok() && c->ok() && g->ok() && a->wall_s > 0)
    job.auto_vs_best = std::min(c->wall_s, g->wall_s) / a->wall_s;
  else if (a && c && g)
    job.auto_vs_best_note = "needs auto, cpu and cuda rows that ran";
}

// ---- environment -----------------------------------------------------------------------------
struct Peer {
  std::string path, version, skip;  // skip: why the peer's rows are skipped ("" = usable)
  json to_json() const {
    return {{"path", path}, {"version", skip.empty() ? json(version) : json(nullptr)},
            {"skipped", skip.empty() ? json(nullptr) : json(skip)}};
  }
};

Peer probe_peer(Spawner& spawner, const std::string& path, const std::vector<std::string>& version_args,
                const fs::path& scratch, const std::string& flag) {
  Peer p;
  p.path = path;
  if (path.empty() || path == "none") {
    p.skip = flag + " none given";
    return p;
  }
  std::vector<std::string> argv{path};
  argv.insert(argv.end(), version_args.begin(), version_args.end());
  const RunResult r = spawner.run(argv, scratch, 60);
  if (!r.ok || r.exit_code != 0) {
    p.skip = r.error.empty() ? fmt::format("`{}` failed", shell_join(argv)) : r.error;
    return p;
  }
  const std::string text = trim(r.out.empty() ? r.err : r.out);
  p.version = text.substr(0, text.find('\n'));
  p.version.erase(0, p.version.find_first_not_of("* "));  // zstd: "*** Zstandard CLI ... ***"
  p.version.erase(p.version.find_last_not_of("* ") + 1);
  return p;
}

struct Environment {
  std::string exe;  // this warpmatch
  json info;        // `warpmatch info --json`
  json device;      // first GPU or null
  std::string gpu_skip;
  std::string cpu_model, commit;
  int hw = 1;
  double true_rss_mib = 0, true_wall_s = 0;  // /bin/true through the helper: the floor
  Peer rg, seqkit, gzip, zstd, stringzilla;
};

// ---- the benchmark ---------------------------------------------------------------------------
class Bench {
 public:
  Bench(const BenchE2EOptions& o, Spawner& spawner) : o_(o), spawner_(spawner) {}
  int run();

 private:
  void probe(const fs::path& scratch);
  void generate(const std::vector<std::string>& ids);
  void plan(const std::vector<std::string>& ids);
  std::vector<std::string> wm(const std::string& sub, const std::string& backend,
                              std::vector<std::string> args, bool stats) const;
  Row wm_row(const std::string& backend, const std::string& sub, const std::vector<std::string>& args,
             Parse parse, std::string unit, bool stats_always = false) const;
  Row wm_pipe_row(const std::string& backend, const std::string& feed, const std::vector<std::string>& args) const;
  std::vector<std::string> rg_args(const std::vector<std::string>& args) const;
  void print_table() const;
  json to_json(bool complete, int exit_status) const;
  void write_json(bool complete, int exit_status) const;

  const BenchE2EOptions& o_;
  Spawner& spawner_;
  Environment env_;
  fs::path dir_;
  Vocabulary vocab_;
  std::optional<TextInfo> text_;
  fs::path words_path_, tiny_path_;
  std::optional<FastaInfo> fasta_;
  std::optional<FastaInfo> sequence_fasta_;  // jobs 8-9
  std::optional<FastaInfo> set_genome_fasta_;  // job 10
  fs::path primers_path_, guides_path_, set_guides_path_;
  std::vector<Compressed> compressed_;
  std::optional<PairsInfo> pairs_;
  std::vector<Job> jobs_;
};

void Bench::probe(const fs::path& scratch) {
  env_.hw = hardware_threads();
  env_.cpu_model = first_field("/proc/cpuinfo", "model name");
  env_.commit = support::git_commit(o_.commit);
  std::error_code ec;
  env_.exe = fs::read_symlink("/proc/self/exe", ec).string();
  if (ec) throw std::runtime_error("cannot read /proc/self/exe: " + ec.message());
  const RunResult floor = spawner_.run({"/bin/true"}, scratch, 60);
  env_.true_rss_mib = floor.max_rss_mib;
  env_.true_wall_s = floor.wall_s;
  const RunResult info = spawner_.run({env_.exe, "info", "--json"}, scratch, 120);
  if (info.ok) env_.info = json::parse(info.out, nullptr, false);
  if (o_.skip_gpu) {
    env_.gpu_skip = "--no-gpu given";
  } else if (!info.ok || env_.info.is_discarded()) {
    env_.gpu_skip = "`warpmatch info --json` failed: " + info.error;
  } else if (env_.info.value("devices", json::array()).empty()) {
    env_.gpu_skip = env_.info.value("cuda_compiled", false) ? "no GPU visible to the CUDA runtime"
                                                            : "this build has no CUDA backend";
  } else {
    env_.device = env_.info["devices"][0];
  }
  env_.rg = probe_peer(spawner_, o_.rg_path, {"--version"}, scratch, "--rg");
  env_.seqkit = probe_peer(spawner_, o_.seqkit_path, {"version"}, scratch, "--seqkit");
  env_.gzip = probe_peer(spawner_, "gzip", {"--version"}, scratch, "gzip");
  env_.zstd = probe_peer(spawner_, o_.zstd_path, {"--version"}, scratch, "--zstd");
  env_.stringzilla = probe_peer(spawner_, "python3", {"-c", "import stringzilla; print('stringzilla', stringzilla.__version__)"},
                                scratch, "python3");
  if (!env_.stringzilla.skip.empty())
    env_.stringzilla.skip = "python3 cannot import stringzilla (optional peer)";
}

void Bench::generate(const std::vector<std::string>& ids) {
  auto wants = [&](std::initializer_list<std::string_view> any) {
    for (auto id : any)
      if (std::find(ids.begin(), ids.end(), id) != ids.end()) return true;
    return false;
  };
  const int threads = o_.threads > 0 ? o_.threads : env_.hw;
  if (wants({"word", "stdin", "words"})) vocab_ = load_vocabulary(o_.words_file);
  if (wants({"word", "stdin", "words"})) {
    fmt::print("  generating {} of English-like text ...", fmt_size(o_.text_bytes));
    std::fflush(stdout);
    text_ = write_text(dir_ / "text.txt", o_.text_bytes, vocab_, threads);
    fmt::print(" {:.2f} s ({} lines, '{}' planted {} times, vocabulary {} words from {})\n", text_->seconds,
               text_->lines, kWord, text_->planted, vocab_.words.size(), vocab_.source);
    words_path_ = dir_ / "words.txt";
    OutFile w(words_path_);
    for (const auto& word : vocab_.list_words) w.append(word + "\n");
  }
  if (wants({"fasta", "gz", "bgzf", "zst"})) {
    fmt::print("  generating a FASTA of {} ...", fmt_size(o_.fasta_bytes));
    std::fflush(stdout);
    fasta_ = write_fasta(dir_ / "genome.fa", o_.fasta_bytes, threads);
    fmt::print(" {:.2f} s ({} records, {} bases, '{}' {} times on the forward strand)\n", fasta_->seconds,
               fasta_->records, fasta_->bases, kKmer, fasta_->occurrences);
    const Mapped fa(fasta_->path);
    auto compress = [&](const char* id, const char* name, auto&& fn) {
      if (!wants({id})) return;
      fmt::print("  writing {} ...", name);
      std::fflush(stdout);
      compressed_.push_back(fn(fa, dir_ / name, threads));
      fmt::print(" {:.2f} s, {} ({})\n", compressed_.back().seconds, fmt_size(compressed_.back().bytes),
                 compressed_.back().how);
    };
    compress("gz", "genome.fa.gz", write_gzip);
    compress("bgzf", "genome.bgzf.fa.gz", write_bgzf);
    compress("zst", "genome.fa.zst", write_zstd);
  }
  if (wants({"tiny"})) {
    tiny_path_ = dir_ / "tiny.txt";
    std::string s = "A tiny input: " + std::string(kWord) + " once";
    for (std::size_t i = 0; s.size() < kTinyBytes - 1; ++i) s += ' ' + std::string(kCommonEnglish[i % 20]);
    s.resize(kTinyBytes - 1);
    if (s.back() == ' ') s.back() = '.';
    OutFile(tiny_path_).append(s + "\n");
  }
  if (wants({"primers", "offtarget"})) {
    sequence_fasta_ = write_fasta(dir_ / "sequence_genome.fa", o_.sequence_bytes, threads);
    // Degenerate primers of 11-12 nt (both strands: ~hundreds of sites per primer in 64 MiB).
    primers_path_ = dir_ / "primers.fa";
    OutFile(primers_path_).append(">p1\nGGATCNRTAC\n>p2\nCCRGGTTNACG\n>p3\nGANTCACGTGA\n>p4\nTGRYACGATCG\n"
                                  ">p5\nAAGCTTNNGCA\n>p6\nGTCGACWSAGT\n>p7\nCTGCAGKMTCA\n>p8\nGAATTCHDACG\n");
    guides_path_ = dir_ / "guides.fa";
    write_guides(guides_path_, o_.guides, 2026);
    fmt::print("  sequence jobs: FASTA of {}, 8 degenerate primers, {} guides\n", fmt_size(sequence_fasta_->bytes), o_.guides);
  }
  if (wants({"guides"})) {
    set_genome_fasta_ = write_fasta(dir_ / "guide_genome.fa", o_.set_genome_bytes, threads);
    set_guides_path_ = dir_ / "set_guides.fa";
    write_guides(set_guides_path_, o_.set_guides, 2027);
    fmt::print("  guide set job: FASTA of {}, {} guides of 20 nt\n", fmt_size(set_genome_fasta_->bytes), o_.set_guides);
  }
  if (wants({"pairs"})) {
    pairs_ = write_pairs(dir_ / "pairs.tsv", o_.pairs);
    fmt::print("  pairs: {} ({} x {} strings of {}-{} random ACGT), {}\n", pairs_->pairs, pairs_->a_strings,
               pairs_->b_strings, kPairMinLength, kPairMaxLength, fmt_size(pairs_->bytes));
  }
}

std::vector<std::string> Bench::wm(const std::string& sub, const std::string& backend,
                                   std::vector<std::string> args, bool stats) const {
  std::vector<std::string> argv{env_.exe, sub};
  if (stats) argv.push_back("--stats");
  argv.insert(argv.end(), {"--backend", backend});
  if (o_.threads > 0) argv.insert(argv.end(), {"-j", std::to_string(o_.threads)});
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

Row Bench::wm_row(const std::string& backend, const std::string& sub, const std::vector<std::string>& args,
                  Parse parse, std::string unit, bool stats_always) const {
  Row r;
  r.method = "warpmatch " + backend;
  r.backend = backend;
  r.argv = wm(sub, backend, args, stats_always);
  r.warmup_argv = wm(sub, backend, args, true);
  r.parse = parse;
  r.unit = std::move(unit);
  if (backend == "cuda" && !env_.gpu_skip.empty()) {
    r.status = Status::skipped;
    r.note = env_.gpu_skip;
  }
  return r;
}

Row Bench::wm_pipe_row(const std::string& backend, const std::string& feed,
                       const std::vector<std::string>& args) const {
  Row r = wm_row(backend, "find", args, Parse::count, "occurrences");
  r.method = "cat | warpmatch " + backend;
  r.argv = {"/bin/sh", "-c", feed + " | " + shell_join(r.argv)};
  r.warmup_argv = {"/bin/sh", "-c", feed + " | " + shell_join(r.warmup_argv)};
  return r;
}

std::vector<std::string> Bench::rg_args(const std::vector<std::string>& args) const {
  std::vector<std::string> argv{o_.rg_path, "--no-config", "-F", "-c"};
  if (o_.threads > 0) argv.insert(argv.end(), {"-j", std::to_string(o_.threads)});
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

Row peer_row(std::string method, std::vector<std::string> argv, Parse parse, std::string unit,
             const Peer& needs, const Peer* also = nullptr) {
  Row r;
  r.method = std::move(method);
  r.peer = true;
  r.argv = std::move(argv);
  r.parse = parse;
  r.unit = std::move(unit);
  for (const Peer* p : {&needs, also})
    if (p && !p->skip.empty() && r.status == Status::ok) {
      r.status = Status::skipped;
      r.note = p->skip;
    }
  return r;
}

void Bench::plan(const std::vector<std::string>& ids) {
  const std::string word(kWord), kmer(kKmer);
  const std::string threads = std::to_string(o_.threads > 0 ? o_.threads : env_.hw);
  auto gb = [](double goal) { return Target{"auto", Metric::gbps, goal, true, fmt::format(">= {} GB/s", goal)}; };
  const Target rss{"auto", Metric::rss_mib, kRssLimitMiB, false, "peak <= 1.2 GiB"};
  for (const auto& id : ids) {
    Job j;
    j.id = id;
    for (const auto& spec : kJobs)
      if (spec.id == id) j.number = spec.number;
    if (id == "word" || id == "stdin" || id == "words") {
      j.bytes = text_->bytes;
      const std::string file = text_->path.string();
      if (id != "words") j.expected_occurrences = j.expected_lines = text_->planted;
      if (id == "word") {
        j.title = fmt::format("one rare word, {} text", fmt_size(j.bytes));
        for (const auto& b : kBackends) j.rows.push_back(wm_row(b, "find", {"-c", word, file}, Parse::count, "occurrences"));
        j.rows.push_back(peer_row("ripgrep -F -c", rg_args({"-e", word, file}), Parse::count, "lines", env_.rg));
        j.targets = {gb(60), {"auto", Metric::vs_peer, 10, true, ">= 10x ripgrep"},
                     {"cuda", Metric::scan_gbps, 40, true, "GPU scan >= 40 GB/s (--stats)"}};
      } else if (id == "stdin") {
        j.title = fmt::format("same through a pipe, {}", fmt_size(j.bytes));
        const std::string feed = "cat " + shell_quote(file);
        j.rows.push_back(wm_pipe_row("auto", feed, {"-c", word}));
        j.rows.push_back(peer_row("cat | ripgrep -F -c",
                                  {"/bin/sh", "-c", feed + " | " + shell_join(rg_args({"-e", word}))},
                                  Parse::count, "lines", env_.rg));
        j.targets = {gb(3), rss};
      } else {
        j.title = fmt::format("{} words -f, {} text", vocab_.list_words.size(), fmt_size(j.bytes));
        for (const auto& b : kBackends)
          j.rows.push_back(wm_row(b, "find", {"-c", "-f", words_path_.string(), file}, Parse::pattern_counts,
                                  "sum over patterns"));
        j.rows.push_back(peer_row("ripgrep -F -c -f", rg_args({"-f", words_path_.string(), file}), Parse::count,
                                  "lines", env_.rg));
        j.targets = {{"cpu", Metric::vs_peer, 1, true, "cpu >= 1x ripgrep"}};
      }
    } else if (id == "fasta") {
      j.bytes = fasta_->bytes;
      j.bytes_note = "FASTA file bytes (bases are 60/61 of them)";
      j.title = fmt::format("one 8-mer, {} FASTA", fmt_size(j.bytes));
      j.expected_occurrences = fasta_->occurrences;
      j.expected_lines = fasta_->lines_with;
      const std::string file = fasta_->path.string();
      for (const auto& b : kBackends) j.rows.push_back(wm_row(b, "find", {"-c", kmer, file}, Parse::count, "occurrences"));
      j.rows.push_back(peer_row("seqkit locate -P", {o_.seqkit_path, "locate", "-P", "-j", threads, "-p", kmer, file},
                                Parse::seqkit_lines, "occurrences", env_.seqkit));
      j.targets = {gb(10)};
    } else if (id == "gz" || id == "bgzf" || id == "zst") {
      const std::string kind = id == "gz" ? "gzip" : id == "bgzf" ? "bgzf" : "zstd";
      const auto c = std::find_if(compressed_.begin(), compressed_.end(), [&](const Compressed& x) { return x.kind == kind; });
      j.bytes = fasta_->bytes;
      j.bytes_note = fmt::format("decompressed bytes; compressed file {} bytes: {}", c->bytes, c->how);
      j.title = fmt::format("8-mer, FASTA as {} ({})", id == "gz" ? ".gz" : id == "bgzf" ? "BGZF" : ".zst",
                            fmt_size(c->bytes));
      j.expected_occurrences = fasta_->occurrences;
      j.expected_lines = fasta_->lines_with;
      const std::string file = c->path.string();
      j.rows.push_back(wm_row("auto", "find", {"-c", kmer, file}, Parse::count, "occurrences"));
      const bool z = id == "zst";
      const std::string feed = z ? shell_join({o_.zstd_path, "-d", "-c", "-q", file}) : shell_join({"gzip", "-dc", file});
      j.rows.push_back(peer_row(z ? "zstd -dc | ripgrep -F -c" : "zcat | ripgrep -F -c",
                                {"/bin/sh", "-c", feed + " | " + shell_join(rg_args({"-e", kmer}))}, Parse::count,
                                "lines", env_.rg, z ? &env_.zstd : &env_.gzip));
      j.targets = {gb(id == "gz" ? 1 : id == "bgzf" ? 6 : 1.5), rss};
    } else if (id == "tiny") {
      j.bytes = kTinyBytes;
      j.title = "tiny file (100 bytes)";
      j.expected_occurrences = j.expected_lines = 1;
      for (const auto& b : kBackends)
        j.rows.push_back(wm_row(b, "find", {"-c", word, tiny_path_.string()}, Parse::count, "occurrences"));
      j.rows.push_back(peer_row("ripgrep -F -c", rg_args({"-e", word, tiny_path_.string()}), Parse::count, "lines", env_.rg));
      j.targets = {{"auto", Metric::wall_ms, 10, false, "<= 10 ms"}};
    } else if (id == "pairs") {
      j.bytes = pairs_->bytes;
      j.bytes_note = "pairs file bytes";
      j.title = fmt::format("distance --pairs, {} pairs", pairs_->pairs);
      for (const auto& b : kBackends)
        j.rows.push_back(wm_row(b, "distance", {"--pairs", pairs_->path.string()}, Parse::distance_sum,
                                "sum of distances", true));
      // Optional: StringZilla (the Python API of StringZilla 4+, else 3's edit_distance); untested here.
      const std::string script =
          "import sys\n"
          "pairs = [l.rstrip('\\n').split('\\t') for l in open(sys.argv[1])]\n"
          "try:\n"
          "    import stringzilla as sz, stringzillas as szs\n"
          "    engine = szs.LevenshteinDistances()\n"
          "    try:\n"
          "        scope = szs.DeviceScope(gpu_device=0)\n"
          "    except Exception:\n"
          "        scope = szs.DeviceScope()\n"
          "    d = engine(sz.Strs([p[0] for p in pairs]), sz.Strs([p[1] for p in pairs]), device=scope)\n"
          "    print(sum(int(x) for x in d))\n"
          "except ImportError:\n"
          "    import stringzilla as sz\n"
          "    print(sum(sz.edit_distance(a, b) for a, b in pairs))\n";
      Row sz = peer_row("StringZilla (python3)", {"python3", "-c", script, pairs_->path.string()}, Parse::count,
                        "sum of distances", env_.stringzilla);
      sz.optional = true;
      j.rows.push_back(std::move(sz));
      j.targets = {{"auto", Metric::inprocess_ms, 5, false, "in-process <= 5 ms (--stats)"}};
    } else if (id == "primers") {
      j.bytes = sequence_fasta_->bytes;
      j.title = fmt::format("8 IUPAC primers, both strands, {}", fmt_size(j.bytes));
      const std::string file = sequence_fasta_->path.string();
      for (const auto& b : kBackends)
        j.rows.push_back(wm_row(b, "find", {"-c", "--strand", "both", "--iupac", "-f", primers_path_.string(), file},
                                Parse::pattern_counts, "occurrences"));
      j.rows.push_back(peer_row("seqkit locate -d", {o_.seqkit_path, "locate", "-d", "-j", threads, "-f",
                                                     primers_path_.string(), file},
                                Parse::seqkit_lines, "occurrences", env_.seqkit));
      j.targets = {{"auto", Metric::vs_peer, 10, true, ">= 10x seqkit locate"}};
    } else if (id == "offtarget") {
      j.bytes = sequence_fasta_->bytes;
      j.title = fmt::format("offtarget {} guides, k 4, {}", o_.guides, fmt_size(j.bytes));
      const std::string file = sequence_fasta_->path.string();
      for (const auto& b : kBackends)
        j.rows.push_back(wm_row(b, "offtarget", {"--guides", guides_path_.string(), "-k", "4", "--bed", file},
                                Parse::line_count, "sites"));
    } else if (id == "guides") {
      j.bytes = set_genome_fasta_->bytes;
      j.title = fmt::format("{} guides, k 3 edits, both strands, {}", o_.set_guides, fmt_size(j.bytes));
      const std::string file = set_genome_fasta_->path.string();
      // The cpu row only where it surely fits the run timeout (1 GB/s of pattern x text per
      // thread on 16 threads, the H100 host's rate, and a quarter of the timeout).
      const double pattern_bytes = 2.0 * static_cast<double>(o_.set_guides) * static_cast<double>(j.bytes);
      for (const auto& b : kBackends) {
        if (b == "cpu" && pattern_bytes > 1e9 * 16 * o_.run_timeout_s * 0.25) continue;
        j.rows.push_back(wm_row(b, "approx", {"-c", "-k", "3", "--strand", "both", "-f", set_guides_path_.string(), file},
                                Parse::pattern_counts, "hits"));
      }
      if (o_.set_guides >= 10000 && j.bytes >= 3000000000ull)  // the issue's job, not a smaller one
        j.targets = {{"auto", Metric::wall_ms, 30000, false, "<= 30 s end to end"}};
    }
    jobs_.push_back(std::move(j));
  }
}

void Bench::print_table() const {
  fmt::print("\n{:<2} {:<34} {:<28} {:>10} {:>8} {:>8} {:>8} {:>11} {:>6}  {}\n", "#", "job", "method", "wall",
             "GB/s", "peak MiB", "vs peer", "count", "agrees", "target");
  fmt::print("{:-<140}\n", "");
  for (const auto& j : jobs_) {
    for (const auto& r : j.rows) {
      std::string targets;
      for (const auto& t : j.targets)
        if (!r.peer && t.backend == r.backend) targets += (targets.empty() ? "" : ", ") + t.text;
      if (!r.ok()) {
        fmt::print("{:<2} {:<34} {:<28} {}: {}\n", j.number, j.title, r.label(), status_name(r.status), r.note);
        continue;
      }
      const std::string agrees = !r.agrees ? "n/a" : *r.agrees ? "yes" : "NO";
      std::string verdict = targets.empty() ? "" : targets + ": " + (!r.met ? "n/a" : *r.met ? "MET" : "NOT MET");
      if (r.inprocess_s) verdict += fmt::format(" [in-process {:.2f} ms]", *r.inprocess_s * 1e3);
      if (r.scan_gbps && r.backend_used == "cuda" && j.bytes >= (64u << 20)) verdict += fmt::format(" [scan {:.1f} GB/s]", *r.scan_gbps);
      fmt::print("{:<2} {:<34} {:<28} {:>10} {:>8} {:>8.0f} {:>8} {:>11} {:>6}  {}\n", j.number, j.title, r.label(),
                 fmt_seconds(r.wall_s), fmt_num(metric_value(j, r, Metric::gbps), 2), r.rss_mib,
                 r.peer ? "peer" : support::fmt_ratio(r.vs_peer),
                 fmt::format("{}{}", *r.count, r.unit == "lines" ? "L" : ""), agrees, verdict);
    }
  }
  fmt::print("(wall: median of {} runs after a warm-up, process start to exit; GB/s = input bytes / wall, "
             "decompressed bytes for .gz/BGZF/.zst; peak MiB: wait4's ru_maxrss, the largest process of a "
             "pipeline; vs peer = peer wall / this wall; L = matching lines, as `rg -c` counts; agrees = "
             "count equals the generator's, or warpmatch backends give the same output)\n",
             o_.repeats);
  bool header = false;
  for (const auto& j : jobs_) {
    if (!j.auto_vs_best) continue;
    if (!header) fmt::print("\nauto vs the better of cpu / cuda (target >= 0.9x):\n"), header = true;
    fmt::print("  {:<2} {:<34} {:>6}  {}\n", j.number, j.title, support::fmt_ratio(*j.auto_vs_best),
               *j.auto_vs_best >= 0.9 ? "MET" : "NOT MET");
  }
}

json Bench::to_json(bool complete, int exit_status) const {
  json j;
  j["benchmark"] = "e2e";
  j["schema_version"] = 1;
  j["complete"] = complete;
  j["timestamp_utc"] = utc_timestamp();
  j["commit"] = env_.commit;
  j["command_line"] = own_command_line();
  j["options"] = {{"text_bytes", o_.text_bytes}, {"fasta_bytes", o_.fasta_bytes}, {"pairs", o_.pairs}, {"sequence_bytes", o_.sequence_bytes}, {"guides", o_.guides}, {"set_guides", o_.set_guides}, {"set_genome_bytes", o_.set_genome_bytes},
                  {"repeats", o_.repeats},       {"threads", o_.threads},         {"dir", dir_.string()},
                  {"keep", o_.keep},             {"words_file", o_.words_file},   {"rows", o_.rows},
                  {"skip_gpu", o_.skip_gpu},     {"run_timeout_s", o_.run_timeout_s}};
  const BuildInfo bi = build_info();
  j["build"] = {{"version", bi.version}, {"cuda_compiled", bi.cuda_compiled},
                {"cuda_architectures", bi.cuda_architectures}, {"cuda_runtime_version", bi.cuda_runtime_version},
                {"warpmatch", env_.exe}};
  utsname un{};
  uname(&un);
  j["host"] = {{"hardware_threads", env_.hw}, {"cpu_model", env_.cpu_model},
               {"memory", first_field("/proc/meminfo", "MemTotal")}, {"kernel", std::string(un.release)},
               {"hostname", std::string(un.nodename)}};
  j["measurement"] = {
      {"how", "posix_spawn from a helper process forked at start, wait4: wall from spawn to reap, peak RSS = "
              "ru_maxrss (for /bin/sh -c pipelines the largest of the shell and its children); one warm-up run, "
              "then the median of the repeats; stdout/stderr to files"},
      {"true_wall_s", env_.true_wall_s},
      {"true_peak_rss_mib", env_.true_rss_mib}};
  j["device"] = env_.device.is_null() ? json(nullptr) : env_.device;
  if (env_.device.is_null()) j["device_note"] = env_.gpu_skip;
  j["peers"] = {{"ripgrep", env_.rg.to_json()}, {"seqkit", env_.seqkit.to_json()}, {"gzip", env_.gzip.to_json()},
                {"zstd", env_.zstd.to_json()}, {"stringzilla", env_.stringzilla.to_json()}};
  json data = json::object();
  if (text_)
    data["text"] = {{"bytes", text_->bytes}, {"lines", text_->lines}, {"word", std::string(kWord)},
                    {"planted", text_->planted}, {"vocabulary", vocab_.words.size()},
                    {"vocabulary_source", vocab_.source}, {"list_words", vocab_.list_words.size()},
                    {"seconds", text_->seconds}};
  if (fasta_)
    data["fasta"] = {{"bytes", fasta_->bytes}, {"bases", fasta_->bases}, {"records", fasta_->records},
                     {"columns", kFastaColumns}, {"kmer", std::string(kKmer)}, {"occurrences", fasta_->occurrences},
                     {"lines_with_kmer", fasta_->lines_with}, {"seconds", fasta_->seconds}};
  for (const auto& c : compressed_)
    data[c.kind] = {{"bytes", c.bytes}, {"how", c.how}, {"seconds", c.seconds}};
  if (pairs_)
    data["pairs"] = {{"pairs", pairs_->pairs}, {"bytes", pairs_->bytes}, {"a_strings", pairs_->a_strings},
                     {"b_strings", pairs_->b_strings}, {"min_length", kPairMinLength},
                     {"max_length", kPairMaxLength}};
  j["data"] = data;
  json rows = json::array(), jobs = json::array(), targets = json::array();
  int failures = 0, disagreements = 0;
  for (const auto& job : jobs_) {
    const Row* peer = job.peer();
    jobs.push_back({{"job", job.number}, {"id", job.id}, {"title", job.title}, {"bytes", job.bytes},
                    {"bytes_note", job.bytes_note},
                    {"expected_occurrences", job.expected_occurrences ? json(*job.expected_occurrences) : json(nullptr)},
                    {"expected_lines", job.expected_lines ? json(*job.expected_lines) : json(nullptr)},
                    {"peer", peer ? json(peer->method) : json(nullptr)},
                    {"peer_count", peer && peer->ok() ? json(*peer->count) : json(nullptr)},
                    {"peer_count_unit", peer ? json(peer->unit) : json(nullptr)},
                    {"auto_vs_best", job.auto_vs_best ? json(*job.auto_vs_best) : json(nullptr)},
                    {"auto_vs_best_met", job.auto_vs_best ? json(*job.auto_vs_best >= 0.9) : json(nullptr)},
                    {"auto_vs_best_note", job.auto_vs_best_note}});
    for (const auto& r : job.rows) {
      const bool ok = r.ok();
      failures += r.status == Status::failed && !r.optional;
      disagreements += r.agrees == false;
      const std::string cmd = r.argv.size() == 3 && r.argv[0] == "/bin/sh" ? r.argv[2] : shell_join(r.argv);
      rows.push_back({{"job", job.number}, {"job_id", job.id}, {"job_title", job.title}, {"method", r.method},
                      {"label", r.label()}, {"backend", r.peer ? json(nullptr) : json(r.backend)},
                      {"backend_used", r.backend_used.empty() ? json(nullptr) : json(r.backend_used)},
                      {"peer", r.peer}, {"optional", r.optional}, {"command", cmd}, {"status", status_name(r.status)},
                      {"note", r.note}, {"wall_s", ok ? json(r.wall_s) : json(nullptr)}, {"samples_s", r.samples_s},
                      {"gb_per_s", ok ? json(metric_value(job, r, Metric::gbps)) : json(nullptr)},
                      {"peak_rss_mib", ok ? json(r.rss_mib) : json(nullptr)},
                      {"ratio_vs_peer", r.vs_peer > 0 ? json(r.vs_peer) : json(nullptr)},
                      {"count", ok && r.count ? json(*r.count) : json(nullptr)}, {"count_unit", r.unit},
                      {"expected", r.expected ? json(*r.expected) : json(nullptr)},
                      {"agrees", r.agrees ? json(*r.agrees) : json(nullptr)},
                      {"scan_gb_per_s", r.scan_gbps ? json(*r.scan_gbps) : json(nullptr)},
                      {"inprocess_ms", r.inprocess_s ? json(*r.inprocess_s * 1e3) : json(nullptr)},
                      {"met", r.met ? json(*r.met) : json(nullptr)}});
    }
    for (const auto& t : job.targets) {
      const Row* r = job.backend_row(t.backend);
      if (!r) continue;
      const double v = metric_value(job, *r, t.metric);
      const bool have = r->ok() && v > 0 && r->agrees != false;
      targets.push_back({{"job", job.number}, {"job_id", job.id}, {"row", r->method}, {"target", t.text},
                         {"goal", t.goal}, {"at_least", t.at_least}, {"unit", metric_unit(t.metric)},
                         {"value", have ? json(v) : json(nullptr)},
                         {"met", have ? json(t.at_least ? v >= t.goal : v <= t.goal) : json(nullptr)}});
    }
    if (job.auto_vs_best)
      targets.push_back({{"job", job.number}, {"job_id", job.id}, {"row", "warpmatch auto"},
                         {"target", "auto >= 0.9x the better of cpu/cuda"}, {"goal", 0.9}, {"at_least", true},
                         {"unit", "x"},
                         {"value", *job.auto_vs_best}, {"met", *job.auto_vs_best >= 0.9}});
  }
  j["jobs"] = jobs;
  j["rows"] = rows;
  j["targets"] = targets;
  j["failures"] = failures;
  j["disagreements"] = disagreements;
  j["exit_status"] = complete ? json(exit_status) : json(nullptr);
  return j;
}

void Bench::write_json(bool complete, int exit_status) const {
  if (o_.json_path.empty()) return;
  std::ofstream out(o_.json_path);
  out << to_json(complete, exit_status).dump(2) << '\n';
  out.close();
  if (!out) throw std::runtime_error("cannot write JSON to " + o_.json_path);
}

/// The directory the data is generated in; removed at the end unless --keep.
struct WorkDir {
  fs::path path;
  bool keep = false;
  ~WorkDir() {
    std::error_code ec;
    if (!path.empty() && !keep) fs::remove_all(path, ec);
  }
};

int Bench::run() {
  if (o_.repeats < 1) throw InvalidArgument("--repeats must be at least 1");
  const std::vector<std::string> ids = parse_rows(o_.rows);
  auto wants = [&](std::string_view id) { return std::find(ids.begin(), ids.end(), id) != ids.end(); };
  const bool want_text = wants("word") || wants("stdin") || wants("words");
  const bool want_fasta = wants("fasta") || wants("gz") || wants("bgzf") || wants("zst");
  if (want_text && o_.text_bytes < kMinTextBytes)
    throw InvalidArgument(fmt::format("--bytes must be at least {}", kMinTextBytes));
  if (want_fasta && o_.fasta_bytes < kMinFastaBytes)
    throw InvalidArgument(fmt::format("--fasta-bytes must be at least {}", kMinFastaBytes));
  if (wants("pairs") && o_.pairs == 0) throw InvalidArgument("--pairs must be at least 1");

  const char* tmp = std::getenv("TMPDIR");
  const std::string base = !o_.dir.empty() ? o_.dir : (tmp && *tmp) ? tmp : "/tmp";
  std::error_code ec;
  fs::create_directories(base, ec);
  std::string tmpl = (fs::path(base) / "warpmatch-e2e-XXXXXX").string();
  if (!::mkdtemp(tmpl.data()))
    throw std::runtime_error(fmt::format("cannot create a directory in {}: {}", base, std::strerror(errno)));
  WorkDir work{tmpl, o_.keep};
  dir_ = work.path;
  const fs::path scratch = dir_ / "run";
  fs::create_directories(scratch);

  // Room for the data: text, FASTA and (at most) one third of it per compressed copy.
  const double need = (want_text ? o_.text_bytes : 0) +
                      (want_fasta ? o_.fasta_bytes * (1.0 + 0.35 * (wants("gz") + wants("bgzf") + wants("zst"))) : 0) +
                      (wants("pairs") ? o_.pairs * 410.0 : 0) +
                      ((wants("primers") || wants("offtarget")) ? o_.sequence_bytes * 1.0 : 0) +
                      (wants("guides") ? o_.set_genome_bytes * 1.02 : 0);
  struct statvfs vfs {};
  if (::statvfs(dir_.c_str(), &vfs) == 0) {
    const double avail = static_cast<double>(vfs.f_bavail) * static_cast<double>(vfs.f_frsize);
    if (avail < need * 1.05)
      throw std::runtime_error(fmt::format("{} has {} free, the data needs about {} (--dir elsewhere, or smaller "
                                           "--bytes / --fasta-bytes)",
                                           dir_.string(), fmt_size(static_cast<std::uint64_t>(avail)),
                                           fmt_size(static_cast<std::uint64_t>(need))));
  }

  probe(scratch);
  fmt::print("warpmatch bench e2e: the command line end to end (process start to exit), data in the page cache\n");
  fmt::print("  commit {}  |  host: {} hardware threads, {}\n", env_.commit, env_.hw,
             env_.cpu_model.empty() ? "unknown CPU" : env_.cpu_model);
  if (!env_.device.is_null())
    fmt::print("  GPU: {} ({} SMs, compute {})\n", env_.device.value("name", "?"), env_.device.value("multiprocessors", 0),
               env_.device.value("compute_capability", "?"));
  else
    fmt::print("  NOTE: cuda rows skipped: {}\n", env_.gpu_skip);
  for (const auto& [name, p] : {std::pair<const char*, const Peer*>{"ripgrep", &env_.rg}, {"seqkit", &env_.seqkit},
                                {"gzip", &env_.gzip}, {"zstd", &env_.zstd}, {"StringZilla", &env_.stringzilla}})
    fmt::print("  peer {:<12} {}\n", name, p->skip.empty() ? p->version : "skipped: " + p->skip);
  fmt::print("  floor: /bin/true takes {} and reports {:.1f} MiB peak through the process-starting helper\n",
             fmt_seconds(env_.true_wall_s), env_.true_rss_mib);
  fmt::print("  data in {}{}\n", dir_.string(), o_.keep ? " (kept)" : " (removed at the end)");

  generate(ids);
  plan(ids);

  for (auto& job : jobs_) {
    for (auto& r : job.rows) {
      if (!r.ok()) continue;
      fmt::print("  [{} {}] {} ...", job.number, job.id, r.method);
      std::fflush(stdout);
      measure(spawner_, r, o_.repeats, scratch, o_.run_timeout_s);
      if (r.ok())
        fmt::print(" {} ({} GB/s), {:.0f} MiB, count {}{}\n", fmt_seconds(r.wall_s),
                   fmt_num(metric_value(job, r, Metric::gbps), 2), r.rss_mib, *r.count,
                   r.backend_used.empty() ? "" : ", backend " + r.backend_used);
      else
        fmt::print(" {}: {}\n", status_name(r.status), r.note);
    }
    evaluate(job);
    write_json(false, 0);  // what has been measured survives a run cut short
  }

  print_table();
  int failures = 0, disagreements = 0;
  for (const auto& job : jobs_)
    for (const auto& r : job.rows) {
      failures += r.status == Status::failed && !r.optional;
      disagreements += r.agrees == false;
    }
  fmt::print("\ntargets (PERF.md, end to end):\n");
  const json summary = to_json(false, 0);
  for (const auto& t : summary["targets"])
    fmt::print("  {} {:<6} {:<24} {:<34} {:>12}  {}\n", t["job"].get<int>(), t["job_id"].get<std::string>(),
               t["row"].get<std::string>(), t["target"].get<std::string>(),
               t["value"].is_null() ? std::string("-")
                                    : fmt::format("{:.3g} {}", t["value"].get<double>(), t["unit"].get<std::string>()),
               t["met"].is_null() ? "n/a" : t["met"].get<bool>() ? "MET" : "NOT MET");
  if (disagreements) fmt::print("\n!!! {} row(s) DISAGREE (count or output; see 'agrees') !!!\n", disagreements);
  if (failures) fmt::print("\n!!! {} row(s) FAILED (see the table) !!!\n", failures);
  const int exit_status = failures || disagreements ? 2 : 0;
  write_json(true, exit_status);
  if (!o_.json_path.empty()) fmt::print("JSON written to {}\n", o_.json_path);
  return exit_status;
}

}  // namespace

int run_bench_e2e(const BenchE2EOptions& options) {
  try {
    Spawner spawner;  // first, while this process is small (see Spawner)
    Bench bench(options, spawner);
    return bench.run();
  } catch (const std::exception& e) {
    std::fflush(stdout);
    fmt::print(stderr, "warpmatch bench e2e: error: {}\n", e.what());
    return 2;
  }
}

}  // namespace warpmatch::bench
