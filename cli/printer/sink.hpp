// The one interface between the commands and what they print (ripgrep's Sink): a command, or
// the searcher on its behalf, hands every result to a Sink; the printers are Sinks, one per
// output format, chosen once from the options (make_printer). A printer implements the
// events of the results it can print and ignores the others; none of them decides anything
// (what is a hit, when to stop): that is the searcher's and the command's.
//
//   events             printers (PrintFormat)
//   hit                plain, json, bed, tsv (seqkit locate), site_tsv / site_json (offtarget)
//   line               plain, json (--lines: the lines holding a hit, context lines)
//   group_break        plain (-A / -B / -C: "--" between groups of lines that do not touch)
//   input_done         count, count_json (-c: per input, per pattern for pattern sets)
//   input_listed       names (-l / -L: the inputs the searcher lists)
//   summary            json, count_json (the last line); --stats lines: print_stats()
//   distance, matrix   plain, json (`distance`)
//   lcs, mems          plain, json (`lcs`)
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "output.hpp"
#include "warpmatch/distance.hpp"
#include "warpmatch/lcs.hpp"

namespace warpmatch::cli {

/// Where a hit or count belongs: the input's display name and, for FASTA/FASTQ, the record.
struct Location {
  std::string_view path;
  std::optional<std::string_view> record;  // nullopt for plain inputs
};

/// An off-target site's alignment (offtarget), read on the site's strand.
struct SiteAlignment {
  std::string_view bulge_type;  // "X" none, "DNA", "RNA"
  std::uint32_t bulge_size = 0;
  std::string_view crrna, dna;  // guide and PAM / site bases ('-' bulges, lowercase mismatches)
};

/// One occurrence at record coordinates (find, approx, offtarget).
struct Hit {
  Location where;
  std::uint32_t pattern = 0;  // the matcher's pattern index (offtarget: the guide's)
  std::uint64_t start = 0, end = 0;
  char strand = '+';
  std::optional<std::uint32_t> distance;  // approx: edits or mismatches; none for exact search
  std::string_view cigar;                 // approx, when recovered
  ByteSpan matched;                       // the text bytes [start, end) on the forward strand
  const SiteAlignment* site = nullptr;    // offtarget
  std::optional<std::uint64_t> line;      // -n: the 1-based line holding start (cli/line_index.hpp)
};

/// --lines: a line of a plain input holding a hit (grep's selected line), or with -A / -B / -C
/// a context line around one.
struct SelectedLine {
  std::string_view path;
  std::uint64_t number = 0;  // 1-based
  std::uint64_t offset = 0;  // the input offset of its first byte
  ByteSpan text;             // its bytes without the '\n' (empty with -c: not kept)
  bool context = false;      // a context line (grep prints PATH-LINE-TEXT), not a selected one
};

/// The counts of one finished input (-c), errors included (the counts before the error).
struct InputCount {
  std::string_view path;
  std::uint64_t total = 0;
  std::span<const std::uint64_t> per_pattern;  // by matcher index; empty: one pattern
};

/// The totals of a search over every input (find, approx).
struct SearchTotals {
  std::uint64_t inputs = 0, errors = 0, bytes = 0, matches = 0;
  double scan_seconds = 0;
};

/// JSON fields already rendered: key and JSON value ("3", "true", "0.001000").
using JsonFields = std::vector<std::pair<std::string, std::string>>;

/// What searched: the resolved backend, algorithm and device, and why this backend.
struct SearchEngine {
  std::string backend, algorithm, device, backend_reason;
};

/// The last JSON line and the --stats lines of a search.
struct SearchSummary {
  SearchTotals totals;
  double seconds = 0;
  SearchEngine engine;
  JsonFields json_job;       // after "matches" (approx: patterns, k, best)
  JsonFields json_compile;   // after "device" (pattern sets: patterns, compile time, memory)
  std::string stats_found;   // "N matches", "P patterns, H hits, k K"
  double work_per_byte = 1;  // the rate's work per byte searched (approx: pattern bytes)
  std::string rate_unit;     // "GB/s", "GCUPS"
  std::vector<std::string> stats_more;  // further --stats lines, after the backend choice
};

/// One pair's edit distance (`distance`; with names for --pairs).
struct DistanceRow {
  std::string_view a_name, b_name;
  const DistanceResult& result;
  bool with_names = false;
  std::int64_t k = -1;     // the bound, printed when exceeded
  bool alignment = false;  // --align: the CIGAR too
};

/// `distance --all-vs-all`: row i of A against column j of B at distances[i * b.size() + j].
struct DistanceMatrix {
  const std::vector<std::string>& a_names;
  const std::vector<std::string>& b_names;
  const std::vector<std::int64_t>& distances;  // kDistanceOverK over k
  std::int64_t k = -1;
};

class Sink {
 public:
  Sink() : out_(stdout) {}
  virtual ~Sink() = default;
  Sink(const Sink&) = delete;
  Sink& operator=(const Sink&) = delete;

