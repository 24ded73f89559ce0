// fuzz_kernels (fuzz/fuzz_kernels.hpp), approximate search: the Myers kernels (a lane group or
// a thread per chunk, best mode's host side) and the wavefront against the plain DP.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "../../tests/support/approx_emulation.hpp"
#include "../fuzz_kernels.hpp"
#include "../fuzz_ops.hpp"

namespace fuzz_kernels_detail {

using fuzz_ops_detail::disagree;

namespace {

/// The pattern of the approximate kernels: bytes 1's bits choose case folding and IUPAC codes.
approx_emulation::core::ApproxPattern approx_pattern(const KernelInput& in, bool iupac_allowed) {
  approx_emulation::core::ApproxPattern p;
  p.case_insensitive = (in.a & 1) != 0;
  p.iupac = iupac_allowed && (in.a & 2) != 0;
  p.bytes = in.block;
  if (p.case_insensitive)
    for (auto& c : p.bytes) c = warpmatch::core::fold_ascii(c);
  return p;
}

void approx_myers(const KernelInput& in, ApproxKernel kernel) {
  namespace ae = approx_emulation;
  if (in.block.empty() || in.text.empty()) return;
  const auto p = approx_pattern(in, true);
  const auto m = static_cast<std::uint32_t>(p.size());
  const auto n = static_cast<std::uint32_t>(in.text.size());
  const std::uint32_t k = in.b % (m + 1);
  const bool best = (in.a & 4) != 0;
  const std::uint32_t overlap = m + k;  // exact for every end within k (best: within the minimum)
  // Chunks of a few columns put ends on every seam; at most 64 lane groups or 256 threads.
  const std::uint32_t max_units = kernel == ApproxKernel::lanes ? 64 : 256;
  const std::uint32_t chunk = std::max<std::uint32_t>(1 + in.wide() % 600, (n + max_units - 1) / max_units);
  constexpr std::uint32_t kMaxLanes[] = {0, 1, 2, 4, 8, 32};
  const std::uint32_t max_lanes = kMaxLanes[(in.a >> 3) % 6];
  const bool shared = (in.a & 0x40) == 0;
  const auto run = [&](bool best_mode, std::uint32_t limit) {
    return kernel == ApproxKernel::lanes ? ae::emulate_lanes(p, in.text, chunk, overlap, limit, best_mode, max_lanes, shared)
                                        : ae::emulate_threads(p, in.text, chunk, overlap, limit, best_mode);
  };
  const auto want = ae::reference_hits(ae::core::reference_end_distances(p, in.text), k, best);
  if (ae::host_hits(best, k, run) != want)
    disagree(kernel == ApproxKernel::lanes ? "approx: the Myers lane kernel differs from the DP"
                                          : "approx: the Myers thread kernel differs from the DP");
}

void approx_wavefront(const KernelInput& in) {
  namespace ae = approx_emulation;
  if (in.block.empty() || in.text.empty()) return;
  const auto p = approx_pattern(in, false);  // the wavefront compares bytes: no IUPAC classes
  const auto m = static_cast<std::uint32_t>(p.size());
  // A block barrier per anti-diagonal for up to 256 threads: 1 KiB of text keeps an input to
  // milliseconds (the wavefront took 40 % of the time on 4 KiB).
  const Bytes text(in.text.begin(), in.text.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(in.text.size(), 1024)));
  const std::vector<std::uint32_t> want = ae::core::reference_end_distances(p, text);
  const std::uint64_t pieces = 1 + in.c % 64;
  std::uint32_t best = 0;
  if (in.a & 8) {  // overlap 2m: every column's distance, and the minimum
    if (ae::emulate_wavefront(p, text, pieces, 2 * m, &best) != want)
      disagree("approx: the wavefront's distances differ from the DP");
    if (best != *std::min_element(want.begin(), want.end())) disagree("approx: the wavefront's minimum differs");
    return;
  }
  const std::uint32_t k = in.b % (m + 1);
  if (ae::hits_of(ae::emulate_wavefront(p, text, pieces, m + k, &best), k) != ae::hits_of(want, k))
    disagree("approx: the wavefront's ends within k differ from the DP");
}

}  // namespace

void fuzz_approx_kernels(const KernelInput& in, ApproxKernel kernel) {
  if (kernel == ApproxKernel::wavefront) approx_wavefront(in);
  else approx_myers(in, kernel);
}

}  // namespace fuzz_kernels_detail
