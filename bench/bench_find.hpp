// `warpmatch-bench find`: exact search of one pattern over generated English-like text (GPU
// resident and host-fed, CPU backend, ripgrep). Prints a table, writes JSON.
#pragma once

#include <cstdint>
#include <string>

namespace warpmatch::bench {

struct BenchFindOptions {
  std::uint64_t text_bytes = 1ull << 30;  // size of the generated English-like text
  int repeats = 5;                         // timed repeats per measurement (median reported)
  int threads = 0;                         // CPU threads for the CPU backend; 0 = all
  std::string json_path = "bench_find.json";
  std::string rg_path = "rg";              // ripgrep executable ("" or "none" = skip peer)
  std::string words_file;                  // word list for the text; "" = built-in generator
  std::string commit;                      // recorded in JSON; "" = read from git if possible
  std::string tmp_dir;                     // where ripgrep's copy of the text goes; "" = the
                                           // system's temporary directory ($TMPDIR or /tmp)
  bool skip_gpu = false;
};

/// Runs the exact-search benchmark; returns a process exit status (0 ok, 2 error).
int run_bench_find(const BenchFindOptions& options);

}  // namespace warpmatch::bench
