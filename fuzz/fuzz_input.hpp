// libFuzzer target body (issue 16; fuzz_input.cpp is the target, tests/test_fuzz_regressions.cpp
// replays the seeds and every finding): the input layer. Any bytes are read two ways — whole
// (io::Input: plain, gzip, BGZF, zstd, FASTA, FASTQ detected by content) and as a stream of
// small overlapping windows (io::TextStream) — and must give the same records, or both
// an InputError; the pattern-file parser must accept or reject every line cleanly.
// Byte 0 picks the window size and overlap, byte 1 the pattern-file mode; the rest is the input.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "io/input.hpp"
#include "io/text_stream.hpp"
#include "warpmatch/multi.hpp"

using namespace warpmatch;

namespace fuzz_input_detail {
// Thrown on a disagreement: libFuzzer reports it as a crash with the input saved; the
// regression tests (tests/test_fuzz_regressions.cpp) see a failed test.
struct Disagreement : std::logic_error {
  using std::logic_error::logic_error;
};
[[noreturn]] inline void disagree(const char* what) { throw Disagreement(std::string("fuzz_input: ") + what); }
}  // namespace fuzz_input_detail
using namespace fuzz_input_detail;

inline int fuzz_input_one(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::uint8_t shape = data[0], mode = data[1];
  const ByteSpan bytes(data + 2, size - 2);

  try {
    parse_pattern_file(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                       (mode & 1) != 0, "fuzz");
  } catch (const InvalidArgument&) {
  }

  // Whole: records by name order of appearance.
  std::vector<std::pair<std::string, std::string>> whole;
  bool whole_failed = false;
  try {
    const io::Input in = io::Input::from_bytes("fuzz", {bytes.begin(), bytes.end()});
    for (const auto& r : in.records())
      whole.emplace_back(r.name, std::string(r.sequence.begin(), r.sequence.end()));
  } catch (const io::InputError&) {
    whole_failed = true;
  }

  // Windows: each record rebuilt from its windows at their offsets.
  io::StreamOptions options;
  options.window_bytes = 1 + (shape & 63);
  options.mapped_window_bytes = options.window_bytes;
  options.overlap = (shape >> 6) * 3;
  options.threads = 1;
  std::vector<std::pair<std::string, std::string>> windows;
  bool windows_failed = false;
  try {
    io::TextStream stream = io::TextStream::from_bytes("fuzz", bytes, options);
    std::uint64_t last_index = ~0ull;
    for (io::TextWindow w; stream.next(w);) {
      if (w.owned > w.data.size() || w.repeated > w.data.size()) disagree("window bounds");
      if (w.record_index != last_index) {
        windows.emplace_back(std::string(w.record), std::string());
        last_index = w.record_index;
      }
      std::string& seq = windows.back().second;
      if (w.offset > seq.size()) disagree("a gap between windows");
      const std::string_view piece(reinterpret_cast<const char*>(w.data.data()), w.data.size());
      const std::size_t shared = std::min<std::size_t>(seq.size() - w.offset, piece.size());
      if (seq.compare(w.offset, shared, piece.substr(0, shared)) != 0) disagree("overlap differs");
      seq.append(piece.substr(shared));
    }
  } catch (const io::InputError&) {
    windows_failed = true;
  }
  // A stream may report damage after some windows; only complete reads are compared.
  if (!whole_failed && !windows_failed) {
    // The whole reader keeps empty plain input as one empty record; a stream may give none.
    auto drop_empty_plain = [](auto& v) {
      if (v.size() == 1 && v[0].first.empty() && v[0].second.empty()) v.clear();
    };
    drop_empty_plain(whole);
    drop_empty_plain(windows);
    if (whole != windows) disagree("records differ between Input and TextStream");
  }
  return 0;
}
