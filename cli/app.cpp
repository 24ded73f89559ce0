// The `warpmatch` application: the command registries and the CLI11 app with every
// registered command (main.cpp parses and runs it; fuzz/fuzz_cli.cpp only parses).
#include "app.hpp"

#include <algorithm>
#include <limits>

#include "warpmatch/common.hpp"

namespace warpmatch::cli {
std::vector<CommandEntry>& command_registry() {
  static std::vector<CommandEntry> entries;
  return entries;
}

CLI::Validator device_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::string error = integer_in(0, std::numeric_limits<int>::max()).operator()(text);
        if (!error.empty()) return error;
        const std::size_t visible = warpmatch::cuda_devices().size();
        if (std::stoull(text) >= visible)
          return "no CUDA device " + text + " (" + std::to_string(visible) + " visible; see warpmatch info)";
        return {};
      },
      "INT");
}
}  // namespace warpmatch::cli


namespace warpmatch::cli {

std::unique_ptr<CLI::App> make_app(std::vector<std::pair<CLI::App*, CommandRunner>>& runners) {
  auto app_ptr = std::make_unique<CLI::App>("warpmatch — exact and approximate string matching on CUDA GPUs and all CPU cores");
  CLI::App& app = *app_ptr;
  app.set_help_flag("--help", "Print this help and exit");
  app.require_subcommand(1);
  app.footer(
      "Examples:\n"
      "  warpmatch find GATTACA genome.fa.gz         every occurrence, per FASTA record\n"
      "  warpmatch find -c -i error /var/log/syslog  count, ASCII case-insensitive\n"
      "  warpmatch find --json --stats the big.txt   JSON lines and a summary\n"
      "  warpmatch info                              build and GPUs seen\n"
      "Run 'warpmatch COMMAND --help' for a command's options.");

  auto& entries = command_registry();
  std::sort(entries.begin(), entries.end(),
            [](const CommandEntry& a, const CommandEntry& b) { return a.order < b.order; });
  for (const auto& e : entries) {
    CommandRunner run = e.setup(app);
    runners.emplace_back(app.get_subcommand(e.name), std::move(run));
  }

  return app_ptr;
}

}  // namespace warpmatch::cli
