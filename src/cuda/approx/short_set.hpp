// CUDA approximate search of many short patterns (m <= 64) in one pass over the text: the
// host side of src/cuda/approx/short_set.cu, called by cuda::approx_scan (dispatch.cu) for
// sets of short patterns (edit distance and Hamming) instead of one launch per pattern.
#pragma once

#include <vector>

#include "core/approx_pattern.hpp"

namespace warpmatch::cuda {

/// Whether approx_scan (algorithm myers, the automatic one) runs this set on the set kernel:
/// every pattern 1..64 bytes and the set kernel not switched off (WARPMATCH_APPROX_SHORT_SET=0).
bool short_set_applies(const std::vector<core::ApproxPattern>& patterns);

/// For each pattern i, the same answer as cpu::approx_scan(patterns[i], text, queries[i])
/// (Hamming patterns: cpu::hamming_scan's): ends ascending, best mode only those at the
/// minimum. Requires short_set_applies(patterns).
std::vector<std::vector<core::EndHit>> short_set_scan(const std::vector<core::ApproxPattern>& patterns,
                                                      const std::vector<core::ApproxQuery>& queries,
                                                      ByteSpan text, int device);

}  // namespace warpmatch::cuda
