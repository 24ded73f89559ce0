// Whole inputs: mmap for regular files, read() for pipes/devices, the stream decoders of
// decompress.hpp for gzip / BGZF / zstd, and zero-copy-where-possible FASTA/FASTQ parsing.
#include "io/input.hpp"

#include "io/byte_source.hpp"
#include "io/decompress.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

namespace warpmatch::io {

namespace {

// read() takes ssize_t counts: at most this much at a time.
constexpr std::size_t kMaxIoChunk = std::size_t{1} << 30;
constexpr std::size_t kReadBlock = std::size_t{1} << 20;

[[noreturn]] void fail(const std::string& name, const std::string& what) {
  throw InputError(name + ": " + what);
}

[[noreturn]] void fail_line(const std::string& name, std::uint64_t line, const std::string& what) {
  fail(name, "line " + std::to_string(line) + ": " + what);
}

// malloc/realloc-backed byte buffer: unlike std::vector it does not zero what it reserves,
// and glibc's realloc grows large blocks with mremap (no copy) — both matter at many GiB.
class RawBuffer {
 public:
  RawBuffer() = default;
  RawBuffer(const RawBuffer&) = delete;
  RawBuffer& operator=(const RawBuffer&) = delete;
  RawBuffer(RawBuffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)),
        size_(std::exchange(o.size_, 0)),
        cap_(std::exchange(o.cap_, 0)) {}
  RawBuffer& operator=(RawBuffer&& o) noexcept {
    if (this != &o) {
      std::free(data_);
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
      cap_ = std::exchange(o.cap_, 0);
    }
    return *this;
  }
  ~RawBuffer() { std::free(data_); }

  std::uint8_t* data() { return data_; }
  const std::uint8_t* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return cap_; }
  std::size_t spare() const { return cap_ - size_; }
  std::uint8_t* end() { return data_ + size_; }
  void commit(std::size_t n) { size_ += n; }  // n bytes were written at end()

  // Exact capacity; false when out of memory (the caller names the input in its error).
  bool reserve(std::size_t cap) {
    if (cap <= cap_) return true;
    void* p = std::realloc(data_, cap);
    if (!p) return false;
    data_ = static_cast<std::uint8_t*>(p);
    cap_ = cap;
    return true;
  }
  // Room for `extra` more bytes, growing geometrically (capped at `limit` when it suffices).
  bool grow_for(std::size_t extra, std::size_t limit = SIZE_MAX) {
    const std::size_t need = size_ + extra;
    if (need <= cap_) return true;
    std::size_t cap = std::max({need, cap_ * 2, kReadBlock});
    if (limit >= need) cap = std::min(cap, limit);
    return reserve(cap);
  }
  void append(const std::uint8_t* p, std::size_t n) {
    std::memcpy(data_ + size_, p, n);
    size_ += n;
  }
  void shrink_to_fit() {
    if (size_ == cap_) return;
    if (size_ == 0) {
      std::free(data_);
      data_ = nullptr;
      cap_ = 0;
      return;
    }
    if (void* p = std::realloc(data_, size_)) {
      data_ = static_cast<std::uint8_t*>(p);
      cap_ = size_;
    }
  }
  ByteSpan span() const { return {data_, size_}; }

 private:

  std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t cap_ = 0;
};

[[noreturn]] void fail_oom(const std::string& name, std::size_t bytes) {
  fail(name, "out of memory (needed " + std::to_string(bytes) + " bytes)");
}

// The caller's cap on an input's size (Input::open's limit); 0 = none.
struct SizeLimit {
  std::uint64_t bytes = 0;
  std::string reason;
  void check(const std::string& name, std::uint64_t size) const {
    if (bytes != 0 && size > bytes)
      fail(name, "more than " + std::to_string(bytes) + " bytes" + (reason.empty() ? "" : " (" + reason + ")"));
  }
};

// Reads an fd to EOF in large blocks (pipes, stdin, character devices, /proc files).
RawBuffer read_all(const std::string& name, int fd, const SizeLimit& limit = {}) {
  RawBuffer buf;
  for (;;) {
    limit.check(name, buf.size());
    if (buf.spare() < kReadBlock / 4 && !buf.grow_for(kReadBlock))
      fail_oom(name, buf.capacity() * 2);
    const ssize_t n = ::read(fd, buf.end(), std::min(buf.spare(), kMaxIoChunk));
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(name, std::strerror(errno));
    }
    buf.commit(static_cast<std::size_t>(n));
  }
  buf.shrink_to_fit();
  return buf;
}

// ---- line splitting ----------------------------------------------------------------------

struct Line {
  std::size_t offset = 0;  // into the content
  std::size_t length = 0;  // without "\n" or "\r\n"
  std::uint64_t number = 0;
};

