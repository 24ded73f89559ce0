// warpmatch — command-line entry: `find`, `info`, `bench`. Exit status as grep:
// 0 something matched, 1 nothing matched, 2 an error (bad usage included).
#include <cstdio>
#include <exception>

#include "commands.hpp"
#include "warpmatch/common.hpp"

int main(int argc, char** argv) {
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

  using warpmatch::cli::CommandRunner;
  const CommandRunner find = warpmatch::cli::add_find_command(app);
  const CommandRunner info = warpmatch::cli::add_info_command(app);
  const CommandRunner bench = warpmatch::cli::add_bench_command(app);

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
    if (app.got_subcommand("find")) return find();
    if (app.got_subcommand("info")) return info();
    if (app.got_subcommand("bench")) return bench();
  } catch (const warpmatch::Error& e) {
    std::fprintf(stderr, "warpmatch: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "warpmatch: internal error: %s\n", e.what());
    return 2;
  }
  return 2;
}
