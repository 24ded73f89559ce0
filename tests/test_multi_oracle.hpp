// Independent oracles and inputs for multi-pattern tests: a plain double loop, Hyperscan in
// literal mode (block mode, start of match, one id per pattern), random and adversarial
// pattern sets, and real data (word list, English text, the lambda phage genome).
#pragma once

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "warpmatch/multi.hpp"

#ifdef WARPMATCH_HAVE_HYPERSCAN
#include <hs.h>
#endif

namespace multi_test {

inline char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

inline bool match_order(const warpmatch::Match& a, const warpmatch::Match& b) {
  return a.start != b.start ? a.start < b.start : a.pattern < b.pattern;
}

/// Every pattern compared at every start: the definition of the match set.
inline std::vector<warpmatch::Match> naive_matches(const std::vector<std::string>& patterns,
                                                   const std::string& text, bool ci = false) {
  std::vector<warpmatch::Match> out;
  for (std::uint64_t s = 0; s < text.size(); ++s)
    for (std::uint32_t i = 0; i < patterns.size(); ++i) {
      const std::string& p = patterns[i];
      if (s + p.size() > text.size()) continue;
      bool ok = true;
      for (std::size_t j = 0; j < p.size() && ok; ++j)
        ok = ci ? lower(text[s + j]) == lower(p[j]) : text[s + j] == p[j];
      if (ok) out.push_back({.pattern = static_cast<std::uint32_t>(i), .start = s, .end = s + p.size()});
    }
  return out;
}

#ifdef WARPMATCH_HAVE_HYPERSCAN
/// Hyperscan literal mode with HS_FLAG_SOM_LEFTMOST; nullopt if it refuses the set.
inline std::optional<std::vector<warpmatch::Match>> hyperscan_matches(
    const std::vector<std::string>& patterns, const std::string& text, bool ci = false) {
  std::vector<const char*> exprs;
  std::vector<std::size_t> lens;
  std::vector<unsigned> flags, ids;
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    exprs.push_back(patterns[i].data());
    lens.push_back(patterns[i].size());
    flags.push_back(HS_FLAG_SOM_LEFTMOST | (ci ? HS_FLAG_CASELESS : 0u));
    ids.push_back(static_cast<unsigned>(i));
  }
  hs_database_t* db = nullptr;
  hs_compile_error_t* err = nullptr;
  if (hs_compile_lit_multi(exprs.data(), flags.data(), ids.data(), lens.data(),
                           static_cast<unsigned>(exprs.size()), HS_MODE_BLOCK, nullptr, &db,
                           &err) != HS_SUCCESS) {
    hs_free_compile_error(err);
    return std::nullopt;
  }
  hs_scratch_t* scratch = nullptr;
  hs_alloc_scratch(db, &scratch);
  std::vector<warpmatch::Match> out;
  auto on_match = [](unsigned id, unsigned long long from, unsigned long long to, unsigned,
                     void* ctx) -> int {
    static_cast<std::vector<warpmatch::Match>*>(ctx)->push_back({.pattern = id, .start = from, .end = to});
    return 0;
  };
  hs_scan(db, text.data(), static_cast<unsigned>(text.size()), 0, scratch, on_match, &out);
  hs_free_scratch(scratch);
  hs_free_database(db);
  std::sort(out.begin(), out.end(), match_order);
  return out;
}
#endif

/// The reference set: Hyperscan when built with it (and it accepts the set), else naive.
inline std::vector<warpmatch::Match> oracle_matches(const std::vector<std::string>& patterns,
                                                    const std::string& text, bool ci = false) {
#ifdef WARPMATCH_HAVE_HYPERSCAN
  if (auto hs = hyperscan_matches(patterns, text, ci)) return *hs;
#endif
  return naive_matches(patterns, text, ci);
}

inline std::string random_text(std::mt19937_64& rng, std::size_t n, int alphabet) {
  std::string s(n, '\0');
  std::uniform_int_distribution<int> d(0, alphabet - 1);
  const char base = alphabet == 256 ? 0 : (alphabet == 26 ? 'a' : 'A');
  for (auto& c : s) c = static_cast<char>(base + d(rng));
  if (alphabet == 4)
    for (auto& c : s) c = "ACGT"[(c - 'A') & 3];
  return s;
}

