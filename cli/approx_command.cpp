// `warpmatch approx`: approximate search (every end within K edits, or the best ends) of one
// pattern or of a file of patterns, in files, stdin, gzip, FASTA/FASTQ records. Raw flags are
// parsed into ApproxFlags; run_approx() resolves them once (patterns, matcher) and streams
// every record through the matcher into the text or JSON printer. Also registers
// `warpmatch bench approx` (bench/bench_approx.cpp).
#include <atomic>
#include <chrono>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_approx.hpp"
#include "commands.hpp"
#include "io/input.hpp"
#include "io/text_stream.hpp"
#include "job_estimate.hpp"
#include "output.hpp"
#include "progress.hpp"
#include "sequence_options.hpp"
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
  bool json = false;
  bool stats = false;
  bool quiet = false;
  bool count = false;
  bool with_filename = false;
  bool no_filename = false;
  bool best_of_cluster = false;
  bool no_progress = false;
  std::int64_t max_hits = -1;
  std::string window = "256M";  // --window
  std::string backend = "auto";
  std::string algorithm = "auto";
  std::string format = "auto";
  int threads = 0;
  int device = 0;
  int blocks = 0;
  bool hamming = false;
  SequenceFlags seq;
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

/// Draws the progress bar of one record's scan from a thread of its own, reading the
/// matcher's ScanProgress (the scan itself runs on the caller's thread and its workers).
/// stop() before printing hits: the sink runs once every end is found.
class ScanTicker {
 public:
  ScanTicker(Progress& bar, const ScanProgress& progress) : bar_(bar), progress_(progress) {
    if (bar_.active()) thread_ = std::thread([this] { run(); });
  }
  ~ScanTicker() { stop(); }
  void stop() {
    running_ = false;
    if (thread_.joinable()) thread_.join();
    bar_.finish();
  }

 private:
  void run() {
    std::uint64_t shown = 0;
    while (running_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      const std::uint64_t done = progress_.done.load(std::memory_order_relaxed);
      bar_.advance(done - shown);
      shown = done;
    }
  }
  Progress& bar_;
  const ScanProgress& progress_;
  std::atomic<bool> running_{true};
  std::thread thread_;
};

struct Totals {
  std::uint64_t inputs = 0, errors = 0, bytes = 0, hits = 0;
  double scan_seconds = 0;
};

class ApproxRun {
 public:
  ApproxRun(const ApproxFlags& flags, const ApproxMatcher& matcher, std::vector<std::string> files,
            std::string backend_reason, PatternLabels labels)
      : flags_(flags), matcher_(matcher), files_(std::move(files)), out_(stdout),
        backend_reason_(std::move(backend_reason)), labels_(std::move(labels)) {
    show_path_ = flags.with_filename || (files_.size() > 1 && !flags.no_filename);
    show_pattern_ = matcher.pattern_count() > 1;
    if (flags.seq.tsv && !flags.count && !flags.quiet) append_tsv_header(out_.buffer());
  }

