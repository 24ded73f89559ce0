// `warpmatch find`: exact search of one pattern (PATTERN) or of a pattern set (-e P ..., -f FILE)
// in files, stdin, gzip, FASTA/FASTQ records. Raw flags are parsed into FindFlags; run_find()
// resolves them once (matcher, output mode) and then streams every input through the matcher
// into one of the printers. One FindRun serves both matchers (ExactMatcher, MultiMatcher).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "commands.hpp"
#include "io/input.hpp"
#include "io/text_stream.hpp"
#include "job_estimate.hpp"
#include "output.hpp"
#include "progress.hpp"
#include "sequence_options.hpp"
#include "warpmatch/exact.hpp"
#include "warpmatch/multi.hpp"

namespace warpmatch::cli {
namespace {

struct FindFlags {
  std::string pattern;
  bool pattern_given = false;  // set after parsing: PATTERN was on the command line
  std::vector<std::string> files;
  std::vector<std::string> patterns_e;     // -e P (repeatable)
  std::vector<std::string> pattern_files;  // -f FILE (repeatable)
  bool fixed_lines = false;
  bool include_zero = false;  // -c with a pattern set: also the patterns that did not occur
  bool count = false;
  bool ignore_case = false;
  bool json = false;
  bool stats = false;
  bool quiet = false;
  bool with_filename = false;
  bool no_filename = false;
  bool no_progress = false;
  std::string backend = "auto";
  std::string algorithm = "auto";
  std::string format = "auto";
  int threads = 0;
  int device = 0;
  std::int64_t max_count = -1;
  std::string window = "256M";  // --window: text bytes per streamed window
  MbndmGpuConfig mbndm;
  SequenceFlags seq;

  bool multi() const { return !patterns_e.empty() || !pattern_files.empty(); }
  /// Strands and IUPAC codes are searched by the pattern-set engine, even for one pattern.
  bool sequence_search() const { return seq.iupac || seq.strand != "+"; }
};

// Mapped files are searched in windows of this many start positions (streamed inputs in
// windows of --window bytes), overlapping by m - 1 bytes so no occurrence is lost or counted
// twice; between windows the progress bar advances and early stops (-q, -m) take effect.
constexpr std::uint64_t kMappedWindowBytes = 1ull << 30;
constexpr std::uint64_t kMappedWindowBytesCuda = 1ull << 40;

struct Totals {
  std::uint64_t inputs = 0, errors = 0, bytes = 0, matches = 0;
  double scan_seconds = 0;
};

template <class Matcher>
constexpr bool kIsMulti = std::is_same_v<Matcher, MultiMatcher>;

template <class Matcher>
class FindRun {
 public:
  // pattern_ids maps the matcher's pattern index to the one printed (multi only).
  FindRun(const FindFlags& flags, const Matcher& matcher, std::string backend_reason,
          std::vector<std::uint64_t> pattern_ids = {}, PatternLabels labels = {})
      : flags_(flags), matcher_(matcher), backend_reason_(std::move(backend_reason)),
        pattern_ids_(std::move(pattern_ids)), labels_(std::move(labels)), out_(stdout) {
    show_path_ = flags.with_filename || (flags.files.size() > 1 && !flags.no_filename);
    if (flags.seq.tsv && !flags.count && !flags.quiet) append_tsv_header(out_.buffer());
  }

