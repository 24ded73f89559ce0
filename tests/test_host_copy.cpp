// The GPU feeders' host work (src/core/host_copy.hpp): the parallel copy into staging equals
// memcpy at any size and alignment, and callers from several threads at once (one per GPU
// with --devices) each run every task of theirs exactly once.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#include "core/host_copy.hpp"

using namespace warpmatch;

TEST(HostCopy, ParallelCopyEqualsMemcpyAtAnySizeAndAlignment) {
  std::mt19937_64 rng(7);
  std::vector<std::uint8_t> src((9u << 20) + 123);
  for (auto& b : src) b = static_cast<std::uint8_t>(rng());
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{63}, std::size_t{4097},
                              (std::size_t{2} << 20) + 5, (std::size_t{9} << 20) + 100})
    for (const std::size_t shift : {0u, 1u, 15u}) {
      std::vector<std::uint8_t> dst(n + 32, 0xee);
      for (const int threads : {0, 1, 3}) {
        core::parallel_stream_copy(dst.data() + shift, src.data() + (shift * 7) % 16, n, threads);
        ASSERT_TRUE(std::equal(dst.begin() + shift, dst.begin() + shift + n, src.begin() + (shift * 7) % 16))
            << "n " << n << " shift " << shift << " threads " << threads;
        ASSERT_EQ(dst[shift + n], 0xee) << "wrote past the end";
      }
    }
}

TEST(HostCopy, ConcurrentCallersEachRunEveryTaskOnce) {
  constexpr int kCallers = 5, kRounds = 20;
  std::vector<std::thread> callers;
  std::atomic<int> failures{0};
  for (int c = 0; c < kCallers; ++c)
    callers.emplace_back([&, c] {
      std::vector<std::uint8_t> src((3u << 20) + static_cast<unsigned>(c)), dst(src.size());
      for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<std::uint8_t>(i * 31 + c);
      for (int r = 0; r < kRounds; ++r) {
        const std::size_t tasks = 1 + static_cast<std::size_t>(r * 7 + c) % 50;
        std::vector<std::atomic<int>> seen(tasks);
        core::run_on_host_pool(tasks, [&](std::size_t t) { seen[t].fetch_add(1); });
        for (auto& s : seen)
          if (s.load() != 1) ++failures;
        core::parallel_stream_copy(dst.data(), src.data(), src.size());
        if (dst != src) ++failures;
      }
    });
  for (auto& t : callers) t.join();
  EXPECT_EQ(failures.load(), 0);
}

// resize_prefaulted keeps what the vector held, value-initialises the new elements (the
// mapped pages must not leak other bytes), and grows from any size, aligned or not.
TEST(HostCopy, ResizePrefaultedKeepsContentsAndZeroesTheRest) {
  for (const std::size_t from : {std::size_t{0}, std::size_t{1}, std::size_t{12345}}) {
    std::vector<std::uint64_t> v(from);
    for (std::size_t i = 0; i < from; ++i) v[i] = i * 7 + 1;
    const std::size_t to = (std::size_t{5} << 20) + 3;  // 40 MB: several pool tasks
    core::resize_prefaulted(v, to);
    ASSERT_EQ(v.size(), to);
    for (std::size_t i = 0; i < from; ++i) ASSERT_EQ(v[i], i * 7 + 1);
    for (std::size_t i = from; i < to; ++i) ASSERT_EQ(v[i], 0u) << i;
    core::resize_prefaulted(v, 10);  // shrinking is a plain resize
    EXPECT_EQ(v.size(), 10u);
  }
  core::prefault_for_write(nullptr, 0);  // nothing to map
}