  int run() {
    const auto t0 = std::chrono::steady_clock::now();
    for (const std::string& path : files_) {
      if (stop_all_) break;
      ++totals_.inputs;
      try {
        io::TextStream input = io::TextStream::open(path, stream_options());
        search_input(input);
      } catch (const Error& e) {
        finish_input(path);  // hits before a corrupt part are printed; the count too
        out_.flush();
        report_input_error(path, e);
        ++totals_.errors;
      }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    print_summary(seconds);
    out_.flush();
    if (flags_.quiet && totals_.hits > 0) return 0;
    if (totals_.errors > 0) return 2;
    return totals_.hits > 0 ? 0 : 1;
  }

 private:
  // Windows overlap by the longest pattern's m + k (every alignment ending in a window's own
  // ends lies inside it). Best mode and --best-per-cluster compare hits across the whole
  // record, so their windows are whole records (memory grows with the largest record).
  io::StreamOptions stream_options() const {
    io::StreamOptions o;
    o.format = io::parse_format(flags_.format);
    o.threads = flags_.threads;
    o.window_bytes = std::max<std::uint64_t>(parse_size(flags_.window), 1);
    std::uint64_t overlap = 0;
    for (std::size_t i = 0; i < matcher_.pattern_count(); ++i) {
      const std::uint64_t m = matcher_.pattern_length(i);
      const std::uint64_t k = matcher_.k() < 0 ? m : std::min<std::uint64_t>(m, static_cast<std::uint64_t>(matcher_.k()));
      overlap = std::max(overlap, m + k);
    }
    o.overlap = overlap;
    if (flags_.best || flags_.best_of_cluster) {
      o.window_bytes = o.mapped_window_bytes = std::uint64_t{1} << 62;
      o.pipeline = false;  // one whole record in memory, not two
    }
    return o;
  }

  void search_input(io::TextStream& input) {
    input_open_ = true;
    const bool fastx = input.format() != io::Format::plain;
    // The junction holds the last m + k bytes (every alignment ending past the record's end
    // starts there) and m + k of its start; the stream's overlap is at least that.
    CircularJunction junction(stream_options().overlap);
    for (io::TextWindow w; !stop_input_ && !stop_all_ && input.next(w);) {
      const Location where{input.name(), fastx ? std::optional<std::string_view>(w.record) : std::nullopt};
      search_window(w, where);
      if (flags_.seq.circular && !stop_input_ && !stop_all_ && junction.add(w)) search_junction(junction, where);
    }
    finish_input(input.name());
  }

  // --circular: the hits of the record followed by its first m + k bytes that end past the
  // record's end and start inside it (those ending inside are the record's own).
  void search_junction(const CircularJunction& junction, const Location& where) {
    const ByteSpan text = junction.text();
    matcher_.scan(text, [&](const ApproxMatch& local) {
      const auto at = junction.crossing(local.start, local.end);
      if (!at) return true;
      ApproxMatch hit = local;
      hit.start = at->first;
      hit.end = at->second;
      return deliver(where, text.subspan(local.start, local.end - local.start), hit);
    });
  }

  // One hit at record coordinates; false stops the scan (-q, --max-hits).
  bool deliver(const Location& where, ByteSpan matched, const ApproxMatch& hit) {
    ++input_hits_;
    if (flags_.quiet) {
      stop_all_ = true;
      return false;
    }
    if (!flags_.count) print_match(where, matched, hit);
    if (flags_.max_hits >= 0 && static_cast<std::int64_t>(input_hits_) >= flags_.max_hits) {
      stop_input_ = true;
      return false;
    }
    return true;
  }

  void finish_input(const std::string& name) {
    if (!input_open_) return;
    input_open_ = false;
    totals_.hits += input_hits_;
    if (flags_.count && !flags_.quiet) print_count(name, input_hits_);
    input_hits_ = 0;
    stop_input_ = false;
  }

  // One window: the hits whose end lies after the bytes the last window also held (those
  // ends were its own), at record offsets.
  void search_window(const io::TextWindow& w, const Location& where) {
    const ByteSpan text = w.data;
    totals_.bytes += w.data.size() - w.repeated;
    const auto t0 = std::chrono::steady_clock::now();
    Progress bar(!flags_.no_progress && !flags_.quiet, text.size() * matcher_.pattern_count());
    ScanProgress scan_progress;
    ScanTicker ticker(bar, scan_progress);
    bool first_hit = true;
    matcher_.scan(text, [&](const ApproxMatch& local) {
      if (local.end <= w.repeated) return true;
      if (first_hit) {
        ticker.stop();  // every end is found; the bar must not mix with the output
        first_hit = false;
      }
      ApproxMatch hit = local;
      hit.start += w.offset;
      hit.end += w.offset;
      return deliver(where, text.subspan(local.start, local.end - local.start), hit);
    }, nullptr, &scan_progress);
    ticker.stop();
    totals_.scan_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  void print_match(const Location& where, ByteSpan matched, const ApproxMatch& hit) {
    auto& buf = out_.buffer();
    if (flags_.seq.bed || flags_.seq.tsv) {
      SequenceHit row;
      row.chrom = where.record ? *where.record : where.path;
      const std::string name = labels_.name(hit.pattern, hit.pattern);
      row.name = name;
      row.pattern = hit.pattern < labels_.texts.size() ? std::string_view(labels_.texts[hit.pattern]) : std::string_view();
      row.start = hit.start;
      row.end = hit.end;
      row.score = hit.distance;
      row.strand = hit.strand;
      row.matched = std::string_view(reinterpret_cast<const char*>(matched.data()), matched.size());
      if (flags_.seq.bed) append_bed_row(buf, row);
      else append_tsv_row(buf, row);
    } else if (flags_.json) {
      buf.append(std::string_view(R"({"type":"match","path":)"));
      append_json_string(buf, where.path);
      buf.append(std::string_view(R"(,"record":)"));
      if (where.record) append_json_string(buf, *where.record);
      else buf.append(std::string_view("null"));
      fmt::format_to(std::back_inserter(buf), R"(,"pattern":{},"start":{},"end":{},"distance":{},)",
                     hit.pattern, hit.start, hit.end, hit.distance);
      if (flags_.seq.shows_strand()) fmt::format_to(std::back_inserter(buf), R"("strand":"{}",)", hit.strand);
      buf.append(std::string_view(R"("cigar":)"));
      append_json_string(buf, hit.cigar);
      buf.append(std::string_view("}\n"));
    } else {
      if (show_path_) fmt::format_to(std::back_inserter(buf), "{}:", where.path);
      if (where.record) fmt::format_to(std::back_inserter(buf), "{}:", *where.record);
      if (show_pattern_) fmt::format_to(std::back_inserter(buf), "{}:", hit.pattern);
      if (flags_.seq.shows_strand()) fmt::format_to(std::back_inserter(buf), "{}:", hit.strand);
      fmt::format_to(std::back_inserter(buf), "{}:{}:{}:", hit.start, hit.end, hit.distance);
      if (flags_.cigar) fmt::format_to(std::back_inserter(buf), "{}:", hit.cigar);
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
      fmt::format_to(std::back_inserter(buf), R"(,"count":{}}})" "\n", n);
    } else if (show_path_) {
      fmt::format_to(std::back_inserter(buf), "{}:{}\n", path, n);
    } else {
      fmt::format_to(std::back_inserter(buf), "{}\n", n);
    }
    out_.maybe_flush();
  }

  void print_summary(double seconds) {
    const std::string_view backend = backend_name(matcher_.backend());
    if (flags_.json && !flags_.quiet) {
      auto& buf = out_.buffer();
      fmt::format_to(std::back_inserter(buf),
                     R"({{"type":"summary","inputs":{},"errors":{},"bytes_searched":{},"matches":{},)"
                     R"("patterns":{},"k":{},"best":{},"seconds":{:.6f},"scan_seconds":{:.6f},)"
                     R"("backend":"{}","algorithm":"{}","device":)",
                     totals_.inputs, totals_.errors, totals_.bytes, totals_.hits, matcher_.pattern_count(),
                     matcher_.k(), flags_.best, seconds, totals_.scan_seconds, backend, matcher_.algorithm());
      append_json_string(buf, matcher_.device_label());
      buf.append(std::string_view("}\n"));
    }
    if (flags_.stats) {
      out_.flush();
      const double cells = static_cast<double>(totals_.bytes) * static_cast<double>(pattern_bytes());
      const double gcups = totals_.scan_seconds > 0 ? cells / totals_.scan_seconds / 1e9 : 0;
      std::fprintf(stderr,
                   "warpmatch stats: %llu inputs (%llu errors), %llu bytes searched, %zu patterns, "
                   "%llu hits, k %lld%s, %.6f s total, %.6f s scanning (%.2f GCUPS), backend %s, "
                   "algorithm %s, device %s\n",
                   static_cast<unsigned long long>(totals_.inputs), static_cast<unsigned long long>(totals_.errors),
                   static_cast<unsigned long long>(totals_.bytes), matcher_.pattern_count(),
                   static_cast<unsigned long long>(totals_.hits), static_cast<long long>(matcher_.k()),
                   flags_.best ? " (best mode)" : "", seconds, totals_.scan_seconds, gcups,
                   std::string(backend).c_str(), matcher_.algorithm().c_str(), matcher_.device_label().c_str());
      std::fprintf(stderr, "warpmatch stats: backend choice: %s\n", backend_reason_.c_str());
    }
  }

  std::uint64_t pattern_bytes() const {
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < matcher_.pattern_count(); ++i) total += matcher_.pattern_length(i);
    return total;
  }

  const ApproxFlags& flags_;
  const ApproxMatcher& matcher_;
  std::vector<std::string> files_;
  Output out_;
  Totals totals_;
  bool show_path_ = false;
  bool show_pattern_ = false;
  bool stop_all_ = false;
  bool stop_input_ = false;   // --max-hits reached for the current input
  bool input_open_ = false;
  std::uint64_t input_hits_ = 0;
  std::string backend_reason_;  // why this backend (--stats)
  PatternLabels labels_;
};

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
  if (files.empty()) files.push_back("-");
  for (const auto& p : patterns) labels.texts.emplace_back(p.begin(), p.end());
  if (flags.seq.circular && (flags.best || flags.best_of_cluster)) {
    std::fprintf(stderr, "warpmatch: --circular works with -k (all hits within K), not with --best or "
                         "--best-per-cluster\n");
    return 2;
  }
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
  // An algorithm that exists on one backend only (dp: cpu; wavefront: cuda) decides it.
  const bool algorithm_decides = flags.algorithm == "dp" || flags.algorithm == "wavefront";
  const BackendChoice choice =
      resolve_backend_for(algorithm_decides ? std::string("auto") : flags.backend, files, shape);
  options.backend = algorithm_decides && flags.backend == "auto" ? Backend::automatic
                    : flags.backend == "auto"                  ? choice.backend
                                                               : parse_backend(flags.backend);
  options.algorithm = flags.algorithm;
  options.case_insensitive = flags.ignore_case;
  options.threads = flags.threads;
  options.device = flags.device;
  options.best_of_cluster = flags.best_of_cluster;
  options.strand = flags.seq.parsed_strand();
  options.iupac = flags.seq.iupac;
  options.hamming = flags.hamming;
  // Counting and -q print no hit: no start or alignment is recovered (so -c is never slower
  // than listing).
  const bool lists_hits = !flags.count && !flags.quiet;
  options.want_start = lists_hits;
  options.want_cigar = lists_hits && (flags.cigar || flags.json);  // JSON lines always carry the alignment
  options.wavefront_blocks = flags.blocks;
  ApproxMatcher matcher = [&] {
    try {
      return ApproxMatcher::compile(patterns, options);
    } catch (const BackendUnavailable&) {
      // auto: a GPU that looked present but cannot be used falls back to the CPU
      if (flags.backend != "auto" || options.backend != Backend::cuda) throw;
      options.backend = Backend::cpu;
      return ApproxMatcher::compile(patterns, options);
    }
  }();
  if (flags.max_hits == 0) return 1;
  return ApproxRun(flags, matcher, std::move(files),
                   algorithm_decides && flags.backend == "auto" ? "--algo " + flags.algorithm : choice.reason,
                   std::move(labels))
      .run();
}

