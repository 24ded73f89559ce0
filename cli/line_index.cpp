#include "line_index.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/parallel.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace warpmatch::cli {

std::uint64_t count_newlines(ByteSpan bytes) {
  const std::uint8_t* p = bytes.data();
  std::size_t n = bytes.size();
  std::uint64_t total = 0;
#if defined(__SSE2__)
  // Byte lanes count the matches of up to 255 blocks of 16 bytes (a lane holds at most 255),
  // then one sum of absolute differences adds them up.
  const __m128i newline = _mm_set1_epi8('\n');
  while (n >= 16) {
    const std::size_t blocks = std::min<std::size_t>(n / 16, 255);
    __m128i lanes = _mm_setzero_si128();
    for (std::size_t i = 0; i < blocks; ++i) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i));
      lanes = _mm_sub_epi8(lanes, _mm_cmpeq_epi8(v, newline));  // a match is -1
    }
    const __m128i sums = _mm_sad_epu8(lanes, _mm_setzero_si128());
    total += static_cast<std::uint64_t>(_mm_cvtsi128_si64(sums)) +
             static_cast<std::uint64_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums)));
    p += 16 * blocks;
    n -= 16 * blocks;
  }
#endif
  return total + static_cast<std::uint64_t>(std::count(p, p + n, std::uint8_t{'\n'}));
}

void LineNumbers::begin_window(const io::TextWindow& w) {
  data_ = w.data;
  offset_ = w.offset;
  owned_ = w.owned;
  cursor_ = 0;
  lines_before_cursor_ = lines_before_window_;
}

std::uint64_t LineNumbers::line_of(std::uint64_t start) {
  const std::uint64_t to = std::min<std::uint64_t>(start - offset_, data_.size());
  if (to >= cursor_) lines_before_cursor_ += count_newlines(data_.subspan(cursor_, to - cursor_));
  else lines_before_cursor_ -= count_newlines(data_.subspan(to, cursor_ - to));
  cursor_ = to;
  return lines_before_cursor_ + 1;
}

void LineNumbers::number_hits(std::span<Hit> hits, std::span<const std::size_t> cut, core::WorkerPool& pool) {
  if (hits.empty()) return;
  const auto position = [&](const Hit& h) { return std::min<std::uint64_t>(h.start - offset_, data_.size()); };
  // The '\n' bytes from a to b (b < a: negative), the way line_of moves its cursor.
  const auto between = [&](std::uint64_t a, std::uint64_t b) {
    return b >= a ? static_cast<std::int64_t>(count_newlines(data_.subspan(a, b - a)))
                  : -static_cast<std::int64_t>(count_newlines(data_.subspan(b, a - b)));
  };
  const std::size_t parts = cut.size() - 1;
  // Each part's first hit's line: the first by the cursor, the others by the '\n' bytes
  // between the parts' first hits (and to the last hit), counted on the threads.
  std::vector<std::int64_t> step(parts);
  pool.run(parts, [&](std::size_t p) {
    const std::uint64_t to = p + 1 < parts ? position(hits[cut[p + 1]]) : position(hits.back());
    step[p] = between(position(hits[cut[p]]), to);
  });
  std::vector<std::uint64_t> before(parts + 1);
  before[0] = line_of(hits[0].start) - 1;
  for (std::size_t p = 0; p < parts; ++p) before[p + 1] = static_cast<std::uint64_t>(static_cast<std::int64_t>(before[p]) + step[p]);
  pool.run(parts, [&](std::size_t p) {
    std::uint64_t at = position(hits[cut[p]]);
    auto lines = static_cast<std::int64_t>(before[p]);
    for (std::size_t i = cut[p]; i < cut[p + 1]; ++i) {
      const std::uint64_t next = position(hits[i]);
      lines += between(at, next);
      at = next;
      hits[i].line = static_cast<std::uint64_t>(lines) + 1;
    }
  });
  cursor_ = position(hits.back());
  lines_before_cursor_ = before[parts];
}

