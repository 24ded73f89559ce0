// Decompressing byte sources, detected by content: gzip (ISA-L's igzip, streaming, members
// one after another; in a mapped file, a member of kParallelGzipMin bytes or more decoded on
// all cores by parallel_inflate.hpp's chunks when there are kParallelGzipMinThreads), BGZF (the bioinformatics blocked gzip of `bgzip`: independent blocks
// decoded in parallel, also with ISA-L), zstd (libzstd: frames one after another, decoded on
// a thread of its own into a small ring; in memory, files of many small frames — pzstd's —
// decoded frame-parallel). Each reads its compressed input through a bounded buffer (or
// straight from a mapped file) and reports corrupt or truncated data with the input's name
// and the compressed byte offset.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "io/byte_source.hpp"

namespace warpmatch::io {

enum class Compression { none, gzip, bgzf, zstd };
std::string_view compression_name(Compression c);

/// What the first bytes of an input say (at least 18 bytes for BGZF to be recognised; zstd also
/// when they are a skippable frame's, as pzstd's files start).
Compression detect_compression(ByteSpan head);

/// One frame of a zstd file, found from the headers alone (ZSTD_findFrameCompressedSize reads
/// the frame and block headers, not the data): where it starts and how many compressed bytes
/// it holds, and its decompressed size (0 for a skippable frame; kUnknownSize when the header
/// does not say, as for a streamed `zstd` without --content-size).
struct ZstdFrame {
  static constexpr std::uint64_t kUnknownSize = ~std::uint64_t{0};
  std::uint64_t offset = 0;
  std::uint64_t compressed_size = 0;
  std::uint64_t content_size = 0;
  bool skippable = false;
};

/// The frames of zstd data from its first byte, up to `max_frames` (0 = all). Throws
/// InputError naming `name` and the offset when the data is not a sequence of whole frames
/// (truncated or corrupt headers). Splitting a file into tasks (warpmatch.dask) plans with it.
std::vector<ZstdFrame> zstd_frames(std::string_view name, ByteSpan data, std::size_t max_frames = 0);

/// Wraps `raw` (named `name` in messages) in the decoder for `kind`; `threads` decode BGZF
/// blocks or small zstd frames in parallel (0 = all cores). `none` returns `raw` itself.
std::unique_ptr<ByteSource> decompressing_source(std::string name, Compression kind,
                                                 std::unique_ptr<ByteSource> raw, int threads = 0);

/// Whether `src` (made by decompressing_source) decodes ahead of its reader on threads of its
/// own, as the parallel decoder of large gzip members does: a read-ahead stage in front of it
/// would only add a copy of every byte.
bool decodes_ahead(const ByteSource& src);

/// The gzip members of at least this many compressed bytes in a mapped file are decoded on
/// all cores when there are at least kParallelGzipMinThreads threads, the others streamed on
/// one (ISA-L). Per core our decoder runs at ~0.55 of ISA-L's speed (256 MiB FASTA-like
/// text, `gzip -6`, 2-core development host: the deflate decoder 0.70 against ISA-L's 1.24
/// GB/s; the member source with its finder, stitching and CRC 0.60 GB/s on 1 thread, 0.92 on
/// 2), and the search needs cores too: from 4 threads on it passes ISA-L's one thread.
inline constexpr std::size_t kParallelGzipMin = std::size_t{8} << 20;
inline constexpr unsigned kParallelGzipMinThreads = 4;
/// Whether a mapped gzip member of `compressed_bytes` on `threads` (0 = all cores) is decoded
/// on all cores (decompressing_source; the cost model asks the same).
bool gzip_member_in_parallel(std::uint64_t compressed_bytes, int threads);

/// gzip in memory as decompressing_source decodes it with threads != 1, its parameters open
/// to tests: members of at least `parallel_min` compressed bytes decoded in chunks of
/// `chunk_bytes` (0: the default) on `threads` threads (0: all cores).
std::unique_ptr<ByteSource> parallel_gzip_source(std::string name, std::unique_ptr<MemorySource> raw, int threads,
                                                 std::size_t chunk_bytes = 0, std::size_t parallel_min = kParallelGzipMin);

}  // namespace warpmatch::io
