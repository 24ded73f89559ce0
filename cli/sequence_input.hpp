// One sequence from a command-line argument, for commands that take two strings (distance,
// lcs): a file (plain: whole content; FASTA/FASTQ: the first record, or the record named by
// --record; gzip by content) or, with -s, the argument itself as a literal string.
#pragma once

#include <optional>
#include <string>

#include "io/input.hpp"

namespace warpmatch::cli {

struct SequenceInput {
  io::Input input;        // owns the bytes
  ByteSpan sequence;      // the chosen record's bytes
  std::string name;       // the record's name for FASTA/FASTQ, else the path or "literal"
};

/// Throws io::InputError naming the path (missing file, no record called `record`, empty
/// FASTA with no records).
SequenceInput load_sequence(const std::string& arg, bool literal,
                            const std::optional<std::string>& record = std::nullopt);

}  // namespace warpmatch::cli
