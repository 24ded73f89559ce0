// Byte sources: mapped files, descriptors, pushback, and the read-ahead thread (see
// byte_source.hpp).
#include "io/byte_source.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
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

void MemorySource::release_before(std::size_t offset) {
  if (!file_mapping_) return;
  // The mapping starts on a page; only whole pages before `offset` go.
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t to = std::min(offset, bytes_.size()) / page * page;
  if (to <= released_) return;
  // MADV_DONTNEED on a private mapping no one wrote to: the file's pages are read again on a
  // later access, never zeros. A failure only leaves the pages resident.
  ::madvise(const_cast<std::uint8_t*>(bytes_.data()) + released_, to - released_, MADV_DONTNEED);
  released_ = to;
}

FdSource::FdSource(std::string name, int fd, bool owned)
    : name_(std::move(name)), fd_(fd), owned_(owned), cancel_fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

FdSource::~FdSource() {
  if (owned_) ::close(fd_);
  if (cancel_fd_ >= 0) ::close(cancel_fd_);
}

bool FdSource::poll_until(Clock::time_point deadline) {
  for (;;) {
    if (cancelled_.load(std::memory_order_relaxed)) return true;  // read() gives 0 at once
    int timeout_ms = -1;
    if (deadline != Clock::time_point::max()) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
      timeout_ms = static_cast<int>(std::clamp<long long>(left, 0, 1 << 30));
    }
    pollfd fds[2] = {{fd_, POLLIN, 0}, {cancel_fd_, POLLIN, 0}};
    const int n = ::poll(fds, cancel_fd_ >= 0 ? 2 : 1, timeout_ms);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return true;  // let read() report the descriptor's error
    if (n == 0) return false;
    if (fds[1].revents) cancelled_.store(true);
    readable_ = fds[0].revents != 0;  // readable, at its end (POLLHUP) or in error
    return true;
  }
}

bool FdSource::wait_ready(Clock::time_point deadline) { return poll_until(deadline); }

void FdSource::cancel() {
  cancelled_.store(true);
  if (cancel_fd_ >= 0) {
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = ::write(cancel_fd_, &one, sizeof one);
  }
}

