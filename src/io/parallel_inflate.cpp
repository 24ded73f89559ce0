// Parallel decoding of one gzip member; see parallel_inflate.hpp.
#include "io/parallel_inflate.hpp"

#include "core/worker_pool.hpp"

#include <isa-l/crc.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <new>
#include <thread>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace warpmatch::io {

// ---- symbol buffer ---------------------------------------------------------------------------

SymbolBuffer::~SymbolBuffer() { std::free(data_); }

void SymbolBuffer::reserve_more(std::size_t n) {
  const std::size_t need = size_ + n + kSlack;
  if (need <= capacity_) return;
  const std::size_t cap = std::max(need, capacity_ + capacity_ / 2 + 65536);
  auto* p = static_cast<std::uint16_t*>(std::realloc(data_, cap * sizeof(std::uint16_t)));
  if (!p) throw std::bad_alloc();
  data_ = p;
  capacity_ = cap;
}

void SymbolBuffer::resize(std::size_t n) {
  if (n > size_) reserve_more(n - size_);
  size_ = n;
}

void SymbolBuffer::append_window_markers() {
  reserve_more(kDeflateWindow);
  for (std::size_t w = 0; w < kDeflateWindow; ++w) data_[size_ + w] = static_cast<std::uint16_t>(256 + w);
  size_ += kDeflateWindow;
}

void SymbolBuffer::append_bytes(const std::uint8_t* p, std::size_t n) {
  reserve_more(n);
  for (std::size_t i = 0; i < n; ++i) data_[size_ + i] = p[i];
  size_ += n;
}

// ---- Huffman tables --------------------------------------------------------------------------

