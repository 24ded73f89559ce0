// CPU backend of multi-pattern exact search.
//
// fast: at every start position the next 8 text bytes are loaded as one little-endian word
// (ASCII-folded by SWAR when case-insensitive); the prefix index's bitmaps reject most
// positions with one bit test, survivors are looked up by their q-byte key and every pattern
// of the key is verified (first 8 bytes as one word compare, the rest bytewise). Where the
// CPU has AVX2, 32 starts are tested at a time (shuffle, multiply, gather), with the short
// gate (one direct 2-byte test) when the set has patterns shorter than 4. Chunks of the text run on core::parallel_for; matches are delivered
// in order chunk by chunk.
// mbndm: seed paper 002's baseline (Navarro & Raffinot's multiple BNDM): per pattern subset,
// a window of w bytes read backwards with D = D & B[c], D = (D << 1) & keep, `last`
// remembering the longest pattern prefix seen; a prefix read at the window start is a
// candidate, verified in full.
// naive: every pattern at every position — the oracle.
#include "cpu/multi_cpu.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>

#include "core/chunking.hpp"
#include "core/parallel.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define WARPMATCH_MULTI_AVX2 1
#endif

namespace warpmatch::cpu {
namespace {

#ifdef WARPMATCH_MULTI_AVX2
bool cpu_has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

/// The 4-byte bitmap test of 32 consecutive starts from `t` (reads t[0, 40)), 8 at a time:
/// the 8 windows by one byte shuffle of 16 bytes, the hash by one multiply, the bitmap words
/// by one gather; with `gate` (core::PrefixIndex::short_gate) also the gate's bit of each
/// start's first two bytes by one more gather. Bit j of the result: start j passed. A
/// superset of the scalar loop's candidates (process() tests each class exactly).
__attribute__((target("avx2"))) std::uint32_t bitmap_test_32(const std::uint8_t* t,
                                                             const std::uint32_t* bitmap,
                                                             int bits4, bool ci,
                                                             const std::uint32_t* gate) {
  const __m256i windows = _mm256_setr_epi8(0, 1, 2, 3, 1, 2, 3, 4, 2, 3, 4, 5, 3, 4, 5, 6,  //
                                           4, 5, 6, 7, 5, 6, 7, 8, 6, 7, 8, 9, 7, 8, 9, 10);
  const __m256i multiplier = _mm256_set1_epi32(static_cast<int>(core::kPrefixHash4Multiplier));
  const __m128i word_shift = _mm_cvtsi32_si128(32 - bits4 + 5);
  const __m128i bit_shift = _mm_cvtsi32_si128(32 - bits4);
  const __m256i low5 = _mm256_set1_epi32(31);
  std::uint32_t mask = 0;
  for (int k = 0; k < 4; ++k) {
    __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(t + 8 * k));
    if (ci) {  // 'A'..'Z' -> 'a'..'z': signed compare after moving 'A' to -128
      const __m128i shifted = _mm_add_epi8(bytes, _mm_set1_epi8(static_cast<char>(128 - 'A')));
      const __m128i upper = _mm_cmplt_epi8(shifted, _mm_set1_epi8(static_cast<char>(-128 + 26)));
      bytes = _mm_or_si128(bytes, _mm_and_si128(upper, _mm_set1_epi8(0x20)));
    }
    const __m256i keys = _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(bytes), windows);
    const __m256i hash = _mm256_mullo_epi32(keys, multiplier);
    const __m256i words = _mm256_i32gather_epi32(reinterpret_cast<const int*>(bitmap),
                                                 _mm256_srl_epi32(hash, word_shift), 4);
    // Move the tested bit to the sign: shift left by 31 - bit.
    const __m256i bit = _mm256_and_si256(_mm256_srl_epi32(hash, bit_shift), low5);
    __m256i tested = _mm256_sllv_epi32(words, _mm256_sub_epi32(low5, bit));
    if (gate) {
      const __m256i two = _mm256_and_si256(keys, _mm256_set1_epi32(0xffff));
      const __m256i gate_words =
          _mm256_i32gather_epi32(reinterpret_cast<const int*>(gate), _mm256_srli_epi32(two, 5), 4);
      const __m256i gate_bit = _mm256_and_si256(two, low5);
      tested = _mm256_or_si256(tested, _mm256_sllv_epi32(gate_words, _mm256_sub_epi32(low5, gate_bit)));
    }
    mask |= static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(tested))) << (8 * k);
  }
  return mask;
}
#endif

