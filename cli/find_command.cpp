// `warpmatch find`: exact search of one pattern (PATTERN) or of a pattern set (-e P ..., -f FILE)
// in files, stdin, gzip, FASTA/FASTQ records. Raw flags are parsed into FindFlags; run_find()
// resolves them once (matcher, plan, printer) and hands the inputs to the searcher
// (cli/searcher.hpp), which prints through the printer (cli/printer/). One FindScanner serves
// both matchers (ExactMatcher, MultiMatcher).
#include <chrono>
#include <cstdio>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "api/tuning_hooks.hpp"
#include "cuda/runtime/devices.hpp"
#include "commands.hpp"
#include "file_selection.hpp"
#include "hybrid_count.hpp"
#include "io/input.hpp"
#include "job_estimate.hpp"
#include "line_options.hpp"
#include "printer/sink.hpp"
#include "searcher.hpp"
#include "sequence_options.hpp"
#include "word_match.hpp"
#include "warpmatch/exact.hpp"
#include "warpmatch/multi.hpp"

namespace warpmatch::cli {
namespace {

struct FindFlags {
  std::string pattern;
  bool pattern_given = false;  // set after parsing: PATTERN was on the command line
  std::vector<std::string> files;  // FILE operands; run_find() resolves them into the inputs
  std::vector<std::string> patterns_e;     // -e P (repeatable)
  std::vector<std::string> pattern_files;  // -f FILE (repeatable)
  bool fixed_lines = false;
  bool include_zero = false;  // -c with a pattern set: also the patterns that did not occur
  bool count = false;
  bool ignore_case = false;
  bool word = false;  // -w
  bool line_regexp = false;  // -x (wins over -w)
  bool json = false;
  bool stats = false;
  bool quiet = false;
  bool with_filename = false;
  bool no_filename = false;
  bool no_progress = false;
  bool line_buffered = false;
  std::string backend = "auto";
  std::string algorithm = "auto";
  std::string format = "auto";
  int threads = 0;
  int device = 0;
  std::string device_memory;  // --device-memory SIZE ("": none given)
  std::string devices;  // --devices: several GPUs (all|LIST)
  std::int64_t max_count = -1;
  std::string window;  // --window: text bytes per streamed window ("": window_bytes_for)
  tuning_hooks::MbndmGpuConfig mbndm;  // the paper's thread configuration (its Table 2)
  SequenceFlags seq;
  FileSelectionFlags selection;  // -l, -L, -r, -s
  LineFlags lines;               // -n, --lines

