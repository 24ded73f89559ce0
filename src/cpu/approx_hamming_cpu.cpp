// CPU backend of Hamming search (substitutions only, `--hamming`): every window of the text
// as long as the pattern with at most k mismatches. Text positions, not pattern positions,
// are in the bits of a word (as Sassy does for edit distance): for 64 consecutive starts at
// once, each pattern position adds its 64 mismatch bits into bit-sliced counters that
// saturate above k, so the cost per start is ~m * log2(k) word operations whatever the text
// (no early exit to defeat with a flood of matches).
#include <algorithm>
#include <bit>
#include <limits>

#include "core/chunking.hpp"
#include "core/parallel.hpp"
#include "cpu/approx_cpu.hpp"

namespace warpmatch::cpu {
namespace {

// The pattern's distinct bytes and, for each text byte, which of them it matches (IUPAC
// codes can match several). Beyond 64 distinct pattern bytes a class id does not fit a word:
// those patterns take the per-window loop.
struct HammingTables {
  std::vector<std::uint8_t> distinct;        // the pattern's distinct bytes
  std::vector<std::uint8_t> class_of;        // per pattern position: index into distinct
  std::uint64_t matched_by[256] = {};        // text byte -> bit d set if it matches distinct[d]
  bool bit_sliced = true;

  explicit HammingTables(const core::ApproxPattern& p) {
    int index[256];
    std::fill(std::begin(index), std::end(index), -1);
    for (const std::uint8_t b : p.bytes) {
      if (index[b] < 0) {
        index[b] = static_cast<int>(distinct.size());
        distinct.push_back(b);
      }
      class_of.push_back(static_cast<std::uint8_t>(std::min(index[b], 255)));
    }
    bit_sliced = distinct.size() <= 64;
    if (!bit_sliced) return;
    for (int c = 0; c < 256; ++c)
      for (std::size_t d = 0; d < distinct.size(); ++d)
        if (p.matches(distinct[d], static_cast<std::uint8_t>(c))) matched_by[c] |= std::uint64_t{1} << d;
  }
};


// Keeps what the query asks for: every distance <= k, or in best mode the running minimum's.
struct Collector {
  const core::ApproxQuery& query;
  ChunkEnds& out;
  std::uint32_t limit;
  Collector(const core::ApproxQuery& q, ChunkEnds& o) : query(q), out(o), limit(q.k) {}
  void add(std::uint64_t end, std::uint32_t distance) {
    if (distance > limit) return;
    if (query.mode == core::ApproxMode::best) {
      if (distance < out.best) {
        out.hits.clear();
        out.best = limit = distance;
      }
    } else {
      out.best = std::min(out.best, distance);
    }
    out.hits.push_back({end, distance});
  }
};

// Starts [begin, end) of `text` (each window text[s, s + m) lies inside the text).
void scan_windows_bit_sliced(const HammingTables& t, const core::ApproxPattern& p, ByteSpan text,
                             std::uint64_t begin, std::uint64_t end, Collector& out) {
  const std::uint64_t m = p.size();
  const std::size_t classes = t.distinct.size();
  // Match bitmaps of text[begin, end + m - 1), one per distinct pattern byte, plus a zero
  // word so that a 64-bit read at any bit offset stays inside.
  const std::uint64_t span = end - begin + m - 1;
  const std::size_t words = static_cast<std::size_t>((span + 63) / 64) + 1;
  std::vector<std::uint64_t> bitmap(classes * words, 0);
  for (std::uint64_t x = 0; x < span; ++x) {
    std::uint64_t classes_here = t.matched_by[text[begin + x]];
    while (classes_here) {
      const int d = std::countr_zero(classes_here);
      classes_here &= classes_here - 1;
      bitmap[d * words + x / 64] |= std::uint64_t{1} << (x % 64);
    }
  }
  auto bits_at = [&](std::size_t d, std::uint64_t x) {  // 64 match bits from bit x of class d
    const std::uint64_t* w = bitmap.data() + d * words + x / 64;
    const unsigned o = static_cast<unsigned>(x % 64);
    return o == 0 ? w[0] : (w[0] >> o) | (w[1] << (64 - o));
  };
  // Counters: `planes` bit planes hold 0 .. 2^planes - 1, `over` marks a count above that.
  const std::uint32_t limit = out.limit;
  int planes = 1;
  while ((std::uint64_t{1} << planes) <= limit) ++planes;
  std::uint64_t plane[33];
  for (std::uint64_t s = 0; s < end - begin; s += 64) {
    const std::uint64_t lanes = std::min<std::uint64_t>(64, end - begin - s);
    const std::uint64_t valid = lanes == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << lanes) - 1;
    std::fill(plane, plane + planes, 0);
    std::uint64_t over = 0;
    for (std::uint64_t i = 0; i < m; ++i) {
      std::uint64_t carry = ~bits_at(t.class_of[i], s + i);  // a mismatch adds one
      for (int b = 0; b < planes && carry; ++b) {
        const std::uint64_t next = plane[b] & carry;
        plane[b] ^= carry;
        carry = next;
      }
      over |= carry;
      if ((over & valid) == valid) break;  // every window already exceeds the counters
    }
    for (std::uint64_t candidates = ~over & valid; candidates; candidates &= candidates - 1) {
      const int j = std::countr_zero(candidates);
      std::uint32_t count = 0;
      for (int b = 0; b < planes; ++b) count |= static_cast<std::uint32_t>((plane[b] >> j) & 1) << b;
      out.add(begin + s + static_cast<std::uint64_t>(j) + m, count);
    }
  }
}

// More than 64 distinct pattern bytes (arbitrary binary patterns): window by window.
void scan_windows_plain(const core::ApproxPattern& p, ByteSpan text, std::uint64_t begin, std::uint64_t end,
                        Collector& out) {
  const std::uint64_t m = p.size();
  for (std::uint64_t s = begin; s < end; ++s) {
    std::uint32_t mismatches = 0;
    for (std::uint64_t i = 0; i < m && mismatches <= out.limit; ++i)
      mismatches += p.matches(p.bytes[i], text[s + i]) ? 0 : 1;
    out.add(s + m, mismatches);
  }
}

}  // namespace