void LineNumbers::end_window() {
  // The next window starts at offset + owned: only the owned bytes are counted here.
  line_of(offset_ + owned_);
  lines_before_window_ = lines_before_cursor_;
}

namespace {
std::uint64_t find_first(ByteSpan data, std::uint64_t from, std::uint64_t to) {
  const void* at = std::memchr(data.data() + from, '\n', to - from);
  return at ? static_cast<std::uint64_t>(static_cast<const std::uint8_t*>(at) - data.data()) : to;
}
// The first byte of the last `count` lines of [begin, to) that end there (their '\n' before
// `to`); `begin` when there are fewer.
std::uint64_t last_lines_begin(ByteSpan data, std::uint64_t begin, std::uint64_t to, std::uint64_t count) {
  std::uint64_t at = to;
  for (std::uint64_t i = 0; i <= count; ++i) {
    const void* newline = ::memrchr(data.data() + begin, '\n', at - begin);
    if (!newline) return begin;
    at = static_cast<std::uint64_t>(static_cast<const std::uint8_t*>(newline) - data.data());
  }
  return at + 1;
}
}  // namespace

void LineSelector::begin_input(bool keep_text, bool mapped, bool invert, bool numbered, std::uint64_t before,
                               std::uint64_t after) {
  keep_text_ = keep_text;
  mapped_ = mapped;
  invert_ = invert;
  numbered_ = numbered;
  before_ = before;
  after_ = after;
  after_left_ = 0;
  selecting_ = true;
  open_begin_ = 0;
  open_number_ = 1;
  open_has_hit_ = false;
  carry_.clear();
  starts_.clear();
  kept_.resize(static_cast<std::size_t>(before));
  kept_first_ = kept_count_ = 0;
}

void LineSelector::begin_window(const io::TextWindow& w) {
  data_ = w.data;
  offset_ = w.offset;
  owned_ = w.owned;
  last_ = w.last;
}

void LineSelector::add_hit(std::uint64_t start) {
  // A hit on the line of the one before adds nothing: a window may hold millions of hits
  // ("a" in a 64 MiB window), and keeping each cost 8 bytes and a sort.
  if (!starts_.empty() && start >= starts_.back()) {
    const std::uint64_t last = starts_.back() - offset_, at = start - offset_;
    if (at <= data_.size() && find_first(data_, last, at) == at) return;
  }
  starts_.push_back(start);
}

void LineSelector::add_line_firsts(std::span<const std::uint64_t> starts) {
  if (starts.empty()) return;
  add_hit(starts.front());  // perhaps on the line of a hit added before
  starts_.insert(starts_.end(), starts.begin() + 1, starts.end());
}

std::uint64_t LineCounter::add_window(const io::TextWindow& w, std::span<const std::uint64_t> firsts) {
  const ByteSpan owned = w.data.first(w.owned);
  const void* first_newline = std::memchr(owned.data(), '\n', owned.size());
  std::uint64_t selected = 0;
  if (!first_newline) {  // the open line goes on through the window
    if (!invert_ && !firsts.empty() && !open_has_hit_) selected = 1;
    open_has_hit_ = open_has_hit_ || !firsts.empty();
    open_has_bytes_ = open_has_bytes_ || !owned.empty();
  } else {
    const auto f0 = static_cast<std::uint64_t>(static_cast<const std::uint8_t*>(first_newline) - owned.data());
    const auto last_nl = static_cast<std::uint64_t>(
        static_cast<const std::uint8_t*>(::memrchr(owned.data(), '\n', owned.size())) - owned.data());
    // A line holds the hits starting at its bytes, its '\n' included.
    const bool continuing_hit = !firsts.empty() && firsts.front() <= f0;
    const auto on_closed = static_cast<std::uint64_t>(
        std::upper_bound(firsts.begin(), firsts.end(), last_nl) - firsts.begin());
    const bool new_open_hit = !firsts.empty() && firsts.back() > last_nl;
    if (!invert_) {
      // Every first is a line of its own but the one continuing an open line that had a hit.
      selected = firsts.size() - (continuing_hit && open_has_hit_ ? 1 : 0);
    } else {
      // Lines closed here: one per '\n'; those with a hit: the firsts on them, and the
      // continuing line when its hit came before this window.
      std::uint64_t newlines = 0;
      const std::uint64_t piece = std::uint64_t{64} << 20;
      const std::size_t pieces = static_cast<std::size_t>((owned.size() + piece - 1) / piece);
      std::vector<std::uint64_t> counts(pieces);
      core::parallel_for(pieces, threads_, [&](std::size_t i) {
        counts[i] = count_newlines(owned.subspan(i * piece, std::min<std::uint64_t>(piece, owned.size() - i * piece)));
      });
      for (const std::uint64_t c : counts) newlines += c;
      const std::uint64_t with_hit = on_closed + (open_has_hit_ && !continuing_hit ? 1 : 0);
      selected = newlines - with_hit;
    }
    open_has_hit_ = new_open_hit;
    open_has_bytes_ = last_nl + 1 < owned.size();
  }
  if (w.last && invert_ && open_has_bytes_ && !open_has_hit_) ++selected;  // the input's last line, no '\n'
  return selected;
}

