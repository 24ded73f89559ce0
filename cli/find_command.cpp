// `warpmatch find`: exact search of one pattern in files, stdin, gzip, FASTA/FASTQ records.
// Raw flags are parsed into FindFlags; run_find() resolves them once (matcher, output mode)
// and then streams every input through the matcher into one of the printers.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "commands.hpp"
#include "core/chunking.hpp"
#include "core/input.hpp"
#include "output.hpp"
#include "progress.hpp"
#include "warpmatch/exact.hpp"

namespace warpmatch::cli {
namespace {

struct FindFlags {
  std::string pattern;
  std::vector<std::string> files;
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
};

// Texts are searched in segments of this many start positions (overlapping by m - 1 bytes,
// so no occurrence is lost or counted twice); between segments the progress bar advances
// and early stops (-q, -m) take effect.
constexpr std::uint64_t kSegmentBytes = 1ull << 30;

struct Totals {
  std::uint64_t inputs = 0, errors = 0, bytes = 0, matches = 0;
  double scan_seconds = 0;
};

class FindRun {
 public:
  FindRun(const FindFlags& flags, const ExactMatcher& matcher)
      : flags_(flags), matcher_(matcher), out_(stdout) {
    show_path_ = flags.with_filename || (flags.files.size() > 1 && !flags.no_filename);
  }

