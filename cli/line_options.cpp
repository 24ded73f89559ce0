#include "line_options.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace warpmatch::cli {

namespace {
int reject(const char* option, const char* with, const char* why) {
  std::fprintf(stderr, "warpmatch: %s does not go with %s: %s\n", option, with, why);
  return 2;
}
}  // namespace

int LineFlags::reject_conflicts(const SequenceFlags& seq) const {
  const bool lines = prints_lines();
  const char* line_option = invert ? "-v (--invert-match)"
                            : this->lines ? "--lines"
                            : has_context() ? "-A / -B / -C (context)"
                                            : "-n (--line-number)";
  if (only_matching && lines) return reject("-o (--only-matching)", line_option, "-o prints hits, not lines");
  if (byte_offset && lines) return reject("-b (--byte-offset)", line_option, "lines have no offsets here (-o -b prints each hit's)");
  const char* option = only_matching && !lines ? "-o (--only-matching)" : line_option;
  if (!lines && !line_number && !only_matching) return 0;
  if (seq.bed) return reject(option, "--bed", "BED rows have columns of their own");
  if (seq.tsv) return reject(option, "--tsv", "TSV rows have columns of their own");
  if (!lines) return 0;
  if (seq.circular) return reject(option, "--circular", "a hit across the junction lies on two lines");
  if (seq.strand != "+")
    return reject(option, ("--strand " + seq.strand).c_str(), "lines are the forward text's; search --strand +");
  return 0;
}

void LineFlags::apply(SearchPlan& plan, PrintOptions& print, bool json) const {
  const bool lines = prints_lines();
  plan.line_numbers = line_number && !lines;  // --lines numbers its lines itself
  plan.lines = lines;
  // grep's "binary file matches" where line bytes are printed raw (FileSelectionFlags::apply,
  // called before, cleared it for -a); JSON escapes them.
  plan.hide_binary_lines = plan.hide_binary_lines && lines && !json;
  plan.number_lines = line_number || json || has_context();
  plan.invert = invert;
  const std::int64_t around = std::max<std::int64_t>(context, 0);
  plan.before_context = static_cast<std::uint64_t>(before >= 0 ? before : around);
  plan.after_context = static_cast<std::uint64_t>(after >= 0 ? after : around);
  plan.context = has_context();
  print.show_line_number = lines && line_number;
  print.only_matching = only_matching;
  print.show_byte_offset = only_matching && byte_offset;
  print.color = !json && colors();
  print.group_separator = no_group_separator ? std::nullopt : std::optional<std::string>(group_separator);
  if (lines) print.count_names_pattern = false;  // -c --lines counts lines, not a pattern's hits
}

bool LineFlags::colors() const {
  if (color == "always") return true;
  if (color == "never") return false;
  const char* term = std::getenv("TERM");
  return ::isatty(STDOUT_FILENO) && !std::getenv("NO_COLOR") && term && std::string_view(term) != "dumb";
}

void add_line_options(CLI::App* cmd, LineFlags& flags) {
  cmd->add_flag("-n,--line-number", flags.line_number,
                "Prefix each hit (each line with --lines) with its 1-based line number; plain text only");
  cmd->add_flag("--lines", flags.lines,
                "Print each line holding a hit once ([PATH:][LINE:]TEXT, as grep); -c and -m / --max-hits count lines");
  cmd->add_flag("-v,--invert-match", flags.invert,
                "Print the lines holding no hit instead (implies --lines; -c counts them), as grep -v");
  cmd->add_option("-A,--after-context", flags.after, "Print N lines after each selected line (implies --lines), as grep")
      ->type_name("N")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("-B,--before-context", flags.before, "Print N lines before each selected line (implies --lines), as grep")
      ->type_name("N")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("-C,--context", flags.context, "Print N lines before and after each selected line (implies --lines)")
      ->type_name("N")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--group-separator", flags.group_separator,
                  "The line printed between groups of context lines that do not touch (default --), as grep")
      ->type_name("SEP");
  cmd->add_flag("--no-group-separator", flags.no_group_separator,
                "No line between groups of context lines (grep --no-group-separator)");
  cmd->add_flag("-o,--only-matching", flags.only_matching,
                "Print each hit's bytes alone, raw, one per line ([PATH:][LINE:]MATCH), as grep -o");
  cmd->add_flag("-b,--byte-offset", flags.byte_offset,
                "With -o, START before each MATCH (grep -o -b); the hits show it anyway");
  cmd->add_option("--color,--colour", flags.color,
                  "auto (default: when standard output is a terminal, TERM is set and not dumb, NO_COLOR unset), "
                  "always or never: names, numbers, separators and matched text in grep's colours")
      ->type_name("WHEN")
      ->expected(0, 1)
      ->default_str("auto")
      ->check(CLI::IsMember({"auto", "always", "never"}));
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
    "--strand - / both (exit 2).\n"
    "Context (-A N, -B N, -C N; imply --lines, go with -v and -n): N lines after / before each\n"
    "selected line as grep prints them, [PATH-][LINE-]TEXT, overlapping contexts merged, a \"--\"\n"
    "line between groups that do not touch (between inputs too; none before the first;\n"
    "--group-separator=SEP prints SEP instead, --no-group-separator nothing, as grep). -m N\n"
    "stops after N selected lines and still prints the last one's after-context (the next N\n"
    "lines, selected or not, as GNU grep); -c, -q, -l, -L ignore context. --json: each context\n"
    "line is a {\"type\":\"context\"} object with the fields of a line, no \"--\" objects. -B keeps\n"
    "the last N lines of a streamed input in memory (at most N lines).\n"
    "Only matching (-o): each hit's bytes raw, one per line, [PATH:][LINE:]MATCH (LINE with -n;\n"
    "the RECORD, PATTERN and STRAND prefixes of the hits stay); -b adds START before MATCH, as\n"
    "grep -o -b (-b alone changes nothing: the hits show START anyway). find -o prints the hits\n"
    "grep -o prints: of a record's hits, the leftmost, the longest starting there (the first such\n"
    "pattern), then the same from its end on, so 'aa' in 'aaaa' twice, not three times (the\n"
    "default output prints every occurrence); -m counts these hits (grep -o -m counts lines).\n"
    "approx -o prints every hit. -c, -q, -l, -L and --json are unchanged by -o (every\n"
    "occurrence); -o goes with neither --lines, -v and context nor --bed / --tsv, -b not with\n"
    "line output (exit 2).\n"
    "Colours (--color=WHEN: auto, the default, when standard output is a terminal, TERM is set and\n"
    "not dumb and NO_COLOR is unset; always; never): GNU grep --color=always's bytes, names\n"
    "magenta, line numbers and offsets green, separators cyan, matched text bold red (in a line:\n"
    "the leftmost match, the longest there, and so on after it). Not in JSON, BED or TSV.\n"
    "GREP_COLORS sets them as in grep: fn, ln, bn, se, ms, mc, mt (ms and mc), an empty one for\n"
    "no colour, ne (no \\33[K); sl, cx and rv are not supported (ignored).\n";

}  // namespace warpmatch::cli
