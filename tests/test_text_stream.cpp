// Streaming inputs (io::TextStream): windows with overlap equal the whole input for every
// format and compression, whatever the window size; records spanning windows; gzip members,
// BGZF blocks and zstd frames split anywhere; corrupt and truncated data reported with the
// compressed byte offset after the windows before it; searches over windows equal searches
// of the whole text (exact and multi-pattern), on a pipe too; a writer that pauses (an
// interactive pipe) has what it sent delivered in an early window, whatever it is.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "compression_test_support.hpp"
#include "temp_dir_test.hpp"
#include "io/input.hpp"
#include "io/text_stream.hpp"
#include "warpmatch/approx.hpp"
#include "warpmatch/exact.hpp"
#include "warpmatch/multi.hpp"

namespace fs = std::filesystem;
using namespace warpmatch;
using io::Format;
using io::TextStream;
using io::TextWindow;
using warpmatch_test::bgzf;
using warpmatch_test::gzip_member;
using warpmatch_test::zstd_frame;

namespace {

std::string str(ByteSpan b) { return std::string(reinterpret_cast<const char*>(b.data()), b.size()); }

struct Record {
  std::string name, seq;
  friend bool operator==(const Record&, const Record&) = default;
};

// Records reassembled from the windows' owned bytes, window by window, checking the overlap
// contract.
struct Reassembly {
  std::uint64_t overlap = 0;
  std::vector<Record> out;
  std::string prev_tail;
  void add(const TextWindow& w) {
    if (w.first) {
      EXPECT_EQ(w.offset, 0u);
      out.push_back({std::string(w.record), ""});
    } else {
      // The window starts with the bytes the last one did not own.
      EXPECT_EQ(str(w.data.first(std::min(w.data.size(), prev_tail.size()))), prev_tail);
    }
    ASSERT_FALSE(out.empty());
    EXPECT_EQ(out.back().seq.size(), w.offset);
    EXPECT_LE(w.owned, w.data.size());
    if (w.last) EXPECT_EQ(w.owned, w.data.size());
    else EXPECT_EQ(w.data.size() - w.owned, std::min<std::uint64_t>(overlap, w.data.size()));
    out.back().seq += str(w.data.first(w.owned));
    prev_tail = str(w.data.subspan(w.owned));
  }
};

// Every record of `s` reassembled (next()).
std::vector<Record> reassemble(TextStream& s, std::uint64_t overlap) {
  Reassembly r{overlap};
  for (TextWindow w; s.next(w);) r.add(w);
  return r.out;
}

// The same through next_windows(), mixed with next() every third call; `largest`: the most
// windows one next_windows() gave.
std::vector<Record> reassemble_by_batches(TextStream& s, std::uint64_t overlap, std::size_t& largest) {
  Reassembly r{overlap};
  largest = 0;
  for (int call = 0;; ++call) {
    if (call % 3 == 2) {
      TextWindow w;
      if (!s.next(w)) break;
      r.add(w);
      continue;
    }
    const std::span<const TextWindow> batch = s.next_windows();
    if (batch.empty()) break;
    largest = std::max(largest, batch.size());
    for (const TextWindow& w : batch) r.add(w);
  }
  return r.out;
}

std::vector<Record> whole(const std::string& name, const std::string& content, Format f = Format::automatic) {
  const io::Input in = io::Input::from_bytes(name, {content.begin(), content.end()}, f);
  std::vector<Record> out;
  for (const auto& r : in.records()) out.push_back({r.name, str(r.sequence)});
  return out;
}

std::string random_dna(std::mt19937_64& rng, std::size_t n, const char* alphabet = "ACGT") {
  const std::size_t k = std::strlen(alphabet);
  std::string s(n, 'A');
  for (char& c : s) c = alphabet[rng() % k];
  return s;
}

// FASTA with random line widths, CRLF or LF, blank lines, empty records.
std::string random_fasta(std::mt19937_64& rng, int records) {
  std::string f;
  const bool crlf = rng() % 2;
  const std::string nl = crlf ? "\r\n" : "\n";
  for (int r = 0; r < records; ++r) {
    f += ">rec" + std::to_string(r) + " description " + std::to_string(rng() % 100) + nl;
    const std::size_t len = rng() % 5 == 0 ? 0 : rng() % 300;
    const std::string seq = random_dna(rng, len, "ACGTN");
    const std::size_t width = 1 + rng() % 70;
    for (std::size_t i = 0; i < seq.size(); i += width) {
      f += seq.substr(i, width) + nl;
      if (rng() % 20 == 0) f += nl;  // a blank line
    }
  }
  return f;
}

std::string random_fastq(std::mt19937_64& rng, int records) {
  std::string f;
  for (int r = 0; r < records; ++r) {
    const std::string seq = random_dna(rng, rng() % 200);
    f += "@read" + std::to_string(r) + " x\n" + seq + "\n+\n" + std::string(seq.size(), 'I') + "\n";
  }
  return f;
}

class TempDir : public warpmatch_test::TempDirTest {
 protected:
  TempDir() : TempDirTest("warpmatch-stream-") {}
};

// The streamed records equal the whole input's for sizes down to one byte per window.
void expect_streams_like_whole(const std::string& name, const std::string& stored, const std::string& plain,
                               std::mt19937_64& rng) {
  const std::vector<Record> want = whole(name, plain);
  for (int trial = 0; trial < 12; ++trial) {
    io::StreamOptions o;
    o.window_bytes = trial < 3 ? 1 + trial : 1 + rng() % 500;
    o.overlap = rng() % 12;
    o.read_ahead = rng() % 2;
    o.pipeline = rng() % 2;  // windows built on the caller's thread or on a producer's
    o.threads = 1 + static_cast<int>(rng() % 3);
    TextStream s = TextStream::from_bytes(name, as_bytes(stored), o);
    EXPECT_EQ(reassemble(s, o.overlap), want) << name << " window " << o.window_bytes << " overlap " << o.overlap;
  }
}

// `rounds` times: random plain text (with bytes FASTA/FASTQ give meaning to), FASTA and FASTQ
// of `records` records, each given to `check`.
template <class Check>
void for_random_texts(std::mt19937_64& rng, int rounds, std::size_t plain_bytes, int records, Check check) {
  for (int round = 0; round < rounds; ++round) {
    const std::string plain = random_dna(rng, plain_bytes, "ACGT\n\r>@+");
    const std::string fa = random_fasta(rng, records);
    const std::string fq = random_fastq(rng, records);
    for (const std::string* text : {&plain, &fa, &fq}) check(*text);
  }
}

}  // namespace

