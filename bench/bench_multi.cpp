// `warpmatch-bench multi` — multi-pattern exact search, every method counting the same
// occurrences in one run (counts cross-checked; a disagreement fails the benchmark).
//
// Workloads:
//   paper-N   seed paper 002's experiment: 20 MB of random a–z text, N = 100, 500, 1000, 2000
//             random literals of length 4.
//   large-N   1 GiB (--bytes) of random a–z text, N = 1000 and 100,000 literals of lengths 4–32
//             (half cut from the text so that they occur, half random).
//   english   every word of /usr/share/dict/words in English prose (the licence texts of
//             /usr/share/common-licenses, repeated to --english-bytes).
//   dna-1000  1 GiB (--bytes) of random ACGT, 1000 k-mers of lengths 12–24 (half cut from the
//             text): the sets that take the 8-byte scan bitmap (core::PrefixIndex::key8), as
//             every 4-byte prefix filter passes nearly every start of DNA.
//   dna-100000  the same text, 100,000 k-mers of lengths 20–32 (half cut from it): every ACGT 8-mer is a prefix,
//             so the 8-byte bitmap passes every start too; the long-key scan bitmap
//             (core::PrefixIndex::long_key, 16 bytes per start here) is what filters.
// Methods: GPU fast resident (text on the device, kernel time), GPU fast host-fed (pinned host
// text streamed, transfers included), each fast kernel resident where the set allows a
// choice (no pattern shorter than 4: tile, scan + block / warp queue, scan + per-thread
// verification), GPU mbndm resident (the paper's kernel and thread configuration), CPU fast
// on all threads (and on 1 thread for the paper's sets), CPU mbndm
// on 1 thread (the paper's CPU baseline), Hyperscan 5 block mode in literal mode on 1 thread
// and on all threads (text split with an overlap of longest pattern - 1, each thread with
// its own scratch; occurrences counted by start, so none twice; on the large texts the
// one-core row covers the first 16 MiB only). Sets of 10,000 patterns or more are timed once
// per method. Compile times of every engine are reported. Prints a table and writes JSON.
#include <sys/utsname.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/kernel_timing.hpp"
#include "bench/bench_multi.hpp"
#include "bench/bench_support.hpp"
#include "core/chunking.hpp"
#include "core/parallel.hpp"
#include "warpmatch/multi.hpp"

#ifdef WARPMATCH_HAVE_HYPERSCAN
#include <hs.h>
#endif

namespace warpmatch::bench {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
using support::device_json;
using support::git_commit;
using support::median_ms;
using support::ms_since;

constexpr std::size_t kHyperscanOneCoreBytes = 16u << 20;
// Sets this large are measured once per method (their CPU rows take seconds each).
constexpr std::size_t kSinglePassPatterns = 10000;

std::uint64_t splitmix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Random lowercase text, generated in parallel (splitmix64 per 1 MiB block: reproducible).
// Each block's stream starts at a hashed state: started at seed ^ (golden ratio x (b + 1)),
// most blocks were the stream of another shifted by a few bytes (the increment is that same
// constant), so 1 GiB held about 1 MiB of distinct text (until the seventeenth session).
std::string random_lowercase(std::uint64_t bytes, std::uint64_t seed, int threads) {
  std::string text(bytes, 'a');
  const std::uint64_t block = 1 << 20;
  core::parallel_for((bytes + block - 1) / block, threads, [&](std::size_t b) {
    std::uint64_t x = splitmix64(splitmix64(seed) ^ b);
    const std::uint64_t end = std::min(bytes, (b + 1) * block);
    for (std::uint64_t i = b * block; i < end;) {
      x += 0x9E3779B97F4A7C15ull;
      std::uint64_t z = x;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      z ^= z >> 31;
      for (int k = 0; k < 4 && i < end; ++k, ++i) {
        text[i] = static_cast<char>('a' + (z & 0xffff) % 26);
        z >>= 16;
      }
    }
  });
  return text;
}

std::vector<std::string> random_literals(std::size_t count, std::size_t min_len,
                                         std::size_t max_len, const std::string& text,
                                         std::uint64_t seed, bool half_from_text) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> len_d(min_len, max_len);
  std::vector<std::string> out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t len = len_d(rng);
    if (half_from_text && (i & 1) && text.size() > len) {
      out.push_back(text.substr(rng() % (text.size() - len), len));
    } else {
      std::string s(len, 'a');
      for (auto& c : s) c = static_cast<char>('a' + rng() % 26);
      out.push_back(std::move(s));
    }
  }
  return out;
}

