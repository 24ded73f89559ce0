// Files of short records parsed on all threads (io::detail::parse_short_records, as
// io::TextStream uses it): the records equal the whole-input parser's (io::Input, an
// independent parser) for FASTQ and FASTA of every shape the fast parse must hand back to the
// record-by-record parser (CRLF, blank lines, quality lines starting with '@' or '+', '+'
// lines with a name, records longer than a piece, empty records, a last line without its
// "\n"; files of CRLF lines, taken whole), mapped, streamed and compressed, on 1-4 threads; a malformed record megabytes into a
// file gives the whole input's message after the records before it; and on plain records the
// fast parse takes them all at once (batches larger than the record-by-record parser's).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "compression_test_support.hpp"
#include "core/worker_pool.hpp"
#include "io/input.hpp"
#include "io/short_records.hpp"
#include "io/text_stream.hpp"
#include "temp_dir_test.hpp"

using namespace warpmatch;
using io::Format;
using io::TextStream;
using io::TextWindow;

namespace {

std::string str(ByteSpan b) { return std::string(reinterpret_cast<const char*>(b.data()), b.size()); }

struct Record {
  std::string name, seq;
  friend bool operator==(const Record&, const Record&) = default;
};

std::vector<Record> whole(const std::string& content, Format f) {
  const io::Input in = io::Input::from_bytes("r", {content.begin(), content.end()}, f);
  std::vector<Record> out;
  for (const auto& r : in.records()) out.push_back({r.name, str(r.sequence)});
  return out;
}

// Every record of `s` from next_windows(); `largest`: the most windows one call gave.
std::vector<Record> reassemble(TextStream& s, std::size_t& largest) {
  std::vector<Record> out;
  largest = 0;
  for (;;) {
    const std::span<const TextWindow> batch = s.next_windows();
    if (batch.empty()) break;
    largest = std::max(largest, batch.size());
    for (const TextWindow& w : batch) {
      if (w.first) out.push_back({std::string(w.record), ""});
      out.back().seq += str(w.data.first(w.owned));
    }
  }
  return out;
}

// What the fast parse must give back to the record-by-record parser, or get right itself.
struct Shape {
  bool odd = false;              // CRLF records, blank lines, records longer than a piece
  bool no_final_newline = false;
  bool crlf = false;             // every line break "\r\n" (a file written on Windows)
};

std::string random_seq(std::mt19937_64& rng, std::size_t n) {
  static const char kBases[] = "ACGTN";
  std::string s(n, 'A');
  for (char& c : s) c = kBases[rng() % 5];
  return s;
}

std::string random_fastq(std::mt19937_64& rng, std::size_t bytes, Shape shape) {
  static const char kQual[] = "!#+@ABCDEFGHIJ";
  std::string f;
  for (int i = 0; f.size() < bytes; ++i) {
    const std::string name = "r" + std::to_string(i) + (rng() % 4 == 0 ? "\tlane 1" : "");
    std::size_t len = rng() % 10 == 0 ? 0 : 1 + rng() % 200;
    if (shape.odd && rng() % 3000 == 0) len = 300000 + rng() % 100000;  // longer than a piece
    std::string qual(len, 'I');
    for (char& c : qual) c = kQual[rng() % 14];
    if (len > 0 && rng() % 3 == 0) qual[0] = rng() % 2 ? '@' : '+';  // looks like a header or a '+' line
    const std::string nl = shape.crlf || (shape.odd && rng() % 500 == 0) ? "\r\n" : "\n";
    f += "@" + name + nl + random_seq(rng, len) + nl + (rng() % 5 == 0 ? "+" + name : "+") + nl + qual + nl;
    if (shape.odd && rng() % 700 == 0) f += "\n";
  }
  if (shape.no_final_newline) f.pop_back();
  return f;
}

std::string random_fasta(std::mt19937_64& rng, std::size_t bytes, Shape shape) {
  std::string f;
  for (int i = 0; f.size() < bytes; ++i) {
    std::size_t len = rng() % 8 == 0 ? 0 : rng() % 400;
    if (shape.odd && rng() % 3000 == 0) len = 300000 + rng() % 100000;
    const std::string nl = shape.crlf || (shape.odd && rng() % 500 == 0) ? "\r\n" : "\n";
    f += ">c" + std::to_string(i) + (rng() % 3 == 0 ? " some description" : "") + nl;
    const std::string seq = random_seq(rng, len);
    const std::size_t width = rng() % 4 == 0 ? seq.size() + 1 : 1 + rng() % 80;  // unwrapped or wrapped
    for (std::size_t at = 0; at < seq.size(); at += width) {
      f += seq.substr(at, width) + nl;
      if (shape.odd && rng() % 300 == 0) f += nl;  // a blank line inside the sequence
    }
  }
  if (shape.no_final_newline) f.pop_back();
  return f;
}

class ShortRecords : public warpmatch_test::TempDirTest {
 protected:
  ShortRecords() : TempDirTest("warpmatch-short-records-") {}
};

}  // namespace