/// Random patterns: lengths skewed short (so some match), some cut from the text itself.
inline std::vector<std::string> random_patterns(std::mt19937_64& rng, std::size_t count,
                                                int alphabet, std::size_t max_len,
                                                const std::string& text) {
  std::vector<std::string> ps;
  std::uniform_int_distribution<std::size_t> len_d(1, max_len);
  for (std::size_t i = 0; i < count; ++i) {
    std::size_t len = std::min(len_d(rng), len_d(rng));  // skew to short
    if (rng() % 2 && text.size() > len) {
      const std::size_t at = rng() % (text.size() - len);
      ps.push_back(text.substr(at, len));
    } else {
      ps.push_back(random_text(rng, len, alphabet));
    }
  }
  return ps;
}

/// `count` random strings of min_len..max_len letters (random_text's alphabets).
inline std::vector<std::string> random_words(std::mt19937_64& rng, std::size_t count, int alphabet,
                                             std::size_t min_len, std::size_t max_len) {
  std::vector<std::string> ws;
  for (std::size_t i = 0; i < count; ++i)
    ws.push_back(random_text(rng, min_len + rng() % (max_len - min_len + 1), alphabet));
  return ws;
}

/// An oracle independent of both the filters and Hyperscan, for large sets: every distinct
/// pattern length looked up at every start in a hash map of the (folded) patterns.
inline std::vector<warpmatch::Match> hashed_matches(const std::vector<std::string>& patterns,
                                                    const std::string& text, bool ci = false) {
  auto fold = [&](std::string s) {
    if (ci) for (auto& c : s) c = lower(c);
    return s;
  };
  std::vector<std::string> keys;
  for (const auto& p : patterns) keys.push_back(fold(p));
  std::unordered_map<std::string_view, std::vector<std::uint32_t>> ids;
  std::set<std::size_t> lengths;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    ids[keys[i]].push_back(static_cast<std::uint32_t>(i));
    lengths.insert(keys[i].size());
  }
  const std::string folded = fold(text);
  const std::string_view view = folded;
  std::vector<warpmatch::Match> out;
  for (std::size_t pos = 0; pos < folded.size(); ++pos)
    for (const std::size_t len : lengths) {
      if (pos + len > folded.size()) break;
      const auto it = ids.find(view.substr(pos, len));
      if (it == ids.end()) continue;
      for (const std::uint32_t id : it->second) out.push_back(warpmatch::Match{.pattern = id, .start = pos, .end = pos + len});
    }
  std::sort(out.begin(), out.end(), match_order);
  return out;
}

inline std::string read_gzip(const std::string& path) {
  gzFile g = gzopen(path.c_str(), "rb");
  if (!g) return {};
  std::string out;
  char buf[1 << 16];
  for (int n; (n = gzread(g, buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  gzclose(g);
  return out;
}

inline std::string read_text_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// The lambda phage genome (one sequence, line breaks removed); empty when not installed.
inline std::string lambda_genome() {
  const std::string fa =
      read_gzip("/usr/share/doc/bowtie2/examples/reference/lambda_virus.fa.gz");
  std::string seq;
  std::istringstream in(fa);
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '>') seq += line;
  return seq;
}

/// English words of /usr/share/dict/words (empty when not installed).
inline std::vector<std::string> dictionary_words() {
  std::vector<std::string> words;
  std::ifstream f("/usr/share/dict/words");
  for (std::string w; std::getline(f, w);)
    if (!w.empty()) words.push_back(w);
  return words;
}

/// English prose shipped with every Debian system (the licence texts).
inline std::string english_text() {
  std::string text;
  for (const char* p : {"/usr/share/common-licenses/GPL-3", "/usr/share/common-licenses/GPL-2",
                        "/usr/share/common-licenses/Apache-2.0", "/usr/share/common-licenses/LGPL-3"})
    if (std::filesystem::exists(p)) text += read_text_file(p);
  return text;
}

}  // namespace multi_test
