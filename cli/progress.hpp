// A progress bar on stderr for long jobs, drawn only when stderr is a terminal.
#pragma once

#include <chrono>
#include <cstdint>

namespace warpmatch::cli {

class Progress {
 public:
  /// Shown only if `enabled`, stderr is a terminal, and the job is large enough to matter.
  Progress(bool enabled, std::uint64_t total_bytes);
  ~Progress();
  void advance(std::uint64_t bytes);  // bytes finished since the last call
  void finish();                      // erases the bar
  bool active() const { return active_; }

 private:
  void draw();
  bool active_ = false;
  std::uint64_t total_ = 0, done_ = 0;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace warpmatch::cli
