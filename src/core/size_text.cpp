// parse_size (size_text.hpp).
#include "core/size_text.hpp"

#include <charconv>
#include <limits>
#include <string>

#include "warpmatch/common.hpp"

namespace warpmatch::core {

std::uint64_t parse_size(std::string_view text) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  const std::string quoted = "'" + std::string(text) + "'";
  if (error == std::errc::result_out_of_range) throw InvalidArgument("size " + quoted + " is too large");
  if (error != std::errc{}) throw InvalidArgument("invalid size " + quoted + " (examples: 4096, 64K, 256M, 1G)");
  const std::string_view suffix = text.substr(static_cast<std::size_t>(end - text.data()));
  std::uint64_t mult = 1;
  if (suffix.empty() || suffix == "B") mult = 1;
  else if (suffix == "K" || suffix == "KiB" || suffix == "k") mult = 1ull << 10;
  else if (suffix == "M" || suffix == "MiB") mult = 1ull << 20;
  else if (suffix == "G" || suffix == "GiB") mult = 1ull << 30;
  else throw InvalidArgument("invalid size suffix in " + quoted + " (use K, M or G)");
  if (value > std::numeric_limits<std::uint64_t>::max() / mult) throw InvalidArgument("size " + quoted + " is too large");
  return value * mult;
}

}  // namespace warpmatch::core
