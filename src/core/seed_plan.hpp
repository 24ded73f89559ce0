// The pigeonhole seed filter's backend-neutral form (issue 15): a pattern within k edits (or k
// mismatches) of a substring, cut into k + 1 pieces, has at least one piece in that substring
// exactly. The plan holds every pattern's pieces (distinct ones once, with the patterns and
// offsets that use them), the table that finds them in a text by their first q bytes (a
// bitmap of hashed keys, then buckets of exact keys), and each pattern's Myers match words.
// The CPU filter (src/cpu/approx_seed_filter.*) and the CUDA one (src/cuda/approx/seed_filter.*)
// both read it; the key, hash and window rules below are the ones both use.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/approx_pattern.hpp"
#include "core/exact_pattern.hpp"  // fold_ascii
#include "core/host_device.hpp"

namespace warpmatch::core {

struct SeedPlan {
  /// Shortest piece: shorter ones occur nearly everywhere in any text.
  static constexpr std::uint32_t kMinPiece = 4;
  /// Longest pattern: one 64-bit Myers word.
  static constexpr std::uint32_t kMaxPattern = 64;

  struct Member {
    std::uint32_t index = 0;  // in the caller's pattern list
    std::uint32_t m = 0, k = 0;
    std::uint32_t hamming = 0;
  };
  std::vector<Member> members;
  std::vector<std::uint64_t> peq;            // members x 256: the rows matching each text byte
  std::vector<std::uint32_t> use_start;      // per distinct piece + 1, into use_member/use_offset
  std::vector<std::uint32_t> use_member, use_offset;  // who uses a piece, and where in it
  std::vector<std::uint8_t> piece_bytes;     // the distinct pieces, concatenated (folded when ci)
  std::vector<std::uint32_t> piece_offsets;  // size pieces + 1
  bool case_insensitive = false;
  std::uint32_t q = 8;                       // key bytes: the shortest piece, at most 8
  int bitmap_bits = 12, bucket_bits = 1;
  std::vector<std::uint64_t> bitmap;         // bit seed_hash(key) >> (64 - bitmap_bits) of every piece
  std::vector<std::uint32_t> bucket_start;   // size 2^bucket_bits + 1, into entry_*
  std::vector<std::uint64_t> entry_key;      // the pieces' keys by bucket (seed_hash >> (64 - bucket_bits))
  std::vector<std::uint32_t> entry_piece;
  std::uint32_t max_m = 0, max_k = 0;

  std::uint64_t key_mask() const { return q >= 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * q)) - 1; }
  std::size_t pieces() const { return piece_offsets.empty() ? 0 : piece_offsets.size() - 1; }
};

/// The plan over patterns[members[i]] (each with queries[members[i]]), or null when one of
/// them does not qualify: IUPAC codes (pieces match by equality only), best mode, m > 64, or
/// k + 1 pieces shorter than kMinPiece.
std::unique_ptr<SeedPlan> plan_seeds(const std::vector<ApproxPattern>& patterns, const std::vector<std::uint32_t>& members,
                                     const std::vector<ApproxQuery>& queries);

/// A plan's match words in the set kernel's form, for the CUDA verification of Myers members
/// of m <= 32: text bytes in classes (bytes every member matches alike; class_of), per member
/// and class the pattern's rows at the top of a 32-bit word with the rows below matching every
/// byte (peq_top, members x classes; 0 for the other members). A verification then reads a few
/// words of its own member instead of 2 KiB of peq scattered over every member. Empty (classes
/// 0) beyond kMaxClasses classes. Only the CUDA filter uses them: built at its upload.
struct SeedTopWords {
  static constexpr std::uint32_t kMaxClasses = 8;
  std::vector<std::uint8_t> class_of;
  std::uint32_t classes = 0;
  std::vector<std::uint32_t> peq_top;
};
SeedTopWords seed_top_words(const SeedPlan& plan);

/// The table's hash of a q-byte key (little-endian, folded when case-insensitive).
WARPMATCH_HD std::uint64_t seed_hash(std::uint64_t key) { return key * 0x9E3779B97F4A7C15ull; }

/// Calls fn(piece) for every piece of the plan that occurs at text position s, whose first q
/// bytes (folded when case-insensitive) make `key`: the bucket probe and the comparison of the
/// piece's remaining bytes, shared by the CPU filter and the host's cost sample.
template <class Fn>
void for_each_piece_at(const SeedPlan& plan, ByteSpan text, std::size_t s, std::uint64_t key, Fn&& fn) {
  const std::uint64_t bucket = seed_hash(key) >> (64 - plan.bucket_bits);
  for (std::uint32_t e = plan.bucket_start[bucket]; e < plan.bucket_start[bucket + 1]; ++e) {
    if (plan.entry_key[e] != key) continue;
    const std::uint32_t piece = plan.entry_piece[e];
    const std::uint32_t from = plan.piece_offsets[piece], len = plan.piece_offsets[piece + 1] - from;
    if (s + len > text.size()) continue;
    bool whole = true;
    for (std::uint32_t j = plan.q; j < len && whole; ++j) {
      const std::uint8_t c = text[s + j];
      whole = (plan.case_insensitive ? fold_ascii(c) : c) == plan.piece_bytes[from + j];
    }
    if (whole) fn(piece);
  }
}

/// How many (piece occurrence, pattern using it) pairs `text` holds: the windows a filter would
/// verify there (a cost estimate's input; a plain loop over the text).
std::uint64_t count_seed_uses(const SeedPlan& plan, ByteSpan text);

/// Where a piece found at text position `at_piece`, at `offset` in a pattern of m bytes, puts
/// the pattern: its ends lie within k of start + m (start = at_piece - offset), and every
/// alignment ending there with <= k edits starts at or after start - 2k, so a Myers run from
/// there reads their true distance without merging windows (the CUDA filter's rule; the CPU
/// merges overlapping windows instead and may start later).
struct SeedWindow {
  std::int64_t start;       // the pattern's unedited start
  std::int64_t first_end;   // start + m - k
  std::int64_t last_end;    // start + m + k
};
WARPMATCH_HD SeedWindow seed_window(std::int64_t at_piece, std::uint32_t offset, std::uint32_t m, std::uint32_t k) {
  const std::int64_t start = at_piece - static_cast<std::int64_t>(offset);
  return {start, start + m - static_cast<std::int64_t>(k), start + m + static_cast<std::int64_t>(k)};
}

}  // namespace warpmatch::core
