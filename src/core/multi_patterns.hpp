// Backend-neutral compiled forms of a multi-pattern set, shared by src/cpu and src/cuda:
//  - PatternSet: the patterns (folded when case-insensitive) as one flat byte array.
//  - PrefixIndex: the `fast` filter. Each pattern is keyed by its first q bytes,
//    q = len for len <= 3, 4 for 4..7, 8 for >= 8. Bitmaps over those keys (direct for
//    q = 1, 2; hashed for 3, 4, 8 — patterns with q = 8 also set the 4-byte bitmap) reject
//    most text positions with one test; a hash table per q maps a key to the ids of its
//    patterns (ascending), which are verified. False positives only, never false negatives.
//    Sets over a small alphabet (DNA) whose 4-byte prefixes cover most of what the alphabet
//    allows pass nearly every start of such text; when every pattern has >= 8 bytes they get
//    an 8-byte scan bitmap too, which the scanning filters (AVX2, the GPU scan) test instead;
//    large sets whose 4- or 8-byte keys pass most starts get a long-key one (up to 16 bytes).
//  - MbndmPlan: seed paper 002's M-BNDM — patterns grouped into subsets packed in one
//    64-bit word (each truncated to the subset's window length w), one B table per subset.
// Everything is flat arrays so the CUDA side copies them as they are.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/exact_pattern.hpp"
#include "warpmatch/common.hpp"

namespace warpmatch::core {

struct PatternSet {
  std::vector<std::uint8_t> bytes;     // all patterns, concatenated (folded when ci)
  std::vector<std::uint64_t> offsets;  // size n + 1
  bool case_insensitive = false;
  std::uint64_t min_length = 0, max_length = 0;

