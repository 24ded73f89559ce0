// Short whole records (a file of reads) searched as one text: a run of a stream's windows
// that are whole records, laid end to end (in place when they already lie so in the
// stream's buffer and need no gap, else copied with a gap of `gap.bytes` bytes between two),
// scanned once, and each hit given back to the record that holds it whole. One scan call
// (one GPU launch) per thousands of reads instead of one per read.
//
//   io::RecordRun run(windows.first(n), gap, scratch);
//   scan(run.text()) and, for each hit, if (auto r = run.record_of(start, end, true))
//     it is record *r's hit at start - run.offset(*r)
//
// A hit within one record is that record's own (same distance, same start) when any hit
// across a gap costs more than the search allows: exact search needs no gap (a hit that
// crosses two records is dropped); approximate search within k edits needs a gap of k + 1
// bytes that no pattern byte matches (each gap byte in an alignment is an edit, and one that
// starts inside the gap does no better than one starting at the record's first byte).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "io/text_stream.hpp"

namespace warpmatch::io {

/// The gap a run's records are laid out with: `bytes` of `byte` between two.
struct RecordGap {
  std::uint64_t bytes = 0;
  std::uint8_t byte = 0;
};

class RecordRun {
 public:
  /// The most bytes (gaps included) a caller puts in one run: one segment of an approximate
  /// scan, whose hits come pattern by pattern within a segment (so a run's hits need only be
  /// regrouped by record); hundreds of scans per GiB.
  static constexpr std::uint64_t kMaxBytes = std::uint64_t{1} << 20;

  /// The windows at the front of `windows` that form a run: whole records (first and last),
  /// their bytes and gaps within `max_bytes` in all. A run of fewer than 2 is not worth one.
  /// `max_record`: no record longer than this either.
  static std::size_t length(std::span<const TextWindow> windows, std::uint64_t gap, std::uint64_t max_bytes,
                            std::uint64_t max_record = ~std::uint64_t{0});

  /// `records`: whole-record windows (RecordRun::length). `scratch` holds the text when the
  /// records must be copied; it and the windows must outlive the run.
  RecordRun(std::span<const TextWindow> records, const RecordGap& gap, std::vector<std::uint8_t>& scratch);

  ByteSpan text() const { return text_; }
  /// The record holding the hit [start, end) of text() whole, by its last byte; nullopt when
  /// it reaches into a gap or another record. `starts_reported` false: the start is not
  /// looked at (approximate hits reported by their end give start 0).
  std::optional<std::size_t> record_of(std::uint64_t start, std::uint64_t end, bool starts_reported = true) const;
  /// Where record `r` starts in text().
  std::uint64_t offset(std::size_t r) const { return starts_[r]; }

 private:
  std::span<const TextWindow> records_;
  std::vector<std::uint64_t> starts_;
  ByteSpan text_;
};

/// The gap of an approximate search of `patterns` within k edits (k < 0: none given): k + 1
/// bytes (k capped at each pattern's length) of a byte that no pattern holds (a control byte
/// other than '\n' and '\r': with IUPAC codes or case folding a pattern byte matches only
/// letters besides itself, and a reverse complement holds letters only); nullopt if every one
/// is used.
std::optional<RecordGap> approx_record_gap(std::span<const std::string_view> patterns, std::int64_t k);

}  // namespace warpmatch::io