class LineReader {
 public:
  explicit LineReader(ByteSpan b) : b_(b) {}
  bool next(Line& line) {
    if (pos_ >= b_.size()) return false;
    const std::uint8_t* start = b_.data() + pos_;
    const auto* nl = static_cast<const std::uint8_t*>(std::memchr(start, '\n', b_.size() - pos_));
    std::size_t len = nl ? static_cast<std::size_t>(nl - start) : b_.size() - pos_;
    line.offset = pos_;
    pos_ += len + (nl ? 1 : 0);
    if (len > 0 && start[len - 1] == '\r') --len;
    line.length = len;
    line.number = ++number_;
    return true;
  }
  const std::uint8_t* at(const Line& l) const { return b_.data() + l.offset; }

 private:
  ByteSpan b_;
  std::size_t pos_ = 0;
  std::uint64_t number_ = 0;
};

bool is_space(std::uint8_t c) {
  return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

// The header's first word (after the leading '>' or '@').
std::string first_word(const std::uint8_t* p, std::size_t n) {
  std::size_t i = 0;
  while (i < n && !is_space(p[i])) ++i;
  return std::string(reinterpret_cast<const char*>(p), i);
}

}  // namespace

Format detect_format(ByteSpan b) {
  if (b.empty()) return Format::plain;
  if (b[0] == '>') return Format::fasta;
  if (b[0] == '@') {
    // FASTQ only when the third line starts with '+'.
    std::size_t pos = 0;
    for (int i = 0; i < 2; ++i) {
      const void* nl = std::memchr(b.data() + pos, '\n', b.size() - pos);
      if (!nl) return Format::plain;
      pos = static_cast<std::size_t>(static_cast<const std::uint8_t*>(nl) - b.data()) + 1;
    }
    if (pos < b.size() && b[pos] == '+') return Format::fastq;
  }
  return Format::plain;
}

// ---- Impl ----------------------------------------------------------------------------------

struct Input::Impl {
  std::string name;
  Format format = Format::plain;
  bool was_gzip = false;
  void* map = nullptr;  // regular uncompressed files: the read-only mapping
  std::size_t map_len = 0;
  RawBuffer buf;                  // read() or decompressed content
  std::vector<std::uint8_t> vec;  // from_bytes content (uncompressed)
  ByteSpan content;
  RawBuffer seq;  // FASTA sequences that spanned several lines, concatenated
  std::vector<Record> records;

  Impl() = default;
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl() { unmap(); }

  void unmap() {
    if (map) ::munmap(map, map_len);
    map = nullptr;
    map_len = 0;
  }

  // Replaces compressed content by its decompression, releasing the compressed bytes.
  void decompress_if_gzip(const SizeLimit& limit = {}) {
    const Compression kind = detect_compression(content.first(std::min<std::size_t>(content.size(), 18)));
    if (kind == Compression::none) return;
    std::unique_ptr<ByteSource> src =
        decompressing_source(name, kind, std::make_unique<MemorySource>(content));
    RawBuffer out;
    for (;;) {
      if (out.spare() < kReadBlock && !out.grow_for(kReadBlock)) fail_oom(name, out.capacity() * 2);
      const std::size_t n = src->read(out.end(), std::min(out.spare(), kMaxIoChunk));
      if (n == 0) break;
      out.commit(n);
      limit.check(name, out.size());
    }
    out.shrink_to_fit();
    unmap();
    std::vector<std::uint8_t>().swap(vec);
    buf = std::move(out);
    content = buf.span();
    was_gzip = true;
  }

  void parse(Format requested) {
    format = requested == Format::automatic ? detect_format(content) : requested;
    switch (format) {
      case Format::fasta: parse_fasta(); break;
      case Format::fastq: parse_fastq(); break;
      default: records.push_back({std::string(), content}); break;
    }
  }

  void parse_fasta();
  void parse_fastq();
};

void Input::Impl::parse_fasta() {
  // A record whose sequence is one line points straight into the content (no copy); longer
  // ones are copied into `seq`, whose final address is only known at the end, so their spans
  // are patched afterwards.
  struct Pending {
    std::size_t record, offset, length;
  };
  std::vector<Pending> pending;
  LineReader lines(content);
  Line line;
  bool in_record = false;
  std::size_t nlines = 0;
  Line first{};
  std::size_t seq_start = 0;

  auto finish = [&] {
    if (!in_record) return;
    if (nlines <= 1) {
      records.back().sequence = ByteSpan(content.data() + first.offset, nlines ? first.length : 0);
    } else {
      pending.push_back({records.size() - 1, seq_start, seq.size() - seq_start});
    }
  };
  auto append = [&](const Line& l) {
    // The whole content bounds the total, so growth never overshoots it.
    if (!seq.grow_for(l.length, content.size())) fail_oom(name, seq.size() + l.length);
    seq.append(lines.at(l), l.length);
  };

  while (lines.next(line)) {
    if (line.length == 0) continue;  // blank lines are skipped
    const std::uint8_t* p = lines.at(line);
    if (p[0] == '>') {
      finish();
      records.push_back({first_word(p + 1, line.length - 1), ByteSpan()});
      in_record = true;
      nlines = 0;
      first = Line{line.offset + line.length, 0, 0};  // empty span just past the header
      continue;
    }
    if (!in_record) fail_line(name, line.number, "sequence data before the first '>' header");
    if (nlines == 0) {
      first = line;
    } else {
      if (nlines == 1) {
        seq_start = seq.size();
        append(first);
      }
      append(line);
    }
    ++nlines;
  }
  finish();
  seq.shrink_to_fit();
  for (const Pending& pd : pending)
    records[pd.record].sequence = ByteSpan(seq.data() + pd.offset, pd.length);
}

