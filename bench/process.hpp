// Running a peer program for `warpmatch-bench find` (ripgrep) and the files it reads: a
// child started with posix_spawn, its output captured, its wall clock from spawn to reaped; a
// temporary directory removed at the end.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "warpmatch/common.hpp"

namespace warpmatch::bench {

struct SpawnResult {
  bool started = false;
  std::string spawn_error;  // why it could not start
  int exit_code = -1;       // -1 when killed by a signal
  std::string out, err;
  double ms = 0;            // wall clock from spawn to reaped
};

/// Runs argv[0] (searched in PATH when it has no '/'), stdin from /dev/null, stdout and
/// stderr captured; the wall clock covers fork/exec to waitpid.
SpawnResult spawn_capture(const std::vector<std::string>& argv);

/// A directory removed (with its files) when this goes out of scope.
struct TempDir {
  std::filesystem::path path;
  TempDir() = default;
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir();
};

/// Creates a fresh directory in `base` (warpmatch-bench-XXXXXX); returns an error message or "".
std::string make_temp_dir(TempDir& dir, const std::string& base);

/// Writes `bytes` to a new file; returns an error message or "".
std::string write_file(const std::filesystem::path& path, ByteSpan bytes);

}  // namespace warpmatch::bench
