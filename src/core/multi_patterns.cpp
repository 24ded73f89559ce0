// Compiling a multi-pattern set: the flat pattern set, the fast filter's prefix index, the
// M-BNDM plan of seed paper 002, and the pattern-file parser of `find -f`.
#include "core/multi_patterns.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>

#include "warpmatch/multi.hpp"

namespace warpmatch::core {

PatternSet make_pattern_set(const std::vector<std::string>& patterns, bool case_insensitive) {
  if (patterns.empty()) throw InvalidArgument("empty pattern set: give at least one pattern");
  if (patterns.size() >= (1ull << 31))
    throw InvalidArgument("too many patterns: " + std::to_string(patterns.size()) +
                          " (at most 2^31 - 1)");
  PatternSet set;
  set.case_insensitive = case_insensitive;
  std::uint64_t total = 0;
  for (const auto& p : patterns) total += p.size();
  set.bytes.reserve(total);
  set.offsets.reserve(patterns.size() + 1);
  set.offsets.push_back(0);
  set.min_length = ~0ull;
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    const std::string& p = patterns[i];
    if (p.empty())
      throw InvalidArgument("empty pattern at index " + std::to_string(i) +
                            ": every pattern needs at least one byte");
    for (const char ch : p) {
      const auto c = static_cast<std::uint8_t>(ch);
      set.bytes.push_back(case_insensitive ? fold_ascii(c) : c);
    }
    set.offsets.push_back(set.bytes.size());
    set.min_length = std::min<std::uint64_t>(set.min_length, p.size());
    set.max_length = std::max<std::uint64_t>(set.max_length, p.size());
  }
  return set;
}

namespace {

std::uint64_t head_word(ByteSpan p) {
  std::uint64_t w = 0;
  std::memcpy(&w, p.data(), std::min<std::size_t>(8, p.size()));
  return w;  // little-endian host (x86-64, and the GPU)
}

int log2_ceil(std::uint64_t x) { return x <= 1 ? 0 : 64 - std::countl_zero(x - 1); }

/// Hashed bitmaps get ~32 bits per key (few false positives), within cache-friendly bounds.
int bits_for(std::uint64_t keys) { return std::clamp(log2_ceil(keys * 32), 12, 23); }

/// A bitmap tested at every text position (the 4-byte one, the 8-byte scan one; the GPU keeps
/// it in shared memory up to 2^18 bits): small sets get up to 256 bits per key, so that few
/// positions pass it.
int scan_bits_for(std::uint64_t keys) { return std::max(bits_for(keys), std::min(18, log2_ceil(keys * 256))); }

/// The 8-byte scan bitmap of a set whose patterns all have >= 8 bytes (their first 8 bytes
/// are index.head8), where its 4-byte prefixes cover enough of their alphabet (PrefixIndex).
void build_key8_scan(PrefixIndex& index) {
  const std::vector<std::uint64_t>& heads = index.head8;
  bool alphabet[256] = {};
  std::vector<std::uint32_t> prefixes4;
  prefixes4.reserve(heads.size());
  for (const std::uint64_t h : heads) {
    prefixes4.push_back(static_cast<std::uint32_t>(h));
    for (int b = 0; b < 4; ++b) alphabet[(h >> (8 * b)) & 0xff] = true;
  }
  std::sort(prefixes4.begin(), prefixes4.end());
  const auto distinct4 =
      static_cast<std::uint64_t>(std::unique(prefixes4.begin(), prefixes4.end()) - prefixes4.begin());
  const auto letters = static_cast<std::uint64_t>(std::count(std::begin(alphabet), std::end(alphabet), true));
  if (letters > 16 || distinct4 * 8 < letters * letters * letters * letters) return;
  index.key8_bits = scan_bits_for(heads.size());
  index.key8.assign((1ull << index.key8_bits) / 64, 0);
  for (const std::uint64_t h : heads) {
    const std::uint32_t b =
        prefix_hash8(static_cast<std::uint32_t>(h), static_cast<std::uint32_t>(h >> 32), index.key8_bits);
    index.key8[b >> 6] |= 1ull << (b & 63);
  }
}

/// The long-key scan bitmap (PrefixIndex::long_key) where it pays: every pattern has at least
/// 5 bytes, the scan key in use (8 bytes with key8, else 4) would pass more than one start in
/// 8 of random text over the patterns' alphabet (distinct keys / letters^q), and L bytes, L =
/// min(shortest, 16) > q, give at least 64 times the set's size in distinct strings.
void build_long_key_scan(PrefixIndex& index, const PatternSet& set) {
  const std::size_t n = set.size();
  const int length = static_cast<int>(std::min<std::uint64_t>(set.min_length, 16));
  const int q = index.key8_scan() ? 8 : 4;
  if (n == 0 || length < 5 || length <= q) return;
  bool alphabet[256] = {};
  std::vector<std::uint64_t> keys;
  keys.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const ByteSpan p = set.pattern(i);
    for (int b = 0; b < length; ++b) alphabet[p[b]] = true;
    keys.push_back(index.head8[i] & low_bytes_mask(q));
  }
  std::sort(keys.begin(), keys.end());
  const auto distinct = static_cast<double>(std::unique(keys.begin(), keys.end()) - keys.begin());
  const auto letters = static_cast<double>(std::count(std::begin(alphabet), std::end(alphabet), true));
  if (distinct * 8 < std::pow(letters, q) || std::pow(letters, length) < 64.0 * static_cast<double>(n)) return;
  // ~64 bits per pattern (about 1.5 % of the bits set): the starts that pass each cost a trie
  // walk of several cache misses, the test itself one gather from this bitmap (16 MiB at most).
  index.long_key_bytes = length;
  index.long_key_bits = std::clamp(log2_ceil(n * 64), 18, 27);
  index.long_key.assign((1ull << index.long_key_bits) / 64, 0);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t w[4] = {};
    std::memcpy(w, set.pattern(i).data(), static_cast<std::size_t>(length));
    const std::uint32_t b = prefix_hash_long(w[0], w[1], w[2], w[3], index.long_key_bits);
    index.long_key[b >> 6] |= 1ull << (b & 63);
  }
}

}  // namespace

