// `warpmatch-bench e2e` — the command line timed as a user runs it (issue 12).
//
// Every measurement is one process (or a `/bin/sh -c` pipeline) started with posix_spawn and
// reaped with wait4: wall clock from spawn to reap, peak resident memory from the rusage
// (for a shell, the largest of the shell and its children). The data is generated into a
// temporary directory first — English-like text with a planted rare word, a random-ACGT
// FASTA and its gzip / BGZF / zstd copies (written here with zlib, libdeflate and libzstd),
// a 100-byte file, a TSV of sequence pairs — so it sits in the page cache; each command then
// runs once as a warm-up and --repeats times timed (median), a job's rows timed round by round
// (interleaved; every other round in reverse order, so that no row always follows the same
// one), so that auto, cpu, cuda and the peer meet the same moments of the host. The generator counts what each
// job must find, so every row's count is checked against an exact oracle (or, where there is
// none, warpmatch's backends against each other). The warpmatch timed is --warpmatch (default:
// the `warpmatch` beside this executable); its GPU is probed with `warpmatch info --json` in a
// child process, so the benchmark itself never holds a CUDA context.
#include "bench/bench_e2e.hpp"

#include <sys/statvfs.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench/bench_support.hpp"
#include "bench/e2e_data.hpp"
#include "bench/e2e_jobs.hpp"
#include "bench/e2e_spawner.hpp"
#include "warpmatch/common.hpp"

namespace warpmatch::bench {
namespace {

using namespace e2e;
using support::trim;
using json = nlohmann::json;

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789_-./=:,+@") == std::string::npos)
    return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string shell_join(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) {
    if (!s.empty()) s += ' ';
    s += shell_quote(a);
  }
  return s;
}

std::string fmt_size(std::uint64_t b) {
  if (b >= (1ull << 30)) return b % (1ull << 30) ? fmt::format("{:.2f} GiB", b / kMiB / 1024) : fmt::format("{} GiB", b >> 30);
  if (b >= (1ull << 20)) return b % (1ull << 20) ? fmt::format("{:.1f} MiB", b / kMiB) : fmt::format("{} MiB", b >> 20);
  if (b >= (1ull << 10)) return fmt::format("{:.1f} KiB", b / 1024.0);
  return fmt::format("{} B", b);
}

std::string fmt_seconds(double s) {
  if (s <= 0) return "-";
  return s < 1 ? fmt::format("{:.1f} ms", s * 1e3) : fmt::format("{:.3f} s", s);
}

std::string fmt_num(double v, int decimals) {
  return v > 0 && std::isfinite(v) ? fmt::format("{:.{}f}", v, decimals) : "-";
}


// ---- environment -----------------------------------------------------------------------------
/// The warpmatch executable timed: `given` (--warpmatch), else the one beside this program.
std::string warpmatch_executable(const std::string& given) {
  if (!given.empty()) return given;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot read /proc/self/exe: " + ec.message() + " (give --warpmatch)");
  const fs::path beside = self.parent_path() / "warpmatch";
  if (!fs::exists(beside)) throw std::runtime_error("no warpmatch beside " + self.string() + " (give --warpmatch)");
  return beside.string();
}

/// A device of `warpmatch info --json` as the library describes it (for support::device_json).
DeviceInfo device_from_info(const json& d) {
  DeviceInfo info;
  info.ordinal = d.value("ordinal", 0);
  info.name = d.value("name", std::string());
  const std::string cc = d.value("compute_capability", std::string("0.0"));
  info.compute_major = std::atoi(cc.c_str());
  info.compute_minor = cc.find('.') == std::string::npos ? 0 : std::atoi(cc.c_str() + cc.find('.') + 1);
  info.multiprocessors = d.value("multiprocessors", 0);
  info.clock_mhz = d.value("clock_mhz", 0);
  info.global_memory_bytes = d.value("memory_bytes", std::uint64_t{0});
  info.l2_bytes = d.value("l2_bytes", std::uint64_t{0});
  return info;
}

struct Peer {
  std::string path, version, skip;  // skip: why the peer's rows are skipped ("" = usable)
  json to_json() const {
    return {{"path", path}, {"version", skip.empty() ? json(version) : json(nullptr)},
            {"skipped", skip.empty() ? json(nullptr) : json(skip)}};
  }
};

Peer probe_peer(Spawner& spawner, const std::string& path, const std::vector<std::string>& version_args,
                const fs::path& scratch, const std::string& flag) {
  Peer p;
  p.path = path;
  if (path.empty() || path == "none") {
    p.skip = flag + " none given";
    return p;
  }
  std::vector<std::string> argv{path};
  argv.insert(argv.end(), version_args.begin(), version_args.end());
  const RunResult r = spawner.run(argv, scratch, 60);
  if (!r.ok || r.exit_code != 0) {
    p.skip = r.error.empty() ? fmt::format("`{}` failed", shell_join(argv)) : r.error;
    return p;
  }
  const std::string text = trim(r.out.empty() ? r.err : r.out);
  p.version = text.substr(0, text.find('\n'));
  p.version.erase(0, p.version.find_first_not_of("* "));  // zstd: "*** Zstandard CLI ... ***"
  p.version.erase(p.version.find_last_not_of("* ") + 1);
  return p;
}

struct Environment {
  std::string exe;  // this warpmatch
  json info;        // `warpmatch info --json`
  json device;      // first GPU or null
  std::string gpu_skip;
  std::string cpu_model, commit;
  int hw = 1;
  double true_rss_mib = 0, true_wall_s = 0;  // /bin/true through the helper: the floor
  Peer rg, seqkit, gzip, zstd, stringzilla;
};

// ---- the benchmark ---------------------------------------------------------------------------
class Bench {
 public:
  Bench(const BenchE2EOptions& o, Spawner& spawner) : o_(o), spawner_(spawner) {}
  int run();

