// Pigeonhole filter for short approximate patterns; see approx_seed_filter.hpp.
#include "cpu/approx_seed_filter.hpp"

#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include "core/exact_pattern.hpp"
#include "core/multi_patterns.hpp"  // fold_ascii_word
#include "core/myers_step.hpp"
#include "core/parallel.hpp"
#include "core/seed_plan.hpp"

namespace warpmatch::cpu {

namespace {

/// Ends a block owns: big enough that a block's set-up (its share of the reach) is negligible,
/// small enough that a block's piece occurrences stay a few MiB in the densest case.
constexpr std::uint64_t kBlockEnds = std::uint64_t{1} << 20;
constexpr std::uint64_t kMinBlockEnds = std::uint64_t{1} << 16;

struct Candidate {
  std::uint32_t member = 0;
  std::int64_t lo = 0, hi = 0;  // text columns to verify (Hamming: lo = the start, hi unused)
};

struct Hit {
  std::uint32_t index = 0;
  std::uint32_t distance = 0;
  std::uint64_t end = 0;
};

/// The first `bytes` bytes at p as a little-endian key (case-folded when asked).
std::uint64_t key_at(const std::uint8_t* p, std::size_t bytes, bool fold) {
  std::uint64_t key = 0;
  std::memcpy(&key, p, bytes);
  return fold ? core::fold_ascii_word(key) : key;
}

}  // namespace

// The pieces are found by their first q bytes (q = the shortest piece, at most 8): each text
// position's q-byte key is hashed into a bitmap of the pieces' keys (one multiply, one bit test:
// most positions of most texts end there), and a set bit is looked up in buckets of the pieces
// sorted by hash, the rest of the piece compared byte by byte (core::SeedPlan). A generic
// multi-literal scan (cpu::multi_scan) measured 2x slower than the verification it feeds here
// (2-core development host, 100 20-mers, k = 2), this about 5x faster than that scan.
struct SeedFilter::Tables {
  std::unique_ptr<const core::SeedPlan> plan;
  // Few pieces: their distinct first 4 bytes, compared with 8 positions at a time on AVX2
  // before the 8-byte key (next_candidate_avx2).
  std::vector<std::uint32_t> prefixes;  // empty when there are more than kMaxPrefixes
  /// Distinct 4-byte prefixes up to which comparing each pays (two instructions per prefix per
  /// 8 positions); a bitmap gather instead measured slower than the scalar loop on the AMD
  /// development host (microcoded gathers).
  static constexpr std::size_t kMaxPrefixes = 8;
};

namespace {

using Tables = SeedFilter::Tables;

/// The first position in [s, last] whose key's bit is set in the pieces' bitmap (last + 1 when
/// none): the loop every text byte goes through, its table pointers in registers.
template <bool kFold>
std::int64_t next_candidate(const SeedFilter::Tables& t, ByteSpan text, std::int64_t s, std::int64_t last,
                            std::uint64_t key_mask) {
  const std::uint8_t* tx = text.data();
  const std::uint64_t* bitmap = t.plan->bitmap.data();
  const int shift = 64 - t.plan->bitmap_bits;
  const auto n = static_cast<std::int64_t>(text.size());
  for (const std::int64_t fast_last = std::min(last, n - 8); s <= fast_last; ++s) {  // eight bytes readable
    std::uint64_t key;
    std::memcpy(&key, tx + s, 8);
    if constexpr (kFold) key = core::fold_ascii_word(key);
    const std::uint64_t bit = core::seed_hash(key & key_mask) >> shift;
    if ((bitmap[bit >> 6] >> (bit & 63)) & 1) return s;
  }
  for (; s <= last; ++s) {  // the last few positions read only what the text has
    const std::uint64_t bit = core::seed_hash(key_at(tx + s, static_cast<std::size_t>(std::min<std::int64_t>(8, n - s)), kFold) & key_mask) >> shift;
    if ((bitmap[bit >> 6] >> (bit & 63)) & 1) return s;
  }
  return last + 1;
}

/// next_candidate for sets of few pieces on AVX2: the 4-byte prefixes of 8 positions from one
/// 16-byte load (a byte shuffle), compared with each piece's; a position equal to one goes to
/// the caller's exact lookup. The loop's last positions take the scalar loop.
template <bool kFold>
__attribute__((target("avx2"))) std::int64_t next_candidate_avx2(const SeedFilter::Tables& t, ByteSpan text,
                                                                  std::int64_t s, std::int64_t last,
                                                                  std::uint64_t key_mask) {
  const std::uint8_t* tx = text.data();
  const auto n = static_cast<std::int64_t>(text.size());
  const __m256i spread = _mm256_setr_epi8(0, 1, 2, 3, 1, 2, 3, 4, 2, 3, 4, 5, 3, 4, 5, 6,  //
                                          4, 5, 6, 7, 5, 6, 7, 8, 6, 7, 8, 9, 7, 8, 9, 10);
  __m256i want[Tables::kMaxPrefixes];
  const std::size_t wanted = t.prefixes.size();
  for (std::size_t i = 0; i < wanted; ++i) want[i] = _mm256_set1_epi32(static_cast<int>(t.prefixes[i]));
  for (; s + 16 <= n && s + 7 <= last; s += 8) {
    __m128i raw = _mm_loadu_si128(reinterpret_cast<const __m128i*>(tx + s));
    if constexpr (kFold) {  // 'A'..'Z' -> 'a'..'z'
      const __m128i upper = _mm_and_si128(_mm_cmpgt_epi8(raw, _mm_set1_epi8('A' - 1)), _mm_cmplt_epi8(raw, _mm_set1_epi8('Z' + 1)));
      raw = _mm_add_epi8(raw, _mm_and_si128(upper, _mm_set1_epi8(32)));
    }
    const __m256i keys = _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(raw), spread);
    __m256i equal = _mm256_cmpeq_epi32(keys, want[0]);
    for (std::size_t i = 1; i < wanted; ++i) equal = _mm256_or_si256(equal, _mm256_cmpeq_epi32(keys, want[i]));
    if (const int hit = _mm256_movemask_ps(_mm256_castsi256_ps(equal))) return s + std::countr_zero(static_cast<unsigned>(hit));
  }
  return next_candidate<kFold>(t, text, s, last, key_mask);
}

}  // namespace

