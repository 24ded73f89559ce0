// CPU backend of approximate search. Never includes CUDA code.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "core/approx_pattern.hpp"

namespace warpmatch::cpu {

enum class ApproxAlgorithm {
  myers,  // bit-parallel (Myers 1999 / Hyyro) on 64-bit words, Ukkonen's cutoff, all threads
  dp,     // reference: the plain O(mn) DP, one thread
};

/// Every end (1..n, ascending) with dist <= query.k, or the best ends (query.mode == best).
/// Hamming patterns and patterns of <= 64 bytes take the shared pass (approx_set_cpu.hpp);
/// longer ones the blocked Myers below.
/// threads <= 0 means all hardware threads. pattern.size() >= 1 (checked by the caller).
/// `bytes_done`, if given, grows by each chunk's owned bytes as it finishes (text.size() in all).
std::vector<core::EndHit> approx_scan(const core::ApproxPattern& pattern, ByteSpan text,
                                      const core::ApproxQuery& query, ApproxAlgorithm algorithm,
                                      int threads, std::atomic<std::uint64_t>* bytes_done = nullptr);

}  // namespace warpmatch::cpu
