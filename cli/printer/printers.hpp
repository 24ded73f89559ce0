// The printers behind make_printer() (cli/printer/sink.hpp), one factory per file:
// standard.cpp (text), json.cpp (JSON lines), summary.cpp (counts, summaries, --stats).
#pragma once

#include <memory>

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
