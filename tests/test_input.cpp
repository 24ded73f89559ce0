// Input layer: plain/mmap, read() path (FIFO, stdin, devices), gzip, FASTA, FASTQ, errors.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "compression_test_support.hpp"
#include "io/input.hpp"
#include "temp_dir_test.hpp"

namespace fs = std::filesystem;
using warpmatch::ByteSpan;
using warpmatch::io::Format;
using warpmatch::io::Input;
using warpmatch::io::InputError;

namespace {

std::string str(ByteSpan b) { return std::string(reinterpret_cast<const char*>(b.data()), b.size()); }

std::vector<std::uint8_t> vec(const std::string& s) { return {s.begin(), s.end()}; }

// One gzip member of `data` (level 6), built in memory.
std::string gzip_bytes(const std::string& data) { return warpmatch_test::gzip_member(data); }

// Message of the InputError that `f` throws ("" and a test failure if none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no InputError thrown";
  return "";
}

class InputFiles : public warpmatch_test::TempDirTest {
 protected:
  InputFiles() : TempDirTest("warpmatch-input-") {}
  // Written through zlib's gzip file API, as gzip(1) would.
  std::string write_gz(const std::string& name, const std::string& content,
                       const char* mode = "wb") {
    const std::string p = (dir_ / name).string();
    gzFile f = gzopen(p.c_str(), mode);
    EXPECT_NE(f, nullptr);
    EXPECT_EQ(gzwrite(f, content.data(), static_cast<unsigned>(content.size())),
              static_cast<int>(content.size()));
    EXPECT_EQ(gzclose(f), Z_OK);
    return p;
  }
};

// gzip cases get their own suite name (Gzip.*) but share the temp-dir fixture.
class Gzip : public InputFiles {};

std::string all_byte_values() {
  std::string s;
  for (int i = 0; i < 256; ++i) s.push_back(static_cast<char>(i));
  return s + std::string("\0\xff\0", 3) + "tail";
}

}  // namespace

// ---- plain files ---------------------------------------------------------------------------

TEST_F(InputFiles, PlainFileRoundTripsEveryByteValue) {
  const std::string content = all_byte_values();
  const std::string p = write("all.bin", content);
  const Input in = Input::open(p);
  EXPECT_EQ(in.name(), p);
  EXPECT_EQ(in.format(), Format::plain);
  EXPECT_FALSE(in.was_gzip());
  EXPECT_EQ(str(in.bytes()), content);
  ASSERT_EQ(in.records().size(), 1u);
  EXPECT_EQ(in.records()[0].name, "");
  EXPECT_EQ(in.records()[0].sequence.data(), in.bytes().data());
  EXPECT_EQ(in.records()[0].sequence.size(), content.size());
}

TEST_F(InputFiles, EmptyFileGivesOneEmptyRecord) {
  const Input in = Input::open(write("empty", ""));
  EXPECT_TRUE(in.bytes().empty());
  EXPECT_EQ(in.format(), Format::plain);
  ASSERT_EQ(in.records().size(), 1u);
  EXPECT_TRUE(in.records()[0].sequence.empty());
}

TEST_F(InputFiles, MissingFileNamesPath) {
  const std::string p = (dir_ / "nope.txt").string();
  EXPECT_EQ(error_of([&] { Input::open(p); }), p + ": No such file or directory");
}

TEST_F(InputFiles, DirectoryIsAnError) {
  const std::string p = dir_.string();
  EXPECT_EQ(error_of([&] { Input::open(p); }), p + ": is a directory");
}

TEST_F(InputFiles, UnreadableFileIsPermissionDenied) {
  if (::geteuid() == 0) GTEST_SKIP() << "running as root: permission bits are not enforced";
  const std::string p = write("secret", "x");
  ASSERT_EQ(::chmod(p.c_str(), 0), 0);
  EXPECT_EQ(error_of([&] { Input::open(p); }), p + ": Permission denied");
}

