// The printers behind make_printer() (cli/printer/sink.hpp), one factory per file:
// standard.cpp (text), json.cpp (JSON lines), summary.cpp (counts, summaries, --stats).
#pragma once

#include <memory>
#include <string_view>

#include "sink.hpp"

namespace warpmatch::cli {

/// A Sink with the options it prints by (shared, not copied, by the capturing printers that
/// Sink::make_capturing makes: a set's labels may hold 10^6 names).
class Printer : public Sink {
 public:
  explicit Printer(SharedPrintOptions options) : options_(std::move(options)), o_(*options_) {}

 protected:
  SharedPrintOptions options_;
  const PrintOptions& o_;
};

/// --color: grep's colours (GREP_COLORS' defaults), each span closed by kEnd: byte for byte
/// what GNU grep --color=always prints.
namespace colors {
inline constexpr std::string_view kFileName = "\x1b[35m\x1b[K";   // magenta
inline constexpr std::string_view kNumber = "\x1b[32m\x1b[K";     // green: line numbers, offsets
inline constexpr std::string_view kSeparator = "\x1b[36m\x1b[K";  // cyan: ':', '-', "--"
inline constexpr std::string_view kMatched = "\x1b[01;31m\x1b[K";  // bold red
inline constexpr std::string_view kEnd = "\x1b[m\x1b[K";

/// `text` in the colour `sgr`, closed.
inline void append_colored(fmt::memory_buffer& buf, std::string_view text, std::string_view sgr) {
  buf.append(sgr);
  buf.append(text);
  buf.append(kEnd);
}
}  // namespace colors

/// offtarget names a site's sequence by its record, or by the input when it has no name.
inline std::string_view site_record(const Location& where) {
  return where.record && !where.record->empty() ? *where.record : where.path;
}

std::unique_ptr<Sink> make_standard_printer(PrintFormat format, SharedPrintOptions options);
std::unique_ptr<Sink> make_json_printer(PrintFormat format, SharedPrintOptions options);
std::unique_ptr<Sink> make_count_printer(bool json, SharedPrintOptions options);

/// The summary object, the last line of --json output.
void append_summary_json(fmt::memory_buffer& out, const SearchSummary& summary);

}  // namespace warpmatch::cli
