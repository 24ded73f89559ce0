// Parallel decoding of one gzip member (io/parallel_inflate.hpp), zlib the oracle: the marker
// decoder equals zlib's raw inflate for every block type and level; the block finder finds
// every real dynamic and stored block boundary, and a decode from there with window markers
// resolves to the true bytes; the member source with tiny chunks (many chunks, false guesses,
// back-references across chunks) equals the data, and through decompressing_source's gzip
// path it equals the sequential decoder for multi-member files, padding, garbage, all header
// flags, and truncated or corrupted data (the same output prefix, then an error).
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "io/decompress.hpp"
#include "io/parallel_inflate.hpp"

using namespace warpmatch;

namespace {

struct Deflated {
  int level = 6;
  int strategy = Z_DEFAULT_STRATEGY;
  std::size_t flush_every = 0;  // Z_SYNC_FLUSH every this many input bytes (pigz-style)
  std::string dictionary;
  int mem_level = 8;  // 1: blocks of 128 symbols, many block starts in a tiny chunk
  int flush = Z_SYNC_FLUSH;  // pigz's: references cross it (Z_FULL_FLUSH: they don't)
};

// Deflate of `data` through zlib: raw (window_bits -15) or gzip (31), with `header` if given.
std::string compress(const std::string& data, const Deflated& how, int window_bits, gz_header* header = nullptr) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, how.level, Z_DEFLATED, window_bits, how.mem_level, how.strategy), Z_OK);
  if (header) EXPECT_EQ(deflateSetHeader(&zs, header), Z_OK);
  if (!how.dictionary.empty())
    deflateSetDictionary(&zs, reinterpret_cast<const Bytef*>(how.dictionary.data()), static_cast<uInt>(how.dictionary.size()));
  std::string out(deflateBound(&zs, data.size()) + data.size() / 100 + 1024, '\0');
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  const std::size_t step = how.flush_every ? how.flush_every : std::max<std::size_t>(data.size(), 1);
  for (std::size_t at = 0;; at += step) {
    const std::size_t n = std::min(step, data.size() - std::min(at, data.size()));
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()) + std::min(at, data.size()));
    zs.avail_in = static_cast<uInt>(n);
    const bool last = at + step >= data.size();
    const int rc = deflate(&zs, last ? Z_FINISH : how.flush);
    EXPECT_TRUE(rc == Z_OK || rc == Z_STREAM_END);
    if (last) break;
  }
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

std::string random_bytes(std::mt19937_64& rng, std::size_t n) {
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

std::string english(std::mt19937_64& rng, std::size_t n) {
  static const char* words[] = {"the", "of", "and", "gzip", "member", "block", "window", "parallel", "inflate",
                                "Huffman", "code", "distance", "length", "literal", "stream", "chunk", "marker"};
  std::string s;
  while (s.size() < n) {
    s += words[rng() % std::size(words)];
    s += rng() % 11 == 0 ? ".\n" : " ";
  }
  s.resize(n);
  return s;
}

// FASTA: a repeated pool with mutations, so matches reach back up to the whole window.
std::string dna(std::mt19937_64& rng, std::size_t n) {
  std::string pool(20000, 'A');
  for (char& c : pool) c = "ACGT"[rng() % 4];
  std::string s = ">read\n";
  while (s.size() < n) {
    const std::size_t at = rng() % pool.size(), len = std::min<std::size_t>(pool.size() - at, 1 + rng() % 300);
    s.append(pool, at, len);
    if (rng() % 3 == 0) s.push_back("ACGTN\n"[rng() % 6]);
  }
  s.resize(n);
  return s;
}

// Text with incompressible runs, and deflate streams and stored-block look-alikes inside
// (candidates for false guesses of the block finder).
std::string mixed(std::mt19937_64& rng, std::size_t n) {
  std::string s;
  while (s.size() < n) {
    switch (rng() % 4) {
      case 0: s += random_bytes(rng, 1 + rng() % 5000); break;
      case 1: s += english(rng, 1 + rng() % 8000); break;
      case 2: s += compress(english(rng, 3000 + rng() % 30000), Deflated{}, -15); break;
      default: s += std::string("\0\0\xff\xff", 4) + english(rng, 100) + std::string("\x04\x00\x00\x00\xff\xff", 6); break;
    }
  }
  s.resize(n);
  return s;
}

ByteSpan bytes_of(const std::string& s) { return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()}; }

