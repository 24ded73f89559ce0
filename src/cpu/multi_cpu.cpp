// CPU backend of multi-pattern exact search.
//
// fast: where the CPU has AVX2, the prefix index's 4-byte bitmap (with the short gate when
// the set has patterns shorter than 4; its 8-byte scan bitmap instead for DNA-like sets,
// core::PrefixIndex::key8, and its long-key bitmap for large sets of long patterns,
// core::PrefixIndex::long_key) tests 32 starts at a time (shuffle, multiply, gather); the
// starts that pass are left-packed without a branch per start and, behind the 4-byte key,
// given the trie's head check 8 at a time (StartFilter); every start left (every start
// without AVX2) is resolved exactly by walking the pattern trie (multi_cpu_trie.hpp), at a
// cost of about the length of the pattern prefix found there. Counting walks a block of starts level by level without text-dependent branches;
// delivering matches in order walks start by start. Chunks of the text run on
// core::parallel_for; matches are delivered in order chunk by chunk.
// mbndm: seed paper 002's baseline (Navarro & Raffinot's multiple BNDM): per pattern subset,
// a window of w bytes read backwards with D = D & B[c], D = (D << 1) & keep, `last`
// remembering the longest pattern prefix seen; a prefix read at the window start is a
// candidate, verified in full.
// naive: every pattern at every position — the oracle.
#include "cpu/multi_cpu.hpp"

#include <algorithm>
#include <atomic>
#include <bit>

#include "core/chunking.hpp"
#include "core/line_select.hpp"
#include "core/parallel.hpp"
#include "cpu/tuning.hpp"

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

/// 16 bytes from t in both 128-bit lanes, 'A'..'Z' folded to 'a'..'z' when ci (a signed
/// compare after moving 'A' to -128).
__attribute__((target("avx2"))) inline __m256i load_16_twice(const std::uint8_t* t, bool ci) {
  __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(t));
  if (ci) {
    const __m128i shifted = _mm_add_epi8(bytes, _mm_set1_epi8(static_cast<char>(128 - 'A')));
    const __m128i upper = _mm_cmplt_epi8(shifted, _mm_set1_epi8(static_cast<char>(-128 + 26)));
    bytes = _mm_or_si128(bytes, _mm_and_si128(upper, _mm_set1_epi8(0x20)));
  }
  return _mm256_broadcastsi128_si256(bytes);
}

/// Of 16 bytes loaded twice, the little-endian 32-bit word at bytes j + kOffset .. j + kOffset
/// + 3 for the 8 starts j = 0..7 (kOffset 0 or 4), by one byte shuffle.
template <int kOffset>
__attribute__((target("avx2"))) inline __m256i start_words(__m256i both) {
  static_assert(kOffset == 0 || kOffset == 4);
  constexpr char o = kOffset;
  const __m256i windows = _mm256_setr_epi8(o + 0, o + 1, o + 2, o + 3, o + 1, o + 2, o + 3, o + 4,  //
                                           o + 2, o + 3, o + 4, o + 5, o + 3, o + 4, o + 5, o + 6,  //
                                           o + 4, o + 5, o + 6, o + 7, o + 5, o + 6, o + 7, o + 8,  //
                                           o + 6, o + 7, o + 8, o + 9, o + 7, o + 8, o + 9, o + 10);
  return _mm256_shuffle_epi8(both, windows);
}

/// For 8 hashes, bit hash >> (32 - bits) of the bitmap (2^bits bits in 32-bit words), moved to
/// each lane's sign bit: the word by one gather, then a shift left by 31 - the bit's index.
__attribute__((target("avx2"))) inline __m256i bitmap_bits(const std::uint32_t* bitmap, __m256i hash, int bits) {
  const __m256i low5 = _mm256_set1_epi32(31);
  const __m256i words = _mm256_i32gather_epi32(reinterpret_cast<const int*>(bitmap),
                                               _mm256_srl_epi32(hash, _mm_cvtsi32_si128(32 - bits + 5)), 4);
  const __m256i bit = _mm256_and_si256(_mm256_srl_epi32(hash, _mm_cvtsi32_si128(32 - bits)), low5);
  return _mm256_sllv_epi32(words, _mm256_sub_epi32(low5, bit));
}