std::uint64_t PrefixIndex::memory_bytes() const {
  std::uint64_t b = (bit1.size() + bit2.size() + bit3.size() + bit4.size() + bit8.size() + key8.size() +
                     long_key.size()) * 8 +
                    ids.size() * 4 + head8.size() * 8 + short_gate.size() * 4;
  for (const auto& t : table) b += t.size() * sizeof(PrefixTableEntry);
  return b;
}

PrefixIndex build_prefix_index(const PatternSet& set, bool long_key) {
  PrefixIndex index;
  const std::size_t n = set.size();
  index.head8.resize(n);
  std::uint64_t per_class[kPrefixClasses] = {};
  for (std::size_t i = 0; i < n; ++i) {
    index.head8[i] = head_word(set.pattern(i));
    ++per_class[prefix_class(prefix_key_length(set.length(i)))];
  }
  index.bit1.assign(4, 0);
  index.bit2.assign(1024, 0);
  index.bits3 = bits_for(per_class[2]);
  index.bits4 = scan_bits_for(per_class[3] + per_class[4]);
  index.bits8 = bits_for(per_class[4]);
  index.bit3.assign((1ull << index.bits3) / 64, 0);
  index.bit4.assign((1ull << index.bits4) / 64, 0);
  index.bit8.assign((1ull << index.bits8) / 64, 0);

  // Order ids by (class, key, id) so every key's ids are one ascending range.
  struct Keyed {
    std::uint64_t key;
    std::uint32_t cls, id;
  };
  std::vector<Keyed> keyed(n);
  for (std::size_t i = 0; i < n; ++i) {
    const int q = prefix_key_length(set.length(i));
    const std::uint64_t key = index.head8[i] & low_bytes_mask(q);
    keyed[i] = {key, static_cast<std::uint32_t>(prefix_class(q)), static_cast<std::uint32_t>(i)};
    index.class_mask |= 1u << prefix_class(q);
    auto set_bit = [](std::vector<std::uint64_t>& bits, std::uint64_t b) {
      bits[b >> 6] |= 1ull << (b & 63);
    };
    if (q < 4) {
      if (index.short_gate.empty()) index.short_gate.assign(65536 / 32, 0);
      for (std::uint64_t next = 0; next < (q == 1 ? 256 : 1); ++next) {
        const std::uint64_t k = (key & 0xffff) | next << 8;
        index.short_gate[k >> 5] |= 1u << (k & 31);
      }
    }
    switch (q) {
      case 1: set_bit(index.bit1, key); break;
      case 2: set_bit(index.bit2, key); break;
      case 3: set_bit(index.bit3, prefix_hash(key) >> (64 - index.bits3)); break;
      case 4: set_bit(index.bit4, prefix_hash4(key, index.bits4)); break;
      default:
        set_bit(index.bit4, prefix_hash4(key, index.bits4));
        set_bit(index.bit8, prefix_hash(key) >> (64 - index.bits8));
    }
  }
  if (index.class_mask == 1u << prefix_class(8)) build_key8_scan(index);
  if (long_key) build_long_key_scan(index, set);
  std::sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) {
    if (a.cls != b.cls) return a.cls < b.cls;
    if (a.key != b.key) return a.key < b.key;
    return a.id < b.id;
  });
  index.ids.resize(n);
  std::uint64_t distinct[kPrefixClasses] = {};
  for (std::size_t i = 0; i < n; ++i) {
    index.ids[i] = keyed[i].id;
    if (i == 0 || keyed[i].cls != keyed[i - 1].cls || keyed[i].key != keyed[i - 1].key)
      ++distinct[keyed[i].cls];
  }
  for (int c = 0; c < kPrefixClasses; ++c)
    if (distinct[c]) index.table[c].resize(1ull << std::max(4, log2_ceil(distinct[c] * 2)));
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i + 1;
    while (j < n && keyed[j].cls == keyed[i].cls && keyed[j].key == keyed[i].key) ++j;
    auto& table = index.table[keyed[i].cls];
    const std::uint64_t mask = table.size() - 1;
    std::uint64_t slot = prefix_hash(keyed[i].key) >> 20 & mask;
    while (table[slot].count != 0) slot = (slot + 1) & mask;
    table[slot] = {keyed[i].key, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j - i)};
    i = j;
  }
  return index;
}

