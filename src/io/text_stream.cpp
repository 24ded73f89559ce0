// Streaming inputs: record parsing over any byte source and windows with overlap (see
// text_stream.hpp). The FASTA/FASTQ rules and messages are those of Input (input.cpp): a
// record's name is its header's first word, line breaks ("\n", "\r\n") are removed, blank
// lines are skipped, and errors name the input and the line.
#include "io/text_stream.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <span>
#include <stop_token>
#include <thread>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#include "core/worker_pool.hpp"
#include "io/line_breaks.hpp"
#include "io/short_records.hpp"

namespace warpmatch::io {

using core::WorkerPool;
using detail::byte_census;
using detail::ByteCensus;
using detail::copy_without_newlines;
using detail::is_blank;

namespace {

// Bytes read per refill: BGZF decodes this much on all threads per call (32 MiB gave 2.75 GB/s
// for a 1 GiB FASTA on the H100 host's 16 cores, bench e2e at 86bd05c).
constexpr std::size_t kParseBlock = std::size_t{64} << 20;
// A mapped file parsed in place gives back its parsed pages every this many bytes: a few
// madvise calls per GiB, the pages zapped as munmap at exit would have zapped them anyway.
constexpr std::size_t kReleaseStep = std::size_t{32} << 20;
// FASTA sequence of at least this much is freed of line breaks on all threads at once.
constexpr std::size_t kBulkBytes = std::size_t{4} << 20;
// The bulk line removal looks at a piece in steps of this much (a core's L1/L2 holds it).
constexpr std::size_t kCensusStep = std::size_t{64} << 10;
// A FASTA record whose next header is this close goes line by line (header_within).
constexpr std::size_t kShortRecordReach = std::size_t{1} << 20;
constexpr std::size_t kProbeBytes = std::size_t{64} << 10;  // what format detection looks at
// A window's pages are faulted in ahead of its reads once it holds this much (populate_ahead).
constexpr std::size_t kPopulateAfter = std::size_t{4} << 20;
constexpr std::size_t kReadAheadSlot = std::size_t{16} << 20;
constexpr int kReadAheadSlots = 4;
constexpr std::uint64_t kFirstWindow = std::uint64_t{64} << 20;  // window buffer grows from this
constexpr std::uint64_t kWholeWindowLimit = std::uint64_t{8} << 30;  // full-size buffers up to this
constexpr std::uint64_t kFirstWindowBytes = std::uint64_t{1} << 20;  // a stream's first window
// A streamed window ends early (end_window_on_pause) when no more bytes are at hand this long
// after its first new byte: 50 ms keeps the delay from a line's arrival to its printing (with
// kHandOffWait, the scan and the print) under the ~100 ms people perceive as instant, also
// for a steady trickle of lines (`tail -f` of a busy log never pauses for long), and early
// windows' fixed costs (a scan call, a flush) are paid at most 20 times a second.
constexpr Clock::duration kPauseWait = std::chrono::milliseconds(50);
// A window that already holds this much new text comes from a bulk stream (>= 320 MB/s within
// kPauseWait), not an interactive one: it ends early only when the input stops for kPauseWait,
// so a fast pipe whose read-ahead hands on slots with short gaps (`cat f |` on a loaded host
// gave ~40 MB windows under the first rule) keeps full-size windows.
constexpr std::size_t kBulkWindowBytes = std::size_t{16} << 20;
// A batch of windows built record by record (next_batch) holds at most this many records,
// and takes another only with this much room left besides twice the overlap (a batch of
// short records parsed together, next_short_records, holds what kShortRecordsRegion gives).
constexpr std::size_t kBatchWindows = 16384;
constexpr std::uint64_t kBatchRoom = std::uint64_t{64} << 10;
// Short whole records (reads) are parsed on all threads (parse_short_records) in regions of
// this many input bytes per batch, once this much is at hand; after a region whose first
// record is not plain and whole, this many batches go record by record before the next try.
constexpr std::size_t kShortRecordsRegion = std::size_t{16} << 20;
constexpr std::size_t kShortRecordsMin = std::size_t{1} << 20;
constexpr int kShortRecordsPause = 8;
// The read-ahead thread hands on a partly filled slot when its source has had nothing more
// this long after the slot's first byte: short against kPauseWait, and long against the gaps
// of a flowing pipe (a 128 KiB write of `cat` every ~50 us), whose slots stay full.
constexpr Clock::duration kHandOffWait = std::chrono::milliseconds(10);

// Frees the pages of a large buffer about to be deleted on several threads at once (MADV_DONTNEED
// in slices; the delete then unmaps nothing resident): freeing is per-page kernel work, ~20 ms
// per 256 MiB on one core, and at a stream's end it comes after the last search (two threads
// freed 512 MiB in 21-25 ms against one's 34-45 ms on the 2-core development host). Only
// whole pages inside the buffer (the allocator's header before it stays).
void free_pages_in_parallel(std::uint8_t* p, std::size_t n, int threads) {
  constexpr std::size_t kSlice = std::size_t{32} << 20;
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const std::uintptr_t lo = (reinterpret_cast<std::uintptr_t>(p) + page - 1) & ~(page - 1);
  const std::uintptr_t hi = (reinterpret_cast<std::uintptr_t>(p) + n) & ~(page - 1);
  if (hi <= lo + kSlice) return;  // small: the delete frees it as fast
  const std::size_t slices = (hi - lo + kSlice - 1) / kSlice;
  const std::size_t workers = std::min<std::size_t>(
      slices, threads > 0 ? static_cast<std::size_t>(threads) : static_cast<std::size_t>(hardware_threads()));
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < slices;) {
      const std::uintptr_t a = lo + i * kSlice, b = std::min<std::uintptr_t>(hi, a + kSlice);
      ::madvise(reinterpret_cast<void*>(a), b - a, MADV_DONTNEED);  // a failure leaves them to the delete
    }
  };
  std::vector<std::thread> helpers;
  for (std::size_t t = 1; t < workers; ++t) helpers.emplace_back(work);
  work();
  for (auto& t : helpers) t.join();
}

// Whether an input's first bytes already decide detect_compression(): a writer's pause ends
// the probe only then. gzip's first 4 bytes tell whether it may be BGZF, whose 18-byte header
// tells; a gzip or zstd stream always has these bytes before its first data.
bool compression_decided(ByteSpan head) {
  static constexpr std::uint8_t kGzip[] = {0x1f, 0x8b}, kZstd[] = {0x28, 0xb5, 0x2f, 0xfd};
  auto starts_like = [&](ByteSpan magic) {
    const std::size_t n = std::min(head.size(), magic.size());
    return std::memcmp(head.data(), magic.data(), n) == 0;
  };
  if (starts_like(kGzip)) return head.size() >= 18 || (head.size() >= 4 && (head[2] != 8 || !(head[3] & 4)));
  if (starts_like(kZstd)) return head.size() >= 4;
  // A zstd skippable frame (0x184D2A5?, little-endian; pzstd's files start with one).
  static constexpr std::uint8_t kSkippable[] = {0x2a, 0x4d, 0x18};
  if (!head.empty() && (head[0] & 0xF0) == 0x50 &&
      std::memcmp(head.data() + 1, kSkippable, std::min<std::size_t>(head.size() - 1, 3)) == 0)
    return head.size() >= 4;
  return !head.empty();
}

