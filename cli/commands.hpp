// The subcommands of `warpmatch`. Each add_*_command registers its flags on the app and
// returns a function that runs it and yields the exit status (0 match, 1 none, 2 error).
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace warpmatch::cli {

using CommandRunner = std::function<int()>;

CommandRunner add_find_command(CLI::App& app);
CommandRunner add_info_command(CLI::App& app);
CommandRunner add_bench_command(CLI::App& app);

/// Parses sizes like "4096", "64K", "256M", "1G" (binary multiples).
std::uint64_t parse_size(const std::string& text);

}  // namespace warpmatch::cli