void Input::Impl::parse_fastq() {
  // Every sequence is one line, so records always point into the content.
  LineReader lines(content);
  Line header, sequence, plus, quality;
  for (;;) {
    if (!lines.next(header)) break;
    if (header.length == 0) continue;  // tolerate blank lines between records / at the end
    const std::uint8_t* h = lines.at(header);
    if (h[0] != '@')
      fail_line(name, header.number, "expected a FASTQ header line starting with '@'");
    std::string rname = first_word(h + 1, header.length - 1);
    auto truncated = [&](const char* missing) {
      fail_line(name, header.number,
                "truncated FASTQ record '" + rname + "' (no " + missing + " line)");
    };
    if (!lines.next(sequence)) truncated("sequence");
    if (!lines.next(plus)) truncated("'+'");
    if (plus.length == 0 || lines.at(plus)[0] != '+')
      fail_line(name, plus.number, "expected a '+' line in FASTQ record '" + rname + "'");
    if (!lines.next(quality)) truncated("quality");
    if (quality.length != sequence.length)
      fail_line(name, quality.number,
                "FASTQ record '" + rname + "' has " + std::to_string(sequence.length) +
                    " bases but " + std::to_string(quality.length) + " quality values");
    records.push_back({std::move(rname), ByteSpan(lines.at(sequence), sequence.length)});
  }
}

// ---- Input ---------------------------------------------------------------------------------

Input Input::open(const std::string& path, Format format, std::uint64_t limit_bytes,
                  const std::string& limit_reason) {
  const SizeLimit limit{limit_bytes, limit_reason};
  auto impl = std::make_unique<Impl>();
  const bool is_stdin = path == "-";
  impl->name = is_stdin ? "(standard input)" : path;
  const std::string& name = impl->name;

  int fd = 0;
  if (!is_stdin) {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail(name, std::strerror(errno));
  }
  struct Closer {
    int fd;
    bool owned;
    ~Closer() {
      if (owned) ::close(fd);
    }
  } closer{fd, !is_stdin};

  struct stat st {};
  if (::fstat(fd, &st) != 0) fail(name, std::strerror(errno));
  if (S_ISDIR(st.st_mode)) fail(name, "is a directory");

  // mmap regular files; stdin only when redirected from a file still at offset 0. A size of
  // 0 goes through read(): truly empty files give no bytes, /proc-style files give theirs.
  bool mapped = false;
  if (S_ISREG(st.st_mode) && st.st_size > 0 && (!is_stdin || ::lseek(fd, 0, SEEK_CUR) == 0)) {
    const auto len = static_cast<std::size_t>(st.st_size);
    limit.check(name, len);
    void* p = ::mmap(nullptr, len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p != MAP_FAILED) {
      ::madvise(p, len, MADV_SEQUENTIAL);
      impl->map = p;
      impl->map_len = len;
      impl->content = ByteSpan(static_cast<const std::uint8_t*>(p), len);
      mapped = true;
    }
  }
  if (!mapped) {
    impl->buf = read_all(name, fd, limit);
    limit.check(name, impl->buf.size());
    impl->content = impl->buf.span();
  }
  impl->decompress_if_gzip(limit);
  impl->parse(format);
  return Input(std::move(impl));
}

Input Input::from_bytes(std::string name, std::vector<std::uint8_t> bytes, Format format) {
  auto impl = std::make_unique<Impl>();
  impl->name = std::move(name);
  impl->vec = std::move(bytes);
  impl->content = ByteSpan(impl->vec.data(), impl->vec.size());
  impl->decompress_if_gzip();
  impl->parse(format);
  return Input(std::move(impl));
}

Input::Input(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Input::Input(Input&&) noexcept = default;
Input& Input::operator=(Input&&) noexcept = default;
Input::~Input() = default;

const std::string& Input::name() const { return impl_->name; }
Format Input::format() const { return impl_->format; }
bool Input::was_gzip() const { return impl_->was_gzip; }
ByteSpan Input::bytes() const { return impl_->content; }
const std::vector<Record>& Input::records() const { return impl_->records; }

std::string_view format_name(Format f) {
  switch (f) {
    case Format::automatic: return "auto";
    case Format::plain: return "plain";
    case Format::fasta: return "fasta";
    case Format::fastq: return "fastq";
  }
  return "unknown";
}

Format parse_format(std::string_view name) {
  if (name == "auto") return Format::automatic;
  if (name == "plain") return Format::plain;
  if (name == "fasta") return Format::fasta;
  if (name == "fastq") return Format::fastq;
  throw InvalidArgument("unknown input format '" + std::string(name) +
                        "' (expected auto, plain, fasta or fastq)");
}

}  // namespace warpmatch::io
