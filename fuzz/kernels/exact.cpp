// fuzz_kernels (fuzz/fuzz_kernels.hpp), exact search: the three filters' passes and the brute
// force against a naive comparison at every start.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "../../tests/support/exact_emulation.hpp"
#include "../fuzz_kernels.hpp"
#include "../fuzz_ops.hpp"

namespace fuzz_kernels_detail {

using fuzz_ops_detail::disagree;

void fuzz_exact_kernels(const KernelInput& in) {
  namespace ex = exact_emulation;
  if (in.block.empty() || in.text.size() < in.block.size()) return;
  const auto pattern = ex::make_pattern(in.block, (in.a & 1) != 0);
  const ex::Starts all = ex::naive(in.text, pattern);
  // The starts the chunk owns: all, a cut anywhere, and those before an occurrence (which
  // still lies in the chunk's buffer) or through it.
  const std::uint64_t starts = in.text.size() - pattern.size() + 1;
  std::vector<std::uint64_t> owned = {starts, 1 + in.wide() % starts};
  if (!all.empty()) {
    const std::uint64_t at = all[in.wide() % all.size()];
    owned.insert(owned.end(), {at, at + 1});
  }
  const unsigned grid = 1 + in.b % 8;
  const unsigned algorithm = (in.a >> 3) % 4;
  for (const std::uint64_t npos : owned) {
    const ex::Starts want(all.begin(), std::lower_bound(all.begin(), all.end(), npos));
    const ex::Starts got = algorithm == 3 ? ex::run_bf(in.text, pattern, grid, npos)
                                          : ex::run_filter(in.text, pattern, ex::kFilters[algorithm], grid, npos);
    if (got != want) disagree(algorithm == 3 ? "exact: the brute-force kernel differs from the naive search"
                                             : "exact: a filter kernel differs from the naive search");
  }
}

}  // namespace fuzz_kernels_detail
