#include "bench/find_text.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <span>
#include <unordered_set>

#include <fmt/format.h>

#include "bench/bench_support.hpp"
#include "core/parallel.hpp"

namespace warpmatch::bench::find_text {

using support::lower_ascii;
using support::SplitMix64;
using support::trim;
using Clock = std::chrono::steady_clock;

// ---- fixed parameters of the generated text ---------------------------------------------
constexpr std::string_view kRareWord = "Sherlock";
constexpr std::string_view kCommonWord = "the";
constexpr std::uint64_t kPlants = 50;
constexpr std::uint64_t kChunkBytes = 16ull << 20;  // generated independently, in parallel
constexpr std::size_t kMaxWordBytes = 40;
constexpr std::size_t kPseudoWords = 60000;

// The most frequent English words, most frequent first: ranks 1.. of the Zipf law.
constexpr std::string_view kCommonEnglish[] = {
    "the",   "of",    "and",    "to",     "a",      "in",     "is",     "you",   "that",
    "it",    "he",    "was",    "for",    "on",     "are",    "as",     "with",  "his",
    "they",  "I",     "at",     "be",     "this",   "have",   "from",   "or",    "one",
    "had",   "by",    "word",   "but",    "not",    "what",   "all",    "were",  "we",
    "when",  "your",  "can",    "said",   "there",  "use",    "an",     "each",  "which",
    "she",   "do",    "how",    "their",  "if",     "will",   "up",     "other", "about",
    "out",   "many",  "then",   "them",   "these",  "so",     "some",   "her",   "would",
    "make",  "like",  "him",    "into",   "time",   "has",    "look",   "two",   "more",
    "write", "go",    "see",    "number", "no",     "way",    "could",  "people", "my",
    "than",  "first", "water",  "been",   "call",   "who",    "oil",    "its",   "now",
    "find",  "long",  "down",   "day",    "did",    "get",    "come",   "made",  "may",
    "part",  "over",  "new",    "sound",  "take",   "only",   "little", "work",  "know",
    "place", "year",  "live",   "me",     "back",   "give",   "most",   "very",  "after",
    "thing", "our",   "just",   "name",   "good",   "sentence", "man",  "think", "say"};

std::uint64_t count_occurrences(std::string_view text, std::string_view pattern) {
  std::uint64_t n = 0;
  for (std::size_t pos = text.find(pattern); pos != std::string_view::npos;
       pos = text.find(pattern, pos + 1))
    ++n;
  return n;
}

std::string capitalized(std::string_view w) {
  std::string s(w);
  if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 32);
  return s;
}


struct AliasTable {
  std::vector<std::uint32_t> threshold;  // keep index i when low 32 bits < threshold[i]
  std::vector<std::uint32_t> alias;

  explicit AliasTable(const std::vector<double>& weights) {
    const std::size_t n = weights.size();
    threshold.assign(n, 0);
    alias.assign(n, 0);
    double total = 0;
    for (double w : weights) total += w;
    std::vector<double> scaled(n);
    std::vector<std::uint32_t> small, large;
    for (std::size_t i = 0; i < n; ++i) {
      scaled[i] = weights[i] * static_cast<double>(n) / total;
      (scaled[i] < 1.0 ? small : large).push_back(static_cast<std::uint32_t>(i));
    }
    auto to_threshold = [](double p) {
      return static_cast<std::uint32_t>(std::min(4294967295.0, std::ldexp(p, 32)));
    };
    while (!small.empty() && !large.empty()) {
      const std::uint32_t s = small.back(), l = large.back();
      small.pop_back();
      threshold[s] = to_threshold(scaled[s]);
      alias[s] = l;
      scaled[l] -= 1.0 - scaled[s];
      if (scaled[l] < 1.0) {
        large.pop_back();
        small.push_back(l);
      }
    }
    for (auto i : large) threshold[i] = 0xffffffffu, alias[i] = i;
    for (auto i : small) threshold[i] = 0xffffffffu, alias[i] = i;
  }
  std::uint32_t sample(SplitMix64& rng) const {
    const std::uint64_t r = rng.next();
    const auto i = static_cast<std::uint32_t>(((r >> 32) * threshold.size()) >> 32);
    return static_cast<std::uint32_t>(r) < threshold[i] ? i : alias[i];
  }
};


