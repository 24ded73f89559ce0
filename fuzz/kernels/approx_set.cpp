// fuzz_kernels (fuzz/fuzz_kernels.hpp), approximate search of a short-pattern set: the set
// kernel (edit distance or Hamming) against the plain DP per pattern.
#include <string>
#include <vector>

#include "../../tests/support/approx_set_emulation.hpp"
#include "../fuzz_kernels.hpp"
#include "../fuzz_ops.hpp"

namespace fuzz_kernels_detail {

using fuzz_ops_detail::disagree;

void fuzz_approx_set_kernel(const KernelInput& in) {
  namespace as = approx_set_emulation;
  const std::vector<std::string> lines = fuzz_ops_detail::lines_of(warpmatch::ByteSpan(in.block), kMaxSetPatterns);
  const bool hamming = (in.a & 1) != 0, iupac = (in.a & 2) != 0, folded = (in.a & 4) != 0;
  std::vector<as::core::ApproxPattern> patterns;
  std::vector<as::core::ApproxQuery> queries;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::size_t m = lines[i].size();
    const auto mode = (in.d >> (i % 7)) & 1 ? as::core::ApproxMode::best : as::core::ApproxMode::all_within_k;
    queries.push_back(as::query(mode, static_cast<std::uint32_t>((in.c + 7 * i) % (m + 1)), m));
    patterns.push_back(as::pattern_of(as::Bytes(lines[i].begin(), lines[i].end()), hamming, iupac, folded));
  }
  if (patterns.empty() || !as::logic::short_set_fits(patterns)) return;
  as::Knobs knobs;
  knobs.tile = 4 + 3u * in.b;
  knobs.min_sub = 4 + in.c % 100;
  knobs.threads = (in.a & 8) ? 32 : 64 + in.c % 100;
  if (in.a & 16) knobs.table_bytes = 64 + 8u * in.b;
  if (in.a & 32) knobs.segment = 200 + 12u * in.c;
  const auto got = as::emulate_set(patterns, queries, in.text, knobs);
  for (std::size_t i = 0; i < patterns.size(); ++i)
    if (got[i] != as::core::reference_hits(patterns[i], in.text, queries[i]))
      disagree("approx set: the short-pattern set kernel differs from the DP");
}

}  // namespace fuzz_kernels_detail
