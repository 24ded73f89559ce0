#include "io/input_estimate.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "io/decompress.hpp"

namespace warpmatch::io {

namespace {

// Decompressed bytes per stored byte assumed for compressed inputs (DNA and text: 3-4x).
constexpr std::uint64_t kAssumedRatio = 4;

// The rest from the content's first bytes (`stored` bytes in all).
InputEstimate from_head(ByteSpan head, std::uint64_t stored, int threads) {
  InputEstimate s{stored, TextSource::memory};
  if (head.empty()) return s;
  switch (detect_compression(head)) {
    // zstd (and small gzip members) decode one stream on one thread; BGZF and a large gzip
    // member (decompress.hpp's thresholds, the member's size taken as the file's) on all.
    case Compression::gzip:
      s.source = gzip_member_in_parallel(stored, threads) ? TextSource::parallel_gzip : TextSource::gzip;
      s.bytes *= kAssumedRatio;
      break;
    case Compression::zstd: s.source = TextSource::gzip, s.bytes *= kAssumedRatio; break;
    case Compression::bgzf: s.source = TextSource::parallel_decode, s.bytes *= kAssumedRatio; break;
    case Compression::none:
      if (head[0] == '>' || head[0] == '@') s.source = TextSource::stream;  // FASTA/FASTQ parsing
      break;
  }
  return s;
}

}  // namespace

InputEstimate estimate_input(const std::string& path, int threads) {
  struct stat path_st {};
  if (path != "-" && (::stat(path.c_str(), &path_st) != 0 || !S_ISREG(path_st.st_mode)))
    return {0, TextSource::stream};
  const int fd = path == "-" ? 0 : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};  // the search reports the error
  struct stat st {};
  std::uint8_t head[18] = {};
  ssize_t got = 0;
  InputEstimate s{0, TextSource::stream};  // a pipe: its first bytes are the search's, not ours
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    got = ::pread(fd, head, sizeof head, 0);
    s = from_head(ByteSpan(head, got > 0 ? static_cast<std::size_t>(got) : 0), static_cast<std::uint64_t>(st.st_size),
                  threads);
  }
  if (fd != 0) ::close(fd);
  return s;
}

InputEstimate estimate_input(ByteSpan content, int threads) {
  return from_head(content.first(std::min<std::size_t>(content.size(), 18)), content.size(), threads);
}

}  // namespace warpmatch::io
