// Byte sources of the input layer: where an input's bytes come from, one pull interface for
// all of them — a memory-mapped file, a pipe or stdin, a decompressor (decompress.hpp) — and a
// read-ahead stage that runs a source on a thread of its own, so reading and decompressing
// overlap the search. Memory is bounded by each source's buffers, never by the input's size.
//
// Interactive inputs (`tail -f log | warpmatch find ERROR`): a pipe's writer may pause for
// any time. Every source then hands on what it has rather than wait for more (read()), and
// says whether more is at hand (wait_ready()), so the window builder (text_stream.cpp) can
// end a window early and the bytes that arrived are searched and printed now, as grep does.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "io/input.hpp"

namespace warpmatch::io {

using Clock = std::chrono::steady_clock;
/// A deadline already past: wait_ready(no_wait) asks without waiting.
inline constexpr Clock::time_point no_wait{};

/// A stream of bytes, read front to back. Not thread-safe; one consumer (cancel() excepted).
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  /// Copies up to `capacity` bytes into `out`; returns 0 only at the end of the input. Waits
  /// for the input's writer only until it has a byte: then it returns what is at hand, so the
  /// last bytes before a writer's pause reach the consumer without waiting for the next ones.
  /// Throws InputError naming the input (and the byte offset for corrupt data).
  virtual std::size_t read(std::uint8_t* out, std::size_t capacity) = 0;
  /// Bytes of the underlying file or pipe consumed so far (compressed bytes for decoders).
  virtual std::uint64_t raw_offset() const = 0;
  /// Waits until read() would return without waiting for the input's writer (bytes are at
  /// hand, or the end or an error is known) or until `deadline`; returns whether it would. A
  /// decoder answers for its compressed input (a writer pausing inside a compressed block
  /// shows only when the block is complete). Sources that never wait (memory, regular files)
  /// answer true at once.
  virtual bool wait_ready(Clock::time_point /*deadline*/) { return true; }
  /// Stops waiting for the writer, from any thread: a read() or wait_ready() blocked on it
  /// returns, and the input ends (read() gives 0) once the bytes at hand are out. For a
  /// consumer that stops before the end (-q on an endless pipe) and must not hang on exit.
  virtual void cancel() {}
};

/// Bytes already in memory (a mapped file, a test buffer). `owner` keeps them alive;
/// `file_mapping`: they are a private read-only mapping of a file (see release_before).
class MemorySource final : public ByteSource {
 public:
  MemorySource(ByteSpan bytes, std::shared_ptr<const void> owner = nullptr, bool file_mapping = false)
      : bytes_(bytes), owner_(std::move(owner)), file_mapping_(file_mapping) {}
  std::size_t read(std::uint8_t* out, std::size_t capacity) override;
  std::uint64_t raw_offset() const override { return pos_; }
  /// The bytes not read yet, without a copy (decoders that take whole buffers use this).
  ByteSpan rest() const { return bytes_.subspan(pos_); }
  void skip(std::size_t n) { pos_ += n; }
  /// A mapped file read front to back in place: its whole pages before `offset` leave the
  /// process's resident memory (they stay in the page cache; reading them again faults them
  /// back in from the file), so a file larger than memory is never resident as a whole.
  /// Nothing for other bytes.
  void release_before(std::size_t offset);

 private:
  ByteSpan bytes_;
  std::shared_ptr<const void> owner_;
  std::size_t pos_ = 0;
  bool file_mapping_ = false;
  std::size_t released_ = 0;  // bytes_[0, released_) released
};

/// read() on a file descriptor (pipes, stdin, FIFOs, terminals, files that cannot be mapped).
/// A read is preceded by a poll() of the descriptor and of an eventfd that cancel() signals,
/// unless wait_ready() has just seen the descriptor readable (the read-ahead asks it before
/// every read but a slot's first): one more system call per read, reads being up to 1 MiB.
class FdSource final : public ByteSource {
 public:
  FdSource(std::string name, int fd, bool owned);
  ~FdSource() override;
  std::size_t read(std::uint8_t* out, std::size_t capacity) override;
  std::uint64_t raw_offset() const override { return offset_; }
  bool wait_ready(Clock::time_point deadline) override;
  void cancel() override;

 private:
  bool poll_until(Clock::time_point deadline);  // false: deadline passed first

  std::string name_;
  int fd_;
  bool owned_;
  int cancel_fd_ = -1;  // an eventfd; -1 when none could be made (then cancel() is a no-op)
  std::atomic<bool> cancelled_{false};
  bool readable_ = false;  // the last poll saw bytes (or the end): read() will not wait
  std::uint64_t offset_ = 0;
};

/// Source bytes already read by a format probe, served before the rest of `inner`.
class PushbackSource final : public ByteSource {
 public:
  PushbackSource(std::string head, std::unique_ptr<ByteSource> inner)
      : head_(std::move(head)), inner_(std::move(inner)) {}
  std::size_t read(std::uint8_t* out, std::size_t capacity) override;
  std::uint64_t raw_offset() const override { return inner_->raw_offset(); }
  bool wait_ready(Clock::time_point deadline) override {
    return pos_ < head_.size() || inner_->wait_ready(deadline);
  }
  void cancel() override { inner_->cancel(); }

 private:
  std::string head_;
  std::size_t pos_ = 0;
  std::unique_ptr<ByteSource> inner_;
};

/// Runs `inner` on a thread of its own, `slots` buffers of `slot_bytes` ahead of the reader;
/// an exception of the inner source is rethrown by read() in order, after the bytes before it.
/// A buffer is handed on when full, or when `inner` has had nothing at hand for `hand_off`
/// after the buffer's first byte (a paused writer), so a slow pipe's bytes are not held back.
/// Its wait_ready() waits for a buffer to be handed on; its cancel() ends the thread's wait.
std::unique_ptr<ByteSource> read_ahead(std::unique_ptr<ByteSource> inner, std::size_t slot_bytes,
                                       int slots, Clock::duration hand_off);

/// open_raw's default: a mapping costs mmap, madvise and munmap, whose TLB shootdown
/// interrupts the process's other threads, per file; a small file's copy costs less.
inline constexpr std::size_t kReadWholeBytes = std::size_t{256} << 10;

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
/// Regular files of at most `read_whole_bytes` are read whole with read() rather than mapped.
RawInput open_raw(const std::string& path, std::size_t read_whole_bytes = kReadWholeBytes);

}  // namespace warpmatch::io
