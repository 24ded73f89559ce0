// Building the double-array trie of the CPU fast path (see multi_cpu_trie.hpp): patterns
// sorted by (bytes, id), nodes placed breadth first, each node's children at the first
// base where all their slots are free.
#include "cpu/multi_cpu_trie.hpp"

#include <algorithm>
#include <bit>
#include <numeric>
#include <stdexcept>

namespace warpmatch::cpu {
namespace {

// Free slots for first-fit placement: slot i is free iff next_[i] == i; a used slot points
// further on (union-find with path halving), so searches skip runs of used slots.
class SlotAllocator {
 public:
  bool is_free(std::uint32_t i) const { return i >= next_.size() || next_[i] == i; }

  std::uint32_t next_free(std::uint32_t i) {
    while (i < next_.size() && next_[i] != i) {
      const std::uint32_t j = next_[i];
      if (j < next_.size()) next_[i] = next_[j];
      i = j;
    }
    return i;
  }

  void take(std::uint32_t i) {
    if (i >= next_.size()) {
      const std::size_t old = next_.size();
      next_.resize(std::max<std::size_t>(i + 1, old * 2));
      std::iota(next_.begin() + static_cast<std::ptrdiff_t>(old), next_.end(),
                static_cast<std::uint32_t>(old));
    }
    next_[i] = i + 1;
    top_ = std::max(top_, i + 1);
  }

  /// A base >= 0 such that base + c is free for every code in `codes` (ascending): the
  /// first fit from the lowest free slot, but after a few misses (wide nodes in a crowded
  /// region would scan far) the first fit near the top of the used slots.
  std::uint32_t place(const std::vector<std::uint16_t>& codes) {
    constexpr int kCrowdedMisses = 32;
    const std::uint32_t span = codes.back() - codes[0];
    int misses = 0;
    for (std::uint32_t first = next_free(std::max<std::uint32_t>(codes[0], lowest_free()));;
         first = next_free(first + 1)) {
      const std::uint32_t base = first - codes[0];
      bool fits = true;
      for (std::size_t k = 1; k < codes.size() && fits; ++k) fits = is_free(base + codes[k]);
      if (fits) return base;
      if (++misses == kCrowdedMisses && top_ > first + span) first = next_free(top_ - span) - 1;
    }
  }