TEST_F(InputFiles, LargerFileIsMappedIntact) {
  // Several pages and not a multiple of the page size.
  std::string content;
  for (int i = 0; content.size() < 3'000'001; ++i) content += std::to_string(i) + ',';
  const Input in = Input::open(write("big.txt", content));
  EXPECT_EQ(in.bytes().size(), content.size());
  EXPECT_TRUE(str(in.bytes()) == content);
}

TEST_F(InputFiles, MoveKeepsSpansValid) {
  Input a = Input::open(write("m.fa", ">a\nAC\nGT\n>b\nTTT\n"));
  const auto* p0 = a.records()[0].sequence.data();
  Input b = std::move(a);
  Input c = Input::from_bytes("x", vec("y"));
  c = std::move(b);
  ASSERT_EQ(c.records().size(), 2u);
  EXPECT_EQ(c.records()[0].sequence.data(), p0);
  EXPECT_EQ(str(c.records()[0].sequence), "ACGT");
  EXPECT_EQ(str(c.records()[1].sequence), "TTT");
}

// ---- read() path: FIFO, stdin, character devices, /proc ------------------------------------

TEST_F(InputFiles, FifoIsReadInBlocks) {
  const std::string p = (dir_ / "fifo").string();
  ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0);
  std::string content;  // > several read blocks, so the buffer must grow
  for (int i = 0; content.size() < 5'000'000; ++i) content += "line " + std::to_string(i) + "\n";
  content += std::string("\0\xff", 2);
  std::thread writer([&] {
    std::ofstream(p, std::ios::binary) << content;  // opening blocks until the reader opens
  });
  const Input in = Input::open(p);
  writer.join();
  EXPECT_EQ(in.bytes().size(), content.size());
  EXPECT_TRUE(str(in.bytes()) == content);
  EXPECT_EQ(in.format(), Format::plain);
}

TEST_F(Gzip, ThroughFifoIsDecompressed) {
  const std::string p = (dir_ / "fifo.gz").string();
  ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0);
  const std::string fasta = ">chr1 test\nACGT\nacgt\n";
  const std::string gz = gzip_bytes(fasta);
  std::thread writer([&] { std::ofstream(p, std::ios::binary) << gz; });
  const Input in = Input::open(p);
  writer.join();
  EXPECT_TRUE(in.was_gzip());
  EXPECT_EQ(str(in.bytes()), fasta);
  ASSERT_EQ(in.records().size(), 1u);
  EXPECT_EQ(str(in.records()[0].sequence), "ACGTacgt");
}

TEST_F(InputFiles, DashReadsStandardInput) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const int saved = ::dup(0);
  ASSERT_GE(saved, 0);
  ASSERT_EQ(::dup2(fds[0], 0), 0);
  ::close(fds[0]);
  const std::string content = "@r1\nACGT\n+\nIIII\n";
  std::thread writer([&] {
    EXPECT_EQ(::write(fds[1], content.data(), content.size()),
              static_cast<ssize_t>(content.size()));
    ::close(fds[1]);
  });
  std::string err;
  std::optional<Input> in;
  try {
    in.emplace(Input::open("-"));
  } catch (const std::exception& e) {
    err = e.what();
  }
  writer.join();
  ::dup2(saved, 0);  // restore before any assertion can return early
  ::close(saved);
  ASSERT_EQ(err, "");
  EXPECT_EQ(in->name(), "(standard input)");
  EXPECT_EQ(in->format(), Format::fastq);
  ASSERT_EQ(in->records().size(), 1u);
  EXPECT_EQ(str(in->records()[0].sequence), "ACGT");
}

TEST_F(InputFiles, CharacterDeviceIsRead) {
  const Input in = Input::open("/dev/null");
  EXPECT_TRUE(in.bytes().empty());
  EXPECT_EQ(in.records().size(), 1u);
}

TEST_F(InputFiles, ZeroSizeProcFileIsStillRead) {
  // /proc files report st_size 0 but have content: they must not be taken as empty.
  const Input in = Input::open("/proc/self/status");
  EXPECT_NE(str(in.bytes()).find("Name:"), std::string::npos);
}

