// Plain DP reference, start recovery and CIGAR recovery of approximate search (see
// approx_align.hpp). These run only for reported hits: banded, so that a hit costs
// O(m * distance), not O(m^2), and a start of a pattern up to 64 bytes bit-parallel.
#include "core/approx_align.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace warpmatch::core {

namespace {
constexpr std::uint32_t kInfinity = std::numeric_limits<std::uint32_t>::max() / 2;

// Run-length '=' / 'X' of a window as long as the pattern (Hamming hits have no indels).
std::string hamming_cigar(const ApproxPattern& pattern, ByteSpan window) {
  std::string cigar;
  std::size_t run = 0;
  char op = 0;
  for (std::size_t i = 0; i <= window.size(); ++i) {
    const char next = i == window.size() ? 0 : (pattern.matches(pattern.bytes[i], window[i]) ? '=' : 'X');
    if (next != op && run > 0) {
      cigar += std::to_string(run);
      cigar.push_back(op);
      run = 0;
    }
    op = next;
    ++run;
  }
  return cigar;
}
}  // namespace

std::vector<std::uint32_t> reference_end_distances(const ApproxPattern& pattern, ByteSpan text) {
  const std::size_t m = pattern.size();
  if (pattern.hamming) {
    // Substitutions only: the mismatches of the window text[e - m, e), counted directly.
    std::vector<std::uint32_t> out(text.size(), kNoWindow);
    for (std::size_t e = m; e <= text.size(); ++e) {
      std::uint32_t mismatches = 0;
      for (std::size_t i = 0; i < m; ++i) mismatches += pattern.matches(pattern.bytes[i], text[e - m + i]) ? 0 : 1;
      out[e - 1] = mismatches;
    }
    return out;
  }
  std::vector<std::uint32_t> column(m + 1);
  for (std::size_t i = 0; i <= m; ++i) column[i] = static_cast<std::uint32_t>(i);
  std::vector<std::uint32_t> out(text.size());
  for (std::size_t j = 0; j < text.size(); ++j) {
    std::uint32_t diagonal = column[0];  // D[0][j-1] = 0: free start in the text
    for (std::size_t i = 1; i <= m; ++i) {
      const std::uint32_t left = column[i];
      column[i] = std::min({left + 1, column[i - 1] + 1,
                            diagonal + (pattern.matches(pattern.bytes[i - 1], text[j]) ? 0u : 1u)});
      diagonal = left;
    }
    out[j] = column[m];
  }
  return out;
}

std::vector<EndHit> reference_hits(const ApproxPattern& pattern, ByteSpan text,
                                   const ApproxQuery& query) {
  const std::vector<std::uint32_t> dist = reference_end_distances(pattern, text);
  std::uint32_t limit = query.k;
  if (query.mode == ApproxMode::best && !dist.empty()) {
    const std::uint32_t best = *std::min_element(dist.begin(), dist.end());
    if (best > query.k) return {};
    limit = best;
  }
  std::vector<EndHit> hits;
  for (std::size_t e = 0; e < dist.size(); ++e)
    if (dist[e] <= limit && (query.mode == ApproxMode::all_within_k || dist[e] == limit))
      hits.push_back({e + 1, dist[e]});
  return hits;
}

