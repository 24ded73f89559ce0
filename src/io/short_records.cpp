// Short records parsed on all threads at once (see short_records.hpp). The rules are the
// stream parser's (text_stream.cpp): a record's name is its header's first word, FASTQ's
// quality line is as long as its sequence line, FASTA's sequence lines lose their "\n".
#include "io/short_records.hpp"

#include <algorithm>
#include <cstring>

#include "io/line_breaks.hpp"

namespace warpmatch::io::detail {

namespace {

constexpr std::size_t kNone = Newlines::kNone;
// A piece is at least this long: its first record is found by looking at a few lines, and a
// pool's round costs ~10 us, so smaller pieces would not pay.
constexpr std::size_t kPieceBytes = std::size_t{256} << 10;
constexpr std::size_t kPiecesPerThread = 4;  // uneven pieces (a long record) even out

// One record found in the input: its name's bytes, and its sequence's (FASTQ: the sequence
// line; FASTA: the lines up to the next header, line breaks included).
struct Found {
  std::size_t name_in = 0, name_size = 0, body_in = 0, body_size = 0, sequence_size = 0;
  bool has_cr = false;  // FASTA lines with '\r': copied by without_line_breaks
};

// The bytes of p[0, n) that a record's sequence keeps when its line breaks go, by the stream
// parser's rules: every "\n", the '\r' of every "\r\n", and a '\r' that ends the input
// (`ends_input`) are dropped; another '\r' is data. Copied to out when it is not null.
std::size_t without_line_breaks(const std::uint8_t* p, std::size_t n, bool ends_input, std::uint8_t* out) {
  std::size_t kept = 0;
  for (std::size_t a = 0; a < n;) {
    const auto* q = static_cast<const std::uint8_t*>(std::memchr(p + a, '\n', n - a));
    const std::size_t b = q ? static_cast<std::size_t>(q - p) : n;
    std::size_t line = b - a;
    if (line > 0 && p[b - 1] == '\r' && (q || ends_input)) --line;
    if (out) std::memcpy(out + kept, p + a, line);
    kept += line;
    a = q ? b + 1 : n;
  }
  return kept;
}

struct Piece {
  std::size_t begin = kNone;  // its first record's start; kNone: none starts in the piece
  std::size_t end = 0;        // after its last record taken
  bool stopped = false;       // a record that starts in it is not plain or not whole
  std::uint64_t lines = 0;
  std::size_t sequence_bytes = 0, name_bytes = 0;
  std::vector<Found> found;
};

class Records {
 public:
  Records(const std::uint8_t* p, std::size_t n, bool input_ends, Format format)
      : p_(p), n_(n), input_ends_(input_ends), fastq_(format == Format::fastq) {}

  // The records that start in [a, b), from the first record start at or after a (a == 0 is
  // one), each taken while it is plain and whole.
  void parse(std::size_t a, std::size_t b, Piece& piece) const {
    Newlines nl(p_, n_);
    std::size_t s = a == 0 ? 0 : first_record_at(nl, a, b);
    if (s == kNone) return;
    piece.begin = s;
    while (s < b) {
      Found f;
      std::size_t end = 0;
      std::uint64_t lines = 0;
      if (!(fastq_ ? fastq_record(nl, s, f, end, lines) : fasta_record(nl, s, f, end, lines))) {
        piece.stopped = true;
        break;
      }
      piece.found.push_back(f);
      piece.lines += lines;
      piece.sequence_bytes += f.sequence_size;
      piece.name_bytes += f.name_size;
      s = end;
    }
    piece.end = s;
  }

 private:
  std::size_t first_record_at(Newlines& nl, std::size_t a, std::size_t b) const {
    if (!fastq_) return fasta_header_in(a, b);
    // A line that starts with '@' whose second line after it starts with '+': a header (a
    // quality line that starts with '@' is followed by a header and a sequence line).
    std::size_t k = a;
    if (p_[a - 1] != '\n') {
      const std::size_t line_end = nl.at_or_after(a);
      if (line_end == kNone) return kNone;
      k = line_end + 1;
    }
    while (k < b) {
      const std::size_t h = nl.at_or_after(k);
      if (h == kNone) return kNone;
      if (p_[k] == '@') {
        const std::size_t q = nl.at_or_after(h + 1);
        if (q == kNone) return kNone;
        if (q + 1 < n_ && p_[q + 1] == '+') return k;
      }
      k = h + 1;
    }
    return kNone;
  }

  // The first '>' in [from, to) that starts a line (a FASTA header; from >= 1); kNone if none.
  std::size_t fasta_header_in(std::size_t from, std::size_t to) const {
    for (std::size_t k = from; k < to;) {
      const auto* g = static_cast<const std::uint8_t*>(std::memchr(p_ + k, '>', to - k));
      if (!g) return kNone;
      const auto at = static_cast<std::size_t>(g - p_);
      if (p_[at - 1] == '\n') return at;
      k = at + 1;
    }
    return kNone;
  }

  std::size_t name_size(std::size_t from, std::size_t to) const {
    std::size_t i = from;
    while (i < to && !is_blank(p_[i])) ++i;
    return i - from;
  }

