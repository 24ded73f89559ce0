// `warpmatch bench e2e`: registers the end-to-end benchmark (bench/bench_e2e.cpp).
#include "bench/bench_e2e.hpp"
#include "commands.hpp"
#include "warpmatch/common.hpp"

namespace warpmatch::cli {
namespace {

CommandRunner add_bench_e2e(CLI::App& bench) {
  auto opt = std::make_shared<bench::BenchE2EOptions>();
  auto bytes = std::make_shared<std::string>("8G");
  auto fasta_bytes = std::make_shared<std::string>("1G");
  auto sequence_bytes = std::make_shared<std::string>("64M");
  auto set_genome_bytes = std::make_shared<std::string>("3000000000");
  CLI::App* b = bench.add_subcommand(
      "e2e", "The command line end to end (process start to exit, peak memory) vs rg, seqkit, zcat|rg");
  b->set_help_flag("--help", "Print this help and exit");
  b->add_option("--bytes", *bytes, "English-like text of jobs 1-3 (one word, stdin, 1000 words)");
  b->add_option("--fasta-bytes", *fasta_bytes, "Random-ACGT FASTA of jobs 4-5 (and its .gz, BGZF, .zst)");
  b->add_option("--pairs", opt->pairs, "Pairs of 100-300 bytes for `distance --pairs` (job 7)")
      ->check(CLI::PositiveNumber);
  b->add_option("--sequence-bytes", *sequence_bytes, "Random-ACGT FASTA of jobs 8-9 (primers, offtarget)");
  b->add_option("--guides", opt->guides, "Guides of job 9 (offtarget, 20 nt, NGG, <= 4 mismatches)")
      ->check(CLI::PositiveNumber);
  b->add_option("--set-guides", opt->set_guides, "Guides of job 10 (20 nt, approx -k 3 --strand both -f)")
      ->check(CLI::PositiveNumber);
  b->add_option("--set-genome-bytes", *set_genome_bytes, "Random-ACGT FASTA of job 10 (default 3 Gbp)");
  b->add_option("--repeats", opt->repeats, "Timed runs after the warm-up (median reported)")
      ->check(CLI::PositiveNumber);
  b->add_option("-j,--threads", opt->threads, "-j given to warpmatch and the peers (0 = their default)")
      ->check(CLI::NonNegativeNumber);
  b->add_option("--json", opt->json_path, "Where to write the JSON results");
  b->add_option("--dir", opt->dir, "Where the data is generated (default $TMPDIR or /tmp)");
  b->add_flag("--keep", opt->keep, "Keep the generated data");
  b->add_option("--words", opt->words_file, "Word list for the text (else built-in pseudo-words)");
  b->add_option("--rg", opt->rg_path, "ripgrep executable ('none' skips the peer)");
  b->add_option("--seqkit", opt->seqkit_path, "seqkit executable ('none' skips the peer)");
  b->add_option("--zstd", opt->zstd_path, "zstd executable for the .zst peer ('none' skips it)");
  b->add_option("--commit", opt->commit, "Commit recorded in the JSON (default: git rev-parse HEAD)");
  b->add_option("--rows", opt->rows,
                "Jobs to run: numbers 1-10 or word, stdin, words, fasta, gz, bgzf, zst, tiny, pairs, primers, offtarget, guides "
                "(comma-separated; default all)");
  b->add_option("--run-timeout", opt->run_timeout_s, "Seconds after which one run is killed (row failed)")
      ->check(CLI::PositiveNumber);
  b->add_flag("--no-gpu", opt->skip_gpu, "Skip the --backend cuda rows");
  b->footer(
      "Jobs: 1 one rare word in the text (auto, cpu, cuda vs rg -F -c); 2 the same through a pipe;\n"
      "3 1000 words with -f; 4 one 8-mer in the FASTA (vs seqkit locate -P); 5 the FASTA as .gz,\n"
      "BGZF and .zst (vs zcat | rg); 6 a 100-byte file; 7 distance --pairs (vs StringZilla if importable);\n"
      "8 eight IUPAC primers on both strands (vs seqkit locate -d); 9 offtarget of --guides guides;\n"
      "10 --set-guides guides within 3 edits on both strands of a --set-genome-bytes genome (approx -f).\n"
      "Examples:\n"
      "  warpmatch bench e2e --json e2e.json\n"
      "  warpmatch bench e2e --bytes 256M --fasta-bytes 64M --repeats 1 --rows 1,4,6");
  return [opt, bytes, fasta_bytes, sequence_bytes, set_genome_bytes] {
    opt->set_genome_bytes = parse_size(*set_genome_bytes);
    opt->text_bytes = parse_size(*bytes);
    opt->fasta_bytes = parse_size(*fasta_bytes);
    opt->sequence_bytes = parse_size(*sequence_bytes);
    return bench::run_bench_e2e(*opt);
  };
}

}  // namespace

const BenchRegistration bench_e2e_registration("e2e", 60, add_bench_e2e);

}  // namespace warpmatch::cli
