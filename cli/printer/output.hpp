// The printers' output: a buffered stdout writer that reports write errors, and escaping of
// arbitrary bytes for readable text and for JSON (cli/printer/sink.hpp: the printers).
#pragma once

#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "warpmatch/common.hpp"

namespace warpmatch::cli {

/// Writing the output failed (disk full, stdout closed, the reader of a pipe gone with
/// SIGPIPE ignored). Not a warpmatch::Error, so no per-input handler takes it for an input's
/// fault: it ends the command in main(), which prints "warpmatch: write error: standard
/// output: REASON" and exits 2 as grep does (quietly for EPIPE: the reader left).
class WriteError : public std::runtime_error {
 public:
  explicit WriteError(int error_number);
  int error_number() const { return error_number_; }

 private:
  int error_number_;
};

/// Flushes stdout; throws WriteError if it or any earlier write to it failed.
void flush_stdout_or_throw();

/// Large-buffer writer to a FILE* (stdout): millions of match lines must not cost a syscall each.
/// flush() throws WriteError when the bytes cannot be written (the destructor swallows it:
/// commands flush before they return). Line-buffered (every maybe_flush() writes) when the
/// file is a terminal, as stdio and grep are, or when asked (--line-buffered, grep's flag);
/// the searches also flush after a window whose streamed input paused (a `tail -f` pipe),
/// so its results are seen while the input waits, even through `| cat`.
class Output {
 public:
  explicit Output(std::FILE* f);
  void set_line_buffered() { line_buffered_ = true; }
  ~Output() {
    try {
      flush();
    } catch (const WriteError&) {
    }
  }
  fmt::memory_buffer& buffer() { return buf_; }
  void maybe_flush() {
    if (capturing_) keep_captured();
    else if (line_buffered_ || buf_.size() >= (1u << 16)) flush();
  }
  void flush();

  /// Keeps what is written in memory from now on (flush() writes nothing), up to `most`
  /// bytes: past that it drops them and overflowed() says so (the caller then prints the
  /// input again itself: cli/file_jobs.hpp).
  void capture(std::size_t most) {
    capturing_ = true;
    most_captured_ = most;
    line_buffered_ = false;
  }
  bool overflowed() const { return overflowed_; }
  /// The bytes captured so far (moved out), and a fresh start.
  std::string take_captured();
  /// Writes what `part` (a capturing Output) holds after what this one holds, and empties it.
  void append_from(Output& part);

 private:
  void keep_captured() {
    if (buf_.size() > most_captured_) {
      overflowed_ = true;
      buf_.clear();
    }
  }

  /// Writes bytes to the file (no fflush); throws WriteError.
  void write_out(const char* data, std::size_t size);

  std::FILE* file_;
  fmt::memory_buffer buf_;
  bool line_buffered_;
  bool capturing_ = false, overflowed_ = false;
  std::size_t most_captured_ = 0;
};

/// The stderr line for an input that failed (exit status 2 follows): `warpmatch: PATH: what`,
/// without repeating the path when the message already starts with it (InputError does); a
/// DeviceOutOfMemory as out_of_memory_text says it.
void report_input_error(const std::string& path, const std::exception& error);
/// That line, with its newline.
std::string input_error_text(const std::string& path, const std::exception& error);

/// What the GPU running out of memory (or the cap) means for the user: "GPU out of memory:
/// needs N MiB, limit M MiB; try --backend cpu or a larger --device-memory (<library's
/// message>)". The library's own message names no flag.
std::string out_of_memory_text(const DeviceOutOfMemory& error);
/// Its first part: "GPU out of memory: needs N MiB, limit M MiB" (sizes under a MiB in bytes).
std::string out_of_memory_summary(const DeviceOutOfMemory& error);

/// Bytes as readable text: printable ASCII as is, '\\' as "\\\\", others as "\\xNN"
/// (tab, newline and carriage return as \t \n \r).
void append_escaped_text(fmt::memory_buffer& out, ByteSpan bytes);
/// A JSON string literal (with quotes) for arbitrary bytes: valid UTF-8 sequences are kept,
/// control characters and invalid bytes are escaped as \u00NN (so every byte round-trips
/// through its code point value for invalid bytes).
void append_json_string(fmt::memory_buffer& out, std::string_view bytes);

}  // namespace warpmatch::cli
