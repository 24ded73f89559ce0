// Host definitions of the CUDA built-ins that warpmatch's kernels use, so that a test compiles
// the REAL kernel text (src/cuda/<op>/kernels.cuh) with the host compiler and runs it on any
// machine: no hand port of a kernel is "kept in step". Include this first, then the kernel
// header with its namespace renamed (`#define kernels <op>_kernel_emulation`), so that the
// host definitions never meet the CUDA build's launch stubs of the same names at link time.
//
// Execution: emu::launch(grid, block, body) runs the blocks one after another; the threads of
// a block are fibers on the calling thread, switched only at __syncthreads, __syncwarp, warp
// shuffles and reductions, and __nanosleep — deterministic, and cheap enough for thousands
// of barriers. emu::launch_cooperative runs all blocks at once (kernels whose blocks wait on
// each other), block by block in rounds. A thread that returns leaves its block's and warp's
// barriers, as exited threads do on the device. Memory:
//  - a kernel's `extern __shared__ T name[]` is the test's namespace-scope array `name`
//    (a cooperative launch swaps a copy per block in and out of it);
//  - fixed-size shared arrays are written `static __shared__` in the kernels (the same thing
//    to nvcc), function statics here: right while one block runs at a time;
//  - atomics are plain read-modify-writes (one OS thread), __ldg a plain load.
// cooperative_groups::coalesced_threads() is a group of one (as after full divergence: a
// kernel must be right for any grouping).
#pragma once

#include <ucontext.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

// The scheduler's own loops and comparisons carry no coverage instrumentation: under a fuzzer
// they took a third of the time and fed it features of the emulation rather than the kernels.
#if defined(__clang__)
#define WARPMATCH_EMU_SCHEDULER __attribute__((no_sanitize("coverage")))
#else
#define WARPMATCH_EMU_SCHEDULER
#endif

