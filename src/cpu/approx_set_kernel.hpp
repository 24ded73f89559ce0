// The SIMD loops of the CPU pattern-set pass (approx_set_cpu.cpp), written once over GCC/clang
// vector extensions. approx_set_cpu.cpp includes this file three times, inside namespaces
// ...::sse, ...::avx2 and ...::avx512, each under its own target pragma, after defining
// kLanes (text sub-ranges advanced per step), the vector types V32/V64 (kLanes words), VH
// (one register of 64-bit words, Hamming) and the Lookup32* types (class code -> Eq word).
// Deliberately no include guard.

// ---- helpers -----------------------------------------------------------------------------

template <class V>
inline constexpr int lanes_of = static_cast<int>(sizeof(V) / sizeof(std::remove_reference_t<decltype(std::declval<V&>()[0])>));

template <class V>
inline bool any_lane(const V& x) {
  // OR of the vector's 64-bit words, halving: a few shuffles where a loop over the lanes
  // compiled to one extract per lane (the replay of a batch with hits runs it every step).
  if constexpr (sizeof(V) == 64) {
    typedef std::uint64_t Q __attribute__((vector_size(64)));
    typedef std::uint64_t H __attribute__((vector_size(32)));
    Q q;
    std::memcpy(&q, &x, sizeof q);
    const H h = __builtin_shufflevector(q, q, 0, 1, 2, 3) | __builtin_shufflevector(q, q, 4, 5, 6, 7);
    return ((h[0] | h[1]) | (h[2] | h[3])) != 0;
  } else if constexpr (sizeof(V) == 32 || sizeof(V) == 16) {
    std::uint64_t w[sizeof(V) / 8];
    std::memcpy(w, &x, sizeof w);
    std::uint64_t any = 0;
    for (const std::uint64_t v : w) any |= v;
    return any != 0;
  } else {
    for (int l = 0; l < lanes_of<V>; ++l)
      if (x[l]) return true;
    return false;
  }
}

template <class V>
inline bool all_lanes_ones(const V& x) {
  for (int l = 0; l < lanes_of<V>; ++l)
    if (~x[l]) return false;
  return true;
}

/// Class codes of kLanes columns (one per lane) widened to the lanes of V.
template <class V>
inline __attribute__((always_inline)) V load_codes(const std::uint8_t* codes) {
  U8L c;
  std::memcpy(&c, codes, sizeof c);
  return __builtin_convertvector(c, V);
}

/// Any table size: one scalar load per lane (patterns of 33-64 bytes, or many classes).
template <class V, class W>
struct LookupGather {
  const std::uint64_t* table = nullptr;
  LookupGather() = default;
  explicit LookupGather(const MyersTable& t) : table(t.peq.data()) {}
  __attribute__((always_inline)) V operator()(const V& idx) const {
    V eq;
    for (int l = 0; l < lanes_of<V>; ++l) eq[l] = static_cast<W>(table[idx[l]]);
    return eq;
  }
};

// ---- edit distance: Myers' step, text sub-ranges across the lanes -------------------------
//
// core::myers_search_step in every lane (V is a GCC vector of unsigned words: its operators
// act lane-wise), the top row free (semi-global), score the bottom row's distance. The
// pattern sits in the top bits of the word (dummy rows below it match every byte and stay at
// 0, like the top row), so the bottom row's deltas are the words' top bits.

template <class V>
inline __attribute__((always_inline)) V lane_min(const V& a, const V& b) {
  return a < b ? a : b;
}

