// gzip (ISA-L), BGZF (ISA-L, blocks in parallel) and zstd (libzstd) sources; see decompress.hpp.
#include "io/decompress.hpp"

#include "core/worker_pool.hpp"
#include "io/parallel_inflate.hpp"

#include <isa-l/igzip_lib.h>
#define ZSTD_STATIC_LINKING_ONLY  // the buffer-less streaming API
#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

namespace warpmatch::io {

using core::WorkerPool;

std::string_view compression_name(Compression c) {
  switch (c) {
    case Compression::none: return "none";
    case Compression::gzip: return "gzip";
    case Compression::bgzf: return "bgzf";
    case Compression::zstd: return "zstd";
  }
  return "unknown";
}

namespace {

bool is_gzip_magic(ByteSpan b) { return b.size() >= 2 && b[0] == 0x1f && b[1] == 0x8b; }

// A BGZF block header (SAM spec 4.1): a gzip member with FEXTRA whose first subfield is
// 'B' 'C' of length 2 holding BSIZE = the block's total size - 1.
bool is_bgzf_header(ByteSpan b) {
  return b.size() >= 18 && is_gzip_magic(b) && b[2] == 8 && (b[3] & 4) && b[10] == 6 && b[11] == 0 &&
         b[12] == 'B' && b[13] == 'C' && b[14] == 2 && b[15] == 0;
}

std::uint32_t le32(const std::uint8_t* p) {
  return std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 |
         std::uint32_t{p[3]} << 24;
}

// The compressed input seen through a window: straight from memory for a mapped file, else
// a growing buffer refilled from the source. Keeps the last bytes consumed so a decoder may
// give back what its bit buffer read ahead (ISA-L reads up to 8 bytes beyond a member).
class CompressedReader {
 public:
  CompressedReader(std::string name, std::unique_ptr<ByteSource> src)
      : name_(std::move(name)), src_(std::move(src)), mem_(dynamic_cast<MemorySource*>(src_.get())) {
    if (mem_) {
      data_ = mem_->rest();
      base_ = mem_->raw_offset();  // a source read in part already: offsets stay the file's
      eof_ = true;
    }
  }

  const std::string& name() const { return name_; }
  ByteSpan available() const { return data_.subspan(pos_); }
  std::uint64_t offset() const { return base_ + pos_; }  // of available()[0] in the input
  bool at_end() { return available().empty() && !fill(1); }

  // Tries to have at least `want` bytes available; false when the input ends first.
  bool fill(std::size_t want) {
    while (available().size() < want && !eof_) {
      // Keep up to kHistory consumed bytes, move the rest to the front, read more.
      const std::size_t keep_from = pos_ > kHistory ? pos_ - kHistory : 0;
      const std::size_t live = data_.size() - keep_from;
      const std::size_t cap = std::max({buf_.size(), live + want + kHistory, kBlock});
      if (buf_.size() < cap) {
        std::vector<std::uint8_t> bigger(cap);
        if (live) std::memcpy(bigger.data(), data_.data() + keep_from, live);  // data_ may be empty
        buf_.swap(bigger);
      } else if (keep_from > 0) {
        std::memmove(buf_.data(), data_.data() + keep_from, live);
      }
      base_ += keep_from;
      pos_ -= keep_from;
      std::size_t size = live;
      const std::size_t got = src_->read(buf_.data() + size, buf_.size() - size);
      if (got == 0) eof_ = true;
      size += got;
      data_ = ByteSpan(buf_.data(), size);
    }
    return available().size() >= want;
  }
  void consume(std::size_t n) { pos_ += n; }
  // A mapped input's pages of available()[from, from + len) are mapped now, by the calling
  // thread, so the reads that come later do not fault them one at a time. Thread-safe beside
  // reads of available() (it changes nothing); nothing for an input that is not mapped.
  void populate(std::size_t from, std::size_t len) const {
#ifdef MADV_POPULATE_READ
    const ByteSpan a = available();
    if (!mem_ || from >= a.size()) return;
    const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    const auto lo = reinterpret_cast<std::uintptr_t>(a.data() + from) & ~(page - 1);
    const auto hi = reinterpret_cast<std::uintptr_t>(a.data() + from + std::min(len, a.size() - from)) & ~(page - 1);
    // MADV_POPULATE_READ is Linux 5.14's; an older kernel refuses it and the reads fault as before.
    if (hi > lo) ::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_POPULATE_READ);
#else
    (void)from, (void)len;
#endif
  }
  void give_back(std::size_t n) { pos_ -= std::min(n, pos_); }
  // Whether fill(want) would return without waiting for the writer (waiting until `deadline`
  // for the source to have more at hand).
  bool at_hand(std::size_t want, Clock::time_point deadline) {
    return available().size() >= want || eof_ || src_->wait_ready(deadline);
  }
  void cancel() { src_->cancel(); }

  [[noreturn]] void corrupt(std::string_view format, const std::string& why) const {
    throw InputError(name_ + ": corrupt " + std::string(format) + " data at compressed byte offset " +
                     std::to_string(offset()) + " (" + why + ")");
  }

