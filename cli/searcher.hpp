// The one searcher of find, approx and offtarget (ripgrep's searcher): it takes the inputs
// one by one (the files under a directory too with -r: cli/input_walk.hpp), opens each as a
// stream, cuts it into the overlapping windows of src/io, hands each window to the command's
// WindowScanner, keeps the hits each window owns, searches the junction of circular records,
// applies -q / -m / -c / -l / -L, draws the progress line, reports an input that fails by its
// name (exit status 2, the other inputs still searched; no message with -s) and gives every
// result to the printer (a Sink). A command only resolves its options into a SearchPlan, a
// WindowScanner (its matcher) and a printer.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <future>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "input_walk.hpp"
#include "io/record_run.hpp"
#include "io/text_stream.hpp"
#include "line_index.hpp"
#include "printer/sink.hpp"
#include "progress.hpp"
#include "word_match.hpp"
#include "warpmatch/approx.hpp"

namespace warpmatch::cli {

class CircularJunction;
struct FileJob;

/// Which hits of a window are its own (windows overlap, so a hit may be seen twice).
enum class Ownership {
  starts,  // the hits starting in [0, owned): exact search (the overlap is m - 1)
  ends,    // the hits ending after `repeated`: approximate search (the overlap is m + k)
};

/// -l / -L: list the inputs by name, by whether they have a hit, instead of their hits.
enum class ListFiles {
  off,
  with_matches,   // -l: the inputs with a hit
  without_match,  // -L: the inputs searched to their end without one
};

/// How short whole records may be scanned as one text (Searcher::search_records): laid end
/// to end with `gap` between two (io::RecordRun). A hit that lies within one record is
/// then that record's own, with the record's distance and start, when any hit across a gap
/// costs more than the search allows: exact search needs no gap; approximate search within k
/// edits a gap of k + 1 bytes that no pattern byte matches (each gap byte in an alignment is
/// an edit, and an alignment starting inside the gap does no better than one starting at the
/// record's first byte).
struct RecordsTogether {
  io::RecordGap gap;
  /// Hits carry their start (approx with Report::ends gives 0): a hit starting before the
  /// record that holds its end crosses a gap.
  bool starts_reported = true;
};

/// The searcher's resolved decisions.
struct SearchPlan {
  /// The FILE operands: "-" is standard input; with `recursive`, a directory stands for the
  /// files under it and none at all for the working directory's (InputWalk).
  std::vector<std::string> inputs;
  bool recursive = false;           // -r
  bool follow_links = false;        // -R: links inside directories followed too (InputWalk)
  NameFilter names;                 // --include, --exclude, --exclude-dir
  /// -I: a plain input holding a NUL byte (decompressed) is binary: its search stops at the
  /// window holding it, unsearched, and -c and -L take it as without a match (grep -I).
  bool skip_binary = false;
  /// grep's default for a plain input holding a NUL byte where lines are printed as text
  /// (`lines`, not --json, -c, -q, -l, -L; not -a): the lines before the first NUL's line are
  /// printed, and the first line selected from it on ends the input's search with the note
  /// "warpmatch: NAME: binary file matches" on stderr (grep 3.5 and later) in their place.
  bool hide_binary_lines = false;
  io::StreamOptions stream;
  Ownership owns = Ownership::starts;
  /// Runs of short whole records (reads) scanned as one text (RecordsTogether); unset: each
  /// record by itself. Not with `circular` or `best` (the searcher ignores it then).
  std::optional<RecordsTogether> records_together;
  /// Short whole records that are searched each by itself (best mode, --best-per-cluster, no
  /// gap for records_together), and runs of records_together, are scanned this many at once,
  /// each on one thread (the CPU backend's threads; the matcher is shared), their hits
  /// delivered record by record in order; 1: one after the other. Not with `circular`, nor for a scanner whose hits point at
  /// data of the scan call (offtarget's sites): the hits are held past it.
  int record_threads = 1;
  /// Small regular files (of the FILE operands, of -r's walk) are searched ahead this many at
  /// once, each whole on one thread (cli/file_jobs.hpp; the matcher is shared), and printed
  /// in input order; 1: one after the other. The CPU backend's threads, as record_threads.
  int file_threads = 1;
  bool circular = false;            // --circular: also the hits across each record's end->start
  std::uint64_t circular_reach = 0; // bytes of the junction on each side (m - 1; m + k)
  /// approx --best: the matcher reports each pattern's (and strand's) minimal distance only.
  /// With --circular the minimum is taken over the record read circularly (its windows must
  /// be whole records).
  bool best = false;
  /// -w: only the hits not inside a longer word; -x (find): only the hits that are whole
  /// lines (cli/word_match.hpp). Tested before -q, -m, -c, -l and -L see them. The searcher
  /// widens the stream's overlap by one byte so that a window holds the byte after each hit it owns (approx: a window owns the ends before its
  /// last byte, the last window its end too), and carries the byte before each window from
  /// the record's previous one. Not with `circular` or `best` (the commands refuse them).
  HitBounds bounds = HitBounds::none;
  /// -n: each hit carries the number of the line holding its start (Hit::line;
  /// cli/line_index.hpp). Not with -c (the searcher turns it off).
  bool line_numbers = false;
  /// --lines: the lines holding a hit's start, each once, in input order (Sink::line)
  /// instead of the hits; -m and -c count lines. Not with --circular or a '-' strand (the
  /// commands refuse them). With `line_numbers` an input read as FASTA/FASTQ fails (exit 2,
  /// the other inputs still searched): lines belong to plain text. -q, -l and -L turn both
  /// off (they stop at the first hit, whatever its line), unless `invert`.
  bool lines = false;
  /// --lines: the selected lines carry their 1-based number (-n, JSON lines, context's group
  /// breaks); without, the lines between hits are skipped uncounted (plain --lines, -c).
  bool number_lines = true;
  /// -v (with `lines`): the lines holding no hit instead; -q, -l and -L then stop at the
  /// first such line, as grep -v.
  bool invert = false;
  /// -A / -B / -C (with `lines`): the lines printed before and after each selected line, as
  /// context lines, and `context`: one of them was given (even as 0), so a group of lines
  /// that does not touch the one before gets a "--" line (Sink::group_break), across inputs
  /// too, as grep. No effect with -c, -q, -l, -L (the searcher turns them off).
  std::uint64_t before_context = 0, after_context = 0;
  bool context = false;
  /// find -o as grep -o prints (not with --json): of each record's hits, in start order, the
  /// leftmost, the longest of those starting there, then the same from its end on; the others
  /// are not printed. -c, -q, -l and -L (the searcher turns it off) still see every hit.
  bool leftmost_longest = false;
  bool quiet = false;               // -q: stop everything at the first hit
  bool count = false;               // -c: count hits, list none
  /// -l / -L: each input stops at its first hit (-q and -c are resolved before: -q wins, -c
  /// loses). Failed inputs are never listed by -L (their end was not searched).
  ListFiles list_files = ListFiles::off;
  /// -s: no message for an input that cannot be opened or read (io::InputError: missing,
  /// unreadable, a directory without -r, corrupt data); it still makes the exit status 2.
  bool no_messages = false;
  std::int64_t max_per_input = -1;  // -m / --max-hits (-1: no limit; 0: search nothing)
  std::size_t pattern_count = 1;    // hits are counted per pattern of the matcher
  bool count_per_pattern = false;   // -c reports each pattern's count (pattern sets)
  bool progress = false;            // draw the progress line (a terminal decides the rest)
  std::uint64_t work_per_byte = 1;  // the progress line's weight of a byte (approx: patterns)
  bool scan_progress = false;       // the scanner advances a ScanProgress within a window
};

/// A command's matcher behind the searcher. Hits are reported at coordinates of `text`, with
/// pattern, strand, distance, cigar (and site) set; the searcher sets where and matched.
class WindowScanner {
 public:
  using Emit = std::function<bool(const Hit&)>;  // false: stop this scan
  virtual ~WindowScanner() = default;
  virtual void scan(ByteSpan text, const Emit& emit, ScanProgress* progress) const = 0;
  /// find's matchers: scan's hits as the library's matches, a batch at a time (no call a
  /// hit: printing millions of hits would spend more in the calls than in the scan);
  /// false, having scanned nothing, where the scanner has no such path (approx, offtarget,
  /// the GPU scanner with its CPU fallback).
  virtual bool scan_matches(ByteSpan /*text*/, const MatchBatchSink& /*sink*/) const { return false; }
  /// -c without -m or -q: adds to `per_pattern` the hits window `w` owns, without listing
  /// them, and returns how many; nullopt where the matcher has no faster way than scan().
  virtual std::optional<std::uint64_t> count(const io::TextWindow& /*w*/,
                                             std::span<std::uint64_t> /*per_pattern*/) const {
    return std::nullopt;
  }
  /// --lines (grep's line selection) on plain text: the start of the first hit of each line
  /// of window `w` holding a hit that the window owns (starts < owned), ascending, in window
  /// coordinates, the first `most` such lines; nullopt where the matcher has no faster way
  /// than scan() (approx: hits are owned by their end).
  /// A scanner gives them for every window or for none (the searcher counts lines either way
  /// for a whole input).
  virtual std::optional<std::vector<std::uint64_t>> first_per_line(const io::TextWindow& /*w*/,
                                                                   std::uint64_t /*most*/) const {
    return std::nullopt;
  }
};

/// --backend auto on a GPU: the GPU matcher's scanner until the GPU runs out of memory
/// (DeviceOutOfMemory, the cap's included), then a CPU one that `make_cpu` makes once, with a
/// note on stderr. The window that ran out is searched again on the CPU, skipping the hits
/// the GPU already gave (both backends give a window's hits in the same order), so the
/// output is what one backend prints.
class CpuFallbackScanner : public WindowScanner {
 public:
  using MakeCpu = std::function<const WindowScanner&()>;
  CpuFallbackScanner(const WindowScanner& gpu, MakeCpu make_cpu) : gpu_(gpu), make_cpu_(std::move(make_cpu)) {}
  void scan(ByteSpan text, const Emit& emit, ScanProgress* progress) const override;
  std::optional<std::uint64_t> count(const io::TextWindow& w, std::span<std::uint64_t> per_pattern) const override;
  std::optional<std::vector<std::uint64_t>> first_per_line(const io::TextWindow& w, std::uint64_t most) const override;

