// `warpmatch-bench approx`: seed paper 000's Table 1 workload and a large-text throughput row;
// `warpmatch-bench approx-sets`: many short patterns (issue 15).
#pragma once

#include <cstdint>
#include <string>

namespace warpmatch::bench {

struct BenchApproxOptions {
  std::uint64_t text_bytes = 4ull << 20;      // |Y| of the paper's Table 1 (4 Mi random '0'/'1')
  std::uint64_t big_text_bytes = 1ull << 30;  // throughput row (m = 256); 0 = skip
  std::string lengths = "32,64,128,256,512,1024";  // pattern lengths m
  std::string wavefront_blocks = "16,32,64,128,256,512,1024,2048";  // the paper's D values (Table 1)
  int repeats = 5;                            // timed repeats (median reported)
  int threads = 0;                            // CPU threads; 0 = all
  std::string json_path = "bench_approx.json";
  std::string commit;                         // recorded in JSON; "" = read from git
  bool skip_gpu = false;
  bool skip_edlib_single = false;             // edlib on one thread is the slowest peer
};

/// Runs the benchmark; returns a process exit status (0 ok, 2 error).
int run_bench_approx(const BenchApproxOptions& options);

/// `warpmatch-bench approx-sets` (bench_approx_sets.cpp): issue 15's rows, many 20-mers.
struct BenchApproxSetsOptions {
  std::uint64_t single_bytes = 1ull << 30;  // one 20-mer, one thread and all (0 = skip)
  std::uint64_t set_bytes = 256ull << 20;   // 100 and 1000 20-mers (0 = skip)
  int repeats = 3;
  int threads = 0;                          // CPU threads; 0 = all
  std::string json_path = "bench_approx_sets.json";
  std::string commit;
  bool skip_gpu = false;
};
int run_bench_approx_sets(const BenchApproxSetsOptions& options);

}  // namespace warpmatch::bench