bool LineSelector::select_no_more() {
  selecting_ = false;
  return after_left_ > 0;
}

bool LineSelector::end_window(const Emit& emit, const Parts* parts) {
  // Lines whose '\n' lies before `finished` are finished: the next window starts there.
  const std::uint64_t finished = last_ ? data_.size() : owned_;
  const auto open_from = [&] { return open_begin_ > offset_ ? open_begin_ - offset_ : 0; };
  if (!std::is_sorted(starts_.begin(), starts_.end())) std::sort(starts_.begin(), starts_.end());
  // Every selected line printed as it is, and no other: the lines may go in parts.
  const bool in_parts = parts && parts->pool && parts->pool->size() > 1 && selecting_ && keep_text_ &&
                        (!invert_ || (before_ == 0 && after_ == 0)) && before_ + after_ <= kMaxPartContext;
  const auto below = [&] {
    return static_cast<std::size_t>(std::lower_bound(starts_.begin(), starts_.end(), offset_ + finished) - starts_.begin());
  };
  std::size_t placed = 0;
  if (in_parts && invert_) {  // -v: most lines may be selected, with or without starts
    bool stopped = false;
    const std::size_t n = below();
    if (emit_inverted_parts(n, finished, emit, *parts, stopped)) placed = n;
    else if (stopped) return false;
  }
  for (; placed < starts_.size(); ++placed) {
    if (placed == 1 && in_parts && !invert_) {  // the open line holds the first start
      const std::size_t n = below();
      bool stopped = false;
      if (emit_parts(n, finished, emit, *parts, stopped)) {
        placed = n;
        break;
      }
      if (stopped) return false;
    }
    const std::uint64_t start = starts_[placed] - offset_;
    if (start >= finished) break;  // approx: a start in the overlap, placed by the next window
    const std::uint64_t newline = find_first(data_, std::min(open_from(), start), start);
    if (newline == start) {  // on the open line
      open_has_hit_ = true;
      continue;
    }
    if (!close_lines(newline, start, true, emit)) return false;
  }
  starts_.erase(starts_.begin(), starts_.begin() + static_cast<std::ptrdiff_t>(placed));
  if (const std::uint64_t from = open_from(); from < finished) {
    if (const std::uint64_t newline = find_first(data_, from, finished); newline < finished)
      if (!close_lines(newline, finished, false, emit)) return false;
  }
  if (last_) {
    // The last line has no '\n'; a final '\n' leaves an empty open line, no line at all.
    const bool is_line = open_begin_ < offset_ + data_.size();
    const bool done = !is_line || finish_open_line(data_.size(), emit);
    open_has_hit_ = false;
    return done;
  }
  // A streamed input's next window will not hold this one's owned bytes.
  if (keep_text_ && !mapped_ && open_from() < owned_)
    carry_.insert(carry_.end(), data_.begin() + static_cast<std::ptrdiff_t>(open_from()),
                  data_.begin() + static_cast<std::ptrdiff_t>(owned_));
  return true;
}