 private:
  void fall_back(const DeviceOutOfMemory& error) const;
  const WindowScanner& gpu_;
  MakeCpu make_cpu_;
  mutable const WindowScanner* cpu_ = nullptr;
};

/// The note of --backend auto leaving the GPU after `error` (stderr, once per switch).
void note_cpu_fallback(const DeviceOutOfMemory& error);

/// A matcher's hit at the matcher's coordinates, for WindowScanner::scan.
inline Hit local_hit(std::uint32_t pattern, std::uint64_t start, std::uint64_t end, char strand) {
  Hit hit;
  hit.pattern = pattern;
  hit.start = start;
  hit.end = end;
  hit.strand = strand;
  return hit;
}

/// Hits of records held until the records are handed on (Searcher::search_records and
/// search_records_apart): at record coordinates, their CIGARs copied into one arena (a hit's
/// cigar points into the scan's storage only during the call).
struct HeldHits {
  struct Held {
    Hit hit;  // its cigar is set from cigars[cigar_at, cigar_at + cigar_size) when delivered
    std::size_t record = 0, cigar_at = 0, cigar_size = 0;
  };
  std::vector<Held> hits;
  std::string cigars;
  void add(const Hit& hit, std::size_t record) {
    hits.push_back({hit, record, cigars.size(), hit.cigar.size()});
    cigars += hit.cigar;
  }
};

class Searcher {
 public:
  /// Completes the summary of the finished search (JSON summary line, --stats) of which the
  /// searcher has set the totals and the seconds.
  using Summarize = std::function<void(SearchSummary&)>;

