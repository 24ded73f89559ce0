// The CPU fast path's exact stage: a double-array trie over the (folded) patterns, walked
// from a start position byte by byte until no child matches, reporting every node where
// patterns end — so a start costs about the length of the longest pattern prefix found
// there, whatever the number of patterns or their lengths.
//  - Children of node s sit at slot base(s) + code(byte) and hold check == s; bytes in no
//    pattern have code 0, which never names a child.
//  - The first two text bytes index direct tables (depth1, depth2): one load instead of two
//    steps, and case folding of those bytes for free (both cases are filled in).
//  - Below depth 2, a node whose remaining patterns are all one string keeps that string as
//    a tail (compared 8 bytes at a time) instead of one node per byte: large random sets
//    stay small, long words cost one compare.
//  - A head check (heads_may_start) rejects most starts before their walk: one hashed bit per
//    pattern's first min(length, 8) bytes, tested for each such length in the set.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/multi_patterns.hpp"

namespace warpmatch::cpu {

struct MultiTrie {
  static constexpr std::uint32_t kFree = ~0u;      // check of an unused slot
  static constexpr std::uint32_t kRoot = ~0u - 1;  // check of the root (it has no parent)
  struct Slot {
    std::int32_t base = 0;        // children at base + code; < 0: tail node, tails[-base - 1]
    std::uint32_t check = kFree;  // the parent's slot
  };
  struct Tail {
    std::uint64_t head = 0;    // the first min(length, 8) remaining bytes, zero-padded
    std::uint64_t at = 0;      // the remaining bytes: tail_bytes[at, at + length)
    std::uint32_t length = 0;
    std::uint32_t count = 0;   // patterns equal to the node's prefix + the tail
    std::uint32_t out = 0;     // ids[out, out + count), ascending
  };
  // Slot 0 is a node without children: absent prefixes land there and stop at once.
  std::vector<Slot> slots;
  // Per slot, the patterns ending at its node (duplicates included) and where their ids are:
  // ids[out, out + count), ascending. Apart from the slots, which every step reads.
  std::vector<std::uint32_t> count, out;
  std::vector<Tail> tails;
  std::vector<std::uint8_t> tail_bytes;  // 8 bytes of padding at the end (word loads)
  std::vector<std::uint32_t> ids;
  std::array<std::uint16_t, 256> code{};     // byte -> 1..256 (folded when ci), 0: in no pattern
  std::array<std::uint32_t, 256> depth1{};   // slot after one text byte (0: none)
  std::vector<std::uint32_t> depth2;         // 65536: slot after two text bytes, little-endian
  bool case_insensitive = false;
  // The head check: bit head_hash(L, its first L bytes) of `heads` (2^head_bits bits) for
  // every pattern, L = min(length, 8); head_lengths lists the distinct Ls. The scan's 4-byte
  // filter passes starts that begin a pattern's first 4 bytes: in English text 10 times as
  // many as begin a whole pattern (1000 dictionary words: 3.7 % of starts, 0.3 % matching),
  // and each costs a walk of several dependent loads; this check costs a few independent ones.
  std::vector<std::uint64_t> heads;
  int head_bits = 0;
  std::vector<int> head_lengths;

