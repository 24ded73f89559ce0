// Backend-neutral nucleotide rules (see include/warpmatch/sequence.hpp): the base set of each
// IUPAC code, complements, and the one match predicate every backend's tables are built from.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace warpmatch::core {

/// Bit set of bases: A = 1, C = 2, G = 4, T = 8.
constexpr std::uint8_t kBaseA = 1, kBaseC = 2, kBaseG = 4, kBaseT = 8;

/// The bases an uppercase or lowercase IUPAC letter stands for (0 for any other byte);
/// plain bases give their own bit.
constexpr std::uint8_t iupac_bases(std::uint8_t c) {
  switch (c | 0x20) {  // either case
    case 'a': return kBaseA;
    case 'c': return kBaseC;
    case 'g': return kBaseG;
    case 't': return kBaseT;
    case 'r': return kBaseA | kBaseG;
    case 'y': return kBaseC | kBaseT;
    case 's': return kBaseC | kBaseG;
    case 'w': return kBaseA | kBaseT;
    case 'k': return kBaseG | kBaseT;
    case 'm': return kBaseA | kBaseC;
    case 'b': return kBaseC | kBaseG | kBaseT;
    case 'd': return kBaseA | kBaseG | kBaseT;
    case 'h': return kBaseA | kBaseC | kBaseT;
    case 'v': return kBaseA | kBaseC | kBaseG;
    case 'n': return kBaseA | kBaseC | kBaseG | kBaseT;
    default: return 0;
  }
}

/// A degenerate code: stands for more than one base.
constexpr bool is_degenerate(std::uint8_t c) {
  const std::uint8_t b = iupac_bases(c);
  return b != 0 && (b & (b - 1)) != 0;
}

/// The complement of a nucleotide or IUPAC code, case kept; 0 for any other byte.
constexpr std::uint8_t complement(std::uint8_t c) {
  constexpr std::array<char, 16> kLetterOf = {0,   'A', 'C', 'M', 'G', 'R', 'S', 'V',
                                              'T', 'W', 'Y', 'H', 'K', 'D', 'B', 'N'};
  const std::uint8_t b = iupac_bases(c);
  if (b == 0) return 0;
  // Complementing swaps A<->T and C<->G in the set.
  const std::uint8_t cb = static_cast<std::uint8_t>(((b & kBaseA) << 3) | ((b & kBaseT) >> 3) |
                                                    ((b & kBaseC) << 1) | ((b & kBaseG) >> 1));
  const std::uint8_t upper = static_cast<std::uint8_t>(kLetterOf[cb]);
  return (c >= 'a' && c <= 'z') ? static_cast<std::uint8_t>(upper | 0x20) : upper;
}

/// Whether pattern byte `p` matches text byte `t` under the IUPAC rule, both already in the
/// matcher's view (folded to lowercase when case-insensitive, see fold_ascii): the same byte,
/// or `p` a degenerate code and `t` a base of its set in the case the matcher accepts (text
/// bases in uppercase only, unless folded: then lowercase).
constexpr bool iupac_match(std::uint8_t p, std::uint8_t t, bool folded) {
  if (p == t) return true;
  if (!is_degenerate(p)) return false;
  const bool base_case = folded ? (t >= 'a' && t <= 'z') : (t >= 'A' && t <= 'Z');
  const std::uint8_t tb = iupac_bases(t);
  return base_case && (tb == kBaseA || tb == kBaseC || tb == kBaseG || tb == kBaseT) &&
         (tb & iupac_bases(p)) != 0;
}

/// Every plain sequence an IUPAC pattern stands for (each degenerate code replaced by one of
/// its bases or kept as itself, the text N rule), in lexicographic order of choices; appends
/// to `out` and returns false (appending nothing) when there would be more than `limit`.
bool expand_iupac(const std::string& pattern, std::uint64_t limit, std::vector<std::string>& out);

}  // namespace warpmatch::core