TEST_F(ShortRecords, EqualTheWholeInputParserMappedStreamedAndCompressed) {
  std::mt19937_64 rng(97);
  for (const Format format : {Format::fastq, Format::fasta})
    for (const Shape shape : {Shape{}, Shape{true, false}, Shape{false, true}, Shape{true, true}, Shape{false, false, true},
                              Shape{false, true, true}}) {
      const std::string text = format == Format::fastq ? random_fastq(rng, 6 << 20, shape) : random_fasta(rng, 6 << 20, shape);
      const std::vector<Record> want = whole(text, format);
      ASSERT_GT(want.size(), 10000u);
      const std::string path = write(format == Format::fastq ? "r.fq" : "r.fa", text);
      const std::string where = std::string(format == Format::fastq ? "FASTQ" : "FASTA") + (shape.odd ? " odd" : "") +
                                (shape.no_final_newline ? " no final newline" : "") + (shape.crlf ? " CRLF" : "");
      for (const int threads : {1, 3, 4}) {
        io::StreamOptions o;
        o.threads = threads;
        o.overlap = rng() % 2 ? 7 : 0;
        o.pipeline = threads != 3;
        std::size_t largest = 0;
        TextStream mapped = TextStream::open(path, o);
        EXPECT_EQ(reassemble(mapped, largest), want) << where << ", mapped, " << threads << " threads";
        // The record-by-record parser hands on at most 16384 records a batch: more means the
        // records were parsed together.
        if (!shape.odd) EXPECT_GT(largest, 16384u) << where << ": plain records are parsed all at once";
        TextStream streamed = TextStream::from_bytes("r", as_bytes(text), o);
        EXPECT_EQ(reassemble(streamed, largest), want) << where << ", streamed, " << threads << " threads";
      }
      io::StreamOptions o;
      o.threads = 2;
      std::size_t largest = 0;
      TextStream gz = TextStream::from_bytes("r.gz", as_bytes(warpmatch_test::gzip_member(text)), o);
      EXPECT_EQ(reassemble(gz, largest), want) << where << ", gzip";
      TextStream bgzf = TextStream::from_bytes("r.bgz", as_bytes(warpmatch_test::bgzf(text, 65280)), o);
      EXPECT_EQ(reassemble(bgzf, largest), want) << where << ", BGZF";
    }
}