TEST(TextStream, PlainFastaFastqEqualWholeInputAtAnyWindow) {
  std::mt19937_64 rng(11);
  for_random_texts(rng, 4, 3000, 20, [&](const std::string& text) {
    expect_streams_like_whole("t", text, text, rng);
    expect_streams_like_whole("t.gz", gzip_member(text), text, rng);
    expect_streams_like_whole("t.bgz", bgzf(text, 1 + rng() % 700), text, rng);
    expect_streams_like_whole("t.zst", zstd_frame(text), text, rng);
  });
}

TEST(TextStream, GzipMembersAndZstdFramesSplitAnywhere) {
  std::mt19937_64 rng(5);
  const std::string fa = random_fasta(rng, 30);
  for (int trial = 0; trial < 20; ++trial) {
    // Cut the text at random points; compress each piece separately (some empty).
    std::vector<std::size_t> cuts{0, fa.size()};
    for (int i = 0; i < 4; ++i) cuts.push_back(rng() % fa.size());
    std::sort(cuts.begin(), cuts.end());
    std::string gz, zs;
    for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
      const std::string piece = fa.substr(cuts[i], cuts[i + 1] - cuts[i]);
      gz += gzip_member(piece, 1 + static_cast<int>(rng() % 9));
      zs += zstd_frame(piece);
    }
    expect_streams_like_whole("m.gz", gz, fa, rng);
    expect_streams_like_whole("m.zst", zs, fa, rng);
    // As pzstd writes it: a skippable frame first (detected as zstd, also from a pipe's first bytes).
    expect_streams_like_whole("p.zst", std::string("\x50\x2a\x4d\x18\x02\0\0\0ab", 10) + zs, fa, rng);
  }
}

TEST(TextStream, BgzfFollowedByPlainGzipMember) {
  std::mt19937_64 rng(9);
  const std::string a = random_fasta(rng, 5), b = random_dna(rng, 500) + "\n";
  expect_streams_like_whole("mix.gz", bgzf(a, 100) + gzip_member(b), a + b, rng);
}

TEST_F(TempDir, FilesAndPipesStreamLikeWholeInput) {
  std::mt19937_64 rng(3);
  const std::string fa = random_fasta(rng, 50);
  const std::vector<Record> want = whole("x", fa);
  const std::map<std::string, std::string> stored = {
      {"plain.fa", fa}, {"g.fa.gz", gzip_member(fa)}, {"b.fa.gz", bgzf(fa, 333)}, {"z.fa.zst", zstd_frame(fa)}};
  for (const auto& [name, bytes] : stored) {
    const std::string path = write(name, bytes);
    io::StreamOptions o;
    o.window_bytes = 97;
    o.overlap = 7;
    TextStream file = TextStream::open(path, o);
    EXPECT_EQ(reassemble(file, o.overlap), want) << name;
    // The same bytes through a FIFO (the read() path).
    const std::string fifo = (dir_ / (name + ".fifo")).string();
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::thread writer([&fifo, &text = bytes] { std::ofstream(fifo, std::ios::binary) << text; });
    TextStream piped = TextStream::open(fifo, o);
    EXPECT_EQ(reassemble(piped, o.overlap), want) << name << " through a FIFO";
    writer.join();
  }
}

TEST_F(TempDir, MappedPlainFileWindowsPointIntoTheFile) {
  const std::string content = std::string(10000, 'a') + "needle" + std::string(5000, 'b');
  const std::string path = write("big.txt", content);
  io::StreamOptions o;
  o.mapped_window_bytes = 4096;
  o.overlap = 5;
  TextStream s = TextStream::open(path, o);
  EXPECT_TRUE(s.is_mapped());
  EXPECT_EQ(reassemble(s, o.overlap), (std::vector<Record>{{"", content}}));
}