SeedFilter::SeedFilter(std::unique_ptr<const Tables> tables) : tables_(std::move(tables)) {}
SeedFilter::~SeedFilter() = default;

std::unique_ptr<SeedFilter> SeedFilter::build(const std::vector<core::ApproxPattern>& patterns,
                                              const std::vector<std::uint32_t>& members,
                                              const std::vector<core::ApproxQuery>& queries) {
  auto plan = core::plan_seeds(patterns, members, queries);
  if (!plan) return nullptr;
  auto t = std::make_unique<Tables>();
  std::vector<std::uint32_t> prefixes;
  for (std::size_t i = 0; i < plan->pieces(); ++i) {
    std::uint32_t key4 = 0;
    std::memcpy(&key4, plan->piece_bytes.data() + plan->piece_offsets[i], 4);  // pieces have >= kMinPiece = 4 bytes
    prefixes.push_back(key4);
  }
  std::sort(prefixes.begin(), prefixes.end());
  prefixes.erase(std::unique(prefixes.begin(), prefixes.end()), prefixes.end());
  if (prefixes.size() <= Tables::kMaxPrefixes) t->prefixes = std::move(prefixes);
  t->plan = std::move(plan);
  return std::unique_ptr<SeedFilter>(new SeedFilter(std::move(t)));
}