  int run() {
    const auto t0 = std::chrono::steady_clock::now();
    const io::Format format = io::parse_format(flags_.format);
    for (const std::string& path : flags_.files) {
      if (stop_all_) break;
      ++totals_.inputs;
      try {
        const io::Input input = io::Input::open(path, format);
        search_input(input);
      } catch (const Error& e) {
        // InputError messages already start with the path; device errors get it added.
        out_.flush();
        const std::string what = e.what();
        const bool names_input = what.rfind(path, 0) == 0 ||
                                 (path == "-" && what.rfind("(standard input)", 0) == 0);
        std::fprintf(stderr, "warpmatch: %s%s\n", names_input ? "" : (path + ": ").c_str(),
                     what.c_str());
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
  void search_input(const io::Input& input) {
    std::uint64_t input_bytes = 0;
    for (const auto& r : input.records()) input_bytes += r.sequence.size();
    Progress progress(!flags_.no_progress && !flags_.quiet, input_bytes);
    std::uint64_t input_matches = 0;
    const bool fastx = input.format() != io::Format::plain;
    for (const io::Record& record : input.records()) {
      if (stop_input_ || stop_all_) break;
      const Location where{input.name(), fastx ? std::optional<std::string_view>(record.name)
                                               : std::nullopt};
      input_matches += search_record(record.sequence, where, progress);
    }
    progress.finish();
    totals_.bytes += input_bytes;
    totals_.matches += input_matches;
    if (flags_.count && !flags_.quiet) print_count(input.name(), input_matches);
    stop_input_ = false;
    matches_this_input_ = 0;
  }

  // Returns the number of matches found (counted or printed) in this record.
  std::uint64_t search_record(ByteSpan text, const Location& where, Progress& progress) {
    const std::uint64_t m = matcher_.pattern_length();
    std::uint64_t found = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (const core::Chunk& seg : core::plan_chunks(text.size(), kSegmentBytes, m - 1)) {
      const ByteSpan window = text.subspan(seg.begin, seg.read_end - seg.begin);
      if (flags_.count && flags_.max_count < 0) {
        found += matcher_.count(window);  // count-only: the backends never materialise hits
      } else {
        found += matcher_.scan(window, [&](const Match& hit) {
          if (flags_.quiet) {
            stop_all_ = true;
            return false;
          }
          if (!flags_.count) print_match(where, text, seg.begin + hit.start, seg.begin + hit.end);
          const bool more =
              flags_.max_count < 0 || static_cast<std::int64_t>(++matches_this_input_) < flags_.max_count;
          if (!more) stop_input_ = true;
          return more;
        });
      }
      progress.advance(seg.owned_end - seg.begin);
      if (stop_input_ || stop_all_) break;
    }
    totals_.scan_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return found;
  }

  void print_match(const Location& where, ByteSpan text, std::uint64_t start, std::uint64_t end) {
    auto& buf = out_.buffer();
    if (flags_.json) {
      buf.append(std::string_view(R"({"type":"match","path":)"));
      append_json_string(buf, where.path);
      buf.append(std::string_view(R"(,"record":)"));
      if (where.record) append_json_string(buf, *where.record);
      else buf.append(std::string_view("null"));
      fmt::format_to(std::back_inserter(buf), R"(,"pattern":0,"start":{},"end":{}}})" "\n", start,
                     end);
    } else {
      if (show_path_) fmt::format_to(std::back_inserter(buf), "{}:", where.path);
      if (where.record) fmt::format_to(std::back_inserter(buf), "{}:", *where.record);
      fmt::format_to(std::back_inserter(buf), "{}:", start);
      append_escaped_text(buf, text.subspan(start, end - start));
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

  void print_summary(double seconds) {
    const std::string_view backend = backend_name(matcher_.backend());
    const ScanStats probe = device_stats();
    if (flags_.json && !flags_.quiet) {
      auto& buf = out_.buffer();
      fmt::format_to(std::back_inserter(buf),
                     R"({{"type":"summary","inputs":{},"errors":{},"bytes_searched":{},)"
                     R"("matches":{},"seconds":{:.6f},"scan_seconds":{:.6f},"backend":"{}",)"
                     R"("algorithm":"{}","device":)",
                     totals_.inputs, totals_.errors, totals_.bytes, totals_.matches, seconds,
                     totals_.scan_seconds, backend, matcher_.algorithm());
      append_json_string(buf, probe.device);
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
                   probe.device.c_str());
    }
  }

  ScanStats device_stats() const {
    ScanStats s;
    matcher_.count({}, &s);  // an empty scan reports the backend's device label cheaply
    return s;
  }

  const FindFlags& flags_;
  const ExactMatcher& matcher_;
  Output out_;
  Totals totals_;
  bool show_path_ = false;
  bool stop_input_ = false;  // -m reached for the current input
  std::uint64_t matches_this_input_ = 0;  // for -m
  bool stop_all_ = false;    // -q saw a match
};

int run_find(FindFlags flags) {
  if (flags.files.empty()) flags.files.push_back("-");
  if (flags.pattern.empty()) {
    std::fprintf(stderr, "warpmatch: empty pattern: give at least one byte to search for\n");
    return 2;
  }
  ExactOptions options;
  options.backend = parse_backend(flags.backend);
  options.algorithm = flags.algorithm;
  options.case_insensitive = flags.ignore_case;
  options.threads = flags.threads;
  options.device = flags.device;
  const ExactMatcher matcher = ExactMatcher::compile(as_bytes(flags.pattern), options);
  if (flags.max_count == 0) return 1;  // grep -m 0: read nothing, match nothing
  return FindRun(flags, matcher).run();
}

CommandRunner add_find_command(CLI::App& app) {
  auto flags = std::make_shared<FindFlags>();
  CLI::App* cmd = app.add_subcommand("find", "Exact search of one pattern (every occurrence)");
  cmd->set_help_flag("--help", "Print this help and exit");
  cmd->add_option("PATTERN", flags->pattern, "The bytes to search for (taken literally)")
      ->required();
  cmd->add_option("FILE", flags->files,
                  "Inputs: plain, gzip, FASTA or FASTQ (detected by content); '-' or none = stdin");
  cmd->add_flag("-c,--count", flags->count, "Print only the number of occurrences per input");
  cmd->add_flag("-i,--ignore-case", flags->ignore_case, "ASCII case-insensitive match");
  cmd->add_flag("--json", flags->json,
                "One JSON object per line: matches (or counts), then a summary");
  cmd->add_flag("--stats", flags->stats, "Print bytes, matches, time, backend and device to stderr");
  cmd->add_flag("-q,--quiet", flags->quiet, "No output; exit 0 at the first match");
  cmd->add_flag("-H,--with-filename", flags->with_filename, "Prefix each line with the input name");
  cmd->add_flag("-h,--no-filename", flags->no_filename, "Never prefix lines with the input name");
  cmd->add_option("-m,--max-count", flags->max_count, "Stop after N matches per input");
  cmd->add_option("--backend", flags->backend, "cpu, cuda or auto (the GPU when present)")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}));
  cmd->add_option("-j,--threads", flags->threads, "CPU threads (0 = all cores)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--device", flags->device, "CUDA device ordinal")->check(CLI::NonNegativeNumber);
  cmd->add_option("--algo", flags->algorithm,
                  "auto; cpu: fast, naive (reference); cuda: fast, firstlast, bf (seed paper 003)");
  cmd->add_option("--format", flags->format, "Input format: auto, plain, fasta, fastq")
      ->check(CLI::IsMember({"auto", "plain", "fasta", "fastq"}));
  cmd->add_flag("--no-progress", flags->no_progress, "Never draw the progress bar");
  cmd->footer(
      "Output: PATH:RECORD:START:MATCH per occurrence (PATH with several inputs or -H, RECORD\n"
      "for FASTA/FASTQ; START is the 0-based byte offset in the record; bytes outside printable\n"
      "ASCII are escaped as \\xNN). Exit status: 0 match, 1 no match, 2 error.\n"
      "Examples:\n"
      "  warpmatch find GGATCC lambda.fa.gz             BamHI sites in a phage genome\n"
      "  warpmatch find -c the a.txt b.txt.gz           count per file\n"
      "  zcat big.gz | warpmatch find --json needle     JSON lines from stdin\n"
      "  warpmatch find --backend cuda --algo bf x f    the paper's brute-force GPU kernel");
  return [flags] { return run_find(*flags); };
}

}  // namespace

const CommandRegistration find_registration("find", 10, add_find_command);

}  // namespace warpmatch::cli