// Whether the content's first bytes already decide detect_format(): '@' is FASTQ only when the
// third line starts with '+', so it waits for that line's first byte.
bool format_decided(ByteSpan head) {
  if (head.empty() || head[0] != '@') return !head.empty();
  std::size_t pos = 0;
  for (int i = 0; i < 2; ++i) {
    const void* nl = std::memchr(head.data() + pos, '\n', head.size() - pos);
    if (!nl) return false;
    pos = static_cast<std::size_t>(static_cast<const std::uint8_t*>(nl) - head.data()) + 1;
  }
  return pos < head.size();
}

// Records of one input, front to back: next_record() opens the next one (its name), then
// read_sequence() gives its bytes (line breaks removed) until it returns 0.
class RecordParser {
 public:
  RecordParser(std::string name, std::unique_ptr<ByteSource> src, Format format, std::string head, int threads)
      : name_(std::move(name)), src_(std::move(src)), format_(format), threads_(threads) {
    if (auto* mem = dynamic_cast<MemorySource*>(src_.get()); mem && head.empty()) {
      // A mapped file: parsed in place, no copy into a parse buffer.
      const ByteSpan all = mem->rest();
      base_ = all.data();
      len_ = all.size();
      mapped_ = mem;
      mapped_origin_ = mem->raw_offset();
      mem->skip(all.size());
      eof_ = true;
      return;
    }
    buf_size_ = std::max(kParseBlock, head.size());
    buf_.reset(new std::uint8_t[buf_size_]);
    std::memcpy(buf_.get(), head.data(), head.size());
    base_ = buf_.get();
    len_ = head.size();
  }

  bool next_record(std::string& record_name) {
    if (pending_) std::rethrow_exception(pending_);
    switch (format_) {
      case Format::fasta: return next_fasta(record_name);
      case Format::fastq: return next_fastq(record_name);
      default:
        if (plain_done_) return false;
        plain_done_ = true;
        record_name.clear();
        return true;
    }
  }

  std::size_t read_sequence(std::uint8_t* out, std::size_t cap) {
    std::size_t n = 0;
    switch (format_) {
      case Format::fasta: n = read_fasta(out, cap); break;
      case Format::fastq: n = read_fastq(out, cap); break;
      default: n = read_plain(out, cap); break;
    }
    release_parsed();
    return n;
  }

  // Whole short records (reads) at the front of the bytes at hand, parsed on all threads
  // (parse_short_records): their sequences into out, which has room for `room` bytes. False
  // when none could be taken: the caller goes on record by record.
  bool take_short_records(std::uint8_t* out, std::size_t room, detail::ParsedRecords& into) {
    if ((format_ != Format::fasta && format_ != Format::fastq) || pending_ || in_sequence_) return false;
    if (len_ - pos_ < kShortRecordsMin && !eof_ && source_at_hand()) refill();
    const std::size_t at_hand = len_ - pos_;
    if (at_hand < kShortRecordsMin || pending_) return false;
    const std::size_t n = std::min(at_hand, room);
    detail::parse_short_records(base_ + pos_, n, eof_ && n == at_hand, format_, out, pool(), into);
    if (into.records.empty()) return false;
    pos_ += into.consumed;
    line_ += into.lines;
    release_parsed();
    return true;
  }

  std::uint64_t raw_offset() const { return src_->raw_offset(); }
  // Frees the parse buffer once the input has ended (next_record() gave false).
  void release_buffer() {
    if (!buf_) return;  // a mapped file is parsed in place
    free_pages_in_parallel(buf_.get(), buf_size_, threads_);
    buf_.reset();
    base_ = nullptr;
    buf_size_ = pos_ = len_ = 0;
  }

  // Waits until read_sequence() or next_record() would return without waiting for the
  // input's writer, or until `deadline`; returns whether they would (see ByteSource).
  bool wait_ready(Clock::time_point deadline) {
    return pos_ < len_ || eof_ || pending_ || src_->wait_ready(deadline);
  }
  // From any thread (src_ is fixed at construction; ByteSource::cancel() is thread-safe).
  void cancel() { src_->cancel(); }
  // A mapped file parsed in place: every byte is at hand, its writer never pauses.
  bool never_pauses() const { return mapped_ != nullptr; }

 private:
  WorkerPool& pool() {
    if (!pool_) pool_ = std::make_unique<WorkerPool>(threads_ > 0 ? static_cast<unsigned>(threads_)
                                                                  : static_cast<unsigned>(hardware_threads()));
    return *pool_;
  }

  // A mapped file parsed in place: the pages behind the parse leave resident memory, a step
  // at a time (a 2 GiB genome was 2.4 GiB of peak RSS, the file's pages counted).
  void release_parsed() {
    if (mapped_ && pos_ - released_ >= kReleaseStep) {
      mapped_->release_before(mapped_origin_ + pos_);
      released_ = pos_;
    }
  }

  // More bytes can be had without waiting for the writer (the end counts: refill() returns).
  bool source_at_hand() { return eof_ || src_->wait_ready(no_wait); }

  [[noreturn]] void fail_line(std::uint64_t line, const std::string& what) const {
    if (pending_) std::rethrow_exception(pending_);  // the data ended early because of it
    throw InputError(name_ + ": line " + std::to_string(line) + ": " + what);
  }

  // Moves the unread bytes to the front and reads more; false at the end of the input. An
  // error of the source (corrupt compressed data) ends the input here and is rethrown at
  // the next record, so the bytes before it are delivered and searched first.
  bool refill() {
    if (eof_) return false;
    try {
      return refill_from_source();
    } catch (const InputError&) {
      pending_ = std::current_exception();
      eof_ = true;
      return false;
    }
  }
  bool refill_from_source() {
    if (pos_ > 0) {
      std::memmove(buf_.get(), base_ + pos_, len_ - pos_);
      len_ -= pos_;
      pos_ = 0;
    }
    if (len_ == buf_size_) {
      std::unique_ptr<std::uint8_t[]> bigger(new std::uint8_t[buf_size_ * 2]);
      std::memcpy(bigger.get(), buf_.get(), len_);
      buf_ = std::move(bigger);
      buf_size_ *= 2;
      base_ = buf_.get();
    }
    const std::size_t got = src_->read(buf_.get() + len_, buf_size_ - len_);
    if (got == 0) eof_ = true;
    len_ += got;
    return got > 0;
  }
  bool has_byte() { return pos_ < len_ || refill(); }

