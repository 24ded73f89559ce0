// warpmatch — nucleotide vocabulary shared by exact, multi-pattern and approximate search:
// which strand(s) to search, IUPAC degenerate codes, reverse complements.
//
//   warpmatch::ApproxOptions opt;
//   opt.k = 1;
//   opt.strand = warpmatch::Strand::both;   // also the reverse complement, reported as '-'
//   opt.iupac = true;                       // R matches A or G, N any base, ...
//   auto m = warpmatch::ApproxMatcher::compile(warpmatch::as_bytes("GGNCCR"), opt);
//
// Rules (the same on every backend and operation):
// - IUPAC (`iupac`): a pattern byte that is a degenerate code N R Y S W K M B D H V (either
//   case) matches the text bases A C G T of its set, and the same code itself (so a text N
//   matches only a pattern N). Without case folding only uppercase text bases match a code;
//   with it (`case_insensitive`) lowercase (soft-masked) ones too. Every other pattern byte
//   is literal, as without `iupac`.
// - Strands: `reverse` searches the reverse complement of each pattern, `both` the pattern and
//   then its reverse complement. A minus-strand hit is reported with strand '-' and forward
//   coordinates (start < end), its CIGAR in the forward sequence's direction.
// - With `iupac` or a reverse strand every pattern byte must be a nucleotide or an IUPAC code
//   (A C G T and the codes above, either case); anything else is an InvalidArgument naming the
//   pattern and the byte.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "warpmatch/common.hpp"

namespace warpmatch {

enum class Strand { forward, reverse, both };

/// "+", "-" or "both".
std::string_view strand_name(Strand s);
/// Parses "+", "-" or "both"; throws InvalidArgument otherwise.
Strand parse_strand(std::string_view name);

/// The reverse complement (A<->T, C<->G, IUPAC codes complemented, case kept); throws
/// InvalidArgument naming `what` and the offending byte for any other byte.
std::vector<std::uint8_t> reverse_complement(ByteSpan sequence, std::string_view what = "sequence");

/// True for A C G T and the IUPAC codes N R Y S W K M B D H V, either case.
bool is_nucleotide_code(std::uint8_t c);

}  // namespace warpmatch