// A mapped file that ends within `overlap` bytes after a window's new bytes: that window is
// the last (it owns up to the end), no window of no new bytes follows, and every window that
// is not the last has `overlap` bytes after its owned ones (reassemble checks it; before, the
// window ending 0..4 bytes before the end had fewer and a last window repeating them followed).
TEST_F(TempDir, MappedFileEndingWithinTheOverlapEndsInTheLastWindow) {
  for (std::uint64_t extra = 0; extra <= 7; ++extra) {
    const std::string content = std::string(8192 + extra, 'x');
    const std::string path = write("end.txt", content);
    io::StreamOptions o;
    o.mapped_window_bytes = 4096;
    o.overlap = 5;
    TextStream s = TextStream::open(path, o);
    ASSERT_TRUE(s.is_mapped());
    EXPECT_EQ(reassemble(s, o.overlap), (std::vector<Record>{{"", content}})) << extra;
    TextStream again = TextStream::open(path, o);
    std::vector<std::uint64_t> offsets;
    for (TextWindow w; again.next(w);) {
      offsets.push_back(w.offset);
      if (!w.last) EXPECT_EQ(w.data.size() - w.owned, o.overlap) << extra;
      else EXPECT_GT(w.data.size(), w.repeated) << extra;  // new bytes, or the file's only window
    }
    // 8192 + 0..5 bytes: the second window reaches the end; 6 and 7: a third of 1..2 new bytes.
    EXPECT_EQ(offsets, extra <= o.overlap ? (std::vector<std::uint64_t>{0, 4096})
                                          : (std::vector<std::uint64_t>{0, 4096, 8192})) << extra;
  }
}

TEST(TextStream, EmptyInputsAndEmptyRecords) {
  TextStream empty = TextStream::from_bytes("e", {});
  EXPECT_EQ(reassemble(empty, 3), (std::vector<Record>{{"", ""}}));
  TextStream fa = TextStream::from_bytes("f", as_bytes(">a\n>b\nAC\n>c\n"));
  EXPECT_EQ(reassemble(fa, 3), (std::vector<Record>{{"a", ""}, {"b", "AC"}, {"c", ""}}));
  io::StreamOptions o;
  o.format = Format::fasta;
  TextStream none = TextStream::from_bytes("n", {}, o);
  EXPECT_TRUE(reassemble(none, 0).empty());
}

// Files of many short records (reads) come as batches of whole records (next_windows), a
// record that does not fit the batch's room continuing in the next batch's first window:
// the records equal the whole input's for every window size, overlap, compression, the
// mapped and the copying paths, with and without the producer thread.
TEST_F(TempDir, ShortRecordsComeInBatchesLikeWholeInput) {
  std::mt19937_64 rng(41);
  const std::string fa = random_fasta(rng, 20000), fq = random_fastq(rng, 20000);
  for (const std::string* text : {&fa, &fq}) {
    const std::vector<Record> want = whole("r", *text);
    const std::string path = write(text == &fa ? "r.fa" : "r.fq", *text);
    const std::map<std::string, std::string> stored = {{"plain", *text}, {"gz", gzip_member(*text)},
                                                       {"bgzf", bgzf(*text, 60000)}};
    for (std::uint64_t window : {std::uint64_t{256} << 20, std::uint64_t{200} << 10, std::uint64_t{70} << 10})
      for (std::uint64_t overlap : {0, 31}) {
        io::StreamOptions o;
        o.window_bytes = window;
        o.overlap = overlap;
        o.pipeline = rng() % 2;
        const std::string where = (text == &fa ? "FASTA" : "FASTQ") + std::string(" window ") +
                                  std::to_string(window) + " overlap " + std::to_string(overlap);
        std::size_t largest = 0;
        TextStream mapped = TextStream::open(path, o);
        EXPECT_EQ(reassemble_by_batches(mapped, overlap, largest), want) << where << " mapped";
        EXPECT_GT(largest, window > (std::uint64_t{100} << 10) ? 1000u : 50u) << where << ": short records come many at a time";
        for (const auto& [name, bytes] : stored) {
          TextStream s = TextStream::from_bytes(name, as_bytes(bytes), o);
          EXPECT_EQ(reassemble_by_batches(s, overlap, largest), want) << where << " " << name;
          TextStream one_by_one = TextStream::from_bytes(name, as_bytes(bytes), o);
          EXPECT_EQ(reassemble(one_by_one, overlap), want) << where << " " << name << " by next()";
        }
      }
  }
}

