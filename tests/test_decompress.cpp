// The zstd decoder's ring (io/decompress.cpp): frames decoded on their own thread straight
// into a ring read out by the consumer equal the data for every frame layout — more data
// than the ring (back-references across its wrap), many frames, skippable and empty frames, a
// frame whose window needs a larger ring (128 MiB), reads of any size, the compressed input arriving
// in small pieces — and a window beyond the streaming decoder's limit and a truncated frame
// are errors after the bytes before them; a consumer that stops early does not hang. Files of
// many small frames in memory decode frame-parallel, equal to the serial decode.
#include <gtest/gtest.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "io/decompress.hpp"
#include "io/input.hpp"

using namespace warpmatch;

namespace {

// Compressible but not trivial text: pieces of a random pool, so matches reach back far.
std::string pooled_text(std::mt19937_64& rng, std::size_t bytes) {
  std::string pool(std::size_t{3} << 20, '\0');
  for (char& c : pool) c = "ACGTacgt\n>"[rng() % 10];
  std::string out;
  out.reserve(bytes);
  while (out.size() < bytes) {
    const std::size_t at = rng() % pool.size(), n = std::min({pool.size() - at, bytes - out.size(), std::size_t{1} + rng() % 70000});
    out.append(pool, at, n);
    if (rng() % 4 == 0) out.push_back(static_cast<char>(rng()));
  }
  return out;
}

std::string zstd_with(const std::string& data, int level, int window_log, bool size_known) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_windowLog, window_log);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  // A pledged size is written in the header and shrinks the window to the data's size.
  if (size_known) ZSTD_CCtx_setPledgedSrcSize(cctx, data.size());
  std::string out(ZSTD_compressBound(data.size()) + 1024, '\0');
  ZSTD_outBuffer o{out.data(), out.size(), 0};
  ZSTD_inBuffer in{data.data(), data.size(), 0};
  // Fed before it is ended, an unpledged size stays unknown: the window stays as asked.
  EXPECT_FALSE(ZSTD_isError(ZSTD_compressStream2(cctx, &o, &in, ZSTD_e_continue)));
  ZSTD_inBuffer none{nullptr, 0, 0};
  EXPECT_EQ(ZSTD_compressStream2(cctx, &o, &none, ZSTD_e_end), 0u);
  ZSTD_freeCCtx(cctx);
  out.resize(o.pos);
  return out;
}

std::string skippable_frame(const std::string& payload) {
  std::string f = "\x50\x2a\x4d\x18";  // magic 0x184D2A50, little-endian
  for (int i = 0; i < 4; ++i) f.push_back(static_cast<char>(payload.size() >> (8 * i)));
  return f + payload;
}

// Hands on the compressed bytes in pieces of random size, as a pipe does.
class TricklingSource final : public io::ByteSource {
 public:
  TricklingSource(const std::string& bytes, std::uint64_t seed) : bytes_(bytes), rng_(seed) {}
  std::size_t read(std::uint8_t* out, std::size_t capacity) override {
    const std::size_t n = std::min({capacity, bytes_.size() - pos_, std::size_t{1} + rng_() % 100000});
    std::memcpy(out, bytes_.data() + pos_, n);
    pos_ += n;
    return n;
  }
  std::uint64_t raw_offset() const override { return pos_; }

 private:
  const std::string& bytes_;
  std::mt19937_64 rng_;
  std::size_t pos_ = 0;
};

// Everything the source gives (reads of random sizes), and the error that ended it, if any.
std::string drain(io::ByteSource& src, std::mt19937_64& rng, std::string* error = nullptr) {
  std::string out;
  std::string buf;
  try {
    for (;;) {
      buf.resize(std::size_t{1} << (rng() % 24));
      const std::size_t n = src.read(reinterpret_cast<std::uint8_t*>(buf.data()), buf.size());
      if (n == 0) break;
      out.append(buf, 0, n);
    }
  } catch (const io::InputError& e) {
    if (!error) throw;
    *error = e.what();
  }
  return out;
}

std::unique_ptr<io::ByteSource> zstd_source(const std::string& stored, bool trickle, std::uint64_t seed) {
  std::unique_ptr<io::ByteSource> raw;
  if (trickle) raw = std::make_unique<TricklingSource>(stored, seed);
  else raw = std::make_unique<io::MemorySource>(as_bytes(stored));
  return io::decompressing_source("t.zst", io::Compression::zstd, std::move(raw));
}

}  // namespace

