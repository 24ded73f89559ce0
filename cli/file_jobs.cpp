#include "file_jobs.hpp"

#include <utility>

namespace warpmatch::cli {
namespace {
using Clock = std::chrono::steady_clock;
double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }
}  // namespace

FileJobs::Stats FileJobs::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

FileJobs::FileJobs(Next next, int threads, std::size_t most_batches, std::size_t most_batch_output, Search search)
    : next_(std::move(next)),
      most_batches_(most_batches),
      most_batch_output_(most_batch_output),
      search_(std::move(search)),
      caller_(threads) {
  threads_.reserve(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t) threads_.emplace_back([this, t] { work(t); });
  walker_ = std::thread([this] { walk(); });
}

FileJobs::~FileJobs() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  batch_added_.notify_all();
  batch_taken_.notify_all();
  walker_.join();
  for (std::thread& t : threads_) t.join();
}

void FileJobs::walk() {
  for (bool more = true; more;) {
    auto batch = std::make_unique<Batch>();
    batch->jobs.reserve(kBatchJobs);
    std::exception_ptr error;
    const auto t0 = Clock::now();
    try {
      while (batch->jobs.size() < kBatchJobs) {
        std::optional<FileJob> job = next_();
        if (!job) {
          more = false;
          break;
        }
        batch->jobs.push_back(std::move(*job));
      }
    } catch (...) {
      error = std::current_exception();
      more = false;
    }
    const auto t1 = Clock::now();
    std::unique_lock lock(mutex_);
    stats_.walk_s += seconds(t1 - t0);
    // Room for it: at most most_batches_ batches queued.
    batch_taken_.wait(lock, [&] { return stopping_ || queued_.size() < most_batches_; });
    stats_.walk_wait_s += seconds(Clock::now() - t1);
    if (stopping_) return;
    if (!batch->jobs.empty()) {
      not_begun_.push_back(batch.get());
      queued_.push_back(std::move(batch));
      batch_added_.notify_one();
    }
    if (!more) {
      walk_error_ = error;
      walked_ = true;
    }
    batch_done_.notify_one();  // the searcher may wait for this batch, or for the end
  }
}

std::optional<FileJob> FileJobs::take_first() {
  if (taken_next_ < taken_.size()) return std::move(taken_[taken_next_++]);
  const auto t0 = Clock::now();
  double helping = 0;
  std::unique_lock lock(mutex_);
  batch_done_.wait(lock, [&] { return walked_ || !queued_.empty(); });
  if (queued_.empty()) {
    if (walk_error_) std::rethrow_exception(std::exchange(walk_error_, nullptr));
    return std::nullopt;
  }
  Batch* first = queued_.front().get();
  if (!first->begun) {
    // No thread has begun it: the caller searches its jobs itself at once rather than wait.
    not_begun_.erase(not_begun_.begin());  // (the first one not begun)
    first->begun = first->done = true;
    for (FileJob& job : first->jobs) job.again = !job.settled;
    ++stats_.batches_taken;
  }
  while (!first->done && !not_begun_.empty()) {  // a batch further on, meanwhile
    Batch* later = not_begun_.front();
    not_begun_.pop_front();
    later->begun = true;
    ++stats_.batches_helped;
    lock.unlock();
    const auto h0 = Clock::now();
    search_batch(caller_, *later);
    helping += seconds(Clock::now() - h0);
    lock.lock();
  }
  batch_done_.wait(lock, [&] { return first->done; });
  stats_.caller_wait_s += seconds(Clock::now() - t0) - helping;
  stats_.jobs += first->jobs.size();
  taken_ = std::move(first->jobs);
  taken_next_ = 0;
  queued_.pop_front();
  lock.unlock();
  batch_taken_.notify_one();  // room for the walker
  return std::move(taken_[taken_next_++]);
}

void FileJobs::search_batch(int thread, Batch& batch) {
  std::size_t printed = 0;
  for (FileJob& job : batch.jobs) {
    if (job.settled) continue;
    if (printed > most_batch_output_) {  // enough held: the rest are printed in their turn
      job.again = true;
      continue;
    }
    try {
      search_(thread, job);
    } catch (...) {
      // Anything the search did not handle itself (out of memory): the searcher tries the
      // input again itself, where the error reaches the user as it would have.
      FileJob fresh;
      fresh.path = std::move(job.path);
      fresh.again = true;
      job = std::move(fresh);
    }
    printed += job.output.size() + job.errors.size();
  }
  bool first = false;
  {
    std::lock_guard lock(mutex_);
    batch.done = true;
    first = queued_.front().get() == &batch;  // the one the searcher waits for, if it waits
  }
  if (first) batch_done_.notify_one();
}

void FileJobs::work(int thread) {
  for (;;) {
    Batch* batch = nullptr;
    {
      const auto t0 = Clock::now();
      std::unique_lock lock(mutex_);
      batch_added_.wait(lock, [&] { return stopping_ || !not_begun_.empty(); });
      if (stopping_) return;
      batch = not_begun_.front();
      not_begun_.pop_front();
      batch->begun = true;
      ++stats_.batches_by_threads;
      stats_.threads_idle_s += seconds(Clock::now() - t0);
    }
    search_batch(thread, *batch);
  }
}

}  // namespace warpmatch::cli