using core::PatternSet;
using core::PrefixIndex;

// Owned start positions per chunk: large enough to amortise thread start-up, small enough
// that a round's matches stay bounded and all threads get work.
constexpr std::uint64_t kChunkBytes = 1ull << 20;

// Verifies pattern `id` at `pos`, given the (folded) 8-byte word there and the bytes left.
inline bool verify(const PatternSet& set, const PrefixIndex& index, std::uint32_t id,
                   const std::uint8_t* text, std::uint64_t pos, std::uint64_t word,
                   std::uint64_t avail) {
  const std::uint64_t len = set.offsets[id + 1] - set.offsets[id];
  if (len > avail) return false;
  if (len <= 8) return (word & core::low_bytes_mask(static_cast<int>(len))) == index.head8[id];
  if (word != index.head8[id]) return false;
  const std::uint8_t* p = set.bytes.data() + set.offsets[id];
  const std::uint8_t* t = text + pos;
  if (!set.case_insensitive) return std::memcmp(p + 8, t + 8, len - 8) == 0;
  for (std::uint64_t j = 8; j < len; ++j)
    if (core::fold_ascii(t[j]) != p[j]) return false;
  return true;
}

// Calls emit(id, pos) for every match starting in [begin, end), ordered by (pos, id).
template <class Emit>
void fast_chunk(const PatternSet& set, const PrefixIndex& index, ByteSpan text,
                std::uint64_t begin, std::uint64_t end, std::vector<std::uint32_t>& scratch,
                Emit&& emit) {
  const std::uint8_t* t = text.data();
  const std::uint64_t n = text.size();
  const bool ci = set.case_insensitive;
  const std::uint32_t classes = index.class_mask;
  const bool has1 = classes & 1, has2 = classes & 2, has3 = classes & 4;
  const bool has4 = classes & 8, has8 = classes & 16;
  const std::uint64_t* bit1 = index.bit1.data();
  const std::uint64_t* bit2 = index.bit2.data();
  const std::uint64_t* bit3 = index.bit3.data();
  const std::uint64_t* bit4 = index.bit4.data();
  const std::uint64_t* bit8 = index.bit8.data();
  const int shift3 = 64 - index.bits3, bits4 = index.bits4, shift8 = 64 - index.bits8;

  auto collect = [&](int cls, std::uint64_t key, std::uint64_t pos, std::uint64_t word,
                     std::uint64_t avail) {
    const core::PrefixTableEntry* e = core::find_prefix(index.table[cls], key);
    if (!e) return 0;
    int sources = 0;
    for (std::uint32_t k = 0; k < e->count; ++k) {
      const std::uint32_t id = index.ids[e->begin + k];
      if (verify(set, index, id, t, pos, word, avail)) {
        scratch.push_back(id);
        sources = 1;
      }
    }
    return sources;
  };

  // Everything about one start position (tails and short classes included).
  auto process = [&](std::uint64_t pos) {
    const std::uint64_t avail = n - pos;
    std::uint64_t word = 0;
    if (avail >= 8) std::memcpy(&word, t + pos, 8);
    else std::memcpy(&word, t + pos, avail);
    if (ci) word = core::fold_ascii_word(word);
    // Cheap rejection first: the one or two bitmaps that hold most patterns.
    bool maybe4 = false;
    if (has4 | has8) {
      const std::uint64_t k4 = word & 0xffffffffull;
      maybe4 = avail >= 4 && core::test_bit(bit4, core::prefix_hash4(k4, bits4));
    }
    const bool maybe1 = has1 && core::test_bit(bit1, word & 0xff);
    const bool maybe2 = has2 && avail >= 2 && core::test_bit(bit2, word & 0xffff);
    const bool maybe3 = has3 && avail >= 3 &&
                        core::test_bit(bit3, core::prefix_hash(word & 0xffffff) >> shift3);
    if (!(maybe4 | maybe1 | maybe2 | maybe3)) return;
    scratch.clear();
    int sources = 0;
    if (maybe1) sources += collect(0, word & 0xff, pos, word, avail);
    if (maybe2) sources += collect(1, word & 0xffff, pos, word, avail);
    if (maybe3) sources += collect(2, word & 0xffffff, pos, word, avail);
    if (maybe4) {
      if (has4) sources += collect(3, word & 0xffffffffull, pos, word, avail);
      if (has8 && avail >= 8 && core::test_bit(bit8, core::prefix_hash(word) >> shift8))
        sources += collect(4, word, pos, word, avail);
    }
    if (sources > 1) std::sort(scratch.begin(), scratch.end());
    for (const std::uint32_t id : scratch) emit(id, pos);
  };

  // One 8-byte load holds the keys of 4 consecutive starts: test them all, and send only the
  // rare survivors through process(). Starts with fewer than 8 bytes left go there directly.
  std::uint64_t pos = begin;
  const bool long_keys = has4 | has8;
  const std::uint64_t fast_end = std::min(end, n >= 8 ? n - 7 : 0);
#ifdef WARPMATCH_MULTI_AVX2
  // 32 starts per step with AVX2 (reads 40 bytes); the short gate for patterns shorter than 4.
  if (cpu_has_avx2()) {
    const auto* bitmap32 = reinterpret_cast<const std::uint32_t*>(bit4);  // little-endian
    const std::uint32_t* gate = (has1 | has2 | has3) ? index.short_gate.data() : nullptr;
    for (; pos + 33 <= fast_end; pos += 32) {
      std::uint32_t hits = bitmap_test_32(t + pos, bitmap32, bits4, ci, gate);
      for (; hits; hits &= hits - 1) process(pos + static_cast<unsigned>(std::countr_zero(hits)));
    }
  }
#endif
  for (; pos + 4 <= fast_end; pos += 4) {
    std::uint64_t word;
    std::memcpy(&word, t + pos, 8);
    if (ci) word = core::fold_ascii_word(word);
    unsigned hits = 0;
    for (unsigned j = 0; j < 4; ++j) {
      const std::uint64_t w = word >> (8 * j);
      bool maybe = long_keys && core::test_bit(bit4, core::prefix_hash4(w, bits4));
      maybe |= has1 && core::test_bit(bit1, w & 0xff);
      maybe |= has2 && core::test_bit(bit2, w & 0xffff);
      maybe |= has3 && core::test_bit(bit3, core::prefix_hash(w & 0xffffff) >> shift3);
      hits |= static_cast<unsigned>(maybe) << j;
    }
    if (__builtin_expect(hits == 0, 1)) continue;
    for (unsigned j = 0; j < 4; ++j)
      if (hits >> j & 1) process(pos + j);
  }
  for (; pos < end; ++pos) process(pos);
}

