// CUDA approximate search of many short patterns (m <= 64) in one pass over the text: the
// host side of src/cuda/approx/short_set.cu, called by cuda::approx_scan (dispatch.cu) for
// sets of short patterns (edit distance and Hamming) instead of one launch per pattern.
#pragma once

#include <memory>
#include <vector>

#include "core/approx_pattern.hpp"

namespace warpmatch::cuda {

/// Whether approx_scan (algorithm myers, the automatic one) runs this set on the set kernel:
/// every pattern 1..64 bytes and the set kernel not switched off (WARPMATCH_APPROX_SHORT_SET=0).
bool short_set_applies(const std::vector<core::ApproxPattern>& patterns);

/// The set on one device (approx_upload): tables planned for a list of queries, uploaded
/// once, and a pool of per-scan scratches that later scans reuse.
class ShortSetDevice;

/// Plans and uploads the set for `queries` (the caller has made `device` current). Requires
/// every pattern 1..64 bytes.
std::shared_ptr<const ShortSetDevice> short_set_upload(const std::vector<core::ApproxPattern>& patterns,
                                                       const std::vector<core::ApproxQuery>& queries, int device);

/// For each pattern i, the same answer as cpu::approx_scan(patterns[i], text, queries[i])
/// (Hamming patterns: cpu::hamming_scan's): ends ascending, best mode only those at the
/// minimum.
std::vector<std::vector<core::EndHit>> short_set_scan(const ShortSetDevice& set,
                                                      const std::vector<core::ApproxQuery>& queries,
                                                      ByteSpan text);

}  // namespace warpmatch::cuda
