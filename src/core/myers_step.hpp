// The one Myers/Hyyrö bit-vector step of warpmatch (G. Myers, JACM 1999, in H. Hyyrö's block
// form; edlib's calculateBlock): every backend and operation advances its words with it —
// CPU and CUDA edit distance (global), CPU and CUDA approximate search (semi-global, one
// pattern or a set), the CPU's SIMD set pass (GCC vector types, lane-wise) — so a fix or a
// faster form lands everywhere at once. Word: any unsigned integer, or a GCC/clang vector of
// them (the operators act lane by lane). Backend-neutral: no CUDA types, WARPMATCH_HD only.
//
// The variants are the arguments, not copies:
//  - carry in/out as two bits (MyersCarry: the block-to-block chain of long patterns, no
//    compares on the critical path) or as an int in {-1, 0, +1} (distance kernels that
//    shuffle or publish the delta);
//  - the row whose horizontal delta leaves the step (TopRow, the default: the word's top bit;
//    AtRow: the CPU's approximate search reads the last real row of a partial block);
//  - myers_search_step: the top row free (no carry in, semi-global search), the delta of the
//    last row added to a running score.
#pragma once

#include <type_traits>
#include <utility>

#include "core/host_device.hpp"

namespace warpmatch::core {

/// Bits per lane of Word: an integer's width, or a vector type's lane width.
template <class Word, class = void>
struct MyersWordBits {
  static constexpr int value = static_cast<int>(sizeof(Word)) * 8;
};
template <class Word>
struct MyersWordBits<Word, std::enable_if_t<!std::is_integral_v<Word>>> {
  static constexpr int value = static_cast<int>(sizeof(std::declval<Word&>()[0])) * 8;
};

/// A horizontal delta in {-1, 0, +1} as two bits: bit 0 of `plus` (+1) and of `minus` (-1).
/// Bit: the integer (or vector) type that holds them.
template <class Bit>
struct MyersCarry {
  Bit plus{}, minus{};
  template <class Int>
  static WARPMATCH_HD MyersCarry of(Int delta) {
    return {delta > 0 ? Bit{1} : Bit{0}, delta < 0 ? Bit{1} : Bit{0}};
  }
  template <class Int = int>
  WARPMATCH_HD Int value() const {
    return static_cast<Int>(plus) - static_cast<Int>(minus);
  }
};

/// Which row's horizontal delta leaves a step: the word's top bit (TopRow: the last row, read
/// without a mask, also lane-wise in a vector), or a row chosen at run time (AtRow: the last
/// real row of a partial block).
struct TopRow {};
struct AtRow {
  int row;
};

/// One column step of one word of rows: pv/mv the vertical +1/-1 deltas of the word's rows
/// (column j - 1 in, column j out), eq the rows matching the text byte of column j, `in` the
/// horizontal delta entering above the word's top row (bit 0). Returns the horizontal delta
/// leaving row `out` (by default the word's top bit, its last row).
// eq comes by reference: clang refuses a vector wider than the caller's baseline ISA passed by
// value to a function not compiled for that ISA (the AVX-512 set pass), even one inlined.
template <class Word, class Bit, class Out = TopRow>
WARPMATCH_HD_INLINE MyersCarry<Bit> myers_step(Word& pv, Word& mv, const Word& eq_in, MyersCarry<Bit> in,
                                               [[maybe_unused]] Out out = {}) {
  Word eq = eq_in;
  const Word xv = eq | mv;
  eq |= in.minus;
  const Word xh = (((eq & pv) + pv) ^ pv) | eq;
  Word ph = mv | ~(xh | pv);
  Word mh = pv & xh;
  MyersCarry<Bit> h;
  if constexpr (std::is_same_v<Out, AtRow>) {
    h = {static_cast<Bit>((ph >> out.row) & 1), static_cast<Bit>((mh >> out.row) & 1)};
  } else {
    constexpr int kTop = MyersWordBits<Word>::value - 1;
    h = {static_cast<Bit>(ph >> kTop), static_cast<Bit>(mh >> kTop)};
  }
  ph = (ph << 1) | in.plus;
  mh = (mh << 1) | in.minus;
  pv = mh | ~(xv | ph);
  mv = ph & xv;
  return h;
}

/// The same step with the horizontal deltas as ints in {-1, 0, +1} (scalar words only).
template <class Word, class Out = TopRow>
WARPMATCH_HD_INLINE int myers_step(Word& pv, Word& mv, const Word& eq, int in, Out out = {}) {
  return myers_step(pv, mv, eq, MyersCarry<Word>::of(in), out).value();
}

/// The step of a search (semi-global: the top row D[0][.] = 0, no carry in) whose pattern
/// ends at the word's top bit: `score` (the last row's distance) moves by the delta leaving it.
template <class Word, class Score>
WARPMATCH_HD_INLINE void myers_search_step(Word& pv, Word& mv, const Word& eq, Score& score) {
  const MyersCarry<Word> h = myers_step(pv, mv, eq, MyersCarry<Word>{});
  score += static_cast<Score>(h.plus);
  score -= static_cast<Score>(h.minus);
}

}  // namespace warpmatch::core