CommandRunner add_approx_command(CLI::App& app) {
  auto flags = std::make_shared<ApproxFlags>();
  CLI::App* cmd = app.add_subcommand("approx", "Approximate search: every match within K edits, or the best");
  cmd->set_help_flag("--help", "Print this help and exit");
  cmd->add_option("PATTERN FILE", flags->args,
                  "The pattern (taken literally; omitted with --patterns), then inputs: plain, gzip, "
                  "FASTA or FASTQ; '-' or none = stdin");
  cmd->add_option("-k,--max-edits", flags->k, "Report every end position within K edits (K >= pattern "
                  "length: every position); with --best, an upper bound")
      ->check(integer_in(0));
  cmd->add_flag("--best", flags->best, "Only the minimal distance and every end attaining it (edlib HW)");
  cmd->add_option("-f,--patterns", flags->patterns_file,
                  "Search every pattern of FILE (one per line, or FASTA/FASTQ records)");
  cmd->add_flag("--cigar", flags->cigar, "Print the alignment as an extended CIGAR (=, X, I, D)");
  cmd->add_option("--max-hits", flags->max_hits, "Stop after N hits per input (-1 = no limit)")
      ->check(integer_in(-1));
  cmd->add_flag("--best-per-cluster", flags->best_of_cluster,
                "Of each run of consecutive end positions report only the best hit");
  cmd->add_flag("-i,--ignore-case", flags->ignore_case, "ASCII case-insensitive match");
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
  add_backend_options(cmd, flags->backend, flags->threads, flags->device);
  cmd->add_option("--algo", flags->algorithm,
                  "auto; cpu: myers, dp (reference); cuda: myers, wavefront (seed paper 000)");
  cmd->add_option("--blocks", flags->blocks, "wavefront: the paper's D, pieces of the text (0 = auto)")
      ->check(integer_in(0));
  cmd->add_flag("--no-progress", flags->no_progress, "Never draw the progress bar (drawn on a terminal for long scans)");
  cmd->add_option("--format", flags->format, "Input format: auto, plain, fasta, fastq")
      ->check(CLI::IsMember({"auto", "plain", "fasta", "fastq"}));
  cmd->add_option("--window", flags->window,
                  "Text bytes searched per window (inputs are streamed; windows overlap by m + k); "
                  "--best and --best-per-cluster take whole records (default 256M)")
      ->check(size_check());
  cmd->footer(
      std::string("Output: [PATH:][RECORD:][PATTERN:][STRAND:]START:END:DISTANCE[:CIGAR]:MATCH per hit (PATH with several\n") +
      "inputs or -H, RECORD for FASTA/FASTQ, PATTERN with --patterns; END exclusive; START the\n"
      "largest start attaining DISTANCE). CIGAR (SAM's convention, the pattern the query, the text\n"
      "the reference): '=' equal bytes, 'X' a mismatch, 'I' a pattern byte absent from the text,\n"
      "'D' a text byte absent from the pattern. -c counts every input, 0 included; -q exits 0 at\n"
      "the first hit, even when an input failed. Exit status: 0 hit, 1 no hit, 2 error.\n" +
      std::string(kSequenceHelp) +
      "Examples:\n"
      "  warpmatch approx -k 3 --hamming --strand both --iupac --bed --patterns guides.fa g.fa\n"
      "  warpmatch approx -k 2 GATTACA genome.fa.gz          every end within 2 edits\n"
      "  warpmatch approx --best --cigar ACGTTGCA reads.fq    best hits with alignments\n"
      "  warpmatch approx -k 3 --patterns primers.txt --json genome.fa\n"
      "  warpmatch approx --best --backend cuda --algo wavefront --blocks 128 X y.txt");
  return [flags] { return run_approx(*flags); };
}