namespace {

constexpr std::uint16_t kLengthBase[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                           31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr std::uint8_t kLengthExtra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                           2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
constexpr std::uint16_t kDistBase[30] = {1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
                                         193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
constexpr std::uint8_t kDistExtra[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6,
                                         6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
constexpr std::uint8_t kCodeLengthOrder[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};

// A table entry: bits 0-4 the code's length (a subtable pointer: the subtable's index bits),
// 5-7 the kind, 8-31 the payload: for kBase a length or distance base (bits 8-23) and its
// extra bits' count (24-28); for literals one to three of them, the kind being their count:
// codes that fit in the primary bits together share one lookup (ISA-L's trick; DNA's
// literals take 2-3 bits each); the subtable's offset; a code length symbol.
enum Kind : std::uint32_t { kBase = 0, kLiteral = 1, kEndOfBlock = 4, kSubtable = 5, kInvalid = 6 };
constexpr std::uint32_t entry(std::uint32_t kind, std::uint32_t value, std::uint32_t extra = 0, std::uint32_t len = 0) {
  return extra << 24 | value << 8 | kind << 5 | len;
}
constexpr std::uint32_t entry_len(std::uint32_t e) { return e & 31; }
constexpr std::uint32_t entry_kind(std::uint32_t e) { return (e >> 5) & 7; }
constexpr std::uint32_t entry_value(std::uint32_t e) { return (e >> 8) & 0xffff; }
constexpr std::uint32_t entry_extra(std::uint32_t e) { return e >> 24; }
constexpr std::uint32_t entry_literals(std::uint32_t e) { return e >> 8; }
constexpr std::uint32_t kInvalidEntry = entry(kInvalid, 0);

std::uint32_t litlen_symbol(unsigned s) {
  if (s < 256) return entry(kLiteral, s);
  if (s == 256) return entry(kEndOfBlock, 0);
  if (s < 286) return entry(kBase, kLengthBase[s - 257], kLengthExtra[s - 257]);
  return kInvalidEntry;  // 286, 287: in the fixed code, never valid
}
std::uint32_t dist_symbol(unsigned s) { return s < 30 ? entry(kBase, kDistBase[s], kDistExtra[s]) : kInvalidEntry; }
std::uint32_t plain_symbol(unsigned s) { return entry(kLiteral, s); }

// What an incomplete code may be: zlib's rule (one code of length 1, or none) for decoding;
// the block finder wants complete codes (or that single distance code).
enum class Completeness { zlib, complete };

// A canonical Huffman decoding table for `n` code lengths: a primary table indexed by
// `primary_bits` bits, subtables behind it for longer codes. False when the lengths are not
// a prefix code (over-subscribed, or incomplete beyond what `rule` allows).
// Whether `n` code lengths form a prefix code that `rule` accepts; `count` gets how many
// codes have each length, `max_len` the longest.
bool is_prefix_code(const std::uint8_t* lens, unsigned n, Completeness rule, unsigned (&count)[16], unsigned& max_len) {
  std::fill(count, count + 16, 0u);
  for (unsigned s = 0; s < n; ++s) ++count[lens[s]];
  count[0] = 0;
  int left = 1;
  max_len = 0;
  for (unsigned len = 1; len < 16; ++len) {
    left = 2 * left - static_cast<int>(count[len]);
    if (left < 0) return false;
    if (count[len]) max_len = len;
  }
  if (left == 0) return true;
  const unsigned codes = n - static_cast<unsigned>(std::count(lens, lens + n, std::uint8_t{0}));
  return rule == Completeness::complete ? codes == 1 && max_len == 1 : max_len <= 1;
}

bool build_table(const std::uint8_t* lens, unsigned n, unsigned primary_bits, std::uint32_t (*symbol)(unsigned),
                 Completeness rule, std::vector<std::uint32_t>& table) {
  unsigned count[16], max_len;
  if (!is_prefix_code(lens, n, rule, count, max_len)) return false;
  unsigned next[16] = {};
  for (unsigned len = 1, code = 0; len < 16; ++len) {
    code = (code + count[len - 1]) << 1;
    next[len] = code;
  }
  const unsigned primary = 1u << primary_bits;
  table.assign(primary, kInvalidEntry);
  std::uint16_t reversed[320];
  std::uint8_t sub_bits[1u << 11] = {};
  for (unsigned s = 0; s < n; ++s) {
    const unsigned len = lens[s];
    if (!len) continue;
    unsigned code = next[len]++, rev = 0;
    for (unsigned b = 0; b < len; ++b, code >>= 1) rev = rev << 1 | (code & 1);
    reversed[s] = static_cast<std::uint16_t>(rev);
    if (len <= primary_bits) {
      const std::uint32_t e = symbol(s) | len;
      for (unsigned i = rev; i < primary; i += 1u << len) table[i] = e;
    } else {
      std::uint8_t& sb = sub_bits[rev & (primary - 1)];
      sb = std::max<std::uint8_t>(sb, static_cast<std::uint8_t>(len - primary_bits));
    }
  }
  if (max_len <= primary_bits) return true;
  std::uint32_t sub_at[1u << 11];
  for (unsigned p = 0; p < primary; ++p) {
    if (!sub_bits[p]) continue;
    sub_at[p] = static_cast<std::uint32_t>(table.size());
    table[p] = entry(kSubtable, sub_at[p], 0, sub_bits[p]);
    table.resize(table.size() + (std::size_t{1} << sub_bits[p]), kInvalidEntry);
  }
  for (unsigned s = 0; s < n; ++s) {
    const unsigned len = lens[s];
    if (len <= primary_bits) continue;
    const unsigned p = reversed[s] & (primary - 1), size = 1u << sub_bits[p];
    const std::uint32_t e = symbol(s) | len;
    for (unsigned i = reversed[s] >> primary_bits; i < size; i += 1u << (len - primary_bits)) table[sub_at[p] + i] = e;
  }
  return true;
}

constexpr unsigned kLitBits = 11, kDistBits = 8, kCodeLengthBits = 7;

// Literal/length table: a primary entry whose literal code leaves room for the next
// literal codes within the primary bits decodes up to three literals at once.
bool build_litlen_table(const std::uint8_t* lens, unsigned n, Completeness rule, std::vector<std::uint32_t>& table) {
  if (!build_table(lens, n, kLitBits, litlen_symbol, rule, table)) return false;
  std::uint32_t single[1u << kLitBits];
  std::copy(table.begin(), table.begin() + (1u << kLitBits), single);
  for (unsigned i = 0; i < (1u << kLitBits); ++i) {
    std::uint32_t literals = 0, count = 0, used = 0;
    for (; count < 3; ++count) {
      // The next code's bits are all known when its length fits in what is left.
      const std::uint32_t next = single[i >> used];
      if (entry_kind(next) != kLiteral || entry_len(next) > kLitBits - used) break;
      literals |= entry_value(next) << (8 * count);
      used += entry_len(next);
    }
    if (count > 1) table[i] = entry(count, literals, 0, used);
  }
  return true;
}

// A 64-bit little-endian bit reader over `in` that reads zeros past its end and counts them.
class BitReader {
 public:
  BitReader(ByteSpan in, std::uint64_t bit) : begin_(in.data()), end_(in.data() + in.size()) { seek(bit); }

  void seek(std::uint64_t bit) {
    const std::uint64_t byte = std::min<std::uint64_t>(bit / 8, static_cast<std::uint64_t>(end_ - begin_));
    p_ = begin_ + byte;
    pad_bits_ = bit / 8 - byte > 0 ? (bit / 8 - byte) * 8 : 0;
    buf_ = 0;
    count_ = 0;
    refill();
    consume(static_cast<unsigned>(bit % 8));
  }
  // At least 56 bits in the buffer afterwards.
  void refill() {
    if (end_ - p_ >= 8) {
      std::uint64_t w;
      std::memcpy(&w, p_, 8);
      buf_ |= w << count_;
      p_ += (63 - count_) >> 3;
      count_ |= 56;
      return;
    }
    while (count_ <= 56) {
      if (p_ < end_) buf_ |= std::uint64_t{*p_++} << count_;
      else pad_bits_ += 8;
      count_ += 8;
    }
  }
  std::uint64_t peek() const { return buf_; }
  std::uint32_t bits(unsigned n) const { return static_cast<std::uint32_t>(buf_ & ((std::uint64_t{1} << n) - 1)); }
  void consume(unsigned n) {
    buf_ >>= n;
    count_ -= n;
  }
  std::uint32_t take(unsigned n) {
    const std::uint32_t v = bits(n);
    consume(n);
    return v;
  }
  std::uint64_t position() const {
    return static_cast<std::uint64_t>(p_ - begin_) * 8 + pad_bits_ - count_;
  }
  // Bits consumed beyond the input's end (the zeros read past it): the data is truncated.
  bool beyond_input() const { return pad_bits_ != 0 && past_end(); }
  bool past_end() const { return position() > static_cast<std::uint64_t>(end_ - begin_) * 8; }
  const std::uint8_t* begin() const { return begin_; }
  std::size_t size() const { return static_cast<std::size_t>(end_ - begin_); }

 private:
  const std::uint8_t* begin_;
  const std::uint8_t* end_;
  const std::uint8_t* p_ = nullptr;
  std::uint64_t pad_bits_ = 0;
  std::uint64_t buf_ = 0;
  unsigned count_ = 0;
};

}  // namespace

struct MarkerInflater::Tables {
  std::vector<std::uint32_t> fixed_lit, fixed_dist, lit, dist, code_length;
  std::uint8_t lens[320];
};

MarkerInflater::MarkerInflater() : t_(std::make_unique<Tables>()) {
  std::uint8_t lens[288];
  std::fill(lens, lens + 144, 8);
  std::fill(lens + 144, lens + 256, 9);
  std::fill(lens + 256, lens + 280, 7);
  std::fill(lens + 280, lens + 288, 8);
  build_litlen_table(lens, 288, Completeness::zlib, t_->fixed_lit);
  std::fill(lens, lens + 32, 5);
  build_table(lens, 32, kDistBits, dist_symbol, Completeness::zlib, t_->fixed_dist);
}
MarkerInflater::~MarkerInflater() = default;

namespace {

// Reads a dynamic block's header after BTYPE into t.lit / t.dist; the reason when invalid.
const char* read_dynamic_header(BitReader& br, MarkerInflater::Tables& t, Completeness rule) {
  br.refill();
  const unsigned hlit = br.take(5) + 257, hdist = br.take(5) + 1, hclen = br.take(4) + 4;
  if (hlit > 286 || hdist > 30) return "too many length or distance symbols";
  std::uint8_t cl_lens[19] = {};
  for (unsigned i = 0; i < hclen; ++i) {
    if (i == 12) br.refill();
    cl_lens[kCodeLengthOrder[i]] = static_cast<std::uint8_t>(br.take(3));
  }
  // The code length code must be complete, as zlib requires (a lone code is not).
  if (std::count(cl_lens, cl_lens + 19, std::uint8_t{0}) >= 18 ||
      !build_table(cl_lens, 19, kCodeLengthBits, plain_symbol, Completeness::complete, t.code_length))
    return "invalid code lengths set";
  std::uint8_t* lens = t.lens;
  const unsigned n = hlit + hdist;
  for (unsigned i = 0; i < n;) {
    br.refill();
    const std::uint32_t e = t.code_length[br.bits(kCodeLengthBits)];
    if (entry_kind(e) == kInvalid) return "invalid code lengths set";
    br.consume(entry_len(e));
    const unsigned sym = entry_value(e);
    if (sym < 16) {
      lens[i++] = static_cast<std::uint8_t>(sym);
      continue;
    }
    unsigned repeat;
    std::uint8_t value = 0;
    if (sym == 16) {
      if (i == 0) return "invalid bit length repeat";
      value = lens[i - 1];
      repeat = 3 + br.take(2);
    } else if (sym == 17) {
      repeat = 3 + br.take(3);
    } else {
      repeat = 11 + br.take(7);
    }
    if (i + repeat > n) return "invalid bit length repeat";
    std::fill(lens + i, lens + i + repeat, value);
    i += repeat;
  }
  if (lens[256] == 0) return "invalid code -- missing end-of-block";
  if (rule == Completeness::complete) {  // the block finder: the codes' shape is enough, no tables
    unsigned count[16], max_len;
    if (!is_prefix_code(lens, hlit, rule, count, max_len)) return "invalid literal/lengths set";
    if (!is_prefix_code(lens + hlit, hdist, rule, count, max_len) || max_len == 0) return "invalid distances set";
    return nullptr;
  }
  if (!build_litlen_table(lens, hlit, rule, t.lit)) return "invalid literal/lengths set";
  if (!build_table(lens + hlit, hdist, kDistBits, dist_symbol, rule, t.dist)) return "invalid distances set";
  return nullptr;
}

}  // namespace

namespace {

// The symbols of one Huffman block up to its end-of-block code; the reason when invalid, null
// otherwise (also when the block ran past the input: the caller sees it). On a reader and an
// output size of its own, so they live in registers (the caller's reader escapes to lambdas).
const char* decode_huffman_block(BitReader& reader, const std::uint32_t* lt, const std::uint32_t* dt, SymbolBuffer& out) {
  BitReader br = reader;
  std::size_t size = out.size();
  const char* error = nullptr;
  for (;;) {
    if (size + 258 + SymbolBuffer::kSlack > out.capacity()) {
      out.resize(size);
      out.reserve_more(258);
    }
    std::uint16_t* o = out.data() + size;
    br.refill();
    std::uint32_t e = lt[br.bits(kLitBits)];
    if (entry_kind(e) == kSubtable)
      e = lt[entry_value(e) + ((br.peek() >> kLitBits) & ((1u << entry_len(e)) - 1))];
    const std::uint32_t kind = entry_kind(e);
    if (kind - kLiteral < 3) {  // one to three literals (unused ones write zeros into the slack)
      const std::uint32_t literals = entry_literals(e);
      o[0] = static_cast<std::uint16_t>(literals & 255);
      o[1] = static_cast<std::uint16_t>((literals >> 8) & 255);
      o[2] = static_cast<std::uint16_t>(literals >> 16);
      br.consume(entry_len(e));
      if (br.beyond_input()) break;  // codes made of the zeros past the end: not output
      size += kind;
      continue;
    }
    if (kind == kEndOfBlock) {
      br.consume(entry_len(e));
      break;
    }
    if (kind == kInvalid) {
      error = "invalid literal/length code";
      break;
    }
    // A length (base + extra bits), then its distance: 20 + 28 bits, within the 56 at hand.
    const unsigned len_bits = entry_len(e);
    const std::size_t length = entry_value(e) + ((br.peek() >> len_bits) & ((1u << entry_extra(e)) - 1));
    br.consume(len_bits + entry_extra(e));
    std::uint32_t d = dt[br.bits(kDistBits)];
    if (entry_kind(d) == kSubtable)
      d = dt[entry_value(d) + ((br.peek() >> kDistBits) & ((1u << entry_len(d)) - 1))];
    if (entry_kind(d) == kInvalid) {
      error = "invalid distance code";
      break;
    }
    const unsigned dist_bits = entry_len(d);
    const std::size_t distance = entry_value(d) + ((br.peek() >> dist_bits) & ((1u << entry_extra(d)) - 1));
    br.consume(dist_bits + entry_extra(d));
    if (br.beyond_input()) break;
    if (distance > size) {
      error = "invalid distance too far back";
      break;
    }
    const std::uint16_t* from = o - distance;
    if (distance >= 8) {
      for (std::size_t i = 0; i < length; i += 8) std::memcpy(o + i, from + i, 16);  // slack past the end
    } else {
      for (std::size_t i = 0; i < length; ++i) o[i] = from[i];
    }
    size += length;
  }
  out.resize(size);
  reader = br;
  return error;
}

}  // namespace

InflateResult MarkerInflater::decode(ByteSpan in, BlockStart start, std::uint64_t stop_bit, SymbolBuffer& out,
                                     std::size_t out_limit) {
  using Status = InflateResult::Status;
  BitReader br(in, start.bit);
  const std::uint64_t total_bits = std::uint64_t{in.size()} * 8;
  auto fail = [&](Status status, const char* why) {
    InflateResult r;
    r.status = br.past_end() ? Status::truncated : status;
    r.error_bit = std::min(br.position(), total_bits);
    r.why = why;
    return r;
  };
  // The block boundary at the reader: a non-final stored block's counted at its LEN.
  auto boundary = [&] {
    br.refill();
    const std::uint64_t at = br.position();
    if (br.bits(3) == 0) return BlockStart{(at + 3 + 7) / 8 * 8, true};
    return BlockStart{at, false};
  };
  BlockStart here = start;
  for (;;) {
    if (br.past_end()) return fail(Status::truncated, "unexpected end of file");
    if (here.bit >= stop_bit || out.size() >= out_limit) return {Status::boundary, here};
    bool final = false;
    unsigned type = 0;
    if (!here.stored_body) {
      final = br.take(1);
      type = br.take(2);
    }
    if (type == 0) {  // stored: LEN, NLEN at the next byte, then LEN bytes
      const std::uint64_t at = (br.position() + 7) / 8;
      if (at + 4 > in.size()) return fail(Status::truncated, "unexpected end of file");
      const unsigned len = in[at] | in[at + 1] << 8, nlen = in[at + 2] | in[at + 3] << 8;
      if ((len ^ nlen) != 0xffff) return fail(Status::invalid, "invalid stored block lengths");
      if (at + 4 + len > in.size()) {
        br.seek(total_bits + 8);
        return fail(Status::truncated, "unexpected end of file");
      }
      out.append_bytes(in.data() + at + 4, len);
      br.seek((at + 4 + len) * 8);
    } else if (type == 3) {
      return fail(Status::invalid, "invalid block type");
    } else {
      const std::vector<std::uint32_t>* lit = &t_->fixed_lit;
      const std::vector<std::uint32_t>* dist = &t_->fixed_dist;
      if (type == 2) {
        if (const char* why = read_dynamic_header(br, *t_, Completeness::zlib)) return fail(Status::invalid, why);
        lit = &t_->lit;
        dist = &t_->dist;
      }
      const char* error = decode_huffman_block(br, lit->data(), dist->data(), out);
      if (error) return fail(Status::invalid, error);
    }
    if (br.past_end()) return fail(Status::truncated, "unexpected end of file");
    if (final) return {Status::final_block, BlockStart{br.position(), false}};
    here = boundary();
    if (here.stored_body) br.seek(here.bit);
  }
}

namespace {
// Kraft's sum (in units of 2^-7) of four 3-bit code lengths, length 0 counting nothing.
const std::array<std::uint16_t, 4096> kKraftOf4 = [] {
  std::array<std::uint16_t, 4096> sums{};
  for (unsigned i = 0; i < 4096; ++i)
    for (unsigned j = 0; j < 4; ++j)
      if (const unsigned len = (i >> (3 * j)) & 7) sums[i] = static_cast<std::uint16_t>(sums[i] + (128u >> len));
  return sums;
}();
}  // namespace

BlockStart MarkerInflater::find_block(ByteSpan in, std::uint64_t from_bit, std::uint64_t until_bit) {
  until_bit = std::min(until_bit, std::uint64_t{in.size()} * 8);
  for (std::uint64_t byte = from_bit / 8; byte * 8 < until_bit; ++byte) {
    if (byte * 8 >= from_bit && byte >= 1 && byte + 4 <= in.size()) {
      // A stored block's LEN: the zero bits of its header (and zlib's zero padding) before it.
      const unsigned len = in[byte] | in[byte + 1] << 8, nlen = in[byte + 2] | in[byte + 3] << 8;
      if ((len ^ nlen) == 0xffff && (in[byte - 1] & 0xe0) == 0 && byte + 4 + len <= in.size())
        return {byte * 8, true};
    }
    // 128 bits from the byte on: a header starting in it has its first 74 bits (up to the code
    // length code) at hand.
    unsigned __int128 v = 0;
    if (byte + 16 <= in.size()) std::memcpy(&v, in.data() + byte, 16);
    else std::memcpy(&v, in.data() + byte, in.size() - byte);
    // The offsets k in the byte where BFINAL 0, BTYPE 2 (bits 0 0 1), HLIT <= 29 and HDIST <= 29
    // (bits 4-7 and 9-12 not all ones) hold, for all eight at once.
    const auto w = static_cast<std::uint64_t>(v);
    std::uint64_t at = ~w & ~(w >> 1) & (w >> 2) & ~((w >> 4) & (w >> 5) & (w >> 6) & (w >> 7)) &
                       ~((w >> 9) & (w >> 10) & (w >> 11) & (w >> 12)) & 0xff;
    for (; at; at &= at - 1) {
      const unsigned k = static_cast<unsigned>(__builtin_ctzll(at));
      const std::uint64_t bit = byte * 8 + k;
      if (bit < from_bit || bit >= until_bit) continue;
      // A complete code length code of two or more codes (Kraft's sum exactly 2^7), then the
      // whole header, strictly.
      // (A sum of 2^7 needs two codes at least: one alone gives at most 2^6.)
      const unsigned __int128 h = v >> k;
      const unsigned hclen = static_cast<unsigned>((h >> 13) & 15) + 4;
      const std::uint64_t lens = static_cast<std::uint64_t>(h >> 17) & ((std::uint64_t{1} << (3 * hclen)) - 1);
      const unsigned kraft = kKraftOf4[lens & 4095] + kKraftOf4[(lens >> 12) & 4095] + kKraftOf4[(lens >> 24) & 4095] +
                             kKraftOf4[(lens >> 36) & 4095] + kKraftOf4[lens >> 48];
      if (kraft != 128) continue;
      BitReader br(in, bit + 3);
      if (!read_dynamic_header(br, *t_, Completeness::complete) && !br.past_end()) return {bit, false};
    }
  }
  return {UINT64_MAX, false};
}

// ---- the member source: rounds of chunks decoded in parallel --------------------------------

namespace {

// A chunk of a round: decoded from `start` into `symbols` after a prefix (the real bytes
// before it, or the window's markers), then narrowed in place to bytes.
struct Chunk {
  BlockStart start{UINT64_MAX, false};  // UINT64_MAX: the finder found none
  std::uint64_t stop_bit = 0;
  SymbolBuffer symbols;
  std::size_t prefix = 0;
  InflateResult result;
  std::uint8_t window[kDeflateWindow];  // the 32 KiB before it, right-aligned, once known
  std::size_t size = 0;                 // bytes out (after the prefix)
  std::uint32_t crc = 0;
  std::uint64_t end_byte = 0;           // compressed bytes consumed once it is out
  const std::uint8_t* bytes() const { return reinterpret_cast<const std::uint8_t*>(symbols.data()); }
};

// The bytes of `n` symbols, markers replaced from `window`, written to `bytes`, which may be
// the symbols' own memory (in place, forward: byte j lies before symbol j). Eight symbols at
// a time where none is a marker (most: markers are rare past a chunk's first 32 KiB).
void narrow_symbols(const std::uint16_t* symbols, std::size_t n, const std::uint8_t* window, std::uint8_t* bytes) {
  std::size_t j = 0;
#ifdef __SSE2__
  for (; j + 8 <= n; j += 8) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(symbols + j));
    if (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_srli_epi16(v, 8), _mm_setzero_si128())) != 0xffff) {
      for (std::size_t i = j; i < j + 8; ++i) bytes[i] = symbols[i] < 256 ? static_cast<std::uint8_t>(symbols[i]) : window[symbols[i] - 256];
      continue;
    }
    _mm_storel_epi64(reinterpret_cast<__m128i*>(bytes + j), _mm_packus_epi16(v, v));
  }
#endif
  for (; j < n; ++j) bytes[j] = symbols[j] < 256 ? static_cast<std::uint8_t>(symbols[j]) : window[symbols[j] - 256];
}

