// grep's line output, the same on find and approx: -n (--line-number) numbers each hit's
// line, --lines prints the lines holding a hit instead of the hits, -v (--invert-match) the
// lines holding none. The searcher acts on them
// (SearchPlan::line_numbers, SearchPlan::lines), the lines are found by cli/line_index.hpp;
// this file holds the options, their usage errors and their --help paragraph.
#pragma once

#include <CLI/CLI.hpp>

#include "printer/sink.hpp"
#include "searcher.hpp"
#include "sequence_options.hpp"

namespace warpmatch::cli {

struct LineFlags {
  bool line_number = false;  // -n
  bool lines = false;        // --lines
  bool invert = false;       // -v: implies --lines

  /// The usage error of -n or --lines with an option that has no lines (--bed, --tsv; for
  /// --lines also --circular and a '-' strand): the message on stderr, returns 2; else 0.
  int reject_conflicts(const SequenceFlags& seq) const;
  /// Sets the plan's line_numbers and lines, and what the printer shows.
  void apply(SearchPlan& plan, PrintOptions& print) const;
};

/// Adds -n, --line-number, --lines and -v, --invert-match to `cmd`.
void add_line_options(CLI::App* cmd, LineFlags& flags);

/// The --help paragraph on -n and --lines.
extern const char* const kLinesHelp;

}  // namespace warpmatch::cli