  // Copies the current line's bytes into out (at most cap), without its "\n" / "\r\n" (a
  // final "\r" before the end of the input is dropped too). line_ended: "\n" or the end was
  // reached (and consumed). Returns the bytes copied. Once it has copied a byte (at once when
  // !may_wait) it stops, line not ended, where the buffered bytes run out and the writer has
  // paused: a streamed window then ends with the line's bytes that came.
  std::size_t copy_line(std::uint8_t* out, std::size_t cap, bool& line_ended, bool may_wait = true) {
    std::size_t done = 0;
    line_ended = false;
    while (done < cap) {
      if (pos_ == len_ && (done > 0 || !may_wait) && !source_at_hand()) break;
      if (pos_ == len_ && !refill()) {
        line_ended = true;
        break;
      }
      const std::uint8_t* p = base_ + pos_;
      const std::size_t avail = len_ - pos_;
      const auto* nl = static_cast<const std::uint8_t*>(std::memchr(p, '\n', avail));
      const std::size_t line_len = nl ? static_cast<std::size_t>(nl - p) : avail;
      std::size_t take = std::min(line_len, cap - done);
      std::size_t copy = take;
      const bool reaches_nl = nl && take == line_len;
      if (reaches_nl && copy > 0 && p[copy - 1] == '\r') --copy;
      if (!nl && take == avail && take > 0 && p[take - 1] == '\r') {
        // A '\r' at the end of what is buffered: kept until we know whether "\n" or the end
        // of the input follows it (then it is a line break) or not (then it is data).
        --take;
        copy = take;
        std::memcpy(out + done, p, copy);
        done += copy;
        pos_ += take;
        if ((done > 0 || !may_wait) && !source_at_hand()) break;  // the '\r' waits for its next byte
        if (!refill()) {  // the input ends with "\r": dropped
          ++pos_;
          line_ended = true;
          break;
        }
        if (base_[pos_ + 1] != '\n' && done < cap) {  // data '\r'
          out[done++] = '\r';
          ++pos_;
        }
        continue;
      }
      std::memcpy(out + done, p, copy);
      done += copy;
      pos_ += take;
      if (reaches_nl) {
        ++pos_;
        ++line_;
        line_ended = true;
        break;
      }
    }
    return done;
  }

  // Skips the current line; returns its length without the line break ("\r\n" counts as a
  // break), and whether there was a line at all (false at the end of the input).
  bool skip_line(std::uint64_t& length, std::uint8_t* first = nullptr) {
    if (!has_byte()) return false;
    if (first) *first = base_[pos_];
    // The whole line at hand (a FASTQ quality line, nearly always): skipped where it is.
    if (const auto* nl = static_cast<const std::uint8_t*>(std::memchr(base_ + pos_, '\n', len_ - pos_))) {
      const auto line = static_cast<std::size_t>(nl - (base_ + pos_));
      length = line > 0 && nl[-1] == '\r' ? line - 1 : line;
      pos_ += line + 1;
      ++line_;
      return true;
    }
    length = 0;
    std::uint8_t scratch[4096];
    for (bool ended = false; !ended;) length += copy_line(scratch, sizeof scratch, ended);
    return true;
  }

  // A header line's first word (after the leading '>' or '@', which is consumed already).
  std::string read_name() {
    std::string word;
    bool in_word = true;
    std::uint8_t chunk[4096];
    for (bool ended = false; !ended;) {
      const std::size_t n = copy_line(chunk, sizeof chunk, ended);
      if (!in_word) continue;
      std::size_t i = 0;
      while (i < n && !is_blank(chunk[i])) ++i;
      word.append(reinterpret_cast<const char*>(chunk), i);
      in_word = i == n;
    }
    return word;
  }

  enum class Next { line, end, paused };
  // Skips blank lines ("" or "\r"): `line` when a line follows, `end` at the end of the input,
  // `paused` (only when !may_wait) when the writer paused before the next line came.
  Next skip_blank_lines(bool may_wait = true) {
    for (;;) {
      if (pos_ == len_ && !may_wait && !source_at_hand()) return Next::paused;
      if (!has_byte()) return Next::end;
      const std::uint8_t c = base_[pos_];
      if (c == '\n') {
        ++pos_;
        ++line_;
        continue;
      }
      if (c == '\r') {
        if (pos_ + 1 >= len_ && !may_wait && !source_at_hand()) return Next::paused;
        if (pos_ + 1 >= len_) refill();
        if (pos_ + 1 >= len_) {  // "\r" at the very end: a blank last line
          ++pos_;
          continue;
        }
        if (base_[pos_ + 1] == '\n') {
          pos_ += 2;
          ++line_;
          continue;
        }
      }
      return Next::line;
    }
  }

  // ---- plain ----
  std::size_t read_plain(std::uint8_t* out, std::size_t cap) {
    if (pos_ < len_) {  // the probed head first
      const std::size_t n = std::min(cap, len_ - pos_);
      std::memcpy(out, base_ + pos_, n);
      pos_ += n;
      if (pos_ == len_) buf_.reset(), base_ = nullptr, buf_size_ = 0, pos_ = len_ = 0;
      return n;
    }
    if (pending_) std::rethrow_exception(pending_);
    std::size_t done = 0;
    try {
      while (done < cap) {  // straight into the window, no intermediate buffer
        if (done > 0 && !src_->wait_ready(no_wait)) break;  // a paused writer: what came goes out
        const std::size_t got = src_->read(out + done, cap - done);
        if (got == 0) break;
        done += got;
      }
    } catch (const InputError&) {
      if (done == 0) throw;
      pending_ = std::current_exception();  // after the bytes before it
    }
    return done;
  }

  // ---- FASTA ----
  bool next_fasta(std::string& record_name) {
    if (skip_blank_lines() == Next::end) return false;
    if (base_[pos_] != '>') fail_line(line_ + 1, "sequence data before the first '>' header");
    ++pos_;
    record_name = read_name();
    line_start_ = true;
    return true;
  }

  // Returns 0 only at the record's end; once it has bytes, it returns them rather than wait
  // for a paused writer.
  std::size_t read_fasta(std::uint8_t* out, std::size_t cap) {
    std::size_t done = 0;
    bool asked_for_more = false;
    while (done < cap) {
      const bool may_wait = done == 0;
      if (line_start_) {
        if (skip_blank_lines(may_wait) != Next::line) break;
        if (base_[pos_] == '>') break;  // the next record
        line_start_ = false;
      }
      // Little left in the parse buffer but room in out: the buffer is refilled first (when
      // more is at hand), so the step goes in bulk rather than line by line on this thread.
      // Asked once per call: wait_ready() is a system call for some sources (a zstd ring with
      // nothing published yet answered it for every line: 0.5 s of futex calls per GiB).
      if (len_ - pos_ < kBulkBytes && cap - done >= kBulkBytes && pos_ > 0 && !eof_ && !asked_for_more) {
        asked_for_more = true;
        if (source_at_hand()) refill();
      }
      if (len_ - pos_ >= kBulkBytes && cap - done >= kBulkBytes && !header_within(kShortRecordReach)) {
        const std::size_t at = pos_;
        done += remove_line_breaks(out + done, cap - done);
        if (pos_ != at) continue;
        // No line break within reach (an unwrapped sequence line longer than what fits):
        // copy_line takes the line's bytes (this looped forever on a mapped one-line genome).
      }
      bool ended = false;
      const std::size_t n = copy_line(out + done, cap - done, ended, may_wait);
      done += n;
      if (ended) line_start_ = true;
      else if (n == 0) break;  // the writer paused (copy_line gives nothing only if it may not wait)
    }
    return done;
  }