// ---- M-BNDM --------------------------------------------------------------------------

std::uint64_t MbndmPlan::memory_bytes() const {
  return subsets.size() * sizeof(MbndmSubset) + members.size() * 4 + tables.size() * 8;
}

MbndmPlan build_mbndm_plan(const PatternSet& set, int keywords_per_word, int window_cap) {
  keywords_per_word = std::clamp(keywords_per_word, 1, 64);
  window_cap = std::clamp(window_cap, 1, 64);
  const std::size_t n = set.size();
  // Patterns of similar length share a subset, so each subset's window (its shortest
  // member, capped) stays long and its shifts large.
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return set.length(a) < set.length(b);
  });
  MbndmPlan plan;
  plan.members.reserve(n);
  for (std::size_t i = 0; i < n;) {
    const auto w = static_cast<std::uint32_t>(std::min<std::uint64_t>(set.length(order[i]), window_cap));
    const std::size_t r = std::min<std::size_t>({static_cast<std::size_t>(64 / w),
                                                 static_cast<std::size_t>(keywords_per_word), n - i});
    MbndmSubset s;
    s.window = w;
    s.first = static_cast<std::uint32_t>(plan.members.size());
    s.count = static_cast<std::uint32_t>(r);
    const std::size_t table_at = plan.tables.size();
    plan.tables.resize(table_at + 256, 0);
    std::uint64_t* B = plan.tables.data() + table_at;
    for (std::size_t k = 0; k < r; ++k) {
      const std::uint32_t id = order[i + k];
      plan.members.push_back(id);
      const ByteSpan p = set.pattern(id);
      const std::uint64_t block = 1ull << (k * w);
      s.prefix_bits |= block << (w - 1);
      s.all_bits |= (w == 64 ? ~0ull : ((1ull << w) - 1)) << (k * w);
      for (std::uint32_t j = 0; j < w; ++j) {
        const std::uint64_t bit = block << (w - 1 - j);
        const std::uint8_t c = p[j];  // already folded when ci
        B[c] |= bit;
        if (set.case_insensitive && c >= 'a' && c <= 'z') B[c - 32] |= bit;
      }
    }
    std::uint64_t lowest = 0;
    for (std::size_t k = 0; k < r; ++k) lowest |= 1ull << (k * w);
    s.keep_bits = s.all_bits & ~lowest;
    plan.subsets.push_back(s);
    i += r;
  }
  return plan;
}

}  // namespace warpmatch::core

// ---- pattern files (public: the CLI and library users read the same format) ------------

namespace warpmatch {

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

PatternList parse_pattern_file(std::string_view content, bool fixed_lines, std::string_view source) {
  PatternList list;
  std::size_t pos = 0;
  while (pos < content.size()) {
    std::size_t eol = content.find('\n', pos);
    if (eol == std::string_view::npos) eol = content.size();
    std::string_view line = content.substr(pos, eol - pos);
    const std::uint64_t line_index = list.lines++;
    pos = eol + 1;
    if (!fixed_lines && !line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    std::string pattern;
    if (fixed_lines) {
      pattern.assign(line);
    } else {
      pattern.reserve(line.size());
      for (std::size_t i = 0; i < line.size(); ++i) {
        if (line[i] != '\\') {
          pattern.push_back(line[i]);
          continue;
        }
        auto bad = [&](const std::string& why) {
          throw InvalidArgument(std::string(source) + ":" + std::to_string(line_index + 1) +
                                ": " + why + " (escapes are \\xNN and \\\\; take lines verbatim with "
                                "fixed_lines)");
        };
        if (i + 1 >= line.size()) bad("backslash at end of line");
        if (line[i + 1] == '\\') {
          pattern.push_back('\\');
          i += 1;
        } else if (line[i + 1] == 'x') {
          const int hi = i + 2 < line.size() ? hex_value(line[i + 2]) : -1;
          const int lo = i + 3 < line.size() ? hex_value(line[i + 3]) : -1;
          if (hi < 0 || lo < 0) bad("\\x needs two hex digits");
          pattern.push_back(static_cast<char>(hi * 16 + lo));
          i += 3;
        } else {
          bad(std::string("unknown escape \\") + line[i + 1]);
        }
      }
    }
    list.patterns.push_back(std::move(pattern));
    list.line_index.push_back(line_index);
  }
  return list;
}

}  // namespace warpmatch
