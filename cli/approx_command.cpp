// `warpmatch approx`: approximate search (every end within K edits, or the best ends) of one
// pattern or of a file of patterns, in files, stdin, gzip, FASTA/FASTQ records. Raw flags are
// parsed into ApproxFlags; run_approx() resolves them once (patterns, matcher, plan, printer)
// and hands the inputs to the searcher (cli/searcher.hpp).
#include <algorithm>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/tuning_hooks.hpp"
#include "commands.hpp"
#include "file_selection.hpp"
#include "io/input.hpp"
#include "job_estimate.hpp"
#include "line_options.hpp"
#include "printer/sink.hpp"
#include "searcher.hpp"
#include "sequence_options.hpp"
#include "word_match.hpp"
#include "warpmatch/approx.hpp"

namespace warpmatch::cli {
namespace {

// -k not given (distinct from any value a user can type, -1 included).
constexpr std::int64_t kKUnset = std::numeric_limits<std::int64_t>::min();

struct ApproxFlags {
  std::vector<std::string> args;  // PATTERN FILE... (or FILE... with --patterns)
  std::string patterns_file;
  std::int64_t k = kKUnset;
  bool best = false;
  bool cigar = false;
  bool ignore_case = false;
  bool word = false;  // -w
  bool json = false;
  bool stats = false;
  bool quiet = false;
  bool count = false;
  bool with_filename = false;
  bool no_filename = false;
  bool best_of_cluster = false;
  bool no_progress = false;
  bool line_buffered = false;
  std::int64_t max_hits = -1;
  std::string window;  // --window ("": window_bytes_for)
  std::string backend = "auto";
  std::string algorithm = "auto";
  std::string format = "auto";
  int threads = 0;
  int device = 0;
  std::string device_memory;  // --device-memory SIZE ("": none given)
  std::string devices;  // --devices: several GPUs (all|LIST)
  int blocks = 0;
  bool hamming = false;
  SequenceFlags seq;
  FileSelectionFlags selection;  // -l, -L, -r, -s
  LineFlags lines;               // -n, --lines
};

/// Patterns from --patterns: FASTA/FASTQ records (their names label BED/TSV rows), or one
/// pattern per line (blank lines and a trailing carriage return ignored).
std::vector<std::vector<std::uint8_t>> load_patterns(const std::string& path, std::vector<std::string>& names) {
  const io::Input input = io::Input::open(path);
  std::vector<std::vector<std::uint8_t>> patterns;
  if (input.format() != io::Format::plain) {
    for (const auto& r : input.records()) {
      patterns.emplace_back(r.sequence.begin(), r.sequence.end());
      names.emplace_back(r.name);
    }
  } else {
    const ByteSpan all = input.bytes();
    std::size_t begin = 0;
    while (begin < all.size()) {
      std::size_t end = begin;
      while (end < all.size() && all[end] != '\n') ++end;
      std::size_t stop = end;
      if (stop > begin && all[stop - 1] == '\r') --stop;
      if (stop > begin) patterns.emplace_back(all.begin() + begin, all.begin() + stop);
      begin = end + 1;
    }
  }
  if (patterns.empty()) throw io::InputError(input.name() + ": no patterns in the file");
  return patterns;
}

/// The matcher behind the searcher.
class ApproxScanner : public WindowScanner {
 public:
  explicit ApproxScanner(const ApproxMatcher& matcher) : matcher_(matcher) {}
  void scan(ByteSpan text, const Emit& emit, ScanProgress* progress) const override {
    matcher_.scan(text, [&](const ApproxMatch& x) {
      Hit hit = local_hit(x.pattern, x.start, x.end, x.strand);
      hit.distance = x.distance;
      hit.cigar = x.cigar;
      return emit(hit);
    }, nullptr, progress);
  }