  // Whether a header line starts within the next `reach` buffered bytes. A record that ends
  // that soon is copied line by line on this thread: the bulk pass below hands the whole pool
  // a region per record and looks at up to 64 KiB per piece, which for short reads was all the
  // work (400,000 reads of 150 nt, 2-core development host: 45 s, 30 s of it in the kernel).
  bool header_within(std::size_t reach) const {
    const std::uint8_t* p = base_ + pos_;
    const std::size_t n = std::min(len_ - pos_, reach);
    for (std::size_t k = 0; k < n;) {
      const auto* q = static_cast<const std::uint8_t*>(std::memchr(p + k, '>', n - k));
      if (!q) return false;
      const auto at = static_cast<std::size_t>(q - p);
      if (at == 0 ? line_start_ : p[at - 1] == '\n') return true;
      k = at + 1;
    }
    return false;
  }

  // Sequence lines in bulk, on all threads: the buffered bytes up to the next header (or as
  // many as fit in out) with every "\n" and every "\r" before a "\n" removed (a blank line is
  // a lone "\n"), as copy_line would remove them line by line. Stops on a line start.
  std::size_t remove_line_breaks(std::uint8_t* out, std::size_t cap) {
    const std::uint8_t* p = base_ + pos_;
    // More input than fits in cap is taken (line breaks are dropped) and the region is cut
    // to what fits below, so the step fills `out` nearly to cap: what is left over goes
    // line by line through copy_line on this one thread (~1/60 of every step before).
    std::size_t n = std::min(len_ - pos_, cap + cap / 8);
    const std::size_t at_hand = n;
    WorkerPool& pool = this->pool();
    auto split = [&](std::size_t bytes) {
      return std::min<std::size_t>(pool.size() * 4, std::max<std::size_t>(1, bytes / (1 << 20)));
    };
    // Bytes of p[a, end) that are dropped: "\n", and the '\r' of "\r\n" (looked for only where
    // there is a '\r' at all); a '\r' that is the last byte at hand is decided later (a region
    // ends on a '\n' before it). `census`: p[a, end)'s.
    auto dropped_between = [&](std::size_t a, std::size_t end, const ByteCensus& census) {
      std::size_t drop = census.newlines;
      if (census.has_cr)
        for (std::size_t j = a; j < end && j + 1 < at_hand; ++j) drop += p[j] == '\r' && p[j + 1] == '\n';
      return drop;
    };
    // One parallel pass: each piece counts the bytes it drops and looks for its first header
    // ("\n>" starts one; a '>' inside a line is sequence data), the earliest ending the
    // region, reading its bytes once (byte_census; memchr only where there is a '>' or '\r').
    // Separate passes for the header, the line breaks and the '\r's had each read the 64 MiB
    // buffer from memory.
    const std::size_t pieces = split(n), step = (n + pieces - 1) / pieces;
    std::vector<std::size_t> header(pieces, SIZE_MAX), dropped_in(pieces, 0);
    std::vector<char> has_cr(pieces, 0);  // the piece holds a '\r' (up to its header)
    std::atomic<std::size_t> first_header_piece{SIZE_MAX};  // pieces after it count nothing
    pool.run(pieces, [&](std::size_t i) {
      const std::size_t a = i * step, b = std::min(n, a + step);
      std::size_t drop = 0;
      // In steps, so a piece stops soon after its first header (short records: one region per
      // record, each piece looking only up to its first) or once an earlier piece has one.
      for (std::size_t j = a; j < b && first_header_piece.load(std::memory_order_relaxed) >= i; j += kCensusStep) {
        std::size_t e = std::min(b, j + kCensusStep);
        ByteCensus census = byte_census(p + j, e - j);
        bool ends_here = false;
        for (std::size_t k = j; census.has_gt && k < e;) {  // the '>' that starts a line, if any
          const auto* q = static_cast<const std::uint8_t*>(std::memchr(p + k, '>', e - k));
          if (!q) break;
          const std::size_t at = static_cast<std::size_t>(q - p);
          if (at > 0 && p[at - 1] == '\n') {
            header[i] = e = at;
            ends_here = true;
            for (std::size_t seen = first_header_piece.load(); i < seen && !first_header_piece.compare_exchange_weak(seen, i);) {}
            census = byte_census(p + j, e - j);
            break;
          }
          k = at + 1;
        }
        drop += dropped_between(j, e, census);
        has_cr[i] |= census.has_cr;
        if (ends_here) break;
      }
      dropped_in[i] = drop;
    });
    for (std::size_t h : header)
      if (h != SIZE_MAX) {
        n = h;
        break;
      }
    // What fits in cap: the pieces whose bytes kept fit whole, and of the first that does not
    // as many input bytes as there is room left (a piece keeps at most its size).
    bool cut_to_fit = false;
    for (std::size_t i = 0, room = cap; i < pieces; ++i) {
      const std::size_t a = i * step, b = std::min(n, a + step);
      if (b <= a) break;
      const std::size_t kept_here = (b - a) - dropped_in[i];
      if (kept_here > room) {
        n = a + room;
        cut_to_fit = true;
        break;
      }
      room -= kept_here;
    }
    // End on a line break so the next call starts a line (a partial last line is left for
    // copy_line); a '\r' just before the end is decided by the byte after it, so also left.
    // The bytes cut off hold no '\n' unless the region was cut to fit: then the piece the
    // region now ends in is counted again, to its new end.
    const auto* last_nl = static_cast<const std::uint8_t*>(memrchr(p, '\n', n));
    if (!last_nl) return 0;
    n = static_cast<std::size_t>(last_nl - p) + 1;
    if (cut_to_fit) {
      const std::size_t k = (n - 1) / step;
      const ByteCensus census = byte_census(p + k * step, n - k * step);
      dropped_in[k] = dropped_between(k * step, n, census);
      has_cr[k] = census.has_cr;
    }
    // A byte is dropped when it is '\n', or '\r' followed by '\n' (the byte after a piece is
    // still inside [p, p + n), which ends with '\n').
    auto dropped = [&](std::size_t j) { return p[j] == '\n' || (p[j] == '\r' && p[j + 1] == '\n'); };
    std::vector<std::size_t> kept(pieces + 1, 0);
    for (std::size_t i = 0; i < pieces; ++i) {
      const std::size_t a = i * step, b = std::min(n, a + step);
      kept[i + 1] = kept[i] + (b > a ? (b - a) - dropped_in[i] : 0);
    }
    pool.run(pieces, [&](std::size_t i) {
      const std::size_t a = i * step, b = std::min(n, a + step);
      std::uint8_t* o = out + kept[i];
      if (b <= a) return;
      if (!has_cr[i]) {
        copy_without_newlines(p + a, b - a, o, out + kept[i + 1]);
        return;
      }
      // Whole runs between line breaks are copied at once.
      for (std::size_t j = a; j < b;) {
        const auto* nl = static_cast<const std::uint8_t*>(std::memchr(p + j, '\n', b - j));
        std::size_t e = nl ? static_cast<std::size_t>(nl - p) : b;  // run [j, e)
        std::size_t run = e - j;
        if (nl && run > 0 && p[e - 1] == '\r') --run;
        else if (!nl && run > 0 && p[e - 1] == '\r' && dropped(e - 1)) --run;  // "\r" | "\n" across pieces
        std::memcpy(o, p + j, run);
        o += run;
        j = nl ? e + 1 : e;
      }
    });
    pos_ += n;
    line_start_ = true;
    return kept[pieces];
  }

