// Files of short records (reads) parsed on all threads at once: the whole FASTA or FASTQ
// records at the front of a buffer, their sequences laid end to end in a window buffer
// without line breaks and their names in one string, as the stream's record parser gives
// them one by one. That parser, on one thread, read FASTQ at ~1.2 GB/s on the H200 host: 4 M
// reads of 150 nt took 0.85-1.0 s of a `find -c` whose scan took 0.1 s.
//
// The buffer is cut into pieces. Each piece finds its first record start (FASTQ: a line that
// starts with '@' two lines before one that starts with '+', which no quality or sequence
// line can be; FASTA: a line that starts with '>') and parses the records that start in it.
// The pieces' records are taken front to back only while each piece starts where the one
// before it ended, so a wrong guess costs time, never a record. Line breaks are "\n" or
// "\r\n". Anything else unusual (a blank line between records, a malformed record, a record
// not whole in the buffer) ends what is taken: the stream's own parser goes on from there,
// with its messages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/worker_pool.hpp"
#include "io/input.hpp"

namespace warpmatch::io::detail {

struct ParsedRecord {
  std::size_t name_at = 0, name_size = 0;          // in ParsedRecords::names
  std::size_t sequence_at = 0, sequence_size = 0;  // in the output buffer
};

struct ParsedRecords {
  std::size_t consumed = 0;  // input bytes of the records taken, from the buffer's first
  std::uint64_t lines = 0;   // line breaks among them
  std::size_t sequence_bytes = 0;
  std::vector<ParsedRecord> records;
  std::string names;
};

/// The whole records at the front of p[0, n), which starts at a record's first byte, parsed
/// on `pool`'s threads: sequences into out (room for n bytes), the rest into `into` (its
/// vectors reused). `input_ends`: nothing follows p[n - 1], so a last line may lack its
/// "\n". Takes no record (into.records empty) when the first is not plain and whole.
void parse_short_records(const std::uint8_t* p, std::size_t n, bool input_ends, Format format, std::uint8_t* out,
                         core::WorkerPool& pool, ParsedRecords& into);

}  // namespace warpmatch::io::detail