/// The bitmap test of 32 consecutive starts from `t` (reads t[0, 40)), 8 at a time: the 8
/// windows by one byte shuffle of 16 bytes, the hash by one multiply (kKey8: the windows of
/// bytes 4..7 by a second shuffle, prefix_hash8 by two multiplies, against the 8-byte scan
/// bitmap), the bitmap words by one gather; with `gate` (core::PrefixIndex::short_gate) also
/// the gate's bit of each start's first two bytes by one more gather. Bit j of the result:
/// start j passed, a superset of the starts where some pattern occurs.
template <bool kKey8>
__attribute__((target("avx2"))) std::uint32_t bitmap_test_32(const std::uint8_t* t,
                                                             const std::uint32_t* bitmap,
                                                             int bits, bool ci,
                                                             const std::uint32_t* gate) {
  const __m256i multiplier = _mm256_set1_epi32(static_cast<int>(core::kPrefixHash4Multiplier));
  const __m256i multiplier8 = _mm256_set1_epi32(static_cast<int>(core::kPrefixHash8Multiplier));
  const __m256i low5 = _mm256_set1_epi32(31);
  std::uint32_t mask = 0;
  for (int k = 0; k < 4; ++k) {
    const __m256i both = load_16_twice(t + 8 * k, ci);
    const __m256i keys = start_words<0>(both);
    __m256i hash = _mm256_mullo_epi32(keys, multiplier);
    if constexpr (kKey8) hash = _mm256_mullo_epi32(_mm256_xor_si256(hash, start_words<4>(both)), multiplier8);
    __m256i tested = bitmap_bits(bitmap, hash, bits);
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

/// One of core::prefix_hash_long's later steps in 8 lanes: xor-shift, xor the word, multiply.
__attribute__((target("avx2"))) inline __m256i long_key_mix(__m256i h, __m256i word) {
  const __m256i m8 = _mm256_set1_epi32(static_cast<int>(core::kPrefixHash8Multiplier));
  return _mm256_mullo_epi32(_mm256_xor_si256(_mm256_xor_si256(h, _mm256_srli_epi32(h, 15)), word), m8);
}

/// bitmap_test_32 against the long-key scan bitmap (core::PrefixIndex::long_key): each start's
/// first `length` bytes (5..16) as four words, from the 16 bytes at the 8 starts' front (words
/// 0 and 1) and, when length > 8, the 16 bytes 8 further on (words 2 and 3); reads t[0, 40),
/// t[0, 48) when length > 8.
__attribute__((target("avx2"))) std::uint32_t long_key_test_32(const std::uint8_t* t,
                                                               const std::uint32_t* bitmap,
                                                               int bits, int length, bool ci) {
  const __m256i m4 = _mm256_set1_epi32(static_cast<int>(core::kPrefixHash4Multiplier));
  const __m256i m8 = _mm256_set1_epi32(static_cast<int>(core::kPrefixHash8Multiplier));
  __m256i word_mask[4];
  for (int w = 0; w < 4; ++w) word_mask[w] = _mm256_set1_epi32(static_cast<int>(core::long_key_word_mask(length, w)));
  const bool far = length > 8;
  std::uint32_t mask = 0;
  for (int k = 0; k < 4; ++k) {
    const __m256i near = load_16_twice(t + 8 * k, ci);
    const __m256i w0 = _mm256_and_si256(start_words<0>(near), word_mask[0]);
    const __m256i w1 = _mm256_and_si256(start_words<4>(near), word_mask[1]);
    __m256i w2 = _mm256_setzero_si256(), w3 = _mm256_setzero_si256();
    if (far) {
      const __m256i next = load_16_twice(t + 8 * k + 8, ci);
      w2 = _mm256_and_si256(start_words<0>(next), word_mask[2]);
      w3 = _mm256_and_si256(start_words<4>(next), word_mask[3]);
    }
    __m256i hash = _mm256_mullo_epi32(_mm256_xor_si256(_mm256_mullo_epi32(w0, m4), w1), m8);
    hash = long_key_mix(long_key_mix(hash, w2), w3);
    const __m256i tested = bitmap_bits(bitmap, hash, bits);
    mask |= static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(tested))) << (8 * k);
  }
  return mask;
}

