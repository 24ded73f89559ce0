// `warpmatch-bench e2e`'s generated data (e2e_data.cpp): English-like text with a planted
// rare word, random-ACGT FASTA and its gzip / BGZF / zstd copies, sequence pairs and guides,
// each counted as it is written (the oracle of the jobs), and the files it is written with.
#pragma once

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace warpmatch::bench::e2e {

namespace fs = std::filesystem;

inline constexpr std::uint64_t kSeed = 0x6532652d'77617270ull;  // "e2e-warp"
inline constexpr std::string_view kWord = "Sherlock";           // jobs 1, 2, 6: planted, else absent
inline constexpr std::uint64_t kPlants = 50;                     // at most one per line
inline constexpr std::string_view kKmer = "ACGTTGCA";            // jobs 4, 5
inline constexpr std::uint64_t kKmerSetSize = 1000;  // job 11: DNA k-mers with -f
inline constexpr int kKmerSetLength = 12;
inline constexpr std::size_t kListWords = 1000;                  // job 3
inline constexpr std::size_t kMinListWordLength = 4;
inline constexpr std::size_t kLineWidth = 80;
inline constexpr std::uint64_t kTextChunk = 16ull << 20;  // text written in independent chunks
inline constexpr std::uint64_t kMinTextBytes = 64 << 10;
inline constexpr std::uint64_t kMinFastaBytes = 64 << 10;
inline constexpr int kFastaColumns = 60;
inline constexpr int kMaxRecords = 16;
inline constexpr std::uint64_t kTinyBytes = 100;
inline constexpr int kGzipLevel = 6;  // what `gzip` writes by default
inline constexpr int kBgzfLevel = 6;  // bgzip's default (zlib's)
inline constexpr int kZstdLevel = 3;  // zstd's default
inline constexpr std::size_t kBgzfBlockInput = 0xff00;  // as bgzip: the block always fits in 64 KiB
inline constexpr std::uint64_t kGzipChunk = 4ull << 20;  // parts of the member deflated in parallel (pigz-style)
inline constexpr int kPairMinLength = 100, kPairMaxLength = 300;
inline constexpr double kMiB = 1024.0 * 1024.0;
inline constexpr double kRssLimitMiB = 1.2 * 1024.0;  // PERF.md: peak memory <= 1.2 GiB

// The most frequent English words, most frequent first: the first ranks of the Zipf law.
inline constexpr std::string_view kCommonEnglish[] = {
    "the",  "of",   "and",   "to",    "a",     "in",    "is",    "you",   "that",  "it",
    "he",   "was",  "for",   "on",    "are",   "as",    "with",  "his",   "they",  "I",
    "at",   "be",   "this",  "have",  "from",  "or",    "one",   "had",   "by",    "word",
    "but",  "not",  "what",  "all",   "were",  "we",    "when",  "your",  "can",   "said",
    "there", "use", "an",    "each",  "which", "she",   "do",    "how",   "their", "if",
    "will", "up",   "other", "about", "out",   "many",  "then",  "them",  "these", "so",
    "some", "her",  "would", "make",  "like",  "him",   "into",  "time",  "has",   "look"};

/// Throws with the path and errno's message.
[[noreturn]] void fail_io(const std::string& what, const fs::path& p);

/// A file open for writing (created, truncated); pwrite from any thread, or appended in order.
class OutFile {
 public:
  explicit OutFile(const fs::path& p) : path_(p) {
    fd_ = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) fail_io("cannot create", p);
  }
  OutFile(const OutFile&) = delete;
  OutFile& operator=(const OutFile&) = delete;
  ~OutFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  void pwrite_all(const void* data, std::size_t n, std::uint64_t offset) {
    const auto* p = static_cast<const std::uint8_t*>(data);
    while (n > 0) {
      const ssize_t w = ::pwrite(fd_, p, std::min<std::size_t>(n, 1 << 30), static_cast<off_t>(offset));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) fail_io("cannot write", path_);
      p += w, n -= static_cast<std::size_t>(w), offset += static_cast<std::uint64_t>(w);
    }
  }
  void append(const void* data, std::size_t n) {
    pwrite_all(data, n, end_);
    end_ += n;
  }
  void append(std::string_view s) { append(s.data(), s.size()); }
  std::uint64_t size() const { return end_; }

 private:
  fs::path path_;
  int fd_ = -1;
  std::uint64_t end_ = 0;
};

/// A whole file mapped read-only.
class Mapped {
 public:
  explicit Mapped(const fs::path& p) {
    const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail_io("cannot open", p);
    struct stat st {};
    ::fstat(fd, &st);
    size_ = static_cast<std::size_t>(st.st_size);
    if (size_ > 0) {
      void* m = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (m == MAP_FAILED) {
        ::close(fd);
        fail_io("cannot map", p);
      }
      data_ = static_cast<const std::uint8_t*>(m);
    }
    ::close(fd);
  }
  Mapped(const Mapped&) = delete;
  Mapped& operator=(const Mapped&) = delete;
  ~Mapped() {
    if (data_) ::munmap(const_cast<std::uint8_t*>(data_), size_);
  }
  const std::uint8_t* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  const std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
};