namespace {

// Message of the InputError thrown while reading all of `s`, and the bytes seen before it.
std::string read_until_error(TextStream& s, std::string& before) {
  try {
    for (TextWindow w; s.next(w);) before += str(w.data.first(w.owned));
  } catch (const io::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(TextStream, CorruptAndTruncatedDataNameTheOffset) {
  std::string text;
  for (int i = 0; i < 20000; ++i) text += std::to_string(i * 7919) + "\n";
  io::StreamOptions o;
  o.window_bytes = 4096;
  struct Case {
    std::string name, bytes, expect;
  };
  const std::string gz = gzip_member(text), bg = bgzf(text, 4000), zs = zstd_frame(text);
  std::string bg_bad = bg;
  // Corrupt the deflate data of the 10th BGZF block: the 9 before it are delivered first.
  std::size_t at = 0;
  for (int b = 0; b < 9; ++b) at += 1 + (static_cast<unsigned char>(bg[at + 16]) | static_cast<unsigned char>(bg[at + 17]) << 8);
  for (std::size_t i = at + 20; i < at + 40; ++i) bg_bad[i] = static_cast<char>(~bg_bad[i]);
  const std::vector<Case> cases = {
      {"t.gz", gz.substr(0, gz.size() / 2), "t.gz: corrupt gzip data at compressed byte offset "},
      {"t.bgz", bg.substr(0, bg.size() / 2 + 7), "t.bgz: corrupt BGZF data at compressed byte offset "},
      {"b.bgz", bg_bad, "b.bgz: corrupt BGZF data at compressed byte offset " + std::to_string(at)},
      {"t.zst", zs.substr(0, zs.size() / 2), "t.zst: corrupt zstd data at compressed byte offset "},
      {"junk.gz", gz + "junk", "junk.gz: corrupt gzip data at compressed byte offset "},
  };
  for (const Case& c : cases) {
    TextStream s = TextStream::from_bytes(c.name, as_bytes(c.bytes), o);
    std::string before;
    const std::string msg = read_until_error(s, before);
    EXPECT_EQ(msg.rfind(c.expect, 0), 0u) << c.name << ": " << msg;
    EXPECT_EQ(text.rfind(before, 0), 0u) << c.name << ": the bytes before the error are the text's";
    if (c.name == "b.bgz") EXPECT_EQ(before.size(), 9u * 4000u);
    if (c.name == "junk.gz") {
      EXPECT_EQ(before, text);
      EXPECT_NE(msg.find("trailing garbage"), std::string::npos);
    }
  }
}

TEST(TextStream, MalformedFastxMessagesMatchWholeInput) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"d.fa", "ACGT\n>x\nAC\n"},
      {"x.fq", "@r1\nACGT\n+\nIIII\n@r2\nACGTA\n-\nIIIII\n"},
      {"y.fq", "@r1\nACGT\n+\nIIII\n@r3\nACGTA\n+\nIII\n"},
      {"z.fq", "@r1\nACGT\n+\nIIII\n@r2\nAC\n"},
      {"w.fq", "@r1\nACGT\n+\nIIII\n@r2"},
  };
  for (const auto& [name, content] : bad) {
    std::string whole_msg;
    try {
      io::Input::from_bytes(name, {content.begin(), content.end()}, name.ends_with(".fa") ? Format::fasta : Format::fastq);
    } catch (const io::InputError& e) {
      whole_msg = e.what();
    }
    ASSERT_FALSE(whole_msg.empty()) << name;
    for (std::uint64_t window : {1, 3, 1000}) {
      io::StreamOptions o;
      o.window_bytes = window;
      o.format = name.ends_with(".fa") ? Format::fasta : Format::fastq;
      TextStream s = TextStream::from_bytes(name, as_bytes(content), o);
      std::string before;
      EXPECT_EQ(read_until_error(s, before), whole_msg) << name << " window " << window;
    }
  }
}

// A malformed record after thousands of short ones (one batch): the records before it are
// delivered (not the broken one's bases: its check fails as they are read), then the whole
// input's message.
TEST(TextStream, MalformedRecordAfterABatchOfShortOnes) {
  std::mt19937_64 rng(43);
  const std::string good = random_fastq(rng, 5000);
  const std::string bad = good + "@broken\nACGT\n+\nIII\n" + random_fastq(rng, 10);
  std::string whole_msg;
  try {
    io::Input::from_bytes("b.fq", {bad.begin(), bad.end()}, Format::fastq);
  } catch (const io::InputError& e) {
    whole_msg = e.what();
  }
  ASSERT_FALSE(whole_msg.empty());
  std::string want;
  for (const Record& r : whole("g.fq", good)) want += r.seq;
  for (bool pipeline : {false, true}) {
    io::StreamOptions o;
    o.pipeline = pipeline;
    TextStream s = TextStream::from_bytes("b.fq", as_bytes(bad), o);
    std::string before;
    EXPECT_EQ(read_until_error(s, before), whole_msg) << pipeline;
    EXPECT_EQ(before.size(), want.size()) << pipeline;
    EXPECT_TRUE(before == want) << pipeline;
  }
}

