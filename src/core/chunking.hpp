// Splitting a text into chunks that overlap by (pattern length - 1) so that every occurrence
// is found exactly once: a chunk owns the start positions [begin, owned_end) and reads the
// bytes [begin, read_end) with read_end = min(n, owned_end + overlap).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace warpmatch::core {

struct Chunk {
  std::uint64_t begin = 0;      // first owned start position (and first byte read)
  std::uint64_t owned_end = 0;  // one past the last owned start position
  std::uint64_t read_end = 0;   // one past the last byte the chunk needs
};

/// Chunks of `chunk_bytes` owned positions each (the last may be shorter); none for n == 0.
inline std::vector<Chunk> plan_chunks(std::uint64_t n, std::uint64_t chunk_bytes,
                                      std::uint64_t overlap) {
  std::vector<Chunk> chunks;
  if (chunk_bytes == 0) chunk_bytes = 1;
  for (std::uint64_t b = 0; b < n; b += chunk_bytes) {
    const std::uint64_t e = std::min(n, b + chunk_bytes);
    chunks.push_back({b, e, std::min(n, e + overlap)});
  }
  return chunks;
}

}  // namespace warpmatch::core