namespace {

[[noreturn]] void no_start(std::uint64_t end, std::uint32_t distance) {
  throw std::logic_error("recover_start: no substring ending at " + std::to_string(end) +
                         " has edit distance " + std::to_string(distance));
}

// recover_start_dp's answer for patterns of up to 64 bytes, by Myers' bit-parallel step over
// the same reversed problem: R[.][j] is one word (vertical deltas), the top row R[0][j] = j
// enters each step as a +1 carry (edlib's global mode), and the score follows R[m][j]. It
// first reaches `distance` where the DP's banded column does: R[m][j] >= m - j, no start
// beats dist(end), and R[m][.] moves by at most one a column. A hit's start was most of the
// cost of a short read's hits (0.36 us a hit against the scan's 0.9 us a read).
std::uint64_t recover_start_bits(const ApproxPattern& pattern, ByteSpan text, std::uint64_t end,
                                 std::uint32_t distance) {
  const std::size_t m = pattern.size();
  const std::uint64_t max_len = std::min<std::uint64_t>(end, m + distance);
  // Eq word of a text byte, made the first time the byte is seen: bit i for reversed
  // pattern byte i (pattern byte m - 1 - i).
  std::uint64_t peq[256];
  std::uint8_t made[256 / 8] = {};
  const std::uint64_t top = std::uint64_t{1} << (m - 1);
  std::uint64_t pv = ~std::uint64_t{0}, mv = 0;
  std::uint32_t score = static_cast<std::uint32_t>(m);
  for (std::uint64_t j = 1; j <= max_len; ++j) {
    const std::uint8_t c = text[end - j];
    if (!(made[c >> 3] & (1u << (c & 7)))) {
      std::uint64_t eq = 0;
      if (pattern.iupac) {
        for (std::size_t i = 0; i < m; ++i) eq |= static_cast<std::uint64_t>(pattern.matches(pattern.bytes[m - 1 - i], c)) << i;
      } else {  // matches() is equality with the folded byte: a loop the compiler vectorises
        const std::uint8_t t = pattern.text_byte(c);
        for (std::size_t k = 0; k < m; ++k) eq |= static_cast<std::uint64_t>(pattern.bytes[k] == t) << (m - 1 - k);
      }
      peq[c] = eq;
      made[c >> 3] |= static_cast<std::uint8_t>(1u << (c & 7));
    }
    const std::uint64_t eq = peq[c];
    const std::uint64_t xv = eq | mv;
    const std::uint64_t xh = (((eq & pv) + pv) ^ pv) | eq;
    std::uint64_t ph = mv | ~(xh | pv);
    std::uint64_t mh = pv & xh;
    if (ph & top) ++score;
    if (mh & top) --score;
    ph = (ph << 1) | 1;  // R[0][j] - R[0][j - 1] = +1
    mh <<= 1;
    pv = mh | ~(xv | ph);
    mv = ph & xv;
    if (score == distance) return end - j;
  }
  no_start(end, distance);
}

}  // namespace

std::uint64_t recover_start(const ApproxPattern& pattern, ByteSpan text, std::uint64_t end,
                            std::uint32_t distance) {
  if (pattern.hamming) return end - pattern.size();  // a Hamming hit spans the pattern exactly
  if (pattern.size() <= 64 && distance < pattern.size()) return recover_start_bits(pattern, text, end, distance);
  return recover_start_dp(pattern, text, end, distance);
}

std::uint64_t recover_start_dp(const ApproxPattern& pattern, ByteSpan text, std::uint64_t end,
                               std::uint32_t distance) {
  if (pattern.hamming) return end - pattern.size();
  // R[i][j] = ED(last i pattern bytes, last j text bytes before `end`); the answer is the
  // smallest j with R[m][j] == distance (largest start). Any alignment of cost <= distance
  // stays in the band |i - j| <= distance, so out-of-band cells are infinite.
  const std::int64_t m = static_cast<std::int64_t>(pattern.size());
  const std::int64_t d = distance;
  const std::int64_t max_len = std::min<std::int64_t>(static_cast<std::int64_t>(end), m + d);
  std::vector<std::uint32_t> prev(m + 2, kInfinity), cur(m + 2, kInfinity);
  for (std::int64_t i = 0; i <= std::min(m, d); ++i) prev[i] = static_cast<std::uint32_t>(i);
  if (m <= d) return end;  // j = 0: the empty substring costs m
  for (std::int64_t j = 1; j <= max_len; ++j) {
    const std::int64_t lo = std::max<std::int64_t>(0, j - d);
    const std::int64_t hi = std::min<std::int64_t>(m, j + d);
    if (lo >= 1) cur[lo - 1] = kInfinity;
    const std::uint8_t c = text[end - j];
    for (std::int64_t i = lo; i <= hi; ++i) {
      if (i == 0) {
        cur[0] = static_cast<std::uint32_t>(j);
        continue;
      }
      const std::uint32_t diagonal = prev[i - 1] + (pattern.matches(pattern.bytes[m - i], c) ? 0u : 1u);
      cur[i] = std::min({diagonal, prev[i] + 1, cur[i - 1] + 1});
    }
    if (hi + 1 <= m) cur[hi + 1] = kInfinity;
    if (hi == m && cur[m] == static_cast<std::uint32_t>(d)) return end - j;
    std::swap(prev, cur);
  }
  no_start(end, distance);
}

