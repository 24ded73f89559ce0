// CPU backend of exact single-pattern search.
//
// fast: a SIMD filter tests k chosen pattern bytes (the rarest ones by a byte-frequency
// estimate, k picked by a small cost model; k = m for short patterns, which needs no
// verification) against 2 vectors of text starts per iteration, then verifies candidates.
// AVX2 (32-byte) kernels are chosen at run time, SSE (16-byte) otherwise. The text is split
// into chunks overlapping by m - 1 (core::plan_chunks). Counting: chunks on
// core::parallel_for, counts summed. Reporting: worker threads scan chunks into a sliding
// window of 2 x threads slots (memory bounded by the window, as rounds would be, but the
// workers never wait for a round's slowest chunk or for delivery) while the calling thread
// hands the chunks' starts to the sink in order and stops as soon as it returns false.
// naive: matches_at at every start, one thread — the oracle the rest is tested against.
#include "cpu/exact_cpu.hpp"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <new>
#include <numeric>
#include <thread>
#include <vector>

#include "core/chunking.hpp"
#include "core/line_select.hpp"
#include "core/parallel.hpp"
#include "cpu/tuning.hpp"
#include "cpu/exact_cpu_detail.hpp"

namespace warpmatch::cpu {
namespace detail {

// Everything the kernels need about the pattern and the chosen filter.
struct Plan {
  const std::uint8_t* pat = nullptr;  // folded when case-insensitive
  std::size_t m = 0;
  bool ci = false;
  int k = 0;
  bool exact = false;
  bool dense = false;  // exact, and matches expected often: branch-free report loop
  std::uint32_t off[kMaxFilterBytes] = {};
  std::uint8_t needle[kMaxFilterBytes] = {};
  std::uint8_t fold_bit[kMaxFilterBytes] = {};  // 0x20 for letters when ci, else 0
};

// Starts found in one chunk: a plain growable array, so that the kernels can write through
// a raw pointer (std::vector would check capacity at every start).
class StartBuffer {
 public:
  std::uint64_t* data = nullptr;
  std::size_t size = 0, capacity = 0;

  StartBuffer() = default;
  StartBuffer(const StartBuffer&) = delete;
  StartBuffer& operator=(const StartBuffer&) = delete;
  ~StartBuffer() { std::free(data); }
  void clear() { size = 0; }
  bool empty() const { return size == 0; }
  std::span<const std::uint64_t> span() const { return {data, size}; }
  // Room for at least `extra` more starts.
  __attribute__((noinline, cold)) void reserve_more(std::size_t extra) {
    const std::size_t want = std::max({capacity * 2, size + extra, std::size_t{4096}});
    auto* grown = static_cast<std::uint64_t*>(std::realloc(data, want * sizeof(std::uint64_t)));
    if (!grown) throw std::bad_alloc();
    data = grown;
    capacity = want;
  }
};

using ScanFn = std::uint64_t (*)(const Plan&, const std::uint8_t*, std::uint64_t, std::uint64_t,
                                 std::uint64_t, StartBuffer*);

}  // namespace detail

// ---- SSE kernels (baseline of the x86-64-v2 build) --------------------------------------
namespace sse {
struct V {
  using T = __m128i;
  static constexpr int W = 16;
  static constexpr std::uint32_t full_mask = 0xFFFFu;
  static T load(const std::uint8_t* p) { return _mm_loadu_si128(reinterpret_cast<const T*>(p)); }
  static T splat(std::uint8_t c) { return _mm_set1_epi8(static_cast<char>(c)); }
  static T eq(T a, T b) { return _mm_cmpeq_epi8(a, b); }
  static T and_(T a, T b) { return _mm_and_si128(a, b); }
  static T or_(T a, T b) { return _mm_or_si128(a, b); }
  static std::uint32_t mask(T a) { return static_cast<std::uint32_t>(_mm_movemask_epi8(a)); }
  // ASCII lowercase of every byte: 'A'..'Z' shifted to -128..-103 (signed) are the only
  // bytes below -102, so exactly they get 0x20 OR-ed in.
  static T fold(T v) {
    const T x = _mm_add_epi8(v, splat(0x80 - 'A'));
    const T upper = _mm_cmpgt_epi8(splat(static_cast<std::uint8_t>(-128 + 26)), x);
    return _mm_or_si128(v, _mm_and_si128(upper, splat(0x20)));
  }
};
#include "cpu/exact_cpu_kernel.hpp"
}  // namespace sse

// ---- AVX2 kernels (only called when the CPU has AVX2) ------------------------------------
#if defined(__clang__)  // clang (the fuzz preset) applies target attributes per function
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif
namespace avx2 {
struct V {
  using T = __m256i;
  static constexpr int W = 32;
  static constexpr std::uint32_t full_mask = 0xFFFFFFFFu;
  static T load(const std::uint8_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const T*>(p));
  }
  static T splat(std::uint8_t c) { return _mm256_set1_epi8(static_cast<char>(c)); }
  static T eq(T a, T b) { return _mm256_cmpeq_epi8(a, b); }
  static T and_(T a, T b) { return _mm256_and_si256(a, b); }
  static T or_(T a, T b) { return _mm256_or_si256(a, b); }
  static std::uint32_t mask(T a) { return static_cast<std::uint32_t>(_mm256_movemask_epi8(a)); }
  static T fold(T v) {
    const T x = _mm256_add_epi8(v, splat(0x80 - 'A'));
    const T upper = _mm256_cmpgt_epi8(splat(static_cast<std::uint8_t>(-128 + 26)), x);
    return _mm256_or_si256(v, _mm256_and_si256(upper, splat(0x20)));
  }
};
#include "cpu/exact_cpu_kernel.hpp"
}  // namespace avx2
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