  // ---- FASTQ ----
  bool next_fastq(std::string& record_name) {
    if (skip_blank_lines() == Next::end) return false;
    header_line_ = line_ + 1;
    if (base_[pos_] != '@') fail_line(header_line_, "expected a FASTQ header line starting with '@'");
    ++pos_;
    record_name = read_name();
    fastq_name_ = record_name;
    if (!has_byte()) truncated("sequence");
    seq_len_ = 0;
    in_sequence_ = true;
    return true;
  }

  [[noreturn]] void truncated(const char* missing) const {
    fail_line(header_line_, "truncated FASTQ record '" + fastq_name_ + "' (no " + missing + " line)");
  }

  std::size_t read_fastq(std::uint8_t* out, std::size_t cap) {
    if (!in_sequence_) return 0;
    bool ended = false;
    const std::size_t n = copy_line(out, cap, ended);
    seq_len_ += n;
    if (!ended) return n;
    in_sequence_ = false;
    // The '+' line and the quality line, checked against the sequence.
    std::uint64_t plus_len = 0, qual_len = 0;
    std::uint8_t plus_first = 0;
    const std::uint64_t plus_line = line_ + 1;
    if (!skip_line(plus_len, &plus_first)) truncated("'+'");
    if (plus_len == 0 || plus_first != '+')
      fail_line(plus_line, "expected a '+' line in FASTQ record '" + fastq_name_ + "'");
    const std::uint64_t qual_line = line_ + 1;
    if (!skip_line(qual_len)) truncated("quality");
    if (qual_len != seq_len_)
      fail_line(qual_line, "FASTQ record '" + fastq_name_ + "' has " + std::to_string(seq_len_) +
                               " bases but " + std::to_string(qual_len) + " quality values");
    return n;
  }

  std::string name_;
  std::unique_ptr<ByteSource> src_;
  Format format_;
  std::exception_ptr pending_;  // the source's error, once the bytes before it are out
  int threads_;
  std::unique_ptr<WorkerPool> pool_;  // FASTA line removal and short records, started at first use
  const std::uint8_t* base_ = nullptr;   // buf_, or the mapped file parsed in place
  MemorySource* mapped_ = nullptr;       // that file's source (src_), else null
  std::size_t mapped_origin_ = 0;        // base_'s offset in it
  std::size_t released_ = 0;             // base_[0, released_) released from resident memory
  std::unique_ptr<std::uint8_t[]> buf_;  // not zeroed: a fresh 64 MiB costs no page faults
  std::size_t buf_size_ = 0;
  std::size_t pos_ = 0, len_ = 0;
  bool eof_ = false;
  std::uint64_t line_ = 0;  // line breaks consumed so far
  bool plain_done_ = false;
  bool line_start_ = true;
  // FASTQ record in progress
  bool in_sequence_ = false;
  std::uint64_t seq_len_ = 0, header_line_ = 0;
  std::string fastq_name_;
};

}  // namespace

struct TextStream::Impl {
  std::string name;
  Format format = Format::plain;
  Compression compression = Compression::none;
  StreamOptions options;
  std::uint64_t stored_bytes = 0;

  // Mapped plain file: windows point into the mapping.
  ByteSpan mapped;
  std::shared_ptr<const void> mapping;
  std::uint64_t mapped_pos = 0;
  bool mapped_done = false;

  // Everything else: parsed into window buffers, one at a time, or two in turn when a
  // producer thread builds the next window while the caller searches the last (pipelined).
  struct Buffer {
    std::unique_ptr<std::uint8_t[]> bytes;
    std::size_t capacity = 0;
    // The names of the batch's records (its windows' string_views point here; a deque's
    // elements stay where they are as it grows).
    std::deque<std::string> records;
    std::string names;  // the names of a batch of short records, end to end (next_short_records)
    std::size_t populated = 0;  // bytes from the start whose pages were asked for (populate_ahead)
    std::jthread populator;     // after `bytes`: stopped and joined before they are freed
  };
  std::unique_ptr<RecordParser> parser;
  Buffer buffers[2];
  int current = 0;                 // the buffer of the last window built
  int buffer_count = 1;
  std::size_t carry = 0;           // bytes the next window repeats from the last one,
  std::size_t carry_from = 0;      // found at this offset of the current buffer
  std::string record_name;
  std::uint64_t record_index = 0;
  std::uint64_t record_offset = 0; // offset of window[0] in the record
  bool in_record = false;
  bool started = false;
  std::exception_ptr pending_error;  // met after the bytes of the last window
  std::uint64_t window_bytes_now = 0;  // this window's new bytes (growing to window_bytes)
  Clock::time_point probe_byte_at{};   // the format probe's first byte (when it read any)
  detail::ParsedRecords short_records;  // the last batch of next_short_records (reused)
  int short_records_pause = 0;           // batches to go record by record before the next try

  bool next_mapped(TextWindow& w) {
    if (mapped_done) return false;
    const std::uint64_t n = mapped.size();
    std::uint64_t end = std::min(n, mapped_pos + std::max<std::uint64_t>(options.mapped_window_bytes, 1));
    const std::uint64_t read_end = std::min(n, end + options.overlap);
    // A window whose overlap reaches the end of the file is the last (it owns the bytes up to
    // the end): no window of no new bytes follows, and a non-last window always has `overlap`
    // bytes after its owned ones, as a read window has (a search that must see the byte after
    // a hit, find/approx -w, relies on it).
    if (read_end == n) end = n;
    w.record = {};
    w.record_index = 0;
    w.offset = mapped_pos;
    w.data = mapped.subspan(mapped_pos, read_end - mapped_pos);
    w.first = mapped_pos == 0;
    w.repeated = w.first ? 0 : std::min(n, mapped_pos + options.overlap) - mapped_pos;
    w.last = end == n;
    w.input_paused = false;
    w.owned = w.last ? w.data.size() : end - mapped_pos;
    mapped_pos = end;
    mapped_done = w.last;
    return true;
  }

  // A buffer's pages cost nothing until touched, so it is made as large as a full window at
  // once (no copy as windows grow from 1 MiB); only a window as large as a whole record
  // (approx --best) grows by doubling, to what the record needs.
  std::uint64_t next_capacity(const Buffer& b, std::uint64_t cap) const {
    const std::uint64_t full = options.window_bytes + options.overlap;
    if (full <= kWholeWindowLimit && cap <= full) return full;
    return std::min<std::uint64_t>(cap, std::max<std::uint64_t>(2 * b.capacity, kFirstWindow));
  }

  static void grow(Buffer& b, std::uint64_t capacity, std::size_t keep) {
    std::unique_ptr<std::uint8_t[]> bigger(new std::uint8_t[capacity]);
    if (keep) std::memcpy(bigger.get(), b.bytes.get(), keep);
    b.populator = {};  // stopped and joined: it may still be touching the old pages
    b.bytes = std::move(bigger);
    b.capacity = capacity;
    b.populated = keep;
  }