 private:
  static constexpr std::size_t kHistory = 16;
  static constexpr std::size_t kBlock = std::size_t{4} << 20;
  std::string name_;
  std::unique_ptr<ByteSource> src_;
  MemorySource* mem_;
  std::vector<std::uint8_t> buf_;
  ByteSpan data_;
  std::size_t pos_ = 0;
  std::uint64_t base_ = 0;
  bool eof_ = false;
};

// ---- gzip: ISA-L streaming inflate, one member after another ------------------------------

class GzipSource final : public ByteSource {
 public:
  // `after_member`: the input continues after a member decoded elsewhere (another member,
  // zero padding, the end, or garbage: the error).
  GzipSource(std::string name, std::unique_ptr<ByteSource> raw, bool after_member = false)
      : in_(std::move(name), std::move(raw)) {
    if (after_member) next_member();
    else start_member();
  }

  std::size_t read(std::uint8_t* out, std::size_t capacity) override {
    if (const int rc = pending_error_) {
      pending_error_ = 0;
      fail(rc);
    }
    std::size_t done = 0;
    while (done < capacity && !finished_) {
      // What is decoded goes out before anything that may throw (the caller searches it).
      if (state_.block_state == ISAL_BLOCK_FINISH) {
        if (done > 0) return done;
        next_member();
        continue;
      }
      // What is decoded goes out rather than wait for a paused writer's next bytes.
      if (in_.available().empty() && done > 0 && !in_.at_hand(1, no_wait)) return done;
      if (in_.available().empty() && !in_.fill(1)) {
        if (done > 0) return done;
        in_.corrupt("gzip", "unexpected end of file inside a gzip member");
      }
      const ByteSpan avail = in_.available();
      const std::size_t offer = std::min<std::size_t>(avail.size(), std::size_t{1} << 30);
      state_.next_in = const_cast<std::uint8_t*>(avail.data());
      state_.avail_in = static_cast<std::uint32_t>(offer);
      const std::size_t room = std::min<std::size_t>(capacity - done, std::size_t{1} << 30);
      state_.next_out = out + done;
      state_.avail_out = static_cast<std::uint32_t>(room);
      const int rc = isal_inflate(&state_);
      // Never more than was offered: after an invalid symbol ISA-L has left avail_in at
      // 0xffffffff (counted past the end), and consuming offer - avail_in wrapped the reader's
      // position (a fuzz finding; the error then reads this call's start as its offset).
      in_.consume(offer - std::min<std::size_t>(state_.avail_in, offer));
      done += room - state_.avail_out;
      if (rc != ISAL_DECOMP_OK) {
        if (done == 0) fail(rc);
        pending_error_ = rc;  // the bytes decoded before it go out first
        return done;
      }
    }
    return done;
  }
  std::uint64_t raw_offset() const override { return in_.offset(); }
  bool wait_ready(Clock::time_point deadline) override { return finished_ || in_.at_hand(1, deadline); }
  void cancel() override { in_.cancel(); }

 private:
  void start_member() {
    isal_inflate_init(&state_);
    state_.crc_flag = ISAL_GZIP;
  }

  // After a member: another member, zero padding (ignored) or the end; anything else is an error.
  void next_member() {
    // ISA-L's bit buffer may hold bytes past the member's trailer: give them back.
    in_.give_back(static_cast<std::size_t>(state_.read_in_length / 8));
    if (in_.at_end()) {
      finished_ = true;
      return;
    }
    in_.fill(2);
    if (is_gzip_magic(in_.available())) {
      start_member();
      return;
    }
    // Trailing zero padding (tape blocks) is allowed, as gunzip allows it.
    for (;;) {
      const ByteSpan a = in_.available();
      if (a.empty()) break;
      if (std::any_of(a.begin(), a.end(), [](std::uint8_t c) { return c != 0; }))
        in_.corrupt("gzip", "trailing garbage after gzip member");
      in_.consume(a.size());
      if (!in_.fill(1)) break;
    }
    finished_ = true;
  }

  [[noreturn]] void fail(int rc) const {
    switch (rc) {
      case ISAL_INCORRECT_CHECKSUM: in_.corrupt("gzip", "checksum mismatch");
      case ISAL_INVALID_WRAPPER: in_.corrupt("gzip", "invalid gzip header");
      case ISAL_UNSUPPORTED_METHOD: in_.corrupt("gzip", "unsupported compression method");
      case ISAL_NEED_DICT: in_.corrupt("gzip", "needs a preset dictionary");
      default: in_.corrupt("gzip", "invalid deflate data");
    }
  }

  CompressedReader in_;
  inflate_state state_{};
  bool finished_ = false;
  int pending_error_ = 0;  // ISA-L's error after bytes not yet handed on
};

// ---- BGZF: independent blocks, decoded in parallel ------------------------------------------

class BgzfSource final : public ByteSource {
 public:
  BgzfSource(std::string name, std::unique_ptr<ByteSource> raw, int threads)
      : in_(std::move(name), std::move(raw)),
        threads_(threads > 0 ? static_cast<unsigned>(threads) : static_cast<unsigned>(hardware_threads())),
        pool_(threads_),
        decoders_(threads_) {
    for (auto& d : decoders_) d = std::make_unique<inflate_state>();
  }

