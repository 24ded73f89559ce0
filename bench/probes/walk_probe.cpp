// -r's walk alone (cli/input_walk.cpp), three times over DIR: files a second, per file.
// Built and run by bench/probes/tree_scaling.sh on the GPU machine:
//   g++ -O2 -std=c++20 -Icli -Isrc -Iinclude bench/probes/walk_probe.cpp cli/input_walk.cpp
#include <chrono>
#include <cstdio>
#include "input_walk.hpp"
int main(int argc, char** argv) {
  for (int r = 0; r < 3; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    warpmatch::cli::InputWalk walk({argv[1]}, true);
    std::size_t n = 0, bytes = 0;
    while (auto p = walk.next()) { ++n; bytes += p->size(); }
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%zu files, %.1f ms, %.2f us/file\n", n, s * 1e3, s * 1e6 / n);
  }
}
