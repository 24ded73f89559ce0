// Inputs searched ahead on threads of their own (ripgrep searches files in parallel): the
// searcher (cli/searcher.hpp) queues the next inputs of its walk, in order; each thread takes
// the next one not yet taken and searches it whole into memory (a capturing printer, Sink::
// make_capturing), its stderr lines and totals too; the searcher takes them back in the
// order queued and hands them on, so the output is byte for byte the one-at-a-time search's.
// An input a thread does not search (not a small regular file, or whose output outgrew the
// capture) comes back marked `again`: the searcher searches it itself, in its turn.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "printer/sink.hpp"

namespace warpmatch::cli {

/// One queued input and, once done, what its search gave.
struct FileJob {
  std::string path;
  bool regular = false;  // a regular file by its directory's listing (InputWalk::last_is_regular)
  /// Not searched ahead: the searcher searches it itself when its turn comes.
  bool again = false;
  std::string output;  // what it printed on stdout
  std::string errors;  // its lines on stderr (an input that failed; a directory of -r)
  SearchTotals totals;  // bytes, matches, errors, scan seconds (not inputs: the searcher counts them)
  bool printed_line = false;  // -A / -B / -C: it printed a line (the "--" before its first group)
};

class FileJobs {
 public:
  /// Runs `search(thread, job)` for each queued job on `threads` threads of its own;
  /// `thread` in [0, threads) names the thread's own state.
  using Search = std::function<void(int thread, FileJob& job)>;
  FileJobs(int threads, std::size_t most_queued, Search search);
  /// Stops the threads (jobs not begun are dropped) and waits for them.
  ~FileJobs();
  FileJobs(const FileJobs&) = delete;
  FileJobs& operator=(const FileJobs&) = delete;

  bool full() const;
  /// Half of the queue or less is left: time to queue more (then until full(): the threads
  /// are woken in bursts, not for every input).
  bool wants_more() const;
  bool empty() const;
  /// Queues `job` after the others; done at once (nothing to search) when `done`.
  void add(FileJob job, bool done = false);
  /// The job queued first, taken out of the queue once done (waits for it); marked `again`
  /// at once when no thread has begun it (the caller searches it itself).
  FileJob take_first();

 private:
  struct Slot {
    FileJob job;
    bool done = false;
  };
  void work(int thread);

  const std::size_t most_queued_;
  Search search_;
  mutable std::mutex mutex_;
  std::condition_variable job_added_, job_done_;
  std::deque<std::unique_ptr<Slot>> queued_;  // in input order, done or not
  std::deque<Slot*> not_begun_;               // the queued jobs no thread has taken yet
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace warpmatch::cli
