// Seed paper 000's cost model (Theorem 4) for its wavefront algorithm on the GPU, in the
// paper's hierarchical memory machine (HMM):
//   T = (n+p)/w + m(n+p)/(d w) + n L / p + m n l / p + L + m l   (in cycles of the machine),
// with d multiprocessors, w warp width, L / l global / shared latency, p threads. The
// approximate-search benchmark fits it to its measurements; a test checks the paper's trends.
#pragma once

#include <cstdint>

namespace warpmatch::core {

/// The machine figures of the model (defaults: an H100 SXM's).
struct HmmMachine {
  int multiprocessors = 132;            // d
  int warp_width = 32;                  // w
  double global_latency_cycles = 600;   // L
  double shared_latency_cycles = 30;    // l
  double clock_mhz = 1980;
};

/// Theorem 4's two groups of terms in milliseconds at one unit per cycle: the work terms
/// (n+p)/w + m(n+p)/(dw) and the latency terms nL/p + mnl/p + L + ml; their sum is
/// predict_wavefront_ms(). The benchmark fits one factor per group to its measurements (a real
/// cell update takes more than one cycle), which turns the model into a calibrated predictor.
struct WavefrontTerms {
  double work_ms = 0;
  double latency_ms = 0;
};
WavefrontTerms wavefront_terms(std::uint64_t n, std::uint64_t m, std::uint64_t threads,
                               const HmmMachine& machine = {});

/// The predicted milliseconds of a text of n bytes, a pattern of m, p = `threads`.
double predict_wavefront_ms(std::uint64_t n, std::uint64_t m, std::uint64_t threads,
                            const HmmMachine& machine = {});

}  // namespace warpmatch::core
