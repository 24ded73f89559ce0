// Theorem 4 of seed paper 000 (see wavefront_hmm.hpp).
#include "core/wavefront_hmm.hpp"

#include <algorithm>

namespace warpmatch::core {

WavefrontTerms wavefront_terms(std::uint64_t n, std::uint64_t m, std::uint64_t threads,
                               const HmmMachine& machine) {
  // Every term in machine cycles (one unit = one cycle).
  const double nn = static_cast<double>(n), mm = static_cast<double>(m);
  const double p = static_cast<double>(std::max<std::uint64_t>(threads, 1));
  const double w = machine.warp_width, d = machine.multiprocessors;
  const double big_l = machine.global_latency_cycles, small_l = machine.shared_latency_cycles;
  const double cycles_per_ms = machine.clock_mhz * 1e3;
  WavefrontTerms t;
  t.work_ms = ((nn + p) / w + mm * (nn + p) / (d * w)) / cycles_per_ms;
  t.latency_ms = (nn * big_l / p + mm * nn * small_l / p + big_l + mm * small_l) / cycles_per_ms;
  return t;
}

double predict_wavefront_ms(std::uint64_t n, std::uint64_t m, std::uint64_t threads,
                            const HmmMachine& machine) {
  const WavefrontTerms t = wavefront_terms(n, m, threads, machine);
  return t.work_ms + t.latency_ms;
}

}  // namespace warpmatch::core