/// G jobs (a pattern over one lane group of the block) advanced together: G independent
/// dependency chains keep the vector units busy where one chain would wait on its own
/// latency. Lane l of job j runs columns b.from[group * kLanes + l] + t for t < b.length,
/// restarted there with D[i][from - 1] = i; every owned column whose distance is <= the
/// job's limit goes to `lane_hits[j][l]`. Hits are rare: the fast loop keeps each lane's
/// minimum over 64 steps, and a batch with a minimum <= limit is replayed from its saved
/// state with per-step checks.
// Aligned to 64 bytes: where the linker put it moved its inner loop across fetch boundaries,
// and an unrelated change elsewhere in the library once slowed a 16 MiB scan by 20 % (22 ->
// 27 ms, one thread); aligned, both layouts ran 21.5-21.7 ms.
template <class V, class W, class Lookup, int G>
__attribute__((aligned(64))) void myers_lanes(const LaneBlock& b, MyersJob* jobs, bool best, LaneHits* lane_hits) {
  constexpr int L = kLanes;
  const std::uint64_t row = static_cast<std::uint64_t>(b.lanes);
  const std::uint8_t* codes[G];
  Lookup lookup[G];
  V pv[G], mv[G], score[G], kv[G];
  for (int j = 0; j < G; ++j) {
    const MyersTable& t = *jobs[j].table;
    codes[j] = b.codes + static_cast<std::uint64_t>(jobs[j].group) * L;
    lookup[j] = Lookup(t);
    pv[j] = V{} + static_cast<W>(t.top_rows);
    mv[j] = V{};
    score[j] = V{} + static_cast<W>(t.m);
    kv[j] = V{} + static_cast<W>(jobs[j].limit);
  }
  for (std::uint64_t t0 = 0; t0 < b.length; t0 += 64) {
    const std::uint64_t t1 = std::min<std::uint64_t>(b.length, t0 + 64);
    V saved_pv[G], saved_mv[G], saved_score[G], low[G];
    for (int j = 0; j < G; ++j) {
      saved_pv[j] = pv[j], saved_mv[j] = mv[j], saved_score[j] = score[j];
      low[j] = score[j];
    }
    for (std::uint64_t t = t0; t < t1; ++t)
      for (int j = 0; j < G; ++j) {
        core::myers_search_step(pv[j], mv[j], lookup[j](load_codes<V>(codes[j] + t * row)), score[j]);
        low[j] = lane_min(low[j], score[j]);
      }
    if (best) {
      // Every computed score bounds the true distance of its column from above (a lane's
      // restart only adds), so no column can beat the best mode's minimum by more than the
      // batch's lowest score: the limit drops to it before the replay. Without this, an
      // unbounded limit (k = m) made every column of the first batch a hit to record.
      for (int j = 0; j < G; ++j) {
        W lowest = low[j][0];
        for (int l = 1; l < L; ++l) lowest = std::min<W>(lowest, low[j][l]);
        if (lowest < jobs[j].limit) {
          jobs[j].limit = static_cast<std::uint32_t>(lowest);
          kv[j] = V{} + lowest;
        }
      }
    }
    bool seen = false;
    for (int j = 0; j < G; ++j) seen |= any_lane((V)(low[j] <= kv[j]));
    if (!seen) continue;
    for (int j = 0; j < G; ++j) pv[j] = saved_pv[j], mv[j] = saved_mv[j], score[j] = saved_score[j];
    for (std::uint64_t t = t0; t < t1; ++t)
      for (int j = 0; j < G; ++j) {
        core::myers_search_step(pv[j], mv[j], lookup[j](load_codes<V>(codes[j] + t * row)), score[j]);
        const V hit = (V)(score[j] <= kv[j]);
        if (!any_lane(hit)) continue;
        for (int l = 0; l < L; ++l) {
          if (!hit[l]) continue;
          const int lane = jobs[j].group * L + l;
          const std::int64_t column = b.from[lane] + static_cast<std::int64_t>(t);
          if (column < b.own_lo[lane] || column >= b.own_hi[lane]) continue;
          const auto distance = static_cast<std::uint32_t>(score[j][l]);
          if (distance > jobs[j].limit) continue;  // above a best-mode minimum found meanwhile
          lane_hits[j][l].push_back({static_cast<std::uint64_t>(column) + 1, distance});
          if (best && distance < jobs[j].limit) {
            jobs[j].limit = distance;
            kv[j] = V{} + static_cast<W>(distance);
          }
        }
      }
  }
}

/// Jobs [0, count) of one word size, G at a time; their hits appended to `out` in job order
/// (a pattern's lane groups are consecutive jobs, so its hits come out in text order).
template <class V, class W, class Lookup>
void myers_jobs_with(const LaneBlock& b, MyersJob* jobs, std::size_t count, bool best, std::vector<SetHit>& out,
                     LaneHits* lane_hits) {
  for (std::size_t first = 0; first < count; first += kJobs) {
    const std::size_t g = std::min<std::size_t>(kJobs, count - first);
    switch (g) {
      case 1: myers_lanes<V, W, Lookup, 1>(b, jobs + first, best, lane_hits); break;
      case 2: myers_lanes<V, W, Lookup, 2>(b, jobs + first, best, lane_hits); break;
      case 3: myers_lanes<V, W, Lookup, 3>(b, jobs + first, best, lane_hits); break;
      default: myers_lanes<V, W, Lookup, kJobs>(b, jobs + first, best, lane_hits); break;
    }
    for (std::size_t j = 0; j < g; ++j)
      for (int l = 0; l < kLanes; ++l) {
        for (const core::EndHit& h : lane_hits[j][l]) out.push_back({jobs[first + j].table->index, h.distance, h.end});
        lane_hits[j][l].clear();
      }
  }
}

