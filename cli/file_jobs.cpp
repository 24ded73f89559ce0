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
  for (;;) {
    std::optional<FileJob> job;
    std::exception_ptr error;
    const auto t0 = Clock::now();
    try {
      job = next_();
    } catch (...) {
      error = std::current_exception();
    }
    const auto t1 = Clock::now();
    std::unique_lock lock(mutex_);
    stats_.walk_s += seconds(t1 - t0);
    if (!job) {
      walk_error_ = error;
      walked_ = true;
      close_batch(lock);
      batch_done_.notify_all();  // a searcher waiting for more learns there is none
      return;
    }
    // Room for it: at most most_batches_ batches queued (the last one may be filling).
    batch_taken_.wait(lock, [&] { return stopping_ || queued_.size() < most_batches_ || !queued_.back()->closed; });
    stats_.walk_wait_s += seconds(Clock::now() - t1);
    if (stopping_) return;
    add(std::move(*job), lock);
  }
}

void FileJobs::add(FileJob job, std::unique_lock<std::mutex>& lock) {
  if (queued_.empty() || queued_.back()->closed) {
    queued_.push_back(std::make_unique<Batch>());
    queued_.back()->jobs.reserve(kBatchJobs);
  }
  queued_.back()->jobs.push_back(std::move(job));
  if (queued_.back()->jobs.size() == kBatchJobs) close_batch(lock);
}

void FileJobs::close_batch(std::unique_lock<std::mutex>& /*lock*/) {
  if (queued_.empty() || queued_.back()->closed) return;
  Batch* batch = queued_.back().get();
  batch->closed = true;
  not_begun_.push_back(batch);
  batch_added_.notify_one();
  if (queued_.front().get() == batch) batch_done_.notify_one();  // the searcher may wait for it
}

std::optional<FileJob> FileJobs::take_first() {
  const auto t0 = Clock::now();
  double helping = 0;
  std::unique_lock lock(mutex_);
  // The first batch, once the walker has closed it (a batch being filled is not taken: the
  // threads would get nothing while the walk keeps pace with the searcher).
  batch_done_.wait(lock, [&] { return walked_ || (!queued_.empty() && queued_.front()->closed); });
  if (queued_.empty()) {
    if (walk_error_) std::rethrow_exception(std::exchange(walk_error_, nullptr));
    return std::nullopt;
  }
  Batch* first = queued_.front().get();
  if (!first->begun) {
    // No thread has begun it: the caller searches its jobs itself at once rather than wait.
    not_begun_.erase(not_begun_.begin());  // (the first closed one not begun)
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
  ++stats_.jobs;
  FileJob job = std::move(first->jobs[first->next++]);
  if (first->next == first->jobs.size()) {
    queued_.pop_front();
    batch_taken_.notify_one();  // room for the walker
  }
  return job;
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
