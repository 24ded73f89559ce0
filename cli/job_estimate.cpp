#include "job_estimate.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "io/decompress.hpp"

namespace warpmatch::cli {
namespace {

// Decompressed bytes per stored byte assumed for compressed inputs (DNA and text: 3-4x).
constexpr std::uint64_t kAssumedRatio = 4;

struct InputShape {
  std::uint64_t bytes = 0;  // 0 = unknown (a pipe)
  TextSource source = TextSource::memory;
};

InputShape shape_of(const std::string& path, int threads) {
  InputShape s;
  // Only regular files are opened here: opening a FIFO would wait for its writer, and the
  // bytes it then sent would be lost to the search (issue 16).
  struct stat path_st {};
  if (path != "-" && (::stat(path.c_str(), &path_st) != 0 || !S_ISREG(path_st.st_mode))) {
    s.source = TextSource::stream;
    return s;
  }
  const int fd = path == "-" ? 0 : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return s;  // the search reports the error
  struct stat st {};
  std::uint8_t head[18] = {};
  ssize_t got = 0;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    s.bytes = static_cast<std::uint64_t>(st.st_size);
    got = ::pread(fd, head, sizeof head, 0);
  } else {
    s.source = TextSource::stream;  // a pipe: its first bytes are the search's, not ours
  }
  if (fd != 0) ::close(fd);
  if (got > 0) {
    switch (io::detect_compression(ByteSpan(head, static_cast<std::size_t>(got)))) {
      // zstd (and small gzip members) decode one stream on one thread; BGZF and a large gzip
      // member (decompress.hpp's thresholds, the member's size taken as the file's) on all.
      case io::Compression::gzip:
        s.source = io::gzip_member_in_parallel(s.bytes, threads) ? TextSource::parallel_gzip : TextSource::gzip;
        s.bytes *= kAssumedRatio;
        break;
      case io::Compression::zstd: s.source = TextSource::gzip, s.bytes *= kAssumedRatio; break;
      case io::Compression::bgzf: s.source = TextSource::parallel_decode, s.bytes *= kAssumedRatio; break;
      case io::Compression::none:
        if (head[0] == '>' || head[0] == '@') s.source = TextSource::stream;  // FASTA/FASTQ parsing
        break;
    }
  }
  return s;
}

}  // namespace

BackendChoice resolve_backend_for(const std::string& requested, const std::vector<std::string>& files,
                                  JobShape shape) {
  if (requested != "auto") {
    BackendChoice c;
    c.backend = parse_backend(requested);
    c.reason = "--backend " + requested;
    return c;
  }
  // The whole job's bytes; its input rate is that of the largest input.
  std::uint64_t total = 0, largest = 0;
  bool unknown = false;
  for (const std::string& f : files) {
    const InputShape s = shape_of(f, shape.threads);
    if (s.bytes == 0 && s.source == TextSource::stream) unknown = true;
    total += s.bytes;
    if (s.bytes >= largest) largest = s.bytes, shape.source = s.source;
  }
  shape.text_bytes = unknown ? 0 : total;
  return choose_backend(shape);
}

}  // namespace warpmatch::cli
