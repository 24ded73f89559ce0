// `warpmatch-bench multi`: multi-pattern exact search — the paper's experiment (M-BNDM),
// 1 GiB with 1000 and 100,000 literals, English words in English text; GPU resident and
// host-fed, the paper's GPU kernel, the CPU backend, Hyperscan on one core and on all cores.
#pragma once

#include <cstdint>
#include <string>

namespace warpmatch::bench {

struct BenchMultiOptions {
  std::uint64_t text_bytes = 1ull << 30;      // the large-text workloads
  std::uint64_t paper_bytes = 20'000'000;     // the paper's 20 MB
  std::uint64_t english_bytes = 256ull << 20; // English text (licence texts, repeated)
  std::size_t english_words = 20000;          // words taken evenly from the list (0 = all)
  int repeats = 3;                            // timed repeats (median reported)
  int threads = 0;                            // CPU threads; 0 = all
  std::string json_path = "bench_multi.json";
  std::string words_file = "/usr/share/dict/words";
  std::string commit;                         // "" = git rev-parse HEAD if possible
  bool skip_gpu = false;
  bool skip_hyperscan = false;
};

int run_bench_multi(const BenchMultiOptions& options);

}  // namespace warpmatch::bench
