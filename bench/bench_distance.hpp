// `warpmatch-bench distance`: edit distance of long pairs and batches — GPU paper tiles at
// every block size vs the tuner's choice, GPU bit-parallel stripes (also banded by k), CPU backend, edlib.
#pragma once

#include <cstdint>
#include <string>

namespace warpmatch::bench {

struct BenchDistanceOptions {
  int repeats = 3;             // timed repeats per measurement (median reported)
  int threads = 0;             // CPU threads; 0 = all
  std::string json_path = "bench_distance.json";
  std::string genome_path = "/usr/share/doc/bowtie2/examples/reference/lambda_virus.fa.gz";
  std::string commit;          // recorded in JSON; "" = git rev-parse HEAD if possible
  std::int64_t max_length = 1000000;        // largest random pair (10M adds the GPU-only row)
  std::int64_t edlib_max_length = 100000;   // edlib is O(n d / 64) on one thread: bounded
  std::int64_t cpu_max_length = 1000000;
  std::int64_t batch_pairs = 100000;
  bool skip_gpu = false;
};

int run_bench_distance(const BenchDistanceOptions& options);

}  // namespace warpmatch::bench
