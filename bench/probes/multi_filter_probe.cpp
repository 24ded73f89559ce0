// The CPU multi-pattern scan filter's cost per start, by variant (twenty-fifth session): the
// 4-byte prefix bitmap test of src/cpu/multi_cpu.cpp (AVX2 gather of 32-bit words, bit
// shifts) against scalar loads and against a byte table gathered at byte addresses, one
// thread over a text file; prints each variant's GB/s and the starts that passed (equal for
// equal tables). Standalone: no library, the hash is core::prefix_hash4's.
//   g++ -O2 -std=c++20 -o multi_filter_probe bench/probes/multi_filter_probe.cpp
//   ./multi_filter_probe WORDS TEXT [rounds]
#include <immintrin.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <unistd.h>

#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace {

constexpr std::uint32_t kMul = 0x9E3779B1u;

inline std::uint32_t load32(const std::uint8_t* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

struct Tables {
  int bits = 18;                     // the bit table: 2^bits bits
  std::vector<std::uint32_t> bitmap;
  int byte_bits = 16;                // the byte table: 2^byte_bits bytes (+ 3 for dword loads)
  std::vector<std::uint8_t> bytes;
};

// --- variant 0: the library's (shuffle, multiply, gather of the word, shift to the sign bit)
__attribute__((target("avx2"))) std::uint32_t gather_bits_32(const std::uint8_t* t, const Tables& tb) {
  const __m256i multiplier = _mm256_set1_epi32(static_cast<int>(kMul));
  const __m256i low5 = _mm256_set1_epi32(31);
  const __m256i windows = _mm256_setr_epi8(0, 1, 2, 3, 1, 2, 3, 4, 2, 3, 4, 5, 3, 4, 5, 6,  //
                                           4, 5, 6, 7, 5, 6, 7, 8, 6, 7, 8, 9, 7, 8, 9, 10);
  const __m128i word_shift = _mm_cvtsi32_si128(32 - tb.bits + 5), bit_shift = _mm_cvtsi32_si128(32 - tb.bits);
  std::uint32_t mask = 0;
  for (int k = 0; k < 4; ++k) {
    const __m256i both = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(t + 8 * k)));
    const __m256i hash = _mm256_mullo_epi32(_mm256_shuffle_epi8(both, windows), multiplier);
    const __m256i words = _mm256_i32gather_epi32(reinterpret_cast<const int*>(tb.bitmap.data()), _mm256_srl_epi32(hash, word_shift), 4);
    const __m256i bit = _mm256_and_si256(_mm256_srl_epi32(hash, bit_shift), low5);
    const __m256i tested = _mm256_sllv_epi32(words, _mm256_sub_epi32(low5, bit));
    mask |= static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(tested))) << (8 * k);
  }
  return mask;
}

// --- variant 1: scalar, the same bit table
std::uint32_t scalar_bits_32(const std::uint8_t* t, const Tables& tb) {
  std::uint32_t mask = 0;
  const int shift = 32 - tb.bits;
  for (int j = 0; j < 32; ++j) {
    const std::uint32_t h = (load32(t + j) * kMul) >> shift;
    mask |= ((tb.bitmap[h >> 5] >> (h & 31)) & 1u) << j;
  }
  return mask;
}

// --- variant 2: scalar, a byte table (one load, no bit arithmetic)
std::uint32_t scalar_bytes_32(const std::uint8_t* t, const Tables& tb) {
  std::uint32_t mask = 0;
  const int shift = 32 - tb.byte_bits;
  const std::uint8_t* table = tb.bytes.data();
  for (int j = 0; j < 32; ++j) mask |= std::uint32_t{table[(load32(t + j) * kMul) >> shift]} << j;
  return mask;
}

// --- variant 3: AVX2 gather of dwords at byte addresses of the byte table (its low byte 0/0x80)
__attribute__((target("avx2"))) std::uint32_t gather_bytes_32(const std::uint8_t* t, const Tables& tb) {
  const __m256i multiplier = _mm256_set1_epi32(static_cast<int>(kMul));
  const __m256i windows = _mm256_setr_epi8(0, 1, 2, 3, 1, 2, 3, 4, 2, 3, 4, 5, 3, 4, 5, 6,  //
                                           4, 5, 6, 7, 5, 6, 7, 8, 6, 7, 8, 9, 7, 8, 9, 10);
  const __m128i shift = _mm_cvtsi32_si128(32 - tb.byte_bits);
  std::uint32_t mask = 0;
  for (int k = 0; k < 4; ++k) {
    const __m256i both = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(t + 8 * k)));
    const __m256i hash = _mm256_mullo_epi32(_mm256_shuffle_epi8(both, windows), multiplier);
    const __m256i got = _mm256_i32gather_epi32(reinterpret_cast<const int*>(tb.bytes.data()), _mm256_srl_epi32(hash, shift), 1);
    // the byte is 0x80 where set: move it to the lane's sign bit
    mask |= static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_slli_epi32(got, 24)))) << (8 * k);
  }
  return mask;
}

