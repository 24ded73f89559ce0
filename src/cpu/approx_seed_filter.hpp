// Pigeonhole filter for approximate search of short patterns (issue 15): a pattern within k
// edits (or k mismatches) of a substring, cut into k + 1 pieces, has at least one piece in it
// exactly. So the pieces of every pattern of a set are found as exact literals (a hashed
// table of their first bytes, approx_seed_filter.cpp), each occurrence gives the window where the
// pattern may occur around it, and only those windows are verified by the Myers step (a
// direct mismatch count for Hamming). With few, long enough pieces against the text this does
// a fraction of the work of running every pattern over every byte (the set pass), and gives
// the same ends and distances:
//  - windows of one pattern that overlap are merged, and Myers runs over each merged window
//    from its first column; every end whose distance is <= k has an optimal alignment that
//    contains a piece, so that piece's window lies inside the merged one and the distance the
//    run reads there is the true one (never lower: the run only sees starts of the text).
//  - the text is cut into blocks owning their ends; a block looks for pieces wherever a window
//    reaching its ends may start, so an end is found once, in its block.
// Only for patterns whose bytes match by equality (not IUPAC), m <= 64, k + 1 pieces of at
// least 4 bytes, every end within k (not best mode): core::plan_seeds (src/core/seed_plan.hpp)
// builds the pieces and their table, shared with the CUDA filter. Whether it pays is measured
// (approx_set_cpu.cpp): it wins for few patterns or long pieces, loses when the pieces are so
// short and many that they occur nearly everywhere.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/approx_pattern.hpp"

namespace warpmatch::cpu {

class SeedFilter {
 public:
  /// The filter over patterns[members[i]] (each with queries[members[i]]), or null when one
  /// of them does not qualify (see above).
  static std::unique_ptr<SeedFilter> build(const std::vector<core::ApproxPattern>& patterns,
                                           const std::vector<std::uint32_t>& members,
                                           const std::vector<core::ApproxQuery>& queries);
  ~SeedFilter();

  /// Appends to out[members[i]] every end of that pattern in `text` with distance <= k, in
  /// ascending order (out is indexed like `patterns`), on up to `threads` threads; adds the
  /// bytes done to *bytes_done as it goes (progress).
  void scan(ByteSpan text, int threads, std::vector<std::vector<core::EndHit>>& out,
            std::atomic<std::uint64_t>* bytes_done = nullptr) const;

  struct Tables;

 private:
  explicit SeedFilter(std::unique_ptr<const Tables> tables);
  std::unique_ptr<const Tables> tables_;
};

}  // namespace warpmatch::cpu