namespace detail {
namespace {

template <template <int, bool, bool, bool> class Table, int K>
ScanFn pick_k(bool ci, bool exact, bool count) {
  if (ci) {
    if (exact) return count ? Table<K, true, true, true>::fn : Table<K, true, true, false>::fn;
    return count ? Table<K, true, false, true>::fn : Table<K, true, false, false>::fn;
  }
  if (exact) return count ? Table<K, false, true, true>::fn : Table<K, false, true, false>::fn;
  return count ? Table<K, false, false, true>::fn : Table<K, false, false, false>::fn;
}
template <template <int, bool, bool, bool> class Table>
ScanFn pick(int k, bool ci, bool exact, bool count) {
  switch (k) {
    case 1: return pick_k<Table, 1>(ci, exact, count);
    case 2: return pick_k<Table, 2>(ci, exact, count);
    case 3: return pick_k<Table, 3>(ci, exact, count);
    case 4: return pick_k<Table, 4>(ci, exact, count);
    case 5: return pick_k<Table, 5>(ci, exact, count);
    case 6: return pick_k<Table, 6>(ci, exact, count);
    case 7: return pick_k<Table, 7>(ci, exact, count);
    default: return pick_k<Table, 8>(ci, exact, count);
  }
}
template <int K, bool CI, bool E, bool C>
struct SseTable {
  static constexpr ScanFn fn = &sse::scan_range<K, CI, E, C>;
};
template <int K, bool CI, bool E, bool C>
struct Avx2Table {
  static constexpr ScanFn fn = &avx2::scan_range<K, CI, E, C>;
};

// ---- byte frequencies -----------------------------------------------------------------
// Rough occurrences per 100,000 bytes of English prose, plus a little of everything else so
// that no byte is free (memchr-style tools rank bytes the same way). Large texts refine it
// with a sample of the text itself (DNA, binary, other languages).
std::array<double, 256> prior_frequencies() {
  std::array<double, 256> f{};
  for (int b = 0; b < 256; ++b) f[b] = b < 128 ? 5 : 10;  // control bytes / UTF-8 bytes
  for (int b = '!'; b <= '~'; ++b) f[b] = 30;               // punctuation in general
  for (int d = '0'; d <= '9'; ++d) f[d] = 100;
  const char* lower = "etaoinsrhldcumfpgwybvkxjqz";
  const double lower_f[] = {9500, 6800, 6200, 5800, 5500, 5500, 5200, 4800, 4500, 3200, 3100,
                            2200, 2100, 1900, 1700, 1500, 1500, 1500, 1400, 1100, 800,  600,
                            150,  100,  80,   70};
  for (int i = 0; i < 26; ++i) {
    f[static_cast<std::uint8_t>(lower[i])] = lower_f[i];
    f[static_cast<std::uint8_t>(lower[i] - 32)] = 20 + lower_f[i] / 40;  // capitals
  }
  f['T'] += 250; f['I'] += 250; f['A'] += 150; f['S'] += 100; f['H'] += 50; f['W'] += 50;
  f[' '] = 17000; f['\n'] = 1500; f[','] = 1000; f['.'] = 900; f['\''] = 200; f['"'] = 200;
  f['-'] = 150; f['\t'] = 100; f['\r'] = 50; f[0] = 50; f[0xFF] = 20;
  const double total = std::accumulate(f.begin(), f.end(), 0.0);
  for (double& x : f) x /= total;
  return f;
}

// Large texts are sampled (16 blocks of 1 KiB spread evenly) to refine the byte frequencies
// and to measure how often each candidate filter actually fires: ExactCpuPolicy.
constexpr std::uint64_t kSampleFrom = ExactCpuPolicy::sample_from, kSamples = ExactCpuPolicy::samples,
                        kSampleBytes = ExactCpuPolicy::sample_bytes;

// Frequencies for this text: the prior (no copy) or, for large texts, `buf` filled from the
// sample. Without a sample, a pattern made of nucleotides most likely searches DNA: its
// bytes are then taken as common (0.24 each).
const double* byte_frequencies(const core::ExactPattern& pattern, ByteSpan text,
                               std::array<double, 256>& buf, bool& dna) {
  static const std::array<double, 256> prior = prior_frequencies();
  dna = false;
  if (text.size() >= kSampleFrom) {
    std::array<std::uint32_t, 256> hist{};
    const std::uint64_t step = (text.size() - kSampleBytes) / (kSamples - 1);
    for (std::uint64_t i = 0; i < kSamples; ++i) {
      const std::uint8_t* s = text.data() + i * step;
      for (std::uint64_t j = 0; j < kSampleBytes; ++j) ++hist[s[j]];
    }
    constexpr double prior_weight = 1024, total = kSamples * kSampleBytes + prior_weight;
    for (int b = 0; b < 256; ++b) buf[b] = (hist[b] + prior_weight * prior[b]) / total;
    return buf.data();
  }
  dna = std::all_of(pattern.bytes.begin(), pattern.bytes.end(), [](std::uint8_t c) {
    switch (c | 0x20) {
      case 'a': case 'c': case 'g': case 't': case 'n': return true;
      default: return false;
    }
  });
  return prior.data();
}

bool is_lower(std::uint8_t c) { return c >= 'a' && c <= 'z'; }

Plan make_plan(const core::ExactPattern& pattern, const std::uint32_t* offsets, int k, bool exact) {
  Plan p;
  p.pat = pattern.bytes.data();
  p.m = pattern.size();
  p.ci = pattern.case_insensitive;
  p.k = k;
  p.exact = exact;
  for (int i = 0; i < k; ++i) {
    p.off[i] = offsets[i];
    p.needle[i] = pattern.bytes[offsets[i]];
    p.fold_bit[i] = (p.ci && is_lower(p.needle[i])) ? 0x20 : 0;
  }
  return p;
}

ScanFn pick_fn(bool avx2, int k, bool ci, bool exact, bool count) {
  return avx2 ? pick<Avx2Table>(k, ci, exact, count) : pick<SseTable>(k, ci, exact, count);
}

// Fraction of the sampled starts that pass the filter on the first k offsets of `order`.
double sampled_rate(const core::ExactPattern& pattern, ByteSpan text, const std::uint32_t* order,
                    int k, bool avx2) {
  const Plan plan = make_plan(pattern, order, k, /*exact=*/true);  // exact: count passes only
  const ScanFn fn = pick_fn(avx2, k, pattern.case_insensitive, true, true);
  const std::uint64_t n = text.size(), last = n - pattern.size() + 1;  // starts < last
  const std::uint64_t step = (n - kSampleBytes) / (kSamples - 1);
  std::uint64_t passed = 0, starts = 0;
  for (std::uint64_t i = 0; i < kSamples; ++i) {
    const std::uint64_t b = i * step, e = std::min(b + kSampleBytes, last);
    if (e <= b) continue;
    passed += fn(plan, text.data(), n, b, e, nullptr);
    starts += e - b;
  }
  return starts ? static_cast<double>(passed) / static_cast<double>(starts) : 0.0;
}

}  // namespace

bool avx2_available() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}