void SeedFilter::scan(ByteSpan text, int threads, std::vector<std::vector<core::EndHit>>& out,
                      std::atomic<std::uint64_t>* bytes_done) const {
  const Tables& t = *tables_;
  const core::SeedPlan& plan = *t.plan;
  const auto n = static_cast<std::int64_t>(text.size());
  // Blocks of up to kBlockEnds, at least ~4 per thread: the API scans 8 Mi-end segments, and
  // 1 Mi-end blocks left 16 threads half idle there (one 20-mer on the H200 host: 6.0 GB/s
  // against 18 GB/s over the whole text).
  const std::uint64_t per_thread = static_cast<std::uint64_t>(n) / (4 * static_cast<std::uint64_t>(std::max(1, threads))) + 1;
  const std::uint64_t block_ends = std::clamp<std::uint64_t>(per_thread, kMinBlockEnds, kBlockEnds);
  const std::uint64_t blocks = (static_cast<std::uint64_t>(n) + block_ends - 1) / block_ends;
  static const bool has_avx2 = __builtin_cpu_supports("avx2");
  const std::uint64_t key_mask = plan.key_mask();
  const auto reach = static_cast<std::int64_t>(plan.max_m + plan.max_k);
  std::vector<std::vector<Hit>> block_hits(blocks);
  core::parallel_for(blocks, threads, [&](std::size_t b) {
    // Owned ends (e_lo, e_hi]. A piece at s of a pattern at offset o gives ends within k of
    // s - o + m, so pieces starting in [e_lo + 1 - m - k, e_hi + k] reach them.
    const std::int64_t e_lo = static_cast<std::int64_t>(b * block_ends);
    const std::int64_t e_hi = std::min<std::int64_t>(n, e_lo + static_cast<std::int64_t>(block_ends));
    const std::int64_t s_lo = std::max<std::int64_t>(0, e_lo + 1 - reach);
    const std::int64_t s_hi = e_hi + static_cast<std::int64_t>(plan.max_k);
    std::vector<Candidate> windows, starts;
    // Every piece occurrence starting in [s_lo, s_hi], as the windows it gives.
    auto occurrence = [&](std::uint32_t piece, std::int64_t s) {
      for (std::uint32_t u = plan.use_start[piece]; u < plan.use_start[piece + 1]; ++u) {
        const std::uint32_t member = plan.use_member[u];
        const core::SeedPlan::Member& mb = plan.members[member];
        const core::SeedWindow w = core::seed_window(s, plan.use_offset[u], mb.m, mb.k);
        if (mb.hamming) {
          const std::int64_t end = w.start + mb.m;
          if (w.start >= 0 && end <= n && end > e_lo && end <= e_hi) starts.push_back({member, w.start, 0});
        } else if (w.last_end > e_lo && w.first_end <= e_hi) {
          // The window of every alignment ending in [first_end, last_end] with <= k edits that
          // holds the piece; overlapping ones are merged below.
          windows.push_back({member, std::max<std::int64_t>(0, w.start - mb.k), std::min(n, w.last_end)});
        }
      }
    };
    const std::int64_t last = std::min(s_hi, n - static_cast<std::int64_t>(plan.q));
    for (std::int64_t s = s_lo; s <= last; ++s) {
      s = t.prefixes.empty() || !has_avx2
              ? (plan.case_insensitive ? next_candidate<true>(t, text, s, last, key_mask) : next_candidate<false>(t, text, s, last, key_mask))
              : (plan.case_insensitive ? next_candidate_avx2<true>(t, text, s, last, key_mask)
                                    : next_candidate_avx2<false>(t, text, s, last, key_mask));
      if (s > last) break;
      const std::uint8_t* at = text.data() + s;
      const std::uint64_t key =
          key_at(at, static_cast<std::size_t>(std::min<std::int64_t>(8, n - s)), plan.case_insensitive) & key_mask;
      core::for_each_piece_at(plan, text, static_cast<std::size_t>(s), key,
                              [&](std::uint32_t piece) { occurrence(piece, s); });
    }
    std::vector<Hit>& hits = block_hits[b];
    auto by_member = [](const Candidate& a, const Candidate& c) { return a.member != c.member ? a.member < c.member : a.lo < c.lo; };
    // Edit distance: one Myers run per merged window, reading its owned ends.
    std::sort(windows.begin(), windows.end(), by_member);
    for (std::size_t i = 0; i < windows.size();) {
      Candidate w = windows[i];
      for (++i; i < windows.size() && windows[i].member == w.member && windows[i].lo <= w.hi; ++i) w.hi = std::max(w.hi, windows[i].hi);
      const core::SeedPlan::Member& mb = plan.members[w.member];
      const std::uint64_t* peq = plan.peq.data() + std::size_t{w.member} * 256;
      std::uint64_t pv = ~std::uint64_t{0}, mv = 0;
      auto score = static_cast<std::int64_t>(mb.m);
      const core::AtRow last{static_cast<int>(mb.m) - 1};
      for (std::int64_t j = w.lo, stop = std::min(w.hi, e_hi); j < stop; ++j) {
        const auto h = core::myers_step(pv, mv, peq[text[static_cast<std::size_t>(j)]], core::MyersCarry<std::uint64_t>{}, last);
        score += static_cast<std::int64_t>(h.plus) - static_cast<std::int64_t>(h.minus);
        if (score <= static_cast<std::int64_t>(mb.k) && j + 1 > e_lo)
          hits.push_back({mb.index, static_cast<std::uint32_t>(score), static_cast<std::uint64_t>(j + 1)});
      }
    }
    // Hamming: each candidate start once, its mismatches counted.
    std::sort(starts.begin(), starts.end(), by_member);
    starts.erase(std::unique(starts.begin(), starts.end(),
                             [](const Candidate& a, const Candidate& c) { return a.member == c.member && a.lo == c.lo; }),
                 starts.end());
    for (const Candidate& c : starts) {
      const core::SeedPlan::Member& mb = plan.members[c.member];
      const std::uint64_t* peq = plan.peq.data() + std::size_t{c.member} * 256;
      std::uint32_t mismatches = 0;
      for (std::uint32_t r = 0; r < mb.m && mismatches <= mb.k; ++r)
        mismatches += static_cast<std::uint32_t>(((peq[text[static_cast<std::size_t>(c.lo) + r]] >> r) & 1) ^ 1);
      if (mismatches <= mb.k) hits.push_back({mb.index, mismatches, static_cast<std::uint64_t>(c.lo) + mb.m});
    }
    if (bytes_done) bytes_done->fetch_add(static_cast<std::uint64_t>(e_hi - e_lo), std::memory_order_relaxed);
  });
  // Blocks in text order give each pattern's ends ascending (within a block they come per
  // member, ascending).
  for (auto& hits : block_hits) {
    for (const Hit& h : hits) out[h.index].push_back({h.end, h.distance});
    std::vector<Hit>().swap(hits);
  }
}

}  // namespace warpmatch::cpu
