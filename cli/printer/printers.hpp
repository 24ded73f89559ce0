// The printers behind make_printer() (cli/printer/sink.hpp), one factory per file:
// standard.cpp (text), json.cpp (JSON lines), summary.cpp (counts, summaries, --stats).
#pragma once

#include <memory>

#include "sink.hpp"

namespace warpmatch::cli {

/// A Sink with the options it prints by.
class Printer : public Sink {
 public:
  explicit Printer(PrintOptions options) : o_(std::move(options)) {}

 protected:
  PrintOptions o_;
};

/// offtarget names a site's sequence by its record, or by the input when it has no name.
inline std::string_view site_record(const Location& where) {
  return where.record && !where.record->empty() ? *where.record : where.path;
}

std::unique_ptr<Sink> make_standard_printer(PrintFormat format, PrintOptions options);
std::unique_ptr<Sink> make_json_printer(PrintFormat format, PrintOptions options);
std::unique_ptr<Sink> make_count_printer(bool json, PrintOptions options);

/// The summary object, the last line of --json output.
void append_summary_json(fmt::memory_buffer& out, const SearchSummary& summary);

}  // namespace warpmatch::cli
