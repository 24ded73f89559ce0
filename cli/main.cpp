// warpmatch — command-line entry. Commands register themselves (cli/*_command.cpp).
// Exit status as grep: 0 something matched, 1 nothing matched, 2 an error (bad usage included).
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <exception>

#include "app.hpp"
#include "commands.hpp"
#include "printer/output.hpp"
#include "warpmatch/common.hpp"

int main(int argc, char** argv) {
  using namespace warpmatch::cli;
  std::vector<std::pair<CLI::App*, CommandRunner>> runners;
  const std::unique_ptr<CLI::App> app_ptr = make_app(runners);
  CLI::App& app = *app_ptr;

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
  } catch (const warpmatch::DeviceOutOfMemory& e) {
    std::fprintf(stderr, "warpmatch: %s\n", out_of_memory_text(e).c_str());
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