SelectedLine LineSelector::open_line(std::uint64_t end) const {
  SelectedLine line;
  line.number = open_number_;
  line.offset = open_begin_;
  if (open_begin_ >= offset_) {
    line.text = data_.subspan(open_begin_ - offset_, end - (open_begin_ - offset_));
  } else if (mapped_) {  // the mapping holds the line's bytes before this window
    const std::uint64_t before = offset_ - open_begin_;
    line.text = ByteSpan(data_.data() - before, before + end);
  } else if (keep_text_) {
    joined_.assign(carry_.begin(), carry_.end());
    joined_.insert(joined_.end(), data_.begin(), data_.begin() + static_cast<std::ptrdiff_t>(end));
    line.text = ByteSpan(joined_.data(), joined_.size());
  }
  return line;
}

bool LineSelector::finish_open_line(std::uint64_t end, const Emit& emit) {
  const bool selected = selecting_ && open_has_hit_ != invert_;
  if (!selected && after_left_ == 0) {
    if (before_ > 0 && selecting_) keep_before(open_line(end));
    return true;
  }
  SelectedLine line = open_line(end);
  if (selected) {
    if (!emit_kept(emit)) return false;
    after_left_ = after_;
  } else {
    line.context = true;
    --after_left_;
  }
  if (!emit(line)) return false;
  return selecting_ || after_left_ > 0;  // -m: the input ends with the last after-context line
}

void LineSelector::start_line(std::uint64_t begin) {
  open_begin_ = offset_ + begin;
  ++open_number_;
  open_has_hit_ = false;
}

// The open line ends with the '\n' at `newline`; it and the lines after it that end before
// `to` (none holds a hit) are finished, and the line holding `to` is the open one.
bool LineSelector::close_lines(std::uint64_t newline, std::uint64_t to, bool next_has_hit, const Emit& emit) {
  if (!finish_open_line(newline, emit)) return false;
  carry_.clear();
  std::uint64_t begin = newline + 1;
  bool counted = false;
  for (std::uint64_t end; (end = find_first(data_, begin, to)) < to; begin = end + 1) {
    if (!invert_ && after_left_ == 0 && !counted) {
      // No line from here to `to` is printed but the last before_ (the next hit's
      // before-context): the others are counted in one go.
      counted = true;
      const std::uint64_t kept = last_lines_begin(data_, begin, to, before_);
      if (numbered_) open_number_ += count_newlines(data_.subspan(begin, kept - begin));
      if ((end = find_first(data_, begin = kept, to)) >= to) break;
    }
    start_line(begin);
    if (!finish_open_line(end, emit)) return false;
  }
  start_line(begin);
  open_has_hit_ = next_has_hit;
  return true;
}

namespace {
// The lines of window positions [from, to) of `data` (`from`: a line's first byte, `to`: one
// past a '\n') in rounds of parts on `parts`' threads: parts of about kPartBytes of text cut
// after a '\n', a thread's worth a round. form(p, begin, end, number) emits part p's selected
// lines (its lines lie in [begin, end), the first numbered `number`; numbers are counted
// only when `numbered`) and returns how many; join hands each round's parts on, in order.
// Returns the number of the line at `to`.
template <class Form>
std::uint64_t emit_in_rounds(ByteSpan data, std::uint64_t from, std::uint64_t to, std::uint64_t number,
                             bool numbered, const LineSelector::Parts& parts, const Form& form) {
  core::WorkerPool& pool = *parts.pool;
  std::vector<std::uint64_t> begin, first_number, newlines, lines;
  while (from < to) {
    begin.assign(1, from);
    while (begin.size() <= pool.size() && begin.back() < to) {
      const std::uint64_t cut = std::min(to, begin.back() + LineSelector::kPartBytes);
      begin.push_back(cut == to ? to : find_first(data, cut, to) + 1);  // after the line holding cut
    }
    const std::size_t count = begin.size() - 1;
    // Each part's first line number: the '\n' bytes before it, counted on the parts' threads.
    first_number.assign(count + 1, number);
    if (numbered) {
      newlines.assign(count, 0);
      pool.run(count, [&](std::size_t p) { newlines[p] = count_newlines(data.subspan(begin[p], begin[p + 1] - begin[p])); });
      for (std::size_t p = 0; p < count; ++p) first_number[p + 1] = first_number[p] + newlines[p];
    }
    lines.assign(count, 0);
    pool.run(count, [&](std::size_t p) { lines[p] = form(p, begin[p], begin[p + 1], first_number[p]); });
    std::uint64_t total = 0;
    for (const std::uint64_t n : lines) total += n;
    parts.join(count, total);
    from = begin.back();
    number = first_number.back();
  }
  if (parts.finish) parts.finish();
  return number;
}
}  // namespace

