#include "bench/e2e_data.hpp"

#include <fcntl.h>
#include <libdeflate.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <span>
#include <stdexcept>
#include <unordered_set>

#include <fmt/format.h>

#include "bench/bench_support.hpp"
#include "core/parallel.hpp"

namespace warpmatch::bench::e2e {

using support::lower_ascii;
using support::SplitMix64;
using support::trim;
using Clock = std::chrono::steady_clock;

[[noreturn]] void fail_io(const std::string& what, const fs::path& p) {
  throw std::runtime_error(fmt::format("{} {}: {}", what, p.string(), std::strerror(errno)));
}

namespace {

}  // namespace

/// The word list's plain ASCII words (no possessives, no accents, none containing the rare
/// word in any case), shuffled by a fixed seed; built-in pseudo-words when unreadable.
Vocabulary load_vocabulary(const std::string& path) {
  Vocabulary v;
  std::unordered_set<std::string> seen;
  for (auto w : kCommonEnglish)
    if (seen.insert(std::string(w)).second) v.words.emplace_back(w);
  v.common = v.words.size();
  const std::string rare = lower_ascii(kWord);
  std::vector<std::string> rest;
  if (!path.empty()) {
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
      line = trim(line);
      const bool letters = !line.empty() && line.size() <= 32 &&
                           std::all_of(line.begin(), line.end(), [](char c) {
                             return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
                           });
      if (letters && lower_ascii(line).find(rare) == std::string::npos && seen.insert(line).second)
        rest.push_back(line);
    }
  }
  v.source = path;
  if (rest.size() < 10 * kListWords) {
    if (!path.empty())
      fmt::print("  note: word list '{}' unreadable or small ({} words): built-in pseudo-words\n", path,
                 rest.size());
    rest = support::pseudo_words(60000, kSeed ^ 0x1234, kWord, 5);
    v.source = "built-in pseudo-words";
  }
  SplitMix64 rng{kSeed ^ 0x5151};
  for (std::size_t i = rest.size(); i > 1; --i) std::swap(rest[i - 1], rest[rng.below(i)]);
  std::vector<std::string> longer;
  for (const auto& w : rest)
    if (w.size() >= kMinListWordLength) longer.push_back(w);
  for (std::size_t i = 0; i < kListWords && !longer.empty(); ++i)
    v.list_words.push_back(longer[i * longer.size() / kListWords]);
  for (auto& w : rest) v.words.push_back(std::move(w));
  return v;
}


namespace {

/// Fills out[0, len) with sentences of Zipf-drawn words (exponent 1, inverse-CDF of the
/// continuous law), lines of at most kLineWidth bytes, the last byte '\n'. The rare word
/// replaces the next word once the write position passes each of `plants` (chunk offsets),
/// never twice on one line. Returns {lines, planted}.
std::pair<std::uint64_t, std::uint64_t> fill_text(char* out, std::size_t len, std::uint64_t chunk,
                                                  const Vocabulary& v,
                                                  std::span<const std::uint64_t> plants) {
  SplitMix64 rng{kSeed + 0x632be59bd9b4e019ull * (chunk + 1)};
  const double log_n = std::log(static_cast<double>(v.words.size()) + 1.0);
  char* p = out;
  char* const end = out + len;
  std::uint64_t lines = 0, planted = 0;
  std::size_t line_len = 0, next_plant = 0;
  bool line_has_plant = false, sentence_start = true;
  std::uint64_t words_left = 4 + rng.below(21);
  for (;;) {
    const bool plant = next_plant < plants.size() && static_cast<std::uint64_t>(p - out) >= plants[next_plant] &&
                       !line_has_plant;
    std::string_view w = kWord;
    if (!plant) {
      const auto rank = static_cast<std::size_t>(std::exp(rng.unit() * log_n)) - 1;
      w = v.words[std::min(rank, v.words.size() - 1)];
    }
    if (static_cast<std::size_t>(end - p) < w.size() + 4) break;  // ' ', word, '.', '\n'
    if (line_len > 0) {
      if (line_len + 1 + w.size() + 1 > kLineWidth) {
        *p++ = '\n';
        ++lines;
        line_len = 0;
        line_has_plant = false;
      } else {
        *p++ = ' ';
        ++line_len;
      }
    }
    std::memcpy(p, w.data(), w.size());
    if (sentence_start && *p >= 'a' && *p <= 'z') *p = static_cast<char>(*p - 32);
    if (plant) ++next_plant, ++planted, line_has_plant = true;
    p += w.size();
    line_len += w.size();
    sentence_start = false;
    if (--words_left == 0) {
      *p++ = '.';
      ++line_len;
      sentence_start = true;
      words_left = 4 + rng.below(21);
    } else if (rng.below(100) < 7) {
      *p++ = ',';
      ++line_len;
    }
  }
  while (p < end - 1) *p++ = ' ';
  *p = '\n';
  return {lines + 1, planted};
}

}  // namespace

