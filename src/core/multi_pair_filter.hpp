// The pair filter of multi-pattern search: one probe answers two consecutive starts.
//
// The 4-byte prefixes of two neighbouring starts i and i + 1 share the 3 bytes
// t[i+1..i+3]. A table of 32-bit words is indexed by a hash of those 3 bytes; in the word,
// the low 16 bits stand for the byte before them (start i: bit t[i] & 15) and the high 16
// bits for the byte after them (start i + 1: bit 16 + (t[i+4] & 15)). Each prefix
// p0 p1 p2 p3 of a pattern of length >= 4 sets bit p0 & 15 in the word of p1 p2 p3 and bit
// 16 + (p3 & 15) in the word of p0 p1 p2. A start whose bit is clear begins no pattern of
// length >= 4; a set bit is a candidate (false positives only).
// The GPU scan probes shared memory once per two starts instead of once per start.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/multi_patterns.hpp"

namespace warpmatch::core {

/// Narrow: 32-bit words, 16 bits per side, keyed by 4 bits of the byte. Wide: 64-bit
/// entries (two 32-bit words, low then high), 32 bits per side keyed by 5 bits of the byte:
/// half the false positives for the same number of entries; the high word's bits are stored
/// rotated by one (byte b at bit (b + 1) & 31), so that rotating each word right by its
/// byte leaves the two tests at bits 0 and 1 (fewer instructions per pair on the GPU).
struct PairFilter {
  std::vector<std::uint32_t> words;  // 2^bits entries of 1 (narrow) or 2 (wide) words
  int bits = 0;
  bool wide = false;
};

/// The hash multiplier pre-shifted by one byte: x * kPairHashMultiplier depends only on the
/// low 24 bits of x, so the kernels hash 4 loaded bytes without masking the fourth.
constexpr std::uint32_t kPairHashMultiplier = kPrefixHash4Multiplier << 8;

/// Entry of the 3-byte key (the low 24 bits of `key3`) in a table of 2^bits entries.
constexpr std::uint32_t pair_entry_index(std::uint32_t key3, int bits) {
  return (key3 * kPairHashMultiplier) >> (32 - bits);
}

/// The filter over the first 4 bytes of every pattern of length >= 4 (folded when the set is).
inline PairFilter build_pair_filter(const PatternSet& set, int bits, bool wide) {
  PairFilter filter;
  filter.bits = bits;
  filter.wide = wide;
  filter.words.assign(std::size_t{wide ? 2u : 1u} << bits, 0);
  const int side = wide ? 32 : 16;  // bits per side
  for (std::size_t i = 0; i < set.size(); ++i) {
    if (set.length(i) < 4) continue;
    const std::uint8_t* p = set.bytes.data() + set.offsets[i];
    const std::uint32_t prefix = p[0] | p[1] << 8 | p[2] << 16 | static_cast<std::uint32_t>(p[3]) << 24;
    const std::uint32_t before = pair_entry_index(prefix >> 8, bits), after = pair_entry_index(prefix, bits);
    const std::uint32_t before_bit = p[0] & (side - 1), after_bit = p[3] & (side - 1);
    if (wide) {
      filter.words[2 * before] |= 1u << before_bit;
      filter.words[2 * after + 1] |= 1u << ((after_bit + 1) & 31);
    } else {
      filter.words[before] |= 1u << before_bit;
      filter.words[after] |= 1u << (16 + after_bit);
    }
  }
  return filter;
}

/// Whether the first (second = false) or the second start of the 5 bytes `window`
/// (t[0..4], little-endian) passes; the reference the kernels' bit tricks are tested against.
inline bool pair_filter_passes(const PairFilter& f, std::uint64_t window, bool second) {
  const std::uint32_t entry = pair_entry_index(static_cast<std::uint32_t>(window >> 8), f.bits);
  const unsigned byte = static_cast<unsigned>(second ? window >> 32 : window) & 0xff;
  if (f.wide) return (f.words[2 * entry + (second ? 1 : 0)] >> ((byte + (second ? 1 : 0)) & 31)) & 1;
  return (f.words[entry] >> (second ? 16 + (byte & 15) : byte & 15)) & 1;
}

// ---- verification behind the pair filter ---------------------------------------------
//
// The pair scan's survivors are verified against every pattern of length >= 4 keyed by its
// first 4 bytes in one open-addressing table (linear probing, <= 50 % full): a survivor
// costs its 8 text bytes, one slot (16 bytes) and its members (16 bytes each, first 8 bytes
// and length inline), instead of the class tables' chain of ids, offsets and heads.

struct PairVerifySlot {
  std::uint32_t key4 = 0;   // the first 4 bytes, little-endian
  std::uint32_t begin = 0;  // range in PairVerifyIndex::members
  std::uint32_t count = 0;  // 0 = empty slot
  std::uint32_t unused = 0;
};

struct PairVerifyMember {
  std::uint64_t head8 = 0;   // first min(length, 8) bytes, zero-padded
  std::uint32_t length = 0;
  std::uint32_t id = 0;
};

struct PairVerifyIndex {
  std::vector<PairVerifySlot> slots;  // 2^bits
  std::vector<PairVerifyMember> members;
  int bits = 0;
};

/// Slot of a 4-byte key (the bitmaps' multiplicative hash, to a table of 2^bits slots).
constexpr std::uint32_t pair_verify_slot(std::uint32_t key4, int bits) {
  return (key4 * kPrefixHash4Multiplier) >> (32 - bits);
}

inline PairVerifyIndex build_pair_verify_index(const PatternSet& set) {
  PairVerifyIndex index;
  std::vector<PairVerifyMember> members;
  for (std::size_t i = 0; i < set.size(); ++i) {
    if (set.length(i) < 4) continue;
    std::uint64_t head = 0;
    const std::uint64_t n = std::min<std::uint64_t>(8, set.length(i));
    for (std::uint64_t j = 0; j < n; ++j) head |= std::uint64_t{set.bytes[set.offsets[i] + j]} << (8 * j);
    members.push_back({head, static_cast<std::uint32_t>(set.length(i)), static_cast<std::uint32_t>(i)});
  }
  std::sort(members.begin(), members.end(), [](const PairVerifyMember& a, const PairVerifyMember& b) {
    const auto ka = static_cast<std::uint32_t>(a.head8), kb = static_cast<std::uint32_t>(b.head8);
    return ka != kb ? ka < kb : a.id < b.id;
  });
  std::size_t keys = 0;
  for (std::size_t i = 0; i < members.size(); ++i)
    keys += i == 0 || static_cast<std::uint32_t>(members[i].head8) != static_cast<std::uint32_t>(members[i - 1].head8);
  index.bits = 4;
  while ((std::size_t{1} << index.bits) < 2 * keys) ++index.bits;
  index.slots.assign(std::size_t{1} << index.bits, {});
  const std::uint32_t mask = (1u << index.bits) - 1;
  for (std::size_t i = 0; i < members.size();) {
    const auto key = static_cast<std::uint32_t>(members[i].head8);
    std::size_t j = i + 1;
    while (j < members.size() && static_cast<std::uint32_t>(members[j].head8) == key) ++j;
    std::uint32_t slot = pair_verify_slot(key, index.bits);
    while (index.slots[slot].count != 0) slot = (slot + 1) & mask;
    index.slots[slot] = {key, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j - i), 0};
    i = j;
  }
  index.members = std::move(members);
  return index;
}

}  // namespace warpmatch::core
