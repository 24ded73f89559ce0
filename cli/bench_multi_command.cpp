// `warpmatch bench multi`: registers the multi-pattern benchmark (bench/bench_multi.cpp).
#include "bench/bench_multi.hpp"
#include "commands.hpp"
#include "warpmatch/common.hpp"

namespace warpmatch::cli {
namespace {

CommandRunner add_bench_multi(CLI::App& bench) {
  auto opt = std::make_shared<bench::BenchMultiOptions>();
  auto bytes = std::make_shared<std::string>("1G");
  auto paper_bytes = std::make_shared<std::string>("20000000");
  auto english_bytes = std::make_shared<std::string>("256M");
  CLI::App* b = bench.add_subcommand(
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
  b->footer("Example: warpmatch bench multi --bytes 1G --json multi.json");
  return [opt, bytes, paper_bytes, english_bytes] {
    opt->text_bytes = parse_size(*bytes);
    opt->paper_bytes = parse_size(*paper_bytes);
    opt->english_bytes = parse_size(*english_bytes);
    if (opt->text_bytes == 0 || opt->paper_bytes == 0 || opt->english_bytes == 0)
      throw InvalidArgument("bench multi: text sizes must be > 0");
    return bench::run_bench_multi(*opt);
  };
}

}  // namespace

const BenchRegistration bench_multi_registration("multi", 20, add_bench_multi);

}  // namespace warpmatch::cli
