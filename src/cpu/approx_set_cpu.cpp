// CPU approximate search of a pattern set in one pass (see approx_set_cpu.hpp): blocks of
// the text, tasks of (block, slice of the set) run in parallel, each translating its block
// once and running every pattern of its slice over it; hits are merged per pattern in text
// order. The SIMD loops (approx_set_kernel.hpp) are compiled three times (SSE, AVX2,
// AVX-512) and the widest the CPU has is picked once.
#include "cpu/approx_set_cpu.hpp"

#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstring>
#include <limits>
#include <utility>

#include "core/myers_step.hpp"
#include "core/parallel.hpp"
#include "core/text_classes.hpp"
#include "cpu/approx_cpu.hpp"
#include "cpu/approx_seed_filter.hpp"

#if defined(__clang__)
#pragma clang diagnostic ignored "-Wpsabi"
#else
// The kernels pass vectors wider than the baseline ISA between inlined helpers of this file
// only (no ABI crosses it); GCC 12 also misreads _mm512_undefined_epi32 in permutexvar.
#pragma GCC diagnostic ignored "-Wpsabi"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace warpmatch::cpu {

namespace {

constexpr int kMaxLaneGroups = 4;
constexpr int kMaxLanes = 16 * kMaxLaneGroups;
// Text bytes x patterns below which the set pass runs on the calling thread alone.
constexpr std::uint64_t kThreadedWork = std::uint64_t{1} << 20;

/// An edit-distance pattern of <= 64 bytes in a 32- (m <= 32) or 64-bit word, its last row
/// at the top bit: its match word per text class.
struct MyersTable {
  std::uint32_t index = 0;          // in the set
  std::uint32_t m = 0;
  std::uint64_t top_rows = 0;       // the pattern's rows (the initial +1 vertical deltas)
  std::vector<std::uint64_t> peq;   // [class], padded with zeros to >= 32 entries; the dummy
                                    // rows below the pattern match every class
};

/// One pattern over one lane group of a block.
struct MyersJob {
  const MyersTable* table = nullptr;
  int group = 0;
  std::uint32_t limit = 0;  // k, lowered by best mode as hits are found
};

/// A Hamming pattern: per position, the slot (distinct pattern byte) whose bitmap it reads.
struct HammingTable {
  std::uint32_t index = 0;
  std::uint32_t m = 0;
  std::vector<std::uint32_t> slot;
};

struct SetHit {
  std::uint32_t pattern = 0;
  std::uint32_t distance = 0;
  std::uint64_t end = 0;
};

/// One block's columns for the Myers lanes: lane l runs columns from[l] + t, t < length,
/// reading its class at codes[t * lanes + l]; it reports only columns in [own_lo, own_hi).
/// Lanes come in groups of the vector's width (one job runs one group).
struct LaneBlock {
  const std::uint8_t* codes = nullptr;
  std::uint64_t length = 0;
  int lanes = 0;
  std::int64_t from[kMaxLanes] = {};
  std::int64_t own_lo[kMaxLanes] = {};
  std::int64_t own_hi[kMaxLanes] = {};
};

using LaneHits = std::vector<core::EndHit>[16];  // one job's lanes

/// One block's match bitmaps for the Hamming patterns: bit x of slot d's row is set when
/// text[base + x] matches the slot's pattern byte.
struct BlockBitmaps {
  const std::uint64_t* bits = nullptr;
  std::size_t words = 0;  // per slot, zero padding included
  std::int64_t base = 0;
};

}  // namespace

// ---- the SIMD loops, once per instruction set ----------------------------------------------
// Each section defines kLanes, the vector types and the class -> Eq word lookups of 32-bit
// words that its instruction set does in a register (table in one or two registers).