std::string bytes_from(const io::SymbolBuffer& b, std::size_t from, const std::string& window) {
  std::string s;
  for (std::size_t i = from; i < b.size(); ++i) {
    const std::uint16_t v = b.data()[i];
    if (v < 256) {
      s.push_back(static_cast<char>(v));
    } else {
      const std::size_t w = v - 256, missing = io::kDeflateWindow - window.size();
      EXPECT_GE(w, missing) << "a marker before the stream's start";
      s.push_back(w >= missing ? window[w - missing] : '?');
    }
  }
  return s;
}

struct Case {
  std::string name;
  std::string data;
  Deflated how;
};

std::vector<Case> cases() {
  std::mt19937_64 rng(7);
  std::vector<Case> all;
  const std::string text = english(rng, 300000), genome = dna(rng, 400000), noise = random_bytes(rng, 100000),
                    mix = mixed(rng, 400000);
  for (int level : {1, 6, 9}) {
    for (int mem_level : {1, 8}) {
      const std::string suffix = std::to_string(level) + "_mem" + std::to_string(mem_level);
      all.push_back({"text" + suffix, text, {level, Z_DEFAULT_STRATEGY, 0, "", mem_level}});
      all.push_back({"dna" + suffix, genome, {level, Z_DEFAULT_STRATEGY, 0, "", mem_level}});
      all.push_back({"mixed" + suffix, mix, {level, Z_DEFAULT_STRATEGY, 0, "", mem_level}});
    }
  }
  // A ratio of hundreds: chunks end at their output limit, rounds end early.
  std::string repeats;
  while (repeats.size() < 2000000) repeats += rng() % 50 ? "ACGTTGCA" : "N";
  all.push_back({"repeats", repeats, {6, Z_DEFAULT_STRATEGY, 0, "", 1}});
  all.push_back({"repeats_big_blocks", repeats, {9}});
  all.push_back({"random6", noise, {6}});
  all.push_back({"stored", mix, {0}});
  all.push_back({"stored_dna", genome, {0}});
  all.push_back({"fixed", text, {6, Z_FIXED}});
  all.push_back({"fixed_small_blocks", mix, {6, Z_FIXED, 0, "", 1}});
  all.push_back({"fixed_dna", genome, {9, Z_FIXED}});
  all.push_back({"huffman_only", genome, {6, Z_HUFFMAN_ONLY}});
  all.push_back({"rle", mix, {6, Z_RLE}});
  all.push_back({"sync_flushed", genome, {6, Z_DEFAULT_STRATEGY, 10000}});
  all.push_back({"sync_flushed_text", text, {9, Z_DEFAULT_STRATEGY, 3000}});
  // pigz --independent: a full flush forgets the window, no reference crosses it.
  all.push_back({"full_flushed", genome, {6, Z_DEFAULT_STRATEGY, 10000, "", 8, Z_FULL_FLUSH}});
  all.push_back({"empty", "", {6}});
  all.push_back({"one_byte", "x", {6}});
  return all;
}

// The sequential decoder's output and error (decompressing_source with one thread).
std::string decode_all(std::unique_ptr<io::ByteSource> src, std::string* error, std::size_t read_size = 1 << 16) {
  std::string out, buf(read_size, '\0');
  try {
    for (std::size_t n; (n = src->read(reinterpret_cast<std::uint8_t*>(buf.data()), buf.size())) > 0;) out.append(buf, 0, n);
  } catch (const io::InputError& e) {
    *error = e.what();
  }
  return out;
}

std::string sequential(const std::string& gz, std::string* error) {
  return decode_all(io::decompressing_source("t.gz", io::Compression::gzip, std::make_unique<io::MemorySource>(bytes_of(gz)), 1),
                    error);
}

std::string parallel(const std::string& gz, std::string* error, std::size_t chunk, int threads = 3,
                     std::size_t read_size = 1 << 16) {
  return decode_all(io::parallel_gzip_source("t.gz", std::make_unique<io::MemorySource>(bytes_of(gz)), threads, chunk, 0),
                    error, read_size);
}

}  // namespace

