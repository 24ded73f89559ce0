// Minimal fork-join helper for the CPU backend: runs fn(task) for task in [0, tasks)
// on up to `threads` threads (the caller's thread included). Exceptions propagate.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace warpmatch::core {

template <class Fn>
void parallel_for(std::size_t tasks, int threads, Fn&& fn) {
  const std::size_t workers =
      std::max<std::size_t>(1, std::min<std::size_t>(tasks, static_cast<std::size_t>(std::max(1, threads))));
  if (workers <= 1) {
    for (std::size_t t = 0; t < tasks; ++t) fn(t);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&] {
    for (std::size_t t; (t = next.fetch_add(1)) < tasks;) {
      try {
        fn(t);
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!error) error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(workers - 1);
  for (std::size_t i = 1; i < workers; ++i) pool.emplace_back(work);
  work();
  for (auto& th : pool) th.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace warpmatch::core