  // A window buffer's pages are faulted in by a thread of its own just ahead of the reads that
  // fill them, not by the reads: the first touch of a fresh page (a fault and its zeroing) would
  // otherwise run in the serial stage of a pipe, the builder's read(). Measured on the H200
  // host, `cat 4 GiB | find -c`: 133,000 page faults in that thread, sys time 2.45 s against
  // the bare pipe's 1.57 s. MADV_POPULATE_WRITE (Linux 5.14) maps pages without writing them,
  // so it may run beside the reads into the same buffer; older kernels refuse it and the reads
  // fault as before.
  static void populate_ahead(Buffer& b, std::size_t filled, std::size_t upto) {
#ifdef MADV_POPULATE_WRITE
    upto = std::min(upto, b.capacity);
    const std::size_t from = std::max(b.populated, filled);
    b.populated = upto;
    if (upto < from + (std::size_t{1} << 20)) return;  // a short rest faults cheaply enough
    b.populator = std::jthread([p = b.bytes.get(), from, upto](std::stop_token stop) {
      constexpr std::uintptr_t kPage = 4096;
      constexpr std::size_t kStep = std::size_t{4} << 20;
      for (std::size_t at = from; at < upto && !stop.stop_requested(); at += kStep) {
        const auto lo = (reinterpret_cast<std::uintptr_t>(p + at) + kPage - 1) & ~(kPage - 1);
        const auto hi = reinterpret_cast<std::uintptr_t>(p + std::min(upto, at + kStep)) & ~(kPage - 1);
        if (hi > lo && ::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_POPULATE_WRITE) != 0) return;
      }
    });
#else
    (void)b, (void)filled, (void)upto;
#endif
  }

  // The window's record, place and bytes (its ownership is the caller's to set).
  void describe(TextWindow& w, Buffer& b, std::size_t base, std::size_t size, bool last, bool input_paused) const {
    b.records.push_back(record_name);  // each window of a batch is another record's
    w.record = b.records.back();
    w.record_index = record_index;
    w.offset = record_offset;
    w.data = ByteSpan(b.bytes.get() + base, size);
    w.repeated = carry;
    w.last = last;
    w.input_paused = input_paused;
  }

  // The next batch of windows, in the buffer after the last batch's: a window, and after a
  // window that ends its record more whole records while they fit the batch's budget and the
  // input has them at hand. Short records (reads) are handed on and searched by the thousand
  // rather than one by one: 400,000 reads of 150 nt through the pipelined builder cost two
  // thread hand-offs each, 19 s of futex calls on the 2-core development host. Empty at the
  // end of the input. An error after the batch's first window is kept for the next call.
  void next_batch(std::vector<TextWindow>& out) {
    out.clear();
    if (pending_error) std::rethrow_exception(pending_error);
    const int previous = current;
    current = (current + 1) % buffer_count;
    Buffer& b = buffers[current];
    b.records.clear();
    // Batches grow from 1 MiB to window_bytes, so the first results of a pipe (and -q, -m)
    // come early, not after a whole window (a slow pipe's when its writer pauses); a fast
    // pipe's take at least one read step (kParseBlock), as a reader that fills its steps has
    // always taken them: the same windows, so the same memory, as before pauses ended any.
    const std::uint64_t budget = std::min(options.window_bytes, std::max<std::uint64_t>(window_bytes_now, kParseBlock));
    window_bytes_now = std::min<std::uint64_t>(options.window_bytes, window_bytes_now * 2);
    if (next_short_records(out, b, budget)) return;
    std::vector<std::size_t> bases;  // each window's offset in b (b may grow while the batch is built)
    std::size_t base = 0;
    for (;;) {
      TextWindow w;
      try {
        if (!next_window(w, b, previous, base, budget - std::min<std::uint64_t>(budget, base))) break;
      } catch (const InputError&) {
        if (out.empty()) throw;
        pending_error = std::current_exception();
        break;
      }
      out.push_back(w);
      bases.push_back(base);
      base += w.data.size();
      // Another record only after a whole one, with room for a short record beyond the
      // overlap, and while the input has bytes at hand (a paused pipe's records go out now).
      if (!w.last || pending_error || w.input_paused || out.size() >= kBatchWindows) break;
      if (base + 2 * options.overlap + kBatchRoom > budget) break;
    }
    for (std::size_t i = 0; i < out.size(); ++i) out[i].data = ByteSpan(b.bytes.get() + bases[i], out[i].data.size());
  }

  // A batch of whole short records (reads) parsed on all threads at once into b. False when
  // the next record is not whole, not plain or a long one's window is due (the batch is then
  // built record by record, and the next kShortRecordsPause batches do not try).
  bool next_short_records(std::vector<TextWindow>& out, Buffer& b, std::uint64_t budget) {
    if (in_record || !parser) return false;
    if (short_records_pause > 0) {
      --short_records_pause;
      return false;
    }
    const std::size_t room = static_cast<std::size_t>(std::min<std::uint64_t>(budget, kShortRecordsRegion));
    if (b.capacity < room) grow(b, next_capacity(b, room), 0);
    if (!parser->take_short_records(b.bytes.get(), room, short_records)) {
      short_records_pause = kShortRecordsPause;
      return false;
    }
    b.names.swap(short_records.names);  // the windows' names point into b, as their bytes do
    const std::string_view names = b.names;
    const std::uint64_t first_index = started ? record_index + 1 : 0;
    out.resize(short_records.records.size());
    for (std::size_t i = 0; i < out.size(); ++i) {
      const detail::ParsedRecord& r = short_records.records[i];
      TextWindow& w = out[i];
      w.record = names.substr(r.name_at, r.name_size);
      w.record_index = first_index + i;
      w.offset = 0;
      w.data = ByteSpan(b.bytes.get() + r.sequence_at, r.sequence_size);
      w.owned = r.sequence_size;
      w.repeated = 0;
      w.first = w.last = true;
      w.input_paused = false;
    }
    out.back().input_paused = !parser->wait_ready(no_wait);
    record_index = out.back().record_index;
    started = true;
    return true;
  }

  // One window at b[base...) of at most `room` new bytes: the next record's first, or the
  // current record's next (then base is 0 and it opens with the carry from buffer
  // `previous`). False at the end of the input.
  bool next_window(TextWindow& w, Buffer& b, int previous, std::size_t base, std::uint64_t room) {
    if (!in_record) {
      if (!parser->next_record(record_name)) return false;
      if (started) ++record_index;
      started = true;
      in_record = true;
      carry = 0;
      record_offset = 0;
      w.first = true;
    } else {
      w.first = false;
      // The last window's bytes after its owned starts open this one (moved only now: the
      // caller searched them in place until this call; a pipelined caller still reads them).
      const Buffer& from = buffers[previous];
      if (b.capacity < carry) grow(b, std::max<std::uint64_t>(carry, next_capacity(b, carry)), 0);
      if (carry) std::memmove(b.bytes.get(), from.bytes.get() + carry_from, carry);  // b may be unallocated
    }
    const std::uint64_t cap = carry + room;  // bytes of this window, at b[base...)
    std::size_t size = carry;
    bool paused = false;
    Clock::time_point pause_deadline{};
    try {
      while (size < cap && !closing.load(std::memory_order_relaxed)) {
        // The writer paused: no more bytes within kPauseWait of the window's first new one
        // (of the last one for a bulk stream). The window ends here as a non-last one (its
        // last `overlap` bytes open the next window, as always), so what arrived is searched
        // and printed now.
        if (size > carry && options.end_window_on_pause &&
            !parser->wait_ready(size - carry < kBulkWindowBytes ? pause_deadline : Clock::now() + kPauseWait)) {
          paused = true;
          break;
        }
        // Grown as filled (not zeroed): a window as large as a whole record (approx --best)
        // takes only what the record needs.
        if (base + size == b.capacity) grow(b, next_capacity(b, base + cap), base + size);
        // Once the record has given a few MiB (a flowing stream, not a small pipe, whose pages
        // are not worth committing), the rest of the window is faulted in ahead of the reads.
        if (record_offset + (size - carry) >= kPopulateAfter && b.populated < base + cap)
          populate_ahead(b, base + size, base + cap);
        // In steps, so a caller that stops early (-q, -m) does not wait for a whole window.
        const std::size_t step = std::min<std::size_t>(b.capacity - base - size, kParseBlock);
        const std::size_t got = parser->read_sequence(b.bytes.get() + base + size, step);
        if (got == 0) break;
        if (size == carry && !parser->never_pauses()) {  // the first window's pause counts from the probe's first byte
          const Clock::time_point first = probe_byte_at != Clock::time_point{} ? probe_byte_at : Clock::now();
          pause_deadline = first + kPauseWait;
          probe_byte_at = {};
        }
        size += got;
      }
    } catch (const InputError&) {
      if (size == carry) throw;
      // The bytes before corrupt data are searched (all of them: nothing follows), then the
      // next call reports the error.
      pending_error = std::current_exception();
      describe(w, b, base, size, false, false);
      w.owned = size;
      return true;
    }
    const bool last = !paused && size < cap;  // the record ended before the window filled up
    // The caller flushes what it printed when nothing more of the input is at hand.
    describe(w, b, base, size, last, paused || !parser->wait_ready(no_wait));
    w.owned = last ? size : size - std::min<std::uint64_t>(options.overlap, size);
    if (last) {
      in_record = false;
    } else {
      carry_from = base + w.owned;
      carry = size - w.owned;
      record_offset += w.owned;
    }
    return true;
  }

  // ---- pipelined: a producer thread builds window i + 1 while the caller searches window i ----
  // Window i is built into buffer i % 2 and reads its carry from window i - 1's buffer (which
  // the caller only reads): it may start once window i - 2 is released, that is when the
  // caller has asked for window i - 1.
  struct Built {
    std::vector<TextWindow> windows;
    bool end = false;
    std::exception_ptr error;
    std::uint64_t stored_offset = 0;
  };
  std::thread producer;
  std::mutex mutex;
  std::condition_variable changed;
  std::optional<Built> ready;
  // The vector of the batch the caller last released, for the producer's next batch: a batch
  // of 50,000 reads is 4 MB of windows, which a fresh vector faulted in page by page.
  std::vector<TextWindow> spare_windows;
  std::uint64_t taken = 0;               // windows handed to the caller so far
  std::atomic<bool> closing{false};
  std::atomic<std::uint64_t> stored_done{0};  // stored bytes consumed by the windows handed out

  void start_pipeline() {
    buffer_count = 2;
    producer = std::thread([this] { produce(); });
  }

  void produce() {
    for (std::uint64_t i = 0;; ++i) {
      {
        std::unique_lock lock(mutex);
        // Window i may overwrite window i - 2's buffer once the caller holds window i - 1.
        changed.wait(lock, [&] { return closing.load() || (!ready && taken + 1 >= i); });
        if (closing.load()) return;
      }
      Built b;
      {
        std::lock_guard lock(mutex);
        b.windows = std::move(spare_windows);  // a batch's vector again: no fresh pages each batch
      }
      try {
        next_batch(b.windows);
        b.end = b.windows.empty();
      } catch (...) {
        b.error = std::current_exception();
      }
      b.stored_offset = parser->raw_offset();
      const bool stop = b.end || b.error;
      {
        std::lock_guard lock(mutex);
        ready = std::move(b);
      }
      changed.notify_all();
      if (b.end) release_spare_buffers();
      if (stop) return;
    }
  }

  // At the input's end, the buffers no window needs any more (the one the next window would
  // have used, the parser's) are freed by the producer while the caller searches the last
  // window: freeing pages is serial work that otherwise comes after the last search, when the
  // process ends (1 GiB BGZF FASTA, 2-core development host: ~25 ms of the main thread alone).
  void release_spare_buffers() {
    free_buffer(buffers[current]);  // next_batch moved to it before it found the end
    parser->release_buffer();
  }
  void free_buffer(Buffer& b) const {
    b.populator = {};  // stopped and joined first: it may still be touching the pages
    if (b.bytes) free_pages_in_parallel(b.bytes.get(), b.capacity, options.threads);
    b.bytes.reset();
    b.capacity = b.populated = 0;
  }

  // The next batch from the producer (empty at the end).
  void next_pipelined(std::vector<TextWindow>& out) {
    std::optional<Built> b;
    {
      std::unique_lock lock(mutex);
      changed.wait(lock, [&] { return ready.has_value(); });
      b = std::move(ready);
      ready.reset();
      ++taken;  // the window before this one is released
    }
    changed.notify_all();
    stored_done.store(b->stored_offset);
    if (b->error) {
      ended = true;
      std::rethrow_exception(b->error);
    }
    if (b->end) {
      ended = at_end = true;
      out.clear();
      return;
    }
    std::vector<TextWindow> released = std::move(out);  // the caller is done with the last batch
    out = std::move(b->windows);
    std::lock_guard lock(mutex);
    spare_windows = std::move(released);
  }

  // The rest of the current batch, or the next batch (empty at the end).
  std::span<const TextWindow> next_windows() {
    if (!parser) {
      batch.resize(1);
      batch_next = 1;
      if (!next_mapped(batch[0])) return {};
      return batch;
    }
    if (batch_next == batch.size()) {
      batch_next = 0;
      if (producer.joinable()) {
        if (ended) batch.clear();
        else next_pipelined(batch);
      } else {
        next_batch(batch);
      }
    }
    const std::span<const TextWindow> rest = std::span<const TextWindow>(batch).subspan(batch_next);
    batch_next = batch.size();
    return rest;
  }
  std::vector<TextWindow> batch;  // the windows handed out by next(), one by one
  std::size_t batch_next = 0;
  bool ended = false;
  bool at_end = false;  // the producer found the input's end: it touches no window buffer now

  ~Impl() {
    if (producer.joinable()) {
      // The last window's buffer is freed here while the producer frees the others
      // (release_spare_buffers): the two frees overlap rather than follow each other.
      if (at_end) free_buffer(buffers[(current + 1) % buffer_count]);
      closing.store(true);
      {
        std::lock_guard lock(mutex);  // the producer sees closing before it waits again
      }
      changed.notify_all();
      // The producer may wait for a paused writer (the caller stopped early: -q, -m).
      parser->cancel();
      producer.join();
    }
  }
};