  Searcher(SearchPlan plan, Sink& sink) : plan_(std::move(plan)), sink_(sink) {
    if (bounded()) ++plan_.stream.overlap;  // the byte after a hit (SearchPlan::bounds)
    // grep: -n and --lines change nothing for -q, -l and -L, -n nothing for -c.
    if ((plan_.quiet || plan_.list_files != ListFiles::off) && !plan_.invert) plan_.lines = plan_.line_numbers = false;
    if (plan_.count) plan_.line_numbers = false;
    if (plan_.lines) plan_.count_per_pattern = false;  // -c --lines counts lines, of any pattern
    if (plan_.count || plan_.quiet || plan_.list_files != ListFiles::off || plan_.lines)
      plan_.leftmost_longest = false;  // they see every hit
    if (plan_.count || plan_.quiet || plan_.list_files != ListFiles::off || !plan_.lines) {
      plan_.before_context = plan_.after_context = 0;  // nothing printed that could have context
      plan_.context = false;
    }
  }

  /// Searches every input, then prints the summary (when `summarize` is given; --stats
  /// lines too with `stats`, and on stderr whether device memory made the GPU scan in
  /// smaller chunks); returns the exit status: 0 a hit, 1 none, 2 an input failed
  /// (with -q a hit wins over errors, as grep). -L does not change it (GNU grep 3.5 on):
  /// 0 still means some input had a hit.
  int run(const WindowScanner& scanner, const Summarize& summarize = {}, bool stats = false);
  const SearchTotals& totals() const { return totals_; }