namespace {

FilterChoice compute_filter_choice(const core::ExactPattern& pattern, ByteSpan text, int force_k, bool avx2);

// A short text (not sampled) gets a choice that depends on the pattern alone: the last one
// is kept per thread, keyed by the pattern's bytes (not its address, which a later pattern
// may reuse). Computing it was half of a count in a 150-byte read (~50 of 100 ns): a caller
// searching reads one at a time paid it for each.
struct ShortTextChoice {
  static constexpr std::size_t kMaxBytes = 64;
  std::array<std::uint8_t, kMaxBytes> bytes{};
  std::size_t m = 0;  // 0: empty
  bool case_insensitive = false;
  FilterChoice choice;
};

}  // namespace

FilterChoice choose_filter_impl(const core::ExactPattern& pattern, ByteSpan text, int force_k,
                                bool avx2) {
  const std::size_t m = pattern.size();
  if (text.size() >= kSampleFrom || force_k != 0 || m == 0 || m > ShortTextChoice::kMaxBytes)
    return compute_filter_choice(pattern, text, force_k, avx2);
  thread_local ShortTextChoice last;
  if (last.m != m || last.case_insensitive != pattern.case_insensitive ||
      std::memcmp(last.bytes.data(), pattern.bytes.data(), m) != 0) {
    last.choice = compute_filter_choice(pattern, text, force_k, avx2);
    std::memcpy(last.bytes.data(), pattern.bytes.data(), m);
    last.m = m;
    last.case_insensitive = pattern.case_insensitive;
  }
  return last.choice;
}