namespace {

// A source whose next read rethrows an error met earlier.
class FailingSource final : public ByteSource {
 public:
  FailingSource(std::exception_ptr error, std::uint64_t offset) : error_(std::move(error)), offset_(offset) {}
  std::size_t read(std::uint8_t*, std::size_t) override { std::rethrow_exception(error_); }
  std::uint64_t raw_offset() const override { return offset_; }

 private:
  std::exception_ptr error_;
  std::uint64_t offset_;
};

// Probes the decompressed content's first bytes for the format, keeping them for the parser.
std::unique_ptr<TextStream::Impl> open_stream(std::string name, std::unique_ptr<ByteSource> raw, ByteSpan mapped,
                                              std::shared_ptr<const void> mapping, std::uint64_t stored,
                                              const StreamOptions& options) {
  auto impl = std::make_unique<TextStream::Impl>();
  impl->name = name;
  impl->options = options;
  if (impl->options.window_bytes == 0) impl->options.window_bytes = 1;
  impl->window_bytes_now = std::min<std::uint64_t>(impl->options.window_bytes, kFirstWindowBytes);
  impl->stored_bytes = stored;

  // Compression by the stored bytes' first 18 bytes.
  std::string head;
  if (!mapped.empty()) {
    impl->compression = detect_compression(mapped.first(std::min<std::size_t>(mapped.size(), 18)));
  } else {
    head.resize(18);
    std::size_t got = 0;
    while (got < head.size()) {
      // A writer that pauses within the first bytes: they are probed as they are, once they
      // decide the compression.
      if (compression_decided(as_bytes(head).first(got)) && !raw->wait_ready(impl->probe_byte_at + kPauseWait)) break;
      const std::size_t n = raw->read(reinterpret_cast<std::uint8_t*>(head.data()) + got, head.size() - got);
      if (n == 0) break;
      if (got == 0) impl->probe_byte_at = Clock::now();
      got += n;
    }
    head.resize(got);
    impl->compression = detect_compression(as_bytes(head));
    raw = std::make_unique<PushbackSource>(std::move(head), std::move(raw));
    head.clear();
  }
  std::unique_ptr<ByteSource> src = decompressing_source(name, impl->compression, std::move(raw), options.threads);
  // gzip is decoded on a thread of its own (read-ahead), zstd on its own too (ZstdSource, into
  // a ring it owns), BGZF on all threads straight into the parser's buffer (a read-ahead copy
  // would cost more than it hides). A pipe is read straight into the window (plain) or the
  // parse buffer (FASTA/FASTQ) by the pipelined window builder, itself a thread of its own: a
  // read-ahead thread in between cost a second copy of every byte and did not shorten the
  // busiest thread, the pipe's kernel copy (6 GiB through `cat |` on the 2-core development
  // host, perf samples: busiest thread 1.2-1.45 s either way, the process 2.1 s with a
  // read-ahead, 1.5 s without). Huge pages for the windows made it slower there (fresh 2 MiB
  // pages zeroed at under 1 GB/s on that VM). A large gzip member in a mapped file is decoded
  // ahead on all threads already (decodes_ahead): a read-ahead would only copy it once more.
  if (options.read_ahead && impl->compression == Compression::gzip && !decodes_ahead(*src))
    src = read_ahead(std::move(src), kReadAheadSlot, kReadAheadSlots, kHandOffWait);

  // Format by the content's first bytes.
  if (impl->compression == Compression::none && !mapped.empty()) {
    impl->format = options.format == Format::automatic ? detect_format(mapped) : options.format;
    if (impl->format == Format::plain) {
      impl->mapped = mapped;
      impl->mapping = std::move(mapping);
      return impl;
    }
    // A mapped FASTA/FASTQ is parsed from the mapping (MemorySource: no read() copies), in
    // full windows from the start (growing windows are for a pipe's first results).
    impl->window_bytes_now = impl->options.window_bytes;
    impl->parser = std::make_unique<RecordParser>(name, std::move(src), impl->format, std::string(), options.threads);
    if (options.pipeline) impl->start_pipeline();
    return impl;
  }
  head.resize(kProbeBytes);
  std::size_t got = 0;
  try {
    while (got < head.size()) {
      if (format_decided(as_bytes(head).first(got)) && !src->wait_ready(impl->probe_byte_at + kPauseWait)) break;
      const std::size_t n = src->read(reinterpret_cast<std::uint8_t*>(head.data()) + got, head.size() - got);
      if (n == 0) break;
      if (impl->probe_byte_at == Clock::time_point{}) impl->probe_byte_at = Clock::now();
      got += n;
    }
  } catch (const InputError&) {
    // Corrupt data within the probe: the bytes before it are searched first, then next()
    // reports the error, as for corruption further on.
    src = std::make_unique<FailingSource>(std::current_exception(), src->raw_offset());
  }
  head.resize(got);
  impl->format = options.format == Format::automatic ? detect_format(as_bytes(head)) : options.format;
  impl->parser = std::make_unique<RecordParser>(name, std::move(src), impl->format, std::move(head), options.threads);
  if (options.pipeline) impl->start_pipeline();
  return impl;
}

}  // namespace