/// Scalar lookup for instruction sets without a variable permute of 32-bit lanes.
#define WARPMATCH_SCALAR_LOOKUP32(Name)                                      \
  struct Name {                                                              \
    const std::uint64_t* table = nullptr;                                    \
    Name() = default;                                                        \
    explicit Name(const MyersTable& t) : table(t.peq.data()) {}              \
    V32 operator()(V32 idx) const {                                          \
      V32 eq;                                                                \
      for (int l = 0; l < kLanes; ++l) eq[l] = static_cast<std::uint32_t>(table[idx[l]]); \
      return eq;                                                             \
    }                                                                        \
  };

namespace sse {
constexpr int kLanes = 4;
constexpr int kJobs = 2;  // independent chains per loop (registers allow)
typedef std::uint8_t U8L __attribute__((vector_size(kLanes)));
typedef std::uint32_t V32 __attribute__((vector_size(4 * kLanes)));
typedef std::uint64_t V64 __attribute__((vector_size(8 * kLanes)));
typedef std::uint64_t VH __attribute__((vector_size(16)));
WARPMATCH_SCALAR_LOOKUP32(Lookup32One)
WARPMATCH_SCALAR_LOOKUP32(Lookup32Two)
#include "cpu/approx_set_kernel.hpp"
}  // namespace sse

#if defined(__clang__)  // clang (the fuzz preset) applies target attributes per function
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif
namespace avx2 {
constexpr int kLanes = 8;
constexpr int kJobs = 2;
typedef std::uint8_t U8L __attribute__((vector_size(kLanes)));
typedef std::uint32_t V32 __attribute__((vector_size(4 * kLanes)));
typedef std::uint64_t V64 __attribute__((vector_size(8 * kLanes)));
typedef std::uint64_t VH __attribute__((vector_size(32)));
inline __m256i table_register(const MyersTable& t, int first) {
  alignas(32) std::uint32_t v[8];
  for (int i = 0; i < 8; ++i) v[i] = static_cast<std::uint32_t>(t.peq[first + i]);
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(v));
}
struct Lookup32One {  // <= 8 classes
  __m256i t0;
  Lookup32One() = default;
  explicit Lookup32One(const MyersTable& t) : t0(table_register(t, 0)) {}
  V32 operator()(V32 idx) const { return (V32)_mm256_permutevar8x32_epi32(t0, (__m256i)idx); }
};
struct Lookup32Two {  // <= 16 classes
  __m256i t0, t1;
  Lookup32Two() = default;
  explicit Lookup32Two(const MyersTable& t) : t0(table_register(t, 0)), t1(table_register(t, 8)) {}
  V32 operator()(V32 idx) const {
    const __m256i i = (__m256i)idx;
    const __m256i lo = _mm256_permutevar8x32_epi32(t0, i), hi = _mm256_permutevar8x32_epi32(t1, i);
    return (V32)_mm256_blendv_epi8(lo, hi, _mm256_cmpgt_epi32(i, _mm256_set1_epi32(7)));
  }
};
#include "cpu/approx_set_kernel.hpp"
}  // namespace avx2
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl")
#endif
namespace avx512 {
constexpr int kLanes = 16;
constexpr int kJobs = 4;
typedef std::uint8_t U8L __attribute__((vector_size(kLanes)));
typedef std::uint32_t V32 __attribute__((vector_size(4 * kLanes)));
typedef std::uint64_t V64 __attribute__((vector_size(8 * kLanes)));
typedef std::uint64_t VH __attribute__((vector_size(64)));
inline __m512i table_register(const MyersTable& t, int first) {
  alignas(64) std::uint32_t v[16];
  for (int i = 0; i < 16; ++i) v[i] = static_cast<std::uint32_t>(t.peq[first + i]);
  return _mm512_load_si512(v);
}
struct Lookup32One {  // <= 16 classes
  __m512i t0;
  Lookup32One() = default;
  explicit Lookup32One(const MyersTable& t) : t0(table_register(t, 0)) {}
  V32 operator()(V32 idx) const { return (V32)_mm512_permutexvar_epi32((__m512i)idx, t0); }
};
struct Lookup32Two {  // <= 32 classes
  __m512i t0, t1;
  Lookup32Two() = default;
  explicit Lookup32Two(const MyersTable& t) : t0(table_register(t, 0)), t1(table_register(t, 16)) {}
  V32 operator()(V32 idx) const { return (V32)_mm512_permutex2var_epi32(t0, (__m512i)idx, t1); }
};
#include "cpu/approx_set_kernel.hpp"
}  // namespace avx512
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

