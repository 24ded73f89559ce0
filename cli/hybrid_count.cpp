#include "hybrid_count.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>

namespace warpmatch::cli {

namespace {
// The CPU counts a window in pieces, each on all its threads at once, a sixteenth of the
// window from 16 to 256 MiB, until the GPU is up; the GPU then takes all that is left.
// Windows smaller than kHybridFrom are the CPU's alone.
constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
constexpr std::uint64_t kHybridFrom = 64 * kMiB;
std::uint64_t cpu_piece(std::uint64_t owned) { return std::clamp(owned / 16, 16 * kMiB, 256 * kMiB); }

// Starts [begin, end) of window `w` as a window of their own, with the bytes after them that
// their matches may read.
io::TextWindow piece_of(const io::TextWindow& w, std::uint64_t begin, std::uint64_t end, std::uint64_t overlap) {
  io::TextWindow p = w;
  const std::uint64_t read_end = std::min<std::uint64_t>(w.data.size(), end + overlap);
  p.data = w.data.subspan(begin, read_end - begin);
  p.offset = w.offset + begin;
  p.owned = end - begin;
  p.first = w.first && begin == 0;
  p.last = w.last && end == w.owned;
  return p;
}

}  // namespace

void HybridCountScanner::give_up_gpu(const DeviceOutOfMemory& e) const {
  if (note_) note_(e);
  gpu_failed_ = true;
}

std::optional<std::uint64_t> HybridCountScanner::count(const io::TextWindow& w, std::span<std::uint64_t> per_pattern) const {
  if (w.owned < kHybridFrom || gpu_failed_) {
    split_.cpu_bytes += w.owned;
    return cpu_.count(w, per_pattern);
  }
  // A later large window, the GPU up: the GPU's alone (FindScanner::count adds to per_pattern
  // only once the window is counted, so one out of memory goes to the CPU whole).
  if (gpu_.wait_for(std::chrono::seconds(0)) == std::future_status::ready && gpu_.get()) {
    try {
      const std::optional<std::uint64_t> n = gpu_.get()->count(w, per_pattern);
      split_.gpu_bytes += w.owned;
      return n;
    } catch (const DeviceOutOfMemory& e) {
      give_up_gpu(e);
      split_.cpu_bytes += w.owned;
      return cpu_.count(w, per_pattern);
    }
  }
  std::mutex mutex;
  // The CPU takes pieces from the front; the GPU, once up, all of [front, back).
  std::uint64_t front = 0, back = w.owned;
  std::vector<std::uint64_t> gpu_counts(per_pattern.size(), 0);
  std::uint64_t gpu_found = 0;
  std::exception_ptr gpu_error;
  bool gpu_counting = false;  // under `mutex`: the GPU is up, the CPU takes no more pieces
  std::thread gpu_side([&] {
    const WindowScanner* gpu = gpu_.get();  // waits for CUDA's start-up
    if (!gpu) return;
    // All that the CPU has not taken, in one scan: the CPU takes no piece after this, and one
    // long scan keeps the GPU's upload streaming (a scan's first chunk is never overlapped).
    std::uint64_t begin, end;
    {
      std::lock_guard lock(mutex);
      gpu_counting = true;
      if (back <= front) return;
      begin = front, end = back;
      back = begin;
    }
    try {
      const std::optional<std::uint64_t> n = gpu->count(piece_of(w, begin, end, overlap_), gpu_counts);
      if (!n) throw Error("the GPU scanner cannot count");  // FindScanner always can
      gpu_found += *n;
      split_.gpu_bytes += end - begin;
    } catch (const DeviceOutOfMemory& e) {
      // Counts are added only once a piece is counted: the piece goes back to the CPU whole.
      give_up_gpu(e);
      std::lock_guard lock(mutex);
      back = end;
    } catch (...) {
      gpu_error = std::current_exception();
    }
  });
  std::uint64_t found = 0;
  try {
    for (;;) {
      std::uint64_t begin, end;
      {
        std::lock_guard lock(mutex);
        if (front >= back || gpu_counting) break;
        begin = front;
        end = std::min(back, begin + cpu_piece(w.owned));
        front = end;
      }
      found += cpu_.count(piece_of(w, begin, end, overlap_), per_pattern).value_or(0);
      split_.cpu_bytes += end - begin;
    }
  } catch (...) {
    {
      std::lock_guard lock(mutex);
      back = front;  // the GPU takes no more
    }
    gpu_side.join();
    throw;
  }
  gpu_side.join();
  if (gpu_error) std::rethrow_exception(gpu_error);
  if (front < back) {  // no GPU, or one out of memory: the rest is the CPU's
    found += cpu_.count(piece_of(w, front, back, overlap_), per_pattern).value_or(0);
    split_.cpu_bytes += back - front;
  }
  for (std::size_t i = 0; i < per_pattern.size(); ++i) per_pattern[i] += gpu_counts[i];
  return found + gpu_found;
}

}  // namespace warpmatch::cli
