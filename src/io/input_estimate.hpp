// What the cost model (warpmatch/cost_model.hpp) needs to know of an input before it is read:
// its bytes to search (compressed inputs: an assumed ratio) and what bounds their rate (a
// pipe, FASTA parsing, one decompression stream or several). The command line's `--backend
// auto` and the Python API's file searches estimate the same way.
#pragma once

#include <cstdint>
#include <string>

#include "warpmatch/common.hpp"
#include "warpmatch/cost_model.hpp"

namespace warpmatch::io {

struct InputEstimate {
  std::uint64_t bytes = 0;  // 0 = unknown (a pipe)
  TextSource source = TextSource::memory;
};

/// A path ("-" = standard input): its size and first bytes. Only regular files are opened
/// (opening a FIFO would wait for its writer, and take the search's first bytes).
InputEstimate estimate_input(const std::string& path, int threads);
/// A whole file's content in memory (compressed or not).
InputEstimate estimate_input(ByteSpan content, int threads);

}  // namespace warpmatch::io