// Searching window by window (hits with start < owned, offsets shifted) equals searching the
// whole record: one pattern and pattern sets of mixed lengths, with patterns straddling every
// window boundary.
TEST(TextStream, WindowedSearchEqualsWholeSearch) {
  std::mt19937_64 rng(21);
  const std::string text = random_dna(rng, 20000, "AC");
  ExactOptions eo;
  eo.backend = Backend::cpu;
  MultiOptions mo;
  mo.backend = Backend::cpu;
  const std::vector<std::string> set = {"A", "CA", "ACCA", "AACAC", "CACACACAC"};
  const ExactMatcher exact = ExactMatcher::compile(as_bytes("ACCAC"), eo);
  const MultiMatcher multi = MultiMatcher::compile(set, mo);
  std::vector<Match> want_exact, want_multi;
  exact.scan(as_bytes(text), [&](const Match& m) { want_exact.push_back(m); return true; });
  multi.scan(as_bytes(text), [&](const Match& m) { want_multi.push_back(m); return true; });
  for (std::uint64_t window : {1, 2, 5, 64, 999, 100000}) {
    for (int which = 0; which < 2; ++which) {
      io::StreamOptions o;
      o.window_bytes = window;
      o.overlap = which == 0 ? 4 : multi.max_pattern_length() - 1;
      o.pipeline = window % 2 == 0;
      TextStream s = TextStream::from_bytes("t", as_bytes(text), o);
      std::vector<Match> got;
      std::vector<std::uint64_t> counts(set.size());
      for (TextWindow w; s.next(w);) {
        auto keep = [&](const Match& m) {
          if (m.start < w.owned) got.push_back({.pattern = m.pattern, .start = m.start + w.offset, .end = m.end + w.offset});
          return true;
        };
        if (which == 0) {
          exact.scan(w.data, keep);
        } else {
          multi.scan(w.data, keep);
          // Counting as the CLI does: the window minus its tail.
          const auto all = multi.count_per_pattern(w.data);
          const auto tail = multi.count_per_pattern(w.data.subspan(w.owned));
          for (std::size_t i = 0; i < set.size(); ++i) counts[i] += all[i] - tail[i];
        }
      }
      EXPECT_EQ(got, which == 0 ? want_exact : want_multi) << "window " << window;
      if (which == 1) {
        for (std::size_t i = 0; i < set.size(); ++i)
          EXPECT_EQ(counts[i], static_cast<std::uint64_t>(std::count_if(
                                   want_multi.begin(), want_multi.end(), [&](const Match& m) { return m.pattern == i; })))
              << "window " << window << " pattern " << i;
      }
    }
  }
}

namespace {

// Lines of 1 to `width` random bases ended by `nl` until fa holds `target` bytes; now and then
// a '\r' inside a line or a '>' at its end (both data), and a blank line.
void append_dna_lines(std::string& fa, std::mt19937_64& rng, std::size_t target, std::size_t width, const char* nl) {
  while (fa.size() < target) {
    std::string line = random_dna(rng, 1 + rng() % width);
    if (rng() % 1000 == 0) line[rng() % line.size()] = '\r';
    if (rng() % 1000 == 0) line += ">";
    fa += line + nl;
    if (rng() % 500 == 0) fa += nl;
  }
}

// The file at `path` (mapped) and its bytes `stored` (through read()) stream as `want`, in
// 5 MiB windows on 1 and 3 threads.
void expect_streams_in_5_mib_windows(const std::string& path, const std::string& stored, const std::vector<Record>& want) {
  for (int threads : {1, 3}) {
    io::StreamOptions o;
    o.window_bytes = 5u << 20;
    o.overlap = 9;
    o.threads = threads;
    TextStream mapped = TextStream::open(path, o);
    EXPECT_EQ(reassemble(mapped, o.overlap), want) << "mapped, threads " << threads;
    TextStream copied = TextStream::from_bytes("x", as_bytes(stored), o);
    EXPECT_EQ(reassemble(copied, o.overlap), want) << "read(), threads " << threads;
  }
}

}  // namespace

// Large FASTA takes the bulk line-removal path (all threads): mapped and piped, LF and CRLF,
// lines of any width, blank lines, a '\r' inside a line (data) and '>' inside a line (data).
TEST_F(TempDir, LargeFastaBulkLineRemovalEqualsWholeInput) {
  std::mt19937_64 rng(77);
  for (const char* nl : {"\n", "\r\n"}) {
    std::string fa;
    for (int r = 0; r < 3; ++r) {
      fa += ">big" + std::to_string(r) + "\n";
      append_dna_lines(fa, rng, fa.size() + (r == 1 ? 100 : 6u << 20), 120, nl);
    }
    expect_streams_in_5_mib_windows(write("big.fa", fa), fa, whole("x", fa));
  }
}

// Unwrapped FASTA (one line per record, as `seqkit seq -w 0` writes it) with lines longer than
// the bulk line removal's 4 MiB and than a window: windows of 5 MiB and whole-record windows
// (approx --best) equal the whole input, the file's last line with and without its line break
// (the mapped file's bulk step found no line break in reach and looped forever).
TEST_F(TempDir, UnwrappedFastaLinesLongerThanAWindow) {
  std::mt19937_64 rng(79);
  for (const char* end : {"\n", ""}) {
    const std::string fa = ">one\n" + random_dna(rng, 9u << 20) + "\n>two\n" + random_dna(rng, 100) + "\n>three\n" +
                           random_dna(rng, 6u << 20) + end;
    const std::vector<Record> want = whole("x", fa);
    ASSERT_EQ(want.size(), 3u);
    const std::string path = write("long.fa", fa);
    for (const std::uint64_t window : {std::uint64_t{5} << 20, std::uint64_t{1} << 62}) {
      io::StreamOptions o;
      o.window_bytes = o.mapped_window_bytes = window;
      o.overlap = 9;
      o.threads = 2;
      TextStream mapped = TextStream::open(path, o);
      EXPECT_EQ(reassemble(mapped, o.overlap), want) << "mapped, window " << window << ", end '" << end << "'";
      TextStream copied = TextStream::from_bytes("x", as_bytes(fa), o);
      EXPECT_EQ(reassemble(copied, o.overlap), want) << "read(), window " << window << ", end '" << end << "'";
    }
  }
}

