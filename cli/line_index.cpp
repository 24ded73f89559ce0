#include "line_index.hpp"

#include <algorithm>
#include <cstring>

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
// The last '\n' in [from, to); there is one at `from`.
std::uint64_t find_last(ByteSpan data, std::uint64_t from, std::uint64_t to) {
  const void* at = ::memrchr(data.data() + from, '\n', to - from);
  return static_cast<std::uint64_t>(static_cast<const std::uint8_t*>(at) - data.data());
}
}  // namespace

void LineSelector::begin_input(bool keep_text, bool mapped, bool invert) {
  keep_text_ = keep_text;
  mapped_ = mapped;
  invert_ = invert;
  open_begin_ = 0;
  open_number_ = 1;
  open_has_hit_ = false;
  carry_.clear();
  starts_.clear();
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

bool LineSelector::end_window(const Emit& emit) {
  // Lines whose '\n' lies before `finished` are finished: the next window starts there.
  const std::uint64_t finished = last_ ? data_.size() : owned_;
  const auto open_from = [&] { return open_begin_ > offset_ ? open_begin_ - offset_ : 0; };
  std::sort(starts_.begin(), starts_.end());
  std::size_t placed = 0;
  for (; placed < starts_.size(); ++placed) {
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
    const bool selected = open_has_hit_ != invert_ && open_begin_ < offset_ + data_.size();
    open_has_hit_ = false;
    return !selected || emit_open_line(data_.size(), emit);
  }
  // A streamed input's next window will not hold this one's owned bytes.
  if (keep_text_ && !mapped_ && open_from() < owned_)
    carry_.insert(carry_.end(), data_.begin() + static_cast<std::ptrdiff_t>(open_from()),
                  data_.begin() + static_cast<std::ptrdiff_t>(owned_));
  return true;
}

bool LineSelector::emit_open_line(std::uint64_t end, const Emit& emit) {
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
  return emit(line);
}

// The open line ends with the '\n' at `newline`; it and the lines after it that end before
// `to` (none holds a hit) are finished, and the line holding `to` is the open one.
bool LineSelector::close_lines(std::uint64_t newline, std::uint64_t to, bool next_has_hit, const Emit& emit) {
  if (open_has_hit_ != invert_ && !emit_open_line(newline, emit)) return false;
  carry_.clear();
  if (invert_) {  // -v: each line between is printed
    for (std::uint64_t begin = newline + 1, end; (end = find_first(data_, begin, to)) < to; begin = end + 1) {
      open_begin_ = offset_ + begin;
      ++open_number_;
      open_has_hit_ = false;
      if (!emit_open_line(end, emit)) return false;
      newline = end;
    }
    ++open_number_;
  } else {  // no line between is printed: one count over them
    const std::uint64_t last = find_last(data_, newline, to);
    open_number_ += count_newlines(data_.subspan(newline, last + 1 - newline));
    newline = last;
  }
  open_begin_ = offset_ + newline + 1;
  open_has_hit_ = next_has_hit;
  return true;
}

}  // namespace warpmatch::cli