namespace emu {

struct Dim {
  unsigned x = 0, y = 0, z = 0;
};

/// A barrier of cooperative fibers: the last to arrive releases the others.
struct Barrier {
  unsigned expected = 0, arrived = 0;
  std::uint64_t generation = 0;
  void wait();
  WARPMATCH_EMU_SCHEDULER void leave() {  // a participant exited
    --expected;
    if (arrived > 0 && arrived == expected) release();
  }
  WARPMATCH_EMU_SCHEDULER void release() {
    arrived = 0;
    ++generation;
  }
};

// ---- fibers: a stack each, switched by hand --------------------------------------------------
#include "sanitizers.hpp"
#if defined(WARPMATCH_UNDER_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(__x86_64__)
// x86-64: a plain stack switch (callee-saved registers, then rsp). glibc's swapcontext makes
// a sigprocmask system call per switch, which made barriers of 1024 threads dominate; under
// AddressSanitizer its swapcontext interceptor also cleared the shadow of the whole 256 KiB
// target stack per switch (two thirds of the fuzz target's time). AddressSanitizer is told
// about each switch through its fiber annotations instead.
extern "C" void emu_switch_stack(void** save_sp, void* load_sp);
asm(R"(
  .text
  .p2align 4
  .type emu_switch_stack, @function
emu_switch_stack:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size emu_switch_stack, .-emu_switch_stack
)");
struct Context {
  void* sp = nullptr;
  const void* stack = nullptr;  // lowest address and size of its stack (AddressSanitizer's)
  std::size_t stack_size = 0;
};
/// Switches from `from` (the running context) to `to`; `leaving`: from never runs again.
WARPMATCH_EMU_SCHEDULER inline void switch_context(Context& from, Context& to, bool leaving = false) {
#if defined(WARPMATCH_UNDER_ASAN)
  void* fake_stack = nullptr;
  __sanitizer_start_switch_fiber(leaving ? nullptr : &fake_stack, to.stack, to.stack_size);
  emu_switch_stack(&from.sp, to.sp);
  // Back here, switched to from `to`: where its stack lies, as AddressSanitizer saw it.
  __sanitizer_finish_switch_fiber(fake_stack, &to.stack, &to.stack_size);
#else
  (void)leaving;
  emu_switch_stack(&from.sp, to.sp);
#endif
}
/// A context that starts entry() (which never returns) on `stack` at its first switch.
WARPMATCH_EMU_SCHEDULER inline void make_context(Context& c, char* stack, std::size_t size, void (*entry)()) {
  auto* top = reinterpret_cast<void**>(reinterpret_cast<std::uintptr_t>(stack + size) & ~std::uintptr_t{15});
  *--top = nullptr;                            // entry's return address (it never returns)
  *--top = reinterpret_cast<void*>(entry);     // where emu_switch_stack's ret goes
  for (int r = 0; r < 6; ++r) *--top = nullptr;  // rbp, rbx, r12-r15
  c.sp = top;
  c.stack = stack;
  c.stack_size = size;
#if defined(WARPMATCH_UNDER_ASAN)
  // A reused stack: the frames its last fiber never returned from (the entry and its final
  // switch) left their redzones poisoned near the top.
  constexpr std::size_t kTop = 16 * 1024;
  __asan_unpoison_memory_region(stack + size - kTop, kTop);
#endif
}
/// First thing on a new context's stack: completes the switch that started it.
inline void context_started(Context& from) {
#if defined(WARPMATCH_UNDER_ASAN)
  __sanitizer_finish_switch_fiber(nullptr, &from.stack, &from.stack_size);
#else
  (void)from;
#endif
}
#else
// Elsewhere: ucontext (AddressSanitizer follows swapcontext, clearing the target stack's shadow).
struct Context {
  ucontext_t uc{};
};
inline void switch_context(Context& from, Context& to, bool = false) { swapcontext(&from.uc, &to.uc); }
inline void make_context(Context& c, char* stack, std::size_t size, void (*entry)()) {
  getcontext(&c.uc);
  c.uc.uc_stack.ss_sp = stack;
  c.uc.uc_stack.ss_size = size;
  c.uc.uc_link = nullptr;
  makecontext(&c.uc, entry, 0);
}
inline void context_started(Context&) {}
#endif

struct Block;

struct Fiber {
  Context context;
  Dim thread;
  Block* block = nullptr;
  unsigned exchanges = 0;  // warp exchanges so far: their slots alternate between two sets
  const Barrier* waiting = nullptr;  // the barrier it waits at (the scheduler skips it until released)
  std::uint64_t waiting_generation = 0;
  bool done = false;
};

/// One running block: its threads, barriers and the warps' exchange slots.
struct Block {
  Dim index;
  Barrier all;
  std::vector<Barrier> warps;
  std::vector<std::uint64_t> slots;  // [warp][set][lane]
  std::vector<Fiber> fibers;
  std::vector<std::vector<char>> saved_shared;  // co-resident launches: its shared regions while others run
  Block(Dim at, unsigned threads) : index(at) {
    all.expected = threads;
    for (unsigned w = 0; w < (threads + 31) / 32; ++w) warps.push_back(Barrier{std::min(32u, threads - 32 * w)});
    slots.assign(warps.size() * 64, 0);
    fibers.resize(threads);
  }
};

/// A test's array that stands for a kernel's `extern __shared__` memory.
struct SharedRegion {
  void* at;
  std::size_t bytes;
};

inline Dim block_dim, grid_dim;
inline Fiber* current = nullptr;
inline Context scheduler;
inline const std::function<void()>* body = nullptr;
inline constexpr std::size_t kFiberStack = 256 * 1024;
inline std::vector<std::unique_ptr<char[]>> stacks;  // reused by every block and launch

/// Back to the scheduler; it resumes the block's other threads, then this one.
WARPMATCH_EMU_SCHEDULER inline void yield() { switch_context(current->context, scheduler); }

WARPMATCH_EMU_SCHEDULER inline void Barrier::wait() {
  const std::uint64_t at = generation;
  if (++arrived == expected) {
    release();
    return;
  }
  current->waiting = this;
  current->waiting_generation = at;
  while (generation == at) yield();
  current->waiting = nullptr;
}

inline Block& block() { return *current->block; }
inline unsigned lane() { return current->thread.x % 32; }
inline unsigned warp() { return current->thread.x / 32; }
/// Lanes of this thread's warp (the block's last warp may be partial).
inline unsigned warp_lanes() { return std::min(32u, block_dim.x - 32 * warp()); }

[[noreturn]] WARPMATCH_EMU_SCHEDULER inline void fiber_main() {
  context_started(scheduler);
  (*body)();
  block().all.leave();
  block().warps[warp()].leave();
  current->done = true;
  switch_context(current->context, scheduler, true);  // never resumed
  std::abort();
}

/// Starts the fibers of `blk` (threads of kernel `body`).
WARPMATCH_EMU_SCHEDULER inline void start_block(Block& blk) {
  while (stacks.size() < blk.fibers.size()) stacks.emplace_back(new char[kFiberStack]);  // untouched until used
  for (unsigned t = 0; t < blk.fibers.size(); ++t) {
    Fiber& f = blk.fibers[t];
    f.thread = {t, 0, 0};
    f.block = &blk;
    make_context(f.context, stacks[t].get(), kFiberStack, fiber_main);
  }
}

/// One round of a block: every live fiber not held at a barrier resumes once.
struct Round {
  bool live = false;     // some fiber has not returned
  bool resumed = false;  // some fiber ran
};
WARPMATCH_EMU_SCHEDULER inline Round run_block_round(Block& blk) {
  Round round;
  for (Fiber& f : blk.fibers) {
    if (f.done) continue;
    round.live = true;
    if (f.waiting && f.waiting->generation == f.waiting_generation) continue;  // not released yet
    round.resumed = true;
    current = &f;
    switch_context(scheduler, f.context);
  }
  current = nullptr;
  return round;
}

/// Live threads that all wait at barriers nobody can release: the kernel would hang.
[[noreturn]] inline void deadlock() {
  std::fprintf(stderr, "emu: every live thread waits at a barrier (a kernel deadlock)\n");
  std::abort();
}

/// Runs `kernel_body` as a grid of grid.x * grid.y blocks (x fastest) of `threads` threads
/// (one dimension), one block after another; after_block(blockIdx) runs after each block,
/// while its shared memory (the test's arrays) still holds what the block left there.
WARPMATCH_EMU_SCHEDULER inline void launch(Dim grid, unsigned threads, const std::function<void()>& kernel_body,
                   const std::function<void(Dim)>& after_block = {}) {
  grid_dim = {grid.x, std::max(grid.y, 1u), 1};
  block_dim = {threads, 1, 1};
  body = &kernel_body;
  for (unsigned b = 0; b < grid_dim.x * grid_dim.y; ++b) {
    Block blk({b % grid_dim.x, b / grid_dim.x, 0}, threads);
    start_block(blk);
    for (Round round = run_block_round(blk); round.live; round = run_block_round(blk))
      if (!round.resumed) deadlock();
    if (after_block) after_block(blk.index);
  }
}
inline void launch(unsigned grid, unsigned threads, const std::function<void()>& kernel_body) {
  launch(Dim{grid, 1, 1}, threads, kernel_body);
}

/// A cooperative launch: all `grid` blocks resident at once (kernels whose blocks wait on each
/// other), resumed block by block in rounds. Each block keeps its own copy of the `shared`
/// regions, swapped in while its threads run.
WARPMATCH_EMU_SCHEDULER inline void launch_cooperative(unsigned grid, unsigned threads, const std::function<void()>& kernel_body,
                               const std::vector<SharedRegion>& shared) {
  grid_dim = {grid, 1, 1};
  block_dim = {threads, 1, 1};
  body = &kernel_body;
  std::vector<std::unique_ptr<Block>> blocks;
  while (stacks.size() < std::size_t{grid} * threads) stacks.emplace_back(new char[kFiberStack]);
  for (unsigned b = 0; b < grid; ++b) {
    blocks.push_back(std::make_unique<Block>(Dim{b, 0, 0}, threads));
    Block& blk = *blocks.back();
    for (const SharedRegion& r : shared) blk.saved_shared.emplace_back(r.bytes, 0);
    for (unsigned t = 0; t < threads; ++t) {
      Fiber& f = blk.fibers[t];
      f.thread = {t, 0, 0};
      f.block = &blk;
      make_context(f.context, stacks[std::size_t{b} * threads + t].get(), kFiberStack, fiber_main);
    }
  }
  for (Round all{true, true}; all.live;) {
    if (!all.resumed) deadlock();
    all = Round{};
    for (auto& blk : blocks) {
      for (std::size_t i = 0; i < shared.size(); ++i) std::memcpy(shared[i].at, blk->saved_shared[i].data(), shared[i].bytes);
      const Round round = run_block_round(*blk);
      all.live |= round.live;
      all.resumed |= round.resumed;
      for (std::size_t i = 0; i < shared.size(); ++i) std::memcpy(blk->saved_shared[i].data(), shared[i].at, shared[i].bytes);
    }
  }
}

/// This lane's slot set for its next warp exchange. Two sets, used in turn: a lane that
/// reaches exchange e + 1 writes the other set, and it cannot reach e + 2 before every lane
/// has read exchange e's values (one barrier per exchange).
WARPMATCH_EMU_SCHEDULER inline std::uint64_t* exchange_slots() {
  return block().slots.data() + 64 * warp() + 32 * (current->exchanges++ & 1);
}

/// Every lane of the warp posts `value`, then reads lane source_of(lane)'s.
template <class T, class Source>
WARPMATCH_EMU_SCHEDULER T exchange(T value, Source&& source_of) {
  static_assert(sizeof(T) <= sizeof(std::uint64_t));
  std::uint64_t* slots = exchange_slots();
  std::memcpy(&slots[lane()], &value, sizeof(T));
  block().warps[warp()].wait();
  T got;
  std::memcpy(&got, &slots[source_of(lane()) % warp_lanes()], sizeof(T));
  return got;
}

/// Every lane of the warp posts `value`; all get op over the warp's lanes.
template <class T, class Op>
WARPMATCH_EMU_SCHEDULER T reduce(T value, Op&& op) {
  std::uint64_t* slots = exchange_slots();
  slots[lane()] = value;
  block().warps[warp()].wait();
  T total = static_cast<T>(slots[0]);
  for (unsigned l = 1; l < warp_lanes(); ++l) total = op(total, static_cast<T>(slots[l]));
  return total;
}

}  // namespace emu

