// The CLI's inputs searched ahead (cli/file_jobs.hpp) and its walk with directories listed
// ahead (cli/input_walk.hpp), as units, many rounds on varying thread counts: jobs come back
// in the order the walk gave them, each searched once (or marked to be searched in its turn),
// settled ones untouched, a walk error after the jobs before it, an early stop joins cleanly;
// the walk with listing threads gives the paths the walk without them gives. (The CLI's own
// output with these: CliFiles.FilesSearchedAheadPrintWhatOneThreadPrints.)
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "file_jobs.hpp"
#include "input_walk.hpp"
#include "temp_dir_test.hpp"

using warpmatch::cli::FileJob;
using warpmatch::cli::FileJobs;
using warpmatch::cli::InputWalk;

TEST(FileJobs, JobsComeBackInWalkOrderEachSearchedOnce) {
  for (int round = 0; round < 120; ++round) {
    const int n = (round * 37) % 400;
    int given = 0;
    auto next = [&]() -> std::optional<FileJob> {
      if (given == n) return std::nullopt;
      FileJob job;
      job.path = std::to_string(given++);
      if (given % 97 == 0) {  // a directory the walk could not read: told in its turn
        job.settled = true;
        job.errors = "walk error";
      }
      return job;
    };
    std::atomic<int> searches{0};
    const int threads = 1 + round % 5;
    FileJobs jobs(next, threads, 1 + round % 4, std::size_t{1} << 20, [&](int thread, FileJob& job) {
      EXPECT_FALSE(job.settled);
      EXPECT_GE(thread, 0);
      EXPECT_LE(thread, threads);  // `threads` is the caller's own, while it waits
      if (job.path.size() % 2 == 0) std::this_thread::yield();
      job.output = "searched " + job.path;
      job.again = std::stoi(job.path) % 50 == 49;  // (as a file too large to take)
      ++searches;
    });
    const bool stops_early = round % 7 == 0;  // -q: the searcher leaves half way
    int expected = 0;
    int again = 0;
    while (!stops_early || expected < n / 2) {
      std::optional<FileJob> job = jobs.take_first();
      if (!job) break;
      ASSERT_EQ(job->path, std::to_string(expected)) << "round " << round;
      if (job->settled) EXPECT_EQ(job->errors, "walk error");
      else if (job->again) ++again;  // searched in its turn by the caller (none, or too large)
      else EXPECT_EQ(job->output, "searched " + job->path);
      ++expected;
    }
    if (!stops_early) {
      EXPECT_EQ(expected, n) << "round " << round;
      EXPECT_FALSE(jobs.take_first().has_value());
      EXPECT_LE(searches.load(), n);
    }
  }
}

TEST(FileJobs, AWalkErrorComesAfterTheJobsBeforeIt) {
  int given = 0;
  auto next = [&]() -> std::optional<FileJob> {
    if (given == 40) throw std::runtime_error("the walk failed");
    FileJob job;
    job.path = std::to_string(given++);
    return job;
  };
  FileJobs jobs(next, 3, 2, std::size_t{1} << 20, [](int, FileJob& job) { job.output = job.path; });
  for (int i = 0; i < 40; ++i) {
    const std::optional<FileJob> job = jobs.take_first();
    ASSERT_TRUE(job.has_value());
    EXPECT_EQ(job->path, std::to_string(i));
  }
  EXPECT_THROW(jobs.take_first(), std::runtime_error);
}

TEST(FileJobs, ABatchHoldsABoundedOutput) {
  int given = 0;
  auto next = [&]() -> std::optional<FileJob> {
    if (given == 64) return std::nullopt;
    FileJob job;
    job.path = std::to_string(given++);
    return job;
  };
  // Each job prints 400 bytes; a batch holds a little more than 1000: the third job of a
  // batch on is left to the caller.
  FileJobs jobs(next, 2, 4, 1000, [](int, FileJob& job) { job.output.assign(400, 'x'); });
  int kept = 0, left = 0;
  while (std::optional<FileJob> job = jobs.take_first()) (job->again ? left : kept) += 1;
  EXPECT_EQ(kept + left, 64);
  EXPECT_GT(left, 0);
  EXPECT_LE(kept, 64 / static_cast<int>(FileJobs::kBatchJobs) * 3);
}

class InputWalkAhead : public warpmatch_test::TempDirTest {};

TEST_F(InputWalkAhead, ListingThreadsGiveThePathsOfTheWalkWithout) {
  // A tree deep and wide enough that listings are requested ahead and some are taken by the
  // walk before a thread began them.
  namespace fs = std::filesystem;
  for (int a = 0; a < 6; ++a)
    for (int b = 0; b < 5; ++b) {
      const fs::path dir = dir_ / ("d" + std::to_string(a)) / ("e" + std::to_string(b)) / "f";
      fs::create_directories(dir);
      for (int c = 0; c < 7; ++c) std::ofstream(dir / ("x" + std::to_string(c))) << "x";
      std::ofstream(dir.parent_path() / "y") << "y";
    }
  fs::create_directories(dir_ / "empty");
  const std::string root = dir_.string();
  for (int threads : {1, 2, 5}) {
    InputWalk plain({root, root + "/d3"}, true, 0), ahead({root, root + "/d3"}, true, threads);
    int files = 0;
    for (;;) {
      const std::optional<std::string> a = plain.next(), b = ahead.next();
      ASSERT_EQ(a, b) << threads << " threads";
      if (!a) break;
      EXPECT_EQ(plain.last_is_regular(), ahead.last_is_regular());
      ++files;
    }
    EXPECT_EQ(files, 6 * 5 * 8 + 5 * 8);
  }
  // Left half way: the listing threads stop with it.
  InputWalk left({root}, true, 3);
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(left.next().has_value());
}
