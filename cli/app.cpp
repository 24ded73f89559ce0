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

CLI::Validator device_memory_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        try {
          if (parse_size(text) == 0) return "must be at least 1 byte (got '" + text + "')";
          return {};
        } catch (const std::exception& e) {
          return e.what();
        }
      },
      "SIZE");
}

CLI::Validator device_list_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (text == "all") return {};
        if (text.empty()) return "a GPU list is required: 'all' or ordinals such as 0,1,3";
        std::size_t begin = 0;
        for (;;) {
          const std::size_t comma = text.find(',', begin);
          std::string ordinal = text.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
          if (ordinal.empty()) return "an empty entry in the GPU list '" + text + "'";
          const std::string error = integer_in(0, std::numeric_limits<int>::max()).operator()(ordinal);
          if (!error.empty()) return error;
          if (comma == std::string::npos) return {};
          begin = comma + 1;
        }
      },
      "all|LIST");
}

std::vector<int> parse_device_list(const std::string& text) {
  std::vector<int> devices;
  if (text.empty()) return devices;
  if (text == "all") {
    for (const DeviceInfo& d : warpmatch::cuda_devices()) devices.push_back(d.ordinal);
    if (devices.empty()) throw InvalidArgument("--devices all: no CUDA GPU is visible (see warpmatch info)");
    return devices;
  }
  for (std::size_t begin = 0; begin <= text.size();) {
    const std::size_t comma = std::min(text.find(',', begin), text.size());
    devices.push_back(std::stoi(text.substr(begin, comma - begin)));  // checked by device_list_check
    begin = comma + 1;
  }
  return devices;
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