TextStream TextStream::open(const std::string& path, const StreamOptions& options) {
  RawInput raw = open_raw(path, options.read_whole_bytes);
  if (path == "-" && !options.stdin_name.empty()) raw.name = options.stdin_name;
  return TextStream(open_stream(raw.name, std::move(raw.source), raw.mapped, raw.mapping, raw.size_hint, options));
}

TextStream TextStream::from_bytes(std::string name, ByteSpan bytes, const StreamOptions& options) {
  // Served through a read() source (not as a mapping) so tests exercise the copying path.
  auto src = std::make_unique<MemorySource>(bytes);
  struct Reader final : ByteSource {
    explicit Reader(std::unique_ptr<MemorySource> m) : m_(std::move(m)) {}
    std::size_t read(std::uint8_t* out, std::size_t cap) override { return m_->read(out, cap); }
    std::uint64_t raw_offset() const override { return m_->raw_offset(); }
    std::unique_ptr<MemorySource> m_;
  };
  return TextStream(open_stream(std::move(name), std::make_unique<Reader>(std::move(src)), {}, nullptr,
                                bytes.size(), options));
}

TextStream TextStream::from_source(std::string name, std::unique_ptr<ByteSource> source,
                                   const StreamOptions& options) {
  return TextStream(open_stream(std::move(name), std::move(source), {}, nullptr, 0, options));
}

bool TextStream::next(TextWindow& window) {
  if (!impl_->parser) return impl_->next_mapped(window);
  Impl& s = *impl_;
  if (s.batch_next == s.batch.size()) {
    const std::span<const TextWindow> rest = s.next_windows();
    if (rest.empty()) return false;
    s.batch_next = s.batch.size() - rest.size();
  }
  window = s.batch[s.batch_next++];
  return true;
}

std::span<const TextWindow> TextStream::next_windows() { return impl_->next_windows(); }

const std::string& TextStream::name() const { return impl_->name; }
Format TextStream::format() const { return impl_->format; }
Compression TextStream::compression() const { return impl_->compression; }
bool TextStream::is_mapped() const { return !impl_->parser; }
std::uint64_t TextStream::stored_bytes() const { return impl_->stored_bytes; }
std::uint64_t TextStream::stored_offset() const {
  if (!impl_->parser) return impl_->mapped_pos;
  return impl_->producer.joinable() ? impl_->stored_done.load() : impl_->parser->raw_offset();
}

TextStream::TextStream(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TextStream::TextStream(TextStream&&) noexcept = default;
TextStream& TextStream::operator=(TextStream&&) noexcept = default;
TextStream::~TextStream() = default;

}  // namespace warpmatch::io