// ---- gzip ----------------------------------------------------------------------------------

TEST_F(Gzip, PlainFileIsDecompressed) {
  const std::string content = all_byte_values();
  const Input in = Input::open(write_gz("plain.gz", content));
  EXPECT_TRUE(in.was_gzip());
  EXPECT_EQ(in.format(), Format::plain);
  EXPECT_EQ(str(in.bytes()), content);
  ASSERT_EQ(in.records().size(), 1u);
  EXPECT_EQ(str(in.records()[0].sequence), content);
}

TEST_F(Gzip, FastaIsDetectedAfterDecompression) {
  const Input in = Input::open(write_gz("x.fa.gz", ">s1 desc\nAAC\nGT\n>s2\nN\n"));
  EXPECT_TRUE(in.was_gzip());
  EXPECT_EQ(in.format(), Format::fasta);
  ASSERT_EQ(in.records().size(), 2u);
  EXPECT_EQ(in.records()[0].name, "s1");
  EXPECT_EQ(str(in.records()[0].sequence), "AACGT");
  EXPECT_EQ(in.records()[1].name, "s2");
  EXPECT_EQ(str(in.records()[1].sequence), "N");
}

TEST_F(Gzip, ConcatenatedMembersAreAllRead) {
  // gzopen "ab" appends a second member, as `cat a.gz b.gz > c.gz` would.
  const std::string p = write_gz("cat.gz", ">a\nACGT\n");
  write_gz("cat.gz", ">b\nTTTT\n", "ab");
  write_gz("cat.gz", "", "ab");  // an empty member too
  const Input in = Input::open(p);
  EXPECT_EQ(str(in.bytes()), ">a\nACGT\n>b\nTTTT\n");
  ASSERT_EQ(in.records().size(), 2u);
  EXPECT_EQ(str(in.records()[1].sequence), "TTTT");
}

TEST_F(Gzip, LargeOutputGrowsBuffer) {
  // Highly compressible and larger than the first guess, in two members, so the output
  // buffer has to grow past the size hint in the trailer.
  std::string part;
  for (int i = 0; part.size() < 6'000'000; ++i) part += "ACGTACGTNN" + std::to_string(i % 97);
  const std::string gz = gzip_bytes(part) + gzip_bytes(part);
  const Input in = Input::from_bytes("big.gz", vec(gz));
  EXPECT_TRUE(in.was_gzip());
  ASSERT_EQ(in.bytes().size(), 2 * part.size());
  EXPECT_TRUE(str(in.bytes()) == part + part);
}

TEST_F(Gzip, TrailingZeroPaddingIsIgnored) {
  const Input in = Input::from_bytes("pad.gz", vec(gzip_bytes("hello") + std::string(100, '\0')));
  EXPECT_EQ(str(in.bytes()), "hello");
}

TEST_F(Gzip, CorruptDataIsAnError) {
  std::string content;
  for (int i = 0; i < 2000; ++i) content += std::to_string(i * 7919) + "\n";
  std::string gz = gzip_bytes(content);
  std::string bad = gz;
  for (std::size_t i = 12; i < 40; ++i) bad[i] = static_cast<char>(~bad[i]);  // deflate data
  const std::string p = write("bad.gz", bad);
  const std::string msg = error_of([&] { Input::open(p); });
  EXPECT_EQ(msg.rfind(p + ": corrupt gzip data at compressed byte offset ", 0), 0u) << msg;

  // A wrong CRC in the trailer.
  std::string crc = gz;
  crc[crc.size() - 8] = static_cast<char>(~crc[crc.size() - 8]);
  EXPECT_NE(error_of([&] { Input::from_bytes("crc.gz", vec(crc)); }).find("corrupt gzip data"),
            std::string::npos);

  // Bytes after the member that are neither padding nor another member.
  const std::string x = gzip_bytes("x");
  EXPECT_EQ(error_of([&] { Input::from_bytes("g.gz", vec(x + "junk")); }),
            "g.gz: corrupt gzip data at compressed byte offset " + std::to_string(x.size()) +
                " (trailing garbage after gzip member)");
}

