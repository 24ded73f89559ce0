// warpmatch — command-line entry. Commands register themselves (cli/*_command.cpp).
// Exit status as grep: 0 something matched, 1 nothing matched, 2 an error (bad usage included).
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "app.hpp"
#include "commands.hpp"
#include "cuda/runtime/devices.hpp"
#include "printer/output.hpp"
#include "process_end.hpp"
#include "warpmatch/common.hpp"

namespace {

// "--name=" with nothing after '=' as "--name" "": CLI11 would otherwise take the next
// argument as the value (--group-separator= is grep's empty separator, --label= an empty
// name). Not after "--", where every argument is an operand.
std::vector<std::string> explicit_empty_values(int argc, char** argv) {
  std::vector<std::string> args;
  bool operands = false;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i > 0 && !operands && arg == "--") operands = true;
    if (i > 0 && !operands && arg.size() > 3 && arg.rfind("--", 0) == 0 && arg.find('=') == arg.size() - 1) {
      args.push_back(arg.substr(0, arg.size() - 1));
      args.emplace_back();
      continue;
    }
    args.push_back(arg);
  }
  return args;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace warpmatch::cli;
  std::vector<std::pair<CLI::App*, CommandRunner>> runners;
  const std::unique_ptr<CLI::App> app_ptr = make_app(runners);
  CLI::App& app = *app_ptr;
  std::vector<std::string> args = explicit_empty_values(argc, argv);
  std::vector<char*> arg_pointers;
  for (std::string& a : args) arg_pointers.push_back(a.data());

  try {
    app.parse(static_cast<int>(arg_pointers.size()), arg_pointers.data());
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
        // Everything is printed: skip CUDA's teardown of its context in the process, and leave
        // the driver's release of it to a helper (process_end.hpp).
        if (warpmatch::cuda::runtime_started()) end_process_after_cuda(status);
        return status;
      }
  } catch (const WriteError& e) {
    // grep: "write error", status 2. A reader that went away (EPIPE, SIGPIPE ignored by our
    // parent) needs no message: with SIGPIPE at its default the process ends quietly anyway.
    if (e.error_number() != EPIPE) std::fprintf(stderr, "warpmatch: %s\n", e.what());
  } catch (const warpmatch::DeviceOutOfMemory& e) {
    std::fprintf(stderr, "warpmatch: %s\n", out_of_memory_text(e).c_str());
  } catch (const warpmatch::Error& e) {
    std::fprintf(stderr, "warpmatch: %s\n", e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "warpmatch: internal error: %s\n", e.what());
  }
  // An error (its message printed): status 2, ended as a successful run ends.
  if (warpmatch::cuda::runtime_started()) end_process_after_cuda(2);
  return 2;
}