  // The FASTQ record at s when it is plain and whole: four lines ("\n" or "\r\n"), the third
  // starting with '+', the quality line as long as the sequence line.
  bool fastq_record(Newlines& nl, std::size_t s, Found& f, std::size_t& end, std::uint64_t& lines) const {
    if (p_[s] != '@') return false;  // a blank line, or not FASTQ: the stream's parser says which
    const std::size_t h = nl.at_or_after(s);
    if (h == kNone) return false;
    const std::size_t q = nl.at_or_after(h + 1);  // the sequence line is [h + 1, q), less a '\r' before its "\n"
    if (q == kNone) return false;
    if (q + 1 >= n_ || p_[q + 1] != '+') return false;
    const std::size_t plus = nl.at_or_after(q + 1);
    if (plus == kNone || plus + 1 >= n_) return false;  // no quality line at all: truncated
    std::size_t e = nl.at_or_after(plus + 1);
    lines = 4;
    if (e == kNone) {  // the last line of the input, without its "\n"
      if (!input_ends_) return false;
      e = n_;
      lines = 3;
    }
    // "\r\n" is a line break too, and a '\r' that ends the input is dropped (the stream
    // parser's rules): files written on Windows parse here as well.
    const std::size_t sequence = q - (h + 1) - (q > h + 1 && p_[q - 1] == '\r');
    const std::size_t quality = e - (plus + 1) - (e > plus + 1 && p_[e - 1] == '\r');
    if (quality != sequence) return false;
    f = {s + 1, name_size(s + 1, h), h + 1, sequence, sequence};
    end = e == n_ ? n_ : e + 1;
    return true;
  }

  // The FASTA record at s when it is whole (its next header or the input's end is in the
  // buffer).
  bool fasta_record(Newlines& nl, std::size_t s, Found& f, std::size_t& end, std::uint64_t& lines) const {
    if (p_[s] != '>') return false;
    const std::size_t h = nl.at_or_after(s);
    if (h == kNone) return false;
    std::size_t e = fasta_header_in(h + 1, n_);
    if (e == kNone) {
      if (!input_ends_) return false;
      e = n_;
    }
    const ByteCensus census = byte_census(p_ + h + 1, e - (h + 1));
    const std::size_t kept = census.has_cr ? without_line_breaks(p_ + h + 1, e - (h + 1), e == n_, nullptr)
                                           : e - (h + 1) - census.newlines;
    f = {s + 1, name_size(s + 1, h), h + 1, e - (h + 1), kept, census.has_cr};
    lines = 1 + census.newlines;
    end = e;
    return true;
  }

  const std::uint8_t* p_;
  std::size_t n_;
  bool input_ends_;
  bool fastq_;
};

}  // namespace

void parse_short_records(const std::uint8_t* p, std::size_t n, bool input_ends, Format format, std::uint8_t* out,
                         core::WorkerPool& pool, ParsedRecords& into) {
  into.consumed = 0;
  into.lines = 0;
  into.sequence_bytes = 0;
  into.records.clear();
  into.names.clear();
  if (n == 0 || (format != Format::fasta && format != Format::fastq)) return;
  const Records records(p, n, input_ends, format);
  const std::size_t count = std::clamp<std::size_t>(n / kPieceBytes, 1, pool.size() * kPiecesPerThread);
  const std::size_t step = (n + count - 1) / count;
  std::vector<Piece> pieces(count);
  pool.run(count, [&](std::size_t i) { records.parse(i * step, std::min(n, (i + 1) * step), pieces[i]); });

  // Front to back while each piece starts where the records before it ended; a piece inside
  // the last record taken (a long one) has nothing to add.
  std::vector<std::size_t> taken;
  std::size_t cursor = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (cursor >= std::min(n, (i + 1) * step)) continue;
    if (pieces[i].begin != cursor) break;
    taken.push_back(i);
    cursor = pieces[i].end;
    if (pieces[i].stopped) break;
  }
  // Where each taken piece's records, names and sequences go, then all copied at once.
  std::vector<std::size_t> record_at(taken.size() + 1, 0), name_at(taken.size() + 1, 0), sequence_at(taken.size() + 1, 0);
  for (std::size_t t = 0; t < taken.size(); ++t) {
    const Piece& piece = pieces[taken[t]];
    record_at[t + 1] = record_at[t] + piece.found.size();
    name_at[t + 1] = name_at[t] + piece.name_bytes;
    sequence_at[t + 1] = sequence_at[t] + piece.sequence_bytes;
    into.lines += piece.lines;
  }
  if (record_at.back() == 0) return;
  into.records.resize(record_at.back());
  into.names.resize(name_at.back());
  pool.run(taken.size(), [&](std::size_t t) {
    const Piece& piece = pieces[taken[t]];
    std::size_t name = name_at[t], sequence = sequence_at[t];
    ParsedRecord* r = into.records.data() + record_at[t];
    for (const Found& f : piece.found) {
      std::memcpy(into.names.data() + name, p + f.name_in, f.name_size);
      if (f.has_cr)
        without_line_breaks(p + f.body_in, f.body_size, f.body_in + f.body_size == n, out + sequence);
      else if (f.body_size == f.sequence_size)
        std::memcpy(out + sequence, p + f.body_in, f.sequence_size);
      else
        copy_without_newlines(p + f.body_in, f.body_size, out + sequence, out + sequence + f.sequence_size);
      *r++ = {name, f.name_size, sequence, f.sequence_size};
      name += f.name_size;
      sequence += f.sequence_size;
    }
  });
  into.consumed = cursor;
  into.sequence_bytes = sequence_at.back();
}

}  // namespace warpmatch::io::detail