TEST_F(Gzip, TruncatedIsAnError) {
  const std::string gz = gzip_bytes(std::string(100000, 'A') + "BCD");
  const std::string p = write("trunc.gz", gz.substr(0, gz.size() - 10));
  EXPECT_EQ(error_of([&] { Input::open(p); }),
            p + ": corrupt gzip data at compressed byte offset " + std::to_string(gz.size() - 10) +
                " (unexpected end of file inside a gzip member)");
  EXPECT_EQ(error_of([&] { Input::from_bytes("m.gz", vec("\x1f\x8b")); }),
            "m.gz: corrupt gzip data at compressed byte offset 2 (unexpected end of file inside a gzip member)");
}

// ---- FASTA ---------------------------------------------------------------------------------

TEST(Fasta, MultiRecordWrappedLinesAreJoined) {
  const Input in = Input::from_bytes("x.fa", vec(">one\nACGT\nAC\nG\n>two\nTTTT\n>three\nAAA\nCCC"));
  EXPECT_EQ(in.format(), Format::fasta);
  ASSERT_EQ(in.records().size(), 3u);
  EXPECT_EQ(in.records()[0].name, "one");
  EXPECT_EQ(str(in.records()[0].sequence), "ACGTACG");
  EXPECT_EQ(in.records()[1].name, "two");
  EXPECT_EQ(str(in.records()[1].sequence), "TTTT");
  EXPECT_EQ(in.records()[2].name, "three");
  EXPECT_EQ(str(in.records()[2].sequence), "AAACCC");  // no final newline
}

TEST(Fasta, CrLfLineEndingsAreStripped) {
  const Input in = Input::from_bytes("crlf.fa", vec(">a x\r\nAC\r\nGT\r\n>b\r\nNN\r\n"));
  ASSERT_EQ(in.records().size(), 2u);
  EXPECT_EQ(in.records()[0].name, "a");
  EXPECT_EQ(str(in.records()[0].sequence), "ACGT");
  EXPECT_EQ(in.records()[1].name, "b");
  EXPECT_EQ(str(in.records()[1].sequence), "NN");
}

TEST(Fasta, EmptySequencesAreAllowed) {
  const Input in = Input::from_bytes("e.fa", vec(">empty1\n>full\nAC\n>empty2\n"));
  ASSERT_EQ(in.records().size(), 3u);
  EXPECT_TRUE(in.records()[0].sequence.empty());
  EXPECT_EQ(str(in.records()[1].sequence), "AC");
  EXPECT_TRUE(in.records()[2].sequence.empty());
  EXPECT_EQ(in.records()[2].name, "empty2");
}

TEST(Fasta, NameIsFirstWordOfHeader) {
  const Input in = Input::from_bytes(
      "h.fa", vec(">chr7\tsome description here\nA\n>gi|123|ref|X 1.2 desc\nC\n>\nG\n"));
  ASSERT_EQ(in.records().size(), 3u);
  EXPECT_EQ(in.records()[0].name, "chr7");
  EXPECT_EQ(in.records()[1].name, "gi|123|ref|X");
  EXPECT_EQ(in.records()[2].name, "");
}

TEST(Fasta, BlankLinesAreSkipped) {
  const Input in = Input::from_bytes("b.fa", vec(">a\n\nAC\n\r\n\nGT\n\n>b\n\nT\n\n"));
  ASSERT_EQ(in.records().size(), 2u);
  EXPECT_EQ(str(in.records()[0].sequence), "ACGT");
  EXPECT_EQ(str(in.records()[1].sequence), "T");
}

