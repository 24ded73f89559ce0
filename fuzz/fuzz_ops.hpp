// libFuzzer target body (issue 16; fuzz_ops.cpp is the target, tests/test_fuzz_regressions.cpp
// replays the seeds and every finding): every operation on the CPU backend against its reference —
// exact search against a naive loop, multi-pattern "fast" and "mbndm" against the "naive"
// double loop, approximate search (Myers, with tiny chunks and segments) against the plain
// DP ("dp"), edit distance (Myers, with and without a bound) against "dp" with a valid CIGAR,
// longest common substring (suffix array) against "dp".
// Byte 0 picks the operation, byte 1 a parameter (k, chunking), byte 2 the pattern length;
// then the pattern (or A), then the text (or B).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "api/tuning_hooks.hpp"
#include "warpmatch/approx.hpp"
#include "warpmatch/distance.hpp"
#include "warpmatch/exact.hpp"
#include "warpmatch/lcs.hpp"
#include "warpmatch/multi.hpp"

using namespace warpmatch;

namespace fuzz_ops_detail {
// Thrown on a disagreement: libFuzzer reports it as a crash with the input saved; the
// regression tests (tests/test_fuzz_regressions.cpp) see a failed test.
struct Disagreement : std::logic_error {
  using std::logic_error::logic_error;
};
[[noreturn]] inline void disagree(const char* what) { throw Disagreement(std::string("fuzz_ops: ") + what); }

inline void exact(ByteSpan p, ByteSpan t) {
  if (p.empty()) return;
  ExactOptions o;
  o.backend = Backend::cpu;
  o.threads = 2;
  const auto m = ExactMatcher::compile(p, o);
  std::vector<std::uint64_t> want;
  for (std::size_t i = 0; i + p.size() <= t.size(); ++i)
    if (std::equal(p.begin(), p.end(), t.begin() + static_cast<std::ptrdiff_t>(i))) want.push_back(i);
  const auto got = m.find_all(t);
  if (got.size() != want.size() || m.count(t) != want.size()) disagree("exact: count");
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i].start != want[i] || got[i].end != want[i] + p.size()) disagree("exact: position");
}

/// A pattern set from one input block: its non-empty lines, the first max_lines of them.
inline std::vector<std::string> lines_of(ByteSpan p, std::size_t max_lines = SIZE_MAX) {
  std::vector<std::string> lines;
  std::string cur;
  for (const std::uint8_t c : p) {
    if (c == '\n') {
      if (!cur.empty()) lines.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(static_cast<char>(c));
    }
  }
  if (!cur.empty()) lines.push_back(cur);
  if (lines.size() > max_lines) lines.resize(max_lines);
  return lines;
}

inline void multi(ByteSpan p, ByteSpan t, std::uint8_t param) {
  const std::vector<std::string> patterns = lines_of(p);
  if (patterns.empty()) return;
  MultiOptions o;
  o.backend = Backend::cpu;
  o.case_insensitive = param & 1;
  o.algorithm = "naive";
  const auto want = MultiMatcher::compile(patterns, o).find_all(t);
  for (const char* algo : {"fast", "mbndm"}) {
    o.algorithm = algo;
    o.threads = 1 + (param >> 6);
    const auto m = MultiMatcher::compile(patterns, o);
    if (m.find_all(t) != want) disagree("multi: matches differ from the double loop");
    if (m.count(t) != want.size()) disagree("multi: count");
    std::uint64_t sum = 0;
    for (const auto c : m.count_per_pattern(t)) sum += c;
    if (sum != want.size()) disagree("multi: count per pattern");
  }
}

inline void approx(ByteSpan p, ByteSpan t, std::uint8_t param) {
  if (p.empty()) return;
  ApproxOptions o;
  o.backend = Backend::cpu;
  o.k = param % (p.size() + 2);
  o.best = (param & 0x80) != 0;
  o.best_of_cluster = (param & 0x40) != 0 && !o.best;
  o.report = Report::cigar;
  o.algorithm = "dp";
  const auto want = ApproxMatcher::compile(p, o).find_all(t);
  o.algorithm = "myers";
  o.threads = 2;
  const tuning_hooks::ApproxKnobs seams{.chunk_ends = 1u + param % 37, .segment_ends = 1u + param % 53};
  if (tuning_hooks::compile_approx(p, o, seams).find_all(t) != want) disagree("approx: myers differs from dp");
  if (ApproxMatcher::compile(p, o).find_all(t) != want) disagree("approx: myers (default chunks) differs");
}

inline void distance(ByteSpan a, ByteSpan b, std::uint8_t param) {
  DistanceOptions o;
  o.backend = Backend::cpu;
  o.algorithm = "dp";
  const auto want = edit_distance(a, b, o);
  o.algorithm = "myers";
  o.report = Report::cigar;
  o.threads = 1 + (param & 1);
  const auto got = edit_distance(a, b, o);
  if (got.distance != want.distance) disagree("distance: myers differs from dp");
  std::int64_t cost = -1;
  if (apply_cigar(a, b, got.cigar, &cost) != std::string(b.begin(), b.end()) || cost != got.distance)
    disagree("distance: the CIGAR does not turn A into B at its cost");
  o.max_distance = param % 16;
  const auto bounded = edit_distance(a, b, o);
  if (want.distance <= o.max_distance ? bounded.distance != want.distance : !bounded.over_k())
    disagree("distance: bounded result");
}

inline void lcs(ByteSpan a, ByteSpan b) {
  LcsOptions o;
  o.backend = Backend::cpu;
  o.algorithm = "dp";
  const auto want = longest_common_substring(a, b, o);
  o.algorithm = "suffix-array";
  const auto got = longest_common_substring(a, b, o);
  if (got.length != want.length || got.count != want.count || got.total_pairs != want.total_pairs ||
      got.pairs != want.pairs)
    disagree("lcs: suffix array differs from dp");
}
}  // namespace fuzz_ops_detail
using namespace fuzz_ops_detail;

inline int fuzz_ops_one(const std::uint8_t* data, std::size_t size) {
  if (size < 3 || size > 4096) return 0;
  const std::uint8_t op = data[0], param = data[1];
  const std::size_t plen = std::min<std::size_t>(data[2], size - 3);
  const ByteSpan p(data + 3, plen), t(data + 3 + plen, size - 3 - plen);
  try {
    switch (op % 5) {
      case 0: exact(p, t); break;
      case 1: multi(p, t, param); break;
      case 2: approx(p.first(std::min<std::size_t>(p.size(), 100)), t, param); break;
      case 3: distance(p, t, param); break;
      default: lcs(p, t); break;
    }
  } catch (const InvalidArgument& e) {
    throw fuzz_ops_detail::Disagreement(std::string("fuzz_ops: unexpected InvalidArgument: ") + e.what());
  }
  return 0;
}
