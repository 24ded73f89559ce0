// Rates of the end-to-end cost model (cost_model.cpp), each with the measurement that set it.
// Rates measured on this machine by `warpmatch tune --cost-model` replace them (a file in the
// user's cache directory); environment overrides (WARPMATCH_COST_<NAME>, same units) last.
#pragma once

#include <string>

#include "warpmatch/cost_model.hpp"

namespace warpmatch::core {

struct CostModelPolicy {
  // CUDA context creation, first allocation and module load in a new process: `find -c` of a
  // 100-byte file took 0.42 s with --backend cuda vs 0.003 s with cpu (H200, issue 12).
  double cuda_start_seconds = 0.35;
  // A call on the GPU once CUDA runs in the process (JobShape::cuda_running): launches, the
  // copies of a small text and its result, synchronisation. An upper bound of what a 150-byte
  // `count` cost through the Python API with backend "cuda"; it keeps short texts on the CPU.
  double cuda_call_seconds = 100e-6;
  // Host-to-device copy of page-cache text by the exact/multi pipelines (all cores copy into
  // pinned buffers): 30-39 GB/s of scan in `bench e2e`'s `find -c --backend cuda` over 8 GiB
  // (H200 host, thirteenth session); the bus's 55 GB/s is reached only from pinned memory.
  double cuda_host_feed_gbps = 30.0;
  // Exact search, one pattern, CPU: 88 GB/s over 16 threads on 8 GiB (H200 host) = 5.5/thread.
  double cpu_exact_gbps_per_thread = 5.5;
  // Multi-pattern, CPU: 1000 English words (`bench e2e` job 3) over 2 GiB in 0.30 s wall on
  // 16 threads = 0.445 GB/s per thread (H200 host, fourteenth session; 0.245 before the
  // bitmap filter); small sets run near the exact rate (scaled by 1000 / patterns, capped).
  double cpu_multi_gbps_per_thread_1000 = 0.445;
  // Multi-pattern, GPU: 1.69 TB/s resident for 1000 literals (bench multi, H200).
  double cuda_multi_scan_gbps = 1690.0;
  double cuda_exact_scan_gbps = 2760.0;  // bench find, resident, H200
  // Approximate search, CPU: patterns of <= 64 bytes share one pass over the text (issue 15):
  // 100 20-mers at k = 2 ran 3.8-4.2 GB/s of (text bytes x patterns) per thread on AVX-512,
  // 2.4 on AVX2 (development machine, 7991429); longer patterns, one at a time, ~0.17.
  double cpu_approx_short_gbps_per_thread_pattern = 2.4;
  double cpu_approx_gbps_per_thread_pattern = 0.17;
  // The CPU's seed filter (short patterns, k small against m), in the set pass's units (so a
  // measured set-pass rate scales it too): a cost per text byte plus one per Myers step of the
  // windows it verifies, which random nucleotides put at patterns x (k + 1) x 4^-piece per
  // byte (piece: the shortest pattern / (k + 1)), each m + 3k steps. From the H200 host
  // (README): 100 20-mers at k = 2 over 256 MiB took the filter 0.79-0.89 s against the set
  // pass's 1.39-1.66 s (~1.8x, ~1.9 steps per byte here), and at k = 3 (~11 steps per byte) the
  // set pass stays: 46 pattern-bytes per byte and 4.8 per step.
  double cpu_approx_seed_pattern_bytes_per_byte = 46.0;
  double cpu_approx_seed_pattern_bytes_per_step = 4.8;
  // Approximate search, GPU: 1000 20-mers over 256 MiB in 0.86 - 0.52 s = 0.34 s: about
  // 800 GB/s of (text bytes x patterns) (issue 15, H200).
  double cuda_approx_pattern_gbps = 800.0;
  // Edit distance (bit-parallel Myers) of 20,000 pairs of 100-300 bytes: 21.7 GCUPS per
  // thread (`tune --cost-model` on the 2-core development machine); the GPU's batch kernel
  // runs 12.3 TCUPS (bench distance, H200).
  double cpu_distance_gcups_per_thread = 20.0;
  double cuda_distance_gcups = 12300.0;
  // Input rates that bound every backend, decompressed bytes of a 1 GiB random-ACGT FASTA on
  // the H100 host's 16 cores (bench e2e at 86bd05c): `cat | find` 2.42 GB/s, .gz (ISA-L) 0.66,
  // .zst 0.64 (one stream each: one thread), BGZF 2.75 (all threads).
  double pipe_gbps = 2.4;
  double gzip_gbps = 0.66;
  double parallel_decode_gbps = 2.75;
  // A gzip member of >= 8 MiB in a file on >= 4 threads (io::kParallelGzipMin): 1 GiB FASTA
  // as one pigz-style member, 16 threads, H200 host (bench e2e at 48073ea): 2.14 GB/s.
  double parallel_gzip_gbps = 2.1;