  std::size_t read(std::uint8_t* out, std::size_t capacity) override {
    std::size_t done = 0;
    while (done < capacity) {
      if (out_pos_ == out_.size()) {
        // The good blocks before a bad one are delivered first; then its error.
        if (pending_error_) {
          if (done > 0) return done;
          raise();
        }
        if (done > 0) return done;  // decoded bytes go out before a batch that may throw
        if (tail_) return tail_->read(out, capacity);
        if (capacity >= kDirectMin) {
          // A large read: blocks decoded in parallel straight into the caller's buffer.
          const std::size_t n = decode_blocks(out, capacity);
          if (n > 0 || pending_error_) return n;
          if (tail_) continue;
          break;
        }
        // A small read (the format probe's) decodes a small batch: the bytes it leaves in out_
        // are copied out by the next read, on the caller's thread.
        if (decode_blocks(nullptr, kSmallBatchOut) == 0 && !pending_error_) {
          if (tail_) continue;  // a plain gzip member follows the blocks
          break;
        }
        continue;
      }
      const std::size_t n = std::min(capacity - done, out_.size() - out_pos_);
      std::memcpy(out + done, out_.data() + out_pos_, n);
      out_pos_ += n;
      done += n;
    }
    return done;
  }
  std::uint64_t raw_offset() const override { return tail_ ? tail_->raw_offset() : in_.offset(); }
  bool wait_ready(Clock::time_point deadline) override {
    if (out_pos_ < out_.size() || pending_error_) return true;
    return tail_ ? tail_->wait_ready(deadline) : in_.at_hand(1, deadline);
  }
  void cancel() override { in_.cancel(); }  // a gzip tail reads through in_ too

 private:
  struct Block {
    std::size_t in_offset, in_size, out_offset, out_size;
    std::uint64_t input_offset;  // in the whole compressed input, for messages
  };

  // Reads whole blocks (up to ~kBatchIn compressed and `limit` decompressed bytes) and decodes
  // them on all threads into dst, or into out_ when dst is null. Returns the bytes decoded
  // (those before a corrupt block, whose error is then pending); 0 at the end of the input.
  std::size_t decode_blocks(std::uint8_t* dst, std::size_t limit) {
    out_.clear();
    out_pos_ = 0;
    blocks_.clear();
    std::size_t in_bytes = 0, out_bytes = 0;
    while (in_bytes < kBatchIn && out_bytes < limit) {
      // A paused writer: the whole blocks at hand are decoded now, not after a full batch.
      if (!blocks_.empty() && !in_.at_hand(in_bytes + 18, no_wait)) break;
      if (!in_.fill(in_bytes + 18)) {
        if (in_.available().size() > in_bytes) truncated(in_bytes);
        break;
      }
      const ByteSpan head = in_.available().subspan(in_bytes);
      if (!is_bgzf_header(head)) {
        if (!blocks_.empty()) break;  // decode what we have first
        switch_to_gzip();             // a plain gzip member follows: stream the rest
        return 0;
      }
      const std::size_t size = std::size_t{head[16]} | std::size_t{head[17]} << 8;
      const std::size_t block = size + 1;
      if (block < 26) {
        in_.consume(in_bytes);
        in_.corrupt("BGZF", "block size " + std::to_string(block) + " is too small");
      }
      if (!in_.fill(in_bytes + block)) truncated(in_bytes);
      const std::uint8_t* p = in_.available().data() + in_bytes;
      const std::size_t isize = le32(p + block - 4);
      if (isize > 65536) {
        in_.consume(in_bytes);
        in_.corrupt("BGZF", "block claims " + std::to_string(isize) + " bytes (at most 65536)");
      }
      if (out_bytes + isize > limit && !blocks_.empty()) break;  // the next read takes it
      blocks_.push_back({in_bytes, block, out_bytes, isize, in_.offset() + in_bytes});
      in_bytes += block;
      out_bytes += isize;
    }
    if (blocks_.empty()) return 0;
    if (!dst) {
      out_.resize(out_bytes);
      dst = out_.data();
    }
    const std::uint8_t* base = in_.available().data();
    std::atomic<std::size_t> next{0};
    std::atomic<std::size_t> bad{SIZE_MAX};
    auto work = [&](unsigned t) {
      // The next batch's compressed pages are mapped beside the decoding, not faulted one by
      // one by the walk over its block headers, which is serial (a mapped 288 MiB BGZF file:
      // 0.023 s of the window builder's 0.06 s outside the decoding, 2-core development host).
      if (t == 0) in_.populate(in_bytes, kBatchIn + kMaxBlock);
      for (std::size_t i; (i = next.fetch_add(1)) < blocks_.size();) {
        const Block& b = blocks_[i];
        // ISA-L, not libdeflate: its tables decode several short literal codes per lookup,
        // twice libdeflate's speed on DNA (0.49 against 0.24 GB/s per core on the H100 host,
        // run_on_gpu.sh inputs at a3523cb; the e2e 1 GiB FASTA's BGZF blocks on one core of
        // the 2-core development host: 1.24 against 0.59 GB/s, libdeflate 1.14). It parses the
        // gzip header and checks the CRC.
        inflate_state& st = *decoders_[t];
        isal_inflate_init(&st);
        st.crc_flag = ISAL_GZIP;
        st.next_in = const_cast<std::uint8_t*>(base + b.in_offset);
        st.avail_in = static_cast<std::uint32_t>(b.in_size);
        st.next_out = dst + b.out_offset;
        st.avail_out = static_cast<std::uint32_t>(b.out_size);
        const int rc = isal_inflate_stateless(&st);
        if ((rc != ISAL_DECOMP_OK && rc != ISAL_END_INPUT) || st.total_out != b.out_size ||
            st.block_state != ISAL_BLOCK_FINISH) {
          std::size_t seen = bad.load();
          while (i < seen && !bad.compare_exchange_weak(seen, i)) {}
        }
      }
    };
    // One task per thread (each with its own decompressor), blocks taken in order.
    pool_.run(std::min<std::size_t>(threads_, blocks_.size()), [&](std::size_t t) { work(static_cast<unsigned>(t)); });
    if (const std::size_t i = bad.load(); i != SIZE_MAX) {
      // Deliver the good blocks before the bad one, then report it (matches before it stand).
      out_bytes = blocks_[i].out_offset;
      if (dst == out_.data()) out_.resize(out_bytes);
      error_at_ = blocks_[i].input_offset;
      pending_error_ = true;
    }
    in_.consume(in_bytes);
    return out_bytes;
  }