// Kernels are inline here: a kernel header may then be compiled into several translation units
// of one program (its emulation test and the fuzz regression replay) without duplicate symbols.
#define __global__ inline
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)
#define __grid_constant__
#define __shared__
#define threadIdx (::emu::current->thread)
#define blockIdx (::emu::current->block->index)
#define blockDim (::emu::block_dim)
#define gridDim (::emu::grid_dim)

inline void __syncthreads() { emu::block().all.wait(); }
inline void __syncwarp(unsigned = 0xffffffffu) { emu::block().warps[emu::warp()].wait(); }
inline void __nanosleep(unsigned) { emu::yield(); }

template <class T>
T __ldg(const T* p) {
  return *p;
}
template <class T>
T atomicAdd(T* p, T v) {
  const T old = *p;
  *p = old + v;
  return old;
}
template <class T>
T atomicMin(T* p, T v) {
  const T old = *p;
  *p = std::min(old, v);
  return old;
}
template <class T>
T atomicOr(T* p, T v) {
  const T old = *p;
  *p = old | v;
  return old;
}

inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned shift) {
  shift &= 31;
  return shift ? (lo >> shift) | (hi << (32 - shift)) : lo;
}
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
/// Per byte: 0xff where the bytes of a and b are equal, else 0.
inline unsigned __vcmpeq4(unsigned a, unsigned b) {
  unsigned r = 0;
  for (int i = 0; i < 4; ++i)
    if (((a >> (8 * i)) & 0xffu) == ((b >> (8 * i)) & 0xffu)) r |= 0xffu << (8 * i);
  return r;
}

