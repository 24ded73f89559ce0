// Byte sources of the input layer: where an input's bytes come from, one pull interface for
// all of them — a memory-mapped file, a pipe or stdin, a decompressor (decompress.hpp) — and a
// read-ahead stage that runs a source on a thread of its own, so reading and decompressing
// overlap the search. Memory is bounded by each source's buffers, never by the input's size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "io/input.hpp"

namespace warpmatch::io {

/// A stream of bytes, read front to back. Not thread-safe; one consumer.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  /// Copies up to `capacity` bytes into `out`; returns 0 only at the end of the input.
  /// Throws InputError naming the input (and the byte offset for corrupt data).
  virtual std::size_t read(std::uint8_t* out, std::size_t capacity) = 0;
  /// Bytes of the underlying file or pipe consumed so far (compressed bytes for decoders).
  virtual std::uint64_t raw_offset() const = 0;
};

/// Bytes already in memory (a mapped file, a test buffer). `owner` keeps them alive.
class MemorySource final : public ByteSource {
 public:
  MemorySource(ByteSpan bytes, std::shared_ptr<const void> owner = nullptr)
      : bytes_(bytes), owner_(std::move(owner)) {}
  std::size_t read(std::uint8_t* out, std::size_t capacity) override;
  std::uint64_t raw_offset() const override { return pos_; }
  /// The bytes not read yet, without a copy (decoders that take whole buffers use this).
  ByteSpan rest() const { return bytes_.subspan(pos_); }
  void skip(std::size_t n) { pos_ += n; }

 private:
  ByteSpan bytes_;
  std::shared_ptr<const void> owner_;
  std::size_t pos_ = 0;
};

/// read() on a file descriptor (pipes, stdin, devices, files that cannot be mapped).
class FdSource final : public ByteSource {
 public:
  FdSource(std::string name, int fd, bool owned) : name_(std::move(name)), fd_(fd), owned_(owned) {}
  ~FdSource() override;
  std::size_t read(std::uint8_t* out, std::size_t capacity) override;
  std::uint64_t raw_offset() const override { return offset_; }

 private:
  std::string name_;
  int fd_;
  bool owned_;
  std::uint64_t offset_ = 0;
};

/// Source bytes already read by a format probe, served before the rest of `inner`.
class PushbackSource final : public ByteSource {
 public:
  PushbackSource(std::string head, std::unique_ptr<ByteSource> inner)
      : head_(std::move(head)), inner_(std::move(inner)) {}
  std::size_t read(std::uint8_t* out, std::size_t capacity) override;
  std::uint64_t raw_offset() const override { return inner_->raw_offset(); }

 private:
  std::string head_;
  std::size_t pos_ = 0;
  std::unique_ptr<ByteSource> inner_;
};

/// Runs `inner` on a thread of its own, `slots` buffers of `slot_bytes` ahead of the reader;
/// an exception of the inner source is rethrown by read() in order, after the bytes before it.
std::unique_ptr<ByteSource> read_ahead(std::unique_ptr<ByteSource> inner, std::size_t slot_bytes,
                                       int slots);

/// An opened input before decompression: the mapped file when it is a regular file (zero
/// copy, its size known), else a descriptor to read. Throws InputError naming the path.
struct RawInput {
  std::string name;                 // the path as given; "(standard input)" for "-"
  std::unique_ptr<ByteSource> source;
  ByteSpan mapped;                  // the whole file when mapped, else empty
  std::shared_ptr<const void> mapping;  // keeps `mapped` alive
  bool is_mapped = false;
  std::uint64_t size_hint = 0;      // bytes of a regular file, 0 when unknown
};
RawInput open_raw(const std::string& path);

}  // namespace warpmatch::io