namespace {

FilterChoice compute_filter_choice(const core::ExactPattern& pattern, ByteSpan text, int force_k, bool avx2) {
  const std::size_t m = pattern.size();
  std::array<double, 256> buf;
  bool dna = false;
  const double* f = byte_frequencies(pattern, text, buf, dna);
  auto freq = [&](std::size_t j) {
    const std::uint8_t c = pattern.bytes[j];
    if (dna && (c | 0x20) != 'n') return 0.24;
    return f[c] + ((pattern.case_insensitive && is_lower(c)) ? f[c - 32] : 0.0);
  };
  // The kMaxFilterBytes rarest bytes, rarest first (insertion into a short sorted list);
  // ties go to the last byte, then the first, then left to right, so that equally rare
  // bytes (DNA) are tested far apart.
  struct Key {
    double freq;
    std::size_t rank;
    bool operator<(const Key& o) const { return freq != o.freq ? freq < o.freq : rank < o.rank; }
  };
  const std::size_t top = std::min<std::size_t>(m, kMaxFilterBytes);
  std::array<std::uint32_t, kMaxFilterBytes> order;  // first `top` entries filled below
  std::array<Key, kMaxFilterBytes> keys;
  std::size_t filled = 0;
  for (std::size_t j = 0; j < m; ++j) {
    const Key key{freq(j), j == m - 1 ? 0 : j == 0 ? 1 : j + 1};
    if (filled == top && !(key < keys[top - 1])) continue;
    std::size_t i = filled == top ? top - 1 : filled++;
    for (; i > 0 && key < keys[i - 1]; --i) {
      keys[i] = keys[i - 1];
      order[i] = order[i - 1];
    }
    keys[i] = key;
    order[i] = static_cast<std::uint32_t>(j);
  }
  std::array<double, kMaxFilterBytes> pf{};
  for (std::size_t i = 0; i < top; ++i) pf[i] = keys[i].freq;
  // Cost per vector of 32 starts: one compare per filter byte, plus ~30 cycles (mispredicted
  // branch + verification; more for long patterns) per candidate. The candidate rate is the
  // product of byte frequencies, or what the sample shows when that is higher (English
  // bytes are far from independent: "th" is much more common than t x h).
  const bool sampled = text.size() >= kSampleFrom;
  const double verify_cost = m <= 32 ? 30 : 50;
  int best_k = 0;
  double best = 1e300, product = 1, best_rate = 1;
  for (std::size_t k = 1; k <= top; ++k) {
    product *= pf[k - 1];
    if (k < std::min<std::size_t>(m, 2)) continue;  // never fewer than 2 bytes
    double rate = product;
    if (sampled) rate = std::max(rate, sampled_rate(pattern, text, order.data(), static_cast<int>(k), avx2));
    const double miss = k == m ? 0.0 : 32 * rate * verify_cost;
    const double cost = static_cast<double>(k) + miss;
    if (cost < best) {
      best = cost;
      best_k = static_cast<int>(k);
      best_rate = rate;
    }
    if (miss < 0.5) break;  // one more byte costs 1 and saves less than that
  }
  if (force_k > 0) best_k = std::min<int>(force_k, static_cast<int>(top));
  FilterChoice choice;
  choice.k = best_k;
  choice.exact = static_cast<std::size_t>(best_k) == m;
  // Many matches per 64 starts: the report loop writes them without data-dependent branches.
  choice.dense = choice.exact && force_k == 0 && best_rate * 64 > 0.125;
  for (int i = 0; i < best_k; ++i) choice.offsets[i] = order[i];
  std::sort(choice.offsets.begin(), choice.offsets.begin() + best_k);
  return choice;
}

}  // namespace

