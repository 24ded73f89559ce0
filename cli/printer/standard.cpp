// Text printers: the grep-like lines of find and approx, BED6, seqkit locate's TSV,
// offtarget's Cas-OFFinder-like TSV, and the text forms of distance and lcs.
#include <vector>

#include "core/nucleotide.hpp"
#include "printers.hpp"

namespace warpmatch::cli {
namespace {

using Out = fmt::memory_buffer;

// Substrings longer than this are shown cut, with their length (the positions are exact).
constexpr std::size_t kShownLcsBytes = 120;

void append_raw(Out& buf, ByteSpan bytes) {
  buf.append(reinterpret_cast<const char*>(bytes.data()), reinterpret_cast<const char*>(bytes.data() + bytes.size()));
}

/// `field` and its mark (':' or grep's '-' of context lines), without fmt's format parsing:
/// a line or hit is a few of these, and grep-like output prints millions of them.
void append_field(Out& buf, std::string_view field, char mark = ':') {
  buf.append(field.data(), field.data() + field.size());
  buf.push_back(mark);
}
void append_field(Out& buf, std::uint64_t number, char mark = ':') {
  const fmt::format_int digits(number);
  buf.append(digits.data(), digits.data() + digits.size());
  buf.push_back(mark);
}

using namespace colors;

/// BED and TSV name a hit's sequence by its record, or by the input for plain text.
std::string_view chrom_of(const Location& where) { return where.record ? *where.record : where.path; }

/// [PATH:][RECORD:][PATTERN:][STRAND:][LINE:]START:MATCH (find) or
/// [LINE:]START:END:DISTANCE[:CIGAR]:MATCH (approx); -o: [...][LINE:][START:]MATCH, the bytes
/// raw (as grep -o [-b]); --lines: [PATH:][LINE:]TEXT, the line's bytes raw (as grep), a
/// context line [PATH-][LINE-]TEXT and "--" between groups; distance's and lcs's
/// tab-separated lines.
class StandardPrinter : public Printer {
 public:
  using Printer::Printer;

  void line(const SelectedLine& l) override {
    Out& buf = out_.buffer();
    const char mark = l.context ? '-' : ':';  // grep's marks of context and selected lines
    if (!o_.color) {
      if (o_.show_path) append_field(buf, l.path, o_.after_name(mark));
      if (o_.show_line_number) append_field(buf, l.number, mark);
      append_raw(buf, l.text);
    } else {
      const Palette& c = palette();
      if (o_.show_path) colored_field(buf, l.path, c.file_name, o_.after_name(mark));
      if (o_.show_line_number) colored_field(buf, fmt::format_int(l.number).c_str(), c.line_number, mark);
      colored_line(buf, l.text, l.context ? c.context_match : c.selected_match);
    }
    buf.push_back('\n');
    out_.maybe_flush();
  }

  void group_break() override {
    if (!o_.group_separator) return;  // --no-group-separator
    if (o_.color) colored(out_.buffer(), *o_.group_separator, palette().separator);
    else out_.buffer().append(*o_.group_separator);
    out_.buffer().push_back('\n');
    out_.maybe_flush();
  }

  void hit(const Hit& h) override {
    Out& buf = out_.buffer();
    if (o_.color) return colored_hit(buf, h);
    if (o_.show_path) append_field(buf, h.where.path, o_.after_name(':'));
    if (h.where.record) append_field(buf, *h.where.record);
    if (o_.show_pattern) append_field(buf, o_.shown_pattern(h.pattern));
    if (o_.show_strand) append_field(buf, std::string_view(&h.strand, 1));
    if (h.line) append_field(buf, *h.line);
    if (o_.only_matching) {
      if (o_.show_byte_offset) append_field(buf, h.start);
      append_raw(buf, h.matched);
    } else {
      if (h.distance) {
        fmt::format_to(std::back_inserter(buf), "{}:{}:{}:", h.start, h.end, *h.distance);
        if (o_.show_cigar) fmt::format_to(std::back_inserter(buf), "{}:", h.cigar);
      } else {
        append_field(buf, h.start);
      }
      append_escaped_text(buf, h.matched);
    }
    buf.push_back('\n');
    out_.maybe_flush();
  }