// --- variant 4: AVX-512, 16 lanes per gather, the bit table (128-bit lane L holds the 16
// bytes from start 4L, shuffled into starts 4L..4L+3's windows)
__attribute__((target("avx512f,avx512bw"))) std::uint32_t gather512_bits_32(const std::uint8_t* t, const Tables& tb) {
  const __m512i multiplier = _mm512_set1_epi32(static_cast<int>(kMul));
  const __m512i low5 = _mm512_set1_epi32(31);
  const __m512i windows = _mm512_broadcast_i32x4(_mm_setr_epi8(0, 1, 2, 3, 1, 2, 3, 4, 2, 3, 4, 5, 3, 4, 5, 6));
  const __m512i word_shift = _mm512_set1_epi32(32 - tb.bits + 5), bit_shift = _mm512_set1_epi32(32 - tb.bits);
  std::uint32_t mask = 0;
  for (int k = 0; k < 2; ++k) {
    const std::uint8_t* p = t + 16 * k;
    __m512i v = _mm512_castsi128_si512(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    v = _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 4)), 1);
    v = _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 8)), 2);
    v = _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 12)), 3);
    const __m512i hash = _mm512_mullo_epi32(_mm512_shuffle_epi8(v, windows), multiplier);
    const __m512i words = _mm512_i32gather_epi32(_mm512_srlv_epi32(hash, word_shift), tb.bitmap.data(), 4);
    const __m512i bit = _mm512_and_si512(_mm512_srlv_epi32(hash, bit_shift), low5);
    const __m512i tested = _mm512_srlv_epi32(words, bit);
    mask |= static_cast<std::uint32_t>(_mm512_test_epi32_mask(tested, _mm512_set1_epi32(1))) << (16 * k);
  }
  return mask;
}

template <class Test>
double run(const char* name, const std::uint8_t* t, std::size_t n, const Tables& tb, Test test, int rounds) {
  double best = 1e9;
  std::uint64_t passed = 0;
  for (int r = 0; r < rounds; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    std::uint64_t count = 0;
    for (std::size_t p = 0; p + 64 <= n; p += 32) count += std::popcount(test(t + p, tb));
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, s);
    passed = count;
  }
  std::printf("  %-34s %7.3f GB/s  (%.1f ms)  passed %llu (%.2f %%)\n", name, n / best / 1e9, best * 1e3,
              static_cast<unsigned long long>(passed), 100.0 * passed / n);
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s WORDS TEXT [rounds]\n", argv[0]);
    return 2;
  }
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 3;
  std::vector<std::string> words;
  std::ifstream in(argv[1]);
  for (std::string w; std::getline(in, w);)
    if (w.size() >= 4) words.push_back(w);
  const int fd = open(argv[2], O_RDONLY);
  const std::size_t n = static_cast<std::size_t>(lseek(fd, 0, SEEK_END));
  auto* t = static_cast<std::uint8_t*>(mmap(nullptr, n, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0));
  std::printf("%zu patterns of >= 4 bytes, %zu bytes of text\n", words.size(), n);
  for (const int bits : {18, 16}) {
    Tables tb;
    tb.bits = bits;
    tb.bitmap.assign((std::size_t{1} << bits) / 32, 0);
    tb.byte_bits = bits - 2;  // the same bytes of memory: 2^(bits-3) bytes of bits vs 2^(bits-2) bytes
    tb.bytes.assign((std::size_t{1} << tb.byte_bits) + 4, 0);
    for (const auto& w : words) {
      const std::uint32_t h = load32(reinterpret_cast<const std::uint8_t*>(w.data())) * kMul;
      const std::uint32_t b = h >> (32 - bits);
      tb.bitmap[b >> 5] |= 1u << (b & 31);
      tb.bytes[h >> (32 - tb.byte_bits)] = 0x80;
    }
    std::printf("bit table 2^%d bits (%zu KiB), byte table 2^%d bytes (%zu KiB):\n", bits, tb.bitmap.size() * 4 / 1024,
                tb.byte_bits, tb.bytes.size() / 1024);
    run("avx2 gather, bits (the library's)", t, n, tb, gather_bits_32, rounds);
    run("scalar, bits", t, n, tb, scalar_bits_32, rounds);
    run("scalar, bytes", t, n, tb, scalar_bytes_32, rounds);
    run("avx2 gather, bytes", t, n, tb, gather_bytes_32, rounds);
    if (__builtin_cpu_supports("avx512bw")) run("avx512 gather, bits", t, n, tb, gather512_bits_32, rounds);
  }
  return 0;
}
