#include "word_match.hpp"

#include <cstdio>

namespace warpmatch::cli {

void add_word_option(CLI::App* cmd, bool& word) {
  cmd->add_flag("-w,--word-regexp", word,
                "Only whole words: a hit counts when the byte before it and the byte after it are not "
                "letters, digits or '_' (or are outside its record), as grep -w");
}

void add_line_regexp_option(CLI::App* cmd, bool& line) {
  cmd->add_flag("-x,--line-regexp", line,
                "Only whole lines: a hit counts when the byte before it and the byte after it are line "
                "breaks (or are outside its record), as grep -x; wins over -w");
}

int reject_word_with(const char* option, const char* why) {
  std::fprintf(stderr, "warpmatch: -w (--word-regexp) does not go with %s: %s\n", option, why);
  return 2;
}

const char* const kWordHelp =
    "Words (-w, as grep -w in the C locale): a hit [START, END) counts only when the byte before\n"
    "START and the byte at END are not word bytes (ASCII letters, digits, '_'); the start and the\n"
    "end of a record (a FASTA/FASTQ record, a plain input) count as non-word bytes, line breaks\n"
    "inside a FASTA/FASTQ sequence are not part of it. Only the bytes outside the hit are\n"
    "tested: a pattern may itself start or end with a non-word byte ('-x' in 'a-x' is not a word,\n"
    "in 'a -x' it is). Every hit that passes is reported, overlapping ones too (find -o picks\n"
    "among them as grep -o does), '-' strand hits at their forward coordinates; -c, -m, -q, -l and -L count\n"
    "only the hits that pass (-c -w finds each hit to test it: no faster count-only scan).\n"
    "approx tests the START it reports (the largest start at the hit's distance); -w does not\n"
    "go with --circular, nor with approx --best or --best-per-cluster (exit 2).\n";

const char* const kLineRegexpHelp =
    "Whole lines (-x, as grep -x): a hit [START, END) counts only when the byte before START and\n"
    "the byte at END are line breaks ('\\n'), so the line (without its '\\n') equals the pattern\n"
    "(-i: but for ASCII case); the start and the end of a record count as line breaks, so in a\n"
    "FASTA/FASTQ record (whose sequence has no line breaks) a hit is the whole sequence. A '\\r'\n"
    "before '\\n' is part of the line, as in grep. -x wins over -w, goes with -c, -v, --lines,\n"
    "-n, -o, context and the other selections as -w does, and not with --circular (exit 2).\n";

}  // namespace warpmatch::cli
