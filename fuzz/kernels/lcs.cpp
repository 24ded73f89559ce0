// fuzz_kernels (fuzz/fuzz_kernels.hpp), longest common substring: the suffix-array path's and
// the diagonal path's kernels against the CPU "dp".
#include <cstdint>

#include "../../tests/support/lcs_emulation.hpp"
#include "warpmatch/lcs.hpp"
#include "../fuzz_kernels.hpp"
#include "../fuzz_ops.hpp"

namespace fuzz_kernels_detail {

using fuzz_ops_detail::disagree;

void fuzz_lcs_kernels(const KernelInput& in) {
  namespace le = lcs_emulation;
  const Bytes& a = in.block;
  const Bytes& b = in.text;
  if (a.empty() || b.empty()) return;
  warpmatch::LcsOptions o;
  o.backend = warpmatch::Backend::cpu;
  o.algorithm = "dp";
  o.max_matches = ~0ull;
  const warpmatch::LcsResult want = warpmatch::longest_common_substring(a, b, o);
  warpmatch::LcsResult got;
  if (in.a & 1) {
    got = le::emulated_diagonal(a, b);
  } else {
    // PLCP chunks of a few positions (many threads on short inputs); a small budget may run out,
    // which sends the dispatch to the diagonal path: nothing to compare then.
    const std::int64_t chunk = (in.b & 0x80) ? le::lt::kPlcpChunk : 1 + in.b % 64;
    const std::int64_t budget = (in.a & 2) ? 1 + in.wide() : le::lt::kPlcpBudget;
    const auto scanned = le::emulated_suffix_array_scan(a, b, chunk, budget);
    if (!scanned) {
      if (budget == le::lt::kPlcpBudget) disagree("lcs: the PLCP budget ran out on a short input");
      return;
    }
    got = *scanned;
  }
  if (got.length != want.length || got.count != want.count || got.total_pairs != want.total_pairs ||
      got.pairs != want.pairs)
    disagree((in.a & 1) ? "lcs: the diagonal kernels differ from dp" : "lcs: the suffix-array kernels differ from dp");
}

}  // namespace fuzz_kernels_detail
