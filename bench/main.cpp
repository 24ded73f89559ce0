// warpmatch-bench — the benchmark programs of bench/, one subcommand each (find, multi, approx,
// approx-sets, distance, lcs, e2e, scaling). Each prints a table and writes JSON (the run's record:
// commit, host, device; medians, samples, ratios to the peers, targets). Everything it needs is
// given on the command line; it reads no environment variable of its own.
// Exit status: 0 done and every method agreed, 2 an error, a failed row or a disagreement.
#include <cstdio>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "bench/bench_approx.hpp"
#include "bench/bench_distance.hpp"
#include "bench/bench_e2e.hpp"
#include "bench/bench_find.hpp"
#include "bench/bench_lcs.hpp"
#include "bench/bench_multi.hpp"
#include "bench/bench_scaling.hpp"
#include "cli/commands.hpp"
#include "warpmatch/common.hpp"

namespace warpmatch::bench {
namespace {

using cli::integer_in;
using cli::parse_size;
using Runner = std::function<int()>;

Runner add_find(CLI::App& app) {
  auto find = std::make_shared<BenchFindOptions>();
  auto bytes = std::make_shared<std::string>("1G");
  CLI::App* f = app.add_subcommand("find", "Exact search: GPU resident, host-fed, paper BF, CPU, ripgrep");
  f->set_help_flag("--help", "Print this help and exit");
  f->add_option("--bytes", *bytes, "Size of the generated English-like text (e.g. 256M, 1G)");
  f->add_option("--repeats", find->repeats, "Timed repeats per measurement (median reported)")
      ->check(integer_in(1));
  f->add_option("-j,--threads", find->threads, "CPU threads (0 = all)")->check(integer_in(0));
  f->add_option("--json", find->json_path, "Where to write the JSON results");
  f->add_option("--rg", find->rg_path, "ripgrep executable ('none' to skip the peer)");
  f->add_option("--words", find->words_file, "Word list for the generated text (e.g. /usr/share/dict/words)");
  f->add_option("--commit", find->commit, "Commit recorded in the JSON (default: git rev-parse HEAD)");
  f->add_option("--tmp-dir", find->tmp_dir,
                "Where ripgrep's copy of the text is written (default: the system's temporary directory)");
  f->add_flag("--no-gpu", find->skip_gpu, "Skip the GPU rows");
  f->footer("Example: warpmatch-bench find --bytes 1G --words /usr/share/dict/words --json find.json");
  return [find, bytes] {
    find->text_bytes = parse_size(*bytes);
    return run_bench_find(*find);
  };
}

Runner add_multi(CLI::App& app) {
  auto opt = std::make_shared<BenchMultiOptions>();
  auto bytes = std::make_shared<std::string>("1G");
  auto paper_bytes = std::make_shared<std::string>("20000000");
  auto english_bytes = std::make_shared<std::string>("256M");
  CLI::App* b = app.add_subcommand(
      "multi", "Multi-pattern search: paper M-BNDM, GPU resident/host-fed, CPU, Hyperscan");
  b->set_help_flag("--help", "Print this help and exit");
  b->add_option("--bytes", *bytes, "Text of the large workloads (1000 and 100,000 literals)");
  b->add_option("--paper-bytes", *paper_bytes, "Text of the paper's experiment (20 MB)");
  b->add_option("--english-bytes", *english_bytes, "English text for the word-list workload");
  b->add_option("--english-words", opt->english_words, "Words taken from the list (0 = all)");
  b->add_option("--repeats", opt->repeats, "Timed repeats (median reported)")
      ->check(integer_in(1));
  b->add_option("-j,--threads", opt->threads, "CPU threads (0 = all)")->check(integer_in(0));
  b->add_option("--json", opt->json_path, "Where to write the JSON results");
  b->add_option("--words", opt->words_file, "Word list for the English workload");
  b->add_option("--commit", opt->commit, "Commit recorded in the JSON (default: git rev-parse HEAD)");
  b->add_flag("--no-gpu", opt->skip_gpu, "Skip the GPU rows");
  b->add_flag("--no-hyperscan", opt->skip_hyperscan, "Skip the Hyperscan peer");
  b->footer("Example: warpmatch-bench multi --bytes 1G --json multi.json");
  return [opt, bytes, paper_bytes, english_bytes] {
    opt->text_bytes = parse_size(*bytes);
    opt->paper_bytes = parse_size(*paper_bytes);
    opt->english_bytes = parse_size(*english_bytes);
    if (opt->text_bytes == 0 || opt->paper_bytes == 0 || opt->english_bytes == 0)
      throw InvalidArgument("multi: text sizes must be > 0");
    return run_bench_multi(*opt);
  };
}

Runner add_approx(CLI::App& app) {
  auto opt = std::make_shared<BenchApproxOptions>();
  CLI::App* cmd = app.add_subcommand("approx", "Approximate search (seed paper 000 Table 1) vs edlib");
  cmd->set_help_flag("--help", "Print this help and exit");
  auto bytes = std::make_shared<std::string>("4M"), big = std::make_shared<std::string>("1G");
  cmd->add_option("--bytes", *bytes, "Text size of the Table 1 rows (default 4M = 2^22)");
  cmd->add_option("--big-bytes", *big, "Text size of the throughput row, m = 256 (0 = skip; default 1G)");
  cmd->add_option("--lengths", opt->lengths, "Pattern lengths m, comma-separated");
  cmd->add_option("--blocks", opt->wavefront_blocks, "Wavefront piece counts D, comma-separated");
  cmd->add_option("--repeats", opt->repeats, "Timed repeats per measurement (median)");
  cmd->add_option("-j,--threads", opt->threads, "CPU threads (0 = all)");
  cmd->add_option("--json", opt->json_path, "Write the results as JSON to this path");
  cmd->add_option("--commit", opt->commit, "Commit recorded in the JSON");
  cmd->add_flag("--skip-gpu", opt->skip_gpu, "Only the CPU rows");
  cmd->add_flag("--skip-edlib-single", opt->skip_edlib_single, "Skip edlib on one thread");
  return [opt, bytes, big] {
    opt->text_bytes = parse_size(*bytes);
    opt->big_text_bytes = *big == "0" ? 0 : parse_size(*big);
    return run_bench_approx(*opt);
  };
}

Runner add_approx_sets(CLI::App& app) {
  auto opt = std::make_shared<BenchApproxSetsOptions>();
  CLI::App* cmd = app.add_subcommand("approx-sets", "Many 20-mers approximately (issue 15): one, 100, 1000 patterns");
  cmd->set_help_flag("--help", "Print this help and exit");
  auto single = std::make_shared<std::string>("1G"), set = std::make_shared<std::string>("256M");
  cmd->add_option("--single-bytes", *single, "Text of the one-pattern rows (0 = skip; default 1G)");
  cmd->add_option("--set-bytes", *set, "Text of the 100- and 1000-pattern rows (0 = skip; default 256M)");
  cmd->add_option("--repeats", opt->repeats, "Timed repeats per measurement (median)")->check(CLI::PositiveNumber);
  cmd->add_option("-j,--threads", opt->threads, "CPU threads (0 = all)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--json", opt->json_path, "Write the results as JSON to this path");
  cmd->add_option("--commit", opt->commit, "Commit recorded in the JSON");
  cmd->add_flag("--skip-gpu", opt->skip_gpu, "Only the CPU rows");
  cmd->footer("Example:\n  warpmatch-bench approx-sets --single-bytes 256M --set-bytes 64M --repeats 1");
  return [opt, single, set] {
    opt->single_bytes = *single == "0" ? 0 : parse_size(*single);
    opt->set_bytes = *set == "0" ? 0 : parse_size(*set);
    return run_bench_approx_sets(*opt);
  };
}

Runner add_scaling(CLI::App& app) {
  auto opt = std::make_shared<BenchScalingOptions>();
  auto text = std::make_shared<std::string>("4G"), approx = std::make_shared<std::string>("256M"),
       copy = std::make_shared<std::string>("1G");
  CLI::App* cmd = app.add_subcommand("scaling", "One job over 1, 2, 4, 8 GPUs (issue 17): speed-up, aggregate bandwidth");
  cmd->set_help_flag("--help", "Print this help and exit");
  cmd->add_option("--bytes", *text, "Text of the exact and 1000-literal rows (default 4G, pinned host memory)");
  cmd->add_option("--approx-bytes", *approx, "Text of the 1000-guide approx row (default 256M)");
  cmd->add_option("--pairs", opt->pairs, "Batched distance pairs of 150 nt (default 1000000)")->check(integer_in(1));
  cmd->add_option("--copy-bytes", *copy, "Bytes per GPU of the aggregate host-to-device copy (default 1G)");
  cmd->add_option("--max-gpus", opt->max_gpus, "Use at most this many GPUs (default 8)")->check(integer_in(1));
  cmd->add_option("--repeats", opt->repeats, "Timed repeats per measurement (median)")->check(integer_in(1));
  cmd->add_option("--json", opt->json_path, "Write the results as JSON to this path");
  cmd->add_option("--commit", opt->commit, "Commit recorded in the JSON");
  cmd->footer("Example:\n  warpmatch-bench scaling --bytes 2G --json scaling.json");
  return [opt, text, approx, copy] {
    opt->text_bytes = std::max<std::uint64_t>(parse_size(*text), 4096);
    opt->approx_bytes = std::max<std::uint64_t>(parse_size(*approx), 4096);
    opt->copy_bytes = std::max<std::uint64_t>(parse_size(*copy), 4096);
    return run_bench_scaling(*opt);
  };
}

Runner add_distance(CLI::App& app) {
  auto options = std::make_shared<BenchDistanceOptions>();
  auto max_length = std::make_shared<std::string>("1M");
  auto edlib_max = std::make_shared<std::string>("100K");
  auto cpu_max = std::make_shared<std::string>("1M");
  CLI::App* b = app.add_subcommand(
      "distance", "Edit distance: GPU paper tiles (every block size, tuned), GPU bit-parallel, CPU, edlib");
  b->set_help_flag("--help", "Print this help and exit");
  b->add_option("--repeats", options->repeats, "Timed repeats per measurement (median reported)")
      ->check(integer_in(1));
  b->add_option("-j,--threads", options->threads, "CPU threads (0 = all)")->check(integer_in(0));
  b->add_option("--json", options->json_path, "Where to write the JSON results");
  b->add_option("--genome", options->genome_path, "Genome (FASTA, gzip ok) for the mutated-copy rows");
  b->add_option("--max-length", *max_length, "Largest random pair (1M; 10M adds a GPU-only row)");
  b->add_option("--edlib-max", *edlib_max, "Largest random pair measured with edlib (one thread, O(n d / 64))");
  b->add_option("--cpu-max", *cpu_max, "Largest random pair measured on the CPU backend");
  b->add_option("--batch-pairs", options->batch_pairs, "Pairs of 100-300 bytes in the batch row")
      ->check(integer_in(1));
  b->add_option("--commit", options->commit, "Commit recorded in the JSON (default: git rev-parse HEAD)");
  b->add_flag("--no-gpu", options->skip_gpu, "Skip the GPU rows");
  b->footer("Example: warpmatch-bench distance --json distance.json");
  return [options, max_length, edlib_max, cpu_max] {
    options->max_length = static_cast<std::int64_t>(parse_size(*max_length));
    options->edlib_max_length = static_cast<std::int64_t>(parse_size(*edlib_max));
    options->cpu_max_length = static_cast<std::int64_t>(parse_size(*cpu_max));
    return run_bench_distance(*options);
  };
}

Runner add_lcs(CLI::App& app) {
  struct LcsFlags {
    std::string large = "50000000";
    bool with_100mb = false;
    int repeats = 3;
    int threads = 0;
    std::string json_path = "bench_lcs.json";
    std::string commit;
    bool skip_gpu = false;
  };
  auto f = std::make_shared<LcsFlags>();
  CLI::App* cmd = app.add_subcommand("lcs", "Longest common substring: GPU diagonal, GPU and "
                                            "CPU suffix array vs libdivsufsort + Kasai");
  cmd->add_option("--large", f->large, "Size of each input of the large random pair (default 50000000 = 50 MB)");
  cmd->add_flag("--with-100m", f->with_100mb, "Also run a random pair of 2 x 100 MB");
  cmd->add_option("--repeats", f->repeats, "Timed repeats per measurement (median reported)")
      ->check(integer_in(1));
  cmd->add_option("-j,--threads", f->threads, "CPU threads (0 = all)")->check(integer_in(0));
  cmd->add_option("--json", f->json_path, "Where to write the JSON results");
  cmd->add_option("--commit", f->commit, "Commit recorded in the JSON (default: git rev-parse HEAD)");
  cmd->add_flag("--no-gpu", f->skip_gpu, "Skip the GPU rows");
  return [f] {
    return run_bench_lcs(parse_size(f->large), f->with_100mb, f->repeats, f->threads, f->json_path, f->commit,
                         f->skip_gpu);
  };
}

Runner add_e2e(CLI::App& app) {
  auto opt = std::make_shared<BenchE2EOptions>();
  auto bytes = std::make_shared<std::string>("8G");
  auto fasta_bytes = std::make_shared<std::string>("1G");
  auto sequence_bytes = std::make_shared<std::string>("64M");
  auto primers_genome_bytes = std::make_shared<std::string>();
  auto set_genome_bytes = std::make_shared<std::string>("3000000000");
  auto tree_bytes = std::make_shared<std::string>("1G");
  CLI::App* b = app.add_subcommand(
      "e2e", "The command line end to end (process start to exit, peak memory) vs rg, seqkit, zcat|rg");
  b->set_help_flag("--help", "Print this help and exit");
  b->add_option("--warpmatch", opt->warpmatch_path,
                "The warpmatch executable timed (default: the one next to warpmatch-bench)");
  b->add_option("--bytes", *bytes, "English-like text of jobs 1-3 (one word, stdin, 1000 words)");
  b->add_option("--fasta-bytes", *fasta_bytes, "Random-ACGT FASTA of jobs 4-5 (and its .gz, BGZF, .zst)");
  b->add_option("--pairs", opt->pairs, "Pairs of 100-300 bytes for `distance --pairs` (job 7)")
      ->check(CLI::PositiveNumber);
  b->add_option("--sequence-bytes", *sequence_bytes, "Random-ACGT FASTA of jobs 8-9 (primers, offtarget)");
  b->add_option("--primers-genome-bytes", *primers_genome_bytes,
                "Random-ACGT FASTA of job 8 alone (primers vs seqkit locate -d, ~3 MB/s: 256M takes "
                "minutes); default: the --sequence-bytes one");
  b->add_option("--guides", opt->guides, "Guides of job 9 (offtarget, 20 nt, NGG, <= 4 mismatches)")
      ->check(CLI::PositiveNumber);
  b->add_option("--reads", opt->reads, "Reads of 150 nt in the FASTQ of job 12 (one 8-mer; 4000000: 1.26 GB)")
      ->check(CLI::PositiveNumber);
  b->add_option("--tree-bytes", *tree_bytes, "Text of job 13, cut into a tree of --tree-files files (default 1G)");
  b->add_option("--tree-files", opt->tree_files, "Files of job 13's tree (`find -r`, one rare word)")
      ->check(CLI::PositiveNumber);
  b->add_option("--set-guides", opt->set_guides, "Guides of job 10 (20 nt, approx -k 3 --strand both -f)")
      ->check(CLI::PositiveNumber);
  b->add_option("--set-genome-bytes", *set_genome_bytes, "Random-ACGT FASTA of job 10 (default 3 Gbp)");
  b->add_option("--repeats", opt->repeats, "Timed runs after the warm-up (median reported)")
      ->check(CLI::PositiveNumber);
  b->add_option("-j,--threads", opt->threads, "-j given to warpmatch and the peers (0 = their default)")
      ->check(CLI::NonNegativeNumber);
  b->add_option("--json", opt->json_path, "Where to write the JSON results");
  b->add_option("--dir", opt->dir, "Where the data is generated (default: the system's temporary directory)");
  b->add_flag("--keep", opt->keep, "Keep the generated data");
  b->add_option("--words", opt->words_file, "Word list for the text (else built-in pseudo-words)");
  b->add_option("--rg", opt->rg_path, "ripgrep executable ('none' skips the peer)");
  b->add_option("--seqkit", opt->seqkit_path, "seqkit executable ('none' skips the peer)");
  b->add_option("--zstd", opt->zstd_path, "zstd executable for the .zst peer ('none' skips it)");
  b->add_option("--commit", opt->commit, "Commit recorded in the JSON (default: git rev-parse HEAD)");
  b->add_option("--rows", opt->rows,
                "Jobs to run: numbers 1-13 or word, stdin, words, fasta, gz, bgzf, zst, tiny, pairs, primers, offtarget, guides, "
                "kmers, reads, tree "
                "(comma-separated; default all)");
  b->add_option("--run-timeout", opt->run_timeout_s, "Seconds after which one run is killed (row failed)")
      ->check(CLI::PositiveNumber);
  b->add_flag("--no-gpu", opt->skip_gpu, "Skip the --backend cuda rows");
  b->footer(
      "Jobs: 1 one rare word in the text (auto, cpu, cuda vs rg -F -c); 2 the same through a pipe;\n"
      "3 1000 words with -f; 4 one 8-mer in the FASTA (vs seqkit locate -P); 5 the FASTA as .gz,\n"
      "BGZF and .zst (vs zcat | rg); 6 a 100-byte file; 7 distance --pairs (vs StringZilla if importable);\n"
      "8 eight IUPAC primers on both strands (vs seqkit locate -d; --primers-genome-bytes sizes its FASTA\n"
      "apart from job 9's); 9 offtarget of --guides guides;\n"
      "10 --set-guides guides within 3 edits on both strands of a --set-genome-bytes genome (approx -f);\n"
      "11 1000 DNA 12-mers with -f in job 4's FASTA (vs rg -F -c -f; the backends must agree);\n"
      "12 an 8-mer in --reads reads of 150 nt (FASTQ; vs rg -F -c, seqkit locate -P);\n"
      "13 one rare word in a tree of --tree-files files, --tree-bytes in all (find -r -c; vs rg -F -c).\n"
      "Examples:\n"
      "  warpmatch-bench e2e --json e2e.json\n"
      "  warpmatch-bench e2e --bytes 256M --fasta-bytes 64M --repeats 1 --rows 1,4,6\n"
      "  warpmatch-bench e2e --rows primers --primers-genome-bytes 256M --repeats 1");
  return [opt, bytes, fasta_bytes, sequence_bytes, primers_genome_bytes, set_genome_bytes, tree_bytes] {
    opt->set_genome_bytes = parse_size(*set_genome_bytes);
    opt->tree_bytes = parse_size(*tree_bytes);
    opt->text_bytes = parse_size(*bytes);
    opt->fasta_bytes = parse_size(*fasta_bytes);
    opt->sequence_bytes = parse_size(*sequence_bytes);
    if (!primers_genome_bytes->empty()) opt->primers_genome_bytes = parse_size(*primers_genome_bytes);
    return run_bench_e2e(*opt);
  };
}

}  // namespace
}  // namespace warpmatch::bench

int main(int argc, char** argv) {
  using namespace warpmatch::bench;
  CLI::App app("warpmatch-bench — warpmatch's benchmarks against the peers (table + JSON)");
  app.set_help_flag("--help", "Print this help and exit");
  app.require_subcommand(1);
  app.footer(
      "Examples:\n"
      "  warpmatch-bench find --bytes 1G             exact search vs ripgrep\n"
      "  warpmatch-bench e2e --json e2e.json         the warpmatch command line end to end\n"
      "Run 'warpmatch-bench COMMAND --help' for a benchmark's options.");
  std::vector<std::pair<CLI::App*, Runner>> runners;
  for (Runner (*add)(CLI::App&) : {add_find, add_multi, add_approx, add_approx_sets, add_distance, add_lcs, add_e2e,
                                        add_scaling}) {
    Runner run = add(app);
    runners.emplace_back(app.get_subcommands([](CLI::App*) { return true; }).back(), std::move(run));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  try {
    for (auto& [cmd, run] : runners)
      if (cmd->parsed()) return run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "warpmatch-bench: %s\n", e.what());
    return 2;
  }
  return 2;
}
