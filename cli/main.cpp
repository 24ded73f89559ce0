// warpmatch — command-line entry. Commands register themselves (cli/*_command.cpp).
// Exit status as grep: 0 something matched, 1 nothing matched, 2 an error (bad usage included).
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <exception>

#include "commands.hpp"
#include "output.hpp"
#include "warpmatch/common.hpp"

namespace warpmatch::cli {
std::vector<CommandEntry>& command_registry() {
  static std::vector<CommandEntry> entries;
  return entries;
}
std::vector<CommandEntry>& bench_registry() {
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

int main(int argc, char** argv) {
  using namespace warpmatch::cli;
  CLI::App app{"warpmatch — exact and approximate string matching on CUDA GPUs and all CPU cores"};
  app.set_help_flag("--help", "Print this help and exit");
  app.require_subcommand(1);
  app.footer(
      "Examples:\n"
      "  warpmatch find GATTACA genome.fa.gz         every occurrence, per FASTA record\n"
      "  warpmatch find -c -i error /var/log/syslog  count, ASCII case-insensitive\n"
      "  warpmatch find --json --stats the big.txt   JSON lines and a summary\n"
      "  warpmatch info                              build and GPUs seen\n"
      "  warpmatch bench find --bytes 1G             benchmark against ripgrep\n"
      "Run 'warpmatch COMMAND --help' for a command's options.");

  auto& entries = command_registry();
  std::sort(entries.begin(), entries.end(),
            [](const CommandEntry& a, const CommandEntry& b) { return a.order < b.order; });
  std::vector<std::pair<CLI::App*, CommandRunner>> runners;
  for (const auto& e : entries) {
    CommandRunner run = e.setup(app);
    runners.emplace_back(app.get_subcommand(e.name), std::move(run));
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;  // grep: usage errors exit 2
  }

  try {
    for (auto& [cmd, run] : runners)
      if (cmd->parsed()) {
        const int status = run();
        flush_stdout_or_throw();  // what went through printf / fmt::print directly
        return status;
      }
  } catch (const WriteError& e) {
    // grep: "write error", status 2. A reader that went away (EPIPE, SIGPIPE ignored by our
    // parent) needs no message: with SIGPIPE at its default the process ends quietly anyway.
    if (e.error_number() != EPIPE) std::fprintf(stderr, "warpmatch: %s\n", e.what());
    return 2;
  } catch (const warpmatch::Error& e) {
    std::fprintf(stderr, "warpmatch: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "warpmatch: internal error: %s\n", e.what());
    return 2;
  }
  return 2;
}