// M-BNDM over every subset for starts in [begin, end); emit order is per subset, so the
// caller sorts when it needs (start, pattern) order.
template <class Emit>
void mbndm_chunk(const PatternSet& set, const core::MbndmPlan& plan, ByteSpan text,
                 std::uint64_t begin, std::uint64_t end, Emit&& emit) {
  const std::uint8_t* t = text.data();
  const std::uint64_t n = text.size();
  for (std::size_t s = 0; s < plan.subsets.size(); ++s) {
    const core::MbndmSubset& sub = plan.subsets[s];
    const std::uint64_t* B = plan.tables.data() + 256 * s;
    const std::uint32_t w = sub.window;
    for (std::uint64_t pos = begin; pos < end && pos + w <= n;) {
      std::uint64_t D = sub.all_bits;
      std::uint32_t j = w, last = w;
      while (D) {
        D &= B[t[pos + j - 1]];
        --j;
        if (D & sub.prefix_bits) {
          if (j > 0) {
            last = j;
          } else {
            // The window equals the w-byte prefix of these members: verify them in full.
            for (std::uint64_t hits = D & sub.prefix_bits; hits; hits &= hits - 1) {
              const std::uint32_t k = static_cast<std::uint32_t>(std::countr_zero(hits)) / w;
              const std::uint32_t id = plan.members[sub.first + k];
              if (pos + set.length(id) <= n && set.matches_at(id, text, pos)) emit(id, pos);
            }
          }
        }
        D = (D << 1) & sub.keep_bits;
      }
      pos += last;
    }
  }
}

template <class Emit>
void naive_chunk(const PatternSet& set, ByteSpan text, std::uint64_t begin, std::uint64_t end,
                 Emit&& emit) {
  for (std::uint64_t pos = begin; pos < end; ++pos)
    for (std::size_t i = 0; i < set.size(); ++i)
      if (pos + set.length(i) <= text.size() && set.matches_at(i, text, pos))
        emit(static_cast<std::uint32_t>(i), pos);
}

