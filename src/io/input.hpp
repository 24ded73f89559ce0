// Whole inputs in memory, for the commands that need whole sequences (distance, lcs, pattern
// files): plain files (memory-mapped), pipes and stdin (read()), gzip / BGZF / zstd
// (detected by content), FASTA and FASTQ (detected by content; one record per sequence, line
// breaks removed). Searches read inputs as bounded streams instead (text_stream.hpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "warpmatch/common.hpp"

namespace warpmatch::io {

enum class Format { automatic, plain, fasta, fastq };
std::string_view format_name(Format f);
/// FASTA when the content starts with '>', FASTQ when with '@' and its third line with '+'.
Format detect_format(ByteSpan head);
Format parse_format(std::string_view name);  // "auto" | "plain" | "fasta" | "fastq"

/// A problem with one input (missing, unreadable, a directory, corrupt gzip, malformed
/// FASTA/FASTQ). what() starts with the input's display name, e.g.
/// "reads.fq: line 9: FASTQ record 'r3' has 10 bases but 9 quality values".
class InputError : public Error {
 public:
  using Error::Error;
};

/// One searchable unit: the whole file for plain input, one sequence for FASTA/FASTQ.
struct Record {
  std::string name;       // FASTA/FASTQ: the header's first word; plain: empty
  ByteSpan sequence;      // points into the owning Input
};

/// One opened input, fully available in memory (regular uncompressed files are mmap'ed, so
/// files of many GiB cost no copy). Immutable after open(); movable.
class Input {
 public:
  /// path "-" is standard input. Throws InputError naming the path. A non-zero `limit`
  /// caps the (decompressed) content: past it open() stops reading and throws InputError
  /// "PATH: more than LIMIT bytes (`limit_reason`)" — a gzip bomb costs at most the limit.
  static Input open(const std::string& path, Format format = Format::automatic,
                    std::uint64_t limit = 0, const std::string& limit_reason = {});
  /// In-memory content (tests, `-s` literal strings); `name` is used in messages.
  static Input from_bytes(std::string name, std::vector<std::uint8_t> bytes,
                          Format format = Format::automatic);

  const std::string& name() const;   // the path as given; "(standard input)" for "-"
  Format format() const;             // resolved: plain, fasta or fastq
  bool was_gzip() const;             // decompressed (gzip, BGZF or zstd)
  ByteSpan bytes() const;            // whole (decompressed) content
  const std::vector<Record>& records() const;  // plain: exactly one record with empty name

  Input(Input&&) noexcept;
  Input& operator=(Input&&) noexcept;
  ~Input();

  struct Impl;

 private:
  explicit Input(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpmatch::io