std::string recover_cigar(const ApproxPattern& pattern, ByteSpan text, std::uint64_t start,
                          std::uint64_t end, std::uint32_t distance) {
  if (pattern.hamming) return hamming_cigar(pattern, text.subspan(start, end - start));
  const std::int64_t m = static_cast<std::int64_t>(pattern.size());
  const std::int64_t len = static_cast<std::int64_t>(end - start);
  const std::int64_t d = distance;
  const std::int64_t skew = len - m;
  if (std::abs(skew) > d)
    throw std::logic_error("recover_cigar: lengths differ by more than the distance");
  // A path of cost d from (0,0) to (m,len) keeps its diagonal offset j - i within
  // [min(0,skew) - x, max(0,skew) + x], x = (d - |skew|) / 2.
  const std::int64_t slack = (d - std::abs(skew)) / 2;
  const std::int64_t lo_off = std::min<std::int64_t>(0, skew) - slack;
  const std::int64_t hi_off = std::max<std::int64_t>(0, skew) + slack;
  const std::int64_t width = hi_off - lo_off + 1;
  std::vector<std::uint32_t> cells(static_cast<std::size_t>((m + 1) * width), kInfinity);
  auto at = [&](std::int64_t i, std::int64_t j) -> std::uint32_t {
    if (i < 0 || j < 0 || j > len) return kInfinity;
    const std::int64_t off = j - i;
    if (off < lo_off || off > hi_off) return kInfinity;
    return cells[static_cast<std::size_t>(i * width + (off - lo_off))];
  };
  const std::uint8_t* t = text.data() + start;
  auto same = [&](std::int64_t i, std::int64_t j) {  // pattern byte i-1 vs text byte j-1
    return pattern.matches(pattern.bytes[i - 1], t[j - 1]);
  };
  for (std::int64_t i = 0; i <= m; ++i) {
    const std::int64_t jlo = std::max<std::int64_t>(0, i + lo_off);
    const std::int64_t jhi = std::min<std::int64_t>(len, i + hi_off);
    for (std::int64_t j = jlo; j <= jhi; ++j) {
      std::uint32_t v;
      if (i == 0) v = static_cast<std::uint32_t>(j);
      else if (j == 0) v = static_cast<std::uint32_t>(i);
      else
        v = std::min({at(i - 1, j - 1) + (same(i, j) ? 0u : 1u), at(i - 1, j) + 1, at(i, j - 1) + 1});
      cells[static_cast<std::size_t>(i * width + (j - i - lo_off))] = v;
    }
  }
  if (at(m, len) != static_cast<std::uint32_t>(d))
    throw std::logic_error("recover_cigar: ED(pattern, text[" + std::to_string(start) + ":" +
                           std::to_string(end) + "]) != " + std::to_string(distance));
  std::string ops;  // reversed, one letter per column of the alignment
  std::int64_t i = m, j = len;
  while (i > 0 || j > 0) {
    const std::uint32_t v = at(i, j);
    if (i > 0 && j > 0 && at(i - 1, j - 1) + (same(i, j) ? 0u : 1u) == v) {
      ops.push_back(same(i, j) ? '=' : 'X');
      --i, --j;
    } else if (i > 0 && at(i - 1, j) + 1 == v) {
      ops.push_back('I');
      --i;
    } else {
      ops.push_back('D');
      --j;
    }
  }
  std::string cigar;
  for (std::size_t a = ops.size(); a > 0;) {
    std::size_t b = a;
    while (b > 0 && ops[b - 1] == ops[a - 1]) --b;
    cigar += std::to_string(a - b);
    cigar.push_back(ops[a - 1]);
    a = b;
  }
  return cigar;
}

bool cigar_is_valid(const ApproxPattern& pattern, ByteSpan text, std::uint64_t start,
                    std::uint64_t end, const std::string& cigar, std::uint64_t* cost) {
  std::uint64_t i = 0, j = start, edits = 0, run = 0;
  bool have_run = false;
  for (const char op : cigar) {
    if (op >= '0' && op <= '9') {
      run = run * 10 + static_cast<std::uint64_t>(op - '0');
      have_run = true;
      continue;
    }
    if (!have_run || run == 0) return false;
    for (std::uint64_t r = 0; r < run; ++r) {
      switch (op) {
        case '=':
        case 'X': {
          if (i >= pattern.size() || j >= end) return false;
          const bool same = pattern.matches(pattern.bytes[i], text[j]);
          if (same != (op == '=')) return false;
          if (op == 'X') ++edits;
          ++i, ++j;
          break;
        }
        case 'I':
          if (i >= pattern.size()) return false;
          ++i, ++edits;
          break;
        case 'D':
          if (j >= end) return false;
          ++j, ++edits;
          break;
        default:
          return false;
      }
    }
    run = 0;
    have_run = false;
  }
  if (have_run || i != pattern.size() || j != end) return false;
  if (cost) *cost = edits;
  return true;
}

}  // namespace warpmatch::core
