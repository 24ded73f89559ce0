// The SIMD scan loop of the CPU exact search, written once over a vector-traits type `V`.
// exact_cpu.cpp includes this file twice, inside namespace ...::sse (V = 16-byte SSE) and
// inside namespace ...::avx2 under `#pragma GCC target("avx2")` (V = 32-byte AVX2), so each
// copy is compiled for its own instruction set and the two never share a symbol.
// Deliberately no include guard. Needs, declared before inclusion: V, detail::Plan.

// Candidate filter: the text is compared at k pattern offsets at once. A candidate start s
// has text[s + off[i]] == needle[i] for every i (letters compared caseless when CI: the
// needle is lowercase and the text byte is OR-ed with 0x20, which maps exactly the two
// cases of that letter onto it; non-letters get a zero OR mask and compare exactly).
template <int K, bool CI>
struct Filter {
  typename V::T needle[K];
  typename V::T fold_bit[K];
  std::uint32_t off[K];

  explicit Filter(const detail::Plan& p) {
    for (int i = 0; i < K; ++i) {
      needle[i] = V::splat(p.needle[i]);
      fold_bit[i] = V::splat(p.fold_bit[i]);
      off[i] = p.off[i];
    }
  }
  // Bit b set: start s + b passes the filter. Reads s + off[i] .. s + off[i] + W - 1.
  std::uint32_t block(const std::uint8_t* s) const {
    typename V::T acc = cmp(s, 0);
    for (int i = 1; i < K; ++i) acc = V::and_(acc, cmp(s, i));
    return V::mask(acc);
  }
  typename V::T cmp(const std::uint8_t* s, int i) const {
    typename V::T v = V::load(s + off[i]);
    if constexpr (CI) v = V::or_(v, fold_bit[i]);
    return V::eq(v, needle[i]);
  }
};

// Full comparison of a candidate start (the filter bytes are compared again; cheap).
template <bool CI>
struct Verifier {
  const detail::Plan& p;
  const std::uint8_t* text;
  std::uint64_t n;  // the whole text: reading past the chunk is fine, past n is not
  typename V::T pat;  // first W pattern bytes, zero padded
  std::uint32_t len_mask;

  Verifier(const detail::Plan& plan, const std::uint8_t* t, std::uint64_t size)
      : p(plan), text(t), n(size) {
    alignas(64) std::uint8_t buf[64] = {};
    const std::size_t w = std::min<std::size_t>(p.m, V::W);
    std::memcpy(buf, p.pat, w);
    pat = V::load(buf);
    len_mask = w >= 32 ? 0xFFFFFFFFu : ((1u << w) - 1);
  }

  bool operator()(std::uint64_t pos) const {
    const std::uint8_t* s = text + pos;
    const std::size_t m = p.m;
    if (m <= V::W && pos + V::W <= n) {  // one vector compare
      typename V::T v = V::load(s);
      if constexpr (CI) v = V::fold(v);
      return (V::mask(V::eq(v, pat)) & len_mask) == len_mask;
    }
    if constexpr (!CI) {
      return std::memcmp(s, p.pat, m) == 0;
    } else {
      if (m >= V::W) {  // vector blocks, the last one overlapping
        for (std::size_t j = 0;; j += V::W) {
          if (j + V::W > m) j = m - V::W;
          const typename V::T v = V::fold(V::load(s + j));
          if (V::mask(V::eq(v, V::load(p.pat + j))) != V::full_mask) return false;
          if (j + V::W >= m) return true;
        }
      }
      for (std::size_t j = 0; j < m; ++j)
        if (core::fold_ascii(s[j]) != p.pat[j]) return false;
      return true;
    }
  }
};

