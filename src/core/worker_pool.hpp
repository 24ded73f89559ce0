// A fixed set of threads that run one parallel loop at a time (the input layer's FASTA line
// removal and BGZF blocks, the GPU feeders' host copies): run(n, f) calls f(0..n-1) spread
// over the threads and the caller, and returns when all are done. Threads are started once,
// so a loop over a few MiB costs no spawning. One caller at a time. A pool made for a GPU of
// a multi-GPU call runs its threads on that GPU's CPUs (core/host_affinity.hpp).
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "core/host_affinity.hpp"

namespace warpmatch::core {

class WorkerPool {
 public:
  /// `cpus`: the CPUs its threads run on (empty: wherever the system puts them; a pin that
  /// fails leaves a thread unpinned).
  explicit WorkerPool(unsigned threads, std::vector<int> cpus = {}) : cpus_(std::move(cpus)) {
    for (unsigned i = 1; i < std::max(1u, threads); ++i)
      workers_.emplace_back([this] {
        if (!cpus_.empty()) pin_current_thread(cpus_);
        loop();
      });
  }
  ~WorkerPool() {
    {
      std::lock_guard lock(mutex_);
      closing_ = true;
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
  }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  unsigned size() const { return static_cast<unsigned>(workers_.size()) + 1; }
  const std::vector<int>& cpus() const { return cpus_; }

  void run(std::size_t tasks, const std::function<void(std::size_t)>& f) {
    {
      std::lock_guard lock(mutex_);
      job_ = &f;
      tasks_ = tasks;
      next_.store(0);
      busy_ = workers_.size();
      ++generation_;
    }
    wake_.notify_all();
    work();
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return busy_ == 0; });
    job_ = nullptr;
  }

 private:
  void work() {
    for (std::size_t i; (i = next_.fetch_add(1)) < tasks_;) (*job_)(i);
  }
  void loop() {
    std::uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return closing_ || generation_ != seen; });
        if (closing_) return;
        seen = generation_;
      }
      work();
      {
        std::lock_guard lock(mutex_);
        --busy_;
      }
      done_.notify_all();
    }
  }

  const std::vector<int> cpus_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(std::size_t)>* job_ = nullptr;
  std::size_t tasks_ = 0;
  std::atomic<std::size_t> next_{0};
  std::size_t busy_ = 0;
  std::uint64_t generation_ = 0;
  bool closing_ = false;
};

}  // namespace warpmatch::core