struct Round {
  std::vector<std::unique_ptr<Chunk>> chunks;
  std::vector<Chunk*> kept;  // in order
  std::size_t piece = 0, at = 0;  // the reader's place
  std::exception_ptr error;  // after the kept bytes
  bool last = false;         // the member's end (or its error) follows
};

struct GzipHeader {
  std::size_t size = 0;
  const char* error = nullptr;  // with `truncated`: the header ends early
  bool truncated = false;
};

// RFC 1952's header: ID1 ID2 CM FLG MTIME(4) XFL OS, then FEXTRA, FNAME, FCOMMENT, FHCRC.
GzipHeader parse_gzip_header(ByteSpan d) {
  GzipHeader h;
  auto short_of = [&](std::size_t n) { return d.size() < n ? (h.truncated = true, h.error = "unexpected end of file inside a gzip member", true) : false; };
  if (short_of(10)) return h;
  if (d[0] != 0x1f || d[1] != 0x8b) return h.error = "invalid gzip header", h;
  if (d[2] != 8) return h.error = "unsupported compression method", h;
  const std::uint8_t flags = d[3];
  if (flags & 0xe0) return h.error = "invalid gzip header", h;
  std::size_t at = 10;
  if (flags & 4) {
    if (short_of(at + 2)) return h;
    at += 2 + (d[at] | d[at + 1] << 8);
  }
  for (const int flag : {8, 16}) {
    if (!(flags & flag)) continue;
    while (at < d.size() && d[at] != 0) ++at;
    if (short_of(at + 1)) return h;
    ++at;
  }
  if (flags & 2) {
    if (short_of(at + 2)) return h;
    const std::uint32_t crc = crc32_gzip_refl(0, d.data(), at);
    if ((crc & 0xffff) != static_cast<std::uint32_t>(d[at] | d[at + 1] << 8)) return h.error = "invalid gzip header", h;
    at += 2;
  }
  if (short_of(at)) return h;
  h.size = at;
  return h;
}

}  // namespace

