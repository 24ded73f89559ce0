// Streaming inputs for search: any input (file, pipe, stdin; gzip, BGZF or zstd inside;
// plain, FASTA or FASTQ) delivered as windows of one record's text in bounded memory, each
// window repeating the last `overlap` bytes of the one before, so a search that needs to see
// `overlap` bytes beyond a start position finds every match exactly once: a window owns the
// start positions [0, owned) of its data; the starts after them are owned by the next window
// of the same record, which begins with those bytes.
//
//   io::TextStream in = io::TextStream::open("genome.fa.gz", {.overlap = m - 1});
//   for (io::TextWindow w; in.next(w);)
//     scan(w.data) and keep the hits with start < w.owned, at record offset w.offset + start
//
// Regular uncompressed plain files are mapped and their windows point into the mapping (no
// copy); everything else is read, decompressed and, for FASTA/FASTQ, stripped of line breaks
// into a window buffer, on threads of their own while the caller searches the window before
// (`pipeline`). Memory is about 2 x (window_bytes + overlap) + the read-ahead and decoder
// buffers, whatever the input's size.
//
// Interactive inputs (`tail -f app.log | warpmatch find ERROR`): when a pipe's writer pauses
// (no bytes for 50 ms after a window's first new one), the window ends early, as a non-last
// window with the usual overlap, and is marked input_paused, so its results are searched and
// printed (and flushed) now rather than after a full window or the end of the input.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "io/byte_source.hpp"
#include "io/decompress.hpp"
#include "io/input.hpp"

namespace warpmatch::io {

struct StreamOptions {
  Format format = Format::automatic;
  /// Text bytes new in each window (the window holds up to window_bytes + overlap).
  std::uint64_t window_bytes = std::uint64_t{256} << 20;
  /// New bytes per window of a mapped plain file (no copy: large windows cost no memory).
  std::uint64_t mapped_window_bytes = std::uint64_t{1} << 30;
  /// Bytes each window repeats from the one before (m - 1 for exact search).
  std::uint64_t overlap = 0;
  /// Threads decoding BGZF blocks (0 = all cores).
  int threads = 0;
  /// Regular files of at most this many bytes are read whole rather than mapped (open_raw).
  std::size_t read_whole_bytes = kReadWholeBytes;
  /// Decompress gzip on a thread of its own, ahead of the window builder (zstd always is).
  bool read_ahead = true;
  /// Build the next window on a thread of its own while the caller searches the last one
  /// (two window buffers: twice the memory). Mapped plain files need no building.
  bool pipeline = true;
  /// End a window early when the input's writer pauses (see above). Off for callers whose
  /// windows must be whole records (approx best mode): they wait for the record's end.
  bool end_window_on_pause = true;
  /// The name standard input ("-") goes by in results and messages; empty: "(standard
  /// input)", as grep (the CLI's --label sets it).
  std::string stdin_name;
};

/// One window of one record's text.
struct TextWindow {
  std::string_view record;     // FASTA/FASTQ: the record's name; plain: empty
  std::uint64_t record_index = 0;
  std::uint64_t offset = 0;    // offset of data[0] within the record (64-bit)
  ByteSpan data;               // valid until the next call of next()
  /// Starts [0, owned) belong to this window. A window that is not its record's last has
  /// min(overlap, data.size()) bytes after them, which open the next window of the record
  /// (at offset + owned); only the bytes before corrupt data end a window with owned ==
  /// data.size() and no last (next() then throws).
  std::uint64_t owned = 0;
  /// Bytes at the front of data that the record's previous window held too (0 in a first
  /// window). A search that reports by end position (approx) owns the ends > repeated.
  std::uint64_t repeated = 0;
  bool first = false;          // the record's first window (an empty record has one window)
  bool last = false;           // the record's last window: owned == data.size()
  /// Nothing more of the input was at hand when the window was made (a pipe's writer is
  /// slower than the search or paused; an early-ended window always): a caller printing
  /// results flushes them now, so they are seen while the input waits. False for files.
  bool input_paused = false;
};

class TextStream {
 public:
  /// path "-" is standard input. Throws InputError naming the path (missing, a directory,
  /// unreadable); errors in the data (corrupt compression, malformed FASTA/FASTQ) are thrown
  /// by next(), after the windows before them.
  static TextStream open(const std::string& path, const StreamOptions& options = {});
  /// In-memory content (tests); `name` is used in messages.
  static TextStream from_bytes(std::string name, ByteSpan bytes, const StreamOptions& options = {});
  /// Any byte source (compressed or not, as a file's bytes would be): tests that pause like a
  /// slow pipe, callers with a transport of their own.
  static TextStream from_source(std::string name, std::unique_ptr<ByteSource> source,
                                const StreamOptions& options = {});

  /// The next window; false at the end of the input.
  bool next(TextWindow& window);
  /// The windows of the input read so far and not yet handed out, at least one (empty at the
  /// end of the input): many whole records of a file of short ones (reads), which a caller
  /// may search together, one window otherwise. They stay valid until the next call of
  /// next() or next_windows(). The two may be mixed; each window is handed out once.
  std::span<const TextWindow> next_windows();

  const std::string& name() const;
  Format format() const;             // resolved: plain, fasta or fastq
  Compression compression() const;
  bool is_mapped() const;            // a regular uncompressed file, searched in place
  /// Bytes of the file as stored (compressed size for compressed files); 0 when unknown.
  std::uint64_t stored_bytes() const;
  /// Bytes of the file as stored consumed so far (for a progress bar).
  std::uint64_t stored_offset() const;

  TextStream(TextStream&&) noexcept;
  TextStream& operator=(TextStream&&) noexcept;
  ~TextStream();

  struct Impl;

 private:
  explicit TextStream(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpmatch::io
