// grep's lines over the searcher's windows (-n, --lines), the one place where hit offsets
// become line numbers and line spans. Plain inputs only (one record: input offset = record
// offset). Both classes follow the windows of an input in order and count the '\n' bytes of
// each window's owned bytes once (count_newlines), carrying the count to the next window, so
// the overlap is never counted twice and nothing is kept of a mapped input. Computed from the
// host bytes the searcher holds, whichever backend found the hits.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "core/worker_pool.hpp"
#include "io/text_stream.hpp"
#include "printer/sink.hpp"

namespace warpmatch::cli {

/// The number of '\n' bytes in `bytes` (SIMD where the target has it).
std::uint64_t count_newlines(ByteSpan bytes);

/// -n: the 1-based number of the line holding a hit's start. A cursor in the current window
/// moves to each start asked for (forward or back: approx reports by end, so its starts come
/// in any order), counting only the bytes it passes.
class LineNumbers {
 public:
  void begin_input() { lines_before_window_ = 0; }
  void begin_window(const io::TextWindow& w);
  /// `start`: an input offset inside the current window's data.
  std::uint64_t line_of(std::uint64_t start);
  /// line_of for every hit of `hits` (Hit::line set), in parts counted on `pool`'s threads:
  /// part p is hits[cut[p], cut[p + 1]), cut from 0 to hits.size(). The cursor ends at the
  /// last hit, as after line_of of each in turn.
  void number_hits(std::span<Hit> hits, std::span<const std::size_t> cut, core::WorkerPool& pool);
  /// Carries the '\n' count of the window's owned bytes to the next window.
  void end_window();

 private:
  ByteSpan data_;
  std::uint64_t offset_ = 0, owned_ = 0;
  std::uint64_t lines_before_window_ = 0;  // '\n' bytes of the input before data_[0]
  std::uint64_t cursor_ = 0;               // a position in data_
  std::uint64_t lines_before_cursor_ = 0;  // '\n' bytes of the input before data_[cursor_]
};

/// --lines: the lines holding at least one hit's start (-v: those holding none), each once, in
/// input order, handed to `emit` with their bytes (without the '\n'); with context (-A, -B)
/// the lines around them too, as context lines (SelectedLine::context). Hits are gathered
/// while a window is scanned (any order) and its lines formed after it: a line is finished
/// once its '\n' lies in the window's owned bytes, since no later window owns a hit starting
/// before its offset (find: starts < owned; approx: an alignment is at most m + k bytes, the
/// overlap). A line that continues in the next window stays open: its bytes from earlier
/// windows are copied for a streamed input (memory grows with the longest line, as grep's)
/// and taken from the mapping for a mapped file, which holds every byte. Before-context keeps
/// the last `before` unselected lines (copies for a streamed input: at most `before` lines).
class LineSelector {
 public:
  /// Returns false to stop the input (-m reached).
  using Emit = std::function<bool(const SelectedLine&)>;

  /// Lines formed and printed on several threads: a window with many selected lines (grep
  /// printing much of a large file) would otherwise print them all on one thread. The lines
  /// after the window's first selected one and before its last hit's line go in rounds of
  /// parts of about kPartBytes of text, one part a thread of `pool`: part p's lines go to
  /// emit(p, line) on one thread, in order; then join(parts, lines) hands the parts' output
  /// on in order, before the next round (so a round's output is all that is held). Only where
  /// every selected line is printed as it is: not with -m, -v with context, or when the lines
  /// are not kept (-c, -q, -l, -L); end_window takes the serial path then, or for a window
  /// with fewer than kMinPartLines hits (-v: less than kPartBytes of lines).
  struct Parts {
    core::WorkerPool* pool = nullptr;
    std::function<void(std::size_t part, const SelectedLine&)> emit;
    std::function<void(std::size_t parts, std::uint64_t lines)> join;
    /// After the last round's join, before any other line is emitted: join may hand the
    /// output on in the background (while the next round is formed); finish waits for it.
    std::function<void()> finish;
    /// With context (-A, -B): part p's next line starts a group of its own ("--").
    std::function<void(std::size_t part)> group_break;
    /// With context, after the last round: the number of the last line the parts printed if
    /// it is the one before the open line, else 0.
    std::function<void(std::uint64_t number)> printed_through;
  };
  static constexpr std::uint64_t kPartBytes = std::uint64_t{1} << 20;
  static constexpr std::size_t kMinPartLines = 4096;
  /// Each part looks up to -A lines back and -B lines ahead: more context than this goes
  /// the serial way (a part would walk more lines than it prints).
  static constexpr std::uint64_t kMaxPartContext = 1024;

