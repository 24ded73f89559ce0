// What `find` and `approx` share for sequence search (issue 14): the --strand / --iupac /
// --circular / --bed / --tsv flags (the BED6 and seqkit-locate TSV printers are in
// cli/printer/standard.cpp), and the junction of a circular record (its tail followed by its
// head) that the searcher searches once the record ends.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "io/text_stream.hpp"
#include "printer/sink.hpp"
#include "searcher.hpp"
#include "warpmatch/sequence.hpp"

namespace warpmatch::cli {

struct SequenceFlags {
  std::string strand = "+";
  bool iupac = false;
  bool circular = false;
  bool bed = false;
  bool tsv = false;

  Strand parsed_strand() const { return parse_strand(strand); }
  /// Whether hits carry a strand worth printing in the plain and JSON formats.
  bool shows_strand() const { return strand != "+"; }
  /// The printer of find and approx for the search `plan` (-q, -l / -L and -c resolved):
  /// nothing with -q, names with -l / -L, counts with -c, else BED, TSV, JSON or plain lines.
  PrintFormat hit_format(const SearchPlan& plan, bool json) const {
    if (plan.quiet) return PrintFormat::none;
    if (plan.list_files != ListFiles::off) return PrintFormat::names;
    if (plan.count) return json ? PrintFormat::count_json : PrintFormat::count;
    if (bed) return PrintFormat::bed;
    if (tsv) return PrintFormat::tsv;
    return json ? PrintFormat::json : PrintFormat::plain;
  }
  /// That printer with `print`'s options, line-buffered with --line-buffered.
  std::unique_ptr<Sink> make_hit_printer(const SearchPlan& plan, bool json, bool line_buffered,
                                         PrintOptions print) const {
    std::unique_ptr<Sink> printer = make_printer(hit_format(plan, json), std::move(print));
    if (line_buffered) printer->set_line_buffered();
    return printer;
  }
};

/// The engine of a search's --stats and JSON summary: the matcher's backend, algorithm and
/// device, and why that backend.
template <class Matcher>
SearchEngine engine_of(const Matcher& matcher, const std::string& backend_reason) {
  return {std::string(backend_name(matcher.backend())), matcher.algorithm(), matcher.device_label(), backend_reason};
}

/// Adds --strand, --iupac, --circular, --bed and --tsv (--bed, --tsv and --json exclude each other).
void add_sequence_options(CLI::App* cmd, SequenceFlags& flags, CLI::Option* json);

/// The --help paragraph on sequence search and the coordinates of every format.
extern const char* const kSequenceHelp;

/// --circular: collects each record's first `reach` bytes and, at its last window, builds the
/// junction text: the record's last min(length, reach) bytes followed by `reach` bytes of its
/// start (the record repeated when shorter). A search of the junction keeps the hits that
/// start in the tail and end in the head: together with the hits inside the record these are
/// the hits of the record followed by its first `reach` bytes that start in the record.
class CircularJunction {
 public:
  explicit CircularJunction(std::uint64_t reach) : reach_(reach) {}
  /// Call with every window, in order; returns true when `w` ends a record of length >= 1,
  /// then text(), tail() and record_length() describe its junction.
  bool add(const io::TextWindow& w);
  ByteSpan text() const { return {junction_.data(), junction_.size()}; }
  std::uint64_t tail() const { return tail_; }            // bytes of the junction before the head
  std::uint64_t record_length() const { return length_; }
  /// A hit [start, end) of the junction text in record coordinates, if it crosses the junction.
  std::optional<std::pair<std::uint64_t, std::uint64_t>> crossing(std::uint64_t start, std::uint64_t end) const {
    if (start >= tail_ || end <= tail_) return std::nullopt;
    const std::uint64_t s = length_ - tail_ + start;
    return std::pair{s, s + (end - start)};
  }

 private:
  std::uint64_t reach_;
  std::vector<std::uint8_t> head_, junction_;
  std::uint64_t tail_ = 0, length_ = 0;
};

}  // namespace warpmatch::cli
