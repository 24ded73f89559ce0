// How many of an approximate scan's segments the API front searches at once (a group: its
// hits are held until delivered in order). A plain header: approx.cpp and its tests.
#pragma once

#include <algorithm>
#include <cstdint>

namespace warpmatch::api {

/// The hits a group may be expected to hold: every end can be a hit, and a flooded 8 Mi-end
/// segment holds 8 Mi of them (128 MiB).
inline constexpr std::uint64_t kGroupHits = std::uint64_t{16} << 20;

/// Segments in the next group, after a group of `segments` segments held `hits` hits: as many
/// as keep the next one within kGroupHits at that density, from `fewest` (one per worker) to
/// `most` (the backend's largest group).
inline std::uint64_t next_group_segments(std::uint64_t hits, std::uint64_t segments, std::uint64_t fewest,
                                         std::uint64_t most) {
  const std::uint64_t per_segment = std::max<std::uint64_t>(1, hits / std::max<std::uint64_t>(1, segments));
  fewest = std::min(fewest, most);
  return std::clamp<std::uint64_t>(kGroupHits / per_segment, fewest, most);
}

}  // namespace warpmatch::api