TEST(MarkerInflater, EqualsZlibForEveryBlockTypeAndLevel) {
  io::MarkerInflater inflater;
  for (const Case& c : cases()) {
    const std::string deflated = compress(c.data, c.how, -15);
    io::SymbolBuffer out;
    const io::InflateResult r = inflater.decode(bytes_of(deflated), {}, UINT64_MAX, out);
    ASSERT_EQ(r.status, io::InflateResult::Status::final_block) << c.name << " " << r.why;
    EXPECT_EQ((r.end.bit + 7) / 8, deflated.size()) << c.name;  // ends in the last byte
    EXPECT_TRUE(bytes_from(out, 0, "") == c.data) << c.name;
  }
}

TEST(MarkerInflater, TruncatedAndInvalidStreamsAreReportedNotThrown) {
  std::mt19937_64 rng(3);
  const std::string data = dna(rng, 100000);
  const std::string deflated = compress(data, {6}, -15);
  io::MarkerInflater inflater;
  for (std::size_t cut = 0; cut + 1 < deflated.size(); cut += 97) {
    io::SymbolBuffer out;
    const io::InflateResult r = inflater.decode(bytes_of(deflated.substr(0, cut)), {}, UINT64_MAX, out);
    EXPECT_TRUE(r.status == io::InflateResult::Status::truncated || r.status == io::InflateResult::Status::invalid) << cut;
    EXPECT_TRUE(bytes_from(out, 0, "") == data.substr(0, out.size())) << cut;
  }
  // A distance before the stream's start: invalid (a chunk's first decode has no window).
  const std::string referring = compress(data.substr(50000, 20000), {6, Z_DEFAULT_STRATEGY, 0, data.substr(0, 50000)}, -15);
  io::SymbolBuffer out;
  const io::InflateResult r = inflater.decode(bytes_of(referring), {}, UINT64_MAX, out);
  EXPECT_EQ(r.status, io::InflateResult::Status::invalid);
  EXPECT_STREQ(r.why, "invalid distance too far back");
}

TEST(BlockFinder, FindsEveryBoundaryAndMarkersResolveToTheData) {
  io::MarkerInflater inflater, finder;
  for (const Case& c : cases()) {
    if (c.data.size() < 1000 || c.how.strategy == Z_FIXED) continue;  // fixed blocks are not guessed
    const std::string deflated = compress(c.data, c.how, -15);
    const ByteSpan in = bytes_of(deflated);
    // Block by block: each boundary is found, and a decode from there with markers gives the
    // data once the 32 KiB before it replace them.
    io::SymbolBuffer all;
    io::BlockStart at{};
    int found = 0, blocks = 0;
    for (;;) {
      const io::InflateResult r = inflater.decode(in, at, at.bit + 1, all);
      if (r.status != io::InflateResult::Status::boundary) break;
      at = r.end;
      const std::uint8_t first = in[at.bit / 8] >> (at.bit % 8);  // the header's BFINAL and BTYPE
      if (!at.stored_body && ((first | in[at.bit / 8 + 1] << (8 - at.bit % 8)) & 7) != 4) continue;
      ++blocks;
      const io::BlockStart guess = finder.find_block(in, at.bit, at.bit + 1);
      if (guess != at) continue;
      ++found;
      io::SymbolBuffer spec;
      spec.append_window_markers();
      const io::InflateResult s = finder.decode(in, at, at.bit + 1, spec);  // the block
      ASSERT_NE(s.status, io::InflateResult::Status::invalid) << c.name;
      const std::size_t before = all.size();
      const std::string window = c.data.substr(before - std::min(before, io::kDeflateWindow), std::min(before, io::kDeflateWindow));
      ASSERT_TRUE(bytes_from(spec, io::kDeflateWindow, window) == c.data.substr(before, spec.size() - io::kDeflateWindow))
          << c.name << " at bit " << at.bit;
    }
    EXPECT_EQ(found, blocks) << c.name;
    if (c.how.level == 0 || c.how.flush_every) EXPECT_GT(blocks, 2) << c.name;
  }
}

TEST(ParallelGzip, TinyChunksEqualTheData) {
  for (const Case& c : cases()) {
    const std::string gz = compress(c.data, c.how, 31);
    for (std::size_t chunk : {std::size_t{1024}, std::size_t{4096}, std::size_t{65536}}) {
      std::string error;
      const std::string out = parallel(gz, &error, chunk, 3, chunk % 7 + 1000);
      EXPECT_EQ(error, "") << c.name << " chunk " << chunk;
      EXPECT_TRUE(out == c.data) << c.name << " chunk " << chunk << ": " << out.size() << " of " << c.data.size();
    }
  }
}