  [[noreturn]] void truncated(std::size_t in_bytes) {
    in_.consume(in_bytes);
    in_.corrupt("BGZF", "unexpected end of file inside a block");
  }
  [[noreturn]] void raise() const {
    throw InputError(in_.name() + ": corrupt BGZF data at compressed byte offset " +
                     std::to_string(error_at_) + " (invalid deflate data or checksum mismatch)");
  }

  void switch_to_gzip();

  static constexpr std::size_t kBatchIn = std::size_t{16} << 20;
  static constexpr std::size_t kDirectMin = std::size_t{1} << 20;  // reads this large skip out_
  static constexpr std::size_t kSmallBatchOut = kDirectMin;
  static constexpr std::size_t kMaxBlock = 65536;  // BSIZE is 16 bits
  CompressedReader in_;
  unsigned threads_ = 1;
  WorkerPool pool_;  // started once: a batch of blocks costs no thread start
  // One decoder state per thread (ISA-L's is ~50 KiB of tables: not on the stack).
  std::vector<std::unique_ptr<inflate_state>> decoders_;
  std::vector<Block> blocks_;
  std::vector<std::uint8_t> out_;
  std::size_t out_pos_ = 0;
  bool pending_error_ = false;
  std::uint64_t error_at_ = 0;
  std::unique_ptr<ByteSource> tail_;  // a non-BGZF gzip member after BGZF blocks

};

// What remains of the input after BGZF blocks, as a source of its own (for a gzip decoder).
class RestSource final : public ByteSource {
 public:
  explicit RestSource(CompressedReader& in) : in_(in) {}
  std::size_t read(std::uint8_t* out, std::size_t capacity) override {
    if (in_.available().empty() && !in_.fill(1)) return 0;
    const ByteSpan a = in_.available();
    const std::size_t n = std::min(capacity, a.size());
    std::memcpy(out, a.data(), n);
    in_.consume(n);
    return n;
  }
  std::uint64_t raw_offset() const override { return in_.offset(); }
  bool wait_ready(Clock::time_point deadline) override { return in_.at_hand(1, deadline); }
  void cancel() override { in_.cancel(); }

 private:
  CompressedReader& in_;
};

void BgzfSource::switch_to_gzip() {
  tail_ = std::make_unique<GzipSource>(in_.name(), std::make_unique<RestSource>(in_));
}

// ---- zstd: frames one after another, decoded on a thread of its own into a ring -----------
//
// A one-frame file decodes on one core: that thread is the whole input's pace, so it does
// nothing but decode. ZSTD_decompressStream decoded each block into its own window buffer and
// copied it out again on the same thread (14% of that thread on the 2-core host), and a
// read-ahead thread's slot was a third place for every byte. Here the buffer-less API
// (ZSTD_decompressContinue) decodes each block straight into a small ring, the round buffer of
// zstd.h's "Buffer-less streaming decompression" (its back-references reach into the bytes
// before it, so the ring keeps at least a window of them), and read() copies out of the ring
// on the consumer's thread.
class ZstdSource final : public ByteSource {
 public:
  ZstdSource(std::string name, std::unique_ptr<ByteSource> raw)
      : in_(std::move(name), std::move(raw)), dctx_(ZSTD_createDCtx()) {
    if (!dctx_) throw std::bad_alloc();
    thread_ = std::thread([this] { decode(); });
  }
  ~ZstdSource() override {
    cancel();
    thread_.join();
    ZSTD_freeDCtx(dctx_);
  }

  std::size_t read(std::uint8_t* out, std::size_t capacity) override {
    std::size_t done = 0;
    while (done < capacity) {
      Piece piece;
      {
        std::unique_lock lock(mutex_);
        if (done == 0) changed_.wait(lock, [&] { return !pieces_.empty() || finished_ || closing_; });
        if (pieces_.empty()) {
          if (done == 0 && error_ && !closing_) std::rethrow_exception(error_);
          break;  // what was published is out; don't wait for more
        }
        piece = pieces_.front();
        offset_ = piece.raw_offset;
      }
      // The copy runs unlocked: the decoder writes only where nothing unread lies.
      const std::size_t n = std::min(capacity - done, piece.size);
      std::memcpy(out + done, ring_.get() + piece.at, n);
      done += n;
      {
        std::lock_guard lock(mutex_);
        Piece& front = pieces_.front();
        front.at += n;
        front.size -= n;
        if (front.size == 0) pieces_.pop_front();
        consumed_ += n;
      }
      changed_.notify_all();
    }
    return done;
  }
  std::uint64_t raw_offset() const override { return offset_; }
  bool wait_ready(Clock::time_point deadline) override {
    std::unique_lock lock(mutex_);
    return changed_.wait_until(lock, deadline, [&] { return !pieces_.empty() || finished_ || closing_; });
  }
  void cancel() override {
    {
      std::lock_guard lock(mutex_);
      closing_ = true;
    }
    changed_.notify_all();
    in_.cancel();
  }

