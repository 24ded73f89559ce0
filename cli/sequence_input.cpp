#include "sequence_input.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "commands.hpp"  // parse_size
#include "tuning.hpp"

namespace warpmatch::cli {

std::uint64_t available_memory_bytes() {
  if (const char* env = memory_bytes_override()) return parse_size(env);
  std::ifstream meminfo("/proc/meminfo");
  for (std::string line; std::getline(meminfo, line);)
    if (line.rfind("MemAvailable:", 0) == 0) {
      std::istringstream fields(line.substr(13));
      std::uint64_t kib = 0;
      if (fields >> kib) return kib * 1024;
    }
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
}

std::string human_bytes(std::uint64_t n) {
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  if (n < 1024) return std::to_string(n) + " bytes";
  double v = static_cast<double>(n) / 1024;
  int u = 0;
  while (v >= 1024 && u < 3) v /= 1024, ++u;
  char text[32];
  std::snprintf(text, sizeof text, v < 10 ? "%.1f %s" : "%.0f %s", v, units[u]);
  return text;
}

std::uint64_t MemoryNeed::input_limit() const {
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(static_cast<double>(available) / bytes_per_input_byte));
}

std::string MemoryNeed::reason() const {
  char per[32];
  std::snprintf(per, sizeof per, "%g", bytes_per_input_byte);
  return "the most " + command + " can take: it needs about " + per + " bytes of memory per input byte and " +
         human_bytes(available) + " are available";
}

void MemoryNeed::check_total(const std::string& a, std::uint64_t a_bytes, const std::string& b,
                             std::uint64_t b_bytes) const {
  const double need = static_cast<double>(a_bytes + b_bytes) * bytes_per_input_byte;
  if (need <= static_cast<double>(available)) return;
  char per[32];
  std::snprintf(per, sizeof per, "%g", bytes_per_input_byte);
  throw InvalidArgument(command + " of " + a + " (" + human_bytes(a_bytes) + ") and " + b + " (" +
                        human_bytes(b_bytes) + ") needs about " + human_bytes(static_cast<std::uint64_t>(need)) +
                        " of memory (" + per + " bytes per input byte); " + human_bytes(available) +
                        " are available");
}

SequenceInput load_sequence(const std::string& arg, bool literal,
                            const std::optional<std::string>& record, io::Format format,
                            const MemoryNeed* need) {
  if (literal) {
    io::Input in = io::Input::from_bytes("literal", std::vector<std::uint8_t>(arg.begin(), arg.end()),
                                         io::Format::plain);
    const ByteSpan seq = in.records().front().sequence;
    return {std::move(in), seq, "literal"};
  }
  io::Input in = need ? io::Input::open(arg, format, need->input_limit(), need->reason())
                      : io::Input::open(arg, format);
  const auto& records = in.records();
  if (records.empty()) throw io::InputError(in.name() + ": no sequence records");
  const io::Record* chosen = &records.front();
  if (record) {
    chosen = nullptr;
    for (const auto& r : records)
      if (r.name == *record) {
        chosen = &r;
        break;
      }
    if (!chosen) throw io::InputError(in.name() + ": no record named '" + *record + "'");
  }
  const ByteSpan seq = chosen->sequence;
  std::string name = in.format() == io::Format::plain ? in.name() : chosen->name;
  return {std::move(in), seq, std::move(name)};
}

}  // namespace warpmatch::cli