/// For each byte value, the indices of its set bits, ascending, then zeros: the lanes that a
/// left-pack of 8 keeps (8 KiB).
struct PackLanes {
  alignas(32) std::uint32_t lanes[256][8];
};
constexpr PackLanes make_pack_lanes() {
  PackLanes p{};
  for (unsigned byte = 0; byte < 256; ++byte)
    for (unsigned bit = 0, n = 0; bit < 8; ++bit)
      if (byte >> bit & 1) p.lanes[byte][n++] = bit;
  return p;
}
constexpr PackLanes kPackLanes = make_pack_lanes();

/// Writes k + j for every set bit j of mask, ascending, to out[0, popcount) without a branch
/// per bit (a loop over the bits mispredicted its exit once per 32 starts: ~11 ns a passed
/// start on the H200 host's Xeon); writes up to out[32). Returns the count.
__attribute__((target("avx2"))) inline std::uint32_t left_pack_32(std::uint32_t mask, std::uint32_t k,
                                                                   std::uint32_t* out) {
  std::uint32_t n = 0;
  for (std::uint32_t b = 0; b < 4; ++b) {
    const std::uint32_t byte = mask >> (8 * b) & 0xff;
    const __m256i lanes = _mm256_load_si256(reinterpret_cast<const __m256i*>(kPackLanes.lanes[byte]));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + n),
                        _mm256_add_epi32(lanes, _mm256_set1_epi32(static_cast<int>(k + 8 * b))));
    n += static_cast<std::uint32_t>(std::popcount(byte));
  }
  return n;
}

/// fold_ascii_word in 32-bit lanes.
__attribute__((target("avx2"))) inline __m256i fold_ascii_lanes(__m256i x) {
  const __m256i high = _mm256_set1_epi8(static_cast<char>(0x80));
  const __m256i low7 = _mm256_andnot_si256(high, x);
  const __m256i ge_a = _mm256_add_epi32(low7, _mm256_set1_epi32(0x3f3f3f3f));
  const __m256i gt_z = _mm256_add_epi32(low7, _mm256_set1_epi32(0x25252525));
  const __m256i upper = _mm256_and_si256(_mm256_andnot_si256(gt_z, ge_a), _mm256_andnot_si256(x, high));
  return _mm256_or_si256(x, _mm256_srli_epi32(upper, 2));
}