namespace {

void add_word(Model& m, std::string_view w) {
  Word word;
  word.offset = static_cast<std::uint32_t>(m.pool.size());
  word.length = static_cast<std::uint16_t>(w.size());
  m.pool.append(w);
  const std::string cap = capitalized(w);
  for (std::size_t k = 0; k < kPatterns; ++k) {
    word.count[k][0] = static_cast<std::uint8_t>(std::min<std::uint64_t>(255, count_occurrences(w, m.patterns[k])));
    word.count[k][1] = static_cast<std::uint8_t>(std::min<std::uint64_t>(255, count_occurrences(cap, m.patterns[k])));
  }
  m.words.push_back(word);
}

}  // namespace

Model::Model() = default;
Model::~Model() = default;
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;

Model build_model(const std::string& words_file) {
  Model m;
  m.patterns = {std::string(kRareWord), std::string(kCommonWord)};
  const std::string rare_lower = lower_ascii(kRareWord);
  std::unordered_set<std::string> seen;
  for (auto w : kCommonEnglish)
    if (seen.insert(std::string(w)).second) add_word(m, w);
  m.common = m.words.size();
  std::vector<std::string> rest;
  if (!words_file.empty()) {
    std::ifstream in(words_file, std::ios::binary);
    std::string line;
    while (in && std::getline(in, line)) {
      line = trim(line);
      if (line.empty() || line.size() > kMaxWordBytes) continue;
      if (line.find_first_of(" \t\f\v") != std::string::npos) continue;
      if (line.size() > 2 && line.ends_with("'s")) continue;  // wamerican lists every possessive
      if (lower_ascii(line).find(rare_lower) != std::string::npos) continue;  // keep it rare
      if (seen.insert(line).second) rest.push_back(line);
    }
    if (rest.size() >= 1000) {
      m.source = words_file;
    } else {
      fmt::print("note: word list '{}' unreadable or too small ({} usable words); "
                 "using the built-in pseudo-word generator\n", words_file, rest.size());
      rest.clear();
    }
  }
  if (rest.empty()) {
    m.source = "built-in pseudo-words";
    for (auto& w : support::pseudo_words(kPseudoWords, kSeed ^ 0x9e3779b97f4a7c15ull, kRareWord, 7))
      if (seen.insert(w).second) rest.push_back(std::move(w));
  }
  // Deterministic Fisher-Yates: the list's own (alphabetical) order must not set the ranks.
  SplitMix64 rng{kSeed ^ 0x5151515151515151ull};
  for (std::size_t i = rest.size(); i > 1; --i) std::swap(rest[i - 1], rest[rng.below(i)]);
  m.from_list = rest.size();
  for (auto& w : rest) add_word(m, w);

  std::vector<double> weights(m.words.size());
  for (std::size_t r = 0; r < weights.size(); ++r)
    weights[r] = 1.0 / std::pow(static_cast<double>(r + 1), kZipfExponent);
  m.zipf = std::make_unique<AliasTable>(weights);

  // The rare word is kept out of `words`: append it to the pool and describe it apart.
  add_word(m, kRareWord);
  m.rare = m.words.back();
  m.words.pop_back();
  return m;
}

void Tally::add(const Tally& o) {
  for (std::size_t k = 0; k < kPatterns; ++k) {
    occurrences[k] += o.occurrences[k];
    lines_with[k] += o.lines_with[k];
  }
  lines += o.lines, words += o.words, planted += o.planted;
}

