// The public nucleotide helpers of warpmatch/sequence.hpp.
#include "warpmatch/sequence.hpp"

#include <fmt/format.h>

#include "core/nucleotide.hpp"

namespace warpmatch {

std::string_view strand_name(Strand s) {
  switch (s) {
    case Strand::forward: return "+";
    case Strand::reverse: return "-";
    case Strand::both: return "both";
  }
  return "?";
}

Strand parse_strand(std::string_view name) {
  if (name == "+") return Strand::forward;
  if (name == "-") return Strand::reverse;
  if (name == "both") return Strand::both;
  throw InvalidArgument("unknown strand '" + std::string(name) + "' (expected +, - or both)");
}

bool is_nucleotide_code(std::uint8_t c) { return core::iupac_bases(c) != 0; }

std::vector<std::uint8_t> reverse_complement(ByteSpan sequence, std::string_view what) {
  std::vector<std::uint8_t> out(sequence.size());
  for (std::size_t i = 0; i < sequence.size(); ++i) {
    const std::uint8_t c = sequence[sequence.size() - 1 - i];
    const std::uint8_t rc = core::complement(c);
    if (rc == 0)
      throw InvalidArgument(fmt::format(
          "{}: byte {} ({}) at offset {} is not a nucleotide or IUPAC code (A C G T N R Y S W K M B D H V)",
          what, c >= 0x21 && c < 0x7f ? fmt::format("'{}'", static_cast<char>(c)) : fmt::format("0x{:02x}", c),
          static_cast<int>(c), sequence.size() - 1 - i));
    out[i] = rc;
  }
  return out;
}

namespace core {

bool expand_iupac(const std::string& pattern, std::uint64_t limit, std::vector<std::string>& out) {
  // The choices at each position: a degenerate code's bases (in its case: uppercase bases
  // for either case, the rule of iupac_match) and the code itself.
  std::vector<std::string> choices;
  std::uint64_t total = 1;
  for (const char c : pattern) {
    std::string options;
    const auto u = static_cast<std::uint8_t>(c);
    if (is_degenerate(u)) {
      const std::uint8_t bases = iupac_bases(u);
      for (const char b : {'A', 'C', 'G', 'T'})
        if (bases & iupac_bases(static_cast<std::uint8_t>(b))) options.push_back(b);
    }
    options.push_back(c);
    total *= options.size();
    if (total > limit) return false;
    choices.push_back(std::move(options));
  }
  const std::size_t first = out.size();
  out.resize(first + total);
  for (std::uint64_t v = 0; v < total; ++v) {
    std::string& s = out[first + v];
    s.resize(pattern.size());
    std::uint64_t rest = v;
    for (std::size_t i = pattern.size(); i-- > 0;) {
      s[i] = choices[i][rest % choices[i].size()];
      rest /= choices[i].size();
    }
  }
  return true;
}

}  // namespace core
}  // namespace warpmatch