/// The trie's head check (heads_may_start, head_hash) of the starts[0, count) (offsets from
/// `from`, each with 8 readable bytes), 8 at a time: the starts' two 4-byte halves by two
/// gathers, per length the hash in lanes and one gather of the bitmap; the starts kept are
/// left-packed in place. starts must hold count + 8 entries. Returns how many were kept.
__attribute__((target("avx2"))) std::uint32_t check_heads_8(const MultiTrie& trie, const std::uint8_t* from,
                                                            std::uint32_t* starts, std::uint32_t count) {
  const __m128i shift = _mm_cvtsi32_si128(32 - trie.head_bits);
  const __m128i word_shift = _mm_cvtsi32_si128(32 - trie.head_bits + 5);
  const auto* heads = reinterpret_cast<const int*>(trie.heads.data());
  const auto* text = reinterpret_cast<const int*>(from);
  const __m256i m4 = _mm256_set1_epi32(static_cast<int>(core::kPrefixHash4Multiplier));
  const __m256i m8 = _mm256_set1_epi32(static_cast<int>(core::kPrefixHash8Multiplier));
  const __m256i low5 = _mm256_set1_epi32(31);
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  std::uint32_t kept = 0;
  for (std::uint32_t i = 0; i < count; i += 8) {
    // Lanes past count read start 0 (readable) and are dropped below.
    const __m256i valid = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(count - i)), lane);
    const __m256i at = _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(starts + i)), valid);
    __m256i lo = _mm256_i32gather_epi32(text, at, 1);
    __m256i hi = _mm256_i32gather_epi32(text + 1, at, 1);
    if (trie.case_insensitive) {
      lo = fold_ascii_lanes(lo);
      hi = fold_ascii_lanes(hi);
    }
    __m256i any = _mm256_setzero_si256();
    for (const int length : trie.head_lengths) {
      const __m256i lo_key = _mm256_and_si256(lo, _mm256_set1_epi32(static_cast<int>(core::long_key_word_mask(length, 0))));
      const __m256i hi_key = _mm256_and_si256(hi, _mm256_set1_epi32(static_cast<int>(core::long_key_word_mask(length, 1))));
      const __m256i mixed = _mm256_xor_si256(
          _mm256_xor_si256(_mm256_mullo_epi32(lo_key, m4), hi_key),
          _mm256_set1_epi32(static_cast<int>(static_cast<std::uint32_t>(length) * kHeadLengthMix)));
      const __m256i hash = _mm256_mullo_epi32(mixed, m8);
      const __m256i words = _mm256_i32gather_epi32(heads, _mm256_srl_epi32(hash, word_shift), 4);
      const __m256i bit = _mm256_and_si256(_mm256_srl_epi32(hash, shift), low5);
      any = _mm256_or_si256(any, _mm256_sllv_epi32(words, _mm256_sub_epi32(low5, bit)));
    }
    const auto keep = static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_and_si256(any, valid))));
    const __m256i lanes = _mm256_load_si256(reinterpret_cast<const __m256i*>(kPackLanes.lanes[keep]));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(starts + kept), _mm256_permutevar8x32_epi32(at, lanes));
    kept += static_cast<std::uint32_t>(std::popcount(keep));
  }
  return kept;
}
#endif

using core::PatternSet;
using core::PrefixIndex;

// Chunk and block sizes: MultiCpuPolicy (cpu/tuning.hpp).
constexpr std::uint64_t kChunkBytes = MultiCpuPolicy::chunk_bytes;
constexpr std::uint64_t kChunkMatches = MultiCpuPolicy::chunk_matches;
constexpr std::uint64_t kBlockStarts = MultiCpuPolicy::block_starts;

struct ChunkScratch {
  std::vector<std::uint32_t> starts;  // a block's starts, offsets from the block
  TrieBatchScratch batch;
  std::vector<std::uint32_t> ids;     // ordered delivery: the patterns found at one start
};

/// Starts after which a walk may read max_length + 8 bytes (the batch walk, the filter; the
/// long-key filter reads 17 bytes past a start only when every pattern has more than 8).
std::uint64_t batch_limit(const PatternSet& set, std::uint64_t n) {
  return n > set.max_length + 8 ? n - set.max_length - 8 : 0;
}

