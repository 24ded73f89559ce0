#include "progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace warpmatch::cli {

namespace {
constexpr std::uint64_t kMinimumWorkForBar = 256ull << 20;  // smaller jobs finish too fast

// Asked once per process: a Progress is made per input (a syscall per file of find -r).
bool stderr_is_terminal() {
  static const bool terminal = isatty(STDERR_FILENO) == 1;
  return terminal;
}
}  // namespace

Progress::Progress(bool enabled, std::uint64_t total_bytes, std::uint64_t work_per_byte)
    : active_(enabled && stderr_is_terminal()),
      total_(total_bytes),
      work_per_byte_(work_per_byte == 0 ? 1 : work_per_byte),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {
  // A known size decides now; an unknown one (a pipe) when enough is done.
  if (total_ != 0 && total_ * work_per_byte_ < kMinimumWorkForBar) active_ = false;
}

Progress::~Progress() { finish(); }

void Progress::advance_to(std::uint64_t bytes_done) {
  if (bytes_done > done_) done_ = bytes_done;
  if (!active_) return;
  if (total_ == 0 && done_ * work_per_byte_ < kMinimumWorkForBar) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_draw_ < std::chrono::milliseconds(100) && (total_ == 0 || done_ < total_)) return;
  last_draw_ = now;
  draw();
}

void Progress::draw() {
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double rate = secs > 0 ? done_ / secs / 1e9 : 0.0;
  if (total_ == 0) {
    std::fprintf(stderr, "\r%.2f GiB  %.2f GB/s ", done_ / 1073741824.0, rate);
  } else {
    const double frac = static_cast<double>(done_) / static_cast<double>(total_);
    constexpr int width = 30;
    const int filled = static_cast<int>(frac * width);
    char bar[width + 1];
    for (int i = 0; i < width; ++i) bar[i] = i < filled ? '=' : (i == filled ? '>' : ' ');
    bar[width] = 0;
    std::fprintf(stderr, "\r[%s] %5.1f%%  %.2f / %.2f GiB  %.2f GB/s ", bar, 100.0 * frac, done_ / 1073741824.0,
                 total_ / 1073741824.0, rate);
  }
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::erase() {
  if (!drawn_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

void Progress::finish() {
  erase();
  active_ = false;
}

}  // namespace warpmatch::cli
