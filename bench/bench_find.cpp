// `warpmatch bench find` — exact search of one pattern over generated English-like text.
//
// The text (1 GiB by default) is made of words drawn Zipf-like (exponent 1) from a vocabulary
// whose most frequent words are those of real English ("the" first), followed by a word list
// (e.g. /usr/share/dict/words) or built-in pseudo-words, with sentences, punctuation and lines
// of at most ~80 bytes. A rare word ("Sherlock", removed from the vocabulary) is planted about
// 50 times. The generator counts, as it writes, every occurrence of each benchmark pattern and
// every line holding one, so each method's count is checked against an exact oracle.
//
// Methods, for each pattern: GPU resident (fast), GPU host-fed (fast, transfers included),
// GPU resident (bf, seed paper 003), CPU backend on all threads and on 1 thread, and ripgrep
// (`rg -F -c`, which counts lines, and `rg -F --count-matches`, which counts occurrences)
// timed around fork/exec on a file warm in the page cache. Prints a table and writes JSON.
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench.hpp"
#include "bench/bench_support.hpp"
#include "core/exact_pattern.hpp"
#include "core/parallel.hpp"
#include "cpu/exact_cpu.hpp"
#include "cuda/exact/exact_cuda.hpp"
#include "cuda/runtime/devices.hpp"
#include "warpmatch/common.hpp"

extern char** environ;

namespace warpmatch::bench {
namespace {

using json = nlohmann::json;
using support::fmt_ratio;
using support::lower_ascii;
using support::trim;
using support::SplitMix64;
using Clock = std::chrono::steady_clock;

// ---- fixed parameters of the generated text ---------------------------------------------
constexpr std::uint64_t kSeed = 0x77617270'6d617463ull;  // "warpmatc"
constexpr std::string_view kRareWord = "Sherlock";
constexpr std::string_view kCommonWord = "the";
constexpr std::size_t kPatterns = 2;  // 0: rare word, 1: "the"
constexpr std::uint64_t kPlants = 50;
constexpr std::size_t kLineWidth = 80;
constexpr std::uint64_t kChunkBytes = 16ull << 20;  // generated independently, in parallel
constexpr std::uint64_t kMinTextBytes = 4096;
constexpr std::size_t kMaxWordBytes = 40;
constexpr double kZipfExponent = 1.0;
constexpr std::size_t kPseudoWords = 60000;

// Targets of /work/shared/PERF.md.
constexpr double kResidentTargetGBps = 3000.0;
constexpr double kHostFedTargetGBps = 45.0;

// The most frequent English words, most frequent first: ranks 1.. of the Zipf law.
constexpr std::string_view kCommonEnglish[] = {
    "the",   "of",    "and",    "to",     "a",      "in",     "is",     "you",   "that",
    "it",    "he",    "was",    "for",    "on",     "are",    "as",     "with",  "his",
    "they",  "I",     "at",     "be",     "this",   "have",   "from",   "or",    "one",
    "had",   "by",    "word",   "but",    "not",    "what",   "all",    "were",  "we",
    "when",  "your",  "can",    "said",   "there",  "use",    "an",     "each",  "which",
    "she",   "do",    "how",    "their",  "if",     "will",   "up",     "other", "about",
    "out",   "many",  "then",   "them",   "these",  "so",     "some",   "her",   "would",
    "make",  "like",  "him",    "into",   "time",   "has",    "look",   "two",   "more",
    "write", "go",    "see",    "number", "no",     "way",    "could",  "people", "my",
    "than",  "first", "water",  "been",   "call",   "who",    "oil",    "its",   "now",
    "find",  "long",  "down",   "day",    "did",    "get",    "come",   "made",  "may",
    "part",  "over",  "new",    "sound",  "take",   "only",   "little", "work",  "know",
    "place", "year",  "live",   "me",     "back",   "give",   "most",   "very",  "after",
    "thing", "our",   "just",   "name",   "good",   "sentence", "man",  "think", "say"};

// ---- small utilities ----------------------------------------------------------------------

std::uint64_t count_occurrences(std::string_view text, std::string_view pattern) {
  std::uint64_t n = 0;
  for (std::size_t pos = text.find(pattern); pos != std::string_view::npos;
       pos = text.find(pattern, pos + 1))
    ++n;
  return n;
}

std::string capitalized(std::string_view w) {
  std::string s(w);
  if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 32);
  return s;
}

double gb_per_s(std::uint64_t bytes, double ms) {
  return ms > 0 ? static_cast<double>(bytes) / (ms * 1e-3) / 1e9 : 0.0;
}

std::string format_bytes(std::uint64_t b) {
  if (b >= (1ull << 30) && b % (1ull << 30) == 0) return fmt::format("{} GiB", b >> 30);
  if (b >= (1ull << 20) && b % (1ull << 20) == 0) return fmt::format("{} MiB", b >> 20);
  return fmt::format("{} bytes", b);
}

std::string read_first_match(const char* path, std::string_view key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) {
      auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string v = line.substr(colon + 1);
      v.erase(0, v.find_first_not_of(" \t"));
      return v;
    }
  }
  return {};
}

std::vector<std::string> own_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> args;
  std::string arg;
  while (std::getline(in, arg, '\0')) args.push_back(arg);
  return args;
}

