// The subcommands of `warpmatch`. Each command lives in its own cli/<name>_command.cpp and
// registers itself with a static CommandRegistration, so adding an operation touches no
// shared file. A registration adds the command's flags to the app and returns the function
// that runs it and yields the exit status (0 match, 1 none, 2 error).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace warpmatch::cli {

using CommandRunner = std::function<int()>;
/// Adds a subcommand to `parent` (the app, or the `bench` command) and returns its runner.
using CommandSetup = std::function<CommandRunner(CLI::App& parent)>;

/// --backend, -j/--threads and --device: the same on every operation's command.
inline void add_backend_options(CLI::App* cmd, std::string& backend, int& threads, int& device) {
  cmd->add_option("--backend", backend, "cpu, cuda or auto (the GPU when present)")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}));
  cmd->add_option("-j,--threads", threads, "CPU threads (0 = all cores)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--device", device, "CUDA device ordinal")->check(CLI::NonNegativeNumber);
}

struct CommandEntry {
  std::string name;
  int order;  // position in --help
  CommandSetup setup;
};

/// Top-level commands (`find`, `info`, ...) and benchmark programs (`bench find`, ...).
std::vector<CommandEntry>& command_registry();
std::vector<CommandEntry>& bench_registry();

struct CommandRegistration {
  CommandRegistration(std::string name, int order, CommandSetup setup) {
    command_registry().push_back({std::move(name), order, std::move(setup)});
  }
};
struct BenchRegistration {
  BenchRegistration(std::string name, int order, CommandSetup setup) {
    bench_registry().push_back({std::move(name), order, std::move(setup)});
  }
};

/// Parses sizes like "4096", "64K", "256M", "1G" (binary multiples).
std::uint64_t parse_size(const std::string& text);

/// A CLI11 check for a size option (--window): the parse error names the option, before any
/// input is opened.
inline CLI::Validator size_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        try {
          parse_size(text);
          return {};
        } catch (const std::exception& e) {
          return e.what();
        }
      },
      "SIZE");
}

}  // namespace warpmatch::cli