// The symbols a chunk may decode, in chunk_bytes (it stops at the first block boundary
// after): the bound on memory. Two rounds of `threads` chunks are alive (one read, one
// decoded), each chunk's symbols 2 bytes: with 16 threads and 1 MiB chunks 2 x 16 x 5 MiB x 2
// = 320 MiB, and a block's output beyond (zlib's are at most 16 K symbols, 4 MiB of
// matches, only on data of ratios in the hundreds: then 576 MiB). DNA's ratio at gzip -6 is
// 3-4, a chunk's output 2.5 MiB and its symbols 5 MiB.
constexpr std::size_t kOutputPerChunk = 5;

struct ParallelGzipMemberSource::State {
  std::string name;
  ByteSpan data;
  std::uint64_t base = 0;
  ParallelInflateOptions options;
  unsigned threads = 1;
  core::WorkerPool pool;
  std::vector<std::unique_ptr<MarkerInflater>> inflaters;

  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::unique_ptr<Round>> rounds;  // two: one read, one decoded
  std::deque<Round*> ready, free;
  Round* reading = nullptr;
  bool closing = false;
  std::atomic<std::uint64_t> raw{0};
  std::uint64_t member_bytes = 0;
  std::thread producer;

  State(std::string n, ByteSpan d, std::uint64_t b, ParallelInflateOptions o)
      : name(std::move(n)), data(d), base(b), options(o),
        threads(o.threads ? o.threads : static_cast<unsigned>(hardware_threads())), pool(threads) {
    for (unsigned i = 0; i < threads; ++i) inflaters.push_back(std::make_unique<MarkerInflater>());
    for (int i = 0; i < 2; ++i) {
      rounds.push_back(std::make_unique<Round>());
      free.push_back(rounds.back().get());
    }
    raw = base;
    producer = std::thread([this] { produce(); });
  }