std::string utc_timestamp() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// ---- running a peer program -----------------------------------------------------------------
struct SpawnResult {
  bool started = false;
  std::string spawn_error;  // why it could not start
  int exit_code = -1;       // -1 when killed by a signal
  std::string out, err;
  double ms = 0;            // wall clock from spawn to reaped
};

/// Runs argv[0] (searched in PATH when it has no '/'), stdin from /dev/null, stdout and
/// stderr captured; the wall clock covers fork/exec to waitpid.
SpawnResult spawn_capture(const std::vector<std::string>& argv) {
  SpawnResult r;
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    r.spawn_error = fmt::format("pipe: {}", std::strerror(errno));
    return r;
  }
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    r.spawn_error = fmt::format("pipe: {}", std::strerror(errno));
    close(out_pipe[0]);
    close(out_pipe[1]);
    return r;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);

  const auto t0 = Clock::now();
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, cargv[0], &fa, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (rc != 0) {
    r.spawn_error = fmt::format("cannot run {}: {}", argv[0], std::strerror(rc));
    close(out_pipe[0]);
    close(err_pipe[0]);
    return r;
  }
  r.started = true;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&r.out, &r.err};
  int open_fds = 2;
  char buf[65536];
  while (open_fds > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) close(f.fd);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// ---- the vocabulary and the text ---------------------------------------------------------
struct Word {
  std::uint32_t offset = 0;  // into Model::pool
  std::uint16_t length = 0;
  // occurrences of pattern k in the word as written mid-sentence [0] / capitalized [1]
  std::array<std::array<std::uint8_t, 2>, kPatterns> count{};
};

struct AliasTable {
  std::vector<std::uint32_t> threshold;  // keep index i when low 32 bits < threshold[i]
  std::vector<std::uint32_t> alias;

  explicit AliasTable(const std::vector<double>& weights) {
    const std::size_t n = weights.size();
    threshold.assign(n, 0);
    alias.assign(n, 0);
    double total = 0;
    for (double w : weights) total += w;
    std::vector<double> scaled(n);
    std::vector<std::uint32_t> small, large;
    for (std::size_t i = 0; i < n; ++i) {
      scaled[i] = weights[i] * static_cast<double>(n) / total;
      (scaled[i] < 1.0 ? small : large).push_back(static_cast<std::uint32_t>(i));
    }
    auto to_threshold = [](double p) {
      return static_cast<std::uint32_t>(std::min(4294967295.0, std::ldexp(p, 32)));
    };
    while (!small.empty() && !large.empty()) {
      const std::uint32_t s = small.back(), l = large.back();
      small.pop_back();
      threshold[s] = to_threshold(scaled[s]);
      alias[s] = l;
      scaled[l] -= 1.0 - scaled[s];
      if (scaled[l] < 1.0) {
        large.pop_back();
        small.push_back(l);
      }
    }
    for (auto i : large) threshold[i] = 0xffffffffu, alias[i] = i;
    for (auto i : small) threshold[i] = 0xffffffffu, alias[i] = i;
  }
  std::uint32_t sample(SplitMix64& rng) const {
    const std::uint64_t r = rng.next();
    const auto i = static_cast<std::uint32_t>(((r >> 32) * threshold.size()) >> 32);
    return static_cast<std::uint32_t>(r) < threshold[i] ? i : alias[i];
  }
};

struct Model {
  std::string pool;
  std::vector<Word> words;  // by rank
  Word rare;                // the planted word
  std::array<std::string, kPatterns> patterns;
  std::unique_ptr<AliasTable> zipf;
  std::string source;       // where the vocabulary came from
  std::size_t common = 0;     // leading ranks: common English words
  std::size_t from_list = 0;
};

void add_word(Model& m, std::string_view w) {
  Word word;
  word.offset = static_cast<std::uint32_t>(m.pool.size());
  word.length = static_cast<std::uint16_t>(w.size());
  m.pool.append(w);
  const std::string cap = capitalized(w);
  for (std::size_t k = 0; k < kPatterns; ++k) {
    word.count[k][0] = static_cast<std::uint8_t>(std::min<std::uint64_t>(255, count_occurrences(w, m.patterns[k])));
    word.count[k][1] = static_cast<std::uint8_t>(std::min<std::uint64_t>(255, count_occurrences(cap, m.patterns[k])));
  }
  m.words.push_back(word);
}

/// Pseudo-words of 1 to 4 syllables (mostly 1 or 2), deterministic; none contains the rare
/// word.
std::vector<std::string> pseudo_words(std::size_t how_many) {
  static constexpr std::array<std::string_view, 24> onsets = {
      "b", "c", "d", "f", "g", "h", "l", "m", "n", "p", "r", "s",
      "t", "v", "w", "br", "ch", "cl", "dr", "gr", "sh", "st", "th", "tr"};
  static constexpr std::array<std::string_view, 10> vowels = {"a", "e", "i", "o", "u",
                                                              "ea", "ou", "ai", "ee", "y"};
  static constexpr std::array<std::string_view, 16> codas = {"", "", "", "", "", "", "", "n",
                                                             "r", "s", "t", "l", "nd", "st",
                                                             "ng", "ck"};
  SplitMix64 rng{kSeed ^ 0x9e3779b97f4a7c15ull};
  std::unordered_set<std::string> seen;
  std::vector<std::string> out;
  while (out.size() < how_many) {
    const std::uint64_t r = rng.below(100);
    const int syllables = r < 30 ? 1 : r < 75 ? 2 : r < 95 ? 3 : 4;
    std::string w;
    for (int s = 0; s < syllables; ++s) {
      w += onsets[rng.below(onsets.size())];
      w += vowels[rng.below(vowels.size())];
      w += codas[rng.below(codas.size())];
    }
    if (w.size() > kMaxWordBytes || lower_ascii(w).find(lower_ascii(kRareWord)) != std::string::npos)
      continue;
    if (seen.insert(w).second) out.push_back(std::move(w));
  }
  return out;
}