std::size_t FdSource::read(std::uint8_t* out, std::size_t capacity) {
  // read() takes ssize_t counts; 1 GiB at a time is plenty.
  capacity = std::min<std::size_t>(capacity, std::size_t{1} << 30);
  for (;;) {
    // A read() blocked in the kernel could not be cancelled: it is made only once poll() says
    // it will not wait.
    if (!readable_) poll_until(Clock::time_point::max());
    readable_ = false;
    if (cancelled_.load(std::memory_order_relaxed)) return 0;
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
  ReadAhead(std::unique_ptr<ByteSource> inner, std::size_t slot_bytes, int slots, Clock::duration hand_off)
      : inner_(std::move(inner)), slots_(static_cast<std::size_t>(std::max(slots, 2))), hand_off_(hand_off) {
    for (Slot& s : slots_) s.bytes.reset(new std::uint8_t[slot_bytes]);
    slot_bytes_ = slot_bytes;
    thread_ = std::thread([this] { produce(); });
  }
  ~ReadAhead() override {
    cancel();
    thread_.join();
  }

  // Wakes both sides: the producer (in the inner source or waiting for a free slot) and a
  // consumer waiting for a slot, which then sees the end of the input.
  void cancel() override {
    {
      std::lock_guard lock(mutex_);
      closing_ = true;
    }
    changed_.notify_all();
    inner_->cancel();
  }

  bool wait_ready(Clock::time_point deadline) override {
    if (have_current_) return true;
    std::unique_lock lock(mutex_);
    return changed_.wait_until(lock, deadline, [&] { return filled_ > head_ || finished_ || closing_; });
  }

  std::size_t read(std::uint8_t* out, std::size_t capacity) override {
    std::size_t done = 0;
    while (done < capacity) {
      Slot& s = slots_[head_ % slots_.size()];
      if (!have_current_) {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return filled_ > head_ || finished_ || closing_; });
        if (filled_ == head_) {  // the producer finished (end of input or its error) or cancelled
          if (error_ && done == 0 && !closing_) std::rethrow_exception(error_);
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
        bool at_end = false;
        std::exception_ptr error;
        // Fill the slot (a pipe gives a few KiB per read): fewer, fuller hand-offs. A writer
        // that pauses gets its bytes handed on `hand_off_` after the slot's first one: while
        // bytes keep coming (a fast pipe), wait_ready() returns at once and the slot fills.
        try {
          Clock::time_point hand_off_at{};
          while (n < slot_bytes_) {
            if (n > 0 && !inner_->wait_ready(hand_off_at)) break;
            const std::size_t got = inner_->read(s.bytes.get() + n, slot_bytes_ - n);
            if (got == 0) {
              at_end = true;
              break;
            }
            if (n == 0) hand_off_at = Clock::now() + hand_off_;
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
        if (at_end) break;
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
  Clock::duration hand_off_;
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
                                       int slots, Clock::duration hand_off) {
  return std::make_unique<ReadAhead>(std::move(inner), slot_bytes, slots, hand_off);
}

namespace {

// A file read whole goes into the last such buffer this thread freed, when large enough: a
// fresh allocation per file costs page faults, and freeing it may trim the heap, an munmap
// or madvise that interrupts every thread of the process (many small files searched at once:
// cli/file_jobs.hpp). One buffer per thread is kept, of at most kKeptReadBufferBytes.
constexpr std::size_t kKeptReadBufferBytes = std::size_t{4} << 20;
thread_local bool t_kept_read_buffer_gone = false;  // (trivial: readable after the thread's exit began)
struct KeptReadBuffer {
  std::unique_ptr<std::uint8_t[]> bytes;
  std::size_t size = 0;
  ~KeptReadBuffer() { t_kept_read_buffer_gone = true; }
};
thread_local KeptReadBuffer t_kept_read_buffer;

std::shared_ptr<std::uint8_t[]> read_buffer(std::size_t len) {
  KeptReadBuffer& kept = t_kept_read_buffer;
  std::unique_ptr<std::uint8_t[]> bytes;
  std::size_t size = 0;
  if (!t_kept_read_buffer_gone && kept.bytes && kept.size >= len) {
    bytes = std::move(kept.bytes);
    size = kept.size;
  } else {
    size = std::max<std::size_t>(len, std::size_t{64} << 10);
    bytes.reset(new std::uint8_t[size]);
  }
  return std::shared_ptr<std::uint8_t[]>(bytes.release(), [size](std::uint8_t* p) {
    if (t_kept_read_buffer_gone) {  // freed while its thread exits
      delete[] p;
      return;
    }
    KeptReadBuffer& back = t_kept_read_buffer;  // the freeing thread's
    if (size <= kKeptReadBufferBytes && (!back.bytes || back.size < size)) {
      back.bytes.reset(p);
      back.size = size;
    } else {
      delete[] p;
    }
  });
}

}  // namespace

RawInput open_raw(const std::string& path, std::size_t read_whole_bytes) {
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
    // A small file is read whole instead (as ripgrep does): a mapping costs mmap, madvise and
    // munmap, whose TLB shootdown interrupts the process's other threads, per file (`find -r`
    // over /usr/include's 8,054 files: most of the process's time, in the kernel).
    if (len <= read_whole_bytes) {
      std::shared_ptr<std::uint8_t[]> bytes = read_buffer(len);
      std::size_t got = 0;
      while (got < len) {
        const ssize_t n = ::read(fd, bytes.get() + got, len - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
          const int err = errno;
          close_fd();
          throw InputError(raw.name + ": " + std::strerror(err));
        }
        if (n == 0) break;  // the file shrank since fstat
        got += static_cast<std::size_t>(n);
      }
      close_fd();
      raw.mapped = ByteSpan(bytes.get(), got);
      raw.mapping = std::shared_ptr<const void>(bytes, bytes.get());
      raw.is_mapped = true;
      raw.size_hint = got;
      raw.source = std::make_unique<MemorySource>(raw.mapped, raw.mapping, /*file_mapping=*/false);
      return raw;
    }
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
      raw.source = std::make_unique<MemorySource>(raw.mapped, raw.mapping, /*file_mapping=*/true);
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