std::string english_text(std::uint64_t bytes) {
  std::string base;
  for (const char* p : {"/usr/share/common-licenses/GPL-3", "/usr/share/common-licenses/GPL-2",
                        "/usr/share/common-licenses/Apache-2.0", "/usr/share/common-licenses/LGPL-3",
                        "/usr/share/common-licenses/MPL-2.0"}) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    base += ss.str();
  }
  if (base.empty()) return {};
  std::string text;
  text.reserve(bytes);
  while (text.size() < bytes) text.append(base, 0, std::min<std::uint64_t>(base.size(), bytes - text.size()));
  return text;
}

std::vector<std::string> word_list(const std::string& path) {
  std::vector<std::string> words;
  std::ifstream f(path);
  for (std::string w; std::getline(f, w);)
    if (!w.empty()) words.push_back(w);
  return words;
}

// ---- Hyperscan, the peer --------------------------------------------------------------

#ifdef WARPMATCH_HAVE_HYPERSCAN
class HyperscanPeer {
 public:
  explicit HyperscanPeer(const std::vector<std::string>& patterns) {
    std::vector<const char*> exprs;
    std::vector<std::size_t> lens;
    std::vector<unsigned> flags(patterns.size(), 0), ids(patterns.size());
    for (std::size_t i = 0; i < patterns.size(); ++i) {
      exprs.push_back(patterns[i].data());
      lens.push_back(patterns[i].size());
      ids[i] = static_cast<unsigned>(i);
      lengths_.push_back(patterns[i].size());
      max_len_ = std::max<std::uint64_t>(max_len_, patterns[i].size());
    }
    const auto t0 = Clock::now();
    hs_compile_error_t* err = nullptr;
    if (hs_compile_lit_multi(exprs.data(), flags.data(), ids.data(), lens.data(),
                             static_cast<unsigned>(exprs.size()), HS_MODE_BLOCK, nullptr, &db_,
                             &err) != HS_SUCCESS) {
      error_ = err && err->message ? err->message : "hs_compile_lit_multi failed";
      hs_free_compile_error(err);
      db_ = nullptr;
      return;
    }
    hs_alloc_scratch(db_, &scratch_);
    compile_ms_ = ms_since(t0);
    std::size_t size = 0;
    hs_database_size(db_, &size);
    memory_bytes_ = size;
  }
  ~HyperscanPeer() {
    if (scratch_) hs_free_scratch(scratch_);
    if (db_) hs_free_database(db_);
  }
  bool ok() const { return db_ != nullptr; }
  const std::string& error() const { return error_; }
  double compile_ms() const { return compile_ms_; }
  std::uint64_t memory_bytes() const { return memory_bytes_; }

  // Occurrences whose start lies in the owned parts; parts of at most 1 GiB (hs lengths are
  // 32-bit) overlapping by longest - 1.
  std::uint64_t count(std::string_view text, int threads) const {
    const std::uint64_t n = text.size();
    const std::uint64_t part = std::min<std::uint64_t>(
        1ull << 30, std::max<std::uint64_t>(1, (n + threads - 1) / threads));
    const auto parts = core::plan_chunks(n, part, max_len_ - 1);
    std::vector<std::uint64_t> counts(parts.size(), 0);
    core::parallel_for(parts.size(), threads, [&](std::size_t i) {
      hs_scratch_t* mine = nullptr;
      hs_clone_scratch(scratch_, &mine);
      struct Ctx {
        const std::uint64_t* lengths;
        std::uint64_t owned;
        std::uint64_t count;
      } ctx{lengths_.data(), parts[i].owned_end - parts[i].begin, 0};
      auto on_match = [](unsigned id, unsigned long long, unsigned long long to, unsigned,
                         void* c) -> int {
        auto* x = static_cast<Ctx*>(c);
        if (to - x->lengths[id] < x->owned) ++x->count;
        return 0;
      };
      hs_scan(db_, text.data() + parts[i].begin,
              static_cast<unsigned>(parts[i].read_end - parts[i].begin), 0, mine, on_match, &ctx);
      hs_free_scratch(mine);
      counts[i] = ctx.count;
    });
    std::uint64_t total = 0;
    for (auto c : counts) total += c;
    return total;
  }

