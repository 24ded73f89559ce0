// Byte sources: mapped files, descriptors, pushback, and the read-ahead thread (see
// byte_source.hpp).
#include "io/byte_source.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace warpmatch::io {

std::size_t MemorySource::read(std::uint8_t* out, std::size_t capacity) {
  const std::size_t n = std::min(capacity, bytes_.size() - pos_);
  if (n) std::memcpy(out, bytes_.data() + pos_, n);  // an empty span may have no data (UBSan)
  pos_ += n;
  return n;
}

FdSource::~FdSource() {
  if (owned_) ::close(fd_);
}

std::size_t FdSource::read(std::uint8_t* out, std::size_t capacity) {
  // read() takes ssize_t counts; 1 GiB at a time is plenty.
  capacity = std::min<std::size_t>(capacity, std::size_t{1} << 30);
  for (;;) {
    const ssize_t n = ::read(fd_, out, capacity);
    if (n >= 0) {
      offset_ += static_cast<std::uint64_t>(n);
      return static_cast<std::size_t>(n);
    }
    if (errno == EINTR) continue;
    throw InputError(name_ + ": " + std::strerror(errno));
  }
}

std::size_t PushbackSource::read(std::uint8_t* out, std::size_t capacity) {
  if (pos_ < head_.size()) {
    const std::size_t n = std::min(capacity, head_.size() - pos_);
    std::memcpy(out, head_.data() + pos_, n);
    pos_ += n;
    if (pos_ == head_.size()) std::string().swap(head_), pos_ = 0;  // release the probe's bytes
    return n;
  }
  return inner_->read(out, capacity);
}

namespace {

// A ring of filled buffers between a producer thread (running the inner source) and the
// consumer's read(). The producer stops early when the consumer is destroyed.
class ReadAhead final : public ByteSource {
 public:
  ReadAhead(std::unique_ptr<ByteSource> inner, std::size_t slot_bytes, int slots)
      : inner_(std::move(inner)), slots_(static_cast<std::size_t>(std::max(slots, 2))) {
    for (Slot& s : slots_) s.bytes.reset(new std::uint8_t[slot_bytes]);
    slot_bytes_ = slot_bytes;
    thread_ = std::thread([this] { produce(); });
  }
  ~ReadAhead() override {
    {
      std::lock_guard lock(mutex_);
      closing_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }

  std::size_t read(std::uint8_t* out, std::size_t capacity) override {
    std::size_t done = 0;
    while (done < capacity) {
      Slot& s = slots_[head_ % slots_.size()];
      if (!have_current_) {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return filled_ > head_ || finished_; });
        if (filled_ == head_) {  // the producer finished: end of input or its error
          if (error_ && done == 0) std::rethrow_exception(error_);
          break;
        }
        have_current_ = true;
        pos_ = 0;
      }
      const std::size_t n = std::min(capacity - done, s.size - pos_);
      std::memcpy(out + done, s.bytes.get() + pos_, n);
      done += n;
      pos_ += n;
      offset_ = s.raw_offset;
      if (pos_ == s.size) {
        have_current_ = false;
        {
          std::lock_guard lock(mutex_);
          ++head_;
        }
        changed_.notify_all();
      }
      if (done > 0 && !have_current_) break;  // give what we have; don't wait for more
    }
    return done;
  }
  std::uint64_t raw_offset() const override { return offset_; }

 private:
  struct Slot {
    std::unique_ptr<std::uint8_t[]> bytes;
    std::size_t size = 0;
    std::uint64_t raw_offset = 0;
  };

  void produce() {
    try {
      for (std::uint64_t next = 0;; ++next) {
        {
          std::unique_lock lock(mutex_);
          changed_.wait(lock, [&] { return closing_ || next < head_ + slots_.size(); });
          if (closing_) break;
        }
        Slot& s = slots_[next % slots_.size()];
        std::size_t n = 0;
        std::exception_ptr error;
        // Fill the slot (a pipe gives a few KiB per read): fewer, fuller hand-offs.
        try {
          while (n < slot_bytes_) {
            const std::size_t got = inner_->read(s.bytes.get() + n, slot_bytes_ - n);
            if (got == 0) break;
            n += got;
          }
        } catch (...) {
          error = std::current_exception();  // after the bytes read before it
        }
        s.size = n;
        s.raw_offset = inner_->raw_offset();
        if (n > 0) {
          std::lock_guard lock(mutex_);
          ++filled_;
        }
        changed_.notify_all();
        if (error) std::rethrow_exception(error);
        if (n < slot_bytes_) break;  // the inner source is at its end
      }
    } catch (...) {
      std::lock_guard lock(mutex_);
      error_ = std::current_exception();
    }
    {
      std::lock_guard lock(mutex_);
      finished_ = true;
    }
    changed_.notify_all();
  }

  std::unique_ptr<ByteSource> inner_;
  std::vector<Slot> slots_;
  std::size_t slot_bytes_ = 0;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::uint64_t filled_ = 0;  // slots produced so far
  std::uint64_t head_ = 0;    // slots consumed so far
  bool finished_ = false, closing_ = false;
  std::exception_ptr error_;
  bool have_current_ = false;
  std::size_t pos_ = 0;
  std::uint64_t offset_ = 0;
  std::thread thread_;
};

}  // namespace

std::unique_ptr<ByteSource> read_ahead(std::unique_ptr<ByteSource> inner, std::size_t slot_bytes,
                                       int slots) {
  return std::make_unique<ReadAhead>(std::move(inner), slot_bytes, slots);
}

RawInput open_raw(const std::string& path) {
  RawInput raw;
  const bool is_stdin = path == "-";
  raw.name = is_stdin ? "(standard input)" : path;
  int fd = 0;
  if (!is_stdin) {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw InputError(raw.name + ": " + std::strerror(errno));
  }
  auto close_fd = [&] {
    if (!is_stdin) ::close(fd);
  };
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    close_fd();
    throw InputError(raw.name + ": " + std::strerror(err));
  }
  if (S_ISDIR(st.st_mode)) {
    close_fd();
    throw InputError(raw.name + ": is a directory");
  }
  // Map regular files (stdin only when redirected from a file still at offset 0). A size of 0
  // goes through read(): truly empty files give no bytes, /proc-style files give theirs.
  if (S_ISREG(st.st_mode) && st.st_size > 0 && (!is_stdin || ::lseek(fd, 0, SEEK_CUR) == 0)) {
    const auto len = static_cast<std::size_t>(st.st_size);
    void* p = ::mmap(nullptr, len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p != MAP_FAILED) {
      ::madvise(p, len, MADV_SEQUENTIAL);
      close_fd();
      raw.mapped = ByteSpan(static_cast<const std::uint8_t*>(p), len);
      raw.mapping = std::shared_ptr<const void>(p, [len](const void* q) {
        ::munmap(const_cast<void*>(q), len);
      });
      raw.is_mapped = true;
      raw.size_hint = len;
      raw.source = std::make_unique<MemorySource>(raw.mapped, raw.mapping);
      return raw;
    }
  }
  if (S_ISREG(st.st_mode)) raw.size_hint = static_cast<std::uint64_t>(st.st_size);
  // A pipe's 64 KiB buffer costs a context switch per 64 KiB with the writer: ask for 1 MiB
  // (best effort; the system's limit may refuse it).
  if (S_ISFIFO(st.st_mode)) ::fcntl(fd, F_SETPIPE_SZ, 1 << 20);
  raw.source = std::make_unique<FdSource>(raw.name, fd, !is_stdin);
  return raw;
}

}  // namespace warpmatch::io
