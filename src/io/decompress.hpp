// Decompressing byte sources, detected by content: gzip (ISA-L's igzip, streaming, members
// one after another), BGZF (the bioinformatics blocked gzip of `bgzip`: independent blocks
// decoded in parallel, also with ISA-L), zstd (libzstd: frames one after another, decoded on
// a thread of its own into a small ring; in memory, files of many small frames — pzstd's —
// decoded frame-parallel). Each reads its compressed input through a bounded buffer (or
// straight from a mapped file) and reports corrupt or truncated data with the input's name
// and the compressed byte offset.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "io/byte_source.hpp"

namespace warpmatch::io {

enum class Compression { none, gzip, bgzf, zstd };
std::string_view compression_name(Compression c);

/// What the first bytes of an input say (at least 18 bytes for BGZF to be recognised; zstd also
/// when they are a skippable frame's, as pzstd's files start).
Compression detect_compression(ByteSpan head);

/// Wraps `raw` (named `name` in messages) in the decoder for `kind`; `threads` decode BGZF
/// blocks or small zstd frames in parallel (0 = all cores). `none` returns `raw` itself.
std::unique_ptr<ByteSource> decompressing_source(std::string name, Compression kind,
                                                 std::unique_ptr<ByteSource> raw, int threads = 0);

}  // namespace warpmatch::io