// The prefix index's bitmap test of 32 consecutive starts where the CPU has AVX2 (even on
// English words in English text, where many pass, it saves more walk steps than it costs):
// the long-key scan bitmap where the set has one, else the 8-byte one where it has that (no
// short patterns with either, so no gate), else the 4-byte one.
class StartFilter {
 public:
  explicit StartFilter(const MultiTables& tables) : trie_(*tables.trie) {
#ifdef WARPMATCH_MULTI_AVX2
    on_ = cpu_has_avx2();
    const PrefixIndex& index = *tables.index;
    long_key_ = index.long_key_scan();
    key8_ = !long_key_ && index.key8_scan();
    bitmap_ = reinterpret_cast<const std::uint32_t*>(long_key_ ? index.long_key.data()
                                                     : key8_   ? index.key8.data()
                                                               : index.bit4.data());
    bits_ = long_key_ ? index.long_key_bits : key8_ ? index.key8_bits : index.bits4;
    long_key_bytes_ = index.long_key_bytes;
    gate_ = index.short_gate.empty() ? nullptr : index.short_gate.data();
    ci_ = tables.set->case_insensitive;
    // The 8-byte and long keys already test as many bytes as the head check would. With
    // patterns shorter than 4 bytes (the gate) most starts that pass begin one of them, and
    // the check would test up to 8 lengths for little (300 common English words: 1.6x slower).
    // Sets of 4-byte patterns only: the bitmap tests their whole key already (the paper's
    // sets: 15-30 % slower with the check on one thread of the H200 host).
    check_heads_ = !long_key_ && !key8_ && !gate_ && !trie_.head_lengths.empty() && trie_.head_lengths.back() > 4;
#else
    (void)tables;
#endif
  }
  /// Whether test_32 filters (else every start must be walked).
  bool on() const { return on_; }
  /// Whether a start that passed test_32 at t may begin a pattern (the trie's head check,
  /// where the scan key is the 4-byte one); reads t[0, 8).
  bool confirm(const std::uint8_t* t) const { return !check_heads_ || heads_may_start(trie_, t); }
  /// Whether confirm() checks heads (else it passes every start).
  bool checks_heads() const { return check_heads_; }
  /// test_32's passed starts of t = from + k, as k + j, left-packed to out (which must hold 32
  /// entries); returns how many. Only when on().
  std::uint32_t passed_32(const std::uint8_t* from, std::uint32_t k, std::uint32_t* out) const {
#ifdef WARPMATCH_MULTI_AVX2
    return left_pack_32(test_32(from + k), k, out);
#else
    (void)from, (void)k, (void)out;
    return 0;
#endif
  }
  /// The head check of starts[0, count) (offsets from `from`; starts holds count + 8), the
  /// kept ones left-packed in place; returns how many. Only when checks_heads().
  std::uint32_t check_heads(const std::uint8_t* from, std::uint32_t* starts, std::uint32_t count) const {
#ifdef WARPMATCH_MULTI_AVX2
    return check_heads_8(trie_, from, starts, count);
#else
    (void)from, (void)starts;
    return count;
#endif
  }
  /// Stops the head check (for this filter's scan).
  void stop_checking_heads() { check_heads_ = false; }
  /// Bit j: start t + j passed (a superset of the starts where some pattern occurs); reads
  /// t[0, 48). Only when on().
  std::uint32_t test_32(const std::uint8_t* t) const {
#ifdef WARPMATCH_MULTI_AVX2
    return long_key_ ? long_key_test_32(t, bitmap_, bits_, long_key_bytes_, ci_)
           : key8_   ? bitmap_test_32<true>(t, bitmap_, bits_, ci_, nullptr)
                     : bitmap_test_32<false>(t, bitmap_, bits_, ci_, gate_);
#else
    (void)t;
    return ~0u;
#endif
  }

 private:
  const MultiTrie& trie_;
  bool on_ = false, check_heads_ = false;
#ifdef WARPMATCH_MULTI_AVX2
  bool long_key_ = false, key8_ = false, ci_ = false;
  const std::uint32_t* bitmap_ = nullptr;
  int bits_ = 0, long_key_bytes_ = 0;
  const std::uint32_t* gate_ = nullptr;
#endif
};

// Calls block(from, starts, count) for the starts in [begin, end) (end <= batch_limit),
// until it returns false, a block at a time, as offsets from `from`: the ones that pass the
// StartFilter where it is on, else all of them.
template <class Block>
void for_each_start_block(const MultiTables& tables, const std::uint8_t* t, std::uint64_t begin,
                          std::uint64_t end, std::vector<std::uint32_t>& starts, Block&& block) {
  starts.resize(kBlockStarts + 8);  // + the 8 lanes the head check reads and writes past count
  StartFilter filter(tables);  // per chunk: the head check may stop
  for (std::uint64_t pos = begin; pos < end; pos += kBlockStarts) {
    const auto span = static_cast<std::uint32_t>(std::min(end - pos, kBlockStarts));
    const std::uint8_t* from = t + pos;
    std::uint32_t count = 0;
    if (filter.on()) {
      std::uint32_t k = 0;
      for (; k + 32 <= span; k += 32) count += filter.passed_32(from, k, starts.data() + count);
      // The head check pays where it rejects most of what the bitmap passes; where most of
      // that begins a pattern (dense matches: the 1000 most frequent English words, 4.4 % of
      // starts) it only costs (8 % on the H200 host's Xeon). It stops for the rest of the
      // chunk after a block where it kept more than half.
      if (filter.checks_heads()) {
        const std::uint32_t passed = count;
        count = filter.check_heads(from, starts.data(), count);
        if (passed >= 64 && count * 2 > passed) filter.stop_checking_heads();
      }
      for (; k < span; ++k) starts[count++] = k;
    } else {
      for (; count < span; ++count) starts[count] = count;
    }
    if (!block(from, starts.data(), count)) return;
  }
}

