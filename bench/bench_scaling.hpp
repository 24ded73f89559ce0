// `warpmatch-bench scaling` (bench_scaling.cpp): one job over 1, 2, 4, 8 GPUs (as many as the
// machine has) through Execution::devices, speed-up against one GPU per row, and the aggregate
// host-to-device bandwidth with every GPU copying at once, measured in the same run.
#pragma once

#include <cstdint>
#include <string>

namespace warpmatch::bench {

struct BenchScalingOptions {
  std::uint64_t text_bytes = 4ull << 30;      // exact and 1000-literal rows (random ACGT)
  std::uint64_t approx_bytes = 256ull << 20;  // approx with 1000 guides (as approx-sets' 1000 row)
  std::uint64_t pairs = 1000000;              // batched distance pairs (150 nt)
  std::uint64_t copy_bytes = 1ull << 30;      // per GPU, for the aggregate bandwidth
  int max_gpus = 8;
  int repeats = 3;
  std::string json_path = "bench_scaling.json";
  std::string commit;
};

/// Runs the benchmark; 0, or 2 when a row's result differs from one GPU's, a row failed, or
/// fewer than one GPU is visible.
int run_bench_scaling(const BenchScalingOptions& options);

}  // namespace warpmatch::bench