/// Fills out[0, len) with sentences; ends with '\n'. `plants` are sorted offsets in the chunk
/// at which the rare word replaces the next word drawn.
Tally generate_chunk(std::uint8_t* out, std::uint64_t len, std::uint64_t chunk_index,
                     const Model& m, std::span<const std::uint64_t> plants) {
  Tally t;
  SplitMix64 rng{kSeed + 0x632be59bd9b4e019ull * (chunk_index + 1)};
  std::uint8_t* p = out;
  std::uint8_t* const end = out + len;
  std::size_t line_len = 0;
  bool sentence_start = true;
  std::uint64_t words_left = 4 + rng.below(21);
  std::array<bool, kPatterns> line_has{};
  std::size_t next_plant = 0;
  const char* pool = m.pool.data();

  auto end_line = [&] {
    *p++ = '\n';
    ++t.lines;
    for (std::size_t k = 0; k < kPatterns; ++k) {
      t.lines_with[k] += line_has[k];
      line_has[k] = false;
    }
    line_len = 0;
  };

  for (;;) {
    const bool plant = next_plant < plants.size() &&
                       static_cast<std::uint64_t>(p - out) >= plants[next_plant];
    const Word& w = plant ? m.rare : m.words[m.zipf->sample(rng)];
    // separator, word, punctuation, paragraph break and the final newline must fit
    if (static_cast<std::uint64_t>(end - p) < w.length + 6u) break;
    if (plant) ++next_plant, ++t.planted;
    if (line_len > 0) {
      if (line_len + 1 + w.length + 1 > kLineWidth) {
        end_line();
      } else {
        *p++ = ' ';
        ++line_len;
      }
    }
    std::memcpy(p, pool + w.offset, w.length);
    const int form = sentence_start ? 1 : 0;
    if (sentence_start && *p >= 'a' && *p <= 'z') *p = static_cast<std::uint8_t>(*p - 32);
    for (std::size_t k = 0; k < kPatterns; ++k) {
      t.occurrences[k] += w.count[k][form];
      if (w.count[k][form]) line_has[k] = true;
    }
    p += w.length;
    line_len += w.length;
    ++t.words;
    sentence_start = false;
    if (--words_left == 0) {
      const std::uint64_t r = rng.below(100);
      *p++ = r < 85 ? '.' : (r < 93 ? '?' : '!');
      ++line_len;
      sentence_start = true;
      words_left = 4 + rng.below(21);
      if (rng.below(100) < 4) {  // paragraph: an empty line
        end_line();
        end_line();
      }
    } else if (rng.below(100) < 7) {
      *p++ = rng.below(4) ? ',' : ';';
      ++line_len;
    }
  }
  while (p < end - 1) *p++ = ' ';  // pad the chunk's last line (a few bytes at most)
  end_line();
  return t;
}


Text generate_text(const Model& m, std::uint64_t bytes, int threads) {
  Text t;
  t.size = bytes;
  t.data = std::make_unique_for_overwrite<std::uint8_t[]>(bytes);
  const auto t0 = Clock::now();
  const std::uint64_t chunks = std::max<std::uint64_t>(1, bytes / kChunkBytes);
  auto chunk_begin = [&](std::uint64_t c) { return c * kChunkBytes; };
  auto chunk_len = [&](std::uint64_t c) {
    return c + 1 == chunks ? bytes - chunk_begin(c) : kChunkBytes;
  };
  // Plant offsets, chunk-local, kept clear of each chunk's end so each one is written.
  std::vector<std::vector<std::uint64_t>> plants(chunks);
  const std::uint64_t n_plants = std::min<std::uint64_t>(kPlants, std::max<std::uint64_t>(1, bytes / 1024));
  SplitMix64 rng{kSeed ^ 0xa5a5a5a5a5a5a5a5ull};
  for (std::uint64_t i = 0; i < n_plants; ++i) {
    const std::uint64_t pos = rng.below(bytes);
    const std::uint64_t c = std::min(pos / kChunkBytes, chunks - 1);
    plants[c].push_back(std::min(pos - chunk_begin(c), chunk_len(c) - 128));
  }
  for (auto& v : plants) std::sort(v.begin(), v.end());
  std::vector<Tally> tallies(chunks);
  core::parallel_for(chunks, threads, [&](std::size_t c) {
    tallies[c] = generate_chunk(t.data.get() + chunk_begin(c), chunk_len(c), c, m, plants[c]);
  });
  for (auto& x : tallies) t.tally.add(x);
  t.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return t;
}

}  // namespace warpmatch::bench::find_text
