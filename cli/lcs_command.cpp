// `warpmatch lcs A B`: the longest common substring of two sequences (length, distinct count,
// occurrence pairs), or with --min-length every maximal exact match.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "commands.hpp"
#include "printer/sink.hpp"
#include "sequence_input.hpp"
#include "warpmatch/lcs.hpp"

namespace warpmatch::cli {
namespace {

struct LcsFlags {
  std::string a, b;
  bool literal = false;
  std::optional<std::string> record, record_a, record_b;
  std::string format = "auto";
  std::uint64_t max_matches = 1000;
  std::uint64_t min_length = 0;  // 0 = longest common substring; >= 1 = MEMs
  bool json = false;
  bool stats = false;
  std::string backend = "auto";
  std::string algorithm = "auto";
  int threads = 0;
  int device = 0;
  std::string device_memory;  // --device-memory SIZE ("": none given)
  std::string devices;        // --devices all|LIST: one GPU only ("": none given)
};

/// --devices for lcs: the one GPU it names (--device otherwise). lcs runs on one GPU, so a
/// list of several is an error saying so (exit 2).
int lcs_device(const LcsFlags& flags) {
  std::vector<int> listed = parse_device_list(flags.devices);
  std::sort(listed.begin(), listed.end());
  listed.erase(std::unique(listed.begin(), listed.end()), listed.end());
  if (listed.empty()) return flags.device;
  if (listed.size() > 1)
    throw InvalidArgument("lcs runs on one GPU (its suffix array is not split over several GPUs): --devices " +
                          flags.devices + " names " + std::to_string(listed.size()) +
                          "; choose one with --device N");
  return listed.front();
}

constexpr double kLcsBytesPerInputByte = 45;
// The CPU's suffix-array path holds both inputs, their concatenation and 32-bit suffix, Φ
// and LCP arrays (about 14 bytes per input byte measured, 2 x 30 MB of DNA: 826 MB peak), or
// 64-bit ones past 2 GiB of text (about 26).
constexpr double kLcsCpuBytesPerInputByte = 16, kLcsCpuWideBytesPerInputByte = 28;
constexpr double kLcsCpu32BitBytes = 2147483647;  // cpu::kSuffixArray32MaxBytes: texts up to this are 32-bit

void print_stats(const ScanStats& run, const SequenceInput& a, const SequenceInput& b) {
  std::fprintf(stderr,
               "warpmatch lcs: A %s (%zu bytes), B %s (%zu bytes), backend %s, algorithm %s, "
               "device %s, %.6f s\n",
               a.name.c_str(), a.sequence.size(), b.name.c_str(), b.sequence.size(),
               std::string(backend_name(run.backend)).c_str(), run.algorithm.c_str(),
               run.device.c_str(), run.seconds);
}

int run_lcs(const LcsFlags& flags) {
  // Both inputs and the suffix array of their concatenation are held at once: about 45 bytes
  // per input byte (issue 16: a 100 MB file; 2 x 20 MB random DNA took 26 with 64-bit arrays),
  // 16 on the CPU's 32-bit path (the CPU forced: auto may take the GPU). An input past
  // what fits stops being read there (a gzip bomb costs at most the limit).
  const std::uint64_t available = available_memory_bytes();
  double per_byte = kLcsBytesPerInputByte;  // auto may take the GPU, whose host side holds 64-bit arrays
  if (parse_backend(flags.backend) == Backend::cpu)
    per_byte = static_cast<double>(available) / kLcsCpuBytesPerInputByte <= kLcsCpu32BitBytes
                   ? kLcsCpuBytesPerInputByte
                   : kLcsCpuWideBytesPerInputByte;
  const MemoryNeed need{"lcs", per_byte, available};
  const io::Format format = io::parse_format(flags.format);
  const SequenceInput a = load_sequence(flags.a, flags.literal, flags.record_a ? flags.record_a : flags.record, format, &need);
  const SequenceInput b = load_sequence(flags.b, flags.literal, flags.record_b ? flags.record_b : flags.record, format, &need);
  need.check_total(a.input.name(), a.sequence.size(), b.input.name(), b.sequence.size());
  LcsOptions options;
  options.backend = parse_backend(flags.backend);
  options.algorithm = flags.algorithm;
  options.threads = flags.threads;
  options.device = lcs_device(flags);
  apply_device_memory(flags.device_memory, options);
  options.max_matches = flags.max_matches;
  const std::unique_ptr<Sink> printer = make_printer(flags.json ? PrintFormat::json : PrintFormat::plain);

  if (flags.min_length > 0) {
    const MemResult r = maximal_exact_matches(a.sequence, b.sequence, flags.min_length, options);
    if (!r.stats.note.empty()) std::fprintf(stderr, "warpmatch lcs: %s\n", r.stats.note.c_str());
    printer->mems(r);
    printer->flush();
    if (flags.stats) {
      print_stats(r.stats, a, b);
      std::fprintf(stderr, "warpmatch lcs: %llu MEMs of length >= %llu\n",
                   static_cast<unsigned long long>(r.total),
                   static_cast<unsigned long long>(flags.min_length));
    }
    return r.total > 0 ? 0 : 1;
  }

  const LcsResult r = longest_common_substring(a.sequence, b.sequence, options);
  if (!r.stats.note.empty()) std::fprintf(stderr, "warpmatch lcs: %s\n", r.stats.note.c_str());
  printer->lcs(r, a.sequence);
  printer->flush();
  if (flags.stats) print_stats(r.stats, a, b);
  return r.length > 0 ? 0 : 1;
}

CommandRunner add_lcs_command(CLI::App& app) {
  auto flags = std::make_shared<LcsFlags>();
  CLI::App* cmd = app.add_subcommand(
      "lcs", "Longest common substring of two sequences (seed paper 004), or their MEMs");
  cmd->set_help_flag("--help", "Print this help and exit");
  cmd->add_option("A", flags->a, "First sequence: a file (plain, gzip, BGZF, zstd, FASTA/FASTQ first record)")
      ->required();
  cmd->add_option("B", flags->b, "Second sequence, as A")->required();
  cmd->add_flag("-s,--strings", flags->literal, "A and B are literal strings, not files");
  cmd->add_option("--record", flags->record, "FASTA/FASTQ record to use in both inputs");
  cmd->add_option("--record-a", flags->record_a, "FASTA/FASTQ record of A");
  cmd->add_option("--record-b", flags->record_b, "FASTA/FASTQ record of B");
  cmd->add_option("--format", flags->format, "Input format: auto (by content), plain, fasta, fastq")
      ->check(CLI::IsMember({"auto", "plain", "fasta", "fastq"}));
  cmd->add_option("-m,--max-matches", flags->max_matches,
                  "Occurrence pairs (or MEMs) printed; counts stay exact (default 1000)")
      ->check(integer_in(0));
  cmd->add_option("-l,--min-length", flags->min_length,
                  "Print every maximal exact match of at least this length instead")
      ->check(integer_in(1));
  cmd->add_flag("--json", flags->json, "JSON lines: one lcs object, or one object per MEM");
  cmd->add_flag("--stats", flags->stats, "Print sizes, time, backend and device to stderr");
  add_backend_options(cmd, flags->backend, flags->threads, flags->device, flags->device_memory);
  cmd->add_option("--devices", flags->devices,
                  "lcs runs on one GPU: a list naming one GPU is --device, several are an error")
      ->check(device_list_check());
  cmd->add_option("--algo", flags->algorithm,
                  "auto, suffix-array, diagonal (seed paper 004, O(mn)), dp (cpu, O(mn))");
  cmd->footer(
      "Output: a summary line, then A_POS<TAB>B_POS<TAB>SUBSTRING per occurrence pair in (A, B)\n"
      "order (0-based byte offsets; bytes outside printable ASCII escaped as \\xNN). With\n"
      "--min-length: A_POS<TAB>B_POS<TAB>LENGTH per MEM. Exit status: 0 a common substring\n"
      "(or MEM) exists, 1 none, 2 error. Inputs are read whole into memory (a suffix array needs\n"
      "both at once): plain, gzip, BGZF, zstd, FASTA/FASTQ (detected by content).\n"
      "GPU: lcs runs on one GPU (--device), whose memory must hold the suffix array of A and B\n"
      "(about 37 bytes per input byte, within --device-memory): past it --backend cuda is an\n"
      "error naming the sizes and the limit (exit 2) and --backend auto computes on the CPU.\n"
      "Examples:\n"
      "  warpmatch lcs -s 'hello world' 'yellow wood'\n"
      "  warpmatch lcs --json a.fa.gz b.fa.gz\n"
      "  warpmatch lcs --min-length 20 lambda.fa mutant.fa");
  return [flags] { return run_lcs(*flags); };
}

}  // namespace

const CommandRegistration lcs_registration("lcs", 50, add_lcs_command);

}  // namespace warpmatch::cli
