// fuzz_kernels (fuzz/fuzz_kernels.hpp), approximate search of a set by its pigeonhole seed
// filter: the filter's kernel, in chunks of a few ends, against the plain DP per pattern.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "../../tests/support/approx_seed_emulation.hpp"
#include "../fuzz_kernels.hpp"
#include "../fuzz_ops.hpp"

namespace fuzz_kernels_detail {

using fuzz_ops_detail::disagree;

void fuzz_approx_seed_kernel(const KernelInput& in) {
  namespace se = approx_seed_emulation;
  const std::vector<std::string> lines = fuzz_ops_detail::lines_of(warpmatch::ByteSpan(in.block), kMaxSetPatterns);
  const bool hamming = (in.a & 1) != 0, folded = (in.a & 4) != 0;
  std::vector<se::core::ApproxPattern> patterns;
  std::vector<se::core::ApproxQuery> queries(lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    se::core::ApproxPattern p;
    p.hamming = hamming;
    p.case_insensitive = folded;
    p.bytes.assign(lines[i].begin(), lines[i].end());
    if (folded)
      for (auto& c : p.bytes) c = warpmatch::core::fold_ascii(c);
    queries[i].k = static_cast<std::uint32_t>((in.c + 7 * i) % (p.size() / 4 + 1));
    patterns.push_back(std::move(p));
  }
  std::vector<std::uint32_t> members(patterns.size());
  std::iota(members.begin(), members.end(), 0u);
  const auto plan = se::core::plan_seeds(patterns, members, queries);
  if (!plan) return;  // the set does not qualify: the set kernel takes it
  // Chunks of a few ends put pieces and windows on every seam; at most 32 chunks an input.
  const auto n = static_cast<std::int64_t>(in.text.size());
  const std::int64_t chunk = std::max<std::int64_t>(1 + in.wide() % 1000, (n + 31) / 32);
  const unsigned grid = 1 + in.b % 4, threads = 32 * (1 + (in.b >> 2) % 4);
  const auto got = se::emulated_seed_scan(*plan, in.text, patterns.size(), chunk, grid, threads);
  for (std::size_t i = 0; i < patterns.size(); ++i)
    if (got[i] != se::core::reference_hits(patterns[i], in.text, queries[i]))
      disagree("approx seed filter: the kernel differs from the DP");
}

}  // namespace fuzz_kernels_detail
