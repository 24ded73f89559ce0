// libFuzzer target (issue 16): the command line's argument parsing. The input is split at NUL
// bytes into at most 24 arguments and parsed by the real app (every registered command and
// its checks: sizes, numbers, --device, formats); nothing is run. A parse may only succeed or
// throw CLI11's errors; anything else (a crash, another exception) is a finding.
#include <cstdint>
#include <string>
#include <vector>

#include "app.hpp"

using namespace warpmatch::cli;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static std::vector<std::pair<CLI::App*, CommandRunner>> runners;
  static const std::unique_ptr<CLI::App> app = make_app(runners);
  std::vector<std::string> args;
  std::string cur;
  for (std::size_t i = 0; i < size && args.size() < 24; ++i) {
    if (data[i] == 0) {
      args.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(static_cast<char>(data[i]));
    }
  }
  if (args.size() < 24) args.push_back(cur);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them reversed
  try {
    app->parse(reversed);
  } catch (const CLI::Error&) {
  }
  return 0;
}
