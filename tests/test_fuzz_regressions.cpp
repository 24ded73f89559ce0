// The fuzz targets' checks (fuzz/fuzz_*.hpp, fuzz/kernels/) in the test suite (issue 16): every
// seed of fuzz/corpus is replayed (so the ASan + UBSan `debug` run checks them too), and every
// finding of scripts/fuzz.sh is a test here named after what broke, with its input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "../fuzz/fuzz_input.hpp"
#include "../fuzz/fuzz_kernels.hpp"
#include "../fuzz/fuzz_ops.hpp"

namespace {

std::string bytes_of_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// fuzz/corpus of the source tree (found from the test data folder CMake passes in: __FILE__
// is relative under a compiler cache with a base directory).
const std::filesystem::path kCorpus =
    std::filesystem::path(WARPMATCH_TEST_DATA_DIR).parent_path().parent_path() / "fuzz" / "corpus";

template <class Fn>
void replay(const std::string& target, Fn&& fn) {
  int replayed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kCorpus / target)) {
    const std::string data = bytes_of_file(entry.path());
    EXPECT_NO_THROW(fn(reinterpret_cast<const std::uint8_t*>(data.data()), data.size())) << entry.path();
    ++replayed;
  }
  EXPECT_GT(replayed, 3) << "seed corpus of " << target;
}

void input(std::string_view data) { fuzz_input_one(reinterpret_cast<const std::uint8_t*>(data.data()), data.size()); }

}  // namespace

TEST(FuzzRegressions, SeedCorporaAgreeWithTheirReferences) {
  replay("input", fuzz_input_one);
  replay("ops", fuzz_ops_one);
  replay("kernels", fuzz_kernels_one);
}

// fuzz_input, first minutes: a stream's second record began by moving 0 carried bytes from a
// buffer never allocated (memmove from a null pointer: UBSan).
TEST(FuzzRegressions, InputSecondRecordWithNothingCarriedMovesNoBytes) {
  EXPECT_NO_THROW(input(std::string_view("\0\0ab\\x00c\n\\\\\n\nxyz\r\n", 20)));
  EXPECT_NO_THROW(input(std::string_view("\x01\x00>a\n>b\nAC\n", 12)));
}

// fuzz_input: a truncated gzip member (the gzip_cut seed) made the decompressor grow its
// buffer from an empty one with memcpy from a null pointer (UBSan).
TEST(FuzzRegressions, InputTruncatedGzipGrowsItsBufferFromNothing) {
  const std::string data("\x09\x00\x1f\x8b\x08\x00\xea\x16\x05\x6b\x02\xff\xcb\x48\xcd\xc9\xc9\x57\xc8\x40\x22\xcb\xf3\x8b\x72\x52\x32\x46\x85\x87\x9e\x30", 32);
  EXPECT_NO_THROW(input(data));
}

// fuzz_input (CI, fifteenth session): a gzip member with an invalid deflate symbol after some
// output. ISA-L returned the error with avail_in = 0xffffffff, the decoder consumed
// offer - avail_in (below zero), and the reader's position wrapped: the next look at the input
// overflowed a pointer (UBSan in CompressedReader::available(); a libstdc++ assertion in
// span::subspan where _GLIBCXX_ASSERTIONS is on). The input is corrupt either way.
TEST(FuzzRegressions, InputGzipInvalidSymbolKeepsTheReaderInsideItsInput) {
  const std::string data("\x09\x00\x1f\x8b\x08\x00\xea\x16\x05\x6b\x02\xff\xb3\x4b\xe7\x72\x74\x76\x0f\x01\x3e\x72"
                         "\x61\xa0\x72\x0b\x00\x5d\x7d\x82\xf8\x0f\x02\x00\x00", 35);
  EXPECT_NO_THROW(input(data));
}