TEST(ParallelGzip, MembersPaddingGarbageAndHeaderFlagsAsTheSequentialDecoder) {
  std::mt19937_64 rng(11);
  const std::string a = dna(rng, 200000), b = english(rng, 150000);
  gz_header header{};
  std::string extra = "ab\x04\x00wxyz", fname = "reads.fa", comment = "a comment";
  header.extra = reinterpret_cast<Bytef*>(extra.data());
  header.extra_len = static_cast<uInt>(extra.size());
  header.name = reinterpret_cast<Bytef*>(fname.data());
  header.comment = reinterpret_cast<Bytef*>(comment.data());
  header.hcrc = 1;
  const std::string flagged = compress(a, {6}, 31, &header);
  const std::string plain_a = compress(a, {6}, 31), plain_b = compress(b, {9}, 31), empty = compress("", {6}, 31);
  const std::vector<std::string> files = {
      flagged,
      plain_a + plain_b,
      plain_a + empty + plain_b + compress("x", {1}, 31),
      plain_a + std::string(1000, '\0'),
      plain_a + std::string(3, '\0') + "junk",
      plain_a + "x",
      plain_a + plain_b.substr(0, 1),
      empty,
      flagged.substr(0, 12),  // inside the header
  };
  // Each header flag alone, and the flagged member cut inside its header: the same bytes and
  // the same message as the sequential decoder's.
  std::vector<std::string> more = files;
  for (const int flag : {2, 4, 8, 16}) {
    gz_header one{};
    one.extra = flag == 4 ? header.extra : nullptr;
    one.extra_len = flag == 4 ? header.extra_len : 0;
    one.name = flag == 8 ? header.name : nullptr;
    one.comment = flag == 16 ? header.comment : nullptr;
    one.hcrc = flag == 2;
    more.push_back(compress(b, {6}, 31, &one));
  }
  for (std::size_t cut = 2; cut < 40; ++cut) more.push_back(flagged.substr(0, cut));
  for (std::size_t i = 0; i < more.size(); ++i) {
    std::string want_error, got_error;
    const std::string want = sequential(more[i], &want_error);
    const std::string got = parallel(more[i], &got_error, 2048);
    EXPECT_TRUE(got == want) << "file " << i;
    if (i >= files.size()) EXPECT_EQ(got_error, want_error) << "file " << i;
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    std::string want_error, got_error;
    const std::string want = sequential(files[i], &want_error);
    const std::string got = parallel(files[i], &got_error, 2048);
    EXPECT_TRUE(got == want) << "file " << i << ": " << got.size() << " against " << want.size();
    EXPECT_EQ(got_error.empty(), want_error.empty()) << "file " << i << ": " << got_error << " / " << want_error;
    if (!want_error.empty() && want_error.find("garbage") != std::string::npos) EXPECT_EQ(got_error, want_error);
  }
}