// Whether some pattern starts at `pos` of text.
inline bool match_at(const MultiTrie& trie, ByteSpan text, std::uint64_t pos) {
  bool found = false;
  walk_trie(trie, text.data(), text.size(), pos, [&](std::uint32_t count, std::uint32_t) { found |= count > 0; });
  return found;
}

// The first start in [pos, stop) where some pattern occurs (stop when none), by the fast
// path's filter and walks, start by start in order (grep's line selection).
class FastFirst {
 public:
  FastFirst(const MultiTables& tables, ByteSpan text)
      : trie_(*tables.trie), filter_(tables), text_(text), batch_limit_(batch_limit(*tables.set, text.size())) {}
  std::uint64_t operator()(std::uint64_t pos, std::uint64_t stop) const {
    if (filter_.on())
      for (const std::uint64_t filtered_end = std::min(stop, batch_limit_); pos + 32 <= filtered_end; pos += 32)
        for (std::uint32_t hits = filter_.test_32(text_.data() + pos); hits; hits &= hits - 1) {
          const std::uint64_t at = pos + static_cast<std::uint64_t>(std::countr_zero(hits));
          if (filter_.confirm(text_.data() + at) && match_at(trie_, text_, at)) return at;
        }
    for (; pos < stop; ++pos)
      if (match_at(trie_, text_, pos)) return pos;
    return stop;
  }

 private:
  const MultiTrie& trie_;
  const StartFilter filter_;
  ByteSpan text_;
  std::uint64_t batch_limit_;
};

// report(count, out) for the patterns ending on the walks from every start in [begin, end),
// in no particular order (count may be 0; ids are trie.ids[out, out + count)).
template <class Report>
void fast_chunk_unordered(const MultiTables& tables, ByteSpan text, std::uint64_t begin,
                          std::uint64_t end, ChunkScratch& scratch, Report&& report) {
  const MultiTrie& trie = *tables.trie;
  const std::uint64_t batch_end = std::clamp(batch_limit(*tables.set, text.size()), begin, end);
  for_each_start_block(tables, text.data(), begin, batch_end, scratch.starts,
                       [&](const std::uint8_t* from, const std::uint32_t* starts, std::size_t count) {
                         walk_trie_batch(trie, from, starts, count, scratch.batch, report);
                         return true;
                       });
  for (std::uint64_t pos = batch_end; pos < end; ++pos)
    walk_trie(trie, text.data(), text.size(), pos, report);
}