Model build_model(const std::string& words_file) {
  Model m;
  m.patterns = {std::string(kRareWord), std::string(kCommonWord)};
  const std::string rare_lower = lower_ascii(kRareWord);
  std::unordered_set<std::string> seen;
  for (auto w : kCommonEnglish)
    if (seen.insert(std::string(w)).second) add_word(m, w);
  m.common = m.words.size();
  std::vector<std::string> rest;
  if (!words_file.empty()) {
    std::ifstream in(words_file, std::ios::binary);
    std::string line;
    while (in && std::getline(in, line)) {
      line = trim(line);
      if (line.empty() || line.size() > kMaxWordBytes) continue;
      if (line.find_first_of(" \t\f\v") != std::string::npos) continue;
      if (line.size() > 2 && line.ends_with("'s")) continue;  // wamerican lists every possessive
      if (lower_ascii(line).find(rare_lower) != std::string::npos) continue;  // keep it rare
      if (seen.insert(line).second) rest.push_back(line);
    }
    if (rest.size() >= 1000) {
      m.source = words_file;
    } else {
      fmt::print("note: word list '{}' unreadable or too small ({} usable words); "
                 "using the built-in pseudo-word generator\n", words_file, rest.size());
      rest.clear();
    }
  }
  if (rest.empty()) {
    m.source = "built-in pseudo-words";
    for (auto& w : pseudo_words(kPseudoWords))
      if (seen.insert(w).second) rest.push_back(std::move(w));
  }
  // Deterministic Fisher-Yates: the list's own (alphabetical) order must not set the ranks.
  SplitMix64 rng{kSeed ^ 0x5151515151515151ull};
  for (std::size_t i = rest.size(); i > 1; --i) std::swap(rest[i - 1], rest[rng.below(i)]);
  m.from_list = rest.size();
  for (auto& w : rest) add_word(m, w);

  std::vector<double> weights(m.words.size());
  for (std::size_t r = 0; r < weights.size(); ++r)
    weights[r] = 1.0 / std::pow(static_cast<double>(r + 1), kZipfExponent);
  m.zipf = std::make_unique<AliasTable>(weights);

  // The rare word is kept out of `words`: append it to the pool and describe it apart.
  add_word(m, kRareWord);
  m.rare = m.words.back();
  m.words.pop_back();
  return m;
}

struct Tally {
  std::array<std::uint64_t, kPatterns> occurrences{};
  std::array<std::uint64_t, kPatterns> lines_with{};
  std::uint64_t lines = 0, words = 0, planted = 0;
  void add(const Tally& o) {
    for (std::size_t k = 0; k < kPatterns; ++k) {
      occurrences[k] += o.occurrences[k];
      lines_with[k] += o.lines_with[k];
    }
    lines += o.lines, words += o.words, planted += o.planted;
  }
};

/// Fills out[0, len) with sentences; ends with '\n'. `plants` are sorted offsets in the chunk
/// at which the rare word replaces the next word drawn.
Tally generate_chunk(std::uint8_t* out, std::uint64_t len, std::uint64_t chunk_index,
                     const Model& m, std::span<const std::uint64_t> plants) {
  Tally t;
  SplitMix64 rng{kSeed + 0x632be59bd9b4e019ull * (chunk_index + 1)};
  std::uint8_t* p = out;
  std::uint8_t* const end = out + len;
  std::size_t line_len = 0;
  bool sentence_start = true;
  std::uint64_t words_left = 4 + rng.below(21);
  std::array<bool, kPatterns> line_has{};
  std::size_t next_plant = 0;
  const char* pool = m.pool.data();

  auto end_line = [&] {
    *p++ = '\n';
    ++t.lines;
    for (std::size_t k = 0; k < kPatterns; ++k) {
      t.lines_with[k] += line_has[k];
      line_has[k] = false;
    }
    line_len = 0;
  };

  for (;;) {
    const bool plant = next_plant < plants.size() &&
                       static_cast<std::uint64_t>(p - out) >= plants[next_plant];
    const Word& w = plant ? m.rare : m.words[m.zipf->sample(rng)];
    // separator, word, punctuation, paragraph break and the final newline must fit
    if (static_cast<std::uint64_t>(end - p) < w.length + 6u) break;
    if (plant) ++next_plant, ++t.planted;
    if (line_len > 0) {
      if (line_len + 1 + w.length + 1 > kLineWidth) {
        end_line();
      } else {
        *p++ = ' ';
        ++line_len;
      }
    }
    std::memcpy(p, pool + w.offset, w.length);
    const int form = sentence_start ? 1 : 0;
    if (sentence_start && *p >= 'a' && *p <= 'z') *p = static_cast<std::uint8_t>(*p - 32);
    for (std::size_t k = 0; k < kPatterns; ++k) {
      t.occurrences[k] += w.count[k][form];
      if (w.count[k][form]) line_has[k] = true;
    }
    p += w.length;
    line_len += w.length;
    ++t.words;
    sentence_start = false;
    if (--words_left == 0) {
      const std::uint64_t r = rng.below(100);
      *p++ = r < 85 ? '.' : (r < 93 ? '?' : '!');
      ++line_len;
      sentence_start = true;
      words_left = 4 + rng.below(21);
      if (rng.below(100) < 4) {  // paragraph: an empty line
        end_line();
        end_line();
      }
    } else if (rng.below(100) < 7) {
      *p++ = rng.below(4) ? ',' : ';';
      ++line_len;
    }
  }
  while (p < end - 1) *p++ = ' ';  // pad the chunk's last line (a few bytes at most)
  end_line();
  return t;
}

