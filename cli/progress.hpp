// A progress line on stderr for long jobs, drawn only when stderr is a terminal: a bar with
// the percentage for an input of known size, the bytes done and the rate for a pipe or stdin
// (size unknown). Owned by the searcher (cli/searcher.hpp), one per input.
#pragma once

#include <chrono>
#include <cstdint>

namespace warpmatch::cli {

class Progress {
 public:
  /// Shown only if `enabled`, stderr is a terminal, and the job is large enough to matter:
  /// total_bytes x work_per_byte (approx: bytes x patterns) at least 256 MiB; for an unknown
  /// size (total_bytes 0) once the bytes done pass that.
  Progress(bool enabled, std::uint64_t total_bytes, std::uint64_t work_per_byte = 1);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void advance_to(std::uint64_t bytes_done);  // bytes of the input done so far
  /// Clears the line before output is written to the terminal; the next advance redraws it.
  void erase();
  void finish();  // erases the line for good
  bool active() const { return active_; }
  std::uint64_t done() const { return done_; }

 private:
  void draw();
  bool active_ = false;
  bool drawn_ = false;
  std::uint64_t total_ = 0, done_ = 0, work_per_byte_ = 1;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace warpmatch::cli