// Scans the starts [begin, stop) of `text` (n bytes). The caller guarantees
// stop + m - 1 <= n. Count: returns the number of occurrences. Otherwise appends the
// starts to *out in ascending order and returns how many it appended.
template <int K, bool CI, bool Exact, bool Count>
std::uint64_t scan_range(const detail::Plan& p, const std::uint8_t* text, std::uint64_t n,
                         std::uint64_t begin, std::uint64_t stop, detail::StartBuffer* out) {
  constexpr std::uint64_t W = V::W;
  const Filter<K, CI> f(p);
  const Verifier<CI> verify(p, text, n);
  std::uint64_t count = 0;
  // Report: write through a raw cursor; room for a whole mask (64 starts) is made before
  // each mask, so the per-start path has no call (and no vector register spills).
  std::uint64_t* w = nullptr;
  std::uint64_t* wend = nullptr;
  const std::size_t size0 = Count ? 0 : out->size;
  auto room = [&]() __attribute__((always_inline)) {
    if constexpr (!Count) {
      if (__builtin_expect(wend - w < 64, 0)) {
        out->size = static_cast<std::size_t>(w - out->data);
        out->reserve_more(64);
        w = out->data + out->size;
        wend = out->data + out->capacity;
      }
    }
  };
  if constexpr (!Count) {
    w = out->data + out->size;
    wend = out->data + out->capacity;
  }

  // Handles the candidate bits of `mask` (bit b = start base + b).
  auto take = [&](std::uint64_t base, std::uint64_t mask) __attribute__((always_inline)) {
    if constexpr (Exact && Count) {
      count += static_cast<std::uint64_t>(__builtin_popcountll(mask));
    } else {
      room();
      while (mask) {
        const std::uint64_t pos = base + static_cast<std::uint64_t>(__builtin_ctzll(mask));
        mask &= mask - 1;
        if (Exact || verify(pos)) {
          if constexpr (Count) ++count;
          else *w++ = pos;
        }
      }
    }
  };

  std::uint64_t s = begin;
  if (stop < W) {  // text too short for one vector: plain loop
    for (; s < stop; ++s)
      if (verify(s)) {
        if constexpr (Count) {
          ++count;
        } else {
          room();
          *w++ = s;
        }
      }
  } else {
    // Main loop: 2 vectors (2W starts) per iteration; branch only when something passed.
    // Dense exact report: 8 starts written per mask unconditionally (past the set bits they
    // are garbage, overwritten later), the cursor advanced by the popcount; no branch per
    // match except for masks with more than 8.
    if constexpr (Exact && !Count) {
      if (p.dense) {
        for (; s + 2 * W <= stop; s += 2 * W) {
          __builtin_prefetch(text + s + ExactCpuPolicy::prefetch_ahead);  // as in the loop below
          std::uint64_t mask =
              f.block(text + s) | (static_cast<std::uint64_t>(f.block(text + s + W)) << W);
          room();
          const int n_set = __builtin_popcountll(mask);
          for (int i = 0; i < 8; ++i) {  // ctz of (mask | bit 63): defined when mask == 0
            w[i] = s + static_cast<std::uint64_t>(__builtin_ctzll(mask | (1ull << 63)));
            mask &= mask - 1;
          }
          for (int i = 8; i < n_set; ++i) {
            w[i] = s + static_cast<std::uint64_t>(__builtin_ctzll(mask));
            mask &= mask - 1;
          }
          w += n_set;
        }
      }
    }
    for (; s + 2 * W <= stop; s += 2 * W) {
      // The hardware prefetchers stop at 4 KiB pages; a mapped file's next page then starts
      // with misses. A prefetch a few lines ahead keeps a thread streaming across pages
      // (never faults: past the text's end it is dropped).
      __builtin_prefetch(text + s + ExactCpuPolicy::prefetch_ahead);
      const std::uint64_t mask =
          f.block(text + s) | (static_cast<std::uint64_t>(f.block(text + s + W)) << W);
      if constexpr (Exact && Count) {
        take(s, mask);
      } else {
        if (__builtin_expect(mask != 0, 0)) take(s, mask);
      }
    }
    if (s + W <= stop) {
      take(s, f.block(text + s));
      s += W;
    }
    if (s < stop) {  // last partial vector: re-read the W starts ending at stop, drop done ones
      const std::uint64_t q = stop - W;  // >= 0 as stop >= W; may lie before begin: only read
      take(s, static_cast<std::uint64_t>(f.block(text + q)) >> (s - q));
    }
  }
  if constexpr (!Count) {
    out->size = static_cast<std::size_t>(w - out->data);
    count = out->size - size0;
  }
  return count;
}
