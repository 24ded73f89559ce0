// The `warpmatch` CLI11 application with every registered command (cli/app.cpp).
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "commands.hpp"

namespace warpmatch::cli {

/// Builds the app; `runners` receives each command's subcommand and the function running it.
std::unique_ptr<CLI::App> make_app(std::vector<std::pair<CLI::App*, CommandRunner>>& runners);

}  // namespace warpmatch::cli
