// How `warpmatch-bench e2e` times a command (e2e_spawner.cpp): started with posix_spawn from
// a helper process forked before the benchmark allocates anything, reaped with wait4 (wall
// clock from spawn to reap, peak resident memory), killed with its process group when it
// outlives the run timeout.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace warpmatch::bench::e2e {

struct RunResult {
  bool ok = false;      // started, not killed, exit status 0 or 1 (grep's "no match")
  std::string error;    // why not ok
  int exit_code = -1;
  double wall_s = 0;    // posix_spawn to wait4
  double max_rss_mib = 0;
  std::string out, err;
};

/// Starts the timed commands from a helper process forked before the benchmark allocates
/// anything. Why: exec records the high-water RSS of the address space it replaces into the
/// new program's ru_maxrss, and posix_spawn's child shares the caller's (vfork), so a command
/// spawned from the benchmark itself would report at least the benchmark's own peak (the
/// generated data). The helper's is a few MiB; `baseline` measures it with /bin/true.
class Spawner {
 public:
  Spawner();
  Spawner(const Spawner&) = delete;
  Spawner& operator=(const Spawner&) = delete;
  ~Spawner();

  /// Runs argv; stdout and stderr go to files in `scratch`, read back after the clock stopped.
  RunResult run(const std::vector<std::string>& argv, const std::filesystem::path& scratch, double timeout_s);

 private:
  static void serve(int in, int out);

  pid_t helper_ = -1;
  int to_ = -1, from_ = -1;
};

}  // namespace warpmatch::bench::e2e
