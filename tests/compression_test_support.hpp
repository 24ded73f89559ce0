// Compressed test inputs written in memory with the libraries (no gzip/bgzip/zstd programs
// needed, so the tests run the same on the GPU machine): one gzip member, BGZF as bgzip
// writes it, one zstd frame.
#pragma once

#include <gtest/gtest.h>
#include <libdeflate.h>
#include <zlib.h>
#include <zstd.h>

#include <cstdint>
#include <string>

namespace warpmatch_test {

inline std::string gzip_member(const std::string& data, int level = 6) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&zs, data.size()) + 32, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// BGZF as bgzip writes it (SAM spec 4.1): blocks of at most `block` input bytes, each a gzip
// member with the 'BC' extra field, then the empty EOF block.
inline std::string bgzf(const std::string& data, std::size_t block = 65280) {
  libdeflate_compressor* c = libdeflate_alloc_compressor(6);
  std::string out;
  auto put_block = [&](const std::string& piece) {
    std::string deflated(libdeflate_deflate_compress_bound(c, piece.size()), '\0');
    const std::size_t n = libdeflate_deflate_compress(c, piece.data(), piece.size(), deflated.data(), deflated.size());
    EXPECT_GT(n, 0u);
    deflated.resize(n);
    const std::size_t bsize = 18 + n + 8 - 1;
    const unsigned char header[18] = {0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, 'B', 'C', 2, 0,
                                      static_cast<unsigned char>(bsize & 0xff),
                                      static_cast<unsigned char>(bsize >> 8)};
    out.append(reinterpret_cast<const char*>(header), 18);
    out += deflated;
    const std::uint32_t crc = static_cast<std::uint32_t>(
        ::crc32(0, reinterpret_cast<const Bytef*>(piece.data()), static_cast<uInt>(piece.size())));
    const std::uint32_t isize = static_cast<std::uint32_t>(piece.size());
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>(crc >> (8 * i)));
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>(isize >> (8 * i)));
  };
  for (std::size_t i = 0; i < data.size(); i += block) put_block(data.substr(i, block));
  put_block("");  // the EOF marker block
  libdeflate_free_compressor(c);
  return out;
}

inline std::string zstd_frame(const std::string& data) {
  std::string out(ZSTD_compressBound(data.size()), '\0');
  const std::size_t n = ZSTD_compress(out.data(), out.size(), data.data(), data.size(), 3);
  EXPECT_FALSE(ZSTD_isError(n));
  out.resize(n);
  return out;
}

}  // namespace warpmatch_test