 private:
  void probe(const fs::path& scratch);
  void generate(const std::vector<std::string>& ids);
  void plan(const std::vector<std::string>& ids);
  /// Job 8 searches a FASTA of its own (--primers-genome-bytes given, another size).
  bool separate_primers_genome() const {
    return o_.primers_genome_bytes != 0 && o_.primers_genome_bytes != o_.sequence_bytes;
  }
  std::vector<std::string> wm(const std::string& sub, const std::string& backend,
                              std::vector<std::string> args, bool stats) const;
  Row wm_row(const std::string& backend, const std::string& sub, const std::vector<std::string>& args,
             Parse parse, std::string unit, bool stats_always = false) const;
  Row wm_pipe_row(const std::string& backend, const std::string& feed, const std::vector<std::string>& args) const;
  std::vector<std::string> rg_args(const std::vector<std::string>& args) const;
  void print_table() const;
  json to_json(bool complete, int exit_status) const;
  void write_json(bool complete, int exit_status) const;

  const BenchE2EOptions& o_;
  Spawner& spawner_;
  Environment env_;
  fs::path dir_;
  Vocabulary vocab_;
  std::optional<TextInfo> text_;
  fs::path words_path_, tiny_path_;
  std::optional<FastaInfo> fasta_;
  std::optional<FastaInfo> sequence_fasta_;  // jobs 8-9
  std::optional<FastaInfo> primers_fasta_;   // job 8 with --primers-genome-bytes, else unset
  std::optional<FastaInfo> set_genome_fasta_;  // job 10
  std::optional<ReadsInfo> reads_;             // job 12
  std::optional<TreeInfo> tree_;               // job 13
  fs::path primers_path_, guides_path_, set_guides_path_;
  fs::path kmers_path_;  // job 11
  std::vector<Compressed> compressed_;
  std::optional<PairsInfo> pairs_;
  std::vector<Job> jobs_;
};

void Bench::probe(const fs::path& scratch) {
  env_.hw = hardware_threads();
  env_.cpu_model = support::cpu_model();
  env_.commit = support::git_commit(o_.commit);
  env_.exe = warpmatch_executable(o_.warpmatch_path);
  const RunResult floor = spawner_.run({"/bin/true"}, scratch, 60);
  env_.true_rss_mib = floor.max_rss_mib;
  env_.true_wall_s = floor.wall_s;
  const RunResult info = spawner_.run({env_.exe, "info", "--json"}, scratch, 120);
  if (info.ok) env_.info = json::parse(info.out, nullptr, false);
  if (o_.skip_gpu) {
    env_.gpu_skip = "--no-gpu given";
  } else if (!info.ok || env_.info.is_discarded()) {
    env_.gpu_skip = "`warpmatch info --json` failed: " + info.error;
  } else if (env_.info.value("devices", json::array()).empty()) {
    env_.gpu_skip = env_.info.value("cuda_compiled", false) ? "no GPU visible to the CUDA runtime"
                                                            : "this build has no CUDA backend";
  } else {
    env_.device = support::device_json(device_from_info(env_.info["devices"][0]));
  }
  env_.rg = probe_peer(spawner_, o_.rg_path, {"--version"}, scratch, "--rg");
  env_.seqkit = probe_peer(spawner_, o_.seqkit_path, {"version"}, scratch, "--seqkit");
  env_.gzip = probe_peer(spawner_, "gzip", {"--version"}, scratch, "gzip");
  env_.zstd = probe_peer(spawner_, o_.zstd_path, {"--version"}, scratch, "--zstd");
  env_.stringzilla = probe_peer(spawner_, "python3", {"-c", "import stringzilla; print('stringzilla', stringzilla.__version__)"},
                                scratch, "python3");
  if (!env_.stringzilla.skip.empty())
    env_.stringzilla.skip = "python3 cannot import stringzilla (optional peer)";
}

void Bench::generate(const std::vector<std::string>& ids) {
  auto wants = [&](std::initializer_list<std::string_view> any) {
    for (auto id : any)
      if (std::find(ids.begin(), ids.end(), id) != ids.end()) return true;
    return false;
  };
  const int threads = o_.threads > 0 ? o_.threads : env_.hw;
  if (wants({"word", "stdin", "words", "tree"})) vocab_ = load_vocabulary(o_.words_file);
  if (wants({"word", "stdin", "words"})) {
    fmt::print("  generating {} of English-like text ...", fmt_size(o_.text_bytes));
    std::fflush(stdout);
    text_ = write_text(dir_ / "text.txt", o_.text_bytes, vocab_, threads);
    fmt::print(" {:.2f} s ({} lines, '{}' planted {} times, vocabulary {} words from {})\n", text_->seconds,
               text_->lines, kWord, text_->planted, vocab_.words.size(), vocab_.source);
    words_path_ = dir_ / "words.txt";
    OutFile w(words_path_);
    for (const auto& word : vocab_.list_words) w.append(word + "\n");
  }
  if (wants({"fasta", "gz", "bgzf", "zst", "kmers"})) {
    fmt::print("  generating a FASTA of {} ...", fmt_size(o_.fasta_bytes));
    std::fflush(stdout);
    fasta_ = write_fasta(dir_ / "genome.fa", o_.fasta_bytes, threads);
    fmt::print(" {:.2f} s ({} records, {} bases, '{}' {} times on the forward strand)\n", fasta_->seconds,
               fasta_->records, fasta_->bases, kKmer, fasta_->occurrences);
    const Mapped fa(fasta_->path);
    auto compress = [&](const char* id, const char* name, auto&& fn) {
      if (!wants({id})) return;
      fmt::print("  writing {} ...", name);
      std::fflush(stdout);
      compressed_.push_back(fn(fa, dir_ / name, threads));
      fmt::print(" {:.2f} s, {} ({})\n", compressed_.back().seconds, fmt_size(compressed_.back().bytes),
                 compressed_.back().how);
    };
    compress("gz", "genome.fa.gz", write_gzip);
    compress("bgzf", "genome.bgzf.fa.gz", write_bgzf);
    compress("zst", "genome.fa.zst", write_zstd);
    if (wants({"kmers"})) {
      kmers_path_ = dir_ / "kmers.txt";
      const std::uint64_t cut = write_kmers(kmers_path_, fa, kKmerSetSize, kKmerSetLength, 2028);
      fmt::print("  k-mer set: {} {}-mers ({} cut from the FASTA, the rest random)\n", kKmerSetSize,
                 kKmerSetLength, cut);
    }
  }
  if (wants({"tiny"})) {
    tiny_path_ = dir_ / "tiny.txt";
    std::string s = "A tiny input: " + std::string(kWord) + " once";
    for (std::size_t i = 0; s.size() < kTinyBytes - 1; ++i) s += ' ' + std::string(kCommonEnglish[i % 20]);
    s.resize(kTinyBytes - 1);
    if (s.back() == ' ') s.back() = '.';
    OutFile(tiny_path_).append(s + "\n");
  }
  if (wants({"primers", "offtarget"})) {
    if (separate_primers_genome()) {
      primers_fasta_ = write_fasta(dir_ / "primers_genome.fa", o_.primers_genome_bytes, threads);
      fmt::print("  primers job: FASTA of {}\n", fmt_size(primers_fasta_->bytes));
    }
    if (!separate_primers_genome() || wants({"offtarget"}))
      sequence_fasta_ = write_fasta(dir_ / "sequence_genome.fa", o_.sequence_bytes, threads);
    // Degenerate primers of 11-12 nt (both strands: ~hundreds of sites per primer in 64 MiB).
    primers_path_ = dir_ / "primers.fa";
    OutFile(primers_path_).append(">p1\nGGATCNRTAC\n>p2\nCCRGGTTNACG\n>p3\nGANTCACGTGA\n>p4\nTGRYACGATCG\n"
                                  ">p5\nAAGCTTNNGCA\n>p6\nGTCGACWSAGT\n>p7\nCTGCAGKMTCA\n>p8\nGAATTCHDACG\n");
    guides_path_ = dir_ / "guides.fa";
    write_guides(guides_path_, o_.guides, 2026);
    if (sequence_fasta_)
      fmt::print("  sequence jobs: FASTA of {}, 8 degenerate primers, {} guides\n", fmt_size(sequence_fasta_->bytes), o_.guides);
  }
  if (wants({"guides"})) {
    set_genome_fasta_ = write_fasta(dir_ / "guide_genome.fa", o_.set_genome_bytes, threads);
    set_guides_path_ = dir_ / "set_guides.fa";
    write_guides(set_guides_path_, o_.set_guides, 2027);
    fmt::print("  guide set job: FASTA of {}, {} guides of 20 nt\n", fmt_size(set_genome_fasta_->bytes), o_.set_guides);
  }
  if (wants({"reads"})) {
    fmt::print("  generating {} reads of {} nt ...", o_.reads, kReadLength);
    std::fflush(stdout);
    reads_ = write_reads(dir_ / "reads.fq", o_.reads, threads);
    fmt::print(" {:.2f} s ({}, '{}' {} times in {} reads)\n", reads_->seconds, fmt_size(reads_->bytes), kKmer,
               reads_->occurrences, reads_->lines_with);
  }
  if (wants({"tree"})) {
    fmt::print("  generating a tree of {} files, {} of English-like text ...", o_.tree_files, fmt_size(o_.tree_bytes));
    std::fflush(stdout);
    tree_ = write_tree(dir_ / "tree", o_.tree_bytes, o_.tree_files, vocab_, threads);
    fmt::print(" {:.2f} s ({} files in {} directories, '{}' planted {} times)\n", tree_->seconds, tree_->files,
               tree_->directories, kWord, tree_->planted);
  }
  if (wants({"pairs"})) {
    pairs_ = write_pairs(dir_ / "pairs.tsv", o_.pairs);
    fmt::print("  pairs: {} ({} x {} strings of {}-{} random ACGT), {}\n", pairs_->pairs, pairs_->a_strings,
               pairs_->b_strings, kPairMinLength, kPairMaxLength, fmt_size(pairs_->bytes));
  }
}

std::vector<std::string> Bench::wm(const std::string& sub, const std::string& backend,
                                   std::vector<std::string> args, bool stats) const {
  std::vector<std::string> argv{env_.exe, sub};
  if (stats) argv.push_back("--stats");
  argv.insert(argv.end(), {"--backend", backend});
  if (o_.threads > 0) argv.insert(argv.end(), {"-j", std::to_string(o_.threads)});
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

Row Bench::wm_row(const std::string& backend, const std::string& sub, const std::vector<std::string>& args,
                  Parse parse, std::string unit, bool stats_always) const {
  Row r;
  r.method = "warpmatch " + backend;
  r.backend = backend;
  r.argv = wm(sub, backend, args, stats_always);
  r.warmup_argv = wm(sub, backend, args, true);
  r.parse = parse;
  r.unit = std::move(unit);
  if (backend == "cuda" && !env_.gpu_skip.empty()) {
    r.status = Status::skipped;
    r.note = env_.gpu_skip;
  }
  return r;
}

Row Bench::wm_pipe_row(const std::string& backend, const std::string& feed,
                       const std::vector<std::string>& args) const {
  Row r = wm_row(backend, "find", args, Parse::count, "occurrences");
  r.method = "cat | warpmatch " + backend;
  r.argv = {"/bin/sh", "-c", feed + " | " + shell_join(r.argv)};
  r.warmup_argv = {"/bin/sh", "-c", feed + " | " + shell_join(r.warmup_argv)};
  return r;
}

std::vector<std::string> Bench::rg_args(const std::vector<std::string>& args) const {
  std::vector<std::string> argv{o_.rg_path, "--no-config", "-F", "-c"};
  if (o_.threads > 0) argv.insert(argv.end(), {"-j", std::to_string(o_.threads)});
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

Row peer_row(std::string method, std::vector<std::string> argv, Parse parse, std::string unit,
             const Peer& needs, const Peer* also = nullptr) {
  Row r;
  r.method = std::move(method);
  r.peer = true;
  r.argv = std::move(argv);
  r.parse = parse;
  r.unit = std::move(unit);
  for (const Peer* p : {&needs, also})
    if (p && !p->skip.empty() && r.status == Status::ok) {
      r.status = Status::skipped;
      r.note = p->skip;
    }
  return r;
}

void Bench::plan(const std::vector<std::string>& ids) {
  const std::string word(kWord), kmer(kKmer);
  const std::string threads = std::to_string(o_.threads > 0 ? o_.threads : env_.hw);
  auto gb = [](double goal) { return Target{"auto", Metric::gbps, goal, true, fmt::format(">= {} GB/s", goal)}; };
  const Target rss{"auto", Metric::rss_mib, kRssLimitMiB, false, "peak <= 1.2 GiB"};
  for (const auto& id : ids) {
    Job j;
    j.id = id;
    for (const auto& spec : kJobs)
      if (spec.id == id) j.number = spec.number;
    if (id == "word" || id == "stdin" || id == "words") {
      j.bytes = text_->bytes;
      const std::string file = text_->path.string();
      if (id != "words") j.expected_occurrences = j.expected_lines = text_->planted;
      if (id == "word") {
        j.title = fmt::format("one rare word, {} text", fmt_size(j.bytes));
        for (const auto& b : kBackends) j.rows.push_back(wm_row(b, "find", {"-c", word, file}, Parse::count, "occurrences"));
        j.rows.push_back(peer_row("ripgrep -F -c", rg_args({"-e", word, file}), Parse::count, "lines", env_.rg));
        j.targets = {gb(60), {"auto", Metric::vs_peer, 10, true, ">= 10x ripgrep"},
                     {"cuda", Metric::scan_gbps, 40, true, "GPU scan >= 40 GB/s (--stats)"}};
      } else if (id == "stdin") {
        j.title = fmt::format("same through a pipe, {}", fmt_size(j.bytes));
        const std::string feed = "cat " + shell_quote(file);
        j.rows.push_back(wm_pipe_row("auto", feed, {"-c", word}));
        j.rows.push_back(peer_row("cat | ripgrep -F -c",
                                  {"/bin/sh", "-c", feed + " | " + shell_join(rg_args({"-e", word}))},
                                  Parse::count, "lines", env_.rg));
        j.targets = {gb(3), rss};
      } else {
        j.title = fmt::format("{} words -f, {} text", vocab_.list_words.size(), fmt_size(j.bytes));
        for (const auto& b : kBackends)
          j.rows.push_back(wm_row(b, "find", {"-c", "-f", words_path_.string(), file}, Parse::pattern_counts,
                                  "sum over patterns"));
        j.rows.push_back(peer_row("ripgrep -F -c -f", rg_args({"-f", words_path_.string(), file}), Parse::count,
                                  "lines", env_.rg));
        // Issue 12: 1000 literals over 8 GiB of English text, auto, >= 20 GB/s wall.
        j.targets = {gb(20), {"cpu", Metric::vs_peer, 1, true, "cpu >= 1x ripgrep"}};
      }
    } else if (id == "fasta") {
      j.bytes = fasta_->bytes;
      j.bytes_note = "FASTA file bytes (bases are 60/61 of them)";
      j.title = fmt::format("one 8-mer, {} FASTA", fmt_size(j.bytes));
      j.expected_occurrences = fasta_->occurrences;
      j.expected_lines = fasta_->lines_with;
      const std::string file = fasta_->path.string();
      for (const auto& b : kBackends) j.rows.push_back(wm_row(b, "find", {"-c", kmer, file}, Parse::count, "occurrences"));
      j.rows.push_back(peer_row("seqkit locate -P", {o_.seqkit_path, "locate", "-P", "-j", threads, "-p", kmer, file},
                                Parse::seqkit_lines, "occurrences", env_.seqkit));
      j.targets = {gb(10)};
    } else if (id == "reads") {
      j.bytes = reads_->bytes;
      j.bytes_note = "FASTQ file bytes (bases are 150/316 of them)";
      j.title = fmt::format("one 8-mer, {} reads of {} nt, FASTQ {}", reads_->reads, kReadLength, fmt_size(j.bytes));
      j.expected_occurrences = reads_->occurrences;
      j.expected_lines = reads_->lines_with;
      const std::string file = reads_->path.string();
      for (const auto& b : kBackends) j.rows.push_back(wm_row(b, "find", {"-c", kmer, file}, Parse::count, "occurrences"));
      j.rows.push_back(peer_row("ripgrep -F -c", rg_args({"-e", kmer, file}), Parse::count, "lines", env_.rg));
      j.rows.push_back(peer_row("seqkit locate -P", {o_.seqkit_path, "locate", "-P", "-j", threads, "-p", kmer, file},
                                Parse::seqkit_lines, "occurrences", env_.seqkit));
      j.targets = {{"auto", Metric::vs_peer, 1, true, ">= 1x ripgrep"}};
    } else if (id == "tree") {
      // A tree of small files (ripgrep's own ground): each file is too small for threads of
      // its own, so the files are searched several at once (cli/file_jobs.hpp).
      j.bytes = tree_->bytes;
      j.title = fmt::format("one rare word, `find -r`, {} files, {}", tree_->files, fmt_size(j.bytes));
      j.expected_occurrences = j.expected_lines = tree_->planted;
      const std::string dir = tree_->dir.string();
      for (const auto& b : kBackends)
        j.rows.push_back(wm_row(b, "find", {"-r", "-c", word, dir}, Parse::input_counts, "occurrences"));
      j.rows.push_back(peer_row("ripgrep -F -c", rg_args({"-e", word, dir}), Parse::input_counts, "lines", env_.rg));
      j.targets = {{"auto", Metric::vs_peer, 1, true, ">= 1x ripgrep"}};
    } else if (id == "kmers") {
      // DNA k-mer sets take the 8-byte scan filter (core::PrefixIndex::key8) on both backends.
      // No exact oracle: the warpmatch rows must agree with each other; ripgrep counts lines
      // and misses the k-mers that a line break splits.
      j.bytes = fasta_->bytes;
      j.bytes_note = "FASTA file bytes (bases are 60/61 of them)";
      j.title = fmt::format("{} {}-mers -f, {} FASTA", kKmerSetSize, kKmerSetLength, fmt_size(j.bytes));
      const std::string file = fasta_->path.string();
      for (const auto& b : kBackends)
        j.rows.push_back(wm_row(b, "find", {"-c", "-f", kmers_path_.string(), file}, Parse::pattern_counts,
                                "sum over patterns"));
      j.rows.push_back(peer_row("ripgrep -F -c -f", rg_args({"-f", kmers_path_.string(), file}), Parse::count,
                                "lines", env_.rg));
    } else if (id == "gz" || id == "bgzf" || id == "zst") {
      const std::string kind = id == "gz" ? "gzip" : id == "bgzf" ? "bgzf" : "zstd";
      const auto c = std::find_if(compressed_.begin(), compressed_.end(), [&](const Compressed& x) { return x.kind == kind; });
      j.bytes = fasta_->bytes;
      j.bytes_note = fmt::format("decompressed bytes; compressed file {} bytes: {}", c->bytes, c->how);
      j.title = fmt::format("8-mer, FASTA as {} ({})", id == "gz" ? ".gz" : id == "bgzf" ? "BGZF" : ".zst",
                            fmt_size(c->bytes));
      j.expected_occurrences = fasta_->occurrences;
      j.expected_lines = fasta_->lines_with;
      const std::string file = c->path.string();
      j.rows.push_back(wm_row("auto", "find", {"-c", kmer, file}, Parse::count, "occurrences"));
      const bool z = id == "zst";
      const std::string feed = z ? shell_join({o_.zstd_path, "-d", "-c", "-q", file}) : shell_join({"gzip", "-dc", file});
      j.rows.push_back(peer_row(z ? "zstd -dc | ripgrep -F -c" : "zcat | ripgrep -F -c",
                                {"/bin/sh", "-c", feed + " | " + shell_join(rg_args({"-e", kmer}))}, Parse::count,
                                "lines", env_.rg, z ? &env_.zstd : &env_.gzip));
      j.targets = {gb(id == "gz" ? 1 : id == "bgzf" ? 6 : 1.5), rss};
    } else if (id == "tiny") {
      j.bytes = kTinyBytes;
      j.title = "tiny file (100 bytes)";
      j.expected_occurrences = j.expected_lines = 1;
      for (const auto& b : kBackends)
        j.rows.push_back(wm_row(b, "find", {"-c", word, tiny_path_.string()}, Parse::count, "occurrences"));
      j.rows.push_back(peer_row("ripgrep -F -c", rg_args({"-e", word, tiny_path_.string()}), Parse::count, "lines", env_.rg));
      j.targets = {{"auto", Metric::wall_ms, 10, false, "<= 10 ms"}};
    } else if (id == "pairs") {
      j.bytes = pairs_->bytes;
      j.bytes_note = "pairs file bytes";
      j.title = fmt::format("distance --pairs, {} pairs", pairs_->pairs);
      for (const auto& b : kBackends)
        j.rows.push_back(wm_row(b, "distance", {"--pairs", pairs_->path.string()}, Parse::distance_sum,
                                "sum of distances", true));
      // Optional: StringZilla. Its engine (stringzillas.LevenshteinDistances, 5.x) computes a
      // cross product, and the pairs file holds the first n pairs of one (A x B, row-major, see
      // e2e_data): A and B are recovered in order and the first n cells of the matrix summed.
      // Without the parallel engine, StringZilla's one-pair edit_distance per pair.
      const std::string script =
          "import sys\n"
          "pairs = [l.rstrip('\\n').split('\\t') for l in open(sys.argv[1])]\n"
          "try:\n"
          "    import numpy as np, stringzilla as sz, stringzillas as szs\n"
          "    a = list(dict.fromkeys(p[0] for p in pairs)); b = list(dict.fromkeys(p[1] for p in pairs))\n"
          "    assert all(p == [a[i // len(b)], b[i % len(b)]] for i, p in enumerate(pairs)), 'not a cross product'\n"
          "    try:\n"
          "        scope = szs.DeviceScope(gpu_device=0)\n"
          "    except Exception:\n"
          "        scope = szs.DeviceScope()\n"
          "    d = szs.LevenshteinDistances(capabilities=scope)(sz.Strs(a), sz.Strs(b), device=scope)\n"
          "    print(int(np.asarray(d, dtype=np.uint64).reshape(-1)[:len(pairs)].sum()))\n"
          "except ImportError:\n"
          "    import stringzilla as sz\n"
          "    print(sum(sz.edit_distance(x, y) for x, y in pairs))\n";
      Row sz = peer_row("StringZilla (python3)", {"python3", "-c", script, pairs_->path.string()}, Parse::count,
                        "sum of distances", env_.stringzilla);
      sz.optional = true;
      j.rows.push_back(std::move(sz));
      j.targets = {{"auto", Metric::inprocess_ms, 5, false, "in-process <= 5 ms (--stats)"}};
    } else if (id == "primers") {
      const FastaInfo& genome = primers_fasta_ ? *primers_fasta_ : *sequence_fasta_;
      j.bytes = genome.bytes;
      j.title = fmt::format("8 IUPAC primers, both strands, {}", fmt_size(j.bytes));
      const std::string file = genome.path.string();
      for (const auto& b : kBackends)
        j.rows.push_back(wm_row(b, "find", {"-c", "--strand", "both", "--iupac", "-f", primers_path_.string(), file},
                                Parse::pattern_counts, "occurrences"));
      j.rows.push_back(peer_row("seqkit locate -d", {o_.seqkit_path, "locate", "-d", "-j", threads, "-f",
                                                     primers_path_.string(), file},
                                Parse::seqkit_lines, "occurrences", env_.seqkit));
      j.targets = {{"auto", Metric::vs_peer, 10, true, ">= 10x seqkit locate"}};
    } else if (id == "offtarget") {
      j.bytes = sequence_fasta_->bytes;
      j.title = fmt::format("offtarget {} guides, k 4, {}", o_.guides, fmt_size(j.bytes));
      const std::string file = sequence_fasta_->path.string();
      for (const auto& b : kBackends)
        j.rows.push_back(wm_row(b, "offtarget", {"--guides", guides_path_.string(), "-k", "4", "--bed", file},
                                Parse::line_count, "sites"));
    } else if (id == "guides") {
      j.bytes = set_genome_fasta_->bytes;
      j.title = fmt::format("{} guides, k 3 edits, both strands, {}", o_.set_guides, fmt_size(j.bytes));
      const std::string file = set_genome_fasta_->path.string();
      // The cpu row only where it surely fits the run timeout (1 GB/s of pattern x text per
      // thread on 16 threads, the H100 host's rate, and a quarter of the timeout).
      const double pattern_bytes = 2.0 * static_cast<double>(o_.set_guides) * static_cast<double>(j.bytes);
      for (const auto& b : kBackends) {
        if (b == "cpu" && pattern_bytes > 1e9 * 16 * o_.run_timeout_s * 0.25) continue;
        j.rows.push_back(wm_row(b, "approx", {"-c", "-k", "3", "--strand", "both", "-f", set_guides_path_.string(), file},
                                Parse::pattern_counts, "hits"));
      }
      if (o_.set_guides >= 10000 && j.bytes >= 3000000000ull)  // the issue's job, not a smaller one
        j.targets = {{"auto", Metric::wall_ms, 30000, false, "<= 30 s end to end"}};
    }
    jobs_.push_back(std::move(j));
  }
}

void Bench::print_table() const {
  fmt::print("\n{:<2} {:<34} {:<28} {:>10} {:>8} {:>8} {:>8} {:>11} {:>6}  {}\n", "#", "job", "method", "wall",
             "GB/s", "peak MiB", "vs peer", "count", "agrees", "target");
  fmt::print("{:-<140}\n", "");
  for (const auto& j : jobs_) {
    for (const auto& r : j.rows) {
      std::string targets;
      for (const auto& t : j.targets)
        if (!r.peer && t.backend == r.backend) targets += (targets.empty() ? "" : ", ") + t.text;
      if (!r.ok()) {
        fmt::print("{:<2} {:<34} {:<28} {}: {}\n", j.number, j.title, r.label(), status_name(r.status), r.note);
        continue;
      }
      const std::string agrees = !r.agrees ? "n/a" : *r.agrees ? "yes" : "NO";
      std::string verdict = targets.empty() ? "" : targets + ": " + (!r.met ? "n/a" : *r.met ? "MET" : "NOT MET");
      if (r.inprocess_s) verdict += fmt::format(" [in-process {:.2f} ms]", *r.inprocess_s * 1e3);
      if (r.scan_gbps && r.backend_used == "cuda" && j.bytes >= (64u << 20)) verdict += fmt::format(" [scan {:.1f} GB/s]", *r.scan_gbps);
      fmt::print("{:<2} {:<34} {:<28} {:>10} {:>8} {:>8.0f} {:>8} {:>11} {:>6}  {}\n", j.number, j.title, r.label(),
                 fmt_seconds(r.wall_s), fmt_num(metric_value(j, r, Metric::gbps), 2), r.rss_mib,
                 r.peer ? "peer" : support::fmt_ratio(r.vs_peer),
                 fmt::format("{}{}", *r.count, r.unit == "lines" ? "L" : ""), agrees, verdict);
    }
  }
  fmt::print("(wall: median of {} runs after a warm-up (at least 21 where the warm-up took under 50 ms), a job's "
             "rows timed round by round (every other round in reverse order), process start to exit; GB/s = input bytes / wall, "
             "decompressed bytes for .gz/BGZF/.zst; peak MiB: wait4's ru_maxrss, the largest process of a "
             "pipeline; vs peer = peer wall / this wall; L = matching lines, as `rg -c` counts; agrees = "
             "count equals the generator's, or warpmatch backends give the same output)\n",
             o_.repeats);
  bool header = false;
  for (const auto& j : jobs_) {
    if (!j.auto_vs_best) continue;
    if (!header) fmt::print("\nauto vs the better of cpu / cuda (target >= 0.9x):\n"), header = true;
    fmt::print("  {:<2} {:<34} {:>6}  {}\n", j.number, j.title, support::fmt_ratio(*j.auto_vs_best),
               *j.auto_vs_best >= 0.9 ? "MET" : "NOT MET");
  }
}

json Bench::to_json(bool complete, int exit_status) const {
  json j = support::run_record("e2e", env_.commit);
  j["schema_version"] = 1;
  j["complete"] = complete;
  j["options"] = {{"text_bytes", o_.text_bytes}, {"fasta_bytes", o_.fasta_bytes}, {"pairs", o_.pairs}, {"sequence_bytes", o_.sequence_bytes}, {"primers_genome_bytes", o_.primers_genome_bytes}, {"guides", o_.guides}, {"set_guides", o_.set_guides}, {"set_genome_bytes", o_.set_genome_bytes}, {"reads", o_.reads}, {"tree_bytes", o_.tree_bytes}, {"tree_files", o_.tree_files},
                  {"repeats", o_.repeats},       {"threads", o_.threads},         {"dir", dir_.string()},
                  {"keep", o_.keep},             {"words_file", o_.words_file},   {"rows", o_.rows},
                  {"skip_gpu", o_.skip_gpu},     {"run_timeout_s", o_.run_timeout_s}};
  j["build"]["warpmatch"] = env_.exe;
  j["measurement"] = {
      {"how", "posix_spawn from a helper process forked at start, wait4: wall from spawn to reap, peak RSS = "
              "ru_maxrss (for /bin/sh -c pipelines the largest of the shell and its children); one warm-up run, "
              "then the median of the repeats (at least 21 where the warm-up took under 50 ms), a job's rows timed round by round, every other round reversed; stdout/stderr to files"},
      {"true_wall_s", env_.true_wall_s},
      {"true_peak_rss_mib", env_.true_rss_mib}};
  j["device"] = env_.device.is_null() ? json(nullptr) : env_.device;
  if (env_.device.is_null()) j["device_note"] = env_.gpu_skip;
  j["peers"] = {{"ripgrep", env_.rg.to_json()}, {"seqkit", env_.seqkit.to_json()}, {"gzip", env_.gzip.to_json()},
                {"zstd", env_.zstd.to_json()}, {"stringzilla", env_.stringzilla.to_json()}};
  json data = json::object();
  if (text_)
    data["text"] = {{"bytes", text_->bytes}, {"lines", text_->lines}, {"word", std::string(kWord)},
                    {"planted", text_->planted}, {"vocabulary", vocab_.words.size()},
                    {"vocabulary_source", vocab_.source}, {"list_words", vocab_.list_words.size()},
                    {"seconds", text_->seconds}};
  if (fasta_)
    data["fasta"] = {{"bytes", fasta_->bytes}, {"bases", fasta_->bases}, {"records", fasta_->records},
                     {"columns", kFastaColumns}, {"kmer", std::string(kKmer)}, {"occurrences", fasta_->occurrences},
                     {"lines_with_kmer", fasta_->lines_with}, {"seconds", fasta_->seconds}};
  for (const auto& c : compressed_)
    data[c.kind] = {{"bytes", c.bytes}, {"how", c.how}, {"seconds", c.seconds}};
  if (tree_)
    data["tree"] = {{"bytes", tree_->bytes}, {"files", tree_->files}, {"directories", tree_->directories},
                    {"word", std::string(kWord)}, {"planted", tree_->planted}, {"seconds", tree_->seconds}};
  if (reads_)
    data["reads"] = {{"bytes", reads_->bytes}, {"reads", reads_->reads}, {"read_length", kReadLength},
                     {"kmer", std::string(kKmer)}, {"occurrences", reads_->occurrences},
                     {"reads_with_kmer", reads_->lines_with}, {"seconds", reads_->seconds}};
  if (pairs_)
    data["pairs"] = {{"pairs", pairs_->pairs}, {"bytes", pairs_->bytes}, {"a_strings", pairs_->a_strings},
                     {"b_strings", pairs_->b_strings}, {"min_length", kPairMinLength},
                     {"max_length", kPairMaxLength}};
  j["data"] = data;
  json rows = json::array(), jobs = json::array(), targets = json::array();
  int failures = 0, disagreements = 0;
  for (const auto& job : jobs_) {
    const Row* peer = job.peer();
    jobs.push_back({{"job", job.number}, {"id", job.id}, {"title", job.title}, {"bytes", job.bytes},
                    {"bytes_note", job.bytes_note},
                    {"expected_occurrences", job.expected_occurrences ? json(*job.expected_occurrences) : json(nullptr)},
                    {"expected_lines", job.expected_lines ? json(*job.expected_lines) : json(nullptr)},
                    {"peer", peer ? json(peer->method) : json(nullptr)},
                    {"peer_count", peer && peer->ok() && peer->count ? json(*peer->count) : json(nullptr)},  // unset: not run yet (a partial write)
                    {"peer_count_unit", peer ? json(peer->unit) : json(nullptr)},
                    {"auto_vs_best", job.auto_vs_best ? json(*job.auto_vs_best) : json(nullptr)},
                    {"auto_vs_best_met", job.auto_vs_best ? json(*job.auto_vs_best >= 0.9) : json(nullptr)},
                    {"auto_vs_best_note", job.auto_vs_best_note}});
    for (const auto& r : job.rows) {
      const bool ok = r.ok();
      failures += r.status == Status::failed && !r.optional;
      disagreements += r.agrees == false;
      const std::string cmd = r.argv.size() == 3 && r.argv[0] == "/bin/sh" ? r.argv[2] : shell_join(r.argv);
      rows.push_back({{"job", job.number}, {"job_id", job.id}, {"job_title", job.title}, {"method", r.method},
                      {"label", r.label()}, {"backend", r.peer ? json(nullptr) : json(r.backend)},
                      {"backend_used", r.backend_used.empty() ? json(nullptr) : json(r.backend_used)},
                      {"peer", r.peer}, {"optional", r.optional}, {"command", cmd}, {"status", status_name(r.status)},
                      {"note", r.note}, {"wall_s", ok ? json(r.wall_s) : json(nullptr)}, {"samples_s", r.samples_s},
                      {"gb_per_s", ok ? json(metric_value(job, r, Metric::gbps)) : json(nullptr)},
                      {"peak_rss_mib", ok ? json(r.rss_mib) : json(nullptr)},
                      {"ratio_vs_peer", r.vs_peer > 0 ? json(r.vs_peer) : json(nullptr)},
                      {"count", ok && r.count ? json(*r.count) : json(nullptr)}, {"count_unit", r.unit},
                      {"expected", r.expected ? json(*r.expected) : json(nullptr)},
                      {"agrees", r.agrees ? json(*r.agrees) : json(nullptr)},
                      {"scan_gb_per_s", r.scan_gbps ? json(*r.scan_gbps) : json(nullptr)},
                      {"inprocess_ms", r.inprocess_s ? json(*r.inprocess_s * 1e3) : json(nullptr)},
                      {"met", r.met ? json(*r.met) : json(nullptr)}});
    }
    for (const auto& t : job.targets) {
      const Row* r = job.backend_row(t.backend);
      if (!r) continue;
      const double v = metric_value(job, *r, t.metric);
      const bool have = r->ok() && v > 0 && r->agrees != false;
      targets.push_back({{"job", job.number}, {"job_id", job.id}, {"row", r->method}, {"target", t.text},
                         {"goal", t.goal}, {"at_least", t.at_least}, {"unit", metric_unit(t.metric)},
                         {"value", have ? json(v) : json(nullptr)},
                         {"met", have ? json(t.at_least ? v >= t.goal : v <= t.goal) : json(nullptr)}});
    }
    if (job.auto_vs_best)
      targets.push_back({{"job", job.number}, {"job_id", job.id}, {"row", "warpmatch auto"},
                         {"target", "auto >= 0.9x the better of cpu/cuda"}, {"goal", 0.9}, {"at_least", true},
                         {"unit", "x"},
                         {"value", *job.auto_vs_best}, {"met", *job.auto_vs_best >= 0.9}});
  }
  j["jobs"] = jobs;
  j["rows"] = rows;
  j["targets"] = targets;
  j["failures"] = failures;
  j["disagreements"] = disagreements;
  j["exit_status"] = complete ? json(exit_status) : json(nullptr);
  return j;
}

void Bench::write_json(bool complete, int exit_status) const {
  if (o_.json_path.empty()) return;
  std::ofstream out(o_.json_path);
  out << to_json(complete, exit_status).dump(2) << '\n';
  out.close();
  if (!out) throw std::runtime_error("cannot write JSON to " + o_.json_path);
}

/// The directory the data is generated in; removed at the end unless --keep.
struct WorkDir {
  fs::path path;
  bool keep = false;
  ~WorkDir() {
    std::error_code ec;
    if (!path.empty() && !keep) fs::remove_all(path, ec);
  }
};

int Bench::run() {
  if (o_.repeats < 1) throw InvalidArgument("--repeats must be at least 1");
  const std::vector<std::string> ids = parse_rows(o_.rows);
  auto wants = [&](std::string_view id) { return std::find(ids.begin(), ids.end(), id) != ids.end(); };
  const bool want_text = wants("word") || wants("stdin") || wants("words");
  const bool want_fasta = wants("fasta") || wants("gz") || wants("bgzf") || wants("zst") || wants("kmers");
  if (want_text && o_.text_bytes < kMinTextBytes)
    throw InvalidArgument(fmt::format("--bytes must be at least {}", kMinTextBytes));
  if (want_fasta && o_.fasta_bytes < kMinFastaBytes)
    throw InvalidArgument(fmt::format("--fasta-bytes must be at least {}", kMinFastaBytes));
  if (wants("pairs") && o_.pairs == 0) throw InvalidArgument("--pairs must be at least 1");
  if (wants("reads") && o_.reads == 0) throw InvalidArgument("--reads must be at least 1");
  if (wants("tree") && (o_.tree_files == 0 || o_.tree_bytes < o_.tree_files))
    throw InvalidArgument("--tree-files must be at least 1 and at most --tree-bytes");

  const std::string base = !o_.dir.empty() ? o_.dir : fs::temp_directory_path().string();
  std::error_code ec;
  fs::create_directories(base, ec);
  std::string tmpl = (fs::path(base) / "warpmatch-e2e-XXXXXX").string();
  if (!::mkdtemp(tmpl.data()))
    throw std::runtime_error(fmt::format("cannot create a directory in {}: {}", base, std::strerror(errno)));
  WorkDir work{tmpl, o_.keep};
  dir_ = work.path;
  const fs::path scratch = dir_ / "run";
  fs::create_directories(scratch);

  // Room for the data: text, FASTA and (at most) one third of it per compressed copy.
  const double need = (want_text ? o_.text_bytes : 0) +
                      (want_fasta ? o_.fasta_bytes * (1.0 + 0.35 * (wants("gz") + wants("bgzf") + wants("zst"))) : 0) +
                      (wants("pairs") ? o_.pairs * 410.0 : 0) +
                      ((wants("primers") && separate_primers_genome()) ? o_.primers_genome_bytes * 1.0 : 0) +
                      (((wants("primers") && !separate_primers_genome()) || wants("offtarget")) ? o_.sequence_bytes * 1.0 : 0) +
                      (wants("guides") ? o_.set_genome_bytes * 1.02 : 0) + (wants("reads") ? o_.reads * 316.0 : 0) +
                      (wants("tree") ? o_.tree_bytes * 2.0 + o_.tree_files * 4096.0 : 0);
  struct statvfs vfs {};
  if (::statvfs(dir_.c_str(), &vfs) == 0) {
    const double avail = static_cast<double>(vfs.f_bavail) * static_cast<double>(vfs.f_frsize);
    if (avail < need * 1.05)
      throw std::runtime_error(fmt::format("{} has {} free, the data needs about {} (--dir elsewhere, or smaller "
                                           "--bytes / --fasta-bytes)",
                                           dir_.string(), fmt_size(static_cast<std::uint64_t>(avail)),
                                           fmt_size(static_cast<std::uint64_t>(need))));
  }

  probe(scratch);
  fmt::print("warpmatch-bench e2e: the command line end to end (process start to exit), data in the page cache\n");
  fmt::print("  commit {}  |  host: {} hardware threads, {}\n", env_.commit, env_.hw,
             env_.cpu_model.empty() ? "unknown CPU" : env_.cpu_model);
  if (!env_.device.is_null())
    fmt::print("  GPU: {} ({} SMs, compute {})\n", env_.device.value("name", "?"), env_.device.value("multiprocessors", 0),
               env_.device.value("compute_capability", "?"));
  else
    fmt::print("  NOTE: cuda rows skipped: {}\n", env_.gpu_skip);
  for (const auto& [name, p] : {std::pair<const char*, const Peer*>{"ripgrep", &env_.rg}, {"seqkit", &env_.seqkit},
                                {"gzip", &env_.gzip}, {"zstd", &env_.zstd}, {"StringZilla", &env_.stringzilla}})
    fmt::print("  peer {:<12} {}\n", name, p->skip.empty() ? p->version : "skipped: " + p->skip);
  fmt::print("  floor: /bin/true takes {} and reports {:.1f} MiB peak through the process-starting helper\n",
             fmt_seconds(env_.true_wall_s), env_.true_rss_mib);
  fmt::print("  data in {}{}\n", dir_.string(), o_.keep ? " (kept)" : " (removed at the end)");

  generate(ids);
  plan(ids);

  for (auto& job : jobs_) {
    // Warm-ups row by row, then the timed runs round by round over the job's rows.
    measure_rows(spawner_, job.rows, o_.repeats, scratch, o_.run_timeout_s, [&](const Row& r, bool timed) {
      if (!timed && r.ok()) return;
      fmt::print("  [{} {}] {} ...", job.number, job.id, r.method);
      if (r.ok())
        fmt::print(" {} ({} GB/s), {:.0f} MiB, count {}{}\n", fmt_seconds(r.wall_s),
                   fmt_num(metric_value(job, r, Metric::gbps), 2), r.rss_mib, *r.count,
                   r.backend_used.empty() ? "" : ", backend " + r.backend_used);
      else
        fmt::print(" {}: {}\n", status_name(r.status), r.note);
      std::fflush(stdout);
    });
    evaluate(job);
    write_json(false, 0);  // what has been measured survives a run cut short
  }

  print_table();
  int failures = 0, disagreements = 0;
  for (const auto& job : jobs_)
    for (const auto& r : job.rows) {
      failures += r.status == Status::failed && !r.optional;
      disagreements += r.agrees == false;
    }
  fmt::print("\ntargets (PERF.md, end to end):\n");
  const json summary = to_json(false, 0);
  for (const auto& t : summary["targets"])
    fmt::print("  {} {:<6} {:<24} {:<34} {:>12}  {}\n", t["job"].get<int>(), t["job_id"].get<std::string>(),
               t["row"].get<std::string>(), t["target"].get<std::string>(),
               t["value"].is_null() ? std::string("-")
                                    : fmt::format("{:.3g} {}", t["value"].get<double>(), t["unit"].get<std::string>()),
               t["met"].is_null() ? "n/a" : t["met"].get<bool>() ? "MET" : "NOT MET");
  if (disagreements) fmt::print("\n!!! {} row(s) DISAGREE (count or output; see 'agrees') !!!\n", disagreements);
  if (failures) fmt::print("\n!!! {} row(s) FAILED (see the table) !!!\n", failures);
  const int exit_status = failures || disagreements ? 2 : 0;
  write_json(true, exit_status);
  if (!o_.json_path.empty()) fmt::print("JSON written to {}\n", o_.json_path);
  return exit_status;
}

}  // namespace

int run_bench_e2e(const BenchE2EOptions& options) {
  try {
    Spawner spawner;  // first, while this process is small (see Spawner)
    Bench bench(options, spawner);
    return bench.run();
  } catch (const std::exception& e) {
    std::fflush(stdout);
    fmt::print(stderr, "warpmatch-bench e2e: error: {}\n", e.what());
    return 2;
  }
}

}  // namespace warpmatch::bench