  std::exception_ptr error_at(std::uint64_t offset, const std::string& why) const {
    return std::make_exception_ptr(InputError(name + ": corrupt gzip data at compressed byte offset " +
                                              std::to_string(base + offset) + " (" + why + ")"));
  }

  void produce();
  bool decode_round(Round& r, ByteSpan deflate, BlockStart& pos, std::vector<std::uint8_t>& history,
                    std::size_t chunk_bytes, std::size_t deflate_at);
  void publish(Round* r) {
    {
      std::lock_guard lock(mutex);
      ready.push_back(r);
    }
    changed.notify_all();
  }
};

// Decodes one round from `pos` (the 32 KiB before it in `history`): the kept chunks' bytes go
// into r.kept; pos and history move to where the round ended. False when the member ended
// (its last block, or an error, is in this round).
bool ParallelGzipMemberSource::State::decode_round(Round& r, ByteSpan deflate, BlockStart& pos,
                                                   std::vector<std::uint8_t>& history, std::size_t chunk_bytes,
                                                   std::size_t deflate_at) {
  using Status = InflateResult::Status;
  const std::size_t limit = kOutputPerChunk * options.chunk_bytes;
  const std::uint64_t first_byte = pos.bit / 8;
  std::size_t n = 1;
  // Guesses only once 32 KiB of the member are known: before that a guessed chunk's marker
  // could name a byte before the member's start, which no window resolves (corrupt data, a
  // distance too far back); the known decode alone reports it, as the sequential decoder does.
  if (history.size() >= kDeflateWindow)
    while (n < threads && first_byte + n * chunk_bytes < deflate.size()) ++n;
  while (r.chunks.size() < n) r.chunks.push_back(std::make_unique<Chunk>());
  r.kept.clear();
  r.piece = r.at = 0;
  r.error = nullptr;
  r.last = false;
  for (std::size_t i = 0; i < n; ++i) {
    Chunk& c = *r.chunks[i];
    c.stop_bit = i + 1 < n ? (first_byte + (i + 1) * chunk_bytes) * 8 : (first_byte + n * chunk_bytes) * 8;
    if (i + 1 == n && first_byte + n * chunk_bytes >= deflate.size()) c.stop_bit = UINT64_MAX;
  }
  // Every chunk at once: the first from the known position and window, the others from the
  // finder's guess with the window's markers.
  std::atomic<std::size_t> next{0};
  pool.run(n, [&](std::size_t t) {
    MarkerInflater& inflater = *inflaters[t];
    for (std::size_t i; (i = next.fetch_add(1)) < n;) {
      Chunk& c = *r.chunks[i];
      c.symbols.clear();
      if (i == 0) {
        c.start = pos;
        c.symbols.append_bytes(history.data(), history.size());
        c.prefix = c.symbols.size();
        c.result = inflater.decode(deflate, c.start, c.stop_bit, c.symbols, c.prefix + limit);
        continue;
      }
      // A guess whose decode fails was false (a true block start decodes without error, the
      // window's markers standing for any distance): the next guess after it, then. (On
      // corrupt data, guesses past the damage; the chunk before reports it.)
      for (std::uint64_t from = (first_byte + i * chunk_bytes) * 8;; from = c.start.bit + 1) {
        c.start = inflater.find_block(deflate, from, c.stop_bit);
        if (c.start.bit == UINT64_MAX) break;
        c.symbols.clear();
        c.symbols.append_window_markers();
        c.prefix = c.symbols.size();
        c.result = inflater.decode(deflate, c.start, c.stop_bit, c.symbols, c.prefix + limit);
        if (c.result.status == Status::boundary || c.result.status == Status::final_block) break;
      }
    }
  });
  // In order: a chunk is kept when the last kept one ends exactly where it starts; else that
  // one goes on decoding (its window known) up to the next guess, or past it.
  MarkerInflater& inflater = *inflaters[0];
  Chunk* cur = r.chunks[0].get();
  r.kept.push_back(cur);
  bool stalled = false;
  for (std::size_t i = 1; i < n && !stalled; ++i) {
    Chunk& c = *r.chunks[i];
    if (c.start.bit == UINT64_MAX) continue;
    while (cur->result.status == Status::boundary && cur->result.end.bit < c.start.bit) {
      const BlockStart from = cur->result.end;
      cur->result = inflater.decode(deflate, from, c.start.bit, cur->symbols, cur->prefix + limit);
      if (cur->result.status == Status::boundary && cur->result.end == from) stalled = true;  // its limit
      if (stalled) break;
    }
    if (stalled || cur->result.status != Status::boundary) break;
    const bool decoded = c.result.status == Status::boundary || c.result.status == Status::final_block;
    if (cur->result.end == c.start && decoded) {
      cur = &c;
      r.kept.push_back(cur);
    }
  }
  // The 32 KiB before each kept chunk, in order (the markers at a chunk's end name bytes of
  // the window before it); then every chunk narrowed to bytes and its CRC, in parallel.
  for (Chunk* c : r.kept) {
    const std::size_t have = history.size();
    std::memset(c->window, 0, kDeflateWindow - have);
    std::memcpy(c->window + kDeflateWindow - have, history.data(), have);
    const std::size_t size = c->symbols.size() - c->prefix;
    const std::size_t tail = std::min(size, kDeflateWindow);
    const std::uint16_t* s = c->symbols.data() + c->prefix + size - tail;
    const std::size_t keep = std::min(have, kDeflateWindow - tail);
    history.erase(history.begin(), history.end() - static_cast<std::ptrdiff_t>(keep));
    for (std::size_t k = 0; k < tail; ++k)
      history.push_back(s[k] < 256 ? static_cast<std::uint8_t>(s[k]) : c->window[s[k] - 256]);
    c->size = size;
    const InflateResult& res = c->result;
    c->end_byte = deflate_at + (res.status == Status::boundary || res.status == Status::final_block
                                    ? (res.end.bit + 7) / 8 : res.error_bit / 8);
  }
  pool.run(r.kept.size(), [&](std::size_t k) {
    Chunk& c = *r.kept[k];
    narrow_symbols(c.symbols.data() + c.prefix, c.size, c.window, reinterpret_cast<std::uint8_t*>(c.symbols.data()));
    c.crc = crc32_gzip_refl(0, c.bytes(), c.size);
  });
  const InflateResult& end = cur->result;
  if (end.status == Status::boundary) {
    pos = end.end;
    return true;
  }
  if (end.status != Status::final_block)
    r.error = error_at(deflate_at + end.error_bit / 8, end.status == Status::truncated
                                                            ? "unexpected end of file inside a gzip member"
                                                            : "invalid deflate data");
  pos = end.end;
  r.last = true;
  return false;
}