 private:
  hs_database_t* db_ = nullptr;
  hs_scratch_t* scratch_ = nullptr;
  std::vector<std::uint64_t> lengths_;
  std::uint64_t max_len_ = 0;
  double compile_ms_ = 0;
  std::uint64_t memory_bytes_ = 0;
  std::string error_;
};
#endif

// ---- the run ----------------------------------------------------------------------------

struct Row {
  std::string workload, method;
  double ms = 0;          // median
  double compile_ms = 0;  // of the engine this row used
  std::uint64_t count = 0;
  std::uint64_t bytes = 0;
  std::uint64_t memory_bytes = 0;
  bool prefix_only = false;  // measured on a prefix of the text: its count is not compared
  double gbps() const { return ms > 0 ? bytes / (ms * 1e6) : 0; }
};

class Runner {
 public:
  explicit Runner(const BenchMultiOptions& o) : o_(o) {
    threads_ = o.threads > 0 ? o.threads : hardware_threads();
    gpu_ = !o.skip_gpu && !cuda_devices().empty();
  }

  bool run_workload(const std::string& name, const std::string& text,
                    const std::vector<std::string>& patterns, bool paper, bool gpu_mbndm) {
    fmt::print("-- {}: {} patterns, {:.1f} MB of text\n", name, patterns.size(), text.size() / 1e6);
    std::fflush(stdout);
    const ByteSpan bytes = as_bytes(text);
    auto add = [&](std::string method, double ms, double compile_ms, std::uint64_t count,
                   std::uint64_t memory, std::uint64_t bytes_searched = 0) {
      rows_.push_back({name, std::move(method), ms, compile_ms, count,
                       bytes_searched ? bytes_searched : text.size(), memory});
      const Row& r = rows_.back();
      fmt::print("   {:<34} {:>10.3f} ms {:>10.2f} GB/s  count {:>12}  compile {:>9.2f} ms\n",
                 r.method, r.ms, r.gbps(), r.count, r.compile_ms);
      std::fflush(stdout);
    };
    const int reps = patterns.size() >= kSinglePassPatterns ? 1 : o_.repeats;

    if (gpu_) {
      using kernel_timing::MultiKernel;
      for (const MultiKernel algo : {MultiKernel::fast, MultiKernel::mbndm}) {
        if (algo == MultiKernel::mbndm && !gpu_mbndm) continue;
        const auto t0 = Clock::now();
        const kernel_timing::MultiTables tables(patterns, {algo}, 0);
        const double compile = ms_since(t0);
        const char* label = algo == MultiKernel::fast ? "gpu fast" : "gpu mbndm (paper)";
        const int r = algo == MultiKernel::mbndm && !paper ? 1 : reps;
        const auto resident = tables.resident(bytes, r);
        add(std::string(label) + " resident", resident.median_ms, compile, resident.count, tables.device_bytes());
        if (algo == MultiKernel::fast || paper) {
          const auto fed = tables.host_fed(bytes, r);
          add(std::string(label) + " host-fed", fed.median_ms, compile, fed.count, tables.device_bytes());
        }
        if (algo == MultiKernel::fast) {
          // Every fast kernel, resident, for comparison.
          for (auto [kernel, name] : {std::pair{MultiKernel::fast_tile, "tile"},
                                      std::pair{MultiKernel::fast_scan_block_queue, "scan+block queue"},
                                      std::pair{MultiKernel::fast_scan_warp_queue, "scan+warp queue"},
                                      std::pair{MultiKernel::fast_scan_per_thread, "scan+per thread"},
                                      std::pair{MultiKernel::fast_scan_lane_filter, "scan+lane filter"},
                                      std::pair{MultiKernel::fast_scan_key8, "scan+8-byte keys"},
                                      std::pair{MultiKernel::fast_scan_long_key, "scan+long keys"}}) {
            const kernel_timing::MultiTables variant(patterns, {kernel}, 0);
            const auto t = variant.resident(bytes, r);
            add(fmt::format("gpu fast/{} resident", name), t.median_ms, compile, t.count, variant.device_bytes());
          }
          // The pair scan's table (entries, wide or narrow) and grid; its defaults are 2^12
          // wide entries and 5 blocks per SM.
          struct PairConfig {
            int bits, blocks;
            bool wide;
          };
          for (const PairConfig c : {PairConfig{12, 5, true}, PairConfig{12, 4, true}, PairConfig{13, 3, true},
                                     PairConfig{13, 5, false}, PairConfig{13, 4, false}}) {
            const kernel_timing::MultiTables variant(
                patterns, {MultiKernel::fast_scan_pair, c.bits, c.blocks, /*pair_narrow=*/!c.wide}, 0);
            const auto t = variant.resident(bytes, r);
            add(fmt::format("gpu fast/scan+pair {} 2^{} x{} resident", c.wide ? "wide" : "narrow", c.bits,
                            c.blocks),
                t.median_ms, compile,
                t.count, variant.device_bytes());
          }
        }
      }
    }
    {
      MultiOptions opt;
      opt.backend = Backend::cpu;
      opt.threads = threads_;
      const auto m = MultiMatcher::compile(patterns, opt);
      std::uint64_t count = 0;
      const double ms = median_ms(reps, [&] { count = m.count(bytes); });
      add(fmt::format("cpu fast ({} threads)", threads_), ms, m.compile_stats().seconds * 1e3, count,
          m.compile_stats().memory_bytes);
      if (paper) {
        opt.threads = 1;
        const auto one = MultiMatcher::compile(patterns, opt);
        const double ms1 = median_ms(reps, [&] { count = one.count(bytes); });
        add("cpu fast (1 thread)", ms1, one.compile_stats().seconds * 1e3, count,
            one.compile_stats().memory_bytes);
        opt.algorithm = "mbndm";
        const auto mb = MultiMatcher::compile(patterns, opt);
        const double msm = median_ms(1, [&] { count = mb.count(bytes); });
        add("cpu mbndm (paper, 1 thread)", msm, mb.compile_stats().seconds * 1e3, count,
            mb.compile_stats().memory_bytes);
      }
    }
#ifdef WARPMATCH_HAVE_HYPERSCAN
    if (!o_.skip_hyperscan) {
      HyperscanPeer hs(patterns);
      if (!hs.ok()) {
        fmt::print("   hyperscan refused the set: {}\n", hs.error());
      } else {
        std::uint64_t count = 0;
        const double all = median_ms(reps, [&] { count = hs.count(text, threads_); });
        add(fmt::format("hyperscan ({} threads)", threads_), all, hs.compile_ms(), count,
            hs.memory_bytes());
        // One core over 1 GiB with 100,000 literals would take minutes: the large texts are
        // measured on their first kHyperscanOneCoreBytes (throughput is what is compared).
        const std::string_view part(text.data(), std::min<std::size_t>(text.size(), kHyperscanOneCoreBytes));
        const double one = median_ms(part.size() < text.size() ? 1 : reps,
                                     [&] { count = hs.count(part, 1); });
        add("hyperscan (1 thread)", one, hs.compile_ms(), count, hs.memory_bytes(), part.size());
        if (part.size() < text.size()) {
          rows_.back().prefix_only = true;
          fmt::print("   (hyperscan 1 thread: first {:.0f} MB only)\n", part.size() / 1e6);
        }
      }
    }
#endif
    // Every method must have counted the same occurrences.
    bool agree = true;
    const Row* reference = nullptr;
    for (const Row& r : rows_)
      if (r.workload == name && !r.prefix_only) {
        if (!reference) reference = &r;
        else if (r.count != reference->count) agree = false;
      }
    if (!agree) {
      fmt::print("   ERROR: methods disagree on the number of occurrences\n");
      failed_ = true;
    }
    return agree;
  }