  /// `keep_text`: the lines' bytes are printed (not with -c); `mapped`: the input's windows
  /// point into one mapping of the whole file; `invert` (-v): the lines without a hit;
  /// `numbered`: lines carry their number (else the lines between hits are skipped without
  /// counting them: a sparse search then reads each window once, in the search);
  /// `before`, `after`: the context lines printed before and after each selected line.
  void begin_input(bool keep_text, bool mapped, bool invert, bool numbered = true, std::uint64_t before = 0,
                   std::uint64_t after = 0);
  void begin_window(const io::TextWindow& w);
  /// A hit starting at input offset `start`, inside the current window's data.
  void add_hit(std::uint64_t start);
  /// Hits one per line, ascending, from the first hit's line on (first_match_per_line), after
  /// the hits added before: kept as they are.
  void add_line_firsts(std::span<const std::uint64_t> starts);
  /// Emits the lines the window finished (with the last window, the last line, '\n' or not);
  /// false when `emit` stopped, or when the after-context of select_no_more() is printed.
  /// With `parts`, the lines of a window with enough of them are formed on its threads.
  bool end_window(const Emit& emit, const Parts* parts = nullptr);
  /// -m reached (called from `emit` with the last selected line): the lines after it are at
  /// most its after-context (as grep, whether they hold a hit or not). Returns whether any is
  /// still to come (after-context > 0): the input must then be read on.
  bool select_no_more();

 private:
  /// The open line, its bytes up to `end` (a position in the window).
  SelectedLine open_line(std::uint64_t end) const;
  /// The open line, which ends at `end`, is finished: emitted if selected or after-context,
  /// else kept for before-context.
  bool finish_open_line(std::uint64_t end, const Emit& emit);
  /// The line starting at window position `begin` is the open one (no hit yet).
  void start_line(std::uint64_t begin);
  bool close_lines(std::uint64_t newline, std::uint64_t to, bool next_has_hit, const Emit& emit);
  /// The open line holds starts_[0]: emits it, then the lines of starts_[1, below) in
  /// `parts`, up to the line of the last of them, which becomes the open line. Returns false
  /// when it did nothing (too few lines), or when emit stopped (`stopped`).
  bool emit_parts(std::size_t below, std::uint64_t finished, const Emit& emit, const Parts& parts, bool& stopped);
  /// emit_parts with context: the lines of starts_[first, end) and their context in
  /// `parts` (starts_[end, below) lie on the line at last_begin); returns the number of the
  /// line at last_begin.
  std::uint64_t emit_context_in_rounds(std::uint64_t e0, std::size_t first, std::size_t end, std::size_t below,
                                       std::uint64_t last_begin, std::uint64_t finished, const Parts& parts);
  /// -v: emits the open line if it holds no start, then the window's lines without a start
  /// (of starts_[0, below)) in `parts`, up to its last finished line; the line after it is
  /// the open one. Returns false when it did nothing (less than kPartBytes of lines), or when
  /// emit stopped (`stopped`).
  bool emit_inverted_parts(std::size_t below, std::uint64_t finished, const Emit& emit, const Parts& parts,
                           bool& stopped);
  /// Before-context: keeps `line` as one of the last `before_` unselected lines.
  void keep_before(const SelectedLine& line);
  /// Emits the kept lines as context (before a selected line) and forgets them.
  bool emit_kept(const Emit& emit);

  bool keep_text_ = true, mapped_ = false, invert_ = false, numbered_ = true;
  std::uint64_t before_ = 0, after_ = 0;
  std::uint64_t after_left_ = 0;  // after-context lines still to print
  bool selecting_ = true;         // false once -m is reached (select_no_more)
  // The current window.
  ByteSpan data_;
  std::uint64_t offset_ = 0, owned_ = 0;
  bool last_ = false;
  // The open line: the first line not yet finished.
  std::uint64_t open_begin_ = 0;   // its input offset
  std::uint64_t open_number_ = 1;  // its 1-based number
  bool open_has_hit_ = false;      // a hit starts in it
  std::vector<std::uint8_t> carry_;  // its bytes before the window (streamed inputs)
  mutable std::vector<std::uint8_t> joined_;  // carry_ + the window's part, for emit
  /// Hits' starts not yet placed on a line (input offsets), at most one per line where they
  /// come in order (find).
  std::vector<std::uint64_t> starts_;
  /// Before-context: a ring of the last unselected lines, oldest at kept_first_; a streamed
  /// input's lines are copied into `bytes` (a mapped one's text points into the mapping).
  struct KeptLine {
    SelectedLine line;
    std::vector<std::uint8_t> bytes;
  };
  std::vector<KeptLine> kept_;
  std::size_t kept_first_ = 0, kept_count_ = 0;
};

/// -c with --lines or -v (no -m, no context): the number of selected lines, counted from each
/// window's first hit per line (WindowScanner::first_per_line) without visiting the lines one
/// by one. A window's lines are those whose '\n' lies in its owned bytes, plus the open line
/// it ends in, which the next window continues: a hit there counts once (it may be the first
/// of both windows). With -v the lines without a hit: the '\n' bytes (counted on all threads)
/// less the lines holding one, and the last line of the input (no '\n') when it has a byte.
class LineCounter {
 public:
  void begin_input(bool invert, int threads) {
    invert_ = invert;
    threads_ = threads;
    open_has_hit_ = open_has_bytes_ = false;
  }
  /// The lines window `w` selects (`firsts`: its first hit start per line, ascending, below
  /// owned, in window coordinates; the window's own lines only for a last window).
  std::uint64_t add_window(const io::TextWindow& w, std::span<const std::uint64_t> firsts);

 private:
  bool invert_ = false;
  int threads_ = 1;
  bool open_has_hit_ = false;    // the line the windows so far end in holds a hit
  bool open_has_bytes_ = false;  // ... and has a byte (a line at the input's end)
};

}  // namespace warpmatch::cli