 private:
  /// A searcher of the inputs searched ahead (SearchPlan::file_threads): `plan` as the main
  /// searcher resolved it, with one thread per input, printing into `capturing`.
  struct Ahead {};
  Searcher(Ahead, const SearchPlan& plan, Sink& capturing);
  /// Whether a hit the window owns is delivered (--circular --best: at its best distance).
  using Keep = std::function<bool(const Hit&)>;
  /// Opens and searches one input (unless `opened` already is); an input that fails is
  /// reported (the others go on).
  void search_path(const std::string& path, const WindowScanner& scanner, std::optional<io::TextStream> opened = {});
  /// A searcher of the inputs searched ahead: searches `job` whole into its capturing sink
  /// when it is a small regular file, else marks it to be searched again in its turn.
  void search_ahead(FileJob& job, const WindowScanner& scanner);
  /// Hands on what an input searched ahead printed and counted, as if searched here.
  void hand_on(FileJob& job);
  void search_input(io::TextStream& input, const WindowScanner& scanner);
  /// One window of the input: searched, then its bookkeeping (bytes, -w, -n, --lines, flush).
  void take_window(const io::TextWindow& w, const io::TextStream& input, const WindowScanner& scanner,
                   Progress& progress, CircularJunction& junction);
  /// Windows that are whole records scanned as one text (SearchPlan::records_together); each
  /// hit within a record delivered as that record's, record by record in the order each
  /// record's own scan gives. False, with nothing delivered, when the hits outgrow what it
  /// holds (the caller then takes the windows one by one).
  bool search_records(std::span<const io::TextWindow> records, const io::TextStream& input,
                      const WindowScanner& scanner, Progress& progress);
  /// Runs of whole records (as search_records scans one) from the front of `windows`, scanned
  /// SearchPlan::record_threads at a time and delivered run by run in order (a run whose hits
  /// outgrow its share, window by window). Returns the windows taken; 0 (nothing done) when
  /// they make fewer than two runs.
  std::size_t search_record_runs(std::span<const io::TextWindow> windows, const io::TextStream& input,
                                 const WindowScanner& scanner, Progress& progress, CircularJunction& junction);
  /// The scan of search_records: the hits of `records` laid end to end (copied into `scratch`
  /// when they must be) held in `held` at record coordinates, ordered by record; false when
  /// they are more than `most`.
  bool scan_record_run(std::span<const io::TextWindow> records, const WindowScanner& scanner,
                       std::vector<std::uint8_t>& scratch, std::size_t most, HeldHits& held) const;
  /// Short whole records each scanned by itself, SearchPlan::record_threads at a time; each
  /// record's hits delivered in its own scan's order, record by record.
  void search_records_apart(std::span<const io::TextWindow> records, const io::TextStream& input,
                            const WindowScanner& scanner, Progress& progress);
  /// Hands on held hits (`held` in order, each part's hits in order) as their records' hits,
  /// until -q / -m / -l stop the input; then the records' bytes, flush and progress.
  void deliver_held(std::span<const io::TextWindow> records, std::span<HeldHits> held, const io::TextStream& input,
                    Progress& progress);
  /// The bytes window `w` adds to the searched total (those it owns).
  std::uint64_t searched_bytes(const io::TextWindow& w) const;
  /// A hit at window coordinates: owned, kept, -w, then delivered at record coordinates; with
  /// `batched` (prints_hits_in_parts) into hit_batch_, printed when full.
  bool deliver_local(const io::TextWindow& w, const Location& where, const Hit& local, const Keep& keep,
                     bool batched = false);
  /// deliver_local of a batch of matches owned by their start, none filtered (no keep, no
  /// -w), into match_batch_; false once past the window's owned starts.
  bool batch_matches(const io::TextWindow& w, const Location& where, std::span<const Match> matches);
  /// Returns whether the window's lines were counted (LineCounter) rather than its hits given
  /// to the LineSelector.
  bool search_window(const io::TextWindow& w, const Location& where, const WindowScanner& scanner,
                     Progress& progress, std::uint64_t stored_offset, const Keep& keep = {});
  void search_junction(const CircularJunction& junction, const Location& where, const WindowScanner& scanner);
  void search_circular_best(const io::TextWindow& w, CircularJunction& junction, const Location& where,
                            const WindowScanner& scanner, Progress& progress, std::uint64_t stored_offset);
  /// Whether window `w` owns `local` (a hit at window coordinates; Ownership, -w).
  bool owns(const io::TextWindow& w, const Hit& local) const;
  /// -w / -x: whether `local` has the bytes SearchPlan::bounds asks for on both sides (or its
  /// record's start and end).
  bool bounded_hit(const io::TextWindow& w, const Hit& local) const;
  /// -w or -x: hits are tested by the bytes beside them.
  bool bounded() const { return plan_.bounds != HitBounds::none; }
  bool deliver(Hit hit);
  /// Whether every hit is printed as it is and none stops the input (no -q, -l, -L, -m, -c,
  /// --lines), on several threads: hits then go through hit_batch_ (deliver_local).
  bool prints_hits_in_parts();
  /// The pool and sinks of printing in parts, made once; nullptr where the sink cannot
  /// capture or there is one thread.
  core::WorkerPool* print_parts();
  /// Part p's sink of the current set.
  Sink& part_sink(std::size_t p) { return *print_sinks_[print_set_ * (print_sinks_.size() / 2) + p]; }
  /// Starts writing parts [0, count) of the current set to sink_ on a thread of its own,
  /// after the output being written before (so in order), and switches sets.
  void write_parts(std::size_t count);
  /// Waits until the parts' output is written (rethrows a WriteError): before any other use
  /// of sink_.
  void finish_writing_parts();
  /// Counts, numbers (-n) and prints hit_batch_ (in parts on the threads when it is large),
  /// in order, and empties it.
  void print_hit_batch();
  /// print_hit_batch of match_batch_ (window `w`'s matches), their hits formed in the parts.
  void print_match_batch(const io::TextWindow& w, const Location& where);
  /// Numbers and prints `hits` (their patterns counted by the caller) in `parts` on the
  /// print pool, form(from, to) first setting hits [from, to) on the part's thread; then
  /// writes them.
  void print_hits_in_parts(std::span<Hit> hits, std::size_t parts,
                           const std::function<void(std::size_t, std::size_t)>& form);
  /// -I: the current input is binary (SearchPlan::skip_binary).
  void found_binary();
  /// A line (its "warpmatch: " and '\n' included) on stderr, after the output printed
  /// before it; a file searched ahead tells it in its turn.
  void message(const std::string& text);
  /// SearchPlan::leftmost_longest: whether `start`/`end` (record coordinates) of record
  /// `record` replaces the pending pick (a longer hit at its start), is the next pick (the
  /// pending one is then final: `settle` set), or is not printed.
  enum class Pick { replaces, next, dropped };
  Pick pick(std::uint64_t record, std::uint64_t start, std::uint64_t end, bool& settle);
  /// The pending pick is final (pick() said so): into match_batch_ (a match of window `w`) or
  /// delivered (a hit); false stops the scan (-m).
  bool settle_pick(const io::TextWindow& w, const Location& where, bool batched);
  /// At the end of a window's (or held records') hits: the pending pick is final.
  void settle_pending(const io::TextWindow& w, const Location& where, bool batched);
  /// A hit at record coordinates, now printed: batched (hit_batch_) or delivered.
  bool emit_hit(const Hit& hit, bool batched);
  bool take_selected();
  bool reached_max_per_input() const;
  /// --lines: the most lines with a hit the current window may still select (-m; no cap
  /// with -v, which selects the others).
  std::uint64_t lines_wanted() const;
  /// --lines: hands the lines window `w` finished to the sink (after its scan).
  void deliver_lines(std::string_view path);
  /// `failed`: the input ended in an error (-L does not list it).
  void finish_input(const std::string& name, bool failed = false);
  /// The stderr line of an input (or a directory of -r) that failed, unless -s hides it.
  void report_error(const std::string& path, const std::exception& error) const;

