// grep's -w (--word-regexp), the same on find and approx: a hit counts only when it is not
// part of a longer word, that is when the byte before its start and the byte at its end are
// not word bytes (or are outside its record). The searcher applies it (SearchPlan::word,
// cli/searcher.hpp) to every hit a window owns, with the bytes on either side carried across
// windows; this file holds the definition of a word byte, the option and its --help paragraph.
#pragma once

#include <cstdint>

#include <CLI/CLI.hpp>

namespace warpmatch::cli {

/// A byte of a word, as grep -w in the C locale: an ASCII letter, digit or '_'. Every other
/// byte (punctuation, space, line breaks, bytes >= 0x80) and a record's start and end bound
/// a word.
constexpr bool is_word_byte(std::uint8_t b) {
  return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') || b == '_';
}

/// Adds -w, --word-regexp to `cmd`.
void add_word_option(CLI::App* cmd, bool& word);

/// The usage error of -w with an option it does not go with (exit 2): "warpmatch: -w
/// (--word-regexp) does not go with OPTION: WHY" on stderr; returns 2.
int reject_word_with(const char* option, const char* why);

/// The --help paragraph on -w.
extern const char* const kWordHelp;

}  // namespace warpmatch::cli