// Calls emit(id, pos) for every match starting in [begin, end), ordered by (pos, id), until
// full() says so after a start; returns the first start not searched (end when all were).
template <class Emit, class Full>
std::uint64_t fast_chunk_ordered(const MultiTables& tables, ByteSpan text, std::uint64_t begin,
                                 std::uint64_t end, ChunkScratch& scratch, Emit&& emit, Full&& full) {
  const MultiTrie& trie = *tables.trie;
  std::vector<std::uint32_t>& ids = scratch.ids;
  auto at_start = [&](std::uint64_t pos) {
    ids.clear();
    int ends = 0;  // nodes with patterns: each one's ids are ascending already
    walk_trie(trie, text.data(), text.size(), pos, [&](std::uint32_t count, std::uint32_t out) {
      if (count == 0) return;
      ids.insert(ids.end(), trie.ids.begin() + out, trie.ids.begin() + out + count);
      ++ends;
    });
    if (ends > 1) std::sort(ids.begin(), ids.end());
    for (const std::uint32_t id : ids) emit(id, pos);
  };
  const std::uint64_t batch_end = std::clamp(batch_limit(*tables.set, text.size()), begin, end);
  std::uint64_t stopped = end;
  for_each_start_block(tables, text.data(), begin, batch_end, scratch.starts,
                       [&](const std::uint8_t* from, const std::uint32_t* starts, std::size_t count) {
                         const auto offset = static_cast<std::uint64_t>(from - text.data());
                         for (std::size_t k = 0; k < count; ++k) {
                           at_start(offset + starts[k]);
                           if (full()) {
                             stopped = offset + starts[k] + 1;
                             return false;
                           }
                         }
                         return true;
                       });
  if (stopped != end) return stopped;
  for (std::uint64_t pos = batch_end; pos < end; ++pos) {
    at_start(pos);
    if (full() && pos + 1 < end) return pos + 1;
  }
  return end;
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

// Calls emit(id, pos) for every match starting in [begin, end), ordered by (pos, id) except
// for mbndm (per subset). fast stops once full() after a start and returns the first start
// not searched; the others search every start (end returned).
template <class Emit, class Full = bool (*)()>
std::uint64_t scan_chunk(const MultiTables& tables, ByteSpan text, MultiAlgorithm algorithm,
                         std::uint64_t begin, std::uint64_t end, ChunkScratch& scratch, Emit&& emit,
                         Full&& full = [] { return false; }) {
  switch (algorithm) {
    case MultiAlgorithm::fast:
      return fast_chunk_ordered(tables, text, begin, end, scratch, emit, full);
    case MultiAlgorithm::mbndm:
      mbndm_chunk(*tables.set, *tables.plan, text, begin, end, emit);
      break;
    case MultiAlgorithm::naive:
      naive_chunk(*tables.set, text, begin, end, emit);
      break;
  }
  return end;
}

// Calls report(count, ids) for matches starting in [begin, end), `count` patterns ids[0, count)
// at a time (count may be 0), in no particular order: counting needs no order, and fast
// then walks blocks of starts at once.
template <class Report>
void scan_chunk_unordered(const MultiTables& tables, ByteSpan text, MultiAlgorithm algorithm,
                          std::uint64_t begin, std::uint64_t end, ChunkScratch& scratch,
                          Report&& report) {
  if (algorithm == MultiAlgorithm::fast) {
    const std::uint32_t* ids = tables.trie->ids.data();
    fast_chunk_unordered(tables, text, begin, end, scratch,
                         [&](std::uint32_t count, std::uint32_t out) { report(count, ids + out); });
  } else {
    scan_chunk(tables, text, algorithm, begin, end, scratch,
               [&](std::uint32_t id, std::uint64_t) { report(1u, &id); });
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
      ChunkScratch scratch;
      std::uint64_t found = 0;
      scan_chunk_unordered(tables, text, algorithm, chunks[c].begin, chunks[c].owned_end, scratch,
                           [&](std::uint32_t count, const std::uint32_t*) { found += count; });
      counts[c] = found;
    });
    std::uint64_t total = 0;
    for (const auto c : counts) total += c;
    return total;
  }
  // Rounds of a few chunks per worker: scanned in parallel, delivered in order, so memory
  // stays bounded and an early stop wastes at most one round. A chunk holds at most about
  // chunk_matches matches (the round's budget shared out; a start has at most one per
  // pattern): fast stops a chunk when it is full and the next round resumes there (the chunks
  // after it in the round are scanned again); mbndm and naive, which cannot stop mid-chunk,
  // take chunks of chunk_matches / patterns starts.
  const std::size_t round = static_cast<std::size_t>(workers) * 2;
  const std::uint64_t chunk_matches = std::clamp<std::uint64_t>(MultiCpuPolicy::round_matches / round, 4096, kChunkMatches);
  const std::uint64_t patterns = std::max<std::uint64_t>(1, tables.set->size());
  const std::uint64_t chunk_bytes =
      algorithm == MultiAlgorithm::fast ? kChunkBytes
                                        : std::clamp<std::uint64_t>(chunk_matches / patterns, 256, kChunkBytes);
  std::vector<std::vector<Match>> found(round);
  std::vector<std::uint64_t> stopped(round);
  std::uint64_t delivered = 0;
  for (std::uint64_t pos = 0; pos < text.size();) {
    std::vector<core::Chunk> chunks_now;
    for (std::uint64_t b = pos; b < text.size() && chunks_now.size() < round; b += chunk_bytes)
      chunks_now.push_back({b, std::min<std::uint64_t>(text.size(), b + chunk_bytes), 0});
    const std::size_t count = chunks_now.size();
    core::parallel_for(count, workers, [&](std::size_t k) {
      const core::Chunk& ch = chunks_now[k];
      std::vector<Match>& out = found[k];
      out.clear();
      ChunkScratch scratch;
      stopped[k] = scan_chunk(
          tables, text, algorithm, ch.begin, ch.owned_end, scratch,
          [&](std::uint32_t id, std::uint64_t at) { out.push_back(Match{.pattern = id, .start = at, .end = at + tables.set->length(id)}); },
          [&] { return out.size() >= chunk_matches; });
      if (algorithm == MultiAlgorithm::mbndm)
        std::sort(out.begin(), out.end(), [](const Match& a, const Match& b) {
          return a.start != b.start ? a.start < b.start : a.pattern < b.pattern;
        });
    });
    for (std::size_t k = 0; k < count; ++k) {
      pos = stopped[k];
      if (!found[k].empty()) {
        delivered += found[k].size();
        if (!sink(found[k])) return delivered;
      }
      if (stopped[k] != chunks_now[k].owned_end) break;  // resume there
    }
  }
  return delivered;
}