bool LineSelector::emit_parts(std::size_t below, std::uint64_t finished, const Emit& emit, const Parts& parts,
                              bool& stopped) {
  const auto at = [&](std::size_t i) { return starts_[i] - offset_; };  // window positions
  const auto position = [&](const void* p) {
    return static_cast<std::uint64_t>(static_cast<const std::uint8_t*>(p) - data_.data());
  };
  if (below < kMinPartLines) return false;  // a line a start at most
  // The open line ends at e0; the last start's line begins at last_begin and stays open.
  const std::uint64_t e0 = find_first(data_, at(0), finished);
  const std::uint64_t last = at(below - 1);
  if (e0 >= finished || last <= e0) return false;
  const std::uint64_t last_begin = position(::memrchr(data_.data() + e0, '\n', last - e0)) + 1;
  const auto first = static_cast<std::size_t>(
      std::upper_bound(starts_.begin(), starts_.begin() + below, offset_ + e0) - starts_.begin());
  const auto end = static_cast<std::size_t>(
      std::lower_bound(starts_.begin() + first, starts_.begin() + below, offset_ + last_begin) - starts_.begin());
  if (end - first < kMinPartLines) return false;
  if (!finish_open_line(e0, emit)) {
    stopped = true;
    return false;
  }
  carry_.clear();
  if (before_ > 0 || after_ > 0) {
    open_number_ = emit_context_in_rounds(e0, first, end, below, last_begin, finished, parts);
  } else {
    // A part's lines: those of its starts, each once.
    open_number_ = emit_in_rounds(data_, e0 + 1, last_begin, open_number_ + 1, numbered_, parts,
                                  [&](std::size_t p, std::uint64_t from, std::uint64_t to, std::uint64_t number) {
      std::uint64_t emitted = 0;
      auto k = static_cast<std::size_t>(
          std::lower_bound(starts_.begin() + first, starts_.begin() + end, offset_ + from) - starts_.begin());
      for (; k < end && at(k) < to; ++k) {
        const std::uint64_t start = at(k);
        if (start < from) continue;  // on the line of the start before
        const void* newline = ::memrchr(data_.data() + from, '\n', start - from);
        const std::uint64_t line_begin = newline ? position(newline) + 1 : from;
        if (numbered_ && line_begin > from) number += count_newlines(data_.subspan(from, line_begin - from));
        const std::uint64_t line_end = find_first(data_, start, finished);
        SelectedLine line;
        line.number = number++;
        line.offset = offset_ + line_begin;
        line.text = data_.subspan(line_begin, line_end - line_begin);
        parts.emit(p, line);
        ++emitted;
        from = line_end + 1;
      }
      return emitted;
    });
  }
  // The line of the last starts is the open one.
  open_begin_ = offset_ + last_begin;
  open_has_hit_ = true;
  return true;
}

