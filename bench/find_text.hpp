// The generated text of `warpmatch-bench find` (bench_find.cpp): English-like words drawn
// Zipf-like (exponent 1) from a vocabulary whose most frequent words are those of real English
// ("the" first), then a word list (e.g. /usr/share/dict/words) or built-in pseudo-words, in
// sentences with punctuation and lines of at most ~80 bytes; a rare word ("Sherlock", kept out
// of the vocabulary) planted about 50 times. The generator counts, as it writes, every
// occurrence of each benchmark pattern and every line holding one: the oracle of every row.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "warpmatch/common.hpp"

namespace warpmatch::bench::find_text {

constexpr std::uint64_t kSeed = 0x77617270'6d617463ull;  // "warpmatc"
constexpr std::size_t kPatterns = 2;  // 0: the rare word, 1: "the"
constexpr std::size_t kLineWidth = 80;
constexpr std::uint64_t kMinTextBytes = 4096;
constexpr double kZipfExponent = 1.0;

struct Word {
  std::uint32_t offset = 0;  // into Model::pool
  std::uint16_t length = 0;
  // occurrences of pattern k in the word as written mid-sentence [0] / capitalized [1]
  std::array<std::array<std::uint8_t, 2>, kPatterns> count{};
};

struct AliasTable;  // Zipf sampling in O(1) (find_text.cpp)

/// The vocabulary by rank, the planted word and the benchmark's patterns.
struct Model {
  Model();
  ~Model();
  Model(Model&&) noexcept;
  Model& operator=(Model&&) noexcept;
  std::string pool;
  std::vector<Word> words;  // by rank
  Word rare;                // the planted word
  std::array<std::string, kPatterns> patterns;
  std::unique_ptr<AliasTable> zipf;
  std::string source;       // where the vocabulary came from
  std::size_t common = 0;     // leading ranks: common English words
  std::size_t from_list = 0;
};

/// The vocabulary: common English words, then `words_file` (shuffled by a fixed seed) or,
/// when it is empty, unreadable or too small (a note is printed), built-in pseudo-words.
Model build_model(const std::string& words_file);

/// What the generator wrote: per pattern, occurrences and lines holding one.
struct Tally {
  std::array<std::uint64_t, kPatterns> occurrences{};
  std::array<std::uint64_t, kPatterns> lines_with{};
  std::uint64_t lines = 0, words = 0, planted = 0;
  void add(const Tally& o);
};

struct Text {
  std::unique_ptr<std::uint8_t[]> data;
  std::uint64_t size = 0;
  Tally tally;
  double seconds = 0;
  ByteSpan span() const { return {data.get(), static_cast<std::size_t>(size)}; }
};

/// `bytes` of text, deterministic for a given size and model, generated in 16 MiB chunks on
/// `threads` threads.
Text generate_text(const Model& m, std::uint64_t bytes, int threads);

}  // namespace warpmatch::bench::find_text