  // --color: text in a colour, closed; a field in one (or none: sgr empty), then its mark.
  static void colored(Out& buf, std::string_view text, std::string_view sgr) { append_colored(buf, text, sgr); }
  static void colored_field(Out& buf, std::string_view text, std::string_view sgr, char mark = ':') {
    colored(buf, text, sgr);
    if (mark == '\0') buf.push_back(mark);  // -Z's NUL after a name: uncoloured, as grep
    else colored(buf, std::string_view(&mark, 1), palette().separator);
  }
  // A line's bytes with the spans o_.match_spans finds in it highlighted in `sgr` (grep's
  // selected lines; with -v its context lines, the others having none).
  void colored_line(Out& buf, ByteSpan text, std::string_view sgr) {
    spans_.clear();
    if (o_.match_spans) o_.match_spans(text, spans_);
    std::size_t at = 0;
    for (const auto& [begin, end] : spans_) {
      append_raw(buf, text.subspan(at, begin - at));
      colored(buf, std::string_view(reinterpret_cast<const char*>(text.data() + begin), end - begin), sgr);
      at = end;
    }
    append_raw(buf, text.subspan(at));
  }
  // hit() in colour: names magenta, numbers green, the matched bytes bold red.
  void colored_hit(Out& buf, const Hit& h) {
    const Palette& c = palette();
    const auto number = [&](std::uint64_t n, const std::string& sgr) {
      colored_field(buf, fmt::format_int(n).c_str(), sgr);
    };
    if (o_.show_path) colored_field(buf, h.where.path, c.file_name, o_.after_name(':'));
    if (h.where.record) colored_field(buf, *h.where.record, {});
    if (o_.show_pattern) colored_field(buf, fmt::format_int(o_.shown_pattern(h.pattern)).c_str(), {});
    if (o_.show_strand) colored_field(buf, std::string_view(&h.strand, 1), {});
    if (h.line) number(*h.line, c.line_number);
    const bool highlight = !c.selected_match.empty();
    if (o_.only_matching) {
      if (o_.show_byte_offset) number(h.start, c.byte_offset);
      if (highlight) buf.append(c.selected_match);
      append_raw(buf, h.matched);
    } else {
      number(h.start, c.byte_offset);
      if (h.distance) {
        number(h.end, c.byte_offset);
        number(*h.distance, c.byte_offset);
        if (o_.show_cigar) colored_field(buf, h.cigar, {});
      }
      if (highlight) buf.append(c.selected_match);
      append_escaped_text(buf, h.matched);
    }
    if (highlight) buf.append(c.end);
    buf.push_back('\n');
    out_.maybe_flush();
  }

  void distance(const DistanceRow& row) override {
    Out& buf = out_.buffer();
    if (row.with_names) fmt::format_to(std::back_inserter(buf), "{}\t{}\t", row.a_name, row.b_name);
    if (row.result.over_k()) fmt::format_to(std::back_inserter(buf), "over {}\n", row.k);
    else if (row.alignment) fmt::format_to(std::back_inserter(buf), "{}\t{}\n", row.result.distance, row.result.cigar);
    else fmt::format_to(std::back_inserter(buf), "{}\n", row.result.distance);
    out_.maybe_flush();
  }

  // A header of TAB + B's names, then per record of A its name and a distance per column.
  void matrix(const DistanceMatrix& m) override {
    Out& buf = out_.buffer();
    const std::size_t cols = m.b_names.size();
    for (const std::string& name : m.b_names) fmt::format_to(std::back_inserter(buf), "\t{}", name);
    buf.push_back('\n');
    for (std::size_t i = 0; i < m.a_names.size(); ++i) {
      buf.append(m.a_names[i]);
      for (std::size_t j = 0; j < cols; ++j) {
        const std::int64_t x = m.distances[i * cols + j];
        if (x == kDistanceOverK) buf.append(std::string_view("\tNA"));
        else fmt::format_to(std::back_inserter(buf), "\t{}", x);
      }
      buf.push_back('\n');
      out_.maybe_flush();
    }
  }

  void lcs(const LcsResult& r, ByteSpan a) override {
    Out& buf = out_.buffer();
    fmt::format_to(std::back_inserter(buf), "length {}, {} distinct common substring{}, {} occurrence pair{}\n",
                   r.length, r.count, r.count == 1 ? "" : "s", r.total_pairs, r.total_pairs == 1 ? "" : "s");
    for (const LcsPair& p : r.pairs) {
      fmt::format_to(std::back_inserter(buf), "{}\t{}\t", p.a, p.b);
      const std::size_t shown = static_cast<std::size_t>(std::min<std::uint64_t>(r.length, kShownLcsBytes));
      append_escaped_text(buf, a.subspan(static_cast<std::size_t>(p.a), shown));
      if (shown < r.length) fmt::format_to(std::back_inserter(buf), "...");
      buf.push_back('\n');
      out_.maybe_flush();
    }
    if (r.total_pairs > r.pairs.size())
      fmt::format_to(std::back_inserter(buf), "# {} more pairs not shown (--max-matches)\n",
                     r.total_pairs - r.pairs.size());
  }