  virtual void begin() {}  // before any result (headers)
  virtual void hit(const Hit&) {}
  virtual void line(const SelectedLine&) {}
  virtual void group_break() {}
  virtual void input_done(const InputCount&) {}
  /// -l / -L: an input the searcher lists by its display name.
  virtual void input_listed(std::string_view /*path*/) {}
  virtual void summary(const SearchSummary&) {}
  virtual void distance(const DistanceRow&) {}
  virtual void matrix(const DistanceMatrix&) {}
  /// `a` is the first input (the substrings are printed from it).
  virtual void lcs(const LcsResult&, ByteSpan /*a*/) {}
  virtual void mems(const MemResult&) {}
  /// Writes what is buffered; throws WriteError.
  void flush() { out_.flush(); }
  /// Every line written at once (--line-buffered; a terminal always is, see Output).
  void set_line_buffered() { out_.set_line_buffered(); }

  /// A sink that prints as this one does into memory (Output::capture, at most `most_bytes`
  /// kept), for a search running ahead on another thread (cli/file_jobs.hpp); nullptr for a
  /// sink that cannot make one. Its output is then handed on with write_captured().
  std::unique_ptr<Sink> make_capturing(std::size_t most_bytes) const {
    if (!remake_) return nullptr;
    std::unique_ptr<Sink> sink = remake_();
    sink->out_.capture(most_bytes);
    return sink;
  }
  Output& output() { return out_; }
  /// Bytes a capturing sink printed, written here as they are.
  void write_captured(std::string_view bytes) {
    out_.buffer().append(bytes);
    out_.maybe_flush();
  }
  /// Writes what `part` (a sink of make_capturing) printed, and empties it.
  void hand_on_captured(Sink& part) { out_.append_from(part.out_); }
  /// How make_capturing makes a sink like this one (make_printer sets it).
  void set_remake(std::function<std::unique_ptr<Sink>()> remake) { remake_ = std::move(remake); }

 protected:
  Output out_;

 private:
  std::function<std::unique_ptr<Sink>()> remake_;
};

/// Names and texts of the searched patterns, for BED/TSV: a FASTA pattern file's record
/// names (offtarget: the guides'), otherwise the pattern's index.
struct PatternLabels {
  std::vector<std::string> names;  // empty entry: use the index
  std::vector<std::string> texts;
  std::string name(std::size_t i, std::uint64_t shown_index) const {
    return i < names.size() && !names[i].empty() ? names[i] : std::to_string(shown_index);
  }
};

enum class PrintFormat {
  none,        // -q: nothing on stdout
  plain,       // PATH:RECORD:...:MATCH lines; distance / lcs text
  json,        // JSON lines and a summary
  count,       // -c: [PATH:][PATTERN:]COUNT
  count_json,  // -c --json
  names,       // -l / -L: one input name per line
  bed,         // BED6
  tsv,         // seqkit locate's TSV, with a header
  site_tsv,    // offtarget: Cas-OFFinder-like TSV, with a header
  site_json,   // offtarget: one {"type":"site"} object per site
};

/// The decisions a printer needs, resolved once by the command.
struct PrintOptions {
  bool show_path = false;     // PATH: before each line (several inputs or -H, not -h)
  bool show_pattern = false;  // approx plain: PATTERN: (several patterns)
  bool show_strand = false;   // STRAND: / "strand" (--strand - or both)
  bool show_cigar = false;    // approx plain: :CIGAR (--cigar)
  bool show_line_number = false;  // --lines -n: LINE: before each line's text
  bool only_matching = false;     // -o: [PATH:][LINE:]MATCH, the bytes raw (grep -o)
  bool show_byte_offset = false;  // -o -b: START: before MATCH (grep -o -b)
  /// Shown index of matcher pattern i (find -e / -f: its line in the pattern file); empty: i.
  std::vector<std::uint64_t> pattern_ids;
  PatternLabels labels;
  /// -c: every pattern of a set, also those that did not occur (--include-zero).
  bool include_zero = false;
  /// -c --json of one pattern: find's objects carry "pattern":0 as a set's do; approx's none.
  bool count_names_pattern = false;
  /// --color: the plain printer colours as grep does (GREP_COLORS' defaults).
  bool color = false;
  /// -Z: a NUL byte ends each printed input name, not its ':' / '-' mark or -l's line break.
  bool null_after_name = false;
  /// The line between context groups (--group-separator; none: --no-group-separator).
  std::optional<std::string> group_separator = std::string("--");
  /// With color, the spans of a line's text to highlight ([begin, end), ascending, apart);
  /// called from the threads printing in parts (find: the matcher's hits in the line).
  std::function<void(ByteSpan line, std::vector<std::pair<std::size_t, std::size_t>>& spans)> match_spans;

  /// What follows an input name that `mark` would follow without -Z.
  char after_name(char mark) const { return null_after_name ? '\0' : mark; }

  std::uint64_t shown_pattern(std::uint32_t index) const {
    return pattern_ids.empty() ? index : pattern_ids[index];
  }
};

/// The options as the printers hold them: shared by a printer and the capturing printers it
/// makes (Sink::make_capturing).
using SharedPrintOptions = std::shared_ptr<const PrintOptions>;

std::unique_ptr<Sink> make_printer(PrintFormat format, PrintOptions options = {});

/// The --stats lines of a search on stderr (after flushing `sink`).
void print_stats(Sink& sink, const SearchSummary& summary);

}  // namespace warpmatch::cli