 private:
  const ApproxMatcher& matcher_;
};

// Reads scanned as one text (RecordsTogether): k + 1 gap bytes that no pattern holds.
std::optional<RecordsTogether> records_together(const std::vector<std::string>& patterns, const ApproxMatcher& matcher) {
  const std::vector<std::string_view> views(patterns.begin(), patterns.end());
  const std::optional<io::RecordGap> gap = io::approx_record_gap(views, matcher.k());
  if (!gap) return std::nullopt;
  return RecordsTogether{*gap, matcher.options().report != Report::ends};
}

// The flags resolved into the searcher's plan and the printer, then the search. compile_cpu
// (--backend auto): the matcher the search goes on with when the GPU runs out of memory.
int search(const ApproxFlags& flags, const ApproxMatcher& matcher, std::vector<std::string> files,
           const std::string& backend_reason, PatternLabels labels,
           const std::function<ApproxMatcher()>& compile_cpu) {
  SearchPlan plan;
  plan.stream.format = io::parse_format(flags.format);
  plan.stream.threads = flags.threads;
  plan.stream.window_bytes = window_bytes_for(flags.window, matcher.backend());
  // Windows overlap by the longest pattern's m + k (every alignment ending in a window's own
  // ends lies inside it). Best mode and --best-per-cluster compare hits across the whole
  // record, so their windows are whole records (memory grows with the largest record).
  std::uint64_t pattern_bytes = 0;
  for (std::size_t i = 0; i < matcher.pattern_count(); ++i) {
    const std::uint64_t m = matcher.pattern_length(i);
    const std::uint64_t k = matcher.k() < 0 ? m : std::min<std::uint64_t>(m, static_cast<std::uint64_t>(matcher.k()));
    plan.stream.overlap = std::max(plan.stream.overlap, m + k);
    pattern_bytes += m;
  }
  if (flags.best || flags.best_of_cluster) {
    plan.stream.window_bytes = plan.stream.mapped_window_bytes = std::uint64_t{1} << 62;
    plan.stream.pipeline = false;  // one whole record in memory, not two
    plan.stream.end_window_on_pause = false;  // nor part of one when a pipe's writer pauses
  }
  plan.inputs = std::move(files);
  plan.owns = Ownership::ends;
  if (!flags.best && !flags.best_of_cluster) plan.records_together = records_together(labels.texts, matcher);
  plan.circular = flags.seq.circular;
  // The junction holds the last m + k bytes (every alignment ending past the record's end
  // starts there) and m + k of its start; the stream's overlap is at least that. In best
  // mode k is the bound (m when unset): no best hit is longer than m + k.
  plan.circular_reach = plan.stream.overlap;
  plan.best = flags.best;
  // Records searched each by itself (best mode, --best-per-cluster): several at once on the
  // CPU's threads (the GPU takes one launch per record).
  if (matcher.backend() == Backend::cpu) plan.record_threads = flags.threads > 0 ? flags.threads : hardware_threads();
  plan.file_threads = plan.record_threads;  // small files searched ahead, several at once
  plan.bounds = flags.word ? HitBounds::words : HitBounds::none;
  plan.quiet = flags.quiet;
  plan.count = flags.count;
  plan.max_per_input = flags.max_hits;
  flags.selection.apply(plan);
  plan.pattern_count = matcher.pattern_count();
  plan.progress = !flags.no_progress && !flags.quiet;
  plan.work_per_byte = matcher.pattern_count();  // the CPU advances a ScanProgress per pattern and chunk
  plan.scan_progress = true;

  PrintOptions print;
  print.null_after_name = flags.selection.null_after_name;  // -Z
  print.show_path = flags.selection.show_input_names(flags.with_filename, flags.no_filename, plan.inputs);
  print.show_pattern = matcher.pattern_count() > 1;
  print.show_strand = flags.seq.shows_strand();
  print.show_cigar = flags.cigar;
  print.labels = std::move(labels);
  flags.lines.apply(plan, print, flags.json);
  if (print.color && !flags.best) {
    // The line's alignments to highlight: the leftmost, the longest there, then on after it.
    print.match_spans = [&matcher](ByteSpan line, std::vector<std::pair<std::size_t, std::size_t>>& spans) {
      std::vector<std::pair<std::size_t, std::size_t>> found;
      matcher.scan(line, [&](const ApproxMatch& m) {
        found.emplace_back(m.start, m.end);
        return true;
      });
      std::sort(found.begin(), found.end());
      for (const auto& [start, end] : found) {
        if (end <= start) continue;
        if (spans.empty() || start >= spans.back().second) spans.emplace_back(start, end);
        else if (start == spans.back().first) spans.back().second = std::max(spans.back().second, end);
      }
    };
  }
  const std::unique_ptr<Sink> printer =
      flags.seq.make_hit_printer(plan, flags.json, flags.line_buffered, std::move(print));

  Searcher::Summarize summarize;
  if ((flags.json && !flags.quiet) || flags.stats) {
    summarize = [&](SearchSummary& s) {
      s.engine = engine_of(matcher, backend_reason);
      s.json_job = {{"patterns", std::to_string(matcher.pattern_count())},
                    {"k", std::to_string(matcher.k())},
                    {"best", flags.best ? "true" : "false"}};
      s.stats_found = fmt::format("{} patterns, {} hits, k {}{}", matcher.pattern_count(), s.totals.matches,
                                  matcher.k(), flags.best ? " (best mode)" : "");
      s.work_per_byte = static_cast<double>(pattern_bytes);
      s.rate_unit = "GCUPS";
    };
  }
  Searcher searcher(std::move(plan), *printer);
  return run_with_cpu_fallback<ApproxScanner>(searcher, matcher, compile_cpu, summarize, flags.stats);
}

int run_approx(const ApproxFlags& flags) {
  std::vector<std::vector<std::uint8_t>> patterns;
  std::vector<std::string> files;
  PatternLabels labels;
  if (!flags.patterns_file.empty()) {
    try {
      patterns = load_patterns(flags.patterns_file, labels.names);
    } catch (const Error& e) {
      std::fprintf(stderr, "warpmatch: --patterns %s\n", e.what());
      return 2;
    }
    files = flags.args;
  } else {
    if (flags.args.empty()) {
      std::fprintf(stderr, "warpmatch: approx needs a PATTERN (or --patterns FILE)\n");
      return 2;
    }
    const std::string& p = flags.args.front();
    if (p.empty()) {
      std::fprintf(stderr, "warpmatch: empty pattern: give at least one byte to search for\n");
      return 2;
    }
    patterns.emplace_back(p.begin(), p.end());
    files.assign(flags.args.begin() + 1, flags.args.end());
  }
  files = flags.selection.inputs(std::move(files));
  for (const auto& p : patterns) labels.texts.emplace_back(p.begin(), p.end());
  if (flags.seq.circular && flags.best_of_cluster) {
    std::fprintf(stderr, "warpmatch: --circular works with -k and --best, not with --best-per-cluster\n");
    return 2;
  }
  // -w tests each hit's own [start, end): not a minimum taken over all hits (words or not)
  // first, nor a record without ends.
  if (flags.word && flags.best)
    return reject_word_with("--best", "the best distance is taken over all hits, words or not");
  if (flags.word && flags.best_of_cluster)
    return reject_word_with("--best-per-cluster", "a cluster's best hit is chosen before any word test");
  if (flags.word && flags.seq.circular)
    return reject_word_with("--circular", "a circular record has no start or end to bound a word");
  if (const int status = flags.lines.reject_conflicts(flags.seq)) return status;
  if (flags.k == kKUnset && !flags.best) {
    std::fprintf(stderr, "warpmatch: approx needs -k K (the maximum number of edits) or --best\n");
    return 2;
  }
  if (flags.k != kKUnset && flags.k < 0) {
    std::fprintf(stderr, "warpmatch: -k must be >= 0 (got %lld)\n", static_cast<long long>(flags.k));
    return 2;
  }
  ApproxOptions options;
  options.k = flags.k == kKUnset ? -1 : flags.k;  // -1: no bound (with --best)
  options.best = flags.best;
  JobShape shape;
  shape.operation = Operation::approx;
  shape.patterns = patterns.size();
  for (const auto& p : patterns) shape.pattern_length = std::max<std::uint64_t>(shape.pattern_length, p.size());
  shape.threads = flags.threads;
  if (!flags.best && !flags.seq.iupac && flags.k != kKUnset && !patterns.empty()) {  // the seed filter's shape
    shape.seed_k = flags.k;
    shape.shortest_pattern = patterns.front().size();
    for (const auto& p : patterns) shape.shortest_pattern = std::min<std::uint64_t>(shape.shortest_pattern, p.size());
  }
  // An algorithm that exists on one backend only (dp: cpu; wavefront: cuda) decides it.
  const bool algorithm_decides = flags.algorithm == "dp" || flags.algorithm == "wavefront";
  const BackendChoice choice =
      resolve_backend_for(algorithm_decides ? std::string("auto") : flags.backend, files, shape);
  options.backend = algorithm_decides && flags.backend == "auto" ? Backend::automatic
                    : flags.backend == "auto"                  ? choice.backend
                                                               : parse_backend(flags.backend);
  options.algorithm = flags.algorithm;
  options.case_insensitive = flags.ignore_case;
  apply_execution_flags(flags, options);
  options.best_of_cluster = flags.best_of_cluster;
  options.strand = flags.seq.parsed_strand();
  options.iupac = flags.seq.iupac;
  options.hamming = flags.hamming;
  // Counting, -q, -l and -L print no hit: no start or alignment is recovered (so -c is never
  // slower than listing); but --circular tells a junction's crossing hits by their starts
  // (with every start 0, -c counted the junction's hits inside the record's head again), and
  // -w tests the byte before each hit's start.
  const bool lists_names = flags.selection.files_with_matches || flags.selection.files_without_match;
  const bool lists_hits = !flags.count && !flags.quiet && !lists_names;
  options.report = !lists_hits && !flags.seq.circular && !flags.word ? Report::ends
                   : lists_hits && (flags.cigar || flags.json) ? Report::cigar  // JSON lines carry the alignment
                                                                : Report::starts;
  tuning_hooks::ApproxKnobs knobs;
  knobs.wavefront_blocks = flags.blocks;  // the paper's D (Table 1 re-measured)
  // auto: the CPU when the GPU cannot be used or has no memory for the search (a note says so);
  // not when the algorithm decided the backend (the CPU has no 'wavefront').
  const bool automatic = flags.backend == "auto" && !algorithm_decides;
  const auto compile_cpu = [&] { return tuning_hooks::compile_approx(patterns, on_cpu(options), knobs); };
  ApproxMatcher matcher = [&] {
    try {
      return tuning_hooks::compile_approx(patterns, options, knobs);
    } catch (const BackendUnavailable&) {
      // auto: a GPU that looked present but cannot be used falls back to the CPU
      if (flags.backend != "auto" || options.backend != Backend::cuda) throw;
      options.backend = Backend::cpu;
      return tuning_hooks::compile_approx(patterns, options, knobs);
    } catch (const DeviceOutOfMemory& e) {
      if (!automatic || options.backend != Backend::cuda) throw;
      note_cpu_fallback(e);
      return compile_cpu();
    }
  }();
  return search(flags, matcher, std::move(files),
                algorithm_decides && flags.backend == "auto" ? "--algo " + flags.algorithm : choice.reason,
                std::move(labels), automatic ? std::function<ApproxMatcher()>(compile_cpu) : nullptr);
}

CommandRunner add_approx_command(CLI::App& app) {
  auto flags = std::make_shared<ApproxFlags>();
  CLI::App* cmd = app.add_subcommand("approx", "Approximate search: every match within K edits, or the best");
  cmd->set_help_flag("--help", "Print this help and exit");
  cmd->add_option("PATTERN FILE", flags->args,
                  "The pattern (taken literally; omitted with --patterns), then inputs: plain, gzip, "
                  "FASTA or FASTQ; '-' or none = stdin (with -r: a directory's files; none = the working "
                  "directory's)");
  cmd->add_option("-k,--max-edits", flags->k, "Report every end position within K edits (K >= pattern "
                  "length: every position); with --best, an upper bound")
      ->check(integer_in(0));
  cmd->add_flag("--best", flags->best, "Only the minimal distance and every end attaining it (edlib HW)");
  cmd->add_option("-f,--patterns", flags->patterns_file,
                  "Search every pattern of FILE (one per line, or FASTA/FASTQ records)");
  cmd->add_flag("--cigar", flags->cigar, "Print the alignment as an extended CIGAR (=, X, I, D)");
  cmd->add_option("-m,--max-hits", flags->max_hits, "Stop after N hits per input (-1 = no limit; grep -m)")
      ->check(integer_in(-1));
  cmd->add_flag("--best-per-cluster", flags->best_of_cluster,
                "Of each run of consecutive end positions report only the best hit");
  cmd->add_flag("-i,--ignore-case", flags->ignore_case, "ASCII case-insensitive match");
  add_word_option(cmd, flags->word);
  add_line_options(cmd, flags->lines);
  CLI::Option* json = cmd->add_flag("--json", flags->json, "One JSON object per line: hits (with cigar), then a summary");
  cmd->add_flag("--hamming", flags->hamming,
                "Substitutions only (no indels): every window as long as the pattern with at most K "
                "mismatches; DISTANCE = mismatches");
  add_sequence_options(cmd, flags->seq, json);
  cmd->add_flag("--stats", flags->stats, "Print bytes, hits, time, GCUPS, backend and device to stderr");
  cmd->add_flag("-q,--quiet", flags->quiet, "No output; exit 0 at the first hit");
  cmd->add_flag("-c,--count", flags->count, "Print only the number of hits per input");
  cmd->add_flag("-H,--with-filename", flags->with_filename, "Prefix each line with the input name");
  cmd->add_flag("-h,--no-filename", flags->no_filename, "Never prefix lines with the input name");
  add_file_selection_options(cmd, flags->selection);
  add_backend_options(cmd, flags->backend, flags->threads, flags->device, flags->device_memory);
  add_devices_option(cmd, flags->devices);
  cmd->add_option("--algo", flags->algorithm,
                  "auto; cpu: myers, dp (reference); cuda: myers, wavefront (seed paper 000)");
  cmd->add_option("--blocks", flags->blocks, "wavefront: the paper's D, pieces of the text (0 = auto)")
      ->check(integer_in(0));
  cmd->add_flag("--no-progress", flags->no_progress, "Never draw the progress bar (drawn on a terminal for long scans)");
  cmd->add_flag("--line-buffered", flags->line_buffered,
                "Write every output line at once (as on a terminal), not in 64 KiB blocks");
  cmd->add_option("--format", flags->format, "Input format: auto, plain, fasta, fastq")
      ->check(CLI::IsMember({"auto", "plain", "fasta", "fastq"}));
  cmd->add_option("--window", flags->window,
                  "Text bytes searched per window (inputs are streamed; windows overlap by m + k); "
                  "--best and --best-per-cluster take whole records (default 64M on the CPU, 256M on the GPU)")
      ->check(size_check());
  cmd->footer(
      std::string("Output: [PATH:][RECORD:][PATTERN:][STRAND:][LINE:]START:END:DISTANCE[:CIGAR]:MATCH per hit (PATH\n") +
      "with several inputs or -H, RECORD for FASTA/FASTQ, PATTERN with --patterns, LINE with -n;\n"
      "END exclusive; START the largest start attaining DISTANCE); with --lines [PATH:][LINE:]TEXT\n"
      "per line holding a hit's START (-v: holding none). CIGAR (SAM's convention, the pattern the\n"
      "query, the text the reference): '=' equal bytes, 'X' a mismatch, 'I' a pattern byte absent\n"
      "from the text, 'D' a text byte absent from the pattern. -c counts every input, 0 included;\n"
      "-q exits 0 at the first hit, even when an input failed. Exit status: 0 hit, 1 no hit, 2\n"
      "error. --best with --circular: the best distance of each pattern and strand over the record\n"
      "read circularly.\n" +
      std::string(kSequenceHelp) + kWordHelp + kLinesHelp + kFileSelectionHelp +
      "Examples:\n"
      "  warpmatch approx -k 3 --hamming --strand both --iupac --bed --patterns guides.fa g.fa\n"
      "  warpmatch approx -k 2 GATTACA genome.fa.gz          every end within 2 edits\n"
      "  warpmatch approx --best --cigar ACGTTGCA reads.fq    best hits with alignments\n"
      "  warpmatch approx -k 1 -rL GATTACA runs/             the files under runs/ without a hit\n"
      "  warpmatch approx -k 1 -w -c recieve mail.txt       whole words within 1 edit of 'recieve'\n"
      "  warpmatch approx -k 3 --patterns primers.txt --json genome.fa\n"
      "  warpmatch approx --best --backend cuda --algo wavefront --blocks 128 X y.txt");
  return [flags] { return run_approx(*flags); };
}

}  // namespace

const CommandRegistration approx_registration("approx", 20, add_approx_command);

}  // namespace warpmatch::cli