TextInfo write_text(const fs::path& path, std::uint64_t bytes, const Vocabulary& v, int threads) {
  const auto t0 = Clock::now();
  TextInfo t;
  t.path = path;
  t.bytes = bytes;
  const std::uint64_t chunks = std::max<std::uint64_t>(1, bytes / kTextChunk);  // last one: < 2x
  auto begin = [&](std::uint64_t c) { return c * kTextChunk; };
  auto length = [&](std::uint64_t c) { return c + 1 == chunks ? bytes - begin(c) : kTextChunk; };
  std::vector<std::vector<std::uint64_t>> plants(chunks);
  const std::uint64_t n_plants = std::min<std::uint64_t>(kPlants, bytes / 1024);
  for (std::uint64_t i = 0; i < n_plants; ++i) {  // evenly spaced, far apart
    const std::uint64_t pos = (2 * i + 1) * bytes / (2 * n_plants);
    const std::uint64_t c = std::min(pos / kTextChunk, chunks - 1);
    plants[c].push_back(std::min(pos - begin(c), length(c) - 256));
  }
  OutFile out(path);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> tally(chunks);
  core::parallel_for(chunks, threads, [&](std::size_t c) {
    std::vector<char> buf(length(c));
    tally[c] = fill_text(buf.data(), buf.size(), c, v, plants[c]);
    out.pwrite_all(buf.data(), buf.size(), begin(c));
  });
  for (auto [lines, planted] : tally) t.lines += lines, t.planted += planted;
  t.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return t;
}


/// Random ACGT records of equal length, kFastaColumns bases per line, ~`bytes` in all; one
/// record per task. The k-mer is counted as the bases are drawn.
FastaInfo write_fasta(const fs::path& path, std::uint64_t bytes, int threads) {
  const auto t0 = Clock::now();
  FastaInfo f;
  f.path = path;
  f.records = static_cast<std::uint64_t>(std::clamp<std::uint64_t>(bytes >> 20, 1, kMaxRecords));
  const std::uint64_t per_record = bytes / f.records;
  const std::uint64_t bases_per_record = (per_record - 32) * kFastaColumns / (kFastaColumns + 1);
  std::vector<std::string> headers;
  std::vector<std::uint64_t> offsets;
  std::uint64_t offset = 0;
  for (std::uint64_t r = 0; r < f.records; ++r) {
    headers.push_back(fmt::format(">seq{:02d} random ACGT, {} bp\n", r + 1, bases_per_record));
    offsets.push_back(offset);
    offset += headers.back().size() + bases_per_record + (bases_per_record + kFastaColumns - 1) / kFastaColumns;
  }
  f.bytes = offset;
  f.bases = bases_per_record * f.records;
  std::uint32_t target = 0;  // 2 bits per base: A 0, C 1, G 2, T 3
  for (char c : kKmer) target = (target << 2) | static_cast<std::uint32_t>(std::string_view("ACGT").find(c));
  const std::uint32_t mask = (1u << (2 * kKmer.size())) - 1;

  OutFile out(path);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> tally(f.records);
  core::parallel_for(f.records, threads, [&](std::size_t r) {
    SplitMix64 rng{kSeed ^ (0xfa57aull + r * 0x9e3779b97f4a7c15ull)};
    constexpr std::size_t kLinesPerWrite = 65536;
    std::string buf;
    buf.reserve(kLinesPerWrite * (kFastaColumns + 1));
    std::uint64_t pos = offsets[r];
    out.pwrite_all(headers[r].data(), headers[r].size(), pos);
    pos += headers[r].size();
    std::uint32_t code = 0;
    std::uint64_t seen = 0, occ = 0, lines_with = 0, random = 0;
    int random_left = 0;
    for (std::uint64_t done = 0; done < bases_per_record;) {
      buf.clear();
      for (std::size_t l = 0; l < kLinesPerWrite && done < bases_per_record; ++l) {
        const int n = static_cast<int>(std::min<std::uint64_t>(kFastaColumns, bases_per_record - done));
        bool line_has = false;
        for (int col = 0; col < n; ++col) {
          if (random_left == 0) random = rng.next(), random_left = 32;
          const auto b = static_cast<std::uint32_t>(random & 3);
          random >>= 2, --random_left;
          buf += "ACGT"[b];
          code = ((code << 2) | b) & mask;
          if (++seen >= kKmer.size() && code == target) {
            ++occ;
            line_has |= col + 1 >= static_cast<int>(kKmer.size());
          }
        }
        buf += '\n';
        lines_with += line_has;
        done += static_cast<std::uint64_t>(n);
      }
      out.pwrite_all(buf.data(), buf.size(), pos);
      pos += buf.size();
    }
    tally[r] = {occ, lines_with};
  });
  for (auto [occ, lines] : tally) f.occurrences += occ, f.lines_with += lines;
  f.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return f;
}


