// CUDA Hamming search (approx --hamming): cuda::approx_scan routes Hamming patterns here.
#pragma once

#include <memory>
#include <vector>

#include "core/approx_pattern.hpp"

namespace warpmatch::cuda {

/// The patterns' match tables on one device, uploaded once (approx_upload), with a pool of
/// per-scan scratches (stream, text and hit buffers) that later scans reuse.
class HammingDevicePatterns;

/// Uploads every pattern's match table to `device` (the caller has made it current).
std::shared_ptr<const HammingDevicePatterns> hamming_upload(const std::vector<core::ApproxPattern>& patterns,
                                                            int device);

/// For each pattern, the same answer as cpu::hamming_scan(patterns[i], text, queries[i]):
/// every end e >= m whose window has <= k mismatches (best mode: the fewest), ascending.
std::vector<std::vector<core::EndHit>> hamming_scan(const HammingDevicePatterns& patterns,
                                                    const std::vector<core::ApproxQuery>& queries,
                                                    ByteSpan text);

}  // namespace warpmatch::cuda