/// The lookup fitting the jobs' word (all jobs share it) and the set's class count.
inline void myers_jobs(const LaneBlock& b, MyersJob* jobs, std::size_t count, int classes, bool best,
                       std::vector<SetHit>& out, LaneHits* lane_hits) {
  if (count == 0) return;
  if (jobs[0].table->m > 32)
    return myers_jobs_with<V64, std::uint64_t, LookupGather<V64, std::uint64_t>>(b, jobs, count, best, out, lane_hits);
  if (classes <= kLanes) return myers_jobs_with<V32, std::uint32_t, Lookup32One>(b, jobs, count, best, out, lane_hits);
  if (classes <= 2 * kLanes)
    return myers_jobs_with<V32, std::uint32_t, Lookup32Two>(b, jobs, count, best, out, lane_hits);
  myers_jobs_with<V32, std::uint32_t, LookupGather<V32, std::uint32_t>>(b, jobs, count, best, out, lane_hits);
}

// ---- Hamming: bit-sliced mismatch counters, 64 window starts per word ---------------------

/// Window starts [s_lo, s_hi) (bit offsets into the block's bitmaps) of one pattern: each
/// pattern position adds its mismatch bits into counters of `planes` bit planes that
/// saturate into `over`; windows with a count <= limit are appended to `out` in order.
inline void hamming_pattern(const BlockBitmaps& bm, const HammingTable& p, std::uint64_t s_lo, std::uint64_t s_hi,
                            std::uint32_t limit, bool best, std::vector<SetHit>& out) {
  constexpr int H = lanes_of<VH>;
  int planes = 1;
  while (planes < 32 && (std::uint64_t{1} << planes) <= limit) ++planes;
  VH plane[32];
  for (std::uint64_t s = s_lo; s < s_hi; s += 64 * H) {
    for (int b = 0; b < planes; ++b) plane[b] = VH{};
    VH over = VH{};
    for (std::uint32_t i = 0; i < p.m; ++i) {
      const std::uint64_t pos = s + i;
      const std::uint64_t* w = bm.bits + p.slot[i] * bm.words + (pos >> 6);
      const unsigned o = static_cast<unsigned>(pos & 63);
      VH lo, hi;
      std::memcpy(&lo, w, sizeof lo);
      std::memcpy(&hi, w + 1, sizeof hi);
      const VH match = o ? (lo >> o) | (hi << (64 - o)) : lo;
      VH carry = ~match;  // a mismatch adds one
      for (int b = 0; b < planes; ++b) {
        const VH next = plane[b] & carry;
        plane[b] ^= carry;
        carry = next;
      }
      over |= carry;
      if ((i & 7) == 7 && all_lanes_ones(over)) break;  // every window already above the counters
    }
    // counter <= limit, bit-sliced from the top plane down.
    VH lt = VH{}, eq = ~VH{};
    for (int b = planes - 1; b >= 0; --b) {
      if ((limit >> b) & 1) {
        lt |= eq & ~plane[b];
        eq &= plane[b];
      } else {
        eq &= ~plane[b];
      }
    }
    const VH within = (lt | eq) & ~over;
    for (int h = 0; h < H; ++h) {
      const std::uint64_t first = s + 64 * static_cast<std::uint64_t>(h);
      if (first >= s_hi) break;
      std::uint64_t bits = within[h];
      if (s_hi - first < 64) bits &= (std::uint64_t{1} << (s_hi - first)) - 1;
      for (; bits; bits &= bits - 1) {
        const int j = std::countr_zero(bits);
        std::uint32_t count = 0;
        for (int b = 0; b < planes; ++b) count |= static_cast<std::uint32_t>((plane[b][h] >> j) & 1) << b;
        if (count > limit) continue;  // above a best-mode minimum found meanwhile
        out.push_back({p.index, count, static_cast<std::uint64_t>(bm.base) + first + static_cast<std::uint64_t>(j) + p.m});
        if (best && count < limit) limit = count;
      }
    }
  }
}