struct Text {
  std::unique_ptr<std::uint8_t[]> data;
  std::uint64_t size = 0;
  Tally tally;
  double seconds = 0;
  ByteSpan span() const { return {data.get(), static_cast<std::size_t>(size)}; }
};

Text generate_text(const Model& m, std::uint64_t bytes, int threads) {
  Text t;
  t.size = bytes;
  t.data = std::make_unique_for_overwrite<std::uint8_t[]>(bytes);
  const auto t0 = Clock::now();
  const std::uint64_t chunks = std::max<std::uint64_t>(1, bytes / kChunkBytes);
  auto chunk_begin = [&](std::uint64_t c) { return c * kChunkBytes; };
  auto chunk_len = [&](std::uint64_t c) {
    return c + 1 == chunks ? bytes - chunk_begin(c) : kChunkBytes;
  };
  // Plant offsets, chunk-local, kept clear of each chunk's end so each one is written.
  std::vector<std::vector<std::uint64_t>> plants(chunks);
  const std::uint64_t n_plants = std::min<std::uint64_t>(kPlants, std::max<std::uint64_t>(1, bytes / 1024));
  SplitMix64 rng{kSeed ^ 0xa5a5a5a5a5a5a5a5ull};
  for (std::uint64_t i = 0; i < n_plants; ++i) {
    const std::uint64_t pos = rng.below(bytes);
    const std::uint64_t c = std::min(pos / kChunkBytes, chunks - 1);
    plants[c].push_back(std::min(pos - chunk_begin(c), chunk_len(c) - 128));
  }
  for (auto& v : plants) std::sort(v.begin(), v.end());
  std::vector<Tally> tallies(chunks);
  core::parallel_for(chunks, threads, [&](std::size_t c) {
    tallies[c] = generate_chunk(t.data.get() + chunk_begin(c), chunk_len(c), c, m, plants[c]);
  });
  for (auto& x : tallies) t.tally.add(x);
  t.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return t;
}

// ---- temp directory -------------------------------------------------------------------------
struct TempDir {
  std::filesystem::path path;
  TempDir() = default;
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    if (path.empty()) return;
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

/// Creates the directory; returns an error message or "".
std::string make_temp_dir(TempDir& dir) {
  const char* env = std::getenv("TMPDIR");
  std::string base = (env && *env) ? env : "/tmp";
  std::string tmpl = base + "/warpmatch-bench-XXXXXX";
  if (!mkdtemp(tmpl.data()))
    return fmt::format("cannot create a temporary directory in {}: {}", base, std::strerror(errno));
  dir.path = tmpl;
  return {};
}

std::string write_file(const std::filesystem::path& path, ByteSpan bytes) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return fmt::format("cannot create {}: {}", path.string(), std::strerror(errno));
  std::uint64_t done = 0;
  while (done < bytes.size()) {
    const std::size_t piece = static_cast<std::size_t>(std::min<std::uint64_t>(bytes.size() - done, 64ull << 20));
    const ssize_t n = write(fd, bytes.data() + done, piece);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int e = n < 0 ? errno : EIO;
      close(fd);
      return fmt::format("cannot write {} ({} of {} bytes written): {}", path.string(), done,
                         bytes.size(), std::strerror(e));
    }
    done += static_cast<std::uint64_t>(n);
  }
  if (close(fd) != 0) return fmt::format("cannot write {}: {}", path.string(), std::strerror(errno));
  return {};
}

// ---- measurements ---------------------------------------------------------------------------
enum class Status { ok, skipped, failed };
std::string_view status_name(Status s) {
  return s == Status::ok ? "ok" : (s == Status::skipped ? "skipped" : "failed");
}

struct Row {
  std::string method;  // stable id used in JSON
  std::string label;   // human-readable
  std::size_t pattern = 0;
  Status status = Status::ok;
  std::string note;
  bool counts_lines = false;  // rg -c counts matching lines, not occurrences
  std::uint64_t count = 0, expected = 0;
  double median_ms = 0;
  std::vector<double> samples_ms;  // empty where the backend reports only the median
  double ratio_vs_rg = 0;          // rg's median / this median (> 1: faster than ripgrep)
  bool mismatch() const { return status == Status::ok && count != expected; }
};

