// parse_size (commands.hpp): the size options of the CLI and of `warpmatch-bench`.
#include <stdexcept>

#include "commands.hpp"
#include "warpmatch/common.hpp"

namespace warpmatch::cli {

std::uint64_t parse_size(const std::string& text) {
  std::size_t pos = 0;
  unsigned long long value = 0;
  try {
    value = std::stoull(text, &pos);
  } catch (const std::exception&) {
    throw InvalidArgument("invalid size '" + text + "' (examples: 4096, 64K, 256M, 1G)");
  }
  const std::string suffix = text.substr(pos);
  std::uint64_t mult = 1;
  if (suffix.empty() || suffix == "B") mult = 1;
  else if (suffix == "K" || suffix == "KiB" || suffix == "k") mult = 1ull << 10;
  else if (suffix == "M" || suffix == "MiB") mult = 1ull << 20;
  else if (suffix == "G" || suffix == "GiB") mult = 1ull << 30;
  else throw InvalidArgument("invalid size suffix in '" + text + "' (use K, M or G)");
  return value * mult;
}

}  // namespace warpmatch::cli
