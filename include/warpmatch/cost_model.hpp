// warpmatch — which backend is faster for one whole job, end to end (what `auto` uses in the
// command line): the CPU's scan rate over its threads against the GPU's start-up, transfer
// and scan, both capped by how fast the input arrives (a pipe, a decompressor). Deciding
// costs no CUDA initialisation: a GPU is looked for through the driver's files only.
//
//   warpmatch::JobShape job{.operation = warpmatch::Operation::exact, .text_bytes = n};
//   warpmatch::BackendChoice c = warpmatch::choose_backend(job);   // c.backend, c.reason
#pragma once

#include <cstdint>
#include <string>

#include "warpmatch/common.hpp"

namespace warpmatch {

enum class Operation { exact, multi, approx, distance };

/// Where the job's text comes from, which bounds its rate whatever the backend.
enum class TextSource {
  memory,   // in memory or a regular file in the page cache (mapped)
  stream,   // a pipe or FASTA/FASTQ parsing: read and copied on the CPU
  gzip,     // one compressed stream (gzip, zstd): one decoding thread
  parallel_decode,  // BGZF: blocks decoded by several threads
  parallel_gzip,    // one large gzip member in a file, decoded in chunks on several threads
};

struct JobShape {
  Operation operation = Operation::exact;
  std::uint64_t text_bytes = 0;      // bytes to search (estimate); 0 = unknown
  TextSource source = TextSource::memory;
  std::uint64_t patterns = 1;        // patterns in the set
  std::uint64_t pattern_length = 1;  // longest pattern
  int threads = 0;                   // CPU threads the CPU backend would use; 0 = all
  std::uint64_t cells = 0;           // distance: |A| x |B| summed over the pairs
  // approx, the CPU's route: where the set may take the pigeonhole seed filter (no IUPAC
  // codes, every hit within k, not best mode), k (edits or mismatches) and the shortest
  // pattern; the estimate then takes the filter's rate where it beats the set pass's, as the
  // CPU backend's own choice would. seed_k < 0: the filter does not apply.
  std::int64_t seed_k = -1;
  std::uint64_t shortest_pattern = 0;
  /// exact and multi-pattern search with grep's line output (--lines, -v, context): the CPU
  /// searches each line only up to its first hit, the GPU lists every hit (on English text
  /// with 1000 words, 4 GiB: 4.1-5.5 s against 13.7-16.3 s); the CPU is taken.
  bool line_output = false;
  /// CUDA already runs in this process (a long-lived caller, e.g. a Python matcher that has
  /// used the GPU): a GPU call then costs its launch and copies, not CUDA's start-up.
  bool cuda_running = false;
};

struct BackendChoice {
  Backend backend = Backend::cpu;
  double cpu_seconds = 0;   // the model's estimates
  double cuda_seconds = 0;  // (infinite without a GPU)
  std::string reason;       // one line for --stats
};

/// The faster backend for `job` by the cost model (src/core/cost_model_tuning.hpp holds its
/// measured rates); the CPU whenever no GPU is visible or this build has no CUDA.
BackendChoice choose_backend(const JobShape& job);

/// Whether a CUDA GPU looks present, from the driver's device files, without initialising
/// CUDA (a CUDA start costs ~0.3 s). False in a build without CUDA.
bool gpu_visible_without_init();

}  // namespace warpmatch