FilterChoice choose_filter(const core::ExactPattern& pattern, ByteSpan text) {
  return choose_filter_impl(pattern, text, 0, avx2_available());
}

namespace {

int resolve_threads(int threads) { return threads > 0 ? threads : hardware_threads(); }

struct Scanner {
  Plan plan;
  ScanFn fn = nullptr;
  ByteSpan text;

  // Occurrences starting in the chunk's owned range.
  std::uint64_t run(const core::Chunk& c, StartBuffer* out) const {
    const std::uint64_t m = plan.m;
    if (c.read_end < m) return 0;
    const std::uint64_t stop = std::min(c.owned_end, c.read_end - m + 1);
    if (stop <= c.begin) return 0;
    return fn(plan, text.data(), text.size(), c.begin, stop, out);
  }
};

// Workers scan chunks into a window of 2 x workers slots; the calling thread hands them to
// the sink in chunk order, overlapping delivery with scanning. Memory: the window's starts.
std::uint64_t report_parallel(const Scanner& sc, const std::vector<core::Chunk>& chunks,
                              int workers, const core::StartsSink& sink) {
  const std::size_t nc = chunks.size();
  const std::size_t window = std::min<std::size_t>(nc, 2 * static_cast<std::size_t>(workers));
  struct Slot {
    StartBuffer starts;
    std::size_t chunk = SIZE_MAX;  // the chunk whose starts are ready here
  };
  std::vector<Slot> slots(window);
  std::mutex mu;
  std::condition_variable cv_work, cv_done;
  std::size_t next = 0, delivered = 0;
  bool stop = false;
  std::exception_ptr error;

  auto worker = [&] {
    for (;;) {
      std::size_t i;
      {
        std::unique_lock lk(mu);
        cv_work.wait(lk, [&] { return stop || next >= nc || next < delivered + window; });
        if (stop || next >= nc) return;
        i = next++;
      }
      Slot& slot = slots[i % window];  // free: chunk i - window was delivered
      try {
        slot.starts.clear();
        sc.run(chunks[i], &slot.starts);
      } catch (...) {
        std::lock_guard lk(mu);
        if (!error) error = std::current_exception();
        stop = true;
        cv_done.notify_all();
        cv_work.notify_all();
        return;
      }
      {
        std::lock_guard lk(mu);
        slot.chunk = i;
      }
      cv_done.notify_one();
    }
  };
  auto halt = [&] {
    {
      std::lock_guard lk(mu);
      stop = true;
    }
    cv_work.notify_all();
  };

  std::vector<std::thread> pool;
  std::uint64_t total = 0;
  try {
    pool.reserve(static_cast<std::size_t>(workers));
    for (std::size_t w = 0; w < std::min<std::size_t>(nc, static_cast<std::size_t>(workers)); ++w)
      pool.emplace_back(worker);
    for (std::size_t d = 0; d < nc; ++d) {
      Slot& slot = slots[d % window];
      {
        std::unique_lock lk(mu);
        cv_done.wait(lk, [&] { return slot.chunk == d || error; });
        if (error) break;
      }
      if (!slot.starts.empty()) {
        total += slot.starts.size;
        if (!sink(slot.starts.span())) break;
      }
      {
        std::lock_guard lk(mu);
        delivered = d + 1;
      }
      cv_work.notify_all();
    }
  } catch (...) {  // the sink threw (or a thread failed to start)
    halt();
    for (auto& t : pool) t.join();
    throw;
  }
  halt();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
  return total;
}

// Folded patterns hold no capitals; one that does cannot match (as matches_at says).
bool never_matches(const core::ExactPattern& pattern) {
  return pattern.case_insensitive && std::any_of(pattern.bytes.begin(), pattern.bytes.end(),
                                                 [](std::uint8_t c) { return c >= 'A' && c <= 'Z'; });
}

// The filter and kernel for `pattern` on `text` (the kernel reports unless count_only).
Scanner make_scanner(const core::ExactPattern& pattern, ByteSpan text, bool count_only, const ScanTuning& tuning) {
  const bool use_avx2 = tuning.isa != Isa::sse && avx2_available();
  const FilterChoice choice = choose_filter_impl(pattern, text, tuning.force_k, use_avx2);
  Scanner sc;
  sc.text = text;
  sc.plan = make_plan(pattern, choice.offsets.data(), choice.k, choice.exact);
  sc.plan.dense = choice.dense || tuning.force_dense;
  sc.fn = pick_fn(use_avx2, choice.k, pattern.case_insensitive, choice.exact, count_only);
  return sc;
}

// Threads for n bytes: none for less than ~1 MiB each.
int workers_for(std::uint64_t n, int threads) {
  return static_cast<int>(std::clamp<std::uint64_t>(n / ExactCpuPolicy::bytes_per_worker, 1,
                                                    static_cast<std::uint64_t>(resolve_threads(threads))));
}

std::uint64_t scan_fast(const core::ExactPattern& pattern, ByteSpan text, int threads,
                        bool count_only, const core::StartsSink& sink, const ScanTuning& tuning) {
  const std::uint64_t n = text.size(), m = pattern.size();
  if (never_matches(pattern)) return 0;
  const Scanner sc = make_scanner(pattern, text, count_only, tuning);

  // Threads and chunks: no thread for less than ~1 MiB of text each; counting uses a few
  // chunks per thread (balance), reporting 512 KiB chunks (a flood of matches then holds at
  // most 4 MiB of starts per slot).
  int workers;
  std::uint64_t chunk;
  if (tuning.chunk_bytes != 0) {
    workers = resolve_threads(threads);
    chunk = tuning.chunk_bytes;
  } else {
    using P = ExactCpuPolicy;
    workers = workers_for(n, threads);
    if (count_only)
      chunk = workers == 1 ? n
                           : std::clamp<std::uint64_t>(n / (P::count_chunks_per_worker * static_cast<std::uint64_t>(workers)),
                                                       P::count_chunk_min, P::count_chunk_max);
    else
      chunk = P::report_chunk;
  }
  const std::vector<core::Chunk> chunks = core::plan_chunks(n, chunk, m - 1);

  if (count_only) {
    if (workers == 1 || chunks.size() == 1) {
      std::uint64_t total = 0;
      for (const auto& c : chunks) total += sc.run(c, nullptr);
      return total;
    }
    std::vector<std::uint64_t> counts(chunks.size(), 0);
    core::parallel_for(chunks.size(), workers,
                       [&](std::size_t i) { counts[i] = sc.run(chunks[i], nullptr); });
    return std::accumulate(counts.begin(), counts.end(), std::uint64_t{0});
  }
  if (workers == 1 || chunks.size() == 1) {
    StartBuffer starts;
    std::uint64_t total = 0;
    for (const auto& c : chunks) {
      starts.clear();
      sc.run(c, &starts);
      if (starts.empty()) continue;
      total += starts.size;
      if (!sink(starts.span())) break;
    }
    return total;
  }
  return report_parallel(sc, chunks, workers, sink);
}

std::uint64_t scan_naive(const core::ExactPattern& pattern, ByteSpan text, bool count_only,
                         const core::StartsSink& sink) {
  const std::uint64_t n = text.size(), m = pattern.size();
  std::uint64_t total = 0;
  std::vector<std::uint64_t> batch;
  for (std::uint64_t pos = 0; pos + m <= n; ++pos) {
    if (!pattern.matches_at(text, pos)) continue;
    if (count_only) {
      ++total;
      continue;
    }
    batch.push_back(pos);
    if (batch.size() == 4096) {
      total += batch.size();
      if (!sink(std::span<const std::uint64_t>(batch))) return total;
      batch.clear();
    }
  }
  if (!batch.empty()) {
    total += batch.size();
    sink(std::span<const std::uint64_t>(batch));
  }
  return total;
}

// The first occurrence in [pos, stop) by the reporting kernel on blocks of starts: small
// blocks where lines hold matches (the rest of a block past the first is wasted work),
// doubling while none is found.
class BlockFirst {
 public:
  explicit BlockFirst(const Scanner& sc) : sc_(sc) {}
  std::uint64_t operator()(std::uint64_t pos, std::uint64_t stop) {
    for (;;) {
      const std::uint64_t to = std::min(stop, pos + block_);
      starts_.clear();
      sc_.fn(sc_.plan, sc_.text.data(), sc_.text.size(), pos, to, &starts_);
      if (!starts_.empty()) {
        block_ = kFirstBlock;
        return starts_.data[0];
      }
      if (to >= stop) return stop;
      pos = to;
      block_ = std::min(block_ * 2, kLongestBlock);
    }
  }

