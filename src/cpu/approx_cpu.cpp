// CPU approximate search: Myers' bit-vector algorithm (G. Myers, "A fast bit-vector
// algorithm for approximate string matching based on dynamic programming", JACM 1999) in
// Hyyro's block formulation on 64-bit words (core::myers_step, as edlib's calculateBlock),
// with Ukkonen's cutoff: only the blocks of pattern rows that can still hold a value <= k are
// advanced (as in edlib). The text is cut into chunks of owned end positions; each chunk
// restarts the DP m + k columns earlier, which is exact for every end within k edits (such
// a substring is at most m + k long).
#include "cpu/approx_cpu.hpp"

#include <algorithm>
#include <limits>

#include "core/approx_align.hpp"
#include "core/chunking.hpp"
#include "core/myers_step.hpp"
#include "core/parallel.hpp"
#include "cpu/approx_set_cpu.hpp"

namespace warpmatch::cpu {

namespace {

/// One chunk of a parallel scan: its ends in order and the smallest distance among them.
struct ChunkEnds {
  std::vector<core::EndHit> hits;
  std::uint32_t best = std::numeric_limits<std::uint32_t>::max();
};

using Word = std::uint64_t;
constexpr int kWordBits = 64;

struct MyersTables {
  std::size_t m = 0;
  std::size_t words = 0;
  std::vector<Word> peq;  // [byte][word]: bit r of word w set when pattern[64w + r] matches byte