 private:
  // Decoded bytes the consumer may read: ring_[at, at + size), in order.
  struct Piece {
    std::size_t at = 0, size = 0;
    std::uint64_t raw_offset = 0;  // compressed bytes consumed once this piece was decoded
  };

  void decode() {
    try {
      for (;;) {
        hand_on_if_paused(1);
        if (in_.at_end() || !decode_frame()) break;
      }
    } catch (...) {
      publish();
      std::lock_guard lock(mutex_);
      error_ = std::current_exception();
    }
    publish();
    {
      std::lock_guard lock(mutex_);
      finished_ = true;
    }
    changed_.notify_all();
  }

  // One frame (or skippable frame); false when cancelled.
  bool decode_frame() {
    ZSTD_frameHeader header{};
    for (std::size_t want = 1;;) {  // the header's bytes, as few as it has
      const bool got = in_.fill(want);
      const ByteSpan head = in_.available();
      const std::size_t rc = ZSTD_getFrameHeader(&header, head.data(), head.size());
      if (ZSTD_isError(rc)) in_.corrupt("zstd", ZSTD_getErrorName(rc));
      if (rc == 0) break;
      if (!got) {
        if (closing()) return false;
        in_.corrupt("zstd", "unexpected end of file inside a frame");
      }
      want = rc;
    }
    if (header.frameType == ZSTD_skippableFrame) {  // skipped as it arrives, not buffered whole
      // (headerSize is 0 for skippable frames: their header is the magic and the size, 8 bytes.)
      for (std::uint64_t left = ZSTD_SKIPPABLEHEADERSIZE + header.frameContentSize; left > 0;) {
        if (!in_.fill(1)) {
          if (closing()) return false;
          in_.corrupt("zstd", "unexpected end of file inside a frame");
        }
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left, in_.available().size()));
        in_.consume(n);
        left -= n;
      }
      return true;
    }
    // The streaming decoder's default limit (128 MiB), which zstd -d applies too.
    if (header.windowSize > (std::uint64_t{1} << ZSTD_WINDOWLOG_LIMIT_DEFAULT))
      in_.corrupt("zstd", ZSTD_getErrorString(ZSTD_error_frameParameter_windowTooLarge));
    if (!make_room_for_window(static_cast<std::size_t>(header.windowSize))) return false;
    const std::size_t block_max = std::max<std::size_t>(header.blockSizeMax, 1);
    ZSTD_decompressBegin(dctx_);
    for (std::size_t need; (need = ZSTD_nextSrcSizeToDecompress(dctx_)) != 0;) {
      hand_on_if_paused(need);
      if (!in_.fill(need)) {
        if (closing()) return false;
        in_.corrupt("zstd", "unexpected end of file inside a frame");
      }
      if (!wait_for_room(block_max)) return false;
      const std::size_t at = static_cast<std::size_t>(written_ % ring_size_);
      const std::size_t n = ZSTD_decompressContinue(dctx_, ring_.get() + at, block_max, in_.available().data(), need);
      if (ZSTD_isError(n)) in_.corrupt("zstd", ZSTD_getErrorName(n));
      in_.consume(need);
      if (n == 0) continue;
      // A block that runs past the ring's end stays whole (the ring has a block's slack): the
      // next one starts a new contiguous segment at the front, as zstd.h's round buffer does.
      if (pending_ == 0) pending_since_ = Clock::now();
      if (!batch_.empty() && batch_.back().at + batch_.back().size == at) batch_.back().size += n;
      else batch_.push_back({at, n, 0});
      written_ += n;
      pending_ += n;
      if (pending_ >= publish_bytes_) publish();
    }
    return true;
  }

  // What is decoded goes out rather than wait for a paused writer's next bytes: when `need`
  // compressed bytes are not at hand kHandOffWait after the first unpublished decoded byte.
  void hand_on_if_paused(std::size_t need) {
    if (pending_ > 0 && !in_.at_hand(need, pending_since_ + kHandOffWait)) publish();
  }

  // The decoded bytes not yet published go to the consumer.
  void publish() {
    if (batch_.empty()) return;
    {
      std::lock_guard lock(mutex_);
      for (Piece& p : batch_) {
        p.raw_offset = in_.offset();
        if (!pieces_.empty() && pieces_.back().at + pieces_.back().size == p.at) pieces_.back().size += p.size;
        else pieces_.push_back(p);
        pieces_.back().raw_offset = p.raw_offset;
      }
    }
    changed_.notify_all();
    batch_.clear();
    pending_ = 0;
  }

  bool closing() {
    std::lock_guard lock(mutex_);
    return closing_;
  }

  // Waits until a block of `block_max` bytes at the write position overwrites nothing unread;
  // false when cancelled. The ring's size leaves the last window of bytes intact behind it.
  bool wait_for_room(std::size_t block_max) {
    std::unique_lock lock(mutex_);
    if (written_ + block_max - consumed_ <= ring_size_) return !closing_;
    lock.unlock();
    publish();  // the consumer frees room only by reading what is published
    lock.lock();
    changed_.wait(lock, [&] { return closing_ || written_ + block_max - consumed_ <= ring_size_; });
    return !closing_;
  }

  // A ring for frames of `window` bytes: the first frame's, or a larger one once all is read.
  bool make_room_for_window(std::size_t window) {
    const std::size_t need = std::max(kRingBytes, window + 2 * std::size_t{ZSTD_BLOCKSIZE_MAX});
    if (ring_size_ >= need) return true;
    publish();
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return closing_ || consumed_ == written_; });
      if (closing_) return false;
    }
    ring_.reset(new std::uint8_t[need + ZSTD_BLOCKSIZE_MAX]);  // + the slack of a block past the end
    ring_size_ = need;
    // Positions restart at the ring's front (consumed_ == written_: nothing unread moves).
    publish_bytes_ = std::min(kPublishBytes, need / 4);
    std::lock_guard lock(mutex_);
    consumed_ = written_ = 0;
    return true;
  }

  // Published in batches of this much (at most a quarter of the ring), or when the writer
  // pauses for kHandOffWait.
  static constexpr std::size_t kPublishBytes = std::size_t{16} << 20;
  // A ring that stays in the last-level cache: blocks decoded into a 64 MiB ring wrote to cold
  // memory and cost the decoding thread what the copy had (1 GiB FASTA at level 3, 2-core host,
  // perf samples of that thread: 4,040 and 3,890 before, 3,710 and 3,680 with 64 MiB, 3,190
  // and 3,550 with 8 MiB). A frame's window decides when it is larger.
  static constexpr std::size_t kRingBytes = std::size_t{8} << 20;
  static constexpr Clock::duration kHandOffWait = std::chrono::milliseconds(10);

  CompressedReader in_;  // the decoding thread's
  ZSTD_DCtx* dctx_;
  std::unique_ptr<std::uint8_t[]> ring_;  // not zeroed: pages cost nothing until touched
  std::size_t ring_size_ = 0;  // positions wrap here; ring_ has a block's slack beyond
  std::size_t publish_bytes_ = kPublishBytes;
  // Decoding thread only: decoded, not yet published.
  std::vector<Piece> batch_;
  std::size_t pending_ = 0;
  Clock::time_point pending_since_{};

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Piece> pieces_;        // published, unread
  std::uint64_t written_ = 0;       // bytes decoded into the ring (written by the decoding thread only)
  std::uint64_t consumed_ = 0;      // bytes read out of it (under mutex_)
  bool finished_ = false, closing_ = false;
  std::exception_ptr error_;        // after the bytes before it
  std::atomic<std::uint64_t> offset_{0};
  std::thread thread_;
};

