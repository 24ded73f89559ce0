// --backend auto's -c on both backends at once (find -c with a pattern set, where the GPU was
// chosen): see HybridCountScanner.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <future>
#include <optional>
#include <span>
#include <vector>

#include "io/text_stream.hpp"
#include "searcher.hpp"
#include "warpmatch/common.hpp"

namespace warpmatch::cli {

/// --backend auto, -c where the GPU was chosen: the CPU counts while CUDA starts. The GPU
/// scanner is made on a thread of its own (CUDA's start-up and the device tables, ~0.3 s on
/// the H200); meanwhile the CPU counts a window from its front in pieces, and once the GPU
/// scanner is there the CPU finishes the piece it holds and the GPU counts all the rest in one
/// scan (a piece's count is the whole piece, its overlap included, less what lies entirely in
/// the overlap: FindScanner::count); a later large window, the GPU up, is the GPU's alone.
/// Both counting to the end was slower on the H200 host (0.64-0.67 s against 0.55-0.58 s for
/// 1000 words over 8 GiB): they share cores and memory. A GPU that cannot be made, or runs
/// out of memory, leaves its part to the CPU (`note` is told); any other GPU error ends the
/// search as it would on the GPU alone. Every other scan (lines, hits, -l ...) goes to the
/// GPU scanner, as without it.
class HybridCountScanner : public WindowScanner {
 public:
  /// Bytes counted where, for --stats.
  struct Split {
    std::atomic<std::uint64_t> cpu_bytes{0}, gpu_bytes{0};
  };
  /// `gpu`: the GPU scanner once made (nullptr: it could not be); `overlap`: the longest
  /// pattern's length - 1.
  using OutOfMemoryNote = std::function<void(const DeviceOutOfMemory&)>;
  HybridCountScanner(const WindowScanner& cpu, std::shared_future<const WindowScanner*> gpu, std::uint64_t overlap,
                     Split& split, OutOfMemoryNote note)
      : cpu_(cpu), gpu_(std::move(gpu)), overlap_(overlap), split_(split), note_(std::move(note)) {}
  void scan(ByteSpan text, const Emit& emit, ScanProgress* progress) const override {
    either().scan(text, emit, progress);
  }
  bool scan_matches(ByteSpan text, const MatchBatchSink& sink) const override { return either().scan_matches(text, sink); }
  std::optional<std::uint64_t> count(const io::TextWindow& w, std::span<std::uint64_t> per_pattern) const override;
  std::optional<std::vector<std::uint64_t>> first_per_line(const io::TextWindow& w, std::uint64_t most) const override {
    return either().first_per_line(w, most);
  }

 private:
  const WindowScanner& either() const {
    const WindowScanner* gpu = gpu_.get();
    return gpu && !gpu_failed_ ? *gpu : cpu_;
  }
  /// Out of device memory: `note_` is told, and the CPU counts alone from then on.
  void give_up_gpu(const DeviceOutOfMemory& e) const;
  const WindowScanner& cpu_;
  std::shared_future<const WindowScanner*> gpu_;
  std::uint64_t overlap_;
  Split& split_;
  OutOfMemoryNote note_;
  mutable std::atomic<bool> gpu_failed_{false};  // out of memory: the CPU goes on alone
};

}  // namespace warpmatch::cli