  explicit MyersTables(const core::ApproxPattern& pattern)
      : m(pattern.size()), words((pattern.size() + kWordBits - 1) / kWordBits),
        peq(256 * words, 0) {
    for (int c = 0; c < 256; ++c)
      for (std::size_t i = 0; i < m; ++i)
        if (pattern.matches(pattern.bytes[i], static_cast<std::uint8_t>(c)))
          peq[c * words + i / kWordBits] |= Word{1} << (i % kWordBits);
  }
  int rows(std::size_t block) const {
    return static_cast<int>(std::min<std::size_t>(kWordBits, m - block * kWordBits));
  }
};


/// Ends e = c + 1 for columns c in [own_begin, own_end), the DP restarted at column `from`.
ChunkEnds scan_chunk(const MyersTables& t, ByteSpan text, std::uint64_t from,
                       std::uint64_t own_begin, std::uint64_t own_end,
                       const core::ApproxQuery& query) {
  const bool best_mode = query.mode == core::ApproxMode::best;
  const std::size_t words = t.words;
  std::vector<Word> pv(words, ~Word{0}), mv(words, 0);
  std::vector<std::int64_t> score(words);
  std::vector<int> hbit(words);  // the block's last real row, whose delta leaves it
  for (std::size_t b = 0; b < words; ++b) {
    score[b] = static_cast<std::int64_t>(b * kWordBits) + t.rows(b);  // D[i][from] = i
    hbit[b] = t.rows(b) - 1;
  }
  // Invariant: every cell of a block after last_block is > threshold.
  std::int64_t threshold = query.k;
  std::size_t last_block = std::min<std::size_t>(words - 1, static_cast<std::size_t>(threshold) / kWordBits);
  ChunkEnds result;
  for (std::uint64_t c = from; c < own_end; ++c) {
    const Word* eq = &t.peq[static_cast<std::size_t>(text[c]) * words];
    int hout = 0;  // top row D[0][.] = 0: free start in the text
    for (std::size_t b = 0; b <= last_block; ++b) {
      hout = core::myers_step(pv[b], mv[b], eq[b], hout, core::AtRow{hbit[b]});
      score[b] += hout;
    }
    if (last_block + 1 < words) {
      // The next block's first row can be <= threshold only through a diagonal from this
      // block's bottom at c - 1 or a vertical step from its bottom at c.
      const std::int64_t bottom_before = score[last_block] - hout;
      if (bottom_before <= threshold || score[last_block] + 1 <= threshold) {
        const std::size_t b = ++last_block;
        pv[b] = ~Word{0};
        mv[b] = 0;
        score[b] = bottom_before + t.rows(b);
        score[b] += core::myers_step(pv[b], mv[b], eq[b], hout, core::AtRow{hbit[b]});
      }
    }
    while (last_block > 0 && score[last_block] >= threshold + t.rows(last_block)) --last_block;
    if (c < own_begin || last_block + 1 != words) continue;
    const std::int64_t d = score[words - 1];
    if (d > threshold) continue;
    const auto distance = static_cast<std::uint32_t>(d);
    if (best_mode && distance < result.best) {
      result.hits.clear();
      threshold = d;  // only ends attaining the (decreasing) minimum matter now
    }
    result.best = std::min(result.best, distance);
    result.hits.push_back({c + 1, distance});
  }
  return result;
}

/// The chunks' ends in text order; in best mode only those of the chunks at the overall minimum.
std::vector<core::EndHit> merge_chunk_ends(const std::vector<ChunkEnds>& chunks, core::ApproxMode mode) {
  std::uint32_t best = std::numeric_limits<std::uint32_t>::max();
  std::size_t total = 0;
  for (const auto& r : chunks) {
    best = std::min(best, r.best);
    total += r.hits.size();
  }
  std::vector<core::EndHit> hits;
  hits.reserve(total);
  for (const auto& r : chunks) {
    if (mode == core::ApproxMode::best && r.best != best) continue;
    hits.insert(hits.end(), r.hits.begin(), r.hits.end());
  }
  return hits;
}

std::uint64_t auto_chunk(std::uint64_t n, std::uint64_t overlap, int threads) {
  if (threads <= 1) return std::max<std::uint64_t>(n, 1);
  const std::uint64_t per_task = (n + static_cast<std::uint64_t>(threads) * 4 - 1) /
                                 (static_cast<std::uint64_t>(threads) * 4);
  return std::max({per_task, 4 * overlap, std::uint64_t{1} << 14});
}

}  // namespace

std::vector<core::EndHit> approx_scan(const core::ApproxPattern& pattern, ByteSpan text,
                                      const core::ApproxQuery& query, ApproxAlgorithm algorithm,
                                      int threads, std::atomic<std::uint64_t>* bytes_done) {
  if (text.empty()) return {};
  if (algorithm == ApproxAlgorithm::dp) {
    std::vector<core::EndHit> hits = core::reference_hits(pattern, text, query);
    if (bytes_done) bytes_done->fetch_add(text.size(), std::memory_order_relaxed);
    return hits;
  }
  if (threads <= 0) threads = hardware_threads();
  // Short and Hamming patterns: the shared pass of a one-pattern set (text across the lanes).
  if (pattern.hamming || pattern.size() <= kSetMaxEditPattern)
    return std::move(ApproxSet({pattern}).scan(text, {query}, threads, bytes_done).front());

  const MyersTables tables(pattern);
  const std::uint64_t n = text.size();
  const std::uint64_t overlap = core::approx_overlap(pattern.size(), query.k);
  const std::uint64_t chunk = query.chunk_ends ? query.chunk_ends : auto_chunk(n, overlap, threads);
  const std::vector<core::Chunk> chunks = core::plan_chunks(n, chunk, 0);
  std::vector<ChunkEnds> results(chunks.size());
  core::parallel_for(chunks.size(), threads, [&](std::size_t i) {
    const core::Chunk& ch = chunks[i];
    const std::uint64_t from = ch.begin > overlap ? ch.begin - overlap : 0;
    results[i] = scan_chunk(tables, text, from, ch.begin, ch.owned_end, query);
    if (bytes_done) bytes_done->fetch_add(ch.owned_end - ch.begin, std::memory_order_relaxed);
  });

  return merge_chunk_ends(results, query.mode);
}

}  // namespace warpmatch::cpu