  SearchPlan plan_;
  Sink& sink_;
  /// A searcher of inputs searched ahead keeps its stderr lines here, to be printed in turn.
  std::string* error_lines_ = nullptr;
  std::vector<std::uint8_t> records_text_;  // search_records' text when the records need gaps
  SearchTotals totals_;
  std::vector<std::uint64_t> per_pattern_;  // counts of the current input
  std::uint64_t input_matches_ = 0;
  bool input_open_ = false;
  bool stop_input_ = false;  // -m reached (or -l / -L decided) for the current input
  bool hide_binary_ = false;  // SearchPlan::hide_binary_lines applies to the current input
  std::optional<std::uint64_t> binary_from_;  // then: the input offset of the window holding its first NUL
  bool stop_all_ = false;    // -q saw a hit
  /// -w: the byte of the record just before the current window's data (when its offset > 0),
  /// taken from the record's previous window.
  std::uint8_t byte_before_window_ = 0;
  LineNumbers line_numbers_;    // -n
  LineSelector line_selector_;  // --lines
  /// Output printed on the CPU's threads, each part into a capturing sink handed on in order:
  /// --lines of a window with many selected lines (LineSelector::Parts), and hits in batches
  /// (print_hit_batch). Made when first needed (print_parts).
  std::unique_ptr<core::WorkerPool> print_pool_;
  /// Two sets of a sink a thread: the parts of one round print into one set while the other
  /// set's output is written (print_write_), so writing overlaps the next round's work.
  std::vector<std::unique_ptr<Sink>> print_sinks_;
  std::size_t print_set_ = 0;        // the set the next parts print into
  std::future<void> print_write_;    // the other set's output being written to sink_
  std::vector<Hit> hit_batch_;  // hits at record coordinates, not yet printed
  std::vector<Match> match_batch_;  // a window's matches, not yet printed (scan_matches)
  std::vector<Hit> match_hits_;     // their hits, formed in parts (kept between batches)
  /// SearchPlan::leftmost_longest: the pick not yet final (a hit at record coordinates, or a
  /// match of the current window), the end of the last final one and the record of both.
  std::optional<Hit> pending_hit_;
  std::optional<Match> pending_match_;
  bool picked_ = false;  // a pick is pending
  std::uint64_t picked_record_ = 0, picked_start_ = 0, picked_end_ = 0;
  std::optional<std::uint64_t> settled_record_;  // the record of the last final pick
  std::uint64_t settled_end_ = 0;
  /// -c with --lines or -v, no -m, no context: lines counted from the first hits alone
  /// (LineCounter) while the scanner gives them.
  bool count_lines_ = false;
  LineCounter line_counter_;
  /// -A / -B / -C: the number of the current input's last printed line (0: none yet) and
  /// whether any input printed one (the "--" between groups).
  std::uint64_t last_printed_line_ = 0;
  bool printed_a_line_ = false;
};

/// Searcher::run with Scanner(matcher), behind a CpuFallbackScanner when `compile_cpu` is
/// given and the matcher runs on the GPU (--backend auto): its CPU side is
/// Scanner(compile_cpu()), compiled only once the GPU has run out of memory.
template <class Scanner, class Matcher>
int run_with_cpu_fallback(Searcher& searcher, const Matcher& matcher, const std::function<Matcher()>& compile_cpu,
                          const Searcher::Summarize& summarize, bool stats) {
  const Scanner scanner(matcher);
  std::optional<Matcher> cpu_matcher;
  std::optional<Scanner> cpu_scanner;
  const CpuFallbackScanner fallback(scanner, [&]() -> const WindowScanner& {
    cpu_matcher.emplace(compile_cpu());
    return cpu_scanner.emplace(*cpu_matcher);
  });
  const bool falls_back = compile_cpu && matcher.backend() == Backend::cuda;
  return searcher.run(falls_back ? static_cast<const WindowScanner&>(fallback) : scanner, summarize, stats);
}

}  // namespace warpmatch::cli