std::vector<std::uint64_t> multi_count_per_pattern(const MultiTables& tables, ByteSpan text,
                                                   MultiAlgorithm algorithm, int threads) {
  const std::size_t n = tables.set->size();
  std::vector<std::uint64_t> counts(n, 0);
  if (text.empty()) return counts;
  // Each worker counts into its own array (an atomic per pattern, shared by all threads, cost
  // 7 ns per match on dense matches: 100 patterns over 100 MB of one letter took 70 s).
  const auto chunks = core::plan_chunks(text.size(), kChunkBytes, 0);
  // No more workers than chunks: each starts a thread (a 1-byte window on 64 cores started 64,
  // which held the windowed-search test 200 s on the 4-GPU host).
  const int workers = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(resolve_threads(algorithm, threads)), chunks.size()));
  std::vector<std::vector<std::uint64_t>> local(static_cast<std::size_t>(workers));
  std::atomic<std::size_t> next{0};
  core::parallel_for(static_cast<std::size_t>(workers), workers, [&](std::size_t w) {
    std::vector<std::uint64_t>& mine = local[w];
    mine.assign(n, 0);
    ChunkScratch scratch;
    for (std::size_t c; (c = next.fetch_add(1)) < chunks.size();)
      scan_chunk_unordered(tables, text, algorithm, chunks[c].begin, chunks[c].owned_end, scratch,
                           [&](std::uint32_t count, const std::uint32_t* ids) {
                             for (std::uint32_t k = 0; k < count; ++k) ++mine[ids[k]];
                           });
  });
  for (const auto& mine : local)
    for (std::size_t i = 0; i < mine.size(); ++i) counts[i] += mine[i];
  return counts;
}

std::vector<std::uint64_t> multi_first_per_line(const MultiTables& tables, ByteSpan text, std::uint64_t limit,
                                                std::uint64_t most, MultiAlgorithm algorithm, int threads) {
  limit = std::min<std::uint64_t>(limit, text.size());
  if (limit == 0 || tables.set->size() == 0) return {};
  if (algorithm == MultiAlgorithm::fast) {
    // No thread for less than a chunk of text.
    const int workers = static_cast<int>(std::clamp<std::uint64_t>(limit / kChunkBytes, 1,
                                                                   static_cast<std::uint64_t>(resolve_threads(algorithm, threads))));
    return core::first_match_per_line(text, limit, workers, [&] { return FastFirst(tables, text); }, most);
  }
  // mbndm and naive cannot stop at a line's first match: every match, one kept per line.
  core::LineFirsts firsts(text, limit, most);
  multi_scan(tables, text, algorithm, threads, false, [&](std::span<const Match> batch) { return firsts.take(batch); });
  return std::move(firsts.firsts());
}

}  // namespace warpmatch::cpu
