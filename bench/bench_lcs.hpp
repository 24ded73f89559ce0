// `warpmatch-bench lcs`: longest common substring — GPU diagonal (paper 004), GPU and CPU
// suffix array vs libdivsufsort + Kasai on one thread.
#pragma once

#include <cstdint>
#include <string>

namespace warpmatch::bench {

/// Runs the benchmark; returns a process exit status (0 ok, 2 methods disagree).
int run_bench_lcs(std::uint64_t large_bytes, bool with_100mb, int repeats, int threads,
                  const std::string& json_path, const std::string& commit, bool skip_gpu);

}  // namespace warpmatch::bench
