// grep's line output, the same on find and approx: -n (--line-number) numbers each hit's
// line, --lines prints the lines holding a hit instead of the hits, -v (--invert-match) the
// lines holding none, -A / -B / -C the lines around them; -o (--only-matching) prints each
// hit's bytes alone (-b with their offset). The searcher acts on them
// (SearchPlan::line_numbers, SearchPlan::lines), the lines are found by cli/line_index.hpp;
// this file holds the options, their usage errors and their --help paragraph.
#pragma once

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

#include "printer/sink.hpp"
#include "searcher.hpp"
#include "sequence_options.hpp"

namespace warpmatch::cli {

struct LineFlags {
  bool line_number = false;  // -n
  bool lines = false;        // --lines
  bool invert = false;       // -v: implies --lines
  // -A, -B, -C: context lines (imply --lines); -1 not given (-A and -B win over -C).
  std::int64_t after = -1, before = -1, context = -1;
  bool only_matching = false;  // -o: each hit's bytes
  bool byte_offset = false;    // -b: -o prints START too (without -o the hits show it anyway)
  std::string color = "auto";  // --color: auto, always, never
  std::string group_separator = "--";  // --group-separator: the line between context groups
  bool no_group_separator = false;     // --no-group-separator: none

  bool has_context() const { return after >= 0 || before >= 0 || context >= 0; }
  /// Whether lines are printed instead of hits (--lines, -v, context).
  bool prints_lines() const { return lines || invert || has_context(); }
  /// The usage error of -n, --lines or -o with an option that has no lines (--bed, --tsv;
  /// for --lines also --circular and a '-' strand), or of -o with line output: the message
  /// on stderr, returns 2; else 0.
  int reject_conflicts(const SequenceFlags& seq) const;
  /// Sets the plan's line_numbers and lines, and what the printer shows (`json`: JSON lines,
  /// which carry each line's number).
  void apply(SearchPlan& plan, PrintOptions& print, bool json) const;
  /// --color resolved: always, or auto with standard output a terminal, TERM set and not
  /// dumb (as GNU grep decides) and no NO_COLOR in the environment (no-color.org).
  bool colors() const;
};

/// Adds -n, --lines, -v, -A, -B, -C, --group-separator, --no-group-separator, -o, -b and
/// --color to `cmd`.
void add_line_options(CLI::App* cmd, LineFlags& flags);

/// The --help paragraph on -n, --lines, -v, context and -o.
extern const char* const kLinesHelp;

}  // namespace warpmatch::cli
