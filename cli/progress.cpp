#include "progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace warpmatch::cli {

namespace {
constexpr std::uint64_t kMinimumBytesForBar = 256ull << 20;  // smaller jobs finish too fast
}

Progress::Progress(bool enabled, std::uint64_t total_bytes)
    : active_(enabled && total_bytes >= kMinimumBytesForBar && isatty(STDERR_FILENO)),
      total_(total_bytes),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

Progress::~Progress() { finish(); }

void Progress::advance(std::uint64_t bytes) {
  done_ += bytes;
  if (!active_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ < std::chrono::milliseconds(100) && done_ < total_) return;
  last_draw_ = now;
  draw();
}

void Progress::draw() {
  const double frac = total_ ? static_cast<double>(done_) / static_cast<double>(total_) : 1.0;
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  constexpr int width = 30;
  const int filled = static_cast<int>(frac * width);
  char bar[width + 1];
  for (int i = 0; i < width; ++i) bar[i] = i < filled ? '=' : (i == filled ? '>' : ' ');
  bar[width] = 0;
  std::fprintf(stderr, "\r[%s] %5.1f%%  %.2f / %.2f GiB  %.2f GB/s ", bar, 100.0 * frac,
               done_ / 1073741824.0, total_ / 1073741824.0, secs > 0 ? done_ / secs / 1e9 : 0.0);
  std::fflush(stderr);
}

void Progress::finish() {
  if (!active_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  active_ = false;
}

}  // namespace warpmatch::cli
