#include "file_jobs.hpp"

#include <utility>

namespace warpmatch::cli {

FileJobs::FileJobs(int threads, std::size_t most_batches, std::size_t most_batch_output, Search search)
    : most_batches_(most_batches), most_batch_output_(most_batch_output), search_(std::move(search)), caller_(threads) {
  threads_.reserve(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t) threads_.emplace_back([this, t] { work(t); });
}

FileJobs::~FileJobs() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  batch_added_.notify_all();
  for (std::thread& t : threads_) t.join();
}

bool FileJobs::full() const {
  std::lock_guard lock(mutex_);
  return queued_.size() >= most_batches_ && queued_.back()->closed;
}

bool FileJobs::empty() const {
  std::lock_guard lock(mutex_);
  return queued_.empty();
}

void FileJobs::add(FileJob job) {
  bool closed = false;
  {
    std::lock_guard lock(mutex_);
    if (queued_.empty() || queued_.back()->closed) {
      queued_.push_back(std::make_unique<Batch>());
      queued_.back()->jobs.reserve(kBatchJobs);
    }
    Batch& batch = *queued_.back();
    batch.jobs.push_back(std::move(job));
    if (batch.jobs.size() == kBatchJobs) {
      batch.closed = closed = true;
      not_begun_.push_back(&batch);
    }
  }
  if (closed) batch_added_.notify_one();
}

void FileJobs::close_batch() {
  {
    std::lock_guard lock(mutex_);
    if (queued_.empty() || queued_.back()->closed) return;
    queued_.back()->closed = true;
    not_begun_.push_back(queued_.back().get());
  }
  batch_added_.notify_one();
}

FileJob FileJobs::take_first() {
  std::unique_lock lock(mutex_);
  Batch* first = queued_.front().get();
  if (!first->begun) {
    // No thread has begun it: the caller searches its jobs itself at once rather than wait.
    if (first->closed) not_begun_.erase(not_begun_.begin());  // (the first closed one not begun)
    first->closed = first->begun = first->done = true;
    for (FileJob& job : first->jobs) job.again = !job.settled;
  }
  while (!first->done && !not_begun_.empty()) {  // a batch further on, meanwhile
    Batch* later = not_begun_.front();
    not_begun_.pop_front();
    later->begun = true;
    lock.unlock();
    search_batch(caller_, *later);
    lock.lock();
  }
  batch_done_.wait(lock, [&] { return first->done; });
  FileJob job = std::move(first->jobs[first->next++]);
  if (first->next == first->jobs.size()) queued_.pop_front();
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
      std::unique_lock lock(mutex_);
      batch_added_.wait(lock, [&] { return stopping_ || !not_begun_.empty(); });
      if (stopping_) return;
      batch = not_begun_.front();
      not_begun_.pop_front();
      batch->begun = true;
    }
    search_batch(thread, *batch);
  }
}

}  // namespace warpmatch::cli