// ---- zstd of several frames, in memory: frames decoded in parallel --------------------------
//
// Files of many independent frames (pzstd's, concatenated .zst files) decode like BGZF: the
// frames whose content sizes their headers give are decoded on all threads at once, straight
// into the caller's buffer. A frame without a size, or larger than the read, streams on the
// caller's thread (ZSTD_decompressStream). Chosen for mapped inputs whose first frames are
// small (has_small_frames), where the whole compressed input is at hand.
class ZstdFramesSource final : public ByteSource {
 public:
  ZstdFramesSource(std::string name, std::unique_ptr<ByteSource> raw, int threads)
      : in_(std::move(name), std::move(raw)),
        pool_(threads > 0 ? static_cast<unsigned>(threads) : static_cast<unsigned>(hardware_threads())),
        dctxs_(pool_.size()),
        stream_(ZSTD_createDStream()) {
    for (auto& d : dctxs_) d.reset(ZSTD_createDCtx());
  }
  ~ZstdFramesSource() override { ZSTD_freeDStream(stream_); }

  std::size_t read(std::uint8_t* out, std::size_t capacity) override {
    for (;;) {
      if (pending_error_) std::rethrow_exception(pending_error_);
      if (in_stream_) {
        const std::size_t n = stream(out, capacity);
        if (n > 0 || in_stream_) return n;
        continue;  // an empty frame ended
      }
      if (in_.available().empty()) return 0;
      const std::uint64_t before = in_.offset();
      if (const std::size_t n = decode_frames(out, capacity); n > 0) return n;
      if (in_.offset() != before) continue;  // only empty or skippable frames
      // The next frame has no size, is larger than the read, or is corrupt: it streams.
      in_stream_ = true;
      ZSTD_initDStream(stream_);
    }
  }
  std::uint64_t raw_offset() const override { return in_.offset(); }

  // Whether `bytes` start with at least two zstd frames of known size, each at most kSmallFrame.
  static bool has_small_frames(ByteSpan bytes) {
    for (int i = 0; i < 2; ++i) {
      const unsigned long long size = ZSTD_getFrameContentSize(bytes.data(), bytes.size());
      const std::size_t stored = ZSTD_findFrameCompressedSize(bytes.data(), bytes.size());
      if (size > kSmallFrame || ZSTD_isError(stored) || (i == 0 && stored >= bytes.size())) return false;
      bytes = bytes.subspan(stored);
    }
    return true;
  }

 private:
  struct Frame {
    std::size_t in_at, in_size, out_at, out_size;
  };
  struct DCtxFree {
    void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
  };