 private:
  std::uint32_t lowest_free() {
    lowest_ = next_free(lowest_);
    return lowest_;
  }
  std::vector<std::uint32_t> next_;
  std::uint32_t lowest_ = 0;
  std::uint32_t top_ = 0;  // one past the highest used slot
};

}  // namespace

MultiTrie build_multi_trie(const core::PatternSet& set) {
  MultiTrie trie;
  trie.case_insensitive = set.case_insensitive;
  const std::size_t n = set.size();

  // Codes 1..256 for the bytes that occur (patterns are folded: upper case shares lower's).
  std::array<bool, 256> present{};
  for (const std::uint8_t c : set.bytes) present[c] = true;
  std::uint16_t codes_used = 0;
  for (int c = 0; c < 256; ++c)
    if (present[c]) trie.code[c] = ++codes_used;
  if (set.case_insensitive)
    for (int c = 'A'; c <= 'Z'; ++c) trie.code[c] = trie.code[c + 32];

  // Sorted by (bytes, id): by each pattern's first 16 bytes as two big-endian keys first, held
  // beside its id, and by the bytes themselves only among equal keys. Comparing the bytes of
  // every pair reached them through the ids (10^6 DNA 20-mers: 60 % of a 1.2 s compile).
  struct Keyed {
    std::uint64_t high, low;
    std::uint32_t id;
  };
  std::vector<Keyed> keyed(n);
  for (std::size_t i = 0; i < n; ++i) {
    const ByteSpan p = set.pattern(i);
    std::uint64_t key[2] = {};
    for (std::size_t b = 0; b < 16; ++b) key[b / 8] = key[b / 8] << 8 | (b < p.size() ? p[b] : 0);
    keyed[i] = {key[0], key[1], static_cast<std::uint32_t>(i)};
  }
  std::sort(keyed.begin(), keyed.end(), [&](const Keyed& a, const Keyed& b) {
    if (a.high != b.high) return a.high < b.high;
    if (a.low != b.low) return a.low < b.low;
    const ByteSpan x = set.pattern(a.id), y = set.pattern(b.id);
    const int c = std::memcmp(x.data(), y.data(), std::min(x.size(), y.size()));
    if (c != 0) return c < 0;
    return x.size() != y.size() ? x.size() < y.size() : a.id < b.id;
  });
  std::vector<std::uint32_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = keyed[i].id;
  keyed = {};
  // The patterns' bytes in that order, so that the breadth-first walk over a node's range
  // below reads consecutive bytes instead of following ids across the whole set.
  std::vector<std::uint8_t> sorted_bytes;
  std::vector<std::uint64_t> sorted_offsets(n + 1, 0);
  sorted_bytes.reserve(set.bytes.size());
  for (std::size_t i = 0; i < n; ++i) {
    const ByteSpan p = set.pattern(order[i]);
    sorted_bytes.insert(sorted_bytes.end(), p.begin(), p.end());
    sorted_offsets[i + 1] = sorted_bytes.size();
  }
  auto sorted = [&](std::uint64_t j) {  // the j-th pattern in sorted order
    return ByteSpan(sorted_bytes.data() + sorted_offsets[j], static_cast<std::size_t>(sorted_offsets[j + 1] - sorted_offsets[j]));
  };

  SlotAllocator alloc;
  constexpr std::uint32_t kRootSlot = 1;
  alloc.take(0);
  alloc.take(kRootSlot);
  auto resize_slots = [&](std::size_t size) {
    trie.slots.resize(size);
    trie.count.resize(size, 0);
    trie.out.resize(size, 0);
  };
  resize_slots(2);
  trie.slots[kRootSlot].check = MultiTrie::kRoot;
  std::uint32_t max_base = 0;

  // Breadth first: every node is the range [lo, hi) of `order` sharing its depth-byte prefix.
  struct Node {
    std::uint32_t slot, depth;
    std::uint64_t lo, hi;
  };
  std::vector<Node> queue = {{kRootSlot, 0, 0, n}};
  std::vector<std::uint16_t> child_codes;
  std::vector<std::uint64_t> child_starts;
  for (std::size_t q = 0; q < queue.size(); ++q) {
    const Node node = queue[q];
    std::uint64_t k = node.lo;
    while (k < node.hi && sorted(k).size() == node.depth) ++k;
    auto add_ids = [&](std::uint64_t from, std::uint64_t to, std::uint32_t& count, std::uint32_t& out) {
      count = static_cast<std::uint32_t>(to - from);
      out = static_cast<std::uint32_t>(trie.ids.size());
      trie.ids.insert(trie.ids.end(), order.begin() + static_cast<std::ptrdiff_t>(from),
                      order.begin() + static_cast<std::ptrdiff_t>(to));
    };
    add_ids(node.lo, k, trie.count[node.slot], trie.out[node.slot]);
    if (k == node.hi) continue;  // a leaf: base 0 names no child of it

    const ByteSpan first = sorted(k), last = sorted(node.hi - 1);
    if (node.depth >= 2 && first.size() == last.size() &&
        std::memcmp(first.data(), last.data(), first.size()) == 0) {
      MultiTrie::Tail tail;
      tail.at = trie.tail_bytes.size();
      tail.length = static_cast<std::uint32_t>(first.size() - node.depth);
      std::memcpy(&tail.head, first.data() + node.depth, std::min<std::size_t>(8, tail.length));
      trie.tail_bytes.insert(trie.tail_bytes.end(), first.begin() + node.depth, first.end());
      add_ids(k, node.hi, tail.count, tail.out);
      trie.tails.push_back(tail);
      trie.slots[node.slot].base = -static_cast<std::int32_t>(trie.tails.size());
      continue;
    }

    child_codes.clear();
    child_starts.clear();
    for (std::uint64_t j = k; j < node.hi; ++j) {
      const std::uint16_t c = trie.code[sorted(j)[node.depth]];
      if (child_codes.empty() || child_codes.back() != c) {
        child_codes.push_back(c);
        child_starts.push_back(j);
      }
    }
    child_starts.push_back(node.hi);
    const std::uint32_t base = alloc.place(child_codes);
    if (base + 257ull > static_cast<std::uint64_t>(INT32_MAX))
      throw std::length_error("multi-pattern trie: more than 2^31 nodes");
    max_base = std::max(max_base, base);
    trie.slots[node.slot].base = static_cast<std::int32_t>(base);
    const std::uint32_t top = base + child_codes.back();
    if (top >= trie.slots.size()) resize_slots(std::max<std::size_t>(top + 1, trie.slots.size() * 3 / 2));
    for (std::size_t c = 0; c < child_codes.size(); ++c) {
      const std::uint32_t slot = base + child_codes[c];
      alloc.take(slot);
      trie.slots[slot].check = node.slot;
      queue.push_back({slot, node.depth + 1, child_starts[c], child_starts[c + 1]});
    }
  }
  // Every base + code read by a walk lies inside the array.
  resize_slots(std::max<std::size_t>(trie.slots.size(), max_base + 257ull));
  trie.slots.shrink_to_fit();
  trie.count.shrink_to_fit();
  trie.out.shrink_to_fit();
  trie.tail_bytes.resize(trie.tail_bytes.size() + 8, 0);

  auto child = [&](std::uint32_t s, std::uint8_t c) -> std::uint32_t {
    const std::int32_t base = trie.slots[s].base;
    if (base < 0 || trie.code[c] == 0) return 0;
    const std::uint32_t next = static_cast<std::uint32_t>(base) + trie.code[c];
    return trie.slots[next].check == s ? next : 0;
  };
  trie.depth2.assign(65536, 0);
  for (int c0 = 0; c0 < 256; ++c0) {
    const std::uint32_t s1 = child(kRootSlot, static_cast<std::uint8_t>(c0));
    trie.depth1[c0] = s1;
    if (s1 == 0) continue;
    for (int c1 = 0; c1 < 256; ++c1)
      trie.depth2[c0 | c1 << 8] = child(s1, static_cast<std::uint8_t>(c1));
  }

  // The head check: ~128 bits a pattern, so that each length tested passes under 1 % of
  // starts that begin no pattern (2^22 bits at most: 512 KiB).
  trie.head_bits = std::clamp(64 - std::countl_zero(std::max<std::uint64_t>(n, 1) * 128 - 1), 12, 22);
  trie.heads.assign((std::size_t{1} << trie.head_bits) / 64, 0);
  std::array<bool, 9> length_seen{};
  for (std::size_t i = 0; i < n; ++i) {
    const ByteSpan p = set.pattern(i);  // folded already when case-insensitive
    const int length = static_cast<int>(std::min<std::size_t>(p.size(), 8));
    std::uint64_t word = 0;
    std::memcpy(&word, p.data(), static_cast<std::size_t>(length));
    const std::uint32_t b = head_hash(word, length, trie.head_bits);
    trie.heads[b >> 6] |= 1ull << (b & 63);
    length_seen[static_cast<std::size_t>(length)] = true;
  }
  for (int length = 1; length <= 8; ++length)
    if (length_seen[static_cast<std::size_t>(length)]) trie.head_lengths.push_back(length);
  return trie;
}

}  // namespace warpmatch::cpu
