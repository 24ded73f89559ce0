// `warpmatch bench OPERATION`: the benchmark programs of bench/ (table + JSON, peers included).
// Each operation registers its own subcommand with a BenchRegistration (see bench_find below).
#include <algorithm>
#include <stdexcept>

#include "bench/bench.hpp"
#include "commands.hpp"
#include "warpmatch/common.hpp"

namespace warpmatch::cli {

std::uint64_t parse_size(const std::string& text) {
  std::size_t pos = 0;
  unsigned long long value = 0;
  try {
    value = std::stoull(text, &pos);
  } catch (const std::exception&) {
    throw InvalidArgument("invalid size '" + text + "' (examples: 4096, 64K, 256M, 1G)");
  }
  const std::string suffix = text.substr(pos);
  std::uint64_t mult = 1;
  if (suffix.empty() || suffix == "B") mult = 1;
  else if (suffix == "K" || suffix == "KiB" || suffix == "k") mult = 1ull << 10;
  else if (suffix == "M" || suffix == "MiB") mult = 1ull << 20;
  else if (suffix == "G" || suffix == "GiB") mult = 1ull << 30;
  else throw InvalidArgument("invalid size suffix in '" + text + "' (use K, M or G)");
  return value * mult;
}

namespace {

CommandRunner add_bench_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("bench", "Benchmarks against the peers (table + JSON)");
  cmd->set_help_flag("--help", "Print this help and exit");
  cmd->require_subcommand(1);
  auto& entries = bench_registry();
  std::sort(entries.begin(), entries.end(),
            [](const CommandEntry& a, const CommandEntry& b) { return a.order < b.order; });
  std::vector<std::pair<CLI::App*, CommandRunner>> runners;
  for (const auto& e : entries) {
    CommandRunner run = e.setup(*cmd);
    runners.emplace_back(cmd->get_subcommand(e.name), std::move(run));
  }
  return [runners] {
    for (const auto& [sub, run] : runners)
      if (sub->parsed()) return run();
    return 2;
  };
}

CommandRunner add_bench_find(CLI::App& bench) {
  auto find = std::make_shared<bench::BenchFindOptions>();
  auto bytes = std::make_shared<std::string>("1G");
  CLI::App* f = bench.add_subcommand("find", "Exact search: GPU resident, host-fed, paper BF, CPU, ripgrep");
  f->set_help_flag("--help", "Print this help and exit");
  f->add_option("--bytes", *bytes, "Size of the generated English-like text (e.g. 256M, 1G)");
  f->add_option("--repeats", find->repeats, "Timed repeats per measurement (median reported)")
      ->check(integer_in(1));
  f->add_option("-j,--threads", find->threads, "CPU threads (0 = all)")->check(integer_in(0));
  f->add_option("--json", find->json_path, "Where to write the JSON results");
  f->add_option("--rg", find->rg_path, "ripgrep executable ('none' to skip the peer)");
  f->add_option("--words", find->words_file, "Word list for the generated text (e.g. /usr/share/dict/words)");
  f->add_option("--commit", find->commit, "Commit recorded in the JSON (default: git rev-parse HEAD)");
  f->add_flag("--no-gpu", find->skip_gpu, "Skip the GPU rows");
  f->footer("Example: warpmatch bench find --bytes 1G --words /usr/share/dict/words --json find.json");
  return [find, bytes] {
    find->text_bytes = parse_size(*bytes);
    return bench::run_bench_find(*find);
  };
}

}  // namespace

const CommandRegistration bench_registration("bench", 80, add_bench_command);
const BenchRegistration bench_find_registration("find", 10, add_bench_find);

}  // namespace warpmatch::cli
