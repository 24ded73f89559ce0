#include "line_options.hpp"

#include <cstdio>

namespace warpmatch::cli {

namespace {
int reject(const char* option, const char* with, const char* why) {
  std::fprintf(stderr, "warpmatch: %s does not go with %s: %s\n", option, with, why);
  return 2;
}
}  // namespace

int LineFlags::reject_conflicts(const SequenceFlags& seq) const {
  const char* option = invert ? "-v (--invert-match)" : lines ? "--lines" : "-n (--line-number)";
  const bool lines = this->lines || invert;
  if (!lines && !line_number) return 0;
  if (seq.bed) return reject(option, "--bed", "BED rows have no line column");
  if (seq.tsv) return reject(option, "--tsv", "TSV rows have no line column");
  if (!lines) return 0;
  if (seq.circular) return reject(option, "--circular", "a hit across the junction lies on two lines");
  if (seq.strand != "+")
    return reject(option, ("--strand " + seq.strand).c_str(), "lines are the forward text's; search --strand +");
  return 0;
}

void LineFlags::apply(SearchPlan& plan, PrintOptions& print) const {
  const bool lines = this->lines || invert;
  plan.line_numbers = line_number && !lines;  // --lines numbers its lines itself
  plan.lines = lines;
  plan.invert = invert;
  print.show_line_number = lines && line_number;
  if (lines) print.count_names_pattern = false;  // -c --lines counts lines, not a pattern's hits
}

void add_line_options(CLI::App* cmd, LineFlags& flags) {
  cmd->add_flag("-n,--line-number", flags.line_number,
                "Prefix each hit (each line with --lines) with its 1-based line number; plain text only");
  cmd->add_flag("--lines", flags.lines,
                "Print each line holding a hit once ([PATH:][LINE:]TEXT, as grep); -c and -m / --max-hits count lines");
  cmd->add_flag("-v,--invert-match", flags.invert,
                "Print the lines holding no hit instead (implies --lines; -c counts them), as grep -v");
}

const char* const kLinesHelp =
    "Lines (-n, --lines; plain text only: an input read as FASTA/FASTQ fails with exit status 2,\n"
    "the others are still searched; --format plain reads it as text): -n adds LINE, the 1-based\n"
    "number of the line holding START (1 + the '\\n' bytes before it), just before START, and\n"
    "\"line\" to JSON matches (grep -n -b -o). --lines prints each line holding a hit's START once,\n"
    "in input order, as grep -F does: [PATH:][LINE:]TEXT, TEXT the line's bytes as they are ('\\r'\n"
    "and other bytes unescaped) without its '\\n', a last line without '\\n' too. -w, -i select\n"
    "the hits first; -c, -m (--max-hits) count lines; -q, -l, -L are unchanged; -n does nothing\n"
    "with -c. --lines --json: {\"type\":\"line\",\"path\",\"line\",\"offset\" (its first byte),\"text\"}\n"
    "per line, invalid UTF-8 bytes in text as \\u00NN. A line spanning windows of a streamed input\n"
    "is kept whole in memory (memory grows with the longest line, as grep's). -v prints the lines\n"
    "holding no hit instead (implies --lines; -c, -m, -q, -l, -L then count or stop at those\n"
    "lines, as grep -v). Neither goes with --bed or --tsv, --lines and -v not with --circular or\n"
    "--strand - / both (exit 2).\n";

}  // namespace warpmatch::cli