namespace {

enum class Isa { sse, avx2, avx512 };

Isa best_isa() {
  static const Isa isa = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                                 __builtin_cpu_supports("avx512vl")
                             ? Isa::avx512
                             : __builtin_cpu_supports("avx2") ? Isa::avx2 : Isa::sse;
  return isa;
}

int lanes_of_isa(Isa isa) { return isa == Isa::avx512 ? avx512::kLanes : isa == Isa::avx2 ? avx2::kLanes : sse::kLanes; }
int jobs_of_isa(Isa isa) { return isa == Isa::avx512 ? avx512::kJobs : isa == Isa::avx2 ? avx2::kJobs : sse::kJobs; }

/// 64-bit Hamming words advanced per vector (the zero padding a bitmap row needs after it).
int hamming_words_of_isa(Isa isa) { return isa == Isa::avx512 ? 8 : isa == Isa::avx2 ? 4 : 2; }

/// Per-task buffers, reused by a thread across tasks and calls.
struct Scratch {
  std::vector<std::uint8_t> codes;
  std::vector<std::uint16_t> hamming_codes;
  std::vector<std::uint64_t> class_bits, slot_bits;
  std::vector<MyersJob> jobs;
  LaneHits lane_hits[4];  // per job of one loop
};

}  // namespace

struct ApproxSet::Compiled {
  std::vector<core::ApproxPattern> patterns;
  core::TextClasses classes;
  std::vector<MyersTable> myers;       // edit distance, m <= 64 (when the classes fit a byte),
                                       // the 32-bit words first
  std::vector<HammingTable> hamming;   // Hamming, any m
  std::vector<std::uint32_t> alone;    // edit distance, run one by one (cpu::approx_scan)
  Isa isa = Isa::sse;
  SetRoute route = SetRoute::automatic;
};

ApproxSet::ApproxSet(std::vector<core::ApproxPattern> patterns, std::string_view isa, SetRoute route) {
  auto c = std::make_unique<Compiled>();
  c->route = route;
  c->patterns = std::move(patterns);
  c->classes = core::classify_text(c->patterns);
  c->isa = best_isa();
  if (!isa.empty()) {
    if (!approx_set_isa_available(isa))
      throw InvalidArgument("instruction set '" + std::string(isa) + "' is not available on this CPU");
    c->isa = isa == "avx512" ? Isa::avx512 : isa == "avx2" ? Isa::avx2 : Isa::sse;
  }
  const core::TextClasses& tc = c->classes;
  const bool codes_fit = tc.count <= 256;
  for (std::uint32_t i = 0; i < c->patterns.size(); ++i) {
    const core::ApproxPattern& p = c->patterns[i];
    const auto m = static_cast<std::uint32_t>(p.size());
    if (p.hamming) {
      HammingTable h{i, m, {}};
      for (const std::uint8_t b : p.bytes) h.slot.push_back(static_cast<std::uint32_t>(tc.slot_of[b]));
      c->hamming.push_back(std::move(h));
    } else if (m <= kSetMaxEditPattern && codes_fit) {
      const std::uint32_t pad = (m <= 32 ? 32 : 64) - m;  // dummy rows below the pattern
      const std::uint64_t dummy = pad ? (std::uint64_t{1} << pad) - 1 : 0;
      MyersTable t{i, m, (m <= 32 ? 0xffffffffull : ~std::uint64_t{0}) & ~dummy,
                   std::vector<std::uint64_t>(std::max<std::uint32_t>(tc.count, 32), dummy)};
      for (std::uint32_t cls = 0; cls < tc.count; ++cls)
        for (std::uint32_t r = 0; r < m; ++r)
          if (tc.matches[cls][tc.slot_of[p.bytes[r]]]) t.peq[cls] |= std::uint64_t{1} << (pad + r);
      c->myers.push_back(std::move(t));
    } else {
      c->alone.push_back(i);
    }
  }
  std::stable_partition(c->myers.begin(), c->myers.end(), [](const MyersTable& t) { return t.m <= 32; });
  compiled_ = std::move(c);
}

