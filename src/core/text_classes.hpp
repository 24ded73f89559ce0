// Text classes of a pattern set: text bytes that every pattern byte of the set matches alike
// (same case folding, same IUPAC sets) share a class, so a kernel can translate a block of
// text once into small codes and look each pattern's match word up by code. DNA searched
// with IUPAC codes and -i has six classes (A, C, G, T, N, everything else).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "core/approx_pattern.hpp"

namespace warpmatch::core {

struct TextClasses {
  std::array<std::uint16_t, 256> class_of{};   // text byte -> class
  std::uint32_t count = 0;                     // classes, `none` included
  std::uint32_t none = 0;                      // a class that no pattern byte matches (padding)
  std::vector<std::uint8_t> distinct;          // the set's distinct pattern bytes ("slots")
  std::array<std::int16_t, 256> slot_of{};     // pattern byte -> slot, -1 when absent
  std::vector<std::vector<bool>> matches;      // [class][slot]: whether the slot's byte matches
};

/// Every pattern has the same flags (ApproxPattern::matches decides).
inline TextClasses classify_text(const std::vector<ApproxPattern>& set) {
  TextClasses t;
  t.slot_of.fill(-1);
  for (const ApproxPattern& p : set)
    for (const std::uint8_t b : p.bytes)
      if (t.slot_of[b] < 0) {
        t.slot_of[b] = static_cast<std::int16_t>(t.distinct.size());
        t.distinct.push_back(b);
      }
  if (set.empty()) return t;
  const ApproxPattern& rule = set.front();
  bool have_none = false;
  for (int c = 0; c < 256; ++c) {
    std::vector<bool> signature(t.distinct.size());
    for (std::size_t d = 0; d < t.distinct.size(); ++d)
      signature[d] = rule.matches(t.distinct[d], static_cast<std::uint8_t>(c));
    std::uint32_t id = 0;
    while (id < t.matches.size() && t.matches[id] != signature) ++id;
    if (id == t.matches.size()) t.matches.push_back(signature);
    t.class_of[c] = static_cast<std::uint16_t>(id);
    if (std::find(signature.begin(), signature.end(), true) == signature.end()) {
      have_none = true;
      t.none = id;
    }
  }
  if (!have_none) {
    t.none = static_cast<std::uint32_t>(t.matches.size());
    t.matches.emplace_back(t.distinct.size(), false);
  }
  t.count = static_cast<std::uint32_t>(t.matches.size());
  return t;
}

}  // namespace warpmatch::core
