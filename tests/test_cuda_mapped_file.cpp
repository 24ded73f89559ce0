// The GPU fed from a large mapped file, as the CLI maps one (MAP_PRIVATE, read-only): exact
// and multi-pattern search over 300 MiB, more than one staging chunk and one pipeline slot
// each, with matches planted on every 64 MiB seam, a text that does not start on a page, and
// two scans of one mapping at once, all equal to the CPU backend's results. Skips without a GPU.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "cuda/runtime/devices.hpp"
#include "temp_dir_test.hpp"
#include "warpmatch/exact.hpp"
#include "warpmatch/multi.hpp"

namespace {

using warpmatch::Backend;
using warpmatch::ByteSpan;

class MappedFileOnGpu : public warpmatch_test::TempDirTest {
 protected:
  void SetUp() override {
    if (warpmatch::cuda::devices().empty()) GTEST_SKIP() << "no CUDA GPU: skipping GPU test";
    TempDirTest::SetUp();
    // 300 MiB + 123 of pseudo-random lowercase letters (never "z"), the needle across every
    // 64 MiB seam (at one of a few offsets either side) and at both ends.
    constexpr std::uint64_t kMiB = 1 << 20;
    std::string text(300 * kMiB + 123, 'a');
    std::uint64_t x = 88172645463325252ull;
    for (auto& c : text) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      c = static_cast<char>('a' + x % 25);  // 'a'..'y'
    }
    auto plant = [&](std::uint64_t at) {
      if (at + needle_.size() <= text.size()) std::memcpy(text.data() + at, needle_.data(), needle_.size());
    };
    plant(0);
    plant(text.size() - needle_.size());
    for (std::uint64_t seam = 64 * kMiB; seam < text.size(); seam += 64 * kMiB)
      plant(seam - 1 - static_cast<std::uint64_t>(seam / (64 * kMiB)) % 11);
    path_ = (dir_ / "big.txt").string();
    std::ofstream(path_, std::ios::binary).write(text.data(), static_cast<std::streamsize>(text.size()));
    fd_ = ::open(path_.c_str(), O_RDONLY);
    ASSERT_GE(fd_, 0);
    size_ = text.size();
    map_ = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_, 0);
    ASSERT_NE(map_, MAP_FAILED);
  }
  void TearDown() override {
    if (map_ && map_ != MAP_FAILED) ::munmap(map_, size_);
    if (fd_ >= 0) ::close(fd_);
    TempDirTest::TearDown();
  }
  ByteSpan mapped() const { return {static_cast<const std::uint8_t*>(map_), size_}; }

  const std::string needle_ = "zqzqneedlezq";
  std::string path_;
  int fd_ = -1;
  void* map_ = nullptr;
  std::size_t size_ = 0;
};

TEST_F(MappedFileOnGpu, ExactCountAndStartsEqualTheCpuOnAMappedFile) {
  const ByteSpan whole = mapped();
  const ByteSpan off_page = whole.subspan(4096 + 5);
  for (const ByteSpan text : {whole, off_page}) {
    warpmatch::ExactOptions o;
    o.backend = Backend::cuda;
    const auto gpu = warpmatch::ExactMatcher::compile(warpmatch::as_bytes(needle_), o);
    o.backend = Backend::cpu;
    const auto cpu = warpmatch::ExactMatcher::compile(warpmatch::as_bytes(needle_), o);
    const std::uint64_t expected = cpu.count(text);
    EXPECT_GE(expected, 4u);
    EXPECT_EQ(gpu.count(text), expected);
    EXPECT_EQ(gpu.find_all(text), cpu.find_all(text));
  }
}

TEST_F(MappedFileOnGpu, MultiCountAndMatchesEqualTheCpuOnAMappedFile) {
  const std::vector<std::string> patterns = {needle_, "needle", "zqzq", "abcde"};
  const ByteSpan text = mapped().subspan(77);
  warpmatch::MultiOptions o;
  o.backend = Backend::cuda;
  const auto gpu = warpmatch::MultiMatcher::compile(patterns, o);
  o.backend = Backend::cpu;
  const auto cpu = warpmatch::MultiMatcher::compile(patterns, o);
  EXPECT_EQ(gpu.count(text), cpu.count(text));
  EXPECT_EQ(gpu.find_all(text), cpu.find_all(text));
}

TEST_F(MappedFileOnGpu, TwoScansOfOneMappingAtOnceBothEqualTheCpu) {
  const ByteSpan text = mapped();
  warpmatch::ExactOptions o;
  o.backend = Backend::cpu;
  const std::uint64_t expected = warpmatch::ExactMatcher::compile(warpmatch::as_bytes(needle_), o).count(text);
  o.backend = Backend::cuda;
  const auto gpu = warpmatch::ExactMatcher::compile(warpmatch::as_bytes(needle_), o);
  std::uint64_t counts[2] = {0, 0};
  std::string other_error;
  std::thread other([&] {
    try {
      counts[1] = gpu.count(text);
    } catch (const std::exception& e) {
      other_error = e.what();
    }
  });
  counts[0] = gpu.count(text);
  other.join();
  EXPECT_EQ(other_error, "");
  EXPECT_EQ(counts[0], expected);
  EXPECT_EQ(counts[1], expected);
}

}  // namespace