CommandRunner add_bench_approx(CLI::App& bench) {
  auto opt = std::make_shared<bench::BenchApproxOptions>();
  CLI::App* cmd = bench.add_subcommand("approx", "Approximate search (seed paper 000 Table 1) vs edlib");
  cmd->set_help_flag("--help", "Print this help and exit");
  std::string bytes = "4M", big = "1G";
  auto bytes_ptr = std::make_shared<std::string>(bytes), big_ptr = std::make_shared<std::string>(big);
  cmd->add_option("--bytes", *bytes_ptr, "Text size of the Table 1 rows (default 4M = 2^22)");
  cmd->add_option("--big-bytes", *big_ptr, "Text size of the throughput row, m = 256 (0 = skip; default 1G)");
  cmd->add_option("--lengths", opt->lengths, "Pattern lengths m, comma-separated");
  cmd->add_option("--blocks", opt->wavefront_blocks, "Wavefront piece counts D, comma-separated");
  cmd->add_option("--repeats", opt->repeats, "Timed repeats per measurement (median)");
  cmd->add_option("-j,--threads", opt->threads, "CPU threads (0 = all)");
  cmd->add_option("--json", opt->json_path, "Write the results as JSON to this path");
  cmd->add_option("--commit", opt->commit, "Commit recorded in the JSON");
  cmd->add_flag("--skip-gpu", opt->skip_gpu, "Only the CPU rows");
  cmd->add_flag("--skip-edlib-single", opt->skip_edlib_single, "Skip edlib on one thread");
  return [opt, bytes_ptr, big_ptr] {
    opt->text_bytes = parse_size(*bytes_ptr);
    opt->big_text_bytes = *big_ptr == "0" ? 0 : parse_size(*big_ptr);
    return bench::run_bench_approx(*opt);
  };
}