  // The whole frames of known size that fit in `capacity` (skippable ones too), decoded on
  // all threads into out. Returns the bytes decoded, those before a corrupt frame if one is
  // (it streams next and reports its error there); 0 when the next frame has to stream.
  std::size_t decode_frames(std::uint8_t* out, std::size_t capacity) {
    frames_.clear();
    const ByteSpan a = in_.available();
    std::size_t in_at = 0, out_at = 0;
    while (in_at < a.size()) {
      const std::uint8_t* p = a.data() + in_at;
      const std::size_t left = a.size() - in_at;
      const std::size_t stored = ZSTD_findFrameCompressedSize(p, left);
      if (ZSTD_isError(stored)) break;  // corrupt or truncated: streamed, which reports it
      const bool skippable = left >= 4 && (le32(p) & 0xFFFFFFF0u) == ZSTD_MAGIC_SKIPPABLE_START;
      const unsigned long long size = skippable ? 0 : ZSTD_getFrameContentSize(p, left);
      if (size == ZSTD_CONTENTSIZE_UNKNOWN || size == ZSTD_CONTENTSIZE_ERROR || size > capacity - out_at) break;
      frames_.push_back({in_at, stored, out_at, static_cast<std::size_t>(size)});
      in_at += stored;
      out_at += static_cast<std::size_t>(size);
    }
    if (frames_.empty()) return 0;
    std::atomic<std::size_t> next{0}, bad{SIZE_MAX};
    pool_.run(std::min<std::size_t>(pool_.size(), frames_.size()), [&](std::size_t t) {
      for (std::size_t i; (i = next.fetch_add(1)) < frames_.size();) {
        const Frame& f = frames_[i];  // a skippable frame decodes to nothing
        const std::size_t n = ZSTD_decompressDCtx(dctxs_[t].get(), out + f.out_at, f.out_size, a.data() + f.in_at, f.in_size);
        if (ZSTD_isError(n) || n != f.out_size) {
          std::size_t seen = bad.load();
          while (i < seen && !bad.compare_exchange_weak(seen, i)) {}
        }
      }
    });
    if (const std::size_t i = bad.load(); i != SIZE_MAX) {
      // The frames before the bad one are delivered; the bad one streams next time, which
      // names its error and offset as a one-frame file's would.
      in_.consume(frames_[i].in_at);
      return frames_[i].out_at;
    }
    in_.consume(in_at);
    return out_at;
  }

  // One frame through the streaming decoder, as much as fits in out.
  std::size_t stream(std::uint8_t* out, std::size_t capacity) {
    std::size_t done = 0;
    while (done < capacity) {
      const ByteSpan a = in_.available();
      if (a.empty()) {
        if (done > 0) return done;
        in_.corrupt("zstd", "unexpected end of file inside a frame");
      }
      ZSTD_inBuffer in{a.data(), a.size(), 0};
      ZSTD_outBuffer o{out + done, capacity - done, 0};
      const std::size_t rc = ZSTD_decompressStream(stream_, &o, &in);
      if (ZSTD_isError(rc)) {
        if (done > 0) {  // the bytes before it first
          pending_error_ = error_at(rc);
          return done;
        }
        std::rethrow_exception(error_at(rc));
      }
      in_.consume(in.pos);
      done += o.pos;
      if (rc == 0) {  // the frame is complete: frames after it may go in parallel again
        in_stream_ = false;
        break;
      }
    }
    return done;
  }

  std::exception_ptr error_at(std::size_t rc) const {
    try {
      in_.corrupt("zstd", ZSTD_getErrorName(rc));
    } catch (...) {
      return std::current_exception();
    }
  }

  // A frame up to this size goes into the parallel batches (pzstd writes frames of a few MiB).
  static constexpr unsigned long long kSmallFrame = std::uint64_t{32} << 20;

  CompressedReader in_;
  WorkerPool pool_;
  std::vector<std::unique_ptr<ZSTD_DCtx, DCtxFree>> dctxs_;  // one per pool thread
  ZSTD_DStream* stream_;
  std::vector<Frame> frames_;
  bool in_stream_ = false;
  std::exception_ptr pending_error_;
};

// ---- gzip in memory: large members decoded on all cores -------------------------------------
//
// A mapped gzip file's members of at least kParallelGzipMin compressed bytes are decoded by
// ParallelGzipMemberSource (parallel_inflate.hpp); smaller ones and whatever follows the last
// large one (zero padding, garbage) by GzipSource, so both end and fail as a stream would.
class ParallelGzipSource final : public ByteSource {
 public:
  ParallelGzipSource(std::string name, std::unique_ptr<MemorySource> raw, ParallelInflateOptions options,
                     std::size_t parallel_min)
      : name_(std::move(name)), raw_(std::move(raw)), options_(options), parallel_min_(parallel_min) {
    next(false);
  }

  std::size_t read(std::uint8_t* out, std::size_t capacity) override {
    if (error_) std::rethrow_exception(error_);  // once failed, it stays failed (no member twice)
    for (;;) {
      if (member_) {
        std::size_t n;
        try {
          n = member_->read(out, capacity);
        } catch (...) {
          error_ = std::current_exception();
          throw;
        }
        if (n > 0 || cancelled_) return n;
        std::lock_guard lock(switching_);  // cancel() may look at member_ meanwhile
        raw_->skip(member_->member_bytes());
        member_.reset();
        next(true);
        continue;
      }
      return tail_ ? tail_->read(out, capacity) : 0;
    }
  }
  std::uint64_t raw_offset() const override {
    return member_ ? member_->raw_offset() : tail_ ? tail_->raw_offset() : raw_->raw_offset();
  }
  void cancel() override {  // from any thread
    std::lock_guard lock(switching_);
    cancelled_ = true;
    if (member_) member_->cancel();
    if (tail_) tail_->cancel();
  }

