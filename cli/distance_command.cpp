// `warpmatch distance`: global edit distance of two sequences (files, FASTA records or -s
// literals) or of many pairs (--pairs: a tab-separated file, or two FASTA files paired by
// order); optional bound -k, alignment (--align), JSON lines and statistics.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/multi_device.hpp"
#include "api/tuning_hooks.hpp"
#include "commands.hpp"
#include "io/input.hpp"
#include "printer/sink.hpp"
#include "sequence_input.hpp"
#include "warpmatch/cost_model.hpp"
#include "warpmatch/distance.hpp"

namespace warpmatch::cli {
namespace {

/// --stats: where the host threads of a call over several GPUs ran (near each GPU, or why not).
void print_host_placement() {
  if (const std::string note = multi_device::host_placement_note(); !note.empty())
    std::fprintf(stderr, "warpmatch stats: host threads: %s\n", note.c_str());
}

struct DistanceFlags {
  std::vector<std::string> sequences;  // A B
  bool literal = false;
  std::optional<std::string> record;
  std::string format = "auto";
  std::int64_t k = -1;
  bool align = false;
  std::vector<std::string> pairs;      // one TSV file, or two FASTA files
  std::vector<std::string> all_vs_all; // two files: every record of one against every of the other
  bool json = false;
  bool stats = false;
  std::string backend = "auto";
  std::string algorithm = "auto";
  int threads = 0;
  int device = 0;
  std::string device_memory;  // --device-memory SIZE ("": none given)
  std::string devices;  // --devices: several GPUs (all|LIST)
  int block_size = 0;
};

/// One pair to compute, with the names printed for it.
struct NamedPair {
  std::string a_name, b_name;  // "" for a line of a TSV file: named "PATH:LINE" when printed
  ByteSpan a, b;
  std::uint64_t line = 0;  // the TSV line, counted from 1
};

/// Inputs that own the bytes the pairs point into.
struct PairSet {
  std::vector<io::Input> inputs;
  std::vector<std::vector<std::uint8_t>> owned;
  std::vector<NamedPair> pairs;
};

// The pairs of a TSV file point into its mapping; their names are made as they are printed (a
// string per pair held until then cost a heap allocation each and fresh pages for 100,000s).
PairSet load_tsv_pairs(const std::string& path) {
  PairSet set;
  set.inputs.push_back(io::Input::open(path, io::Format::plain));
  const ByteSpan all = set.inputs.back().bytes();
  const auto* const data = reinterpret_cast<const char*>(all.data());
  const std::size_t size = all.size();
  auto find = [&](char c, std::size_t from, std::size_t to) {
    const void* hit = std::memchr(data + from, c, to - from);
    return hit != nullptr ? static_cast<std::size_t>(static_cast<const char*>(hit) - data) : to;
  };
  // One pair a line: room for them all at once, no growth copies.
  std::size_t lines = 1;
  for (std::size_t at = find('\n', 0, size); at < size; at = find('\n', at + 1, size)) ++lines;
  set.pairs.reserve(lines);
  auto fail_line = [&](std::uint64_t line_no, const char* what) {
    throw io::InputError(set.inputs.back().name() + ": line " + std::to_string(line_no) + ": " + what);
  };
  std::uint64_t line_no = 0;
  for (std::size_t pos = 0; pos < size;) {
    const std::size_t end = find('\n', pos, size);
    ++line_no;
    std::size_t stop = end;
    if (stop > pos && data[stop - 1] == '\r') --stop;
    if (stop > pos) {
      const std::size_t tab = find('\t', pos, stop);
      if (tab == stop) fail_line(line_no, "expected two strings separated by a tab");
      if (find('\t', tab + 1, stop) != stop) fail_line(line_no, "more than two tab-separated fields");
      NamedPair& p = set.pairs.emplace_back();
      p.a = all.subspan(pos, tab - pos);
      p.b = all.subspan(tab + 1, stop - tab - 1);
      p.line = line_no;
    }
    pos = end + 1;
  }
  return set;
}

PairSet load_fasta_pairs(const std::string& first, const std::string& second) {
  PairSet set;
  set.inputs.push_back(io::Input::open(first));
  set.inputs.push_back(io::Input::open(second));
  const auto& ra = set.inputs[0].records();
  const auto& rb = set.inputs[1].records();
  if (ra.size() != rb.size())
    throw io::InputError(set.inputs[0].name() + " has " + std::to_string(ra.size()) + " records but " +
                         set.inputs[1].name() + " has " + std::to_string(rb.size()) +
                         ": --pairs with two files pairs records by order");
  auto name = [](const io::Input& in, const io::Record& r, std::size_t i) {
    return in.format() == io::Format::plain ? in.name() : (r.name.empty() ? "#" + std::to_string(i) : r.name);
  };
  for (std::size_t i = 0; i < ra.size(); ++i)
    set.pairs.push_back({name(set.inputs[0], ra[i], i), name(set.inputs[1], rb[i], i), ra[i].sequence,
                         rb[i].sequence});
  return set;
}

/// --all-vs-all A B: the |A| x |B| matrix of every record of A against every record of B
/// (one-vs-many: A with one record). TSV: a header of B's names, then per record of A its
/// name and one distance per column ("NA" over K); JSON: one object with a null over K.
int run_matrix(const DistanceFlags& flags, DistanceOptions options) {
  if (flags.align) throw InvalidArgument("--all-vs-all gives distances only (no --align)");
  if (!flags.sequences.empty() || !flags.pairs.empty())
    throw InvalidArgument("give either --all-vs-all A B, --pairs, or A B");
  std::vector<io::Input> inputs;
  inputs.push_back(io::Input::open(flags.all_vs_all[0]));
  inputs.push_back(io::Input::open(flags.all_vs_all[1]));
  std::vector<std::string> names[2];
  std::vector<ByteSpan> seqs[2];
  std::uint64_t bytes[2] = {0, 0};
  for (int side = 0; side < 2; ++side) {
    const io::Input& in = inputs[side];
    const auto& records = in.records();
    for (std::size_t i = 0; i < records.size(); ++i) {
      names[side].push_back(in.format() == io::Format::plain ? in.name()
                            : records[i].name.empty() ? "#" + std::to_string(i) : records[i].name);
      seqs[side].push_back(records[i].sequence);
      bytes[side] += records[i].sequence.size();
    }
  }
  std::string backend_reason = "--backend " + flags.backend;
  if (flags.backend == "auto" && !options.devices.empty()) backend_reason = "--devices (cuda)";
  if (flags.backend == "auto" && options.devices.empty()) {
    JobShape shape;
    shape.operation = Operation::distance;
    shape.threads = flags.threads;
    shape.cells = bytes[0] * bytes[1];
    const BackendChoice choice = choose_backend(shape);
    options.backend = choice.backend;
    backend_reason = choice.reason;
  }
  const auto t0 = std::chrono::steady_clock::now();
  ScanStats stats;
  const std::vector<std::int64_t> d = edit_distance_matrix(seqs[0], seqs[1], options, &stats);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  const std::size_t cols = seqs[1].size();
  std::uint64_t over = 0;
  for (const std::int64_t x : d) over += x == kDistanceOverK;
  const std::unique_ptr<Sink> printer = make_printer(flags.json ? PrintFormat::json : PrintFormat::plain);
  printer->matrix(DistanceMatrix{names[0], names[1], d, flags.k});
  printer->flush();
  if (flags.stats) {
    std::fprintf(stderr,
                 "warpmatch stats: %zu x %zu matrix, %llu pairs (%llu over k), %llu cells, %.6f s, backend %s, "
                 "device %s\n",
                 seqs[0].size(), cols, static_cast<unsigned long long>(stats.pairs),
                 static_cast<unsigned long long>(over), static_cast<unsigned long long>(stats.cells), seconds,
                 std::string(backend_name(stats.backend)).c_str(), stats.device.c_str());
    std::fprintf(stderr, "warpmatch stats: backend choice: %s\n", backend_reason.c_str());
    print_host_placement();
  }
  return over > 0 ? 1 : 0;
}

int run_distance(const DistanceFlags& flags) {
  DistanceOptions options;
  options.backend = parse_backend(flags.backend);
  options.algorithm = flags.algorithm;
  options.max_distance = flags.k;
  options.report = flags.align ? Report::cigar : Report::ends;
  apply_execution_flags(flags, options);
  tuning_hooks::DistanceKnobs knobs;
  knobs.tile_size = flags.block_size;  // the paper's block size (its tiles re-measured)

  if (flags.k < -1) throw InvalidArgument("-k must be >= 0");
  tuning_hooks::check_tile_size(knobs.tile_size);  // every mode rejects a bad one, though only one pair uses it
  if (!flags.all_vs_all.empty()) return run_matrix(flags, options);
  const bool batch = !flags.pairs.empty();
  if (batch && !flags.sequences.empty())
    throw InvalidArgument("give either A B or --pairs, not both");
  if (!batch && flags.sequences.size() != 2)
    throw InvalidArgument("distance needs two sequences A B (or --pairs FILE)");

  PairSet set;
  std::vector<SequenceInput> singles;
  if (batch) {
    set = flags.pairs.size() == 1 ? load_tsv_pairs(flags.pairs[0])
                                  : load_fasta_pairs(flags.pairs[0], flags.pairs[1]);
  } else {
    // Both inputs are held whole, plus working memory linear in their lengths (bit-vectors,
    // Hirschberg's rows): 2 bytes per input byte is the budget; an input past what fits
    // stops being read there (a gzip bomb costs at most the limit).
    const MemoryNeed need{"distance", 2, available_memory_bytes()};
    const io::Format format = io::parse_format(flags.format);
    singles.push_back(load_sequence(flags.sequences[0], flags.literal, flags.record, format, &need));
    singles.push_back(load_sequence(flags.sequences[1], flags.literal, flags.record, format, &need));
    need.check_total(singles[0].input.name(), singles[0].sequence.size(), singles[1].input.name(),
                     singles[1].sequence.size());
    set.pairs.push_back({singles[0].name, singles[1].name, singles[0].sequence, singles[1].sequence});
  }

  // auto: the cost model by DP cells (an algorithm on one backend only decides it).
  std::string backend_reason = "--backend " + flags.backend;
  if (flags.backend == "auto" && !options.devices.empty()) backend_reason = "--devices (cuda)";
  if (flags.backend == "auto" && options.devices.empty()) {
    if (flags.algorithm == "dp") {
      options.backend = Backend::cpu, backend_reason = "--algo dp";
    } else if (flags.algorithm == "tiles") {
      options.backend = Backend::cuda, backend_reason = "--algo tiles";
    } else {
      JobShape shape;
      shape.operation = Operation::distance;
      shape.threads = flags.threads;
      for (const auto& p : set.pairs) shape.cells += static_cast<std::uint64_t>(p.a.size()) * p.b.size();
      const BackendChoice choice = choose_backend(shape);
      options.backend = choice.backend;
      backend_reason = choice.reason;
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  ScanStats stats;
  std::vector<DistanceResult> results;
  if (batch) {
    std::vector<std::pair<ByteSpan, ByteSpan>> spans;
    spans.reserve(set.pairs.size());
    for (const auto& p : set.pairs) spans.emplace_back(p.a, p.b);
    results = edit_distance_batch(spans, options, &stats);
  } else {
    results.push_back(tuning_hooks::edit_distance(set.pairs[0].a, set.pairs[0].b, options, knobs, &stats));
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  const std::unique_ptr<Sink> printer = make_printer(flags.json ? PrintFormat::json : PrintFormat::plain);
  std::uint64_t over = 0;
  std::string line_name;  // a TSV pair's "PATH:LINE", remade for each
  for (std::size_t i = 0; i < results.size(); ++i) {
    over += results[i].over_k();
    const NamedPair& p = set.pairs[i];
    std::string_view a_name = p.a_name, b_name = p.b_name;
    if (p.line != 0) {
      line_name.assign(set.inputs[0].name()).push_back(':');
      line_name.append(std::to_string(p.line));
      a_name = b_name = line_name;
    }
    printer->distance(DistanceRow{a_name, b_name, results[i], batch, flags.k, flags.align});
  }
  printer->flush();
  if (flags.stats) {
    const double gcups = seconds > 0 ? stats.cells / seconds / 1e9 : 0;
    std::fprintf(stderr,
                 "warpmatch stats: %llu pairs (%llu over k), %llu cells, %.6f s (%.2f GCUPS), backend %s, "
                 "algorithm %s, device %s%s\n",
                 static_cast<unsigned long long>(stats.pairs), static_cast<unsigned long long>(over),
                 static_cast<unsigned long long>(stats.cells), seconds, gcups,
                 std::string(backend_name(stats.backend)).c_str(), stats.algorithm.c_str(),
                 stats.device.c_str(),
                 stats.tile_size > 0 ? (", block size " + std::to_string(stats.tile_size)).c_str() : "");
    std::fprintf(stderr, "warpmatch stats: backend choice: %s\n", backend_reason.c_str());
    print_host_placement();
  }
  return over > 0 ? 1 : 0;
}

CommandRunner add_distance_command(CLI::App& app) {
  auto flags = std::make_shared<DistanceFlags>();
  CLI::App* cmd = app.add_subcommand("distance", "Edit (Levenshtein) distance of two long strings, or of many pairs");
  cmd->set_help_flag("--help", "Print this help and exit");
  cmd->add_option("A B", flags->sequences,
                  "Two files (plain: whole content; FASTA/FASTQ: first record or --record), or with -s two literal strings")
      ->expected(0, 2);
  cmd->add_flag("-s,--string", flags->literal, "A and B are literal strings, not files");
  cmd->add_option("--record", flags->record, "FASTA/FASTQ record to use from each file (default: the first)");
  cmd->add_option("--format", flags->format, "Input format: auto (by content), plain, fasta, fastq")
      ->check(CLI::IsMember({"auto", "plain", "fasta", "fastq"}));
  cmd->add_option("-k,--max-distance", flags->k, "Stop early and report 'over K' beyond K edits (banded)")
      ->check(integer_in(0));
  cmd->add_flag("--align", flags->align, "Also print an optimal alignment as an extended CIGAR (=, X, I, D)");
  cmd->add_option("--pairs", flags->pairs,
                  "Many pairs: one file of tab-separated string pairs per line, or two FASTA files paired by order")
      ->expected(1, 2);
  cmd->add_option("--all-vs-all", flags->all_vs_all,
                  "Every record of file A against every record of file B: a distance matrix (one-vs-many: A with one record)")
      ->expected(2);
  cmd->add_flag("--json", flags->json, "One JSON object per pair (--all-vs-all: one object with the matrix)");
  cmd->add_flag("--stats", flags->stats, "Print pairs, cells, time, GCUPS, backend and device to stderr");
  add_backend_options(cmd, flags->backend, flags->threads, flags->device, flags->device_memory);
  add_devices_option(cmd, flags->devices);
  cmd->add_option("--algo", flags->algorithm,
                  "auto; cpu: myers (bit-parallel, default), dp (reference); cuda: myers (default), tiles (seed paper 001)");
  cmd->add_option("--block-size", flags->block_size,
                  "Tile side for --algo tiles (multiple of 32, 32..1024; default: the tuned model's choice)")
      ->check(integer_in(0));
  cmd->footer(
      "Output: the distance (with --align: distance TAB cigar); 'over K' when -k is exceeded.\n"
      "With --pairs: A_NAME TAB B_NAME TAB result per pair (tab-separated file: both names are\n"
      "FILE:LINE). CIGAR (SAM's convention, A the query, B the reference): '=' equal bytes, 'X' A's\n"
      "byte replaced by B's, 'I' a byte of A absent from B, 'D' a byte of B absent from A.\n"
      "JSON: {\"type\":\"distance\",\"a\":A,\"b\":B,\"distance\":D,\"cigar\":C (with --align)};\n"
      "over K: \"distance\":null,\"over_k\":true,\"k\":K.\n"
      "With --all-vs-all A B: a header line of TAB + B's record names, then per record of A its\n"
      "name and one distance per record of B (TAB-separated, \"NA\" over K); JSON:\n"
      "{\"type\":\"matrix\",\"a\":[names],\"b\":[names],\"k\":K,\"distances\":[[row of A's first record],...]}\n"
      "with null over K. On CUDA each sequence is uploaded once for the whole matrix.\n"
      "Exit status: 0 computed (every pair within K), 1 some pair over K, 2 error.\n"
      "Inputs are read whole into memory (an alignment needs both sequences at once), through the\n"
      "same input layer as find: plain, gzip, BGZF, zstd, FASTA/FASTQ (detected by content).\n"
      "Examples:\n"
      "  warpmatch distance -s kitten sitting                 3\n"
      "  warpmatch distance --align a.fa b.fa                 distance and alignment\n"
      "  warpmatch distance -k 100 --json a.fa b.fa           bounded, JSON\n"
      "  warpmatch distance --pairs pairs.tsv --stats         many pairs\n"
      "  warpmatch distance --all-vs-all reads.fa refs.fa     the matrix of every read x every ref\n"
      "  warpmatch distance --backend cuda --algo tiles --block-size 256 a b   the paper's kernel");
  return [flags] { return run_distance(*flags); };
}

}  // namespace

const CommandRegistration distance_registration("distance", 40, add_distance_command);

}  // namespace warpmatch::cli