  void mems(const MemResult& r) override {
    Out& buf = out_.buffer();
    for (const Mem& x : r.mems) {
      fmt::format_to(std::back_inserter(buf), "{}\t{}\t{}\n", x.a, x.b, x.length);
      out_.maybe_flush();
    }
    if (r.total > r.mems.size())
      fmt::format_to(std::back_inserter(buf), "# {} more MEMs not shown (--max-matches)\n", r.total - r.mems.size());
  }


 private:
  std::vector<std::pair<std::size_t, std::size_t>> spans_;  // colored_line's, reused
};

/// BED6: chrom, start, end, name, score (the distance; 0 for exact search), strand.
class BedPrinter : public Printer {
 public:
  using Printer::Printer;
  void hit(const Hit& h) override {
    fmt::format_to(std::back_inserter(out_.buffer()), "{}\t{}\t{}\t{}\t{}\t{}\n", chrom_of(h.where), h.start, h.end,
                   o_.labels.name(h.pattern, o_.shown_pattern(h.pattern)), h.distance.value_or(0), h.strand);
    out_.maybe_flush();
  }

};

/// seqkit locate's columns: seqID patternName pattern strand start(1-based) end matched (the
/// matched sequence as read on the hit's strand, so a '-' hit prints its reverse complement).
class TsvPrinter : public Printer {
 public:
  using Printer::Printer;
  void begin() override {
    out_.buffer().append(std::string_view("seqID\tpatternName\tpattern\tstrand\tstart\tend\tmatched\n"));
  }
  void hit(const Hit& h) override {
    Out& buf = out_.buffer();
    fmt::format_to(std::back_inserter(buf), "{}\t{}\t", chrom_of(h.where),
                   o_.labels.name(h.pattern, o_.shown_pattern(h.pattern)));
    if (h.pattern < o_.labels.texts.size()) append_escaped_text(buf, as_bytes(o_.labels.texts[h.pattern]));
    fmt::format_to(std::back_inserter(buf), "\t{}\t{}\t{}\t", h.strand, h.start + 1, h.end);
    if (h.strand == '-') {
      std::vector<std::uint8_t> read(h.matched.rbegin(), h.matched.rend());
      for (auto& c : read)
        if (const std::uint8_t rc = core::complement(c)) c = rc;  // other text bytes (X, -) stay
      append_escaped_text(buf, read);
    } else {
      append_escaped_text(buf, h.matched);
    }
    buf.push_back('\n');
    out_.maybe_flush();
  }

};

/// offtarget: guide, bulge_type, crRNA, DNA, record, start, end, strand, mismatches, bulge_size.
class SiteTsvPrinter : public Printer {
 public:
  using Printer::Printer;
  void begin() override {
    out_.buffer().append(
        std::string_view("guide\tbulge_type\tcrRNA\tDNA\trecord\tstart\tend\tstrand\tmismatches\tbulge_size\n"));
  }
  void hit(const Hit& h) override {
    const SiteAlignment& s = *h.site;
    fmt::format_to(std::back_inserter(out_.buffer()), "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
                   o_.labels.name(h.pattern, h.pattern), s.bulge_type, s.crrna, s.dna, site_record(h.where), h.start,
                   h.end, h.strand, h.distance.value_or(0), s.bulge_size);
    out_.maybe_flush();
  }

};

}  // namespace

std::unique_ptr<Sink> make_standard_printer(PrintFormat format, SharedPrintOptions options) {
  switch (format) {
    case PrintFormat::bed: return std::make_unique<BedPrinter>(std::move(options));
    case PrintFormat::tsv: return std::make_unique<TsvPrinter>(std::move(options));
    case PrintFormat::site_tsv: return std::make_unique<SiteTsvPrinter>(std::move(options));
    default: return std::make_unique<StandardPrinter>(std::move(options));
  }
}

}  // namespace warpmatch::cli