CommandRunner add_bench_approx_sets(CLI::App& bench) {
  auto opt = std::make_shared<bench::BenchApproxSetsOptions>();
  CLI::App* cmd = bench.add_subcommand("approx-sets", "Many 20-mers approximately (issue 15): one, 100, 1000 patterns");
  cmd->set_help_flag("--help", "Print this help and exit");
  auto single = std::make_shared<std::string>("1G"), set = std::make_shared<std::string>("256M");
  cmd->add_option("--single-bytes", *single, "Text of the one-pattern rows (0 = skip; default 1G)");
  cmd->add_option("--set-bytes", *set, "Text of the 100- and 1000-pattern rows (0 = skip; default 256M)");
  cmd->add_option("--repeats", opt->repeats, "Timed repeats per measurement (median)")->check(CLI::PositiveNumber);
  cmd->add_option("-j,--threads", opt->threads, "CPU threads (0 = all)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--json", opt->json_path, "Write the results as JSON to this path");
  cmd->add_option("--commit", opt->commit, "Commit recorded in the JSON");
  cmd->add_flag("--skip-gpu", opt->skip_gpu, "Only the CPU rows");
  cmd->footer("Example:\n  warpmatch bench approx-sets --single-bytes 256M --set-bytes 64M --repeats 1");
  return [opt, single, set] {
    opt->single_bytes = *single == "0" ? 0 : parse_size(*single);
    opt->set_bytes = *set == "0" ? 0 : parse_size(*set);
    return bench::run_bench_approx_sets(*opt);
  };
}

}  // namespace

const CommandRegistration approx_registration("approx", 20, add_approx_command);
const BenchRegistration bench_approx_registration("approx", 30, add_bench_approx);
const BenchRegistration bench_approx_sets_registration("approx-sets", 31, add_bench_approx_sets);

}  // namespace warpmatch::cli