struct Vocabulary {
  std::vector<std::string> words;  // by Zipf rank: common English, then the list (shuffled)
  std::size_t common = 0;
  std::string source;
  std::vector<std::string> list_words;  // job 3: kListWords of length >= 4, spread over the ranks
};
/// The word list's plain ASCII words (no possessives, no accents, none containing the rare
/// word in any case), shuffled by a fixed seed; built-in pseudo-words when unreadable.
Vocabulary load_vocabulary(const std::string& path);

struct TextInfo {
  fs::path path;
  std::uint64_t bytes = 0, lines = 0, planted = 0;  // planted = occurrences = lines holding it
  double seconds = 0;
};
/// `bytes` of sentences of Zipf-drawn words (exponent 1), lines of at most kLineWidth bytes,
/// the rare word planted kPlants times (never twice on one line), written in kTextChunk
/// chunks on `threads` threads.
TextInfo write_text(const fs::path& path, std::uint64_t bytes, const Vocabulary& v, int threads);

struct FastaInfo {
  fs::path path;
  std::uint64_t bytes = 0, bases = 0, records = 0;
  std::uint64_t occurrences = 0;  // of kKmer in the records' sequences (overlaps counted)
  std::uint64_t lines_with = 0;   // lines holding a whole occurrence (what `rg -c` counts)
  double seconds = 0;
};
/// Random ACGT records of equal length, kFastaColumns bases per line, ~`bytes` in all; one
/// record per task. The k-mer is counted as the bases are drawn.
FastaInfo write_fasta(const fs::path& path, std::uint64_t bytes, int threads);

struct ReadsInfo {
  fs::path path;
  std::uint64_t bytes = 0, reads = 0;
  std::uint64_t occurrences = 0;  // of kKmer inside the reads (overlaps counted)
  std::uint64_t lines_with = 0;   // reads holding one (what `rg -c` counts: one line per read)
  double seconds = 0;
};
inline constexpr int kReadLength = 150;
/// Job 12: `count` reads of kReadLength random ACGT bases as FASTQ ("@r000000001", the bases,
/// "+", a quality line of 'I'), written in parallel chunks; the k-mer counted as drawn.
ReadsInfo write_reads(const fs::path& path, std::uint64_t count, int threads);

struct TreeInfo {
  fs::path dir;
  std::uint64_t bytes = 0, files = 0, directories = 0, planted = 0;
  double seconds = 0;
};
/// Job 13: `bytes` of write_text's text (the rare word planted) cut at line ends into `files`
/// files of random sizes around the mean (a quarter to 1.75 times it), kTreeFanout files per
/// directory and kTreeFanout directories per directory above them (a source tree's shape).
inline constexpr std::uint64_t kTreeFanout = 50;
TreeInfo write_tree(const fs::path& dir, std::uint64_t bytes, std::uint64_t files, const Vocabulary& v, int threads);

/// `count` DNA k-mers of `length` bases for `find -f`, one per line: the even ones cut from the
/// FASTA's sequence lines (so they occur), the odd ones random ACGT. Returns how many were cut.
std::uint64_t write_kmers(const fs::path& path, const Mapped& fasta, std::uint64_t count, int length,
                          std::uint64_t seed);

struct Compressed {
  std::string kind;  // gzip, bgzf, zstd
  fs::path path;
  std::uint64_t bytes = 0;
  std::string how;
  double seconds = 0;
};
/// One gzip member, like `gzip -6` writes but in parallel (as pigz).
Compressed write_gzip(const Mapped& in, const fs::path& path, int threads);
/// BGZF (SAM specification 4.1): independent gzip members of at most 64 KiB, then the
/// end-of-file block.
Compressed write_bgzf(const Mapped& in, const fs::path& path, int threads);
/// One zstd frame, level 3, libzstd's own worker threads.
Compressed write_zstd(const Mapped& in, const fs::path& path, int threads);

struct PairsInfo {
  fs::path path;
  std::uint64_t pairs = 0, bytes = 0, a_strings = 0, b_strings = 0;
};
/// The first `n` pairs of the cross product A x B of random ACGT strings of 100-300 bytes,
/// |A| = ceil(sqrt(n)), |B| = ceil(n / |A|); one `A TAB B` line per pair.
PairsInfo write_pairs(const fs::path& path, std::uint64_t n);

/// `count` random 20-nt guides as FASTA (>g0, >g1, ...).
void write_guides(const fs::path& path, std::uint64_t count, std::uint64_t seed);

}  // namespace warpmatch::bench::e2e