// With context (-A, -B): a line is printed when a selected line (one holding a start) lies at
// most `after_` lines before it or `before_` lines after it, so each part finds its own
// lines from the text around it, reaching into its neighbours' lines: the nearest selected
// line before it (after-context), the next one after it (before-context of its last lines),
// and whether the line before it was printed (else its first line follows a group break).
// The open line before the region (ending at e0) and the one at last_begin both hold starts.
std::uint64_t LineSelector::emit_context_in_rounds(std::uint64_t e0, std::size_t first, std::size_t end,
                                                   std::size_t below, std::uint64_t last_begin,
                                                   std::uint64_t finished, const Parts& parts) {
  const auto at = [&](std::size_t i) { return starts_[i] - offset_; };
  const auto line_begin_before = [&](std::uint64_t to) {  // the first byte of the line holding to - 1
    const void* newline = ::memrchr(data_.data(), '\n', to - 1);
    return newline ? static_cast<std::uint64_t>(static_cast<const std::uint8_t*>(newline) - data_.data()) + 1 : 0;
  };
  // Whether a start lies in window positions [from, to] (to: a line's '\n').
  const auto has_start = [&](std::uint64_t from, std::uint64_t to) {
    const auto k = std::lower_bound(starts_.begin(), starts_.begin() + below, offset_ + from);
    return k != starts_.begin() + below && *k <= offset_ + to;
  };
  // Whether the line ending at `newline` is printed: a start on the lines from after_ before
  // it to before_ after it.
  const auto printed = [&](std::uint64_t newline) {
    std::uint64_t from = line_begin_before(newline + 1), to = newline;
    for (std::uint64_t i = 0; i < after_ && from > 0; ++i) from = line_begin_before(from);
    for (std::uint64_t i = 0; i < before_ && to + 1 < finished; ++i) to = find_first(data_, to + 1, finished);
    return has_start(from, to);
  };
  const std::uint64_t number = emit_in_rounds(data_, e0 + 1, last_begin, open_number_ + 1, true, parts,
                                              [&](std::size_t p, std::uint64_t pos, std::uint64_t to, std::uint64_t number) {
    bool adjacent = printed(pos - 1);  // the line before the part's first
    // After-context left at the part's first line: the nearest selected line before it.
    std::uint64_t after_left = 0;
    for (std::uint64_t d = 1, b = pos; d <= after_ && b > 0; ++d) {
      const std::uint64_t line_begin = line_begin_before(b);
      if (has_start(line_begin, b - 1)) {
        after_left = after_ - d + 1;
        break;
      }
      b = line_begin;
    }
    // The part's last lines' before-context: the lines from `to` to the next selected line.
    std::uint64_t tail_before = before_;
    for (std::uint64_t b = to; tail_before > 0 && b < finished;) {
      const std::uint64_t e = find_first(data_, b, finished);
      if (has_start(b, e)) break;
      --tail_before;
      b = e + 1;
    }
    std::uint64_t selected = 0;
    const auto print = [&](std::uint64_t line_end, bool context) {
      if (!adjacent) parts.group_break(p);
      adjacent = true;
      SelectedLine line;
      line.number = number++;
      line.offset = offset_ + pos;
      line.text = data_.subspan(pos, line_end - pos);
      line.context = context;
      parts.emit(p, line);
      pos = line_end + 1;
    };
    auto k = static_cast<std::size_t>(
        std::lower_bound(starts_.begin() + first, starts_.begin() + end, offset_ + pos) - starts_.begin());
    for (;;) {
      const bool has_selected = k < end && at(k) < to;
      std::uint64_t selected_begin = to;
      if (has_selected) {
        const void* newline = ::memrchr(data_.data() + pos, '\n', at(k) - pos);
        selected_begin = newline ? static_cast<std::uint64_t>(static_cast<const std::uint8_t*>(newline) - data_.data()) + 1 : pos;
      }
      for (; after_left > 0 && pos < selected_begin; --after_left) print(find_first(data_, pos, selected_begin), true);
      if (pos < selected_begin) {
        const std::uint64_t kept = last_lines_begin(data_, pos, selected_begin, has_selected ? before_ : tail_before);
        if (kept > pos) {
          number += count_newlines(data_.subspan(pos, kept - pos));
          adjacent = false;
          pos = kept;
        }
        while (pos < selected_begin) print(find_first(data_, pos, selected_begin), true);
      }
      if (!has_selected) break;
      const std::uint64_t line_end = find_first(data_, at(k), finished);
      print(line_end, false);
      ++selected;
      after_left = after_;
      while (k < end && at(k) <= line_end) ++k;
    }
    return selected;
  });
  if (parts.printed_through) parts.printed_through(printed(last_begin - 1) ? number - 1 : 0);
  after_left_ = 0;  // the open line at last_begin is selected
  return number;
}