/// One warm-up, then `repeats` timed runs; fn() returns the count.
template <class Fn>
void time_cpu(Row& row, int repeats, Fn&& fn) {
  fn();
  for (int i = 0; i < repeats; ++i) {
    const auto t0 = Clock::now();
    const std::uint64_t c = fn();
    row.samples_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    if (i == 0) row.count = c;
    else if (c != row.count) row.note = fmt::format("count changed between repeats ({} vs {})", row.count, c);
  }
  row.median_ms = support::median(row.samples_ms);
}

void run_rg(Row& row, const std::vector<std::string>& argv, int repeats) {
  std::uint64_t first = 0;
  for (int i = 0; i <= repeats; ++i) {  // i == 0: warm-up (file into the page cache)
    SpawnResult r = spawn_capture(argv);
    if (!r.started) {
      row.status = Status::failed;
      row.note = r.spawn_error;
      return;
    }
    // ripgrep: exit 0 = matches found, 1 = none (prints nothing with -c), 2 = error
    std::uint64_t c = 0;
    const std::string out = trim(r.out);
    if (r.exit_code == 1 && out.empty()) {
      c = 0;
    } else {
      auto [ptr, ec] = std::from_chars(out.data(), out.data() + out.size(), c);
      if (r.exit_code != 0 || ec != std::errc() || ptr != out.data() + out.size()) {
        row.status = Status::failed;
        row.note = fmt::format("rg exit {}: {}", r.exit_code, trim(r.err.empty() ? r.out : r.err));
        return;
      }
    }
    if (i == 0) {
      first = c;
      continue;
    }
    if (c != first) row.note = fmt::format("count changed between runs ({} vs {})", first, c);
    row.samples_ms.push_back(r.ms);
  }
  row.count = first;
  row.median_ms = support::median(row.samples_ms);
}

std::string fmt_num(double v, int decimals) {
  if (v <= 0 || !std::isfinite(v)) return "-";
  return fmt::format("{:.{}f}", v, decimals);
}

// The shared device description plus the L2 size.
json device_json(const DeviceInfo& d) {
  json j = support::device_json(d);
  j["l2_bytes"] = d.l2_bytes;
  return j;
}