TEST(ZstdRing, FramesOfEveryLayoutDecodeToTheData) {
  std::mt19937_64 rng(41);
  // 130 MiB in one frame with an 8 MiB window: the ring (8.25 MiB for it) wraps again and again,
  // references cross its end.
  const std::string big = pooled_text(rng, 130u << 20);
  const std::string small = pooled_text(rng, 3u << 20);
  std::string stored = zstd_with(big, 1, 23, true);
  std::string want = big;
  // Then a skippable frame, an empty frame, small frames, and a frame with a 128 MiB window
  // (size unknown: the header keeps the whole window), which needs a larger ring.
  stored += skippable_frame("not data");
  stored += zstd_with("", 3, 20, true);
  for (int i = 0; i < 5; ++i) {
    const std::string piece = small.substr(rng() % small.size());
    stored += zstd_with(piece, 1 + static_cast<int>(rng() % 5), 10 + static_cast<int>(rng() % 12), rng() % 2);
    want += piece;
  }
  stored += zstd_with(small, 3, 27, false);
  want += small;
  stored += zstd_with(small.substr(0, 1000), 3, 17, true);
  want += small.substr(0, 1000);
  for (bool trickle : {false, true}) {
    auto src = zstd_source(stored, trickle, rng());
    const std::string got = drain(*src, rng);
    ASSERT_EQ(got.size(), want.size()) << "trickle " << trickle;
    EXPECT_TRUE(got == want) << "trickle " << trickle;
  }
  // A consumer that stops at once, with the decoder waiting for room in the ring: no hang.
  for (bool trickle : {false, true}) {
    auto src = zstd_source(stored, trickle, rng());
    std::uint8_t one = 0;
    ASSERT_EQ(src->read(&one, 1), 1u);
    EXPECT_EQ(one, static_cast<std::uint8_t>(big[0]));
  }
}

TEST(ZstdRing, TooLargeWindowAndTruncationFailAfterTheBytesBefore) {
  std::mt19937_64 rng(43);
  const std::string text = pooled_text(rng, 5u << 20);
  const std::string good = zstd_with(text, 3, 20, true);
  struct Case {
    std::string stored, message;
  };
  const Case cases[] = {
      {good + zstd_with(text, 3, 28, false), "Frame requires too much memory for decoding"},
      {good + zstd_with(text, 3, 20, true).substr(0, 1000), "unexpected end of file inside a frame"},
      {good + zstd_with(text, 3, 20, true).substr(0, 3), "unexpected end of file inside a frame"},
      {good + "junk", "t.zst: corrupt zstd data at compressed byte offset " + std::to_string(good.size())},
  };
  for (const Case& c : cases) {
    for (bool trickle : {false, true}) {
      auto src = zstd_source(c.stored, trickle, rng());
      std::string error;
      const std::string got = drain(*src, rng, &error);
      EXPECT_NE(error.find(c.message), std::string::npos) << "want '" << c.message << "', got '" << error << "'";
      EXPECT_TRUE(got.substr(0, text.size()) == text) << "the first frame's bytes come before the error: " << error;
    }
  }
}