template <class Emit>
void scan_chunk(const MultiTables& tables, ByteSpan text, MultiAlgorithm algorithm,
                std::uint64_t begin, std::uint64_t end, std::vector<std::uint32_t>& scratch,
                Emit&& emit) {
  switch (algorithm) {
    case MultiAlgorithm::fast:
      fast_chunk(*tables.set, *tables.index, text, begin, end, scratch, emit);
      break;
    case MultiAlgorithm::mbndm:
      mbndm_chunk(*tables.set, *tables.plan, text, begin, end, emit);
      break;
    case MultiAlgorithm::naive:
      naive_chunk(*tables.set, text, begin, end, emit);
      break;
  }
}

int resolve_threads(MultiAlgorithm algorithm, int threads) {
  if (algorithm == MultiAlgorithm::naive) return 1;
  return threads > 0 ? threads : hardware_threads();
}

}  // namespace

std::uint64_t multi_scan(const MultiTables& tables, ByteSpan text, MultiAlgorithm algorithm,
                         int threads, bool count_only, const core::MatchBatchSink& sink) {
  if (text.empty()) return 0;
  const int workers = resolve_threads(algorithm, threads);
  // Chunks own start positions; they read past their end (overlap = longest pattern - 1)
  // straight from `text`, which is whole in memory.
  const auto chunks = core::plan_chunks(text.size(), kChunkBytes, 0);
  if (count_only) {
    std::vector<std::uint64_t> counts(chunks.size(), 0);
    core::parallel_for(chunks.size(), workers, [&](std::size_t c) {
      std::vector<std::uint32_t> scratch;
      std::uint64_t found = 0;
      scan_chunk(tables, text, algorithm, chunks[c].begin, chunks[c].owned_end, scratch,
                 [&](std::uint32_t, std::uint64_t) { ++found; });
      counts[c] = found;
    });
    std::uint64_t total = 0;
    for (const auto c : counts) total += c;
    return total;
  }
  // Rounds of a few chunks per worker: scanned in parallel, delivered in order, so memory
  // stays bounded and an early stop wastes at most one round.
  const std::size_t round = static_cast<std::size_t>(workers) * 2;
  std::vector<std::vector<Match>> found(round);
  std::uint64_t delivered = 0;
  for (std::size_t first = 0; first < chunks.size(); first += round) {
    const std::size_t count = std::min(round, chunks.size() - first);
    core::parallel_for(count, workers, [&](std::size_t k) {
      const core::Chunk& ch = chunks[first + k];
      std::vector<Match>& out = found[k];
      out.clear();
      std::vector<std::uint32_t> scratch;
      scan_chunk(tables, text, algorithm, ch.begin, ch.owned_end, scratch,
                 [&](std::uint32_t id, std::uint64_t pos) {
                   out.push_back(Match{id, pos, pos + tables.set->length(id)});
                 });
      if (algorithm == MultiAlgorithm::mbndm)
        std::sort(out.begin(), out.end(), [](const Match& a, const Match& b) {
          return a.start != b.start ? a.start < b.start : a.pattern < b.pattern;
        });
    });
    for (std::size_t k = 0; k < count; ++k) {
      if (found[k].empty()) continue;
      delivered += found[k].size();
      if (!sink(found[k])) return delivered;
    }
  }
  return delivered;
}

std::vector<std::uint64_t> multi_count_per_pattern(const MultiTables& tables, ByteSpan text,
                                                   MultiAlgorithm algorithm, int threads) {
  const std::size_t n = tables.set->size();
  std::vector<std::atomic<std::uint64_t>> shared(n);
  if (!text.empty()) {
    const auto chunks = core::plan_chunks(text.size(), kChunkBytes, 0);
    core::parallel_for(chunks.size(), resolve_threads(algorithm, threads), [&](std::size_t c) {
      std::vector<std::uint32_t> scratch;
      scan_chunk(tables, text, algorithm, chunks[c].begin, chunks[c].owned_end, scratch,
                 [&](std::uint32_t id, std::uint64_t) {
                   shared[id].fetch_add(1, std::memory_order_relaxed);
                 });
    });
  }
  std::vector<std::uint64_t> counts(n);
  for (std::size_t i = 0; i < n; ++i) counts[i] = shared[i].load(std::memory_order_relaxed);
  return counts;
}

}  // namespace warpmatch::cpu