TEST(Fasta, SequenceBytesAreVerbatim) {
  const std::string seq = std::string("acgtNnRY*-.\0\xff", 13);
  const Input in = Input::from_bytes("v.fa", vec(">a\n" + seq + "\n" + seq + "\n"));
  ASSERT_EQ(in.records().size(), 1u);
  EXPECT_EQ(str(in.records()[0].sequence), seq + seq);
}

TEST(Fasta, DataBeforeFirstHeaderIsAnError) {
  EXPECT_EQ(error_of([] { Input::from_bytes("d.fa", vec("\nACGT\n>a\nAC\n"), Format::fasta); }),
            "d.fa: line 2: sequence data before the first '>' header");
}

TEST(Fasta, ExplicitFastaOnEmptyInputHasNoRecords) {
  const Input in = Input::from_bytes("e.fa", {}, Format::fasta);
  EXPECT_EQ(in.format(), Format::fasta);
  EXPECT_TRUE(in.records().empty());
}

TEST(Fasta, LambdaVirusGenome) {
  const std::string p = "/usr/share/doc/bowtie2/examples/reference/lambda_virus.fa.gz";
  if (!fs::exists(p)) GTEST_SKIP() << p << " is absent (Debian package bowtie2-examples)";
  const Input in = Input::open(p);
  EXPECT_TRUE(in.was_gzip());
  EXPECT_EQ(in.format(), Format::fasta);
  EXPECT_EQ(in.bytes().size(), 49270u);
  ASSERT_EQ(in.records().size(), 1u);
  EXPECT_EQ(in.records()[0].name, "gi|9626243|ref|NC_001416.1|");
  const std::string s = str(in.records()[0].sequence);
  EXPECT_EQ(s.size(), 48502u);
  EXPECT_EQ(s.substr(0, 20), "GGGCGGCGACCTCGCGGGTT");
  EXPECT_EQ(s.substr(s.size() - 20), "CGGTGATCCGACAGGTTACG");
  EXPECT_EQ(s.find_first_not_of("ACGT"), std::string::npos);
}

// ---- FASTQ ---------------------------------------------------------------------------------

TEST(Fastq, ValidRecordsPointIntoContent) {
  const Input in = Input::from_bytes(
      "r.fq", vec("@r1 extra\nACGT\n+\nIIII\n@r2\r\nGG\r\n+r2\r\n#I\r\n@r3\n\n+\n\n"));
  EXPECT_EQ(in.format(), Format::fastq);
  ASSERT_EQ(in.records().size(), 3u);
  EXPECT_EQ(in.records()[0].name, "r1");
  EXPECT_EQ(str(in.records()[0].sequence), "ACGT");
  EXPECT_EQ(in.records()[1].name, "r2");
  EXPECT_EQ(str(in.records()[1].sequence), "GG");
  EXPECT_EQ(in.records()[2].name, "r3");
  EXPECT_TRUE(in.records()[2].sequence.empty());
  const auto* b = in.bytes().data();
  EXPECT_EQ(in.records()[0].sequence.data(), b + 10);  // zero-copy
}

TEST(Fastq, NoTrailingNewlineAndTrailingBlankLines) {
  const Input a = Input::from_bytes("a.fq", vec("@r\nAC\n+\nII"));
  ASSERT_EQ(a.records().size(), 1u);
  EXPECT_EQ(str(a.records()[0].sequence), "AC");
  const Input b = Input::from_bytes("b.fq", vec("@r\nAC\n+\nII\n\n\n"));
  EXPECT_EQ(b.records().size(), 1u);
}

TEST(Fastq, MissingAtIsAnError) {
  EXPECT_EQ(error_of([] {
              Input::from_bytes("x.fq", vec("@r1\nAC\n+\nII\nr2\nAC\n+\nII\n"), Format::fastq);
            }),
            "x.fq: line 5: expected a FASTQ header line starting with '@'");
}

TEST(Fastq, MissingPlusIsAnError) {
  EXPECT_EQ(error_of([] { Input::from_bytes("x.fq", vec("@r1\nAC\n+\nII\n@r2\nAC\n-\nII\n")); }),
            "x.fq: line 7: expected a '+' line in FASTQ record 'r2'");
}