std::vector<core::EndHit> hamming_scan(const core::ApproxPattern& pattern, ByteSpan text,
                                       const core::ApproxQuery& query, int threads,
                                       std::atomic<std::uint64_t>* bytes_done) {
  const std::uint64_t m = pattern.size();
  if (text.size() < m) {
    if (bytes_done) bytes_done->fetch_add(text.size(), std::memory_order_relaxed);
    return {};
  }
  if (threads <= 0) threads = hardware_threads();
  const HammingTables tables(pattern);
  const std::uint64_t starts = text.size() - m + 1;
  std::uint64_t chunk = query.chunk_ends;
  if (chunk == 0) {
    // Cache-sized pieces (their bitmaps stay in L2), several per thread for balance.
    chunk = std::clamp<std::uint64_t>(starts / (static_cast<std::uint64_t>(threads) * 4) + 1, 1u << 12, 1u << 18);
    chunk = (chunk + 63) / 64 * 64;
  }
  const std::vector<core::Chunk> chunks = core::plan_chunks(starts, chunk, 0);
  std::vector<ChunkEnds> results(chunks.size());
  core::parallel_for(chunks.size(), threads, [&](std::size_t i) {
    Collector out(query, results[i]);
    if (tables.bit_sliced) scan_windows_bit_sliced(tables, pattern, text, chunks[i].begin, chunks[i].owned_end, out);
    else scan_windows_plain(pattern, text, chunks[i].begin, chunks[i].owned_end, out);
    if (bytes_done)
      bytes_done->fetch_add(chunks[i].owned_end - chunks[i].begin + (i + 1 == chunks.size() ? m - 1 : 0),
                            std::memory_order_relaxed);
  });
  return merge_chunk_ends(results, query.mode);
}

}  // namespace warpmatch::cpu