  int run() {
    const auto t0 = std::chrono::steady_clock::now();
    io::StreamOptions options;
    options.format = io::parse_format(flags_.format);
    options.overlap = longest_pattern() - 1;
    options.threads = flags_.threads;
    options.window_bytes = std::max<std::uint64_t>(parse_size(flags_.window), 1);
    // The GPU pipelines stream host text in chunks of their own and set up their pinned
    // staging per scan: a mapped file is one scan for them (a window per GiB is the CPU's).
    options.mapped_window_bytes = matcher_.backend() == Backend::cuda ? kMappedWindowBytesCuda : kMappedWindowBytes;
    for (const std::string& path : flags_.files) {
      if (stop_all_) break;
      ++totals_.inputs;
      try {
        io::TextStream input = io::TextStream::open(path, options);
        search_input(input);
      } catch (const Error& e) {
        // Matches before a corrupt or truncated part are already printed; the counts too.
        finish_input(path);
        out_.flush();
        report_input_error(path, e);
        ++totals_.errors;
      }
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    print_summary(seconds);
    out_.flush();
    if (flags_.quiet && totals_.matches > 0) return 0;  // grep -q: a match wins over errors
    if (totals_.errors > 0) return 2;
    return totals_.matches > 0 ? 0 : 1;
  }

 private:
  std::uint64_t longest_pattern() const {
    if constexpr (kIsMulti<Matcher>) return matcher_.max_pattern_length();
    else return matcher_.pattern_length();
  }

  void search_input(io::TextStream& input) {
    input_open_ = true;
    Progress progress(!flags_.no_progress && !flags_.quiet, input.stored_bytes());
    std::uint64_t shown = 0;
    if constexpr (kIsMulti<Matcher>) per_pattern_.assign(matcher_.pattern_count(), 0);
    const bool fastx = input.format() != io::Format::plain;
    CircularJunction junction(longest_pattern() - 1);
    for (io::TextWindow w; !stop_input_ && !stop_all_ && input.next(w);) {
      const Location where{input.name(), fastx ? std::optional<std::string_view>(w.record) : std::nullopt};
      input_matches_ += search_window(w, where);
      if (flags_.seq.circular && !stop_input_ && !stop_all_ && junction.add(w))
        input_matches_ += search_junction(junction, where);
      totals_.bytes += w.owned;
      const std::uint64_t at = input.stored_offset();
      progress.advance(at > shown ? at - shown : 0);
      shown = std::max(shown, at);
    }
    progress.finish();
    finish_input(input.name());
  }

  // Counts (-c) of the input, then resets the per-input state; once per input, errors included.
  void finish_input(const std::string& name) {
    if (!input_open_) return;
    input_open_ = false;
    totals_.matches += input_matches_;
    if (flags_.count && !flags_.quiet) {
      if constexpr (kIsMulti<Matcher>) print_pattern_counts(name);
      else print_count(name, input_matches_);
    }
    input_matches_ = 0;
    stop_input_ = false;
    matches_this_input_ = 0;
  }

  // Returns the number of matches found (counted or printed) with a start this window owns.
  std::uint64_t search_window(const io::TextWindow& w, const Location& where) {
    std::uint64_t found = 0;
    const ByteSpan window = w.data;
    const std::uint64_t owned = w.owned;
    const auto t0 = std::chrono::steady_clock::now();
    const bool count_only = flags_.count && flags_.max_count < 0 && !flags_.quiet;  // -q stops at the first
    if constexpr (kIsMulti<Matcher>) {
      if (count_only) {
        // Shorter patterns also match inside the window's tail, whose starts belong to the
        // next window: count the whole window, minus what lies entirely in the tail.
        const auto counts = matcher_.count_per_pattern(window);
        std::vector<std::uint64_t> tail;
        if (owned < window.size()) tail = matcher_.count_per_pattern(window.subspan(owned));
        for (std::size_t i = 0; i < counts.size(); ++i) {
          const std::uint64_t n = counts[i] - (tail.empty() ? 0 : tail[i]);
          per_pattern_[i] += n;
          found += n;
        }
      } else {
        matcher_.scan(window, [&](const Match& hit) {
          if (hit.start >= owned) return true;
          ++found;
          return on_match(where, window, w.offset, hit);
        });
      }
    } else {
      // A single pattern of length m cannot start in the m - 1 byte tail: every hit is owned.
      if (count_only) {
        found += matcher_.count(window);  // count-only: the backends never materialise hits
      } else {
        found += matcher_.scan(window, [&](const Match& hit) { return on_match(where, window, w.offset, hit); });
      }
    }
    totals_.scan_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return found;
  }

  // --circular: the hits across the record's end->start junction (they start in its tail).
  std::uint64_t search_junction(const CircularJunction& junction, const Location& where) {
    std::uint64_t found = 0;
    const ByteSpan text = junction.text();
    matcher_.scan(text, [&](const Match& hit) {
      const auto at = junction.crossing(hit.start, hit.end);
      if (!at) return true;
      ++found;
      if (flags_.count && flags_.max_count < 0 && !flags_.quiet) {
        if constexpr (kIsMulti<Matcher>) ++per_pattern_[hit.pattern];
        return true;
      }
      return on_match(where, text, at->first - hit.start, hit);  // printed at base + hit.start
    });
    return found;
  }

  bool on_match(const Location& where, ByteSpan text, std::uint64_t base, const Match& hit) {
    if (flags_.quiet) {
      stop_all_ = true;
      return false;
    }
    if constexpr (kIsMulti<Matcher>) ++per_pattern_[hit.pattern];
    if (!flags_.count)
      print_match(where, text.subspan(hit.start, hit.end - hit.start), base + hit.start, base + hit.end,
                  hit.pattern, hit.strand);
    const bool more =
        flags_.max_count < 0 || static_cast<std::int64_t>(++matches_this_input_) < flags_.max_count;
    if (!more) stop_input_ = true;
    return more;
  }

  std::uint64_t shown_pattern(std::uint32_t index) const {
    return pattern_ids_.empty() ? index : pattern_ids_[index];
  }

  void print_match(const Location& where, ByteSpan matched, std::uint64_t start, std::uint64_t end,
                   std::uint32_t pattern, char strand) {
    auto& buf = out_.buffer();
    if (flags_.seq.bed || flags_.seq.tsv) {
      SequenceHit row;
      row.chrom = where.record ? *where.record : where.path;
      const std::string name = labels_.name(pattern, shown_pattern(pattern));
      row.name = name;
      row.pattern = pattern < labels_.texts.size() ? std::string_view(labels_.texts[pattern]) : std::string_view();
      row.start = start;
      row.end = end;
      row.strand = strand;
      row.matched = std::string_view(reinterpret_cast<const char*>(matched.data()), matched.size());
      if (flags_.seq.bed) append_bed_row(buf, row);
      else append_tsv_row(buf, row);
    } else if (flags_.json) {
      buf.append(std::string_view(R"({"type":"match","path":)"));
      append_json_string(buf, where.path);
      buf.append(std::string_view(R"(,"record":)"));
      if (where.record) append_json_string(buf, *where.record);
      else buf.append(std::string_view("null"));
      fmt::format_to(std::back_inserter(buf), R"(,"pattern":{},"start":{},"end":{})", shown_pattern(pattern), start, end);
      if (flags_.seq.shows_strand()) fmt::format_to(std::back_inserter(buf), R"(,"strand":"{}")", strand);
      buf.append(std::string_view("}\n"));
    } else {
      if (show_path_) fmt::format_to(std::back_inserter(buf), "{}:", where.path);
      if (where.record) fmt::format_to(std::back_inserter(buf), "{}:", *where.record);
      if (flags_.seq.shows_strand()) fmt::format_to(std::back_inserter(buf), "{}:", strand);
      fmt::format_to(std::back_inserter(buf), "{}:", start);
      append_escaped_text(buf, matched);
      buf.push_back('\n');
    }
    out_.maybe_flush();
  }

  void print_count(std::string_view path, std::uint64_t n) {
    auto& buf = out_.buffer();
    if (flags_.json) {
      buf.append(std::string_view(R"({"type":"count","path":)"));
      append_json_string(buf, path);
      fmt::format_to(std::back_inserter(buf), R"(,"pattern":0,"count":{}}})" "\n", n);
    } else if (show_path_) {
      fmt::format_to(std::back_inserter(buf), "{}:{}\n", path, n);
    } else {
      fmt::format_to(std::back_inserter(buf), "{}\n", n);
    }
    out_.maybe_flush();
  }

  // -c with a pattern set: one line per pattern that occurred (every pattern with
  // --include-zero), [PATH:]PATTERN:COUNT.
  void print_pattern_counts(std::string_view path) {
    auto& buf = out_.buffer();
    for (std::size_t i = 0; i < per_pattern_.size(); ++i) {
      if (per_pattern_[i] == 0 && !flags_.include_zero) continue;
      const std::uint64_t id = shown_pattern(static_cast<std::uint32_t>(i));
      if (flags_.json) {
        buf.append(std::string_view(R"({"type":"count","path":)"));
        append_json_string(buf, path);
        fmt::format_to(std::back_inserter(buf), R"(,"pattern":{},"count":{}}})" "\n", id,
                       per_pattern_[i]);
      } else if (show_path_) {
        fmt::format_to(std::back_inserter(buf), "{}:{}:{}\n", path, id, per_pattern_[i]);
      } else {
        fmt::format_to(std::back_inserter(buf), "{}:{}\n", id, per_pattern_[i]);
      }
      out_.maybe_flush();
    }
  }

  void print_summary(double seconds) {
    const std::string_view backend = backend_name(matcher_.backend());
    const std::string device = device_label();
    if (flags_.json && !flags_.quiet) {
      auto& buf = out_.buffer();
      fmt::format_to(std::back_inserter(buf),
                     R"({{"type":"summary","inputs":{},"errors":{},"bytes_searched":{},)"
                     R"("matches":{},"seconds":{:.6f},"scan_seconds":{:.6f},"backend":"{}",)"
                     R"("algorithm":"{}","device":)",
                     totals_.inputs, totals_.errors, totals_.bytes, totals_.matches, seconds,
                     totals_.scan_seconds, backend, matcher_.algorithm());
      append_json_string(buf, device);
      if constexpr (kIsMulti<Matcher>) {
        const MultiCompileStats& c = matcher_.compile_stats();
        fmt::format_to(std::back_inserter(buf),
                       R"(,"patterns":{},"compile_seconds":{:.6f},"compile_memory_bytes":{},)"
                       R"("device_memory_bytes":{})",
                       matcher_.pattern_count(), c.seconds, c.memory_bytes, c.device_memory_bytes);
      }
      buf.append(std::string_view("}\n"));
    }
    if (flags_.stats) {
      out_.flush();
      const double gbps = totals_.scan_seconds > 0 ? totals_.bytes / totals_.scan_seconds / 1e9 : 0;
      std::fprintf(stderr,
                   "warpmatch stats: %llu inputs (%llu errors), %llu bytes searched, %llu matches, "
                   "%.6f s total, %.6f s scanning (%.2f GB/s), backend %s, algorithm %s, device %s\n",
                   static_cast<unsigned long long>(totals_.inputs),
                   static_cast<unsigned long long>(totals_.errors),
                   static_cast<unsigned long long>(totals_.bytes),
                   static_cast<unsigned long long>(totals_.matches), seconds, totals_.scan_seconds,
                   gbps, std::string(backend).c_str(), matcher_.algorithm().c_str(),
                   device.c_str());
      std::fprintf(stderr, "warpmatch stats: backend choice: %s\n", backend_reason_.c_str());
      if constexpr (kIsMulti<Matcher>) {
        const MultiCompileStats& c = matcher_.compile_stats();
        std::fprintf(stderr,
                     "warpmatch stats: %llu patterns (%llu bytes, lengths %llu..%llu), compiled in "
                     "%.6f s, %llu bytes of tables in host memory, %llu on the device\n",
                     static_cast<unsigned long long>(c.patterns),
                     static_cast<unsigned long long>(c.pattern_bytes),
                     static_cast<unsigned long long>(c.min_length),
                     static_cast<unsigned long long>(c.max_length), c.seconds,
                     static_cast<unsigned long long>(c.memory_bytes),
                     static_cast<unsigned long long>(c.device_memory_bytes));
      }
    }
  }

  std::string device_label() const {
    if constexpr (kIsMulti<Matcher>) {
      return matcher_.device_label();
    } else {
      ScanStats s;
      matcher_.count({}, &s);  // an empty scan reports the backend's device label cheaply
      return s.device;
    }
  }

  const FindFlags& flags_;
  const Matcher& matcher_;
  std::string backend_reason_;  // why this backend (--stats)
  std::vector<std::uint64_t> pattern_ids_;
  PatternLabels labels_;
  Output out_;
  Totals totals_;
  std::vector<std::uint64_t> per_pattern_;  // multi: counts of the current input
  bool show_path_ = false;
  bool stop_input_ = false;  // -m reached for the current input
  std::uint64_t matches_this_input_ = 0;  // for -m
  bool stop_all_ = false;    // -q saw a match
  bool input_open_ = false;
  std::uint64_t input_matches_ = 0;
};

// Compiles for the chosen backend; under auto, a GPU that looked present but cannot be used
// (driver files without a working device) falls back to the CPU.
template <class Matcher, class Patterns, class Options>
Matcher compile_with_fallback(const Patterns& patterns, Options options, bool automatic) {
  try {
    return Matcher::compile(patterns, options);
  } catch (const BackendUnavailable&) {
    if (!automatic || options.backend != Backend::cuda) throw;
    options.backend = Backend::cpu;
    return Matcher::compile(patterns, options);
  }
}

// Patterns of -e (indices 0.., in order) then of each -f file (its line index, offset by
// everything before it), so that with one -f a pattern's index is its line number - 1.
// Returns 2 after printing the error when a file cannot be read or the set is empty.
int gather_patterns(const FindFlags& flags, std::vector<std::string>& patterns,
                    std::vector<std::uint64_t>& ids, std::vector<std::string>& names) {
  std::uint64_t next = 0;
  for (const std::string& p : flags.patterns_e) {
    if (p.empty()) {
      std::fprintf(stderr, "warpmatch: -e: empty pattern: give at least one byte to search for\n");
      return 2;
    }
    patterns.push_back(p);
    ids.push_back(next++);
    names.emplace_back();
  }
  for (const std::string& path : flags.pattern_files) {
    // Read as bytes (never as FASTA): '-' is stdin, gzip/zstd are decompressed; a directory,
    // a missing or unreadable file is "PATH: reason".
    // A FASTA file of patterns (primers, guides) gives each its record name (BED/TSV name).
    PatternList list;
    std::vector<std::string> file_names;
    try {
      const io::Input in = io::Input::open(path, io::Format::plain);
      const ByteSpan bytes = in.bytes();
      if (!flags.fixed_lines && !bytes.empty() && bytes[0] == '>') {
        const io::Input fasta = io::Input::open(path, io::Format::fasta);
        for (const auto& r : fasta.records()) {
          list.line_index.push_back(list.patterns.size());
          list.patterns.emplace_back(r.sequence.begin(), r.sequence.end());
          file_names.emplace_back(r.name);
        }
        list.lines = list.patterns.size();
        for (std::size_t i = 0; i < list.patterns.size(); ++i)
          if (list.patterns[i].empty()) throw InvalidArgument(path + ": record '" + file_names[i] + "' has no sequence");
      } else {
        list = parse_pattern_file(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                                  flags.fixed_lines, path);
      }
    } catch (const Error& e) {
      std::fprintf(stderr, "warpmatch: %s\n", e.what());
      return 2;
    }
    if (list.patterns.empty()) {
      std::fprintf(stderr, "warpmatch: %s: no patterns (the file is empty or has only empty lines)\n",
                   path.c_str());
      return 2;
    }
    for (std::size_t i = 0; i < list.patterns.size(); ++i) {
      patterns.push_back(std::move(list.patterns[i]));
      ids.push_back(next + list.line_index[i]);
      names.push_back(i < file_names.size() ? file_names[i] : std::string());
    }
    next += list.lines;
  }
  return 0;
}

int run_multi(const FindFlags& flags) {
  std::vector<std::string> patterns;
  std::vector<std::uint64_t> ids;
  PatternLabels labels;
  if (const int status = gather_patterns(flags, patterns, ids, labels.names)) return status;
  labels.texts = patterns;
  JobShape shape;
  shape.operation = Operation::multi;
  shape.patterns = patterns.size();
  for (const std::string& p : patterns) shape.pattern_length = std::max<std::uint64_t>(shape.pattern_length, p.size());
  shape.threads = flags.threads;
  const BackendChoice choice = resolve_backend_for(flags.backend, flags.files, shape);
  MultiOptions options;
  options.backend = choice.backend;
  options.algorithm = flags.algorithm;
  options.case_insensitive = flags.ignore_case;
  options.threads = flags.threads;
  options.device = flags.device;
  options.mbndm_gpu = flags.mbndm;
  options.strand = flags.seq.parsed_strand();
  options.iupac = flags.seq.iupac;
  const MultiMatcher matcher = compile_with_fallback<MultiMatcher>(patterns, options, flags.backend == "auto");
  if (flags.max_count == 0) return 1;
  return FindRun<MultiMatcher>(flags, matcher, choice.reason, std::move(ids), std::move(labels)).run();
}

int run_find(FindFlags flags) {
  if (flags.multi()) {
    // With -e / -f every positional argument is an input.
    if (flags.pattern_given) flags.files.insert(flags.files.begin(), flags.pattern);
    if (flags.files.empty()) flags.files.push_back("-");
    return run_multi(flags);
  }
  if (flags.files.empty()) flags.files.push_back("-");
  if (!flags.pattern_given) {
    std::fprintf(stderr, "warpmatch: find: a PATTERN (or -e P / -f FILE) is required\n");
    return 2;
  }
  if (flags.pattern.empty()) {
    std::fprintf(stderr, "warpmatch: empty pattern: give at least one byte to search for\n");
    return 2;
  }
  if (flags.sequence_search()) {
    flags.patterns_e.push_back(flags.pattern);  // strands and IUPAC: the pattern-set engine
    return run_multi(flags);
  }
  JobShape shape;
  shape.operation = Operation::exact;
  shape.pattern_length = flags.pattern.size();
  shape.threads = flags.threads;
  const BackendChoice choice = resolve_backend_for(flags.backend, flags.files, shape);
  ExactOptions options;
  options.backend = choice.backend;
  options.algorithm = flags.algorithm;
  options.case_insensitive = flags.ignore_case;
  options.threads = flags.threads;
  options.device = flags.device;
  const ExactMatcher matcher =
      compile_with_fallback<ExactMatcher>(as_bytes(flags.pattern), options, flags.backend == "auto");
  if (flags.max_count == 0) return 1;  // grep -m 0: read nothing, match nothing
  PatternLabels labels;
  labels.texts.push_back(flags.pattern);
  return FindRun<ExactMatcher>(flags, matcher, choice.reason, {}, std::move(labels)).run();
}

CommandRunner add_find_command(CLI::App& app) {
  auto flags = std::make_shared<FindFlags>();
  CLI::App* cmd = app.add_subcommand(
      "find", "Exact search of one pattern, or of a pattern set (-e, -f), every occurrence");
  cmd->set_help_flag("--help", "Print this help and exit");
  CLI::Option* pattern =
      cmd->add_option("PATTERN", flags->pattern,
                      "The bytes to search for (taken literally); absent with -e / -f");
  cmd->add_option("FILE", flags->files,
                  "Inputs: plain, gzip, BGZF, zstd, FASTA or FASTQ (detected by content), streamed in "
                  "bounded memory; '-' or none = stdin");
  cmd->add_option("-e,--pattern", flags->patterns_e,
                  "A pattern of the set (repeatable); PATTERN is then an input")
      ->allow_extra_args(false);
  cmd->add_option("-f,--patterns-file", flags->pattern_files,
                  "File of patterns, one per line, \\xNN and \\\\ escapes (repeatable)")
      ->allow_extra_args(false);
  cmd->add_flag("--fixed-lines", flags->fixed_lines, "Take -f lines verbatim (no escapes)");
  cmd->add_flag("-c,--count", flags->count,
                "Print only the number of occurrences per input (per pattern with -e / -f)");
  cmd->add_flag("--include-zero", flags->include_zero,
                "With -c and -e / -f: also print the patterns that did not occur (count 0)");
  cmd->add_flag("-i,--ignore-case", flags->ignore_case, "ASCII case-insensitive match");
  CLI::Option* json = cmd->add_flag("--json", flags->json,
                "One JSON object per line: matches (or counts), then a summary");
  add_sequence_options(cmd, flags->seq, json);
  cmd->add_flag("--stats", flags->stats,
                "Print bytes, matches, time, backend, device (and pattern-set compile time and "
                "memory) to stderr");
  cmd->add_flag("-q,--quiet", flags->quiet, "No output; exit 0 at the first match");
  cmd->add_flag("-H,--with-filename", flags->with_filename, "Prefix each line with the input name");
  cmd->add_flag("-h,--no-filename", flags->no_filename, "Never prefix lines with the input name");
  cmd->add_option("-m,--max-count", flags->max_count, "Stop after N matches per input (-1 = no limit, as grep)")
      ->check(integer_in(-1));
  add_backend_options(cmd, flags->backend, flags->threads, flags->device);
  cmd->add_option("--algo", flags->algorithm,
                  "auto; one pattern: cpu fast, naive; cuda fast, firstlast, bf (seed paper 003); "
                  "pattern sets: cpu fast, mbndm, naive; cuda fast, mbndm (seed paper 002)");
  cmd->add_option("--page-bytes", flags->mbndm.page_bytes,
                  "cuda mbndm: text page per block (0 = the paper's 1 KiB)")
      ->check(integer_in(0));
  cmd->add_option("--block-threads", flags->mbndm.threads_per_block,
                  "cuda mbndm: threads per block (0 = the paper's 512)")
      ->check(integer_in(0));
  cmd->add_option("--blocks", flags->mbndm.blocks, "cuda mbndm: blocks in the grid (0 = 64 per SM)")
      ->check(integer_in(0));
  cmd->add_option("--keywords-per-thread", flags->mbndm.keywords_per_thread,
                  "cuda mbndm: patterns packed in one thread's 64-bit word (0 = 1, the paper's)")
      ->check(integer_in(0));
  cmd->add_option("--format", flags->format, "Input format: auto, plain, fasta, fastq")
      ->check(CLI::IsMember({"auto", "plain", "fasta", "fastq"}));
  cmd->add_option("--window", flags->window,
                  "Text bytes searched per window of a streamed input (pipe, gzip/BGZF/zstd, "
                  "FASTA/FASTQ); memory is about this plus ~150 MiB of read-ahead (default 256M)")
      ->check(size_check());
  cmd->add_flag("--no-progress", flags->no_progress, "Never draw the progress bar");
  cmd->footer(
      std::string("Output: PATH:RECORD:[STRAND:]START:MATCH per occurrence (PATH with several inputs or -H,\n") +
      "RECORD for FASTA/FASTQ, STRAND with --strand - or both;\n"
      "for FASTA/FASTQ; START is the 0-based byte offset in the record; bytes outside printable\n"
      "ASCII are escaped as \\xNN). Pattern sets: every occurrence of every pattern, overlapping\n"
      "ones included, ordered by (start, pattern); JSON \"pattern\" is the pattern's index: -e\n"
      "patterns first (0, 1, ...), then each -f file's line number - 1 (empty lines are skipped\n"
      "but counted; duplicates each report). -c prints [PATH:]PATTERN:COUNT for every pattern\n"
      "that occurred (every pattern with --include-zero); with one pattern [PATH:]COUNT for every\n"
      "input, 0 included (grep). -m N with -c counts up to N. '-' is standard input, also among\n"
      "files (named \"(standard input)\"). Exit status: 0 match, 1 no match, 2 error (a corrupt or\n"
      "truncated input is reported with its byte offset after the matches before it; the other\n"
      "inputs are searched); with -q a match gives 0 even when an input failed (grep).\n"
      "Write errors (disk full, closed stdout) print 'write error' and give 2.\n"
      "Inputs are streamed: files of any size and endless pipes work in bounded memory (--window).\n"
      "--backend auto weighs the job (bytes, where they come from, patterns) by a cost model and\n"
      "starts CUDA only when the GPU wins end to end; --stats prints the choice and its estimate.\n"
      + std::string(kSequenceHelp) +
      "Examples:\n"
      "  warpmatch find GGATCC lambda.fa.gz             BamHI sites in a phage genome\n"
      "  warpmatch find --strand both --iupac --bed GGNCCR g.fa   both strands, degenerate bases, BED\n"
      "  warpmatch find -c the a.txt b.txt.gz           count per file\n"
      "  zcat big.gz | warpmatch find --json needle     JSON lines from stdin\n"
      "  warpmatch find -f words.txt --stats book.txt   every word of a list, compile stats\n"
      "  warpmatch find -e GGATCC -e GAATTC -c g.fa     two sites, counts per pattern\n"
      "  warpmatch find --backend cuda --algo bf x f    the paper's brute-force GPU kernel");
  return [flags, pattern] {
    flags->pattern_given = pattern->count() > 0;
    return run_find(*flags);
  };
}

}  // namespace

const CommandRegistration find_registration("find", 10, add_find_command);

}  // namespace warpmatch::cli