// BGZF FASTA through the bulk line removal (more than its 4 MiB at hand): records short (many
// in one bulk step), mid-sized (one header per step) and long (several steps), lines and records
// split by blocks anywhere, LF and CRLF (a "\r\n" split by a block, too), blank lines, '>'
// and '\r' inside lines; mapped (the decoder maps the next batch's pages ahead) and read.
TEST_F(TempDir, LargeBgzfFastaEqualsWholeInput) {
  std::mt19937_64 rng(83);
  for (const char* nl : {"\n", "\r\n"}) {
    std::string fa;
    for (int r = 0; fa.size() < (std::size_t{14} << 20); ++r) {
      fa += ">rec" + std::to_string(r) + " description\n";
      const std::size_t kind = rng() % 10;
      const std::size_t size = kind < 6 ? 1 + rng() % 4000 : kind < 9 ? (1u << 20) + rng() % (2u << 20) : 5u << 20;
      append_dna_lines(fa, rng, fa.size() + size, 1 + rng() % 120, nl);
    }
    const std::string stored = bgzf(fa, 60000 + rng() % 5000);
    const std::string path = write("big.fa.gz", stored);
    EXPECT_EQ(TextStream::open(path).compression(), io::Compression::bgzf);
    expect_streams_in_5_mib_windows(path, stored, whole("x", fa));
  }
}

// ---- interactive inputs: a writer that pauses ------------------------------------------------

namespace {

// The bytes of `content` as a pipe whose writer pauses at `pauses` (offsets): read() stops at
// the next pause, and wait_ready() says "nothing at hand" there until the reader reads again
// (the writer resumes when the reader waits on it). No clock is involved: a pause ends the
// window exactly there, whatever the machine's load.
class PausingSource final : public io::ByteSource {
 public:
  PausingSource(std::string content, std::vector<std::size_t> pauses)
      : content_(std::move(content)), pauses_(std::move(pauses)) {
    std::sort(pauses_.begin(), pauses_.end());
  }
  std::size_t read(std::uint8_t* out, std::size_t capacity) override {
    std::size_t end = content_.size();
    const auto next = std::upper_bound(pauses_.begin(), pauses_.end(), pos_);
    if (next != pauses_.end()) end = std::min(end, *next);
    const std::size_t n = std::min(capacity, end - pos_);
    std::memcpy(out, content_.data() + pos_, n);
    pos_ += n;
    return n;
  }
  std::uint64_t raw_offset() const override { return pos_; }
  bool wait_ready(io::Clock::time_point) override {
    return pos_ == content_.size() || !std::binary_search(pauses_.begin(), pauses_.end(), pos_);
  }

 private:
  std::string content_;
  std::vector<std::size_t> pauses_;
  std::size_t pos_ = 0;
};

TextStream pausing_stream(const std::string& stored, std::vector<std::size_t> pauses, const io::StreamOptions& o) {
  return TextStream::from_source("p", std::make_unique<PausingSource>(stored, std::move(pauses)), o);
}

// gzip whose deflate stream is flushed (Z_SYNC_FLUSH) after each part, as a writer that
// compresses line by line sends it; `ends` receives the compressed offset after each part.
std::string gzip_flushed(const std::vector<std::string>& parts, std::vector<std::size_t>& ends) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(parts[i].data()));
    zs.avail_in = static_cast<uInt>(parts[i].size());
    const int flush = i + 1 == parts.size() ? Z_FINISH : Z_SYNC_FLUSH;
    do {
      char buf[4096];
      zs.next_out = reinterpret_cast<Bytef*>(buf);
      zs.avail_out = sizeof buf;
      deflate(&zs, flush);
      out.append(buf, sizeof buf - zs.avail_out);
    } while (zs.avail_out == 0);
    ends.push_back(out.size());
  }
  deflateEnd(&zs);
  return out;
}

// The same as a zstd stream: each part's blocks flushed (ZSTD_e_flush), the frame ended last.
std::string zstd_flushed(const std::vector<std::string>& parts, std::vector<std::size_t>& ends) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    ZSTD_inBuffer in{parts[i].data(), parts[i].size(), 0};
    const ZSTD_EndDirective mode = i + 1 == parts.size() ? ZSTD_e_end : ZSTD_e_flush;
    for (std::size_t left = 1; left != 0;) {
      char buf[4096];
      ZSTD_outBuffer o{buf, sizeof buf, 0};
      left = ZSTD_compressStream2(cctx, &o, &in, mode);
      EXPECT_FALSE(ZSTD_isError(left));
      out.append(buf, o.pos);
    }
    ends.push_back(out.size());
  }
  ZSTD_freeCCtx(cctx);
  return out;
}

}  // namespace

