#include "file_jobs.hpp"

#include <utility>

namespace warpmatch::cli {

FileJobs::FileJobs(int threads, std::size_t most_queued, Search search)
    : most_queued_(most_queued), search_(std::move(search)) {
  threads_.reserve(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t) threads_.emplace_back([this, t] { work(t); });
}

FileJobs::~FileJobs() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  job_added_.notify_all();
  for (std::thread& t : threads_) t.join();
}

bool FileJobs::full() const {
  std::lock_guard lock(mutex_);
  return queued_.size() >= most_queued_;
}

bool FileJobs::wants_more() const {
  std::lock_guard lock(mutex_);
  return queued_.size() <= most_queued_ / 2;
}

bool FileJobs::empty() const {
  std::lock_guard lock(mutex_);
  return queued_.empty();
}

void FileJobs::add(FileJob job, bool done) {
  auto slot = std::make_unique<Slot>();
  slot->job = std::move(job);
  slot->done = done;
  {
    std::lock_guard lock(mutex_);
    if (!done) not_begun_.push_back(slot.get());
    queued_.push_back(std::move(slot));
  }
  if (!done) job_added_.notify_one();
}

FileJob FileJobs::take_first() {
  std::unique_lock lock(mutex_);
  Slot* first = queued_.front().get();
  if (!first->done && !not_begun_.empty() && not_begun_.front() == first) {
    // No thread has begun it: the caller searches it itself at once rather than wait.
    not_begun_.pop_front();
    first->job.again = true;
    first->done = true;
  }
  job_done_.wait(lock, [&] { return first->done; });
  FileJob job = std::move(queued_.front()->job);
  queued_.pop_front();
  return job;
}

void FileJobs::work(int thread) {
  for (;;) {
    Slot* slot = nullptr;
    {
      std::unique_lock lock(mutex_);
      job_added_.wait(lock, [&] { return stopping_ || !not_begun_.empty(); });
      if (stopping_) return;
      slot = not_begun_.front();
      not_begun_.pop_front();
    }
    try {
      search_(thread, slot->job);
    } catch (...) {
      // Anything the search did not handle itself (out of memory, a write error of a
      // capturing printer cannot happen): the searcher tries the input again itself, where
      // the error reaches the user as it would have.
      slot->job.again = true;
    }
    bool first = false;
    {
      std::lock_guard lock(mutex_);
      slot->done = true;
      first = queued_.front().get() == slot;  // the one the caller waits for, if it waits
    }
    if (first) job_done_.notify_one();
  }
}

}  // namespace warpmatch::cli