  bool multi() const { return !patterns_e.empty() || !pattern_files.empty(); }
  /// Strands and IUPAC codes are searched by the pattern-set engine, even for one pattern.
  bool sequence_search() const { return seq.iupac || seq.strand != "+"; }
};

// Mapped files are searched in windows of this many start positions (streamed inputs in
// windows of --window bytes), overlapping by m - 1 bytes so no occurrence is lost or counted
// twice; between windows the progress bar advances and early stops (-q, -m) take effect.
constexpr std::uint64_t kMappedWindowBytes = 1ull << 30;
constexpr std::uint64_t kMappedWindowBytesCuda = 1ull << 40;

template <class Matcher>
constexpr bool kIsMulti = std::is_same_v<Matcher, MultiMatcher>;

template <class Matcher>
std::uint64_t longest_pattern(const Matcher& matcher) {
  if constexpr (kIsMulti<Matcher>) return matcher.max_pattern_length();
  else return matcher.pattern_length();
}

/// Whether two occurrences of `p` can overlap: it has a border (a proper prefix that is also
/// its suffix; ASCII case folded with `ignore_case`), by KMP's failure function.
bool overlaps_itself(std::string_view p, bool ignore_case) {
  const auto fold = [&](char c) { return ignore_case && c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
  std::vector<std::size_t> border(p.size() + 1, 0);
  for (std::size_t i = 1, k = 0; i < p.size(); ++i) {
    while (k > 0 && fold(p[i]) != fold(p[k])) k = border[k];
    if (fold(p[i]) == fold(p[k])) ++k;
    border[i + 1] = k;
  }
  return !p.empty() && border[p.size()] > 0;
}

/// One matcher (ExactMatcher or MultiMatcher) behind the searcher.
template <class Matcher>
class FindScanner : public WindowScanner {
 public:
  explicit FindScanner(const Matcher& matcher) : matcher_(matcher) {}

  void scan(ByteSpan text, const Emit& emit, ScanProgress*) const override {
    matcher_.scan(text, [&](const Match& x) { return emit(local_hit(x.pattern, x.start, x.end, x.strand)); });
  }

  bool scan_matches(ByteSpan text, const MatchBatchSink& sink) const override {
    matcher_.scan_batches(text, sink);
    return true;
  }

  // Counted without materialising hits.
  std::optional<std::uint64_t> count(const io::TextWindow& w, std::span<std::uint64_t> per_pattern) const override {
    if constexpr (kIsMulti<Matcher>) {
      // Shorter patterns also match inside the window's tail, whose starts belong to the
      // next window: count the whole window, minus what lies entirely in the tail.
      const auto counts = matcher_.count_per_pattern(w.data);
      std::vector<std::uint64_t> tail;
      if (w.owned < w.data.size()) tail = matcher_.count_per_pattern(w.data.subspan(w.owned));
      std::uint64_t found = 0;
      for (std::size_t i = 0; i < counts.size(); ++i) {
        const std::uint64_t n = counts[i] - (tail.empty() ? 0 : tail[i]);
        per_pattern[i] += n;
        found += n;
      }
      return found;
    } else {
      // A single pattern of length m cannot start in the m - 1 byte tail: every hit is owned.
      const std::uint64_t n = matcher_.count(w.data);
      per_pattern[0] += n;
      return n;
    }
  }

  std::optional<std::vector<std::uint64_t>> first_per_line(const io::TextWindow& w, std::uint64_t most) const override {
    return matcher_.first_match_per_line(w.data, w.owned, most);
  }

 private:
  const Matcher& matcher_;
};

// The flags resolved into the searcher's plan and the printer, then the search.
// pattern_ids maps the matcher's pattern index to the one printed (multi only).
// compile_cpu (--backend auto): the matcher the search goes on with when the GPU runs out of
// memory; empty otherwise.
// gpu_pending (--backend auto, -c, the GPU chosen): `matcher` is the CPU's, and the GPU's is
// being compiled on a thread of its own (null when it could not be): both count at once
// (HybridCountScanner).
template <class Matcher>
int search(const FindFlags& flags, const Matcher& matcher, const std::string& backend_reason,
           std::vector<std::uint64_t> pattern_ids, PatternLabels labels,
           const std::function<Matcher()>& compile_cpu,
           const std::shared_future<std::shared_ptr<const Matcher>>* gpu_pending = nullptr) {
  const Backend scans_with = gpu_pending ? Backend::cuda : matcher.backend();
  SearchPlan plan;
  plan.inputs = flags.files;
  plan.stream.format = io::parse_format(flags.format);
  plan.stream.overlap = longest_pattern(matcher) - 1;
  plan.stream.threads = flags.threads;
  plan.stream.window_bytes = window_bytes_for(flags.window, scans_with);
  // The GPU pipelines stream host text in chunks of their own and set up their pinned
  // staging per scan: a mapped file is one scan for them (a window per GiB is the CPU's).
  plan.stream.mapped_window_bytes = scans_with == Backend::cuda ? kMappedWindowBytesCuda : kMappedWindowBytes;
  plan.owns = Ownership::starts;
  plan.records_together = RecordsTogether{};  // an exact occurrence within a record is the record's
  // Runs of reads scanned on all the CPU's threads at once (the matcher is shared).
  if (matcher.backend() == Backend::cpu) plan.record_threads = flags.threads > 0 ? flags.threads : hardware_threads();
  plan.file_threads = plan.record_threads;  // small files searched ahead, several at once
  plan.circular = flags.seq.circular;
  plan.circular_reach = longest_pattern(matcher) - 1;
  plan.bounds = hit_bounds(flags.word, flags.line_regexp);
  plan.quiet = flags.quiet;
  plan.count = flags.count;
  plan.max_per_input = flags.max_count;
  flags.selection.apply(plan);
  if constexpr (kIsMulti<Matcher>) plan.pattern_count = matcher.pattern_count();
  plan.count_per_pattern = kIsMulti<Matcher>;
  plan.progress = !flags.no_progress && !flags.quiet;

  PrintOptions print;
  print.null_after_name = flags.selection.null_after_name;  // -Z
  print.show_path = flags.selection.show_input_names(flags.with_filename, flags.no_filename, plan.inputs);
  print.show_strand = flags.seq.shows_strand();
  print.pattern_ids = std::move(pattern_ids);
  print.labels = std::move(labels);
  print.include_zero = flags.include_zero;
  print.count_names_pattern = true;
  flags.lines.apply(plan, print, flags.json);
  // -o as grep -o: picks to make where hits may overlap (a pattern set, or one pattern with a
  // border: "the" never overlaps itself, and then every hit is a pick).
  plan.leftmost_longest = flags.lines.only_matching && !flags.json &&
                          (print.labels.texts.size() != 1 || flags.sequence_search() ||
                           overlaps_itself(print.labels.texts.front(), flags.ignore_case));
  if (print.color) {
    // The line's hits to highlight, as grep does: the leftmost, the longest there, then on
    // after it (with -w only whole words). A line is short: the matcher scans it whole.
    print.match_spans = [&matcher, bounds = hit_bounds(flags.word, flags.line_regexp)](
                            ByteSpan line, std::vector<std::pair<std::size_t, std::size_t>>& spans) {
      std::uint64_t after = 0;
      matcher.scan(line, [&](const Match& m) {
        if (bounds != HitBounds::none && ((m.start > 0 && !bounds_hit(bounds, line[m.start - 1])) ||
                                          (m.end < line.size() && !bounds_hit(bounds, line[m.end]))))
          return true;
        if (m.start >= after) spans.emplace_back(m.start, m.end);
        else if (m.start == spans.back().first && m.end > spans.back().second) spans.back().second = m.end;
        else return true;
        after = spans.back().second;
        return true;
      });
    };
  }
  const std::unique_ptr<Sink> printer =
      flags.seq.make_hit_printer(plan, flags.json, flags.line_buffered, std::move(print));

  HybridCountScanner::Split split;
  Searcher::Summarize summarize;
  if ((flags.json && !flags.quiet) || flags.stats) {
    summarize = [&](SearchSummary& s) {
      s.engine = engine_of(matcher, backend_reason);
      if (gpu_pending) {
        // Not waited for: inputs too small to share leave the GPU unused.
        const std::shared_ptr<const Matcher> gpu =
            gpu_pending->wait_for(std::chrono::seconds(0)) == std::future_status::ready ? gpu_pending->get() : nullptr;
        s.engine.backend = gpu ? "hybrid" : s.engine.backend;
        if (gpu) s.engine.algorithm += "+" + gpu->algorithm(), s.engine.device += " + " + gpu->device_label();
        s.stats_more.push_back(fmt::format("counted on both backends at once: {} bytes on the CPU, {} on the GPU{}",
                                           split.cpu_bytes.load(), split.gpu_bytes.load(),
                                           gpu ? "" : " (the GPU was not used)"));
      }
      s.stats_found = fmt::format("{} matches", s.totals.matches);
      s.rate_unit = "GB/s";
      if constexpr (kIsMulti<Matcher>) {
        const MultiCompileStats& c = matcher.compile_stats();
        s.json_compile = {{"patterns", std::to_string(matcher.pattern_count())},
                          {"compile_seconds", fmt::format("{:.6f}", c.seconds)},
                          {"compile_memory_bytes", std::to_string(c.memory_bytes)},
                          {"device_memory_bytes", std::to_string(c.device_memory_bytes)},
                          {"filter_key_bytes", std::to_string(c.filter_key_bytes)}};
        s.stats_more.push_back(fmt::format(
            "{} patterns ({} bytes, lengths {}..{}), compiled in {:.6f} s, {} bytes of tables in host memory, "
            "{} on the device{}",
            c.patterns, c.pattern_bytes, c.min_length, c.max_length, c.seconds, c.memory_bytes,
            c.device_memory_bytes,
            c.filter_key_bytes ? fmt::format("; filter keyed on {} bytes per start", c.filter_key_bytes) : ""));
      }
    };
  }
  Searcher searcher(std::move(plan), *printer);
  if (gpu_pending) {
    // The GPU's scanner once its matcher is made (on the first get(), by whichever side asks
    // first); out of device memory outside -c's counts, the CPU's goes on (CpuFallbackScanner).
    const FindScanner<Matcher> cpu(matcher);
    std::optional<FindScanner<Matcher>> gpu;
    std::optional<CpuFallbackScanner> gpu_or_cpu;
    const std::shared_future<const WindowScanner*> gpu_scanner =
        std::async(std::launch::deferred, [&]() -> const WindowScanner* {
          const std::shared_ptr<const Matcher>& made = gpu_pending->get();
          if (!made) return nullptr;
          return &gpu_or_cpu.emplace(gpu.emplace(*made), [&]() -> const WindowScanner& { return cpu; });
        }).share();
    const HybridCountScanner hybrid(cpu, gpu_scanner, longest_pattern(matcher) - 1, split, note_cpu_fallback);
    return searcher.run(hybrid, summarize, flags.stats);
  }
  return run_with_cpu_fallback<FindScanner<Matcher>>(searcher, matcher, compile_cpu, summarize, flags.stats);
}

// Compiles for the chosen backend; under auto, a GPU that looked present but cannot be used
// (driver files without a working device) or that has no memory for the patterns' tables
// falls back to the CPU. `compile(options)` builds it.
template <class Options, class Compile>
auto compile_with_fallback(Options options, bool automatic, const Compile& compile) {
  try {
    return compile(options);
  } catch (const BackendUnavailable&) {
    if (!automatic || options.backend != Backend::cuda) throw;
    options.backend = Backend::cpu;
    return compile(options);
  } catch (const DeviceOutOfMemory& e) {
    if (!automatic || options.backend != Backend::cuda) throw;
    note_cpu_fallback(e);
    return compile(on_cpu(options));
  }
}

// --backend auto: how the search compiles for the CPU if the GPU runs out of memory while
// it searches (CpuFallbackScanner); empty for a backend the user chose.
template <class Options, class Compile>
auto cpu_fallback(const Options& options, bool automatic, const Compile& compile)
    -> std::function<decltype(compile(options))()> {
  if (!automatic) return {};
  return [options, &compile] { return compile(on_cpu(options)); };
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

// -c alone (no -m, -q, -l, -L, -w, -x, --lines, --circular): the searcher only counts each
// window's matches (Searcher::search_window), which both backends can share.
bool counts_only(const FindFlags& flags) {
  return flags.count && flags.max_count < 0 && !flags.quiet && !flags.word && !flags.line_regexp &&
         !flags.selection.files_with_matches && !flags.selection.files_without_match &&
         !flags.lines.prints_lines() && !flags.seq.circular;
}

// The options both matchers (ExactOptions, MultiOptions) take from find's flags alike.
template <class Options>
Options matcher_options(const FindFlags& flags, Backend backend) {
  Options options;
  options.backend = backend;
  options.algorithm = flags.algorithm;
  options.case_insensitive = flags.ignore_case;
  apply_execution_flags(flags, options);
  return options;
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
  shape.line_output = flags.lines.prints_lines();
  const BackendChoice choice = resolve_backend_for(flags.backend, flags.files, shape);
  MultiOptions options = matcher_options<MultiOptions>(flags, choice.backend);
  options.strand = flags.seq.parsed_strand();
  options.iupac = flags.seq.iupac;
  const auto compile = [&](const MultiOptions& o) { return tuning_hooks::compile_multi(patterns, o, flags.mbndm); };
  const bool automatic = flags.backend == "auto";
  if (automatic && options.backend == Backend::cuda && counts_only(flags)) {
    // -c: the CPU counts while CUDA starts (HybridCountScanner). The GPU's matcher is compiled
    // by the first window large enough to share, on its GPU side's thread (deferred: a search
    // of small inputs never starts CUDA).
    const MultiMatcher cpu = compile(on_cpu(options));
    const std::shared_future<std::shared_ptr<const MultiMatcher>> gpu =
        std::async(std::launch::deferred, [&]() -> std::shared_ptr<const MultiMatcher> {
          try {
            auto made = std::make_shared<const MultiMatcher>(compile(options));
            // The pinned slots the mapped text is streamed through, while the CPU still counts.
            for (const int device : options.devices.empty() ? std::vector<int>{options.device} : options.devices)
              cuda::prepare_host_upload(device);
            return made;
          } catch (const DeviceOutOfMemory& e) {
            note_cpu_fallback(e);
          } catch (const Error&) {  // no usable GPU after all: the CPU counts alone
          }
          return nullptr;
        }).share();
    return search(flags, cpu, choice.reason + "; -c counted on the CPU and the GPU at once", std::move(ids),
                  std::move(labels), {}, &gpu);
  }
  const MultiMatcher matcher = compile_with_fallback(options, automatic, compile);
  return search(flags, matcher, choice.reason, std::move(ids), std::move(labels),
                cpu_fallback(options, automatic, compile));
}

int run_find(FindFlags flags) {
  if (flags.line_regexp && flags.seq.circular) {
    std::fprintf(stderr, "warpmatch: -x (--line-regexp) does not go with --circular: a circular record has no "
                         "start or end to bound a line\n");
    return 2;
  }
  if (flags.word && flags.seq.circular)
    return reject_word_with("--circular", "a circular record has no start or end to bound a word");
  if (const int status = flags.lines.reject_conflicts(flags.seq)) return status;
  if (flags.multi()) {
    // With -e / -f every positional argument is an input.
    if (flags.pattern_given) flags.files.insert(flags.files.begin(), flags.pattern);
    flags.files = flags.selection.inputs(std::move(flags.files));
    return run_multi(flags);
  }
  flags.files = flags.selection.inputs(std::move(flags.files));
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
  shape.line_output = flags.lines.prints_lines();
  const BackendChoice choice = resolve_backend_for(flags.backend, flags.files, shape);
  const ExactOptions options = matcher_options<ExactOptions>(flags, choice.backend);
  const auto compile = [&](const ExactOptions& o) { return ExactMatcher::compile(as_bytes(flags.pattern), o); };
  const bool automatic = flags.backend == "auto";
  const ExactMatcher matcher = compile_with_fallback(options, automatic, compile);
  PatternLabels labels;
  labels.texts.push_back(flags.pattern);
  return search(flags, matcher, choice.reason, {}, std::move(labels), cpu_fallback(options, automatic, compile));
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
                  "bounded memory; '-' or none = stdin (with -r: a directory's files; none = the "
                  "working directory's)");
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
  // grep -F's scripts run unchanged: patterns are literal bytes here anyway.
  cmd->add_flag("-F,--fixed-strings")->description("Patterns are fixed strings (always so: accepted as grep -F)");
  add_word_option(cmd, flags->word);
  add_line_regexp_option(cmd, flags->line_regexp);
  add_line_options(cmd, flags->lines);
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
  add_file_selection_options(cmd, flags->selection);
  add_backend_options(cmd, flags->backend, flags->threads, flags->device, flags->device_memory);
  add_devices_option(cmd, flags->devices);
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
                  "FASTA/FASTQ); memory is about this plus ~150 MiB of read-ahead (default 64M on the CPU, "
                  "256M on the GPU)")
      ->check(size_check());
  cmd->add_flag("--no-progress", flags->no_progress, "Never draw the progress bar");
  cmd->add_flag("--line-buffered", flags->line_buffered,
                "Write every output line at once (as on a terminal), not in 64 KiB blocks");
  cmd->footer(
      std::string("Output: [PATH:][RECORD:][STRAND:][LINE:]START:MATCH per occurrence (PATH with several\n") +
      "inputs or -H, RECORD for FASTA/FASTQ, STRAND with --strand - or both, LINE with -n;\n"
      "START is the 0-based byte offset in the record; bytes outside printable ASCII are escaped\n"
      "as \\xNN); with --lines [PATH:][LINE:]TEXT per line holding an occurrence (-v: none).\n"
      "Pattern sets: every occurrence of every pattern, overlapping ones included, ordered by\n"
      "(start, pattern); JSON \"pattern\" is the pattern's index: -e patterns first (0, 1, ...),\n"
      "then each -f file's line number - 1 (empty lines are skipped but counted; duplicates each\n"
      "report). -c prints [PATH:]PATTERN:COUNT for every pattern\n"
      "that occurred (every pattern with --include-zero); with one pattern [PATH:]COUNT for every\n"
      "input, 0 included (grep). -m N with -c counts up to N. '-' is standard input, also among\n"
      "files (named \"(standard input)\"). Exit status: 0 match, 1 no match, 2 error (a corrupt or\n"
      "truncated input is reported with its byte offset after the matches before it; the other\n"
      "inputs are searched); with -q a match gives 0 even when an input failed (grep).\n"
      "Write errors (disk full, closed stdout) print 'write error' and give 2.\n"
      "Inputs are streamed: files of any size and endless pipes work in bounded memory (--window);\n"
      "a pipe's matches are printed (and flushed) as soon as its writer pauses (tail -f | find).\n"
      "--backend auto weighs the job (bytes, where they come from, patterns) by a cost model and\n"
      "starts CUDA only when the GPU wins end to end; --stats prints the choice and its estimate.\n"
      + std::string(kSequenceHelp) + kWordHelp + kLineRegexpHelp + kLinesHelp + kFileSelectionHelp +
      "Examples:\n"
      "  warpmatch find GGATCC lambda.fa.gz             BamHI sites in a phage genome\n"
      "  warpmatch find --strand both --iupac --bed GGNCCR g.fa   both strands, degenerate bases, BED\n"
      "  warpmatch find -c the a.txt b.txt.gz           count per file\n"
      "  warpmatch find -w -c -i the book.txt           the word 'the' in any case, not 'other'\n"
      "  warpmatch find -rl GGATCC genomes/             the files under genomes/ with a BamHI site\n"
      "  warpmatch find -n -C 2 --color=always ERROR log | less -R   grep's lines, context, colours\n"
      "  warpmatch find -v -f noise.txt app.log         the lines holding none of a list's words\n"
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