TEST(ParallelGzip, CorruptAndTruncatedDataGiveTheSequentialPrefixThenAnError) {
  std::mt19937_64 rng(5);
  const std::string data = dna(rng, 150000) + english(rng, 100000);
  const std::string gz = compress(data, {6, Z_DEFAULT_STRATEGY, 0, "", 2}, 31);
  for (std::size_t cut = 1; cut < gz.size(); cut += gz.size() / 40) {
    std::string error, want_error;
    const std::string out = parallel(gz.substr(0, cut), &error, 2048);
    EXPECT_NE(error.find("t.gz: corrupt gzip data at compressed byte offset"), std::string::npos) << cut << " " << error;
    EXPECT_TRUE(out == data.substr(0, out.size())) << cut;
    sequential(gz.substr(0, cut), &want_error);
    EXPECT_EQ(error, want_error) << cut;
  }
  for (std::size_t at = 10; at < gz.size(); at += 1 + gz.size() / 150) {
    std::string bad = gz;
    bad[at] = static_cast<char>(bad[at] ^ (1 << (at % 8)));
    std::string want_error, got_error;
    const std::string want = sequential(bad, &want_error);
    const std::string got = parallel(bad, &got_error, 1024);
    EXPECT_FALSE(got_error.empty()) << "flip at " << at;
    EXPECT_EQ(want_error.empty(), got_error.empty()) << "flip at " << at << ": " << want_error;
    const std::size_t common = std::min(want.size(), got.size());
    EXPECT_TRUE(want.compare(0, common, got, 0, common) == 0) << "flip at " << at;
  }
  // After an error, reading again gives the error again, never bytes twice.
  {
    std::string bad = gz;
    bad.resize(bad.size() - 3);
    auto src = io::parallel_gzip_source("t.gz", std::make_unique<io::MemorySource>(bytes_of(bad)), 3, 4096, 0);
    std::string error;
    EXPECT_TRUE(decode_all(std::move(src), &error) == data);
    src = io::parallel_gzip_source("t.gz", std::make_unique<io::MemorySource>(bytes_of(bad)), 3, 4096, 0);
    std::string buf(1 << 20, '\0');
    std::size_t total = 0;
    int errors = 0;
    for (int i = 0; i < 200 && errors < 3; ++i) {
      try {
        total += src->read(reinterpret_cast<std::uint8_t*>(buf.data()), buf.size());
      } catch (const io::InputError&) {
        ++errors;
      }
    }
    EXPECT_EQ(errors, 3);
    EXPECT_EQ(total, data.size());
  }
  // A wrong CRC-32 or ISIZE: all bytes, then the mismatch.
  for (std::size_t from_end : {8, 4}) {
    std::string bad = gz;
    bad[bad.size() - from_end] ^= 1;
    std::string error, want_error;
    EXPECT_TRUE(parallel(bad, &error, 4096) == data);
    EXPECT_NE(error.find("checksum mismatch"), std::string::npos) << error;
    // The sequential decoder too hands on every byte before the mismatch, and names the same offset.
    EXPECT_TRUE(sequential(bad, &want_error) == data);
    EXPECT_EQ(error, want_error);
  }
}

// Random corruption (1-3 flipped bits, sometimes cut) of members of DNA and English, random
// chunk sizes: the same bytes as the sequential decoder up to the first error of either, and
// an error exactly when it has one. It found guessed chunks kept in a member's first 32 KiB
// whose markers named bytes before the member's start (a corrupt distance too far back): they
// were resolved as zeros and the member ended in a CRC mismatch, bytes after the damage
// delivered; now nothing is guessed until 32 KiB of the member are known.
TEST(ParallelGzip, RandomCorruptionAgreesWithTheSequentialDecoder) {
  std::mt19937_64 rng(77);
  for (int file = 0; file < 2; ++file) {
    const std::string data = dna(rng, 60000) + english(rng, 40000);
    const std::string gz = compress(data, {file == 1 ? 1 : 6, Z_DEFAULT_STRATEGY, 0, "", 2}, 31);
    for (int t = 0; t < 300; ++t) {
      std::string bad = gz;
      for (int f = 1 + static_cast<int>(rng() % 3); f > 0; --f) {
        const std::size_t at = 10 + rng() % (gz.size() - 10);
        bad[at] = static_cast<char>(bad[at] ^ (1 << (rng() % 8)));
      }
      if (rng() % 4 == 0) bad.resize(10 + rng() % (bad.size() - 10));
      std::string want_error, got_error;
      const std::string want = sequential(bad, &want_error);
      const std::string got = parallel(bad, &got_error, 512 + rng() % 4096);
      ASSERT_EQ(want_error.empty(), got_error.empty()) << t << ": " << want_error << " / " << got_error;
      const std::size_t common = std::min(want.size(), got.size());
      ASSERT_TRUE(want.compare(0, common, got, 0, common) == 0) << t;
      if (want_error.empty()) ASSERT_TRUE(want == got) << t;
    }
  }
}

TEST(ParallelGzip, LargeMemberThroughDecompressingSource) {
  // Above kParallelGzipMin, 4 threads: the parallel path with default chunks, equal to the data.
  std::mt19937_64 rng(9);
  const std::string data = dna(rng, 40u << 20);
  const std::string gz = compress(data, {6}, 31);
  ASSERT_GE(gz.size(), io::kParallelGzipMin);
  std::string error;
  const std::string out = decode_all(
      io::decompressing_source("t.gz", io::Compression::gzip, std::make_unique<io::MemorySource>(bytes_of(gz)), 4), &error);
  EXPECT_EQ(error, "");
  EXPECT_TRUE(out == data);
}