// A pause ends the window there, as a non-last window with the usual overlap, marked
// input_paused; the bytes after it open the next window. Deterministic: no read-ahead thread.
TEST(TextStream, WriterPauseEndsTheWindowThere) {
  std::string plain;
  for (int i = 0; plain.size() < 3000; ++i) plain += "line " + std::to_string(i) + "\n";
  const std::size_t a = plain.find('\n', 1000) + 1, b = plain.find('\n', 2000) + 1;
  for (bool pipeline : {false, true}) {
    io::StreamOptions o;
    o.window_bytes = 1 << 20;  // never full here: only pauses and the end end windows
    o.overlap = 5;
    o.read_ahead = false;
    o.pipeline = pipeline;
    TextStream s = pausing_stream(plain, {a, b}, o);
    std::vector<std::uint64_t> ends;
    std::vector<bool> paused, last;
    for (TextWindow w; s.next(w);) {
      ends.push_back(w.offset + w.data.size());
      paused.push_back(w.input_paused);
      last.push_back(w.last);
    }
    EXPECT_EQ(ends, (std::vector<std::uint64_t>{a, b, plain.size()})) << "pipeline " << pipeline;
    EXPECT_EQ(paused, (std::vector<bool>{true, true, false}));
    EXPECT_EQ(last, (std::vector<bool>{false, false, true}));
  }
  // Off (approx --best): the window waits for the record's end.
  io::StreamOptions whole_records;
  whole_records.read_ahead = false;
  whole_records.end_window_on_pause = false;
  TextStream s = pausing_stream(plain, {a, b}, whole_records);
  TextWindow w;
  ASSERT_TRUE(s.next(w));
  EXPECT_TRUE(w.last);
  EXPECT_EQ(w.data.size(), plain.size());
}

// Streamed records equal the whole input's with pauses at random places (inside lines, at
// line breaks, between "\r" and "\n", inside headers and compressed blocks), any window size
// and overlap, with and without the read-ahead and producer threads.
TEST(TextStream, PausesAnywhereStreamLikeWholeInput) {
  std::mt19937_64 rng(12);
  for_random_texts(rng, 3, 2000, 15, [&](const std::string& text) {
    const std::vector<Record> want = whole("p", text);
    for (const std::string& stored : {text, gzip_member(text), bgzf(text, 1 + rng() % 500), zstd_frame(text)}) {
      for (int trial = 0; trial < 6; ++trial) {
        std::vector<std::size_t> pauses;
        const std::size_t n = trial == 0 ? stored.size() : rng() % 40;  // trial 0: after every byte
        for (std::size_t i = 0; i < n; ++i) pauses.push_back(trial == 0 ? i + 1 : 1 + rng() % stored.size());
        io::StreamOptions o;
        o.window_bytes = trial % 2 ? 1 << 20 : 1 + rng() % 300;
        o.overlap = rng() % 12;
        o.read_ahead = trial % 3 == 1;
        o.pipeline = rng() % 2;
        o.threads = 1 + static_cast<int>(rng() % 2);
        TextStream s = pausing_stream(stored, pauses, o);
        EXPECT_EQ(reassemble(s, o.overlap), want)
            << "stored " << stored.size() << " bytes, " << pauses.size() << " pauses, window " << o.window_bytes;
      }
    }
  });
}

// A writer that flushes its gzip stream and pauses: what it sent is decoded and delivered in a
// window before it continues (the decoder hands on what it has).
TEST(TextStream, PausedGzipWriterDeliversWhatItFlushed) {
  std::vector<std::size_t> ends;
  const std::string gz = gzip_flushed({">r1\nACGTGGATCC\nAC", "GT\n>r2\nGGATCC\n"}, ends);
  io::StreamOptions o;
  o.read_ahead = false;
  o.overlap = 5;
  TextStream s = pausing_stream(gz, {ends[0]}, o);
  TextWindow w;
  ASSERT_TRUE(s.next(w));
  EXPECT_EQ(str(w.data), "ACGTGGATCCAC");
  EXPECT_TRUE(w.input_paused);
  EXPECT_FALSE(w.last);
  std::vector<Record> got{{std::string(w.record), str(w.data.first(w.owned))}};
  for (TextWindow v; s.next(v);) {
    if (v.first) got.push_back({std::string(v.record), ""});
    got.back().seq += str(v.data.first(v.owned));
  }
  EXPECT_EQ(got, (std::vector<Record>{{"r1", "ACGTGGATCCACGT"}, {"r2", "GGATCC"}}));
}

// Searching window by window with pauses inserted at random places equals searching the
// whole text: patterns straddle the early window ends. Exact search keeps the hits starting
// before `owned` (overlap m - 1), approximate search those ending after `repeated` (m + k).
TEST(TextStream, WindowedSearchWithPausesEqualsWholeSearch) {
  std::mt19937_64 rng(31);
  const std::string text = random_dna(rng, 20000, "AC");
  MultiOptions mo;
  mo.backend = Backend::cpu;
  const std::vector<std::string> set = {"A", "CA", "ACCA", "AACAC", "CACACACAC"};
  const MultiMatcher multi = MultiMatcher::compile(set, mo);
  std::vector<Match> want;
  multi.scan(as_bytes(text), [&](const Match& m) { want.push_back(m); return true; });
  ApproxOptions ao;
  ao.backend = Backend::cpu;
  ao.k = 2;
  const ApproxMatcher approx = ApproxMatcher::compile(as_bytes("ACCACAC"), ao);
  std::vector<ApproxMatch> want_approx;
  approx.scan(as_bytes(text), [&](const ApproxMatch& h) { want_approx.push_back(h); return true; });
  for (int trial = 0; trial < 8; ++trial) {
    std::vector<std::size_t> pauses;
    for (int i = 0; i < 300; ++i) pauses.push_back(1 + rng() % text.size());
    io::StreamOptions o;
    o.window_bytes = trial < 4 ? 1 << 20 : 1 + rng() % 2000;
    o.overlap = multi.max_pattern_length() - 1;
    o.read_ahead = trial % 2;
    o.pipeline = trial % 3 == 0;
    TextStream s = pausing_stream(text, pauses, o);
    std::vector<Match> got;
    std::size_t early = 0;
    for (TextWindow w; s.next(w);) {
      early += !w.last;
      multi.scan(w.data, [&](const Match& m) {
        if (m.start < w.owned) got.push_back({.pattern = m.pattern, .start = m.start + w.offset, .end = m.end + w.offset});
        return true;
      });
    }
    EXPECT_EQ(got, want) << "trial " << trial;
    if (!o.read_ahead && o.window_bytes == 1u << 20) EXPECT_GT(early, 100u) << "the pauses end windows";
    o.overlap = 7 + 2;
    TextStream again = pausing_stream(text, pauses, o);
    std::vector<ApproxMatch> got_approx;
    for (TextWindow w; again.next(w);) {
      approx.scan(w.data, [&](const ApproxMatch& h) {
        if (h.end <= w.repeated) return true;
        ApproxMatch at = h;
        at.start += w.offset;
        at.end += w.offset;
        got_approx.push_back(at);
        return true;
      });
    }
    EXPECT_EQ(got_approx, want_approx) << "trial " << trial;
  }
}

