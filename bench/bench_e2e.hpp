// `warpmatch-bench e2e`: the command line timed as a user runs it — process start to exit,
// peak memory from wait4 — on generated files warm in the page cache, next to the peers
// (ripgrep, seqkit, zcat/zstd | ripgrep, StringZilla when importable) in the same run.
// Jobs (issue 12): 1 one rare word in a big text file, 2 the same through a pipe, 3 1000 words
// with -f, 4 an 8-mer in a FASTA, 5 that FASTA as gzip / BGZF / zstd, 6 a 100-byte file,
// 7 `distance --pairs` on 100,172 pairs, 8 degenerate primers on both strands (vs seqkit
// locate -d), 9 CRISPR off-targets of 1000 guides (issue 14), 10 10,000 guides within 3 edits
// on both strands of a 3 Gbp genome (issue 15), 11 1000 DNA 12-mers with -f in job 4's FASTA
// (vs rg -F -c -f), 12 an 8-mer in 4 M reads of 150 nt, FASTQ (vs rg -F -c and seqkit locate),
// 13 one rare word in a tree of 50,000 small files, `find -r` (vs rg -F -c).
// Prints a table, writes JSON.
#pragma once

#include <cstdint>
#include <string>

namespace warpmatch::bench {

struct BenchE2EOptions {
  std::uint64_t text_bytes = 8ull << 30;   // English-like text of jobs 1-3
  std::uint64_t fasta_bytes = 1ull << 30;  // FASTA of jobs 4-5 (compressed copies for 5)
  std::uint64_t pairs = 100172;            // job 7: pairs of the cross product (317 x 316)
  std::uint64_t sequence_bytes = 64ull << 20;  // FASTA of jobs 8-9 (seqkit locate -d is slow)
  /// FASTA of job 8 alone (primers vs seqkit locate -d at a genome's size: 256 MiB, a
  /// C. elegans, fits the GPU machine's 10-minute limit); 0 = job 8 searches sequence_bytes'.
  std::uint64_t primers_genome_bytes = 0;
  std::uint64_t guides = 1000;             // job 9: guides of 20 nt, NGG, <= 4 mismatches
  std::uint64_t set_guides = 10000;        // job 10: 20-nt guides, approx -k 3 --strand both -f
  std::uint64_t set_genome_bytes = 3000000000;  // job 10: random-ACGT FASTA (a human genome's size)
  std::uint64_t reads = 4000000;           // job 12: reads of 150 nt (1.26 GB of FASTQ)
  std::uint64_t tree_bytes = 1ull << 30;   // job 13: English-like text cut into a tree of files
  std::uint64_t tree_files = 50000;        // job 13: files of the tree (~21 KiB each by default)
  int repeats = 3;                         // timed runs after one warm-up (median reported)
  int threads = 0;                         // -j for warpmatch and the peers; 0 = their default
  std::string json_path = "bench_e2e.json";
  std::string warpmatch_path;              // the CLI timed; "" = `warpmatch` beside this program
  std::string dir;                         // where the data goes; "" = the system's temporary
                                           // directory (std::filesystem::temp_directory_path)
  bool keep = false;                       // keep the generated data
  std::string words_file = "/usr/share/dict/words";  // "" or unreadable = built-in words
  std::string rg_path = "rg";              // "none" skips the peer
  std::string seqkit_path = "seqkit";      // "none" skips the peer
  std::string zstd_path = "zstd";          // decompressor of the .zst peer; "none" skips it
  std::string commit;                      // "" = git rev-parse HEAD of the source tree
  std::string rows;                        // "" = all; else e.g. "1,2,5" or "word,gz,tiny"
  bool skip_gpu = false;                   // no --backend cuda rows
  double run_timeout_s = 600;              // a run taking longer is killed (row failed)
};

/// Runs the end-to-end benchmark; returns a process exit status (0 ok, 2 error, a failed
/// warpmatch or peer run, or a count that disagrees).
int run_bench_e2e(const BenchE2EOptions& options);

}  // namespace warpmatch::bench