bool LineSelector::emit_inverted_parts(std::size_t below, std::uint64_t finished, const Emit& emit,
                                       const Parts& parts, bool& stopped) {
  const auto at = [&](std::size_t i) { return starts_[i] - offset_; };  // window positions
  // The open line ends at e0 and the window's last finished line at last_newline; the lines
  // between, most of them without a hit, go in parts.
  const std::uint64_t from = open_begin_ > offset_ ? open_begin_ - offset_ : 0;
  const std::uint64_t e0 = find_first(data_, from, finished);
  if (e0 >= finished) return false;
  const auto last_newline = static_cast<std::uint64_t>(
      static_cast<const std::uint8_t*>(::memrchr(data_.data() + e0, '\n', finished - e0)) - data_.data());
  if (last_newline - e0 < kPartBytes) return false;
  if (below > 0 && at(0) <= e0) open_has_hit_ = true;
  if (!finish_open_line(e0, emit)) {
    stopped = true;
    return false;
  }
  carry_.clear();
  const auto first = static_cast<std::size_t>(
      std::upper_bound(starts_.begin(), starts_.begin() + below, offset_ + e0) - starts_.begin());
  // A part's lines: those holding no start (a start at a line's '\n' is on that line).
  open_number_ = emit_in_rounds(data_, e0 + 1, last_newline + 1, open_number_ + 1, numbered_, parts,
                                [&](std::size_t p, std::uint64_t line_begin, std::uint64_t to, std::uint64_t number) {
    std::uint64_t emitted = 0;
    auto k = static_cast<std::size_t>(
        std::lower_bound(starts_.begin() + first, starts_.begin() + below, offset_ + line_begin) - starts_.begin());
    while (line_begin < to) {
      const std::uint64_t line_end = find_first(data_, line_begin, to);
      if (k < below && at(k) <= line_end) {
        while (k < below && at(k) <= line_end) ++k;
      } else {
        SelectedLine line;
        line.number = number;
        line.offset = offset_ + line_begin;
        line.text = data_.subspan(line_begin, line_end - line_begin);
        parts.emit(p, line);
        ++emitted;
      }
      ++number;
      line_begin = line_end + 1;
    }
    return emitted;
  });
  // The line after the last '\n' is the open one.
  open_begin_ = offset_ + last_newline + 1;
  open_has_hit_ = below > 0 && at(below - 1) > last_newline;
  return true;
}

void LineSelector::keep_before(const SelectedLine& line) {
  KeptLine& slot = kept_[(kept_first_ + kept_count_) % kept_.size()];
  if (kept_count_ < kept_.size()) ++kept_count_;
  else kept_first_ = (kept_first_ + 1) % kept_.size();  // the oldest is overwritten
  slot.line = line;
  slot.line.context = true;
  if (!mapped_) {  // the window's bytes are gone once the next one is taken
    slot.bytes.assign(line.text.begin(), line.text.end());
    slot.line.text = ByteSpan(slot.bytes.data(), slot.bytes.size());
  }
}

bool LineSelector::emit_kept(const Emit& emit) {
  for (; kept_count_ > 0; --kept_count_, kept_first_ = (kept_first_ + 1) % kept_.size())
    if (!emit(kept_[kept_first_].line)) return false;
  return true;
}

}  // namespace warpmatch::cli
