// One sequence from a command-line argument, for commands that take two strings (distance,
// lcs): a file (plain: whole content; FASTA/FASTQ: the first record, or the record named by
// --record; gzip by content) or, with -s, the argument itself as a literal string.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "io/input.hpp"

namespace warpmatch::cli {

struct SequenceInput {
  io::Input input;        // owns the bytes
  ByteSpan sequence;      // the chosen record's bytes
  std::string name;       // the record's name for FASTA/FASTQ, else the path or "literal"
};

/// What a command that reads whole inputs may hold: `bytes_per_input_byte` of memory for each
/// byte of its inputs (measured per command), out of available_memory_bytes().
struct MemoryNeed {
  std::string command;            // "lcs", "distance"
  double bytes_per_input_byte = 1;
  std::uint64_t available = 0;    // available_memory_bytes()
  /// The largest input (in bytes) that fits; inputs past it stop being read at the limit.
  std::uint64_t input_limit() const;
  /// Why the limit is what it is, for the error message.
  std::string reason() const;
  /// Throws InvalidArgument naming both inputs when together they need more than is available.
  void check_total(const std::string& a, std::uint64_t a_bytes, const std::string& b, std::uint64_t b_bytes) const;
};

/// Memory the process may use: WARPMATCH_MEMORY_BYTES (a size such as 512M) when set, else
/// the kernel's MemAvailable, else physical memory.
std::uint64_t available_memory_bytes();

/// "1.5 GiB", "300 MiB", "12 KiB" or "17 bytes".
std::string human_bytes(std::uint64_t n);

/// Throws io::InputError naming the path (missing file, no record called `record`, empty
/// FASTA with no records, an input past `need`'s limit).
SequenceInput load_sequence(const std::string& arg, bool literal,
                            const std::optional<std::string>& record = std::nullopt,
                            io::Format format = io::Format::automatic, const MemoryNeed* need = nullptr);

}  // namespace warpmatch::cli