TreeInfo write_tree(const fs::path& dir, std::uint64_t bytes, std::uint64_t files, const Vocabulary& v, int threads) {
  const auto t0 = Clock::now();
  const fs::path source = dir.string() + ".txt";
  const TextInfo text = write_text(source, bytes, v, threads);
  TreeInfo t;
  t.dir = dir;
  t.planted = text.planted;
  {
    const Mapped m(source);
    const std::uint64_t mean = std::max<std::uint64_t>(1, m.size() / std::max<std::uint64_t>(1, files));
    SplitMix64 rng{kSeed ^ 0x74726565ull};  // "tree"
    std::uint64_t at = 0;
    for (std::uint64_t i = 0; i < files && at < m.size(); ++i) {
      // d/dd/fff.txt: kTreeFanout files a directory, kTreeFanout directories a parent.
      const std::uint64_t leaf = i / kTreeFanout;
      const fs::path sub = dir / fmt::format("d{:03}", leaf / kTreeFanout) / fmt::format("d{:02}", leaf % kTreeFanout);
      if (i % kTreeFanout == 0) {
        fs::create_directories(sub);
        ++t.directories;
      }
      std::uint64_t end = m.size();
      if (i + 1 < files) {
        const std::uint64_t size = mean / 4 + rng.next() % (mean * 3 / 2 + 1);
        end = std::min<std::uint64_t>(m.size(), at + std::max<std::uint64_t>(1, size));
        while (end < m.size() && m.data()[end - 1] != '\n') ++end;  // whole lines: a planted word stays whole
      }
      OutFile out(sub / fmt::format("f{:02}.txt", i % kTreeFanout));
      out.append(m.data() + at, end - at);
      t.bytes += end - at;
      ++t.files;
      at = end;
    }
  }
  fs::remove(source);
  t.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return t;
}