  const Row* find(const std::string& workload, const std::string& prefix) const {
    for (const Row& r : rows_)
      if (r.workload == workload && r.method.rfind(prefix, 0) == 0) return &r;
    return nullptr;
  }

  const BenchMultiOptions& o_;
  int threads_ = 1;
  bool gpu_ = false;
  bool failed_ = false;
  std::vector<Row> rows_;
};

}  // namespace

int run_bench_multi(const BenchMultiOptions& o) {
  const auto t_start = Clock::now();
  Runner run(o);
  const std::string commit = git_commit(o.commit);
  const auto devices = cuda_devices();
  utsname host{};
  ::uname(&host);
  fmt::print("warpmatch-bench multi — commit {} — host {} ({} threads) — device {}\n", commit,
             host.nodename, run.threads_, devices.empty() ? "none" : devices.front().name);

  // The paper's experiment: 20 MB, 100..2000 literals of length 4.
  const std::string paper_text = random_lowercase(o.paper_bytes, 2, run.threads_);
  for (std::size_t n : {100u, 500u, 1000u, 2000u})
    run.run_workload("paper-" + std::to_string(n), paper_text,
                     random_literals(n, 4, 4, paper_text, 1000 + n, false), true, true);
  // 1 GiB with 1000 and 100,000 literals of lengths 4..32.
  {
    const std::string text = random_lowercase(o.text_bytes, 3, run.threads_);
    run.run_workload("large-1000", text, random_literals(1000, 4, 32, text, 7, true), false, true);
    run.run_workload("large-100000", text, random_literals(100000, 4, 32, text, 8, true), false, false);
  }
  // DNA k-mers in random DNA: the same text mapped to ACGT.
  {
    std::string text = random_lowercase(o.text_bytes, 5, run.threads_);
    core::parallel_for((text.size() + (1 << 20) - 1) >> 20, run.threads_, [&](std::size_t b) {
      for (std::size_t i = b << 20; i < std::min(text.size(), (b + 1) << 20); ++i) text[i] = "ACGT"[text[i] & 3];
    });
    // The random half (lowercase letters) mapped as the text was; the half cut from the text
    // is ACGT already and must stay as it is (mapped again it no longer occurred: before the
    // seventeenth session dna-1000 counted only chance occurrences).
    auto to_dna = [](std::vector<std::string> set) {
      for (auto& k : set)
        for (auto& c : k)
          if (c >= 'a' && c <= 'z') c = "ACGT"[c & 3];
      return set;
    };
    run.run_workload("dna-1000", text, to_dna(random_literals(1000, 12, 24, text, 9, true)), false, false);
    run.run_workload("dna-100000", text, to_dna(random_literals(100000, 20, 32, text, 10, true)), false, false);
  }
  // English words in English text.
  {
    auto words = word_list(o.words_file);
    // Evenly spaced over the (alphabetical) list, so that short and long words both stay;
    // Hyperscan's compile time grows fast with the set, which bounds the default.
    if (o.english_words > 0 && words.size() > o.english_words) {
      std::vector<std::string> some;
      for (std::size_t i = 0; i < o.english_words; ++i)
        some.push_back(words[i * words.size() / o.english_words]);
      words = std::move(some);
    }
    const std::string text = english_text(o.english_bytes);
    if (words.empty() || text.empty())
      fmt::print("-- english: skipped (no {} or no licence texts)\n", o.words_file);
    else
      run.run_workload("english", text, words, false, false);
  }

  // Ratios and targets.
  json ratios = json::array(), targets = json::array();
  fmt::print("\nratios\n");
  auto ratio = [&](const std::string& workload, const std::string& a, const std::string& b) {
    const Row* x = run.find(workload, a);
    const Row* y = run.find(workload, b);
    if (!x || !y || y->gbps() <= 0) return -1.0;
    const double r = x->gbps() / y->gbps();  // throughput: rows may cover different bytes
    fmt::print("   {:<14} {:<30} vs {:<28} {:>9.2f}x\n", workload, x->method, y->method, r);
    ratios.push_back({{"workload", workload}, {"method", x->method}, {"peer", y->method}, {"speedup", r}});
    return r;
  };
  for (const char* w : {"paper-100", "paper-500", "paper-1000", "paper-2000"}) {
    ratio(w, "gpu mbndm (paper) host-fed", "cpu mbndm (paper");
    ratio(w, "gpu fast resident", "hyperscan (");
    ratio(w, "cpu fast (1 thread)", "hyperscan (1 thread)");
  }
  for (const char* w : {"large-1000", "large-100000", "english", "dna-1000", "dna-100000"}) {
    ratio(w, "gpu fast resident", "hyperscan (");
    ratio(w, "gpu fast host-fed", "hyperscan (");
    ratio(w, "cpu fast", "hyperscan (");
  }
  fmt::print("\ntargets\n");
  auto target = [&](const std::string& what, double value, double goal, const std::string& unit) {
    const bool met = value >= goal;
    fmt::print("   {:<58} {:>10.2f} {} (target >= {}) {}\n", what, value, unit, goal,
               value < 0 ? "not measured" : (met ? "MET" : "NOT MET"));
    targets.push_back({{"target", what}, {"value", value}, {"goal", goal}, {"unit", unit},
                       {"met", value >= 0 && met}});
  };
  const Row* res = run.find("large-1000", "gpu fast resident");
  const Row* fed = run.find("large-1000", "gpu fast host-fed");
  target("1000 literals, 1 GiB, GPU resident", res ? res->gbps() : -1, 1000, "GB/s");
  target("1000 literals, 1 GiB, GPU resident vs Hyperscan all cores",
         ratio("large-1000", "gpu fast resident", "hyperscan ("), 100, "x");
  target("1000 literals, 1 GiB, host-fed", fed ? fed->gbps() : -1, 45, "GB/s");
  for (const char* w : {"large-1000", "large-100000", "english", "dna-1000", "dna-100000"})
    target(std::string(w) + ": CPU fast vs Hyperscan, same threads", ratio(w, "cpu fast", "hyperscan ("),
           1, "x");

  json j = support::run_record("multi", commit);
  j["threads"] = run.threads_;
  j["device"] = devices.empty() ? json(nullptr) : device_json(devices.front());
  j["options"] = {{"text_bytes", o.text_bytes}, {"paper_bytes", o.paper_bytes},
                  {"english_bytes", o.english_bytes}, {"english_words", o.english_words},
                  {"repeats", o.repeats},
                  {"words_file", o.words_file}};
  j["rows"] = json::array();
  for (const Row& r : run.rows_)
    j["rows"].push_back({{"workload", r.workload}, {"method", r.method}, {"median_ms", r.ms},
                         {"gbps", r.gbps()}, {"bytes", r.bytes}, {"count", r.count},
                         {"compile_ms", r.compile_ms}, {"memory_bytes", r.memory_bytes},
                         {"prefix_only", r.prefix_only}});
  j["ratios"] = ratios;
  j["targets"] = targets;
  j["counts_agree"] = !run.failed_;
  j["seconds"] = ms_since(t_start) / 1e3;
  if (!o.json_path.empty()) {
    std::ofstream f(o.json_path);
    f << j.dump(2) << "\n";
    if (!f) {
      fmt::print(stderr, "warpmatch-bench multi: cannot write {}\n", o.json_path);
      return 2;
    }
    fmt::print("\nJSON written to {}\n", o.json_path);
  }
  fmt::print("total {:.1f} s\n", ms_since(t_start) / 1e3);
  return run.failed_ ? 2 : 0;
}

}  // namespace warpmatch::bench
