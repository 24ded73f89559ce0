// grep's -w (--word-regexp), the same on find and approx, and find's -x (--line-regexp): a
// hit counts only when it is not part of a longer word (-w: the byte before its start and the
// byte at its end are not word bytes) or when it is a whole line (-x: both are line breaks),
// the outside of its record counting as such a byte. The searcher applies them
// (SearchPlan::bounds, cli/searcher.hpp) to every hit a window owns, with the bytes on either
// side carried across windows; this file holds what bounds a hit, the options and their
// --help paragraphs.
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

/// What must stand on both sides of a hit for it to count (outside its record counts too).
enum class HitBounds {
  none,
  words,  // -w: bytes that are not word bytes
  lines,  // -x: line breaks ('\n'), so the hit is a whole line
};

/// Whether byte `b` may stand beside a hit under `bounds` (not for HitBounds::none).
constexpr bool bounds_hit(HitBounds bounds, std::uint8_t b) {
  return bounds == HitBounds::lines ? b == '\n' : !is_word_byte(b);
}

/// -x wins over -w (grep: -w "has no effect if -x is also specified").
constexpr HitBounds hit_bounds(bool word, bool line) {
  return line ? HitBounds::lines : word ? HitBounds::words : HitBounds::none;
}

/// Adds -w, --word-regexp to `cmd`.
void add_word_option(CLI::App* cmd, bool& word);
/// Adds -x, --line-regexp to `cmd` (find: a literal hit that is a whole line).
void add_line_regexp_option(CLI::App* cmd, bool& line);

/// The usage error of -w with an option it does not go with (exit 2): "warpmatch: -w
/// (--word-regexp) does not go with OPTION: WHY" on stderr; returns 2.
int reject_word_with(const char* option, const char* why);

/// The --help paragraph on -w.
extern const char* const kWordHelp;
/// The --help paragraph on -x.
extern const char* const kLineRegexpHelp;

}  // namespace warpmatch::cli
