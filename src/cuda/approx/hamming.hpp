// CUDA Hamming search (approx --hamming): cuda::approx_scan routes Hamming patterns here.
#pragma once

#include <vector>

#include "core/approx_pattern.hpp"

namespace warpmatch::cuda {

/// For each pattern, the same answer as cpu::hamming_scan(patterns[i], text, queries[i]):
/// every end e >= m whose window has <= k mismatches (best mode: the fewest), ascending.
std::vector<std::vector<core::EndHit>> hamming_scan(const std::vector<core::ApproxPattern>& patterns,
                                                    const std::vector<core::ApproxQuery>& queries,
                                                    ByteSpan text, int device);

}  // namespace warpmatch::cuda