// A malformed record megabytes into a file: the records before it, then the whole input's
// message (its line number counted through the records parsed together).
TEST_F(ShortRecords, MalformedRecordAfterMegabytesGivesTheWholeInputsMessage) {
  std::mt19937_64 rng(98);
  const std::string good_fq = random_fastq(rng, 3 << 20, {});
  struct Case {
    std::string name, good, bad;
    Format format;
  };
  const std::vector<Case> cases = {
      {"short_quality.fq", good_fq, "@broken\nACGT\n+\nIII\n@next\nA\n+\nI\n", Format::fastq},
      {"no_plus.fq", good_fq, "@broken\nACGT\n-\nIIII\n", Format::fastq},
      {"truncated.fq", good_fq, "@broken\nACGT\n+\n", Format::fastq},
      {"header_only.fq", good_fq, "@broken", Format::fastq},
      {"not_a_header.fq", good_fq, "ACGT\n+\nIIII\n@r\nA\n+\nI\n", Format::fastq},
      {"data_first.fa", "", "ACGT\n" + random_fasta(rng, 2 << 20, {}), Format::fasta},
  };
  for (const Case& c : cases) {
    const std::string text = c.good + c.bad;
    std::string whole_msg;
    try {
      io::Input::from_bytes(c.name, {text.begin(), text.end()}, c.format);
    } catch (const io::InputError& e) {
      whole_msg = e.what();
    }
    ASSERT_FALSE(whole_msg.empty()) << c.name;
    std::string want;
    for (const Record& r : whole(c.good, c.format)) want += r.seq;
    const std::string path = write(c.name, text);
    for (const bool mapped : {true, false}) {
      io::StreamOptions o;
      o.format = c.format;
      o.threads = 3;
      TextStream s = mapped ? TextStream::open(path, o) : TextStream::from_bytes(c.name, as_bytes(text), o);
      std::string before, msg;
      try {
        for (TextWindow w; s.next(w);) before += str(w.data.first(w.owned));
      } catch (const io::InputError& e) {
        msg = e.what();
      }
      EXPECT_EQ(msg, (mapped ? path : c.name) + whole_msg.substr(c.name.size())) << c.name << (mapped ? " mapped" : "");
      // The broken record's bases may come before its check fails (as one by one).
      EXPECT_EQ(before.substr(0, want.size()), want) << c.name;
      EXPECT_LE(before.size(), want.size() + 4) << c.name;
    }
  }
}

// The parse itself: whole records from the front only, the rest left; nothing at all when
// the first record is not whole; a buffer cut anywhere gives a prefix of the records.
TEST(ShortRecordsParse, TakesWholeRecordsFromTheFrontOnly) {
  std::mt19937_64 rng(99);
  core::WorkerPool pool(3);
  const std::string fq = random_fastq(rng, 2 << 20, {});
  const std::vector<Record> all = whole(fq, Format::fastq);
  std::vector<std::uint8_t> out(fq.size());
  io::detail::ParsedRecords parsed;
  for (int trial = 0; trial < 20; ++trial) {
    const std::size_t n = trial == 0 ? fq.size() : 1 + rng() % fq.size();
    io::detail::parse_short_records(reinterpret_cast<const std::uint8_t*>(fq.data()), n, n == fq.size(), Format::fastq,
                                    out.data(), pool, parsed);
    ASSERT_LE(parsed.consumed, n);
    ASSERT_LE(parsed.records.size(), all.size());
    // What was taken ends where a record starts (or at the end), and is all of what was whole.
    const std::vector<Record> taken_whole = whole(fq.substr(0, parsed.consumed), Format::fastq);
    ASSERT_EQ(parsed.records.size(), taken_whole.size()) << n;
    for (std::size_t i = 0; i < parsed.records.size(); ++i) {
      const io::detail::ParsedRecord& r = parsed.records[i];
      ASSERT_EQ(parsed.names.substr(r.name_at, r.name_size), all[i].name) << i;
      ASSERT_EQ(std::string(reinterpret_cast<const char*>(out.data()) + r.sequence_at, r.sequence_size), all[i].seq) << i;
    }
    EXPECT_EQ(parsed.lines, 4 * parsed.records.size());
    if (n == fq.size()) EXPECT_EQ(parsed.records.size(), all.size());
    // At most one record (and its start) can be cut off by the end of the buffer.
    if (n < fq.size() && parsed.consumed > 0) EXPECT_LT(n - parsed.consumed, 512u) << n;
  }
  // The first record not whole: nothing.
  io::detail::parse_short_records(reinterpret_cast<const std::uint8_t*>(fq.data()), 5, false, Format::fastq, out.data(), pool, parsed);
  EXPECT_TRUE(parsed.records.empty());
  EXPECT_EQ(parsed.consumed, 0u);
}
