// JSON lines: one object per hit, site, distance, MEM or LCS, then (searches) a summary.
#include "json_line.hpp"
#include "printers.hpp"

namespace warpmatch::cli {
namespace {

class JsonPrinter : public Printer {
 public:
  using Printer::Printer;

  void hit(const Hit& h) override {
    JsonLine line(out_.buffer(), "match");
    line.string("path", h.where.path)
        .string_or_null("record", h.where.record)
        .number("pattern", o_.shown_pattern(h.pattern))
        .number("start", h.start)
        .number("end", h.end);
    if (h.line) line.number("line", *h.line);
    if (h.distance) line.number("distance", *h.distance);
    if (o_.show_strand) line.string("strand", std::string_view(&h.strand, 1));
    if (h.distance) line.string("cigar", h.cigar);  // approx lines always carry the alignment
    line.end();
    out_.maybe_flush();
  }

  // --lines: {"type":"line","path","line","offset","text"}, the text a JSON string of the
  // line's bytes (append_json_string: invalid UTF-8 bytes as \u00NN); a context line (-A, -B,
  // -C) is the same object of type "context" (no "--" objects: the numbers show the gaps).
  void line(const SelectedLine& l) override {
    JsonLine(out_.buffer(), l.context ? "context" : "line")
        .string("path", l.path)
        .number("line", l.number)
        .number("offset", l.offset)
        .string("text", std::string_view(reinterpret_cast<const char*>(l.text.data()), l.text.size()))
        .end();
    out_.maybe_flush();
  }

  void summary(const SearchSummary& s) override { append_summary_json(out_.buffer(), s); }

  void distance(const DistanceRow& row) override {
    JsonLine line(out_.buffer(), "distance");
    line.string("a", row.a_name).string("b", row.b_name);
    if (row.result.over_k()) {
      line.literal("distance", "null").literal("over_k", "true").number("k", row.k);
    } else {
      line.number("distance", row.result.distance);
      if (row.alignment) line.string("cigar", row.result.cigar);
    }
    line.end();
    out_.maybe_flush();
  }

  void matrix(const DistanceMatrix& m) override {
    auto names = [](fmt::memory_buffer& buf, const std::vector<std::string>& list) {
      buf.push_back('[');
      for (std::size_t i = 0; i < list.size(); ++i) {
        if (i) buf.push_back(',');
        append_json_string(buf, list[i]);
      }
      buf.push_back(']');
    };
    JsonLine line(out_.buffer(), "matrix");
    names(line.key("a"), m.a_names);
    names(line.key("b"), m.b_names);
    line.number("k", m.k);
    fmt::memory_buffer& buf = line.key("distances");
    buf.push_back('[');
    const std::size_t cols = m.b_names.size();
    for (std::size_t i = 0; i < m.a_names.size(); ++i) {
      buf.append(std::string_view(i ? ",[" : "["));
      for (std::size_t j = 0; j < cols; ++j) {
        const std::int64_t x = m.distances[i * cols + j];
        if (j) buf.push_back(',');
        if (x == kDistanceOverK) buf.append(std::string_view("null"));
        else fmt::format_to(std::back_inserter(buf), "{}", x);
      }
      buf.push_back(']');
      out_.maybe_flush();
    }
    buf.push_back(']');
    line.end();
  }

  void lcs(const LcsResult& r, ByteSpan) override {
    JsonLine line(out_.buffer(), "lcs");
    line.number("length", r.length).number("count", r.count).number("total_pairs", r.total_pairs);
    fmt::memory_buffer& buf = line.key("matches");
    buf.push_back('[');
    for (std::size_t k = 0; k < r.pairs.size(); ++k) {
      fmt::format_to(std::back_inserter(buf), "{}{{\"a\":{},\"b\":{}}}", k ? "," : "", r.pairs[k].a, r.pairs[k].b);
      out_.maybe_flush();
    }
    buf.push_back(']');
    line.end();
  }

  void mems(const MemResult& r) override {
    for (const Mem& x : r.mems) {
      JsonLine(out_.buffer(), "mem").number("a", x.a).number("b", x.b).number("length", x.length).end();
      out_.maybe_flush();
    }
  }

};

/// offtarget: {"type":"site","guide":...,"crRNA":...,"DNA":...} per site.
class SiteJsonPrinter : public Printer {
 public:
  using Printer::Printer;
  void hit(const Hit& h) override {
    const SiteAlignment& s = *h.site;
    JsonLine(out_.buffer(), "site")
        .string("guide", o_.labels.name(h.pattern, h.pattern))
        .string("record", site_record(h.where))
        .number("start", h.start)
        .number("end", h.end)
        .string("strand", std::string_view(&h.strand, 1))
        .number("mismatches", h.distance.value_or(0))
        .string("bulge_type", s.bulge_type)
        .number("bulge_size", s.bulge_size)
        .string("crRNA", s.crrna)
        .string("DNA", s.dna)
        .end();
    out_.maybe_flush();
  }

};

}  // namespace

std::unique_ptr<Sink> make_json_printer(PrintFormat format, SharedPrintOptions options) {
  if (format == PrintFormat::site_json) return std::make_unique<SiteJsonPrinter>(std::move(options));
  return std::make_unique<JsonPrinter>(std::move(options));
}

void append_summary_json(fmt::memory_buffer& out, const SearchSummary& s) {
  JsonLine line(out, "summary");
  line.number("inputs", s.totals.inputs)
      .number("errors", s.totals.errors)
      .number("bytes_searched", s.totals.bytes)
      .number("matches", s.totals.matches);
  for (const auto& [key, value] : s.json_job) line.literal(key, value);
  line.fixed6("seconds", s.seconds)
      .fixed6("scan_seconds", s.totals.scan_seconds)
      .string("backend", s.engine.backend)
      .string("algorithm", s.engine.algorithm)
      .string("device", s.engine.device);
  for (const auto& [key, value] : s.json_compile) line.literal(key, value);
  line.end();
}

}  // namespace warpmatch::cli
