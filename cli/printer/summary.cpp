// Summaries (ripgrep's summary printer): -c's counts per input (per pattern for pattern
// sets), -l / -L's input names, the --stats lines, and make_printer(), which picks a printer
// for a format.
#include <cstdio>

#include "json_line.hpp"
#include "printers.hpp"

namespace warpmatch::cli {
namespace {

/// -c: [PATH:]COUNT per input, or [PATH:]PATTERN:COUNT per pattern of a set; with --json
/// {"type":"count",...} objects and the summary.
class CountPrinter : public Printer {
 public:
  CountPrinter(bool json, SharedPrintOptions options) : Printer(std::move(options)), json_(json) {}

  void input_done(const InputCount& c) override {
    if (c.per_pattern.empty()) {
      line(c.path, o_.count_names_pattern ? std::optional<std::uint64_t>(0) : std::nullopt, c.total, false);
      return;
    }
    for (std::size_t i = 0; i < c.per_pattern.size(); ++i)
      if (c.per_pattern[i] != 0 || o_.include_zero)
        line(c.path, o_.shown_pattern(static_cast<std::uint32_t>(i)), c.per_pattern[i], true);
  }

  void summary(const SearchSummary& s) override {
    if (json_) append_summary_json(out_.buffer(), s);
  }

 private:
  // `pattern`: the JSON field (and, when `pattern_in_text`, the PATTERN: column).
  void line(std::string_view path, std::optional<std::uint64_t> pattern, std::uint64_t n, bool pattern_in_text) {
    fmt::memory_buffer& buf = out_.buffer();
    if (json_) {
      JsonLine json(buf, "count");
      json.string("path", path);
      if (pattern) json.number("pattern", *pattern);
      json.number("count", n).end();
    } else if (o_.color) {  // grep -c --color: the name magenta, the ':' cyan
      if (o_.show_path) {
        colors::append_colored(buf, path, colors::palette().file_name);
        if (o_.null_after_name) buf.push_back('\0');  // -Z: uncoloured, as grep
        else colors::append_colored(buf, ":", colors::palette().separator);
      }
      if (pattern_in_text) fmt::format_to(std::back_inserter(buf), "{}", *pattern), colors::append_colored(buf, ":", colors::palette().separator);
      fmt::format_to(std::back_inserter(buf), "{}\n", n);
    } else {
      if (o_.show_path) buf.append(path), buf.push_back(o_.after_name(':'));
      if (pattern_in_text) fmt::format_to(std::back_inserter(buf), "{}:", *pattern);
      fmt::format_to(std::back_inserter(buf), "{}\n", n);
    }
    out_.maybe_flush();
  }

  bool json_;
};

/// -l / -L: PATH per line, as given (grep prints names unescaped too).
class NamePrinter : public Printer {
 public:
  using Printer::Printer;
  void input_listed(std::string_view path) override {
    fmt::memory_buffer& buf = out_.buffer();
    if (o_.color) colors::append_colored(buf, path, colors::palette().file_name);  // grep -l --color
    else buf.append(path);
    buf.push_back(o_.after_name('\n'));
    out_.maybe_flush();
  }
};

}  // namespace

std::unique_ptr<Sink> make_count_printer(bool json, SharedPrintOptions options) {
  return std::make_unique<CountPrinter>(json, std::move(options));
}

namespace {
std::unique_ptr<Sink> make_shared_printer(PrintFormat format, const SharedPrintOptions& options) {
  switch (format) {
    case PrintFormat::none: return std::make_unique<Sink>();
    case PrintFormat::count: return make_count_printer(false, options);
    case PrintFormat::count_json: return make_count_printer(true, options);
    case PrintFormat::names: return std::make_unique<NamePrinter>(options);
    case PrintFormat::json:
    case PrintFormat::site_json: return make_json_printer(format, options);
    case PrintFormat::plain:
    case PrintFormat::bed:
    case PrintFormat::tsv:
    case PrintFormat::site_tsv: return make_standard_printer(format, options);
  }
  return std::make_unique<Sink>();
}
}  // namespace

std::unique_ptr<Sink> make_printer(PrintFormat format, PrintOptions options) {
  auto shared = std::make_shared<const PrintOptions>(std::move(options));
  std::unique_ptr<Sink> printer = make_shared_printer(format, shared);
  printer->set_remake([format, shared] { return make_shared_printer(format, shared); });
  return printer;
}

void print_stats(Sink& sink, const SearchSummary& s) {
  sink.flush();
  const SearchTotals& t = s.totals;
  const double rate =
      t.scan_seconds > 0 ? static_cast<double>(t.bytes) * s.work_per_byte / t.scan_seconds / 1e9 : 0;
  const std::string line = fmt::format(
      "warpmatch stats: {} inputs ({} errors), {} bytes searched, {}, {:.6f} s total, {:.6f} s scanning "
      "({:.2f} {}), backend {}, algorithm {}, device {}\n"
      "warpmatch stats: backend choice: {}\n",
      t.inputs, t.errors, t.bytes, s.stats_found, s.seconds, t.scan_seconds, rate, s.rate_unit, s.engine.backend,
      s.engine.algorithm, s.engine.device, s.engine.backend_reason);
  std::fputs(line.c_str(), stderr);
  for (const std::string& more : s.stats_more) std::fprintf(stderr, "warpmatch stats: %s\n", more.c_str());
}

}  // namespace warpmatch::cli