  /// The rates by name (the stored file's keys and WARPMATCH_COST_<NAME> overrides).
  template <class F>
  void for_each(F&& f) {
    f("cuda_start_seconds", cuda_start_seconds);
    f("cuda_call_seconds", cuda_call_seconds);
    f("cuda_host_feed_gbps", cuda_host_feed_gbps);
    f("cpu_exact_gbps_per_thread", cpu_exact_gbps_per_thread);
    f("cpu_multi_gbps_per_thread_1000", cpu_multi_gbps_per_thread_1000);
    f("cuda_multi_scan_gbps", cuda_multi_scan_gbps);
    f("cuda_exact_scan_gbps", cuda_exact_scan_gbps);
    f("cpu_approx_short_gbps_per_thread_pattern", cpu_approx_short_gbps_per_thread_pattern);
    f("cpu_approx_gbps_per_thread_pattern", cpu_approx_gbps_per_thread_pattern);
    f("cpu_approx_seed_pattern_bytes_per_byte", cpu_approx_seed_pattern_bytes_per_byte);
    f("cpu_approx_seed_pattern_bytes_per_step", cpu_approx_seed_pattern_bytes_per_step);
    f("cuda_approx_pattern_gbps", cuda_approx_pattern_gbps);
    f("cpu_distance_gcups_per_thread", cpu_distance_gcups_per_thread);
    f("cuda_distance_gcups", cuda_distance_gcups);
    f("pipe_gbps", pipe_gbps);
    f("gzip_gbps", gzip_gbps);
    f("parallel_decode_gbps", parallel_decode_gbps);
    f("parallel_gzip_gbps", parallel_gzip_gbps);
  }

  /// The defaults above, then the rates `warpmatch tune --cost-model` measured on this
  /// machine (cost_model_path()), then WARPMATCH_COST_<NAME> environment overrides.
  static CostModelPolicy load();
};

/// True when CUDA_VISIBLE_DEVICES hides every GPU (set and empty, or -1).
bool cuda_hidden_by_environment();

/// Where `warpmatch tune --cost-model` stores the measured rates ("" without a cache directory).
std::string cost_model_path();
/// Writes `policy` as "name value" lines; throws Error naming the path when it cannot.
void save_cost_model(const CostModelPolicy& policy, const std::string& path);

/// The model itself, for a given policy and GPU presence (choose_backend() passes the
/// environment's policy and what the driver's files say); tests call it directly. Without
/// `with_reason` the reason stays empty: a caller choosing per call (the Python API) pays a
/// few arithmetic operations, not the formatting of a line.
BackendChoice estimate_backends(const JobShape& job, const CostModelPolicy& policy, bool gpu_visible,
                                bool with_reason = true);

/// The environment's policy (CostModelPolicy::load()), loaded once per process.
const CostModelPolicy& loaded_cost_model();

/// The CPU seed filter's estimated rate (GB/s of text on `threads` threads) for an approx job
/// that may take it, else 0: the CPU backend takes it only where it beats the set pass, so the
/// model's CPU rate is the larger of the two.
double cpu_seed_filter_gbps(const JobShape& job, const CostModelPolicy& policy, int threads);

}  // namespace warpmatch::core