ReadsInfo write_reads(const fs::path& path, std::uint64_t count, int threads) {
  const auto t0 = Clock::now();
  constexpr std::uint64_t kChunk = 65536;  // reads per task
  constexpr std::size_t kRecordBytes = 1 + 10 + 1 + kReadLength + 1 + 2 + kReadLength + 1;
  ReadsInfo f;
  f.path = path;
  f.reads = count;
  f.bytes = count * kRecordBytes;
  std::uint32_t target = 0;
  for (char c : kKmer) target = (target << 2) | static_cast<std::uint32_t>(std::string_view("ACGT").find(c));
  const std::uint32_t mask = (1u << (2 * kKmer.size())) - 1;
  const std::string quality(kReadLength, 'I');
  OutFile out(path);
  const std::uint64_t chunks = (count + kChunk - 1) / kChunk;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> tally(chunks);
  core::parallel_for(chunks, threads, [&](std::size_t c) {
    SplitMix64 rng{kSeed ^ (0x4eadull + c * 0x9e3779b97f4a7c15ull)};
    std::string buf;
    buf.reserve(kChunk * kRecordBytes);
    std::uint64_t occ = 0, lines_with = 0;
    for (std::uint64_t r = c * kChunk; r < std::min(count, (c + 1) * kChunk); ++r) {
      buf += fmt::format("@r{:09d}\n", r + 1);
      std::uint32_t code = 0;
      std::uint64_t random = 0, here = 0;
      for (int i = 0; i < kReadLength; ++i) {
        if (i % 32 == 0) random = rng.next();
        const auto b = static_cast<std::uint32_t>(random & 3);
        random >>= 2;
        buf += "ACGT"[b];
        code = ((code << 2) | b) & mask;
        here += i + 1 >= static_cast<int>(kKmer.size()) && code == target;
      }
      buf += "\n+\n";
      buf += quality;
      buf += '\n';
      occ += here;
      lines_with += here > 0;
    }
    out.pwrite_all(buf.data(), buf.size(), c * kChunk * kRecordBytes);
    tally[c] = {occ, lines_with};
  });
  for (auto [occ, lines] : tally) f.occurrences += occ, f.lines_with += lines;
  f.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return f;
}