// pzstd-like files (frames of a few MiB with their sizes) decode frames in parallel when in
// memory: equal to the data and to the serial ring decoder (the same bytes trickled in), with
// frames that must stream between them (no size, larger than the read), skippable and empty
// frames; a corrupt frame is reported with its offset after every frame before it.
TEST(ZstdFrames, ParallelFramesEqualTheSerialDecode) {
  std::mt19937_64 rng(47);
  const std::string pool = pooled_text(rng, 8u << 20);
  std::string stored, want;
  std::vector<std::size_t> frame_at;
  for (int i = 0; i < 40; ++i) {
    frame_at.push_back(stored.size());
    const int kind = i < 2 ? 9 : static_cast<int>(rng() % 10);  // two small frames first: the parallel decoder
    std::string piece = pool.substr(rng() % pool.size(), rng() % (3u << 20));
    if (kind == 0) piece.clear();
    if (kind == 1) {
      stored += skippable_frame(piece.substr(0, 100));
      continue;
    }
    if (kind == 2) piece = pooled_text(rng, 20u << 20);  // larger than most reads: streams
    stored += zstd_with(piece, 1 + static_cast<int>(rng() % 3), 20, kind != 3);  // 3: no size
    want += piece;
  }
  for (int trial = 0; trial < 3; ++trial) {
    auto parallel = io::decompressing_source("t.zst", io::Compression::zstd,
                                             std::make_unique<io::MemorySource>(as_bytes(stored)), 1 + trial);
    const std::string got = drain(*parallel, rng);
    ASSERT_EQ(got.size(), want.size());
    EXPECT_TRUE(got == want) << "threads " << 1 + trial;
  }
  auto serial = zstd_source(stored, true, rng());
  EXPECT_TRUE(drain(*serial, rng) == want);
  // pzstd starts its files with a skippable frame: still zstd.
  const std::string pz = skippable_frame("1234") + stored;
  EXPECT_EQ(io::detect_compression(as_bytes(pz).first(18)), io::Compression::zstd);
  auto pz_src = io::decompressing_source("p.zst", io::Compression::zstd, std::make_unique<io::MemorySource>(as_bytes(pz)));
  EXPECT_TRUE(drain(*pz_src, rng) == want);

  // A corrupt frame in the middle: the frames before it are delivered, then its error.
  const std::size_t bad = frame_at[25];
  std::string broken = stored;
  for (std::size_t i = bad + 20; i < std::min(broken.size(), bad + 60); ++i) broken[i] = static_cast<char>(~broken[i]);
  auto src = io::decompressing_source("t.zst", io::Compression::zstd, std::make_unique<io::MemorySource>(as_bytes(broken)), 4);
  std::string error;
  const std::string got = drain(*src, rng, &error);
  EXPECT_NE(error.find("t.zst: corrupt zstd data at compressed byte offset "), std::string::npos) << error;
  EXPECT_TRUE(want.compare(0, got.size(), got) == 0) << "what came before the error is the data";
  std::string before_bad;  // the data of the frames before the corrupt one
  auto head = io::decompressing_source("t.zst", io::Compression::zstd,
                                       std::make_unique<io::MemorySource>(as_bytes(stored).first(bad)), 2);
  before_bad = drain(*head, rng);
  EXPECT_GE(got.size(), before_bad.size());
}

// zstd_frames (warpmatch.dask's planning): each frame's offset, stored size and content size
// from the headers alone, skippable frames marked, sizes left out reported as unknown; a cut
// frame is an InputError naming the offset.
TEST(ZstdFrames, IndexFromTheHeaders) {
  std::mt19937_64 rng(17);
  const std::string a = pooled_text(rng, 70000), b = pooled_text(rng, 5), c = pooled_text(rng, 300000);
  const std::string fa = zstd_with(a, 3, 20, true), fb = zstd_with(b, 1, 10, true), fc = zstd_with(c, 5, 22, false);
  const std::string skip = skippable_frame("1234");
  const std::string stored = skip + fa + fb + fc;
  const std::vector<io::ZstdFrame> frames = io::zstd_frames("t.zst", as_bytes(stored));
  ASSERT_EQ(frames.size(), 4u);
  const std::uint64_t offsets[] = {0, skip.size(), skip.size() + fa.size(), skip.size() + fa.size() + fb.size()};
  const std::uint64_t stored_sizes[] = {skip.size(), fa.size(), fb.size(), fc.size()};
  const std::uint64_t contents[] = {0, a.size(), b.size(), io::ZstdFrame::kUnknownSize};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(frames[i].offset, offsets[i]) << i;
    EXPECT_EQ(frames[i].compressed_size, stored_sizes[i]) << i;
    EXPECT_EQ(frames[i].content_size, contents[i]) << i;
    EXPECT_EQ(frames[i].skippable, i == 0) << i;
  }
  const auto first_two = io::zstd_frames("t.zst", as_bytes(stored), 2);
  ASSERT_EQ(first_two.size(), 2u);
  EXPECT_EQ(first_two[1].offset, frames[1].offset);
  EXPECT_TRUE(io::zstd_frames("t.zst", {}).empty());
  try {
    io::zstd_frames("t.zst", as_bytes(stored).first(stored.size() - 10));
    ADD_FAILURE() << "a cut frame was accepted";
  } catch (const io::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("t.zst: no whole zstd frame at byte " + std::to_string(offsets[3])),
              std::string::npos)
        << e.what();
  }
}