void ParallelGzipMemberSource::State::produce() {
  const GzipHeader header = parse_gzip_header(data);
  ByteSpan deflate = data.subspan(header.size);
  BlockStart pos{0, false};
  std::vector<std::uint8_t> history;
  history.reserve(kDeflateWindow);
  std::uint32_t crc = 0;
  std::uint64_t total = 0;
  std::size_t chunk_bytes = options.chunk_bytes;
  for (bool more = true; more;) {
    Round* r;
    {
      std::unique_lock lock(mutex);
      changed.wait(lock, [&] { return closing || !free.empty(); });
      if (closing) return;
      r = free.front();
      free.pop_front();
    }
    if (header.error) {
      r->kept.clear();
      r->piece = r->at = 0;
      r->error = error_at(header.truncated ? data.size() : 0, header.error);  // ISA-L: after all it read
      r->last = true;
      publish(r);
      return;
    }
    const std::uint64_t from = pos.bit;
    try {
      more = decode_round(*r, deflate, pos, history, chunk_bytes, header.size);
    } catch (...) {
      r->kept.clear();
      r->error = std::current_exception();
      r->last = true;
      more = false;
    }
    std::uint64_t out = 0;
    for (const Chunk* c : r->kept) {
      crc = static_cast<std::uint32_t>(crc32_combine(crc, c->crc, static_cast<z_off_t>(c->size)));
      out += c->size;
    }
    total += out;
    if (!more && !r->error) {
      // The trailer: CRC-32 and ISIZE of the member, at the byte after its last block.
      const std::size_t at = header.size + static_cast<std::size_t>((pos.bit + 7) / 8);
      if (at + 8 > data.size()) {
        r->error = error_at(data.size(), "unexpected end of file inside a gzip member");
      } else {
        const auto le32 = [&](std::size_t i) {
          return std::uint32_t{data[i]} | std::uint32_t{data[i + 1]} << 8 | std::uint32_t{data[i + 2]} << 16 |
                 std::uint32_t{data[i + 3]} << 24;
        };
        if (le32(at) != crc || le32(at + 4) != static_cast<std::uint32_t>(total))
          r->error = error_at(at + 8, "checksum mismatch");  // after the trailer, as ISA-L reports it
        member_bytes = at + 8;
        if (!r->kept.empty()) r->kept.back()->end_byte = at + 8;
      }
    }
    // The next chunks are sized by this round's ratio so they fill about half their output
    // limit: a chunk that reaches it ends its round, wasting the chunks after it.
    const double in_bytes = static_cast<double>(std::max<std::uint64_t>(1, (pos.bit - from) / 8));
    const double fill = static_cast<double>(kOutputPerChunk * options.chunk_bytes) / 2 * in_bytes /
                        static_cast<double>(std::max<std::uint64_t>(out, 1));
    // Clamped as a double: corrupt data can make the ratio, and `fill`, larger than any size_t.
    const double least = static_cast<double>(std::max<std::size_t>(options.chunk_bytes / 16, 512));
    chunk_bytes = static_cast<std::size_t>(
        std::clamp(fill, least, std::max(least, static_cast<double>(options.chunk_bytes))));
    publish(r);
  }
}