  std::uint64_t memory_bytes() const {
    return slots.size() * (sizeof(Slot) + 8) + tails.size() * sizeof(Tail) + tail_bytes.size() +
           ids.size() * 4 + depth2.size() * 4 + sizeof(code) + sizeof(depth1) + heads.size() * 8;
  }
};

/// The head check's bit (of 2^bits, bits <= 32) of a start whose (folded) 8 bytes are `word`,
/// for patterns whose first `length` (1..8) bytes are its key: prefix_hash8's two 32-bit
/// multiplies over the key's halves with the length mixed in, as cheap in AVX2 lanes (the
/// scan tests 8 starts at a time, src/cpu/multi_cpu.cpp).
constexpr std::uint32_t kHeadLengthMix = 0x27D4EB2Fu;
inline std::uint32_t head_hash(std::uint64_t word, int length, int bits) {
  const std::uint64_t key = word & core::low_bytes_mask(length);
  const auto lo = static_cast<std::uint32_t>(key), hi = static_cast<std::uint32_t>(key >> 32);
  return ((lo * core::kPrefixHash4Multiplier ^ hi ^ static_cast<std::uint32_t>(length) * kHeadLengthMix) *
          core::kPrefixHash8Multiplier) >> (32 - bits);
}

/// Whether some pattern may start at q (reads q[0, 8)): false only where none does.
inline bool heads_may_start(const MultiTrie& trie, const std::uint8_t* q) {
  std::uint64_t word;
  std::memcpy(&word, q, 8);
  if (trie.case_insensitive) word = core::fold_ascii_word(word);
  std::uint64_t any = 0;
  for (const int length : trie.head_lengths) {
    const std::uint32_t b = head_hash(word, length, trie.head_bits);
    any |= trie.heads[b >> 6] >> (b & 63);
  }
  return (any & 1) != 0;
}

MultiTrie build_multi_trie(const core::PatternSet& set);

/// Does the tail match the text at q, with `avail` bytes readable from q? (Reads no further.)
inline bool tail_matches(const MultiTrie& trie, const MultiTrie::Tail& tail, const std::uint8_t* q,
                         std::uint64_t avail) {
  std::uint64_t left = tail.length;
  if (avail < left) return false;
  const std::uint8_t* p = trie.tail_bytes.data() + tail.at;
  const bool ci = trie.case_insensitive;
  for (; left >= 8; left -= 8, avail -= 8, p += 8, q += 8) {
    std::uint64_t a, b;
    std::memcpy(&a, q, 8);
    std::memcpy(&b, p, 8);
    if (ci) a = core::fold_ascii_word(a);
    if (a != b) return false;
  }
  if (left == 0) return true;
  std::uint64_t a = 0, b;
  std::memcpy(&a, q, avail >= 8 ? 8 : left);  // one word where the text allows
  std::memcpy(&b, p, 8);
  if (ci) a = core::fold_ascii_word(a);
  return ((a ^ b) & core::low_bytes_mask(static_cast<int>(left))) == 0;
}

/// Walks the trie from start `pos` of text[0, n) and calls report(count, out) for every node
/// or tail on the path where patterns end (count may be 0 where that is cheaper than a test;
/// ids[out, out + count) are those patterns), by increasing pattern length.
template <class Report>
inline void walk_trie(const MultiTrie& trie, const std::uint8_t* text, std::uint64_t n,
                      std::uint64_t pos, Report&& report) {
  const MultiTrie::Slot* slots = trie.slots.data();
  const std::uint32_t first = trie.depth1[text[pos]];
  report(trie.count[first], trie.out[first]);
  if (n - pos < 2) return;
  std::uint16_t two;
  std::memcpy(&two, text + pos, 2);
  std::uint32_t s = trie.depth2[two];
  for (std::uint64_t i = pos + 2;; ++i) {
    const MultiTrie::Slot& node = slots[s];
    report(trie.count[s], trie.out[s]);
    if (node.base < 0) {
      const MultiTrie::Tail& tail = trie.tails[~static_cast<std::uint32_t>(node.base)];
      if (tail_matches(trie, tail, text + i, n - i)) report(tail.count, tail.out);
      return;
    }
    if (i >= n) return;
    const std::uint32_t next = static_cast<std::uint32_t>(node.base) + trie.code[text[i]];
    if (slots[next].check != s) return;
    s = next;
  }
}

/// Scratch lists of walk_trie_batch, reused from batch to batch.
struct TrieBatchScratch {
  // Live walks as start | slot << 32: two levels, then tails as (start + depth) | index << 32.
  std::vector<std::uint64_t> live[2], tails;
};

/// walk_trie for every start in starts[0, count) (offsets from `text`, each followed by at
/// least max pattern length + 8 readable bytes), level by level: every live walk steps one
/// byte and the walks still alive are compacted into the next level's list; tails are
/// compared at the end. No branch depends on the text, so walks that end at random depths
/// cost no mispredictions. report(count, out) as in walk_trie, but not in start order.
template <class Report>
inline void walk_trie_batch(const MultiTrie& trie, const std::uint8_t* text,
                            const std::uint32_t* starts, std::size_t count,
                            TrieBatchScratch& scratch, Report&& report) {
  for (auto* list : {&scratch.live[0], &scratch.live[1], &scratch.tails})
    if (list->size() < count) list->resize(count);
  const MultiTrie::Slot* slots = trie.slots.data();
  const std::uint32_t* counts = trie.count.data();
  const std::uint32_t* outs = trie.out.data();
  const std::uint16_t* code = trie.code.data();
  std::uint64_t* tails = scratch.tails.data();
  std::size_t live = 0, tail_count = 0;
  std::uint64_t* first_level = scratch.live[0].data();
  for (std::size_t k = 0; k < count; ++k) {
    const std::uint32_t p = starts[k];
    const std::uint32_t first = trie.depth1[text[p]];
    report(trie.count[first], trie.out[first]);
    std::uint16_t two;
    std::memcpy(&two, text + p, 2);
    const std::uint32_t s = trie.depth2[two];
    first_level[live] = p | std::uint64_t{s} << 32;
    live += s != 0;
  }
  // Each level reports its nodes (so dead walks cost no test) and steps them one byte.
  for (std::uint32_t depth = 2, level = 0; live > 0; ++depth, level ^= 1) {
    const std::uint64_t* from = scratch.live[level].data();
    std::uint64_t* to = scratch.live[level ^ 1].data();
    std::size_t next_live = 0;
    for (std::size_t k = 0; k < live; ++k) {
      const std::uint32_t p = static_cast<std::uint32_t>(from[k]);
      const std::uint32_t s = static_cast<std::uint32_t>(from[k] >> 32);
      const MultiTrie::Slot& node = slots[s];
      report(counts[s], outs[s]);
      const std::uint32_t tail_mask = static_cast<std::uint32_t>(node.base >> 31);  // ones: tail
      tails[tail_count] = (p + depth) | std::uint64_t{~static_cast<std::uint32_t>(node.base)} << 32;
      tail_count += tail_mask & 1;
      // A tail node steps to slot 0, which is nobody's child.
      const std::uint32_t next =
          (static_cast<std::uint32_t>(node.base) + code[text[p + depth]]) & ~tail_mask;
      to[next_live] = p | std::uint64_t{next} << 32;
      next_live += slots[next].check == s;
    }
    live = next_live;
  }
  const bool ci = trie.case_insensitive;
  for (std::size_t k = 0; k < tail_count; ++k) {
    const std::uint32_t at = static_cast<std::uint32_t>(tails[k]);
    const MultiTrie::Tail& tail = trie.tails[static_cast<std::uint32_t>(tails[k] >> 32)];
    std::uint64_t word;
    std::memcpy(&word, text + at, 8);
    if (ci) word = core::fold_ascii_word(word);
    const int head_length = static_cast<int>(std::min<std::uint32_t>(tail.length, 8));
    bool equal = ((word ^ tail.head) & core::low_bytes_mask(head_length)) == 0;
    if (equal && tail.length > 8) equal = tail_matches(trie, tail, text + at, tail.length + 8);
    report(tail.count & (0u - equal), tail.out);
  }
}

}  // namespace warpmatch::cpu
