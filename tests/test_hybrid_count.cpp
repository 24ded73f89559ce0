// The CLI's -c on both backends (cli/hybrid_count.cpp): a window split between a "CPU" and a
// "GPU" scanner, here two plain counters of their own, counts what one counter counts
// over the whole window, whenever the GPU side becomes ready, when it never does, and when it
// runs out of memory (its piece goes to the CPU) or fails (the error ends the count).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <future>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "hybrid_count.hpp"

namespace {

using warpmatch::ByteSpan;
using warpmatch::DeviceError;
using warpmatch::DeviceOutOfMemory;
using warpmatch::cli::HybridCountScanner;
using warpmatch::cli::WindowScanner;

// Occurrences of each pattern that start in [0, owned) and lie within the window's data.
class PlainCounter : public WindowScanner {
 public:
  enum class Fault { none, out_of_memory, device_error };
  PlainCounter(std::vector<std::string> patterns, std::chrono::milliseconds delay = {}, Fault fault = Fault::none)
      : patterns_(std::move(patterns)), delay_(delay), fault_(fault) {}

  void scan(ByteSpan, const Emit&, warpmatch::ScanProgress*) const override {
    ADD_FAILURE() << "-c counts; nothing scans";
  }
  std::optional<std::uint64_t> count(const warpmatch::io::TextWindow& w, std::span<std::uint64_t> per_pattern) const override {
    ++calls;
    if (fault_ == Fault::out_of_memory) throw DeviceOutOfMemory("out of device memory (a test)", 1 << 20, 0, 0);
    if (fault_ == Fault::device_error) throw DeviceError("a device error (a test)");
    std::this_thread::sleep_for(delay_);
    const std::string_view text(reinterpret_cast<const char*>(w.data.data()), w.data.size());
    std::uint64_t found = 0;
    for (std::size_t i = 0; i < patterns_.size(); ++i)
      for (std::size_t at = text.find(patterns_[i]); at != std::string_view::npos && at < w.owned;
           at = text.find(patterns_[i], at + 1))
        ++per_pattern[i], ++found;
    return found;
  }
  mutable std::atomic<int> calls{0};

 private:
  std::vector<std::string> patterns_;
  std::chrono::milliseconds delay_;
  Fault fault_;
};

struct Window {
  std::string bytes;
  warpmatch::io::TextWindow w;
};

// `owned` starts of random text over 16 letters, followed by `tail` bytes the next window starts with.
Window make_window(std::uint64_t owned, std::uint64_t tail, std::uint64_t seed) {
  Window win;
  win.bytes.resize(owned + tail);
  std::mt19937_64 rng(seed);
  for (std::size_t i = 0; i < win.bytes.size(); i += 8) {
    std::uint64_t r = rng();
    for (std::size_t j = i; j < std::min(win.bytes.size(), i + 8); ++j, r >>= 8) win.bytes[j] = "ACGTBDEFHIJKLMNO"[r & 15];
  }
  // Runs of 24 T's across every MiB from either end (the pieces' seams all lie there) and
  // across the window's end: 9-byte matches straddle each seam.
  const auto run_at = [&](std::uint64_t seam) {
    for (std::uint64_t i = seam >= 12 ? seam - 12 : 0; i < std::min<std::uint64_t>(win.bytes.size(), seam + 12); ++i)
      win.bytes[i] = 'T';
  };
  for (std::uint64_t at = 0; at <= owned; at += 1 << 20) run_at(at), run_at(owned - at);
  win.w.data = ByteSpan(reinterpret_cast<const std::uint8_t*>(win.bytes.data()), win.bytes.size());
  win.w.owned = owned;
  win.w.first = true;
  win.w.last = tail == 0;
  return win;
}

const std::vector<std::string> kPatterns = {"ACG", "GAT", "TTTTTTTTT"};
constexpr std::uint64_t kOverlap = 8;  // the longest pattern - 1

struct Result {
  std::uint64_t found = 0;
  std::vector<std::uint64_t> per_pattern = std::vector<std::uint64_t>(kPatterns.size(), 0);
};

Result count_whole(const Window& win) {
  Result r;
  r.found = *PlainCounter(kPatterns).count(win.w, r.per_pattern);
  return r;
}

std::shared_future<const WindowScanner*> ready(const WindowScanner* s) {
  std::promise<const WindowScanner*> p;
  p.set_value(s);
  return p.get_future().share();
}

constexpr std::uint64_t kMiB = 1 << 20;

}  // namespace