ApproxSet::~ApproxSet() = default;
ApproxSet::ApproxSet(ApproxSet&&) noexcept = default;
ApproxSet& ApproxSet::operator=(ApproxSet&&) noexcept = default;
std::size_t ApproxSet::size() const { return compiled_->patterns.size(); }

bool approx_set_isa_available(std::string_view isa) {
  const Isa best = best_isa();
  if (isa == "sse") return true;
  if (isa == "avx2") return best != Isa::sse;
  return isa == "avx512" && best == Isa::avx512;
}

const char* ApproxSet::isa() const {
  switch (compiled_->isa) {
    case Isa::avx512: return "avx512";
    case Isa::avx2: return "avx2";
    default: return "sse";
  }
}

namespace {

/// Transposes the block's columns into lane-interleaved class codes (columns outside the
/// text read as the class that matches nothing: exact, see below).
void build_lane_codes(const ApproxSet::Compiled& c, ByteSpan text, LaneBlock& b, int lanes,
                      std::int64_t block_lo, std::int64_t block_hi, std::int64_t lane_length,
                      std::int64_t overlap, std::vector<std::uint8_t>& codes) {
  // A column before the text matches nothing: an alignment using it costs as much as one
  // starting right after it, so every distance at a real column is unchanged.
  const auto n = static_cast<std::int64_t>(text.size());
  b.length = static_cast<std::uint64_t>(lane_length + overlap);
  b.lanes = lanes;
  codes.resize(b.length * static_cast<std::uint64_t>(lanes) + kMaxLanes);
  const auto none = static_cast<std::uint8_t>(c.classes.none);
  for (int l = 0; l < lanes; ++l) {
    b.own_lo[l] = std::min(block_hi, block_lo + l * lane_length);
    b.own_hi[l] = std::min(block_hi, b.own_lo[l] + lane_length);
    b.from[l] = b.own_lo[l] - overlap;
    std::uint8_t* out = codes.data() + l;
    const std::int64_t from = b.from[l];
    const std::int64_t lo = std::clamp<std::int64_t>(-from, 0, static_cast<std::int64_t>(b.length));
    const std::int64_t hi = std::clamp<std::int64_t>(n - from, lo, static_cast<std::int64_t>(b.length));
    std::int64_t t = 0;
    for (; t < lo; ++t) out[t * lanes] = none;
    for (; t < hi; ++t) out[t * lanes] = static_cast<std::uint8_t>(c.classes.class_of[text[from + t]]);
    for (; t < static_cast<std::int64_t>(b.length); ++t) out[t * lanes] = none;
  }
  b.codes = codes.data();
}

/// Match bitmaps of text[base, end) for every slot (distinct pattern byte), 64 bits a word,
/// with `pad` zero words after each row for the vector loads.
BlockBitmaps build_bitmaps(const ApproxSet::Compiled& c, ByteSpan text, std::int64_t base, std::int64_t end,
                           std::size_t pad, Scratch& s) {
  const core::TextClasses& tc = c.classes;
  const auto span = static_cast<std::uint64_t>(end - base);
  const std::size_t words = static_cast<std::size_t>((span + 63) / 64) + pad;
  s.class_bits.assign(tc.count * words, 0);
  for (std::uint64_t x = 0; x < span; ++x)
    s.class_bits[tc.class_of[text[base + x]] * words + x / 64] |= std::uint64_t{1} << (x % 64);
  const std::size_t slots = tc.distinct.size();
  s.slot_bits.assign(slots * words, 0);
  for (std::uint32_t cls = 0; cls < tc.count; ++cls)
    for (std::size_t d = 0; d < slots; ++d) {
      if (!tc.matches[cls][d]) continue;
      const std::uint64_t* from = s.class_bits.data() + cls * words;
      std::uint64_t* to = s.slot_bits.data() + d * words;
      for (std::size_t w = 0; w < words; ++w) to[w] |= from[w];
    }
  return {s.slot_bits.data(), words, base};
}

template <class Fn>
void with_isa(Isa isa, Fn&& fn) {
  switch (isa) {
    case Isa::avx512: return fn(avx512::myers_jobs, avx512::hamming_pattern);
    case Isa::avx2: return fn(avx2::myers_jobs, avx2::hamming_pattern);
    default: return fn(sse::myers_jobs, sse::hamming_pattern);
  }
}

/// The set pass over `text` for the set's short patterns, their ends into out.
void set_pass(const ApproxSet::Compiled& c, ByteSpan text, const std::vector<core::ApproxQuery>& queries, int threads,
              std::atomic<std::uint64_t>* bytes_done, std::vector<std::vector<core::EndHit>>& out);

/// Whether the seed filter beats the set pass on this text: both timed on one thread over the
/// same sample from the text's middle (sized so the set pass does about 4 Mi pattern-bytes),
/// the filter taken when it is clearly faster. A text too small to sample is left to the set
/// pass, the cheaper to start.
std::size_t route_sample_bytes(const ApproxSet::Compiled& c) {
  const std::size_t set_size = c.myers.size() + c.hamming.size();
  return std::clamp<std::size_t>((std::size_t{4} << 20) / std::max<std::size_t>(set_size, 1), std::size_t{64} << 10,
                                 std::size_t{1} << 20);
}

/// Whether `text` is large enough to sample for the route (smaller ones take the set pass).
bool text_samples_route(const ApproxSet::Compiled& c, ByteSpan text) { return text.size() >= 16 * route_sample_bytes(c); }

bool seed_filter_pays(const ApproxSet::Compiled& c, const SeedFilter& filter, ByteSpan text,
                      const std::vector<core::ApproxQuery>& queries) {
  const std::size_t sample = route_sample_bytes(c);
  if (!text_samples_route(c, text)) return false;
  const ByteSpan part = text.subspan(text.size() / 2 - sample / 2, sample);
  auto seconds = [](auto&& run) {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  std::vector<std::vector<core::EndHit>> scratch(c.patterns.size());
  const double pass = seconds([&] { set_pass(c, part, queries, 1, nullptr, scratch); });
  for (auto& v : scratch) v.clear();
  const double filtered = seconds([&] { filter.scan(part, 1, scratch); });
  return filtered < 0.7 * pass;
}

/// The set pass's patterns (the seed filter's members).
std::vector<std::uint32_t> set_members(const ApproxSet::Compiled& c) {
  std::vector<std::uint32_t> members;
  for (const MyersTable& t : c.myers) members.push_back(t.index);
  for (const HammingTable& t : c.hamming) members.push_back(t.index);
  return members;
}

}  // namespace

SetRoute ApproxSet::choose_route(ByteSpan text, const std::vector<core::ApproxQuery>& queries) const {
  const Compiled& c = *compiled_;
  if (c.route != SetRoute::automatic) return c.route;
  // A small text (a read) takes the set pass before the filter is planned: per call, planning
  // cost more than scanning 150 bytes.
  if ((c.myers.empty() && c.hamming.empty()) || !text_samples_route(c, text)) return SetRoute::set_pass;
  const auto filter = SeedFilter::build(c.patterns, set_members(c), queries);
  return filter && seed_filter_pays(c, *filter, text, queries) ? SetRoute::seed_filter : SetRoute::set_pass;
}

std::vector<std::vector<core::EndHit>> ApproxSet::scan(ByteSpan text, const std::vector<core::ApproxQuery>& queries,
                                                       int threads, std::atomic<std::uint64_t>* bytes_done,
                                                       SetRoute route) const {
  const Compiled& c = *compiled_;
  std::vector<std::vector<core::EndHit>> out(c.patterns.size());
  if (threads <= 0) threads = hardware_threads();
  for (const std::uint32_t i : c.alone)  // long edit-distance patterns: alone, all threads
    out[i] = approx_scan(c.patterns[i], text, queries[i], ApproxAlgorithm::myers, threads);
  if (text.empty() || (c.myers.empty() && c.hamming.empty())) {
    if (bytes_done) bytes_done->fetch_add(text.size(), std::memory_order_relaxed);
    return out;
  }
  if (route == SetRoute::automatic) route = choose_route(text, queries);
  if (route == SetRoute::seed_filter) {
    if (const auto filter = SeedFilter::build(c.patterns, set_members(c), queries)) {
      filter->scan(text, threads, out, bytes_done);
      return out;
    }
  }
  set_pass(c, text, queries, threads, bytes_done, out);
  return out;
}

namespace {

void set_pass(const ApproxSet::Compiled& c, ByteSpan text, const std::vector<core::ApproxQuery>& queries, int threads,
              std::atomic<std::uint64_t>* bytes_done, std::vector<std::vector<core::EndHit>>& out) {
  const std::size_t np = c.patterns.size();
  const auto n = static_cast<std::int64_t>(text.size());

  // Block geometry: `lanes` lanes of `lane_length` owned columns, each restarted `overlap`
  // columns earlier (the longest m + k of the set); Hamming blocks read m - 1 bytes back.
  std::int64_t overlap = 0, longest_hamming = 0;
  std::uint64_t chunk_hint = 0;
  for (const MyersTable& t : c.myers)
    overlap = std::max<std::int64_t>(overlap, static_cast<std::int64_t>(core::approx_overlap(t.m, queries[t.index].k)));
  for (const HammingTable& t : c.hamming) longest_hamming = std::max<std::int64_t>(longest_hamming, t.m);
  for (const auto& q : queries) chunk_hint = std::max(chunk_hint, q.chunk_ends);
  // Few patterns: each runs over several lane groups at once (independent chains per loop).
  const int jobs_per_loop = jobs_of_isa(c.isa);
  // A text shorter than 8 x overlap per lane of one group (a read) is one group of lanes
  // just long enough to hold it: a pattern then costs about n / lanes + overlap steps, not a
  // whole block's (a lane restarts `overlap` columns back, whatever its length).
  const bool short_text = !chunk_hint && n < lanes_of_isa(c.isa) * std::max<std::int64_t>(2048, 8 * overlap);
  int groups = 1;
  while (!short_text && groups < kMaxLaneGroups &&
         c.myers.size() * static_cast<std::size_t>(groups) * 2 <= static_cast<std::size_t>(jobs_per_loop))
    groups *= 2;
  const int lanes = lanes_of_isa(c.isa) * groups;
  const std::int64_t lane_length =
      chunk_hint      ? static_cast<std::int64_t>(chunk_hint)
      : short_text    ? std::max<std::int64_t>(1, (n + lanes - 1) / lanes)
                      : std::max<std::int64_t>(2048 / groups, 8 * overlap);
  const std::int64_t block = lane_length * lanes;
  const std::uint64_t blocks = static_cast<std::uint64_t>((n + block - 1) / block);
  // Slices of the set when the text alone has too few blocks to keep the threads busy; none,
  // and no thread started, for less than about a millisecond of work (a read against a pair
  // of strands: a thread per call cost 40 us of a 1 us scan).
  const std::size_t set_size = c.myers.size() + c.hamming.size();
  if (static_cast<std::uint64_t>(n) * set_size < kThreadedWork) threads = 1;
  const std::uint64_t want_tasks = static_cast<std::uint64_t>(threads) * 4;
  const std::size_t slices =
      blocks >= want_tasks ? 1 : std::min<std::size_t>(set_size, static_cast<std::size_t>((want_tasks + blocks - 1) / blocks));
  const std::size_t per_slice = (set_size + slices - 1) / slices;

  std::vector<std::vector<SetHit>> task_hits(blocks * slices);
  core::parallel_for(task_hits.size(), threads, [&](std::size_t task) {
    thread_local Scratch scratch;
    const std::uint64_t bi = task / slices;
    const std::size_t first = (task % slices) * per_slice, last = std::min(set_size, first + per_slice);
    const std::int64_t block_lo = static_cast<std::int64_t>(bi) * block, block_hi = std::min(n, block_lo + block);
    std::vector<SetHit>& hits = task_hits[task];
    with_isa(c.isa, [&](auto myers_jobs, auto hamming_pattern) {
      // Patterns [first, last) of the set in set order: the Myers ones, then the Hamming ones
      // (one matcher has only one kind).
      if (first < c.myers.size()) {
        LaneBlock lb;
        build_lane_codes(c, text, lb, lanes, block_lo, block_hi, lane_length, overlap, scratch.codes);
        // Jobs: each pattern over each lane group, 32-bit words before 64-bit ones.
        const std::size_t end = std::min(last, c.myers.size());
        for (std::size_t from = first; from < end;) {
          const bool wide = c.myers[from].m > 32;
          std::size_t to = from;
          scratch.jobs.clear();
          for (; to < end && (c.myers[to].m > 32) == wide; ++to)
            for (int g = 0; g < groups; ++g) scratch.jobs.push_back({&c.myers[to], g, queries[c.myers[to].index].k});
          const bool best = queries[c.myers[from].index].mode == core::ApproxMode::best;
          myers_jobs(lb, scratch.jobs.data(), scratch.jobs.size(), static_cast<int>(c.classes.count), best, hits,
                     scratch.lane_hits);
          from = to;
        }
      }
      if (last > c.myers.size()) {
        // Windows ending in columns [block_lo, block_hi): starts from block_lo - m + 1.
        const std::int64_t base = std::max<std::int64_t>(0, block_lo - longest_hamming + 1);
        const BlockBitmaps bm =
            build_bitmaps(c, text, base, block_hi, static_cast<std::size_t>(hamming_words_of_isa(c.isa)) + 2, scratch);
        for (std::size_t i = std::max(first, c.myers.size()) - c.myers.size(); i < last - c.myers.size(); ++i) {
          const HammingTable& t = c.hamming[i];
          const core::ApproxQuery& q = queries[t.index];
          const std::int64_t s_lo = std::max<std::int64_t>(0, block_lo - t.m + 1), s_hi = block_hi - t.m + 1;
          if (s_hi <= s_lo) continue;
          hamming_pattern(bm, t, static_cast<std::uint64_t>(s_lo - base), static_cast<std::uint64_t>(s_hi - base), q.k,
                          q.mode == core::ApproxMode::best, hits);
        }
      }
    });
    if (bytes_done && task % slices == slices - 1)
      bytes_done->fetch_add(static_cast<std::uint64_t>(block_hi - block_lo), std::memory_order_relaxed);
  });

  // Per pattern, the tasks of its slice in block order give its ends ascending.
  std::vector<std::size_t> count(np, 0);
  for (const auto& hits : task_hits)
    for (const SetHit& h : hits) ++count[h.pattern];
  for (std::size_t i = 0; i < np; ++i) out[i].reserve(out[i].size() + count[i]);
  for (auto& hits : task_hits) {
    for (const SetHit& h : hits) out[h.pattern].push_back({h.end, h.distance});
    std::vector<SetHit>().swap(hits);
  }
  for (std::size_t i = 0; i < np; ++i) {
    if (queries[i].mode != core::ApproxMode::best || out[i].empty()) continue;
    std::uint32_t low = std::numeric_limits<std::uint32_t>::max();
    for (const core::EndHit& h : out[i]) low = std::min(low, h.distance);
    std::erase_if(out[i], [&](const core::EndHit& h) { return h.distance != low; });
  }
}

}  // namespace

}  // namespace warpmatch::cpu