ParallelGzipMemberSource::ParallelGzipMemberSource(std::string name, ByteSpan data, std::uint64_t base_offset,
                                                   ParallelInflateOptions options)
    : s_(std::make_unique<State>(std::move(name), data, base_offset, options)) {}

ParallelGzipMemberSource::~ParallelGzipMemberSource() {
  cancel();
  s_->producer.join();
}

void ParallelGzipMemberSource::cancel() {
  {
    std::lock_guard lock(s_->mutex);
    s_->closing = true;
  }
  s_->changed.notify_all();
}

std::uint64_t ParallelGzipMemberSource::raw_offset() const { return s_->raw.load(); }
std::uint64_t ParallelGzipMemberSource::member_bytes() const { return s_->member_bytes; }

std::size_t ParallelGzipMemberSource::read(std::uint8_t* out, std::size_t capacity) {
  State& s = *s_;
  std::size_t done = 0;
  while (done < capacity) {
    if (!s.reading) {
      if (done > 0) return done;  // bytes at hand go out before waiting for the next round
      std::unique_lock lock(s.mutex);
      s.changed.wait(lock, [&] { return s.closing || !s.ready.empty(); });
      if (s.ready.empty()) return 0;
      s.reading = s.ready.front();
      s.ready.pop_front();
    }
    Round& r = *s.reading;
    if (r.piece < r.kept.size()) {
      Chunk& c = *r.kept[r.piece];
      const std::size_t n = std::min(capacity - done, c.size - r.at);
      std::memcpy(out + done, c.bytes() + r.at, n);
      done += n;
      r.at += n;
      if (r.at == c.size) {
        s.raw = s.base + c.end_byte;
        ++r.piece;
        r.at = 0;
      }
      continue;
    }
    if (r.error) {
      if (done > 0) return done;
      const std::exception_ptr e = r.error;
      r.error = nullptr;
      std::rethrow_exception(e);
    }
    if (r.last) return done;  // the member's end (no round follows)
    {
      std::lock_guard lock(s.mutex);
      s.free.push_back(s.reading);
      s.reading = nullptr;
    }
    s.changed.notify_all();
  }
  return done;
}

}  // namespace warpmatch::io