  static bool worth_it(const MemorySource& raw, std::size_t parallel_min) {
    const ByteSpan rest = raw.rest();
    return rest.size() >= parallel_min && is_gzip_magic(rest);
  }

 private:
  // The next member in parallel when it is large; else the rest streams through GzipSource.
  void next(bool after_member) {
    if (worth_it(*raw_, parallel_min_)) {
      member_ = std::make_unique<ParallelGzipMemberSource>(name_, raw_->rest(), raw_->raw_offset(), options_);
      return;
    }
    const bool at_end = raw_->rest().empty();
    if (after_member && at_end) return;
    const bool member_follows = is_gzip_magic(raw_->rest());
    tail_ = std::make_unique<GzipSource>(name_, std::move(raw_), after_member && !member_follows);
  }

  std::string name_;
  std::unique_ptr<MemorySource> raw_;  // the compressed bytes not yet handed on
  ParallelInflateOptions options_;
  std::size_t parallel_min_;
  std::unique_ptr<ParallelGzipMemberSource> member_;
  std::unique_ptr<ByteSource> tail_;
  std::atomic<bool> cancelled_{false};
  std::exception_ptr error_;
  std::mutex switching_;  // held while member_ or tail_ changes, and by cancel()
};

}  // namespace

Compression detect_compression(ByteSpan head) {
  if (is_bgzf_header(head)) return Compression::bgzf;
  if (is_gzip_magic(head)) return Compression::gzip;
  // A zstd frame, or a skippable frame before one (pzstd starts every frame with one).
  if (head.size() >= 4 && (le32(head.data()) == ZSTD_MAGICNUMBER ||
                           (le32(head.data()) & 0xFFFFFFF0u) == ZSTD_MAGIC_SKIPPABLE_START))
    return Compression::zstd;
  return Compression::none;
}

std::vector<ZstdFrame> zstd_frames(std::string_view name, ByteSpan data, std::size_t max_frames) {
  std::vector<ZstdFrame> frames;
  std::uint64_t at = 0;
  while (at < data.size() && (max_frames == 0 || frames.size() < max_frames)) {
    const std::uint8_t* p = data.data() + at;
    const std::size_t left = data.size() - at;
    const std::size_t stored = ZSTD_findFrameCompressedSize(p, left);
    if (ZSTD_isError(stored))
      throw InputError(std::string(name) + ": no whole zstd frame at byte " + std::to_string(at) + " (" +
                       ZSTD_getErrorName(stored) + ")");
    ZstdFrame f;
    f.offset = at;
    f.compressed_size = stored;
    f.skippable = left >= 4 && (le32(p) & 0xFFFFFFF0u) == ZSTD_MAGIC_SKIPPABLE_START;
    if (!f.skippable) {
      const unsigned long long size = ZSTD_getFrameContentSize(p, left);
      f.content_size = size == ZSTD_CONTENTSIZE_UNKNOWN || size == ZSTD_CONTENTSIZE_ERROR ? ZstdFrame::kUnknownSize : size;
    }
    frames.push_back(f);
    at += stored;
  }
  return frames;
}

bool decodes_ahead(const ByteSource& src) { return dynamic_cast<const ParallelGzipSource*>(&src) != nullptr; }

bool gzip_member_in_parallel(std::uint64_t compressed_bytes, int threads) {
  const unsigned t = threads > 0 ? static_cast<unsigned>(threads) : static_cast<unsigned>(hardware_threads());
  return compressed_bytes >= kParallelGzipMin && t >= kParallelGzipMinThreads;
}

std::unique_ptr<ByteSource> parallel_gzip_source(std::string name, std::unique_ptr<MemorySource> raw, int threads,
                                                 std::size_t chunk_bytes, std::size_t parallel_min) {
  ParallelInflateOptions options;
  options.threads = threads > 0 ? static_cast<unsigned>(threads) : 0;
  if (chunk_bytes) options.chunk_bytes = chunk_bytes;
  return std::make_unique<ParallelGzipSource>(std::move(name), std::move(raw), options, parallel_min);
}

std::unique_ptr<ByteSource> decompressing_source(std::string name, Compression kind,
                                                 std::unique_ptr<ByteSource> raw, int threads) {
  switch (kind) {
    case Compression::gzip:
      if (auto* mem = dynamic_cast<MemorySource*>(raw.get());
          mem && gzip_member_in_parallel(mem->rest().size(), threads) && ParallelGzipSource::worth_it(*mem, kParallelGzipMin)) {
        raw.release();
        return parallel_gzip_source(std::move(name), std::unique_ptr<MemorySource>(mem), threads);
      }
      return std::make_unique<GzipSource>(std::move(name), std::move(raw));
    case Compression::bgzf:
      return std::make_unique<BgzfSource>(std::move(name), std::move(raw), threads);
    case Compression::zstd:
      if (const auto* mem = dynamic_cast<const MemorySource*>(raw.get());
          mem && ZstdFramesSource::has_small_frames(mem->rest()))
        return std::make_unique<ZstdFramesSource>(std::move(name), std::move(raw), threads);
      return std::make_unique<ZstdSource>(std::move(name), std::move(raw));
    case Compression::none: break;
  }
  return raw;
}

}  // namespace warpmatch::io