namespace {

void write_all(int fd, const std::string& bytes) {
  for (std::size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

// A writer thread on a new FIFO at `path`: sends `first`, pauses until resume() (at the latest
// after 60 s: a reader that waits for it then fails its test), sends `rest` and closes.
class PausingWriter {
 public:
  PausingWriter(const std::string& path, std::string first, std::string rest) {
    EXPECT_EQ(::mkfifo(path.c_str(), 0600), 0);
    thread_ = std::thread([this, path, first = std::move(first), rest = std::move(rest)] {
      const int fd = ::open(path.c_str(), O_WRONLY);
      write_all(fd, first);
      resume_.wait_for(std::chrono::seconds(60));
      went_on_ = true;
      write_all(fd, rest);
      ::close(fd);
    });
  }
  ~PausingWriter() {
    resume();
    thread_.join();
  }
  void resume() {
    if (!resume_asked_) resume_signal_.set_value();
    resume_asked_ = true;
  }
  bool went_on() const { return went_on_.load(); }

 private:
  std::promise<void> resume_signal_;
  std::future<void> resume_ = resume_signal_.get_future();
  bool resume_asked_ = false;
  std::atomic<bool> went_on_{false};
  std::thread thread_;
};

}  // namespace

// Through a real FIFO (read-ahead and producer threads, the 50 ms pause rule): a match the
// writer sent before pausing is delivered while the writer still waits — it goes on only
// once the reader has seen the match, or after 60 s, which then fails the test. Plain text, and
// a gzip and a zstd stream flushed before the pause (zstd decoded on a thread of its own).
TEST_F(TempDir, PausedWritersMatchArrivesBeforeItContinues) {
  for (const std::string kind : {"plain", "gz", "zst"}) {
    const std::vector<std::string> parts = {"first line\na needle here\n", "more\nneedle again\n"};
    std::vector<std::size_t> ends;
    const std::string bytes = kind == "gz"    ? gzip_flushed(parts, ends)
                              : kind == "zst" ? zstd_flushed(parts, ends)
                                              : parts[0] + parts[1];
    const std::size_t cut = kind == "plain" ? parts[0].size() : ends[0];
    const std::string fifo = (dir_ / (kind + ".fifo")).string();
    PausingWriter writer(fifo, bytes.substr(0, cut), bytes.substr(cut));
    io::StreamOptions o;
    o.overlap = 5;
    std::string all;
    bool seen = false, before_writer_went_on = false;
    TextStream s = TextStream::open(fifo, o);
    for (TextWindow w; s.next(w);) {
      all += str(w.data.first(w.owned));
      if (!seen && all.find("needle") != std::string::npos) {
        seen = true;
        before_writer_went_on = !writer.went_on();
        writer.resume();
      }
    }
    EXPECT_TRUE(before_writer_went_on) << kind;
    EXPECT_EQ(all, parts[0] + parts[1]);
  }
}

// A reader that stops early (-q, -m) while the writer pauses: closing the stream does not
// wait for the writer (a read blocked on it is cancelled), with or without the threads.
TEST_F(TempDir, ClosingAStreamDoesNotWaitForAPausedWriter) {
  int n = 0;
  std::vector<std::size_t> ends;
  const std::string zst = zstd_flushed({"a needle\n", "more\n"}, ends);
  for (bool read_ahead : {false, true}) {
    for (int pipeline = 0; pipeline < 3; ++pipeline) {  // 2: a zstd stream, decoder thread waiting
      const std::string fifo = (dir_ / ("c" + std::to_string(n++) + ".fifo")).string();
      PausingWriter writer(fifo, pipeline == 2 ? zst.substr(0, ends[0]) : "a needle\n", "");
      {
        io::StreamOptions o;
        o.read_ahead = read_ahead;
        o.pipeline = pipeline;
        TextStream s = TextStream::open(fifo, o);
        TextWindow w;
        ASSERT_TRUE(s.next(w));
        EXPECT_EQ(str(w.data), "a needle\n");
        EXPECT_TRUE(w.input_paused);
      }  // closed while the writer still holds the pipe open
      EXPECT_FALSE(writer.went_on()) << "read_ahead " << read_ahead << " pipeline " << pipeline;
    }
  }
}
