// The printers behind make_printer() (cli/printer/sink.hpp), one factory per file:
// standard.cpp (text), json.cpp (JSON lines), summary.cpp (counts, summaries, --stats).
#pragma once

#include <memory>
#include <string>
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

/// --color: grep's colours, GREP_COLORS' defaults unless the environment's GREP_COLORS sets
/// them, each span closed by `end`: byte for byte what GNU grep --color=always prints.
namespace colors {
/// The start sequence of each colour ("" where a capability is empty: no colour at all);
/// grep's defaults (parse_grep_colors("")) in brackets.
struct Palette {
  std::string file_name;       // fn (35: magenta)
  std::string line_number;     // ln (32: green)
  std::string byte_offset;     // bn (32: green; also approx's ends and distances)
  std::string separator;       // se (36: cyan ':', '-', "--")
  std::string selected_match;  // ms (01;31: bold red)
  std::string context_match;   // mc (01;31: -v's context lines)
  std::string end;             // "\x1b[m\x1b[K" ("\x1b[m" with ne)
};
/// GREP_COLORS as grep reads it: name=SGR capabilities apart by ':' (mt sets ms and mc; fn,
/// ln, bn, se, ms, mc), the boolean ne (no "\x1b[K"); the whole-line sl and cx and rv are not
/// supported (ignored). Parsing stops at a malformed entry, keeping what came before.
Palette parse_grep_colors(std::string_view spec);
/// The palette of this process (GREP_COLORS read once).
const Palette& palette();

/// `text` in the colour `sgr` (a Palette start; "" : none), closed.
inline void append_colored(fmt::memory_buffer& buf, std::string_view text, std::string_view sgr) {
  if (sgr.empty()) {
    buf.append(text);
    return;
  }
  buf.append(sgr);
  buf.append(text);
  buf.append(palette().end);
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
