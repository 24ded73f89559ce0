// grep's line selection over a text held whole (grep -F, ripgrep): the lines holding a match
// start, each once, found by searching a line only up to its first match and going on at the
// next line, so a line full of matches costs one match and a jump, not a report per match.
// Backend-neutral: a backend gives its search from a position (`first`) or, where it can
// only list every match (the GPU), its ascending starts (LineFirsts). Lines end
// at '\n' (the '\n' is its line's last byte); a match belongs to the line holding its start.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "core/parallel.hpp"
#include "warpmatch/common.hpp"

namespace warpmatch::core {

/// The start of the line after the one holding `pos` (text.size() when that line is the last).
inline std::uint64_t next_line_start(ByteSpan text, std::uint64_t pos) {
  const void* newline = std::memchr(text.data() + pos, '\n', text.size() - pos);
  return newline ? static_cast<std::uint64_t>(static_cast<const std::uint8_t*>(newline) - text.data()) + 1
                 : text.size();
}

/// Every line (no cap on their number).
inline constexpr std::uint64_t kAllLines = ~std::uint64_t{0};

/// Appends to `out` the first start of each line holding one of `first`'s matches that
/// starts in [begin, end), until `out` holds `most`: first(pos, stop) returns the first match
/// start in [pos, stop), or stop when there is none. `begin` is a line start.
template <class First>
void first_match_per_line_in(ByteSpan text, std::uint64_t begin, std::uint64_t end, First&& first,
                             std::vector<std::uint64_t>& out, std::uint64_t most = kAllLines) {
  for (std::uint64_t pos = begin; pos < end && out.size() < most;) {
    const std::uint64_t start = first(pos, end);
    if (start >= end) return;
    out.push_back(start);
    pos = next_line_start(text, start);
  }
}

/// One start per line of ascending starts that arrive in batches (a backend that lists every
/// match): a start is kept when its line is not the line of the start kept before it; the
/// starts from `limit` on are not taken, nor more than `most`.
class LineFirsts {
 public:
  LineFirsts(ByteSpan text, std::uint64_t limit, std::uint64_t most = kAllLines)
      : text_(text), limit_(limit), most_(most) {}
  /// Returns false once a start reached the limit (the ones after it are past it too) or
  /// `most` are kept.
  bool take(std::span<const std::uint64_t> starts) {
    for (const std::uint64_t s : starts)
      if (!take_one(s)) return false;
    return true;
  }
  bool take(std::span<const Match> matches) {
    for (const Match& m : matches)
      if (!take_one(m.start)) return false;
    return true;
  }
  std::vector<std::uint64_t>& firsts() { return firsts_; }

 private:
  bool take_one(std::uint64_t s) {
    if (s >= limit_ || firsts_.size() >= most_) return false;
    if (s < next_line_) return true;  // on the line of the last kept start
    firsts_.push_back(s);
    next_line_ = next_line_start(text_, s);
    return firsts_.size() < most_;
  }
  ByteSpan text_;
  std::uint64_t limit_, most_;
  std::uint64_t next_line_ = 0;
  std::vector<std::uint64_t> firsts_;
};

/// first_match_per_line_in over [0, limit), the first `most` lines, on up to `threads`
/// threads: the range is cut at line starts into runs of whole lines (at least `min_run`
/// bytes each) searched in parallel, each with a searcher of its own from make_first() (its
/// scratch), and the runs' starts joined in order. With a cap on the lines (grep -m) one
/// thread searches from the start and stops there.
template <class MakeFirst>
std::vector<std::uint64_t> first_match_per_line(ByteSpan text, std::uint64_t limit, int threads,
                                                MakeFirst&& make_first, std::uint64_t most = kAllLines,
                                                std::uint64_t min_run = std::uint64_t{1} << 20) {
  if (most != kAllLines) {
    std::vector<std::uint64_t> out;
    auto first = make_first();
    first_match_per_line_in(text, 0, limit, first, out, most);
    return out;
  }
  std::vector<std::uint64_t> cuts{0};
  const std::uint64_t runs = threads <= 1 ? 1 : std::min<std::uint64_t>(4 * static_cast<std::uint64_t>(threads), limit / min_run);
  for (std::uint64_t i = 1; i < runs; ++i) {
    const std::uint64_t at = next_line_start(text, limit / runs * i - 1);  // the line start at or after
    if (at >= limit) break;
    if (at > cuts.back()) cuts.push_back(at);
  }
  cuts.push_back(limit);
  std::vector<std::vector<std::uint64_t>> found(cuts.size() - 1);
  parallel_for(found.size(), threads, [&](std::size_t r) {
    auto first = make_first();
    first_match_per_line_in(text, cuts[r], cuts[r + 1], first, found[r]);
  });
  if (found.size() == 1) return std::move(found[0]);
  std::vector<std::uint64_t> all;
  for (const auto& f : found) all.insert(all.end(), f.begin(), f.end());
  return all;
}

}  // namespace warpmatch::core