namespace {
void put_le32(std::uint8_t* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
}  // namespace

std::uint64_t write_kmers(const fs::path& path, const Mapped& fasta, std::uint64_t count, int length,
                          std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  OutFile out(path);
  std::uint64_t cut = 0;
  const auto k = static_cast<std::size_t>(length);
  for (std::uint64_t i = 0; i < count; ++i) {
    std::string kmer;
    if (i % 2 == 0 && fasta.size() > 2 * k) {
      // A window of the file holding bases only (no line break, no header): it occurs.
      for (int tries = 0; tries < 64 && kmer.empty(); ++tries) {
        const std::size_t at = rng() % (fasta.size() - k);
        const auto* p = fasta.data() + at;
        if (std::all_of(p, p + k, [](std::uint8_t c) { return c == 'A' || c == 'C' || c == 'G' || c == 'T'; }))
          kmer.assign(reinterpret_cast<const char*>(p), k);
      }
      cut += !kmer.empty();
    }
    while (kmer.size() < k) kmer += "ACGT"[rng() & 3];
    out.append(kmer + "\n");
  }
  return cut;
}

/// One gzip member, like `gzip -6` writes but in parallel (as pigz): the input in kGzipChunk
/// parts, each deflated by zlib on its own, primed with the 32 KiB before it as pigz does (so
/// back-references cross the parts as in a serial gzip's output: a decoder cannot treat the
/// parts as independent), ended with a sync flush (the last one with the final block), the
/// CRC-32s combined.
Compressed write_gzip(const Mapped& in, const fs::path& path, int threads) {
  const auto t0 = Clock::now();
  OutFile out(path);
  const std::uint8_t header[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
  out.append(header, sizeof header);
  const std::uint64_t parts = std::max<std::uint64_t>(1, (in.size() + kGzipChunk - 1) / kGzipChunk);
  const std::uint64_t window = static_cast<std::uint64_t>(std::max(1, threads)) * 4;
  uLong crc = ::crc32(0, nullptr, 0);
  for (std::uint64_t first = 0; first < parts; first += window) {
    const std::uint64_t n = std::min(window, parts - first);
    std::vector<std::vector<std::uint8_t>> deflated(n);
    std::vector<uLong> crcs(n);
    core::parallel_for(n, threads, [&](std::size_t i) {
      const std::uint64_t part = first + i, begin = part * kGzipChunk;
      const std::size_t len = static_cast<std::size_t>(std::min<std::uint64_t>(kGzipChunk, in.size() - begin));
      const bool last = part + 1 == parts;
      z_stream z{};
      if (deflateInit2(&z, kGzipLevel, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw std::runtime_error("zlib deflateInit2 failed");
      if (begin > 0) {
        const std::size_t dict = static_cast<std::size_t>(std::min<std::uint64_t>(begin, 32768));
        if (deflateSetDictionary(&z, in.data() + begin - dict, static_cast<uInt>(dict)) != Z_OK)
          throw std::runtime_error("zlib deflateSetDictionary failed");
      }
      auto& buf = deflated[i];
      buf.resize(deflateBound(&z, len) + 64);
      z.next_in = const_cast<Bytef*>(in.data() + begin);
      z.avail_in = static_cast<uInt>(len);
      z.next_out = buf.data();
      z.avail_out = static_cast<uInt>(buf.size());
      const int rc = deflate(&z, last ? Z_FINISH : Z_SYNC_FLUSH);
      const bool done = last ? rc == Z_STREAM_END : (rc == Z_OK && z.avail_in == 0 && z.avail_out > 0);
      buf.resize(z.total_out);
      deflateEnd(&z);
      if (!done) throw std::runtime_error("zlib deflate did not finish a part in one call");
      crcs[i] = ::crc32(0, in.data() + begin, static_cast<uInt>(len));
    });
    for (std::uint64_t i = 0; i < n; ++i) {
      out.append(deflated[i].data(), deflated[i].size());
      const std::uint64_t begin = (first + i) * kGzipChunk;
      crc = ::crc32_combine(crc, crcs[i], static_cast<z_off_t>(std::min<std::uint64_t>(kGzipChunk, in.size() - begin)));
    }
  }
  std::uint8_t trailer[8];
  put_le32(trailer, static_cast<std::uint32_t>(crc));
  put_le32(trailer + 4, static_cast<std::uint32_t>(in.size()));
  out.append(trailer, sizeof trailer);
  return {"gzip", path, out.size(),
          fmt::format("one gzip member, zlib level {}, deflated in {} parallel parts primed with the 32 KiB before each (as pigz)", kGzipLevel, parts),
          std::chrono::duration<double>(Clock::now() - t0).count()};
}

/// BGZF (SAM specification 4.1): independent gzip members of at most 64 KiB with the 'BC'
/// extra field giving the block size, libdeflate level 6, blocks compressed in parallel, then
/// the 28-byte end-of-file block.
Compressed write_bgzf(const Mapped& in, const fs::path& path, int threads) {
  const auto t0 = Clock::now();
  OutFile out(path);
  const std::uint64_t blocks = (in.size() + kBgzfBlockInput - 1) / kBgzfBlockInput;
  constexpr std::uint64_t kBlocksPerTask = 256;
  const std::uint64_t tasks = (blocks + kBlocksPerTask - 1) / kBlocksPerTask;
  const std::uint64_t window = static_cast<std::uint64_t>(std::max(1, threads)) * 2;
  for (std::uint64_t first = 0; first < tasks; first += window) {
    const std::uint64_t n = std::min(window, tasks - first);
    std::vector<std::vector<std::uint8_t>> packed(n);
    core::parallel_for(n, threads, [&](std::size_t i) {
      libdeflate_compressor* c = libdeflate_alloc_compressor(kBgzfLevel);
      libdeflate_compressor* stored = libdeflate_alloc_compressor(0);
      if (!c || !stored) throw std::runtime_error("libdeflate_alloc_compressor failed");
      auto& buf = packed[i];
      const std::uint64_t b0 = (first + i) * kBlocksPerTask, b1 = std::min(blocks, b0 + kBlocksPerTask);
      for (std::uint64_t b = b0; b < b1; ++b) {
        const std::uint8_t* src = in.data() + b * kBgzfBlockInput;
        const std::size_t len = static_cast<std::size_t>(std::min<std::uint64_t>(kBgzfBlockInput, in.size() - b * kBgzfBlockInput));
        const std::size_t at = buf.size();
        buf.resize(at + 65536);
        std::uint8_t* blk = buf.data() + at;
        const std::uint8_t head[18] = {0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, 'B', 'C', 2, 0, 0, 0};
        std::memcpy(blk, head, sizeof head);
        std::size_t clen = libdeflate_deflate_compress(c, src, len, blk + 18, 65536 - 26);
        if (clen == 0) clen = libdeflate_deflate_compress(stored, src, len, blk + 18, 65536 - 26);
        if (clen == 0) throw std::runtime_error("BGZF block does not fit in 64 KiB");
        const std::size_t total = 18 + clen + 8;
        blk[16] = static_cast<std::uint8_t>((total - 1) & 0xff);
        blk[17] = static_cast<std::uint8_t>((total - 1) >> 8);
        put_le32(blk + 18 + clen, libdeflate_crc32(0, src, len));
        put_le32(blk + 22 + clen, static_cast<std::uint32_t>(len));
        buf.resize(at + total);
      }
      libdeflate_free_compressor(c);
      libdeflate_free_compressor(stored);
    });
    for (const auto& p : packed) out.append(p.data(), p.size());
  }
  const std::uint8_t eof[28] = {0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, 0x42, 0x43,
                                2,    0,    0x1b, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  out.append(eof, sizeof eof);
  return {"bgzf", path, out.size(),
          fmt::format("BGZF, {} blocks of <= {} bytes, libdeflate level {}, EOF block", blocks,
                      kBgzfBlockInput, kBgzfLevel),
          std::chrono::duration<double>(Clock::now() - t0).count()};
}

/// One zstd frame, level 3, libzstd's own worker threads.
Compressed write_zstd(const Mapped& in, const fs::path& path, int threads) {
  const auto t0 = Clock::now();
  OutFile out(path);
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  if (!cctx) throw std::runtime_error("ZSTD_createCCtx failed");
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, kZstdLevel);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  const bool mt = !ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_nbWorkers, std::max(1, threads)));
  std::vector<std::uint8_t> buf(ZSTD_CStreamOutSize() * 16);
  ZSTD_inBuffer src{in.data(), in.size(), 0};
  for (;;) {
    ZSTD_outBuffer dst{buf.data(), buf.size(), 0};
    const std::size_t left = ZSTD_compressStream2(cctx, &dst, &src, ZSTD_e_end);
    if (ZSTD_isError(left)) {
      ZSTD_freeCCtx(cctx);
      throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(left));
    }
    out.append(buf.data(), dst.pos);
    if (left == 0) break;
  }
  ZSTD_freeCCtx(cctx);
  return {"zstd", path, out.size(),
          fmt::format("one zstd frame, level {}, {}", kZstdLevel,
                      mt ? fmt::format("{} worker threads", std::max(1, threads)) : std::string("single-threaded libzstd")),
          std::chrono::duration<double>(Clock::now() - t0).count()};
}


/// The first `n` pairs of the cross product A x B of random ACGT strings of 100-300 bytes,
/// |A| = ceil(sqrt(n)), |B| = ceil(n / |A|) (n = 100,172: 317 x 316, StringZilla's workload);
/// one `A TAB B` line per pair.
PairsInfo write_pairs(const fs::path& path, std::uint64_t n) {
  PairsInfo p;
  p.path = path;
  p.pairs = n;
  p.a_strings = static_cast<std::uint64_t>(std::ceil(std::sqrt(static_cast<double>(n))));
  p.b_strings = (n + p.a_strings - 1) / p.a_strings;
  SplitMix64 rng{kSeed ^ 0xd157};
  auto random_string = [&] {
    std::string s(kPairMinLength + rng.below(kPairMaxLength - kPairMinLength + 1), 'A');
    for (char& c : s) c = "ACGT"[rng.below(4)];
    return s;
  };
  std::vector<std::string> a(p.a_strings), b(p.b_strings);
  for (auto& s : a) s = random_string();
  for (auto& s : b) s = random_string();
  OutFile out(path);
  std::string buf;
  for (std::uint64_t k = 0; k < n; ++k) {
    buf += a[k / p.b_strings];
    buf += '\t';
    buf += b[k % p.b_strings];
    buf += '\n';
    if (buf.size() > (8u << 20)) out.append(buf), buf.clear();
  }
  out.append(buf);
  p.bytes = out.size();
  return p;
}

/// `count` random 20-nt guides as FASTA (>g0, >g1, ...).
void write_guides(const fs::path& path, std::uint64_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string guides;
  for (std::uint64_t g = 0; g < count; ++g) {
    guides += ">g" + std::to_string(g) + "\n";
    for (int i = 0; i < 20; ++i) guides.push_back("ACGT"[rng() % 4]);
    guides.push_back('\n');
  }
  OutFile(path).append(guides);
}

}  // namespace warpmatch::bench::e2e