TEST(Fastq, QualityLengthMismatchIsAnError) {
  EXPECT_EQ(error_of([] { Input::from_bytes("x.fq", vec("@r1\nAC\n+\nII\n@r3\nACGTA\n+\nIII\n")); }),
            "x.fq: line 8: FASTQ record 'r3' has 5 bases but 3 quality values");
}

TEST(Fastq, TruncatedRecordIsAnError) {
  EXPECT_EQ(error_of([] { Input::from_bytes("x.fq", vec("@r1\nAC\n+\nII\n@r2\nAC\n+\n")); }),
            "x.fq: line 5: truncated FASTQ record 'r2' (no quality line)");
  EXPECT_EQ(error_of([] { Input::from_bytes("x.fq", vec("@r1\nAC\n+\nII\n@r2\nAC")); }),
            "x.fq: line 5: truncated FASTQ record 'r2' (no '+' line)");
  EXPECT_EQ(error_of([] { Input::from_bytes("x.fq", vec("@r1\nAC\n+\nII\n@r2\n"), Format::fastq); }),
            "x.fq: line 5: truncated FASTQ record 'r2' (no sequence line)");
}

TEST(Fastq, AtWithoutPlusOnThirdLineIsPlain) {
  const Input in = Input::from_bytes("p", vec("@user hello\nsecond\nthird\n"));
  EXPECT_EQ(in.format(), Format::plain);
  EXPECT_EQ(in.records().size(), 1u);
}

// ---- explicit formats, from_bytes, names -----------------------------------------------------

TEST(InputFormat, ExplicitFormatOverridesDetection) {
  const std::string fa = ">a\nACGT\n";
  const Input plain = Input::from_bytes("p", vec(fa), Format::plain);
  EXPECT_EQ(plain.format(), Format::plain);
  ASSERT_EQ(plain.records().size(), 1u);
  EXPECT_EQ(str(plain.records()[0].sequence), fa);

  // FASTQ content forced to FASTA doesn't parse.
  EXPECT_EQ(error_of([] { Input::from_bytes("q", vec("@r\nAC\n+\nII\n"), Format::fasta); }),
            "q: line 1: sequence data before the first '>' header");
  // Plain text forced to FASTQ doesn't parse.
  EXPECT_EQ(error_of([] { Input::from_bytes("t", vec("hello\n"), Format::fastq); }),
            "t: line 1: expected a FASTQ header line starting with '@'");
}

TEST(InputFormat, FromBytesPlainAndGzip) {
  const Input a = Input::from_bytes("lit", vec(std::string("a\0b", 3)));
  EXPECT_EQ(a.name(), "lit");
  EXPECT_EQ(a.format(), Format::plain);
  EXPECT_FALSE(a.was_gzip());
  EXPECT_EQ(str(a.bytes()), std::string("a\0b", 3));
  const Input e = Input::from_bytes("empty", {});
  ASSERT_EQ(e.records().size(), 1u);
  EXPECT_TRUE(e.records()[0].sequence.empty());
  const Input g = Input::from_bytes("g", vec(gzip_bytes(">x\nAC\n")));
  EXPECT_TRUE(g.was_gzip());
  EXPECT_EQ(g.format(), Format::fasta);
  EXPECT_EQ(str(g.records()[0].sequence), "AC");
}

TEST(InputFormat, NamesRoundTrip) {
  using warpmatch::io::format_name;
  using warpmatch::io::parse_format;
  for (Format f : {Format::automatic, Format::plain, Format::fasta, Format::fastq})
    EXPECT_EQ(parse_format(format_name(f)), f);
  EXPECT_EQ(format_name(Format::automatic), "auto");
  try {
    parse_format("genbank");
    FAIL() << "no InvalidArgument";
  } catch (const warpmatch::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("'genbank'"), std::string::npos) << e.what();
  }
}