struct alignas(16) uint4 {
  unsigned x, y, z, w;
};
struct alignas(8) uint2 {
  unsigned x, y;
};
inline uint2 make_uint2(unsigned x, unsigned y) { return {x, y}; }
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return {x, y, z, w}; }

// Warp shuffles over segments of `width` lanes; a source outside the segment gives the lane's own value.
template <class T>
T __shfl_sync(unsigned, T value, int source, int width = 32) {
  return emu::exchange(value, [&](unsigned l) { return (l & ~(width - 1u)) + (static_cast<unsigned>(source) % width); });
}
template <class T>
T __shfl_up_sync(unsigned, T value, unsigned delta, int width = 32) {
  return emu::exchange(value, [&](unsigned l) { return l % width >= delta ? l - delta : l; });
}
template <class T>
T __shfl_down_sync(unsigned, T value, unsigned delta, int width = 32) {
  return emu::exchange(value, [&](unsigned l) { return l % width + delta < static_cast<unsigned>(width) ? l + delta : l; });
}
template <class T>
T __shfl_xor_sync(unsigned, T value, int mask, int width = 32) {
  return emu::exchange(value, [&](unsigned l) {
    const unsigned s = l ^ static_cast<unsigned>(mask);
    return s / width == l / width ? s : l;
  });
}
inline unsigned __reduce_max_sync(unsigned, unsigned v) {
  return emu::reduce(v, [](unsigned a, unsigned b) { return std::max(a, b); });
}
inline unsigned __reduce_min_sync(unsigned, unsigned v) {
  return emu::reduce(v, [](unsigned a, unsigned b) { return std::min(a, b); });
}
inline unsigned __reduce_or_sync(unsigned, unsigned v) {
  return emu::reduce(v, [](unsigned a, unsigned b) { return a | b; });
}
inline unsigned __reduce_add_sync(unsigned, unsigned v) {
  return emu::reduce(v, [](unsigned a, unsigned b) { return a + b; });
}
inline int __any_sync(unsigned, int predicate) {
  return __reduce_or_sync(0xffffffffu, predicate != 0 ? 1u : 0u) != 0;
}

namespace cooperative_groups {
/// A group of one thread (see the top of this file).
struct coalesced_group {
  unsigned thread_rank() const { return 0; }
  unsigned size() const { return 1; }
  template <class T>
  T shfl(T value, unsigned) const {
    return value;
  }
};
inline coalesced_group coalesced_threads() { return {}; }
}  // namespace cooperative_groups

using std::max;
using std::min;
