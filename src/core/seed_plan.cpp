// The seed filter's plan; see seed_plan.hpp.
#include "core/seed_plan.hpp"


#include <algorithm>
#include <bit>
#include <cstring>
#include <map>
#include <string>

namespace warpmatch::core {

std::unique_ptr<SeedPlan> plan_seeds(const std::vector<ApproxPattern>& patterns, const std::vector<std::uint32_t>& members,
                                     const std::vector<ApproxQuery>& queries) {
  if (members.empty()) return nullptr;
  auto t = std::make_unique<SeedPlan>();
  std::map<std::string, std::uint32_t> piece_ids;
  std::vector<std::string> literals;
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> uses;  // per piece: (member, offset)
  for (const std::uint32_t i : members) {
    const ApproxPattern& p = patterns[i];
    const ApproxQuery& q = queries[i];
    const auto m = static_cast<std::uint32_t>(p.size());
    if (p.iupac || q.mode != ApproxMode::all_within_k || m > SeedPlan::kMaxPattern || m == 0) return nullptr;
    const std::uint32_t parts = q.k + 1;
    if (m / parts < SeedPlan::kMinPiece) return nullptr;
    t->case_insensitive = p.case_insensitive;  // one matcher's flags: the same for all
    const auto member = static_cast<std::uint32_t>(t->members.size());
    t->members.push_back({i, m, q.k, p.hamming ? 1u : 0u});
    t->peq.resize(t->peq.size() + 256, 0);
    std::uint64_t* peq = t->peq.data() + std::size_t{member} * 256;
    for (std::uint32_t r = 0; r < m; ++r)
      for (unsigned b = 0; b < 256; ++b)
        if (p.matches(p.bytes[r], static_cast<std::uint8_t>(b))) peq[b] |= std::uint64_t{1} << r;
    t->max_m = std::max(t->max_m, m);
    t->max_k = std::max(t->max_k, q.k);
    // k + 1 pieces as even as can be (the longer ones first).
    for (std::uint32_t j = 0, offset = 0; j < parts; ++j) {
      const std::uint32_t len = m / parts + (j < m % parts ? 1 : 0);
      std::string piece(p.bytes.begin() + offset, p.bytes.begin() + offset + len);
      const auto [it, added] = piece_ids.try_emplace(std::move(piece), static_cast<std::uint32_t>(literals.size()));
      if (added) {
        literals.push_back(it->first);
        uses.emplace_back();
      }
      uses[it->second].emplace_back(member, offset);
      offset += len;
    }
  }
  t->use_start.push_back(0);
  for (const auto& list : uses) {
    for (const auto& [member, offset] : list) {
      t->use_member.push_back(member);
      t->use_offset.push_back(offset);
    }
    t->use_start.push_back(static_cast<std::uint32_t>(t->use_member.size()));
  }
  t->q = 8;
  t->piece_offsets.push_back(0);
  for (const std::string& piece : literals) {
    t->q = std::min<std::uint32_t>(t->q, static_cast<std::uint32_t>(piece.size()));
    t->piece_bytes.insert(t->piece_bytes.end(), piece.begin(), piece.end());
    t->piece_offsets.push_back(static_cast<std::uint32_t>(t->piece_bytes.size()));
  }
  const auto count = static_cast<std::uint32_t>(literals.size());
  t->bucket_bits = std::max(1, static_cast<int>(std::bit_width(count)));
  t->bitmap_bits = std::clamp(static_cast<int>(std::bit_width(count)) + 5, 12, 24);  // ~1/32 of bits set
  t->bitmap.assign((std::size_t{1} << t->bitmap_bits) / 64, 0);
  t->bucket_start.assign((std::size_t{1} << t->bucket_bits) + 1, 0);
  std::vector<std::uint64_t> keys(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    std::uint64_t key = 0;
    std::memcpy(&key, t->piece_bytes.data() + t->piece_offsets[i], t->q);  // already folded
    keys[i] = key;
    const std::uint64_t h = seed_hash(key);
    const std::uint64_t bit = h >> (64 - t->bitmap_bits);
    t->bitmap[bit / 64] |= std::uint64_t{1} << (bit % 64);
    ++t->bucket_start[(h >> (64 - t->bucket_bits)) + 1];
  }
  for (std::size_t b = 1; b < t->bucket_start.size(); ++b) t->bucket_start[b] += t->bucket_start[b - 1];
  t->entry_key.resize(count);
  t->entry_piece.resize(count);
  std::vector<std::uint32_t> fill(t->bucket_start.begin(), t->bucket_start.end() - 1);
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint32_t slot = fill[seed_hash(keys[i]) >> (64 - t->bucket_bits)]++;
    t->entry_key[slot] = keys[i];
    t->entry_piece[slot] = i;
  }
  return t;
}

SeedTopWords seed_top_words(const SeedPlan& plan) {
  // Bytes whose peq column is the same for every member share a class.
  const std::size_t members = plan.members.size();
  std::vector<std::uint8_t> representative;  // one byte per class
  SeedTopWords out;
  out.class_of.assign(256, 0);
  for (unsigned b = 0; b < 256; ++b) {
    std::size_t c = 0;
    for (; c < representative.size(); ++c) {
      bool same = true;
      for (std::size_t i = 0; i < members && same; ++i) same = plan.peq[i * 256 + b] == plan.peq[i * 256 + representative[c]];
      if (same) break;
    }
    if (c == representative.size()) {
      if (representative.size() == SeedTopWords::kMaxClasses) return {};  // too many: the 256-entry words only
      representative.push_back(static_cast<std::uint8_t>(b));
    }
    out.class_of[b] = static_cast<std::uint8_t>(c);
  }
  out.classes = static_cast<std::uint32_t>(representative.size());
  out.peq_top.assign(members * out.classes, 0);
  for (std::size_t i = 0; i < members; ++i) {
    const SeedPlan::Member& mb = plan.members[i];
    if (mb.hamming || mb.m > 32) continue;
    const std::uint32_t pad = 32 - mb.m;
    for (std::uint32_t c = 0; c < out.classes; ++c)
      out.peq_top[i * out.classes + c] =
          (static_cast<std::uint32_t>(plan.peq[i * 256 + representative[c]]) << pad) | ((std::uint32_t{1} << pad) - 1);
  }
  return out;
}

std::uint64_t count_seed_uses(const SeedPlan& plan, ByteSpan text) {
  std::uint64_t uses = 0;
  const std::size_t n = text.size();
  const int bitmap_shift = 64 - plan.bitmap_bits;
  for (std::size_t s = 0; s + plan.q <= n; ++s) {
    std::uint64_t key = 0;
    for (std::uint32_t j = 0; j < plan.q; ++j)
      key |= std::uint64_t{plan.case_insensitive ? fold_ascii(text[s + j]) : text[s + j]} << (8 * j);
    const std::uint64_t h = seed_hash(key);
    const std::uint64_t bit = h >> bitmap_shift;
    if (!((plan.bitmap[bit / 64] >> (bit % 64)) & 1)) continue;
    for_each_piece_at(plan, text, s, key,
                      [&](std::uint32_t piece) { uses += plan.use_start[piece + 1] - plan.use_start[piece]; });
  }
  return uses;
}

}  // namespace warpmatch::core
