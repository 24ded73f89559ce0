// One large gzip member decoded on all cores (the method of pugz and rapidgzip): the member's
// compressed bytes are cut into chunks; a block finder guesses where a deflate block starts in
// each; every chunk is decoded from its guess at once by a deflate decoder that writes 16-bit
// symbols, a back-reference into the unknown 32 KiB before the chunk giving a marker (256 + w:
// byte w of that window) instead of a byte. Walking the chunks in order, a chunk is kept only
// when the chunk before it, decoded from a known start, ends exactly where it began; else that
// decode goes on by itself (so a false guess costs time, never bytes). Once the bytes before a
// kept chunk are known, its markers are replaced by them. CRC-32 and ISIZE are checked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/byte_source.hpp"

namespace warpmatch::io {

/// Where decoding (re)starts: the bit offset of a block header, or, for a stored block, the
/// byte-aligned offset of its LEN field (its header and padding are a run of zero bits whose
/// start cannot be told from the data, so every decoder names a stored block by its LEN).
struct BlockStart {
  std::uint64_t bit = 0;
  bool stored_body = false;
  friend bool operator==(const BlockStart&, const BlockStart&) = default;
};

/// A growing buffer of decoded 16-bit symbols (bytes 0..255 or markers 256 + w).
class SymbolBuffer {
 public:
  SymbolBuffer() = default;
  SymbolBuffer(const SymbolBuffer&) = delete;
  SymbolBuffer& operator=(const SymbolBuffer&) = delete;
  ~SymbolBuffer();
  std::uint16_t* data() { return data_; }
  const std::uint16_t* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return capacity_; }
  void clear() { size_ = 0; }
  void resize(std::size_t n);                   // grows the capacity as needed; new symbols undefined
  void reserve_more(std::size_t n);             // room for n more symbols and kSlack beyond
  void append_window_markers();                 // 256 + w for w in [0, 32768)
  void append_bytes(const std::uint8_t* p, std::size_t n);
  /// Writing may run this many symbols past size() (copies of 8 symbols at a time).
  static constexpr std::size_t kSlack = 16;

 private:
  std::uint16_t* data_ = nullptr;
  std::size_t size_ = 0, capacity_ = 0;
};

inline constexpr std::size_t kDeflateWindow = 32768;

/// How a decode() ended. `boundary`: at a block boundary (`end`), at or past the stop offset
/// or the output limit; `final_block`: after the last block (`end` = the bit after it);
/// `invalid` / `truncated`: at `error_bit`, the output before it kept.
struct InflateResult {
  enum class Status { boundary, final_block, invalid, truncated };
  Status status = Status::boundary;
  BlockStart end;
  std::uint64_t error_bit = 0;
  const char* why = "";  // for invalid: which check failed
};

/// A deflate decoder (RFC 1951) with reusable tables; one per thread.
class MarkerInflater {
 public:
  MarkerInflater();
  ~MarkerInflater();
  MarkerInflater(const MarkerInflater&) = delete;
  MarkerInflater& operator=(const MarkerInflater&) = delete;

  /// Decodes the raw deflate stream `in` from `start`, appending to `out` (a back-reference
  /// reaches into what `out` already holds: real bytes, or window markers; beyond its front
  /// it is invalid). Stops at the first block boundary at or past `stop_bit` (a stored
  /// block's boundary counted at its LEN), or at one once `out` holds `out_limit` or more
  /// symbols, or after the final block. Never throws for bad data.
  InflateResult decode(ByteSpan in, BlockStart start, std::uint64_t stop_bit, SymbolBuffer& out,
                       std::size_t out_limit = SIZE_MAX);

  /// The first offset in [from_bit, until_bit) where a non-final dynamic-Huffman block header
  /// that decodes to complete codes starts, or a stored block's LEN field (LEN == ~NLEN);
  /// nullopt-like {UINT64_MAX} when none. A guess: it may be a false positive.
  BlockStart find_block(ByteSpan in, std::uint64_t from_bit, std::uint64_t until_bit);

  struct Tables;

 private:
  std::unique_ptr<Tables> t_;
};

struct ParallelInflateOptions {
  unsigned threads = 0;                         // 0: all cores
  // Compressed bytes per chunk (tests: a few KiB): at most this, less for data that inflates
  // more than 2.5x, as a chunk's output is bounded (5 x chunk_bytes and a block).
  std::size_t chunk_bytes = std::size_t{1} << 20;
};

/// The gzip member at the front of `data` (a mapped file's bytes from `base_offset` on; more
/// bytes may follow it), decoded in parallel, a bounded number of chunks ahead of the reader.
/// Errors name `name` and the compressed byte offset, after the bytes decoded before them.
/// member_bytes() is the member's size once read() has returned 0.
class ParallelGzipMemberSource final : public ByteSource {
 public:
  ParallelGzipMemberSource(std::string name, ByteSpan data, std::uint64_t base_offset,
                           ParallelInflateOptions options = {});
  ~ParallelGzipMemberSource() override;
  std::size_t read(std::uint8_t* out, std::size_t capacity) override;
  std::uint64_t raw_offset() const override;
  void cancel() override;
  std::uint64_t member_bytes() const;

  struct State;

 private:
  std::unique_ptr<State> s_;
};

}  // namespace warpmatch::io