  std::size_t size() const { return offsets.empty() ? 0 : offsets.size() - 1; }
  std::uint64_t length(std::size_t i) const { return offsets[i + 1] - offsets[i]; }
  ByteSpan pattern(std::size_t i) const {
    return {bytes.data() + offsets[i], static_cast<std::size_t>(length(i))};
  }
  /// Reference comparison (caller guarantees pos + length(i) <= text.size()).
  bool matches_at(std::size_t i, ByteSpan text, std::uint64_t pos) const {
    const ByteSpan p = pattern(i);
    for (std::size_t j = 0; j < p.size(); ++j) {
      std::uint8_t c = text[pos + j];
      if (case_insensitive) c = fold_ascii(c);
      if (c != p[j]) return false;
    }
    return true;
  }
};

/// Builds the set; throws InvalidArgument for an empty set or an empty pattern.
PatternSet make_pattern_set(const std::vector<std::string>& patterns, bool case_insensitive);

// ---- the fast filter -----------------------------------------------------------------

/// q of a pattern of length len: the key length of its class.
constexpr int prefix_key_length(std::uint64_t len) {
  return len >= 8 ? 8 : (len >= 4 ? 4 : static_cast<int>(len));
}
/// Class slots: 0:q=1, 1:q=2, 2:q=3, 3:q=4, 4:q=8.
constexpr int prefix_class(int q) { return q == 8 ? 4 : q - 1; }
constexpr int kPrefixClasses = 5;

/// Low `len` bytes of a little-endian word (len in 0..8).
constexpr std::uint64_t low_bytes_mask(int len) {
  return len >= 8 ? ~0ull : ((1ull << (8 * len)) - 1);
}

/// Hash used for the hashed bitmaps and the tables (identical on host and device).
constexpr std::uint64_t prefix_hash(std::uint64_t key) {
  return (key ^ (key >> 29)) * 0x9E3779B97F4A7C15ull;
}

/// Index into the 4-byte bitmap (2^bits bits): a 32-bit multiplicative hash, two
/// instructions on the GPU and the CPU, taken on every text position.
constexpr std::uint32_t kPrefixHash4Multiplier = 0x9E3779B1u;
constexpr std::uint32_t prefix_hash4(std::uint64_t key4, int bits) {
  return static_cast<std::uint32_t>(static_cast<std::uint32_t>(key4) * kPrefixHash4Multiplier) >>
         (32 - bits);
}

/// Index into the 8-byte scan bitmap (2^bits bits) of the 8 bytes lo | hi << 32: two 32-bit
/// multiplies, as cheap as prefix_hash4 on the GPU and in AVX2 lanes; every bit of the key
/// reaches the top bits (the first product's top bits depend on all of lo).
constexpr std::uint32_t kPrefixHash8Multiplier = 0x85EBCA77u;
constexpr std::uint32_t prefix_hash8(std::uint32_t lo, std::uint32_t hi, int bits) {
  return ((lo * kPrefixHash4Multiplier ^ hi) * kPrefixHash8Multiplier) >> (32 - bits);
}

/// Index into the long-key scan bitmap (2^bits bits) of a start's first L bytes (5 <= L <= 16)
/// as four little-endian 32-bit words, the bytes past L zeroed: prefix_hash8's two multiplies
/// over the first two, one more multiply per further word, an xor-shift between them so the
/// later words do not meet only the earlier words' weakly mixed low bits.
/// (prefix_hash_long_mix: the 32-bit hash before that shift, as the GPU scan takes it.)
constexpr std::uint32_t prefix_hash_long_mix(std::uint32_t w0, std::uint32_t w1, std::uint32_t w2,
                                             std::uint32_t w3) {
  std::uint32_t h = (w0 * kPrefixHash4Multiplier ^ w1) * kPrefixHash8Multiplier;
  h = ((h ^ h >> 15) ^ w2) * kPrefixHash8Multiplier;
  return ((h ^ h >> 15) ^ w3) * kPrefixHash8Multiplier;
}
constexpr std::uint32_t prefix_hash_long(std::uint32_t w0, std::uint32_t w1, std::uint32_t w2,
                                         std::uint32_t w3, int bits) {
  return prefix_hash_long_mix(w0, w1, w2, w3) >> (32 - bits);
}

/// Which bytes of word k (0..3) of a start's first `length` bytes belong to the key.
constexpr std::uint32_t long_key_word_mask(int length, int k) {
  const int bytes = length - 4 * k;
  return bytes >= 4 ? ~0u : (bytes <= 0 ? 0u : (1u << (8 * bytes)) - 1);
}

/// ASCII case folding of 8 bytes at once (SWAR): 'A'..'Z' -> 'a'..'z'.
constexpr std::uint64_t fold_ascii_word(std::uint64_t x) {
  constexpr std::uint64_t high = 0x8080808080808080ull;
  const std::uint64_t low7 = x & ~high;
  const std::uint64_t ge_a = low7 + 0x3f3f3f3f3f3f3f3full;  // high bit set when >= 'A' (0x41)
  const std::uint64_t gt_z = low7 + 0x2525252525252525ull;  // high bit set when > 'Z' (0x5a)
  const std::uint64_t upper = ge_a & ~gt_z & ~x & high;
  return x | (upper >> 2);
}

struct PrefixTableEntry {
  std::uint64_t key = 0;   // the q-byte prefix, little-endian
  std::uint32_t begin = 0; // range in PrefixIndex::ids
  std::uint32_t count = 0; // 0 = empty slot
};

struct PrefixIndex {
  std::uint32_t class_mask = 0;  // bit prefix_class(q) set when some pattern has that q
  // Bitmaps (64-bit words). bit1: 256 bits direct; bit2: 65536 bits direct;
  // bit3/bit8: 2^bits_q bits indexed by prefix_hash(key) >> (64 - bits_q); bit4 by
  // prefix_hash4(key, bits4).
  std::vector<std::uint64_t> bit1, bit2, bit3, bit4, bit8;
  int bits3 = 0, bits4 = 0, bits8 = 0;
  // The short gate (only when some pattern is shorter than 4): 65536 bits in 32-bit words,
  // bit k (k = the first two bytes at a start, little-endian) set iff a pattern of length
  // 1..3 may start there — length 1: its byte then any byte; 2 and 3: their first two. One
  // direct test per start that the batched filters (AVX2, GPU scan) add to the 4-byte bitmap.
  std::vector<std::uint32_t> short_gate;
  // The 8-byte scan bitmap (empty unless key8_scan()): 2^key8_bits bits, bit
  // prefix_hash8(first 8 bytes) of every pattern. Built when every pattern has >= 8 bytes
  // and the distinct 4-byte prefixes are at least 1/8 of alphabet^4 (the alphabet: the bytes
  // of those prefixes, at most 16 of them), i.e. text over the patterns' alphabet would pass
  // bit4 at more than one start in 8 (1000 DNA 12-mers: nearly all 256 ACGT 4-mers).
  std::vector<std::uint64_t> key8;
  int key8_bits = 0;
  bool key8_scan() const { return !key8.empty(); }
  // The long-key scan bitmap (empty unless long_key_scan()): 2^long_key_bits bits, bit
  // prefix_hash_long(first long_key_bytes bytes) of every pattern, L = long_key_bytes =
  // min(shortest pattern, 16). Built for large sets whose 4-byte (or 8-byte) scan key would
  // pass more than one start in 8 of text over the patterns' alphabet, while L bytes would
  // pass few: 100,000 DNA 20-mers hold every ACGT 8-mer, 10^6 random a-z words of 6-12
  // letters most 4-letter strings. The trie walks behind the filter then start at a few
  // starts in 100 instead of at every one.
  std::vector<std::uint64_t> long_key;
  int long_key_bits = 0, long_key_bytes = 0;
  bool long_key_scan() const { return !long_key.empty(); }
  // Open-addressing hash table per class (power-of-two sizes, linear probing).
  std::vector<PrefixTableEntry> table[kPrefixClasses];
  std::vector<std::uint32_t> ids;      // pattern ids grouped by key, ascending within a key
  std::vector<std::uint64_t> head8;    // first min(len, 8) bytes of each pattern, zero-padded
  std::uint64_t memory_bytes() const;
};

/// long_key: also the long-key scan bitmap where it pays (the backends' scans then test it
/// instead of the 4- or 8-byte one; tests build indexes without it to compare).
PrefixIndex build_prefix_index(const PatternSet& set, bool long_key = false);

/// Bit test in a bitmap of 64-bit words.
inline bool test_bit(const std::uint64_t* bits, std::uint64_t i) {
  return (bits[i >> 6] >> (i & 63)) & 1;
}

/// Looks up `key` in a class table; returns the entry or nullptr.
inline const PrefixTableEntry* find_prefix(const std::vector<PrefixTableEntry>& table,
                                           std::uint64_t key) {
  if (table.empty()) return nullptr;
  const std::uint64_t mask = table.size() - 1;
  for (std::uint64_t slot = prefix_hash(key) >> 20 & mask;; slot = (slot + 1) & mask) {
    const PrefixTableEntry& e = table[slot];
    if (e.count == 0) return nullptr;
    if (e.key == key) return &e;
  }
}

// ---- M-BNDM (seed paper 002) ---------------------------------------------------------

/// One subset: up to 64 / w patterns, each truncated to the window length w, packed in one
/// 64-bit word; pattern k occupies bits [k*w, k*w + w). B[c] has bit k*w + (w - 1 - i) set
/// when the k-th pattern's byte i equals c (both cases when case-insensitive).
struct MbndmSubset {
  std::uint32_t window = 0;       // w
  std::uint32_t first = 0;        // range in MbndmPlan::members
  std::uint32_t count = 0;        // r
  std::uint64_t prefix_bits = 0;  // bit k*w + w - 1 of every member: "a pattern prefix read"
  std::uint64_t keep_bits = 0;    // all member bits except each block's lowest (cleared after shifts)
  std::uint64_t all_bits = 0;     // every member bit
};

struct MbndmPlan {
  std::vector<MbndmSubset> subsets;
  std::vector<std::uint32_t> members;  // pattern ids, member k of a subset at first + k
  std::vector<std::uint64_t> tables;   // 256 words per subset
  std::uint64_t memory_bytes() const;
};

/// keywords_per_word: most patterns in one subset (1..64); window_cap: longest window used.
MbndmPlan build_mbndm_plan(const PatternSet& set, int keywords_per_word, int window_cap);

/// Receives matches in ascending (start, pattern) order, a batch at a time; returns false
/// to stop. Backends call it only from the calling thread.
using MatchBatchSink = std::function<bool(std::span<const Match> matches)>;

}  // namespace warpmatch::core