int run(const BenchFindOptions& options) {
  if (options.text_bytes < kMinTextBytes) {
    fmt::print(stderr, "warpmatch bench find: error: --bytes must be at least {} (got {})\n",
               kMinTextBytes, options.text_bytes);
    return 2;
  }
  if (options.repeats < 1) {
    fmt::print(stderr, "warpmatch bench find: error: --repeats must be at least 1 (got {})\n",
               options.repeats);
    return 2;
  }
  const int hw = hardware_threads();
  const int cpu_threads = options.threads > 0 ? options.threads : hw;
  const std::string commit = support::git_commit(options.commit);
  const std::string cpu_model = read_first_match("/proc/cpuinfo", "model name");

  // ---- device ----
  std::vector<DeviceInfo> devices;
  std::string gpu_skip_reason;
  if (options.skip_gpu) {
    gpu_skip_reason = "--no-gpu given";
  } else {
    devices = cuda::devices();
    if (devices.empty())
      gpu_skip_reason = cuda::compiled() ? "no GPU visible to the CUDA runtime"
                                         : "this build has no CUDA backend";
  }
  const bool use_gpu = gpu_skip_reason.empty();
  const int gpu = use_gpu ? devices.front().ordinal : 0;  // the GPU rows use the first device

  // ---- peer ----
  const bool rg_wanted = !options.rg_path.empty() && options.rg_path != "none";
  std::string rg_version, rg_skip_reason;
  if (!rg_wanted) {
    rg_skip_reason = "--rg none given";
  } else {
    auto v = spawn_capture({options.rg_path, "--version"});
    if (!v.started || v.exit_code != 0)
      rg_skip_reason = v.started ? fmt::format("`{} --version` failed", options.rg_path) : v.spawn_error;
    else
      rg_version = trim(v.out.substr(0, v.out.find('\n')));
  }
  const bool use_rg = rg_skip_reason.empty();

  fmt::print("warpmatch bench find: exact search, {} of generated English-like text\n",
             format_bytes(options.text_bytes));
  fmt::print("  commit {}  |  host: {} hardware threads, {}\n", commit, hw,
             cpu_model.empty() ? "unknown CPU" : cpu_model);
  if (use_gpu) {
    const auto& d = devices.front();
    fmt::print("  GPU {}: {} (sm_{}{}, {} SMs, {} MHz, {:.1f} GiB)\n", d.ordinal, d.name,
               d.compute_major, d.compute_minor, d.multiprocessors, d.clock_mhz,
               static_cast<double>(d.global_memory_bytes) / (1ull << 30));
  } else {
    fmt::print("  NOTE: GPU rows skipped: {}\n", gpu_skip_reason);
  }
  if (use_rg)
    fmt::print("  peer: {} ({})\n", rg_version, options.rg_path);
  else
    fmt::print("  NOTE: ripgrep rows skipped: {}\n", rg_skip_reason);

  // ---- text ----
  const Model model = build_model(options.words_file);
  const Text text = generate_text(model, options.text_bytes, hw);
  fmt::print("  text: {} bytes, {} lines, {} words; vocabulary {} words ({} common English + {} "
             "from {}); generated in {:.2f} s\n",
             text.size, text.tally.lines, text.tally.words, model.words.size(),
             model.common, model.from_list, model.source, text.seconds);
  for (std::size_t k = 0; k < kPatterns; ++k)
    fmt::print("  pattern '{}': {} occurrences on {} lines{}\n", model.patterns[k],
               text.tally.occurrences[k], text.tally.lines_with[k],
               k == 0 ? fmt::format(" ({} planted)", text.tally.planted) : "");

  TempDir tmp;
  std::filesystem::path text_file;
  if (use_rg) {
    if (auto err = make_temp_dir(tmp); !err.empty()) {
      fmt::print(stderr, "warpmatch bench find: error: {}\n", err);
      return 2;
    }
    text_file = tmp.path / "text.txt";
    if (auto err = write_file(text_file, text.span()); !err.empty()) {
      fmt::print(stderr, "warpmatch bench find: error: {}\n", err);
      return 2;
    }
  }

  // ---- measurements ----
  std::vector<Row> rows;
  const auto bytes = text.size;
  for (std::size_t k = 0; k < kPatterns; ++k) {
    core::ExactPattern pattern;
    pattern.bytes.assign(model.patterns[k].begin(), model.patterns[k].end());
    const std::uint64_t expected = text.tally.occurrences[k];
    auto add = [&](std::string method, std::string label) -> Row& {
      Row r;
      r.method = std::move(method);
      r.label = std::move(label);
      r.pattern = k;
      r.expected = expected;
      rows.push_back(std::move(r));
      fmt::print("  measuring {:<30} '{}' ...\n", rows.back().label, model.patterns[k]);
      std::fflush(stdout);
      return rows.back();
    };
    auto finish = [&](Row& r) {
      if (r.status == Status::ok)
        fmt::print("    {} matches, median {:.3f} ms, {:.2f} GB/s{}\n", r.count, r.median_ms,
                   gb_per_s(bytes, r.median_ms), r.mismatch() ? "  <-- COUNT MISMATCH" : "");
      else
        fmt::print("    {}: {}\n", status_name(r.status), r.note);
      std::fflush(stdout);
    };
    auto gpu_row = [&](std::string method, std::string label, bool resident,
                       cuda::ExactAlgorithm algo) {
      Row& r = add(std::move(method), std::move(label));
      if (!use_gpu) {
        r.status = Status::skipped;
        r.note = gpu_skip_reason;
      } else {
        try {
          const cuda::ExactTiming t =
              resident ? cuda::bench_exact_resident(pattern, text.span(), algo, gpu, options.repeats)
                       : cuda::bench_exact_host_fed(pattern, text.span(), algo, gpu, options.repeats);
          r.median_ms = t.median_ms;
          r.count = t.count;
          r.note = resident ? "kernel time (CUDA events), median computed by the backend"
                            : "end to end incl. transfers (CUDA events), median computed by the backend";
        } catch (const std::exception& e) {
          r.status = Status::failed;
          r.note = e.what();
        }
      }
      finish(r);
    };
    gpu_row("gpu_resident_fast", "GPU resident (fast)", true, cuda::ExactAlgorithm::fast);
    gpu_row("gpu_host_fed_fast", "GPU host-fed (fast)", false, cuda::ExactAlgorithm::fast);
    gpu_row("gpu_resident_first_last", "GPU resident (first/last filter)", true,
            cuda::ExactAlgorithm::first_last);
    gpu_row("gpu_resident_prefix", "GPU resident (prefix filter)", true,
            cuda::ExactAlgorithm::prefix);
    gpu_row("gpu_resident_bf", "GPU resident (bf, paper 003)", true, cuda::ExactAlgorithm::bf);

    auto cpu_row = [&](std::string method, std::string label, int threads) {
      Row& r = add(std::move(method), std::move(label));
      const core::StartsSink none = [](std::span<const std::uint64_t>) { return true; };
      try {
        time_cpu(r, options.repeats, [&] {
          return cpu::exact_scan(pattern, text.span(), cpu::ExactAlgorithm::fast, threads, true, none);
        });
      } catch (const std::exception& e) {
        r.status = Status::failed;
        r.note = e.what();
      }
      finish(r);
    };
    cpu_row("cpu_fast_all_threads", fmt::format("CPU fast, {} threads", cpu_threads), cpu_threads);
    cpu_row("cpu_fast_1_thread", "CPU fast, 1 thread", 1);

    auto rg_row = [&](std::string method, std::string label, bool lines) {
      Row& r = add(std::move(method), std::move(label));
      r.counts_lines = lines;
      if (lines) r.expected = text.tally.lines_with[k];
      if (!use_rg) {
        r.status = Status::skipped;
        r.note = rg_skip_reason;
      } else {
        run_rg(r, {options.rg_path, "--no-config", "-F", lines ? "-c" : "--count-matches", "-j1",
                   "-e", model.patterns[k], text_file.string()},
               options.repeats);
        if (r.status == Status::ok && r.note.empty())
          r.note = lines ? "counts matching lines; wall clock around fork/exec, file in page cache"
                         : "counts occurrences; wall clock around fork/exec, file in page cache";
      }
      finish(r);
    };
    rg_row("rg_c", "ripgrep -F -c -j1 (lines)", true);
    rg_row("rg_count_matches", "ripgrep -F --count-matches -j1", false);
  }

  // ---- ratios ----
  std::array<double, kPatterns> rg_ms{};  // best ripgrep median per pattern
  for (const auto& r : rows)
    if (r.method.rfind("rg_", 0) == 0 && r.status == Status::ok && r.median_ms > 0)
      rg_ms[r.pattern] = rg_ms[r.pattern] > 0 ? std::min(rg_ms[r.pattern], r.median_ms) : r.median_ms;
  for (auto& r : rows)
    if (r.status == Status::ok && r.median_ms > 0 && rg_ms[r.pattern] > 0)
      r.ratio_vs_rg = rg_ms[r.pattern] / r.median_ms;

  // ---- table ----
  fmt::print("\n{:<30} | {:<8} | {:>12} | {:>10} | {:>9} | {:>8}\n", "method", "pattern",
             "matches", "median ms", "GB/s", "vs rg");
  fmt::print("{:-<30}-+-{:-<8}-+-{:->12}-+-{:->10}-+-{:->9}-+-{:->8}\n", "", "", "", "", "", "");
  int mismatches = 0, failures = 0;
  for (const auto& r : rows) {
    const std::string& pat = model.patterns[r.pattern];
    if (r.status != Status::ok) {
      fmt::print("{:<30} | {:<8} | {}: {}\n", r.label, pat, status_name(r.status), r.note);
      failures += r.status == Status::failed;
      continue;
    }
    mismatches += r.mismatch();
    fmt::print("{:<30} | {:<8} | {:>12} | {:>10} | {:>9} | {:>8}{}\n", r.label, pat,
               fmt::format("{}{}", r.count, r.counts_lines ? "L" : ""), fmt_num(r.median_ms, 3),
               fmt_num(gb_per_s(bytes, r.median_ms), 2), fmt_ratio(r.ratio_vs_rg),
               r.mismatch() ? fmt::format("  <-- MISMATCH: expected {}", r.expected) : "");
  }
  fmt::print("(L = matching lines, as `rg -c` counts; 'vs rg' = best ripgrep median / this median, "
             "> 1 is faster; GB/s = 1e9 bytes/s)\n");

  // ---- targets ----
  json targets = json::array();
  auto find_row = [&](std::string_view method, std::size_t k) -> const Row* {
    for (const auto& r : rows)
      if (r.method == method && r.pattern == k) return &r;
    return nullptr;
  };
  fmt::print("\ntargets (PERF.md):\n");
  for (std::size_t k = 0; k < kPatterns; ++k) {
    const std::string& pat = model.patterns[k];
    auto target = [&](std::string name, const Row* r, double value, double goal, std::string unit,
                      std::string what) {
      const bool have = r && r->status == Status::ok && !r->mismatch() && value > 0;
      json t = {{"name", name}, {"pattern", pat}, {"target", goal}, {"unit", unit},
                {"value", have ? json(value) : json(nullptr)},
                {"met", have ? json(value >= goal) : json(nullptr)}};
      targets.push_back(t);
      const std::string shown = !have ? std::string("-")
                                : unit == "x" ? fmt_ratio(value) : fmt_num(value, 2) + " " + unit;
      const std::string goal_shown = unit == "x" ? fmt::format("{}x", goal) : fmt::format("{} {}", goal, unit);
      fmt::print("  {:<40} {:<10} {:>14}  (target >= {})  {}\n", what, fmt::format("'{}'", pat),
                 shown, goal_shown,
                 !have ? (!r                          ? std::string("n/a")
                          : r->mismatch()                ? std::string("COUNT MISMATCH")
                          : r->status != Status::ok      ? std::string(status_name(r->status))
                                                         : std::string("n/a (no ripgrep)"))
                       : (value >= goal ? "MET" : "NOT MET"));
    };
    const Row* res = find_row("gpu_resident_fast", k);
    target("gpu_resident_exact_GBps", res, res ? gb_per_s(bytes, res->median_ms) : 0,
           kResidentTargetGBps, "GB/s", "GPU resident, fast");
    const Row* hf = find_row("gpu_host_fed_fast", k);
    target("gpu_host_fed_exact_GBps", hf, hf ? gb_per_s(bytes, hf->median_ms) : 0,
           kHostFedTargetGBps, "GB/s", "GPU host-fed, fast (transfers included)");
    const Row* c1 = find_row("cpu_fast_1_thread", k);
    target("cpu_1_thread_vs_rg", c1, c1 ? c1->ratio_vs_rg : 0, 1.0, "x",
           "CPU 1 thread vs ripgrep (1 thread)");
  }

  // ---- verdict ----
  fmt::print("\n");
  if (mismatches)
    fmt::print("!!! COUNT MISMATCH in {} row(s): methods disagree with the generator's exact "
               "count — see '<-- MISMATCH' above !!!\n", mismatches);
  if (failures) fmt::print("!!! {} row(s) FAILED (see the table) !!!\n", failures);
  const int exit_status = (mismatches || failures) ? 2 : 0;

  // ---- JSON ----
  json j;
  j["benchmark"] = "find";
  j["schema_version"] = 1;
  j["timestamp_utc"] = utc_timestamp();
  j["commit"] = commit;
  j["command_line"] = own_command_line();
  j["options"] = {{"text_bytes", options.text_bytes}, {"repeats", options.repeats},
                  {"threads", options.threads},       {"cpu_threads_used", cpu_threads},
                  {"json_path", options.json_path},   {"rg_path", options.rg_path},
                  {"words_file", options.words_file}, {"commit", options.commit},
                  {"skip_gpu", options.skip_gpu}};
  const BuildInfo bi = build_info();
  j["build"] = {{"version", bi.version}, {"cuda_compiled", bi.cuda_compiled},
                {"cuda_architectures", bi.cuda_architectures},
                {"cuda_runtime_version", bi.cuda_runtime_version}};
  utsname un{};
  uname(&un);
  j["host"] = {{"hardware_threads", hw}, {"cpu_model", cpu_model},
               {"memory", read_first_match("/proc/meminfo", "MemTotal")},
               {"kernel", std::string(un.release)}, {"hostname", std::string(un.nodename)}};
  if (use_gpu) {
    j["device"] = device_json(devices.front());
    j["devices"] = json::array();
    for (const auto& d : devices) j["devices"].push_back(device_json(d));
  } else {
    j["device"] = nullptr;
    j["device_note"] = gpu_skip_reason;
  }
  j["peer"] = {{"name", "ripgrep"}, {"path", options.rg_path},
               {"version", use_rg ? json(rg_version) : json(nullptr)},
               {"note", use_rg ? json("one file = one thread; -j1; timed around fork/exec; "
                                      "file warm in the page cache")
                               : json(rg_skip_reason)}};
  j["text"] = {{"bytes", text.size},
               {"lines", text.tally.lines},
               {"words", text.tally.words},
               {"vocabulary", model.words.size()},
               {"vocabulary_source", model.source},
               {"common_english_words", model.common},
               {"zipf_exponent", kZipfExponent},
               {"line_width", kLineWidth},
               {"seed", kSeed},
               {"generation_seconds", text.seconds}};
  j["patterns"] = json::array();
  for (std::size_t k = 0; k < kPatterns; ++k)
    j["patterns"].push_back({{"pattern", model.patterns[k]},
                             {"kind", k == 0 ? "rare (planted)" : "common"},
                             {"occurrences", text.tally.occurrences[k]},
                             {"lines_with_match", text.tally.lines_with[k]},
                             {"planted", k == 0 ? json(text.tally.planted) : json(nullptr)}});
  j["rows"] = json::array();
  for (const auto& r : rows) {
    const bool ok = r.status == Status::ok;
    j["rows"].push_back({{"method", r.method},
                         {"label", r.label},
                         {"pattern", model.patterns[r.pattern]},
                         {"status", status_name(r.status)},
                         {"note", r.note},
                         {"count", ok ? json(r.count) : json(nullptr)},
                         {"count_unit", r.counts_lines ? "lines" : "occurrences"},
                         {"expected", r.expected},
                         {"count_ok", ok ? json(!r.mismatch()) : json(nullptr)},
                         {"median_ms", ok ? json(r.median_ms) : json(nullptr)},
                         {"samples_ms", r.samples_ms},
                         {"repeats", options.repeats},
                         {"gb_per_s", ok ? json(gb_per_s(bytes, r.median_ms)) : json(nullptr)},
                         {"ratio_vs_rg", r.ratio_vs_rg > 0 ? json(r.ratio_vs_rg) : json(nullptr)}});
  }
  json ratios = json::object();
  for (std::size_t k = 0; k < kPatterns; ++k) {
    json pr = json::object();
    pr["rg_best_median_ms"] = rg_ms[k] > 0 ? json(rg_ms[k]) : json(nullptr);
    for (const auto& r : rows)
      if (r.pattern == k && r.ratio_vs_rg > 0) pr[r.method + "_vs_rg"] = r.ratio_vs_rg;
    const Row* fast = find_row("gpu_resident_fast", k);
    const Row* bf = find_row("gpu_resident_bf", k);
    if (fast && bf && fast->status == Status::ok && bf->status == Status::ok && fast->median_ms > 0)
      pr["gpu_fast_vs_bf"] = bf->median_ms / fast->median_ms;
    const Row* call = find_row("cpu_fast_all_threads", k);
    const Row* c1 = find_row("cpu_fast_1_thread", k);
    if (call && c1 && call->status == Status::ok && c1->status == Status::ok && call->median_ms > 0)
      pr["cpu_all_threads_vs_1_thread"] = c1->median_ms / call->median_ms;
    ratios[model.patterns[k]] = pr;
  }
  j["ratios"] = ratios;
  j["targets"] = targets;
  j["mismatches"] = mismatches;
  j["failures"] = failures;
  j["exit_status"] = exit_status;

  if (!options.json_path.empty()) {
    std::ofstream out(options.json_path);
    out << j.dump(2) << '\n';
    out.close();
    if (!out) {
      fmt::print(stderr, "warpmatch bench find: error: cannot write JSON to {}\n", options.json_path);
      return 2;
    }
    fmt::print("JSON written to {}\n", options.json_path);
  }
  return exit_status;
}

}  // namespace

int run_bench_find(const BenchFindOptions& options) {
  try {
    return run(options);
  } catch (const std::exception& e) {
    fmt::print(stderr, "warpmatch bench find: error: {}\n", e.what());
    return 2;
  }
}

}  // namespace warpmatch::bench