 private:
  static constexpr std::uint64_t kFirstBlock = 64, kLongestBlock = std::uint64_t{1} << 20;
  const Scanner& sc_;
  StartBuffer starts_;
  std::uint64_t block_ = kFirstBlock;
};

}  // namespace

std::vector<std::uint64_t> first_per_line_tuned(const core::ExactPattern& pattern, ByteSpan text,
                                                std::uint64_t limit, std::uint64_t most, ExactAlgorithm algorithm,
                                                int threads, const ScanTuning& tuning) {
  const std::uint64_t n = text.size(), m = pattern.size();
  if (m == 0 || m > n) return {};
  limit = std::min(limit, n - m + 1);  // no occurrence starts later
  if (algorithm == ExactAlgorithm::naive) {
    return core::first_match_per_line(text, limit, 1, [&] {
      return [&](std::uint64_t pos, std::uint64_t stop) {
        while (pos < stop && !pattern.matches_at(text, pos)) ++pos;
        return pos;
      };
    }, most);
  }
  if (never_matches(pattern)) return {};
  Scanner sc = make_scanner(pattern, text, /*count_only=*/false, tuning);
  sc.plan.dense = false;  // blocks are short: the dense loop's gain is per long run of matches
  const int workers = tuning.chunk_bytes != 0 ? resolve_threads(threads) : workers_for(n, threads);
  return core::first_match_per_line(text, limit, workers, [&] { return BlockFirst(sc); }, most,
                                    tuning.chunk_bytes != 0 ? tuning.chunk_bytes : std::uint64_t{1} << 20);
}

std::uint64_t exact_scan_tuned(const core::ExactPattern& pattern, ByteSpan text,
                               ExactAlgorithm algorithm, int threads, bool count_only,
                               const core::StartsSink& sink, const ScanTuning& tuning) {
  if (pattern.size() == 0 || pattern.size() > text.size()) return 0;
  if (algorithm == ExactAlgorithm::naive) return scan_naive(pattern, text, count_only, sink);
  return scan_fast(pattern, text, threads, count_only, sink, tuning);
}

}  // namespace detail

std::uint64_t exact_scan(const core::ExactPattern& pattern, ByteSpan text,
                         ExactAlgorithm algorithm, int threads, bool count_only,
                         const core::StartsSink& sink) {
  return detail::exact_scan_tuned(pattern, text, algorithm, threads, count_only, sink, {});
}

std::vector<std::uint64_t> exact_first_per_line(const core::ExactPattern& pattern, ByteSpan text,
                                                std::uint64_t limit, std::uint64_t most, ExactAlgorithm algorithm,
                                                int threads) {
  return detail::first_per_line_tuned(pattern, text, limit, most, algorithm, threads, {});
}

}  // namespace warpmatch::cpu
