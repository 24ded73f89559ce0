// Inputs searched ahead on threads of their own (ripgrep searches files in parallel): a
// thread of its own walks the inputs (cli/input_walk.hpp) and queues them, in order, in
// batches of consecutive inputs; each thread takes the next batch not yet taken and searches its inputs
// whole into memory (a capturing printer, Sink::make_capturing), their stderr lines and
// totals too; the searcher takes them back in the order queued and hands them on, so the
// output is byte for byte the one-at-a-time search's. An input a thread does not search (not
// a small regular file, or past what a batch may hold) comes back marked `again`: the
// searcher searches it itself, in its turn. Batches, not single inputs, are what the threads
// wait for and take: a file of a source tree is searched in microseconds, about what waking
// a thread costs.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "printer/sink.hpp"

namespace warpmatch::cli {

/// One queued input and, once done, what its search gave.
struct FileJob {
  std::string path;
  bool regular = false;  // a regular file by its directory's listing (InputWalk::last_is_regular)
  /// Done when queued, nothing to search: a directory of -r that could not be read (its
  /// message in `errors`).
  bool settled = false;
  /// Not searched ahead: the searcher searches it itself when its turn comes.
  bool again = false;
  std::string output;  // what it printed on stdout
  std::string errors;  // its lines on stderr
  SearchTotals totals;  // bytes, matches, errors, scan seconds (not inputs: the searcher counts them)
  bool printed_line = false;  // -A / -B / -C: it printed a line (the "--" before its first group)
};

class FileJobs {
 public:
  /// Queues the jobs `next()` gives (on a thread of its own, until it gives none) and runs
  /// `search(thread, job)` for each job that is not settled on `threads` threads of their
  /// own, batch after batch, and on the caller's thread while take_first() waits; `thread` in
  /// [0, threads] names the thread's own state (`threads`: the caller's). A batch whose jobs
  /// printed more than `most_batch_output` bytes leaves its next jobs `again` (memory stays
  /// bounded by the queue). The queue holds `most_batches` batches.
  using Next = std::function<std::optional<FileJob>()>;
  using Search = std::function<void(int thread, FileJob& job)>;
  FileJobs(Next next, int threads, std::size_t most_batches, std::size_t most_batch_output, Search search);
  /// Stops the threads (jobs not begun are dropped) and waits for them.
  ~FileJobs();
  FileJobs(const FileJobs&) = delete;
  FileJobs& operator=(const FileJobs&) = delete;

  /// The job queued first, taken out of the queue once its batch is done; nullopt once
  /// every job was taken. When no thread has begun its batch, every job of the batch comes
  /// back `again` at once (the searcher searches them itself rather than wait). While a
  /// thread searches it, the caller searches the next batch not begun, if any, rather than
  /// wait. Rethrows what `next()` threw, in its turn.
  std::optional<FileJob> take_first();

  static constexpr std::size_t kBatchJobs = 16;

  /// Where the time went (--stats): batches searched by the threads, by the caller while it
  /// waited, and taken whole by the caller (none begun); seconds the caller waited, the walk
  /// took (its next() calls) and waited for room, and the threads waited for batches.
  struct Stats {
    std::uint64_t batches_by_threads = 0, batches_helped = 0, batches_taken = 0, jobs = 0;
    double caller_wait_s = 0, walk_s = 0, walk_wait_s = 0, threads_idle_s = 0;
  };
  Stats stats() const;

 private:
  struct Batch {
    std::vector<FileJob> jobs;
    bool begun = false, done = false;
  };
  void work(int thread);
  /// The walking thread: next() into batches, each queued whole (one lock a batch: the
  /// searcher's thread takes it for every batch too).
  void walk();
  /// Searches `batch` (taken by this thread) and marks it done.
  void search_batch(int thread, Batch& batch);

  Next next_;
  const std::size_t most_batches_, most_batch_output_;
  Search search_;
  mutable std::mutex mutex_;
  std::condition_variable batch_added_, batch_done_, batch_taken_;
  std::deque<std::unique_ptr<Batch>> queued_;  // in input order
  std::deque<Batch*> not_begun_;               // the batches no thread has taken yet
  std::vector<FileJob> taken_;                 // the caller's: the last batch it took
  std::size_t taken_next_ = 0;                 // the next of taken_ to hand out
  bool stopping_ = false;
  Stats stats_;
  bool walked_ = false;              // next() gave no more (or threw)
  std::exception_ptr walk_error_;    // what next() threw, after the jobs before it
  std::vector<std::thread> threads_;
  std::thread walker_;
  int caller_;  // the caller's `thread` index
};

}  // namespace warpmatch::cli