TEST(HybridCount, TheTwoSidesCountWhatOneCountsWhetherTheGpuIsReadyAtOnceOrLater) {
  const PlainCounter cpu(kPatterns, std::chrono::milliseconds(20));  // slow: the GPU side takes pieces
  const PlainCounter gpu(kPatterns);
  for (const std::uint64_t tail : {std::uint64_t{0}, kOverlap}) {
    for (const std::uint64_t owned : {70 * kMiB + 3, 130 * kMiB + 11}) {
      const Window win = make_window(owned, tail, owned + tail);
      const Result want = count_whole(win);
      for (const int late_ms : {0, 50}) {
        std::promise<const WindowScanner*> made;
        std::shared_future<const WindowScanner*> gpu_future = made.get_future().share();
        std::thread maker([&] {
          std::this_thread::sleep_for(std::chrono::milliseconds(late_ms));
          made.set_value(&gpu);
        });
        HybridCountScanner::Split split;
        const HybridCountScanner hybrid(cpu, gpu_future, kOverlap, split, {});
        Result got;
        got.found = hybrid.count(win.w, got.per_pattern).value();
        maker.join();
        EXPECT_EQ(got.found, want.found) << "owned " << owned << " tail " << tail << " late " << late_ms;
        EXPECT_EQ(got.per_pattern, want.per_pattern);
        EXPECT_EQ(split.cpu_bytes + split.gpu_bytes, owned);
        EXPECT_GT(split.gpu_bytes.load(), 0u);
        // A GPU ready 50 ms late: the CPU (20 ms a piece) has counted pieces by then.
        if (late_ms > 0) EXPECT_GT(split.cpu_bytes.load(), 0u);
      }
    }
  }
}

TEST(HybridCount, WithoutAGpuOrForASmallWindowTheCpuCountsAlone) {
  const PlainCounter cpu(kPatterns);
  const PlainCounter gpu(kPatterns);
  const Window big = make_window(70 * kMiB, kOverlap, 1);
  HybridCountScanner::Split split;
  const HybridCountScanner no_gpu(cpu, ready(nullptr), kOverlap, split, {});
  Result got;
  got.found = no_gpu.count(big.w, got.per_pattern).value();
  const Result want = count_whole(big);
  EXPECT_EQ(got.found, want.found);
  EXPECT_EQ(got.per_pattern, want.per_pattern);
  EXPECT_EQ(split.gpu_bytes.load(), 0u);

  const Window small = make_window(5 * kMiB, kOverlap, 2);
  HybridCountScanner::Split small_split;
  const HybridCountScanner with_gpu(cpu, ready(&gpu), kOverlap, small_split, {});
  Result small_got;
  small_got.found = with_gpu.count(small.w, small_got.per_pattern).value();
  EXPECT_EQ(small_got.found, count_whole(small).found);
  EXPECT_EQ(gpu.calls.load(), 0);
  EXPECT_EQ(small_split.cpu_bytes.load(), 5 * kMiB);
}

TEST(HybridCount, AGpuOutOfMemoryLeavesItsPieceToTheCpuAndAnErrorEndsTheCount) {
  const PlainCounter cpu(kPatterns, std::chrono::milliseconds(20));
  const PlainCounter oom(kPatterns, {}, PlainCounter::Fault::out_of_memory);
  const Window win = make_window(100 * kMiB, kOverlap, 3);
  const Result want = count_whole(win);
  int notes = 0;
  HybridCountScanner::Split split;
  // The GPU up 30 ms late: the window is shared, and the GPU's first piece runs out of memory.
  std::promise<const WindowScanner*> made;
  std::thread maker([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    made.set_value(&oom);
  });
  const HybridCountScanner hybrid(cpu, made.get_future().share(), kOverlap, split,
                                  [&](const DeviceOutOfMemory&) { ++notes; });
  for (int round = 0; round < 2; ++round) {  // the second window: the CPU alone, no second note
    Result got;
    got.found = hybrid.count(win.w, got.per_pattern).value();
    EXPECT_EQ(got.found, want.found);
    EXPECT_EQ(got.per_pattern, want.per_pattern);
  }
  maker.join();
  EXPECT_EQ(notes, 1);
  EXPECT_EQ(oom.calls.load(), 1);
  EXPECT_EQ(split.gpu_bytes.load(), 0u);
  EXPECT_EQ(split.cpu_bytes.load(), 2 * 100 * kMiB);

  const PlainCounter failing(kPatterns, {}, PlainCounter::Fault::device_error);
  HybridCountScanner::Split failed_split;
  const HybridCountScanner fails(cpu, ready(&failing), kOverlap, failed_split, {});
  Result got;
  EXPECT_THROW(fails.count(win.w, got.per_pattern), DeviceError);
}

TEST(HybridCount, ALaterWindowWithTheGpuUpIsTheGpusAlone) {
  const PlainCounter cpu(kPatterns, std::chrono::milliseconds(20));
  const PlainCounter gpu(kPatterns);
  const Window win = make_window(70 * kMiB, kOverlap, 4);
  const Result want = count_whole(win);
  HybridCountScanner::Split split;
  const HybridCountScanner hybrid(cpu, ready(&gpu), kOverlap, split, {});
  Result first, second;
  first.found = hybrid.count(win.w, first.per_pattern).value();
  const int cpu_calls = cpu.calls.load();
  const std::uint64_t cpu_bytes = split.cpu_bytes.load();
  second.found = hybrid.count(win.w, second.per_pattern).value();
  EXPECT_EQ(first.found, want.found);
  EXPECT_EQ(second.found, want.found);
  EXPECT_EQ(second.per_pattern, want.per_pattern);
  EXPECT_EQ(cpu.calls.load(), cpu_calls);  // the second window: no CPU piece
  EXPECT_EQ(split.cpu_bytes.load(), cpu_bytes);
  EXPECT_EQ(split.cpu_bytes + split.gpu_bytes, 2 * 70 * kMiB);
}
