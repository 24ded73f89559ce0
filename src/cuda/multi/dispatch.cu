// CUDA dispatch of multi-pattern exact search: uploads the compiled tables once, streams
// host text through two slots (stream + device buffers each, in a pooled scratch that later
// scans reuse) in chunks overlapping by the longest pattern - 1, launches the fast or the paper's M-BNDM kernel, sorts hit keys with
// CUB and hands them to the sink in order.
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <memory>
#include <type_traits>
#include <vector>

#include "core/chunking.hpp"
#include "core/multi_pair_filter.hpp"
#include "cuda/runtime/device_runtime.cuh"
#include "cuda/runtime/scratch_pool.hpp"
#include "cuda/runtime/tuning.hpp"
#include "cuda/multi/multi_cuda.hpp"
#include "cuda/multi/kernels.cuh"
#include "cuda/multi/timing.hpp"
#include "cuda/multi/tuning.hpp"

namespace warpmatch::cuda {

using detail::DeviceBuffer;
using detail::DeviceGuard;
using detail::Event;
using detail::PinnedBuffer;
using detail::Stream;
using detail::copies_directly;
using detail::median;
using detail::parallel_copy;

namespace {

constexpr std::uint64_t kTextPadding = 64;

template <class T>
DeviceBuffer<T> upload(const std::vector<T>& host, int device, std::uint64_t& total) {
  DeviceBuffer<T> buf(device, std::max<std::size_t>(1, host.size()));
  if (!host.empty()) {
    WARPMATCH_CUDA_CHECK(device, cudaMemcpy(buf.get(), host.data(), host.size() * sizeof(T),
                                            cudaMemcpyHostToDevice));
    detail::wait_for_uploads(device);
  }
  total += std::max<std::size_t>(1, host.size()) * sizeof(T);
  return buf;
}

// One stream and its buffers; chunks alternate between two slots so that the copy of one
// overlaps the kernel and the result handling of the other.
struct Slot {
  explicit Slot(int device)
      : stream(device), text(device), counter(device), host_counter(device),
        hits(device), sorted(device), sort_temp(device), host_hits(device) {}
  Stream stream;
  DeviceBuffer<std::uint8_t> text;
  DeviceBuffer<unsigned long long> counter;
  PinnedBuffer<unsigned long long> host_counter;
  DeviceBuffer<std::uint64_t> hits, sorted;
  DeviceBuffer<std::uint8_t> sort_temp;
  PinnedBuffer<std::uint64_t> host_hits;
  std::uint64_t capacity = 0;
  core::Chunk chunk;
};

/// What a scan needs besides the tables: created by the first scan that finds none free, its
/// buffers grown to the largest scan seen, kept by the tables' pool for the next.
struct MultiScratch {
  explicit MultiScratch(int device) : per_pattern(device) {
    for (auto& s : slots) s = std::make_unique<Slot>(device);
  }
  std::unique_ptr<Slot> slots[2];
  DeviceBuffer<unsigned long long> per_pattern;  // multi_count_per_pattern: one counter per pattern
};

}  // namespace

class MultiDeviceTables : detail::DeviceOwner {
 public:
  MultiDeviceTables(const core::PatternSet& set, const core::PrefixIndex* index,
                    MultiAlgorithm algorithm, const MultiLaunch& launch, int device)
      : DeviceOwner(device),
        device(device),
        algorithm(algorithm),
        launch(launch),
        max_length(set.max_length),
        offsets(device),
        bytes(device),
        bit1(device), bit2(device), bit3(device), bit4(device), bit8(device), key8(device), long_key(device),
        bit4_summary(device),
        short_gate(device),
        pair_words(device),
        pair_slots(device),
        pair_members(device),
        ids(device),
        head8(device),
        subsets(device),
        members(device),
        tables(device) {
    detail::require_device(device);
    DeviceGuard guard(device);
    int sms = 0;
    WARPMATCH_CUDA_CHECK(device, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    multiprocessors = std::max(1, sms);
    for (std::size_t i = 0; i + 1 < set.offsets.size(); ++i) lengths.push_back(set.offsets[i + 1] - set.offsets[i]);
    offsets = upload(set.offsets, device, device_bytes);
    bytes = upload(set.bytes, device, device_bytes);
    if (algorithm == MultiAlgorithm::fast) {
      fast.class_mask = index->class_mask;
      bit1 = upload(index->bit1, device, device_bytes);
      bit2 = upload(index->bit2, device, device_bytes);
      bit3 = upload(index->bit3, device, device_bytes);
      bit4 = upload(index->bit4, device, device_bytes);
      bit8 = upload(index->bit8, device, device_bytes);
      fast.bit1 = bit1.get();
      fast.bit2 = bit2.get();
      fast.bit3 = bit3.get();
      fast.bit4 = bit4.get();
      fast.bit8 = bit8.get();
      fast.bits3 = index->bits3;
      fast.bits4 = index->bits4;
      fast.bits8 = index->bits8;
      if (index->key8_scan()) {
        key8 = upload(index->key8, device, device_bytes);
        fast.key8 = key8.get();
        fast.key8_bits = index->key8_bits;
      }
      if (index->long_key_scan()) {
        long_key = upload(index->long_key, device, device_bytes);
        fast.long_key = long_key.get();
        fast.long_key_bits = index->long_key_bits;
        fast.long_key_bytes = index->long_key_bytes;
      }
      for (int c = 0; c < core::kPrefixClasses; ++c) {
        prefix_tables[c] = std::make_unique<DeviceBuffer<core::PrefixTableEntry>>(
            upload(index->table[c], device, device_bytes));
        fast.table[c] = index->table[c].empty() ? nullptr : prefix_tables[c]->get();
        fast.table_mask[c] = index->table[c].empty() ? 0 : index->table[c].size() - 1;
      }
      ids = upload(index->ids, device, device_bytes);
      head8 = upload(index->head8, device, device_bytes);
      fast.ids = ids.get();
      fast.head8 = head8.get();
      fast.offsets = offsets.get();
      fast.bytes = bytes.get();
      fast.case_insensitive = set.case_insensitive;
      // Sets with patterns shorter than 4 scan with the short gate too (not with the lane filter).
      short_classes = (index->class_mask & 7) != 0;
      if (short_classes) {
        short_gate = upload(index->short_gate, device, device_bytes);
        fast.short_gate = short_gate.get();
      }
      const FastKernel asked = launch.fast_kernel;
      const bool shared_bitmap = index->bits4 <= detail::kFastSharedBitmapBits;
      fast_kernel = asked == FastKernel::scan_lane_filter && (!shared_bitmap || short_classes)
                        ? FastKernel::scan_warp_queue
                        : asked;
      if (asked == FastKernel::automatic) fast_kernel = automatic_kernel(set);
      if (fast_kernel == FastKernel::scan_long_key && !index->long_key_scan()) fast_kernel = FastKernel::scan_key8;
      if (fast_kernel == FastKernel::scan_key8 && !index->key8_scan()) fast_kernel = FastKernel::scan_warp_queue;
      if (fast_kernel == FastKernel::scan_pair) setup_pair_scan(set);
      if (fast_kernel == FastKernel::scan_lane_filter) {
        bit4_summary = upload(detail::bit4_word_summary(index->bit4), device, device_bytes);
        fast.bit4_summary = bit4_summary.get();
        // Beyond 48 KiB of shared memory a kernel must opt in (once, not per launch).
        const int shared = static_cast<int>(lane_filter_shared_bytes());
        WARPMATCH_CUDA_CHECK(device, cudaFuncSetAttribute(
                                         detail::multi_scan_kernel<true, false, detail::ScanVerify::warp_queue, true>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
        WARPMATCH_CUDA_CHECK(device, cudaFuncSetAttribute(
                                         detail::multi_scan_kernel<true, true, detail::ScanVerify::warp_queue, true>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
      }
    } else {
      // The paper's mapping: each thread matches one subset of keywords_per_thread patterns
      // (1 = one keyword per thread, as in the paper), its window the subset's shortest.
      const core::MbndmPlan plan =
          core::build_mbndm_plan(set, this->launch.keywords_per_thread, 64);
      if (this->launch.page_bytes < 1 || this->launch.threads_per_block < 32 ||
          this->launch.threads_per_block > 1024 || this->launch.threads_per_block % 32 != 0)
        throw InvalidArgument("M-BNDM GPU configuration: page bytes >= 1 and threads per block "
                              "a multiple of 32 in 32..1024 (got page " +
                              std::to_string(this->launch.page_bytes) + ", threads " +
                              std::to_string(this->launch.threads_per_block) + ")");
      // Page + maxPLength bytes of text live in shared memory: beyond the default 48 KiB the
      // kernel opts in to the device's larger per-block limit (227 KiB on H100/H200).
      const std::uint64_t shared = static_cast<std::uint64_t>(this->launch.page_bytes) + max_length;
      int optin_limit = MultiPolicy::mbndm_max_shared_bytes;
      WARPMATCH_CUDA_CHECK(device, cudaDeviceGetAttribute(
                                       &optin_limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
      if (shared > static_cast<std::uint64_t>(std::max(optin_limit, MultiPolicy::mbndm_max_shared_bytes)))
        throw InvalidArgument("M-BNDM GPU page of " + std::to_string(this->launch.page_bytes) +
                              " bytes + longest pattern " + std::to_string(max_length) +
                              " exceeds the " + std::to_string(optin_limit / 1024) +
                              " KiB of shared memory a block may have; use a smaller page or the "
                              "'fast' algorithm");
      if (shared > static_cast<std::uint64_t>(MultiPolicy::mbndm_max_shared_bytes))
        WARPMATCH_CUDA_CHECK(device, cudaFuncSetAttribute(detail::multi_mbndm_kernel,
                                                          cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                          static_cast<int>(shared)));
      subsets = upload(plan.subsets, device, device_bytes);
      members = upload(plan.members, device, device_bytes);
      tables = upload(plan.tables, device, device_bytes);
      mbndm.subsets = subsets.get();
      mbndm.members = members.get();
      mbndm.tables = tables.get();
      mbndm.subset_count = static_cast<std::uint32_t>(plan.subsets.size());
      mbndm.offsets = offsets.get();
      mbndm.bytes = bytes.get();
      mbndm.case_insensitive = set.case_insensitive;
    }
  }

  /// Launches the algorithm's kernel over one chunk already in device memory.
  void launch_chunk(const std::uint8_t* text, std::uint64_t owned, std::uint64_t readable,
                    const detail::HitOutput& out, cudaStream_t stream) const {
    if (owned == 0) return;
    if (algorithm == MultiAlgorithm::fast && fast_kernel == FastKernel::scan_pair) {
      launch_pair_scan(text, owned, readable, out, stream);
      return;
    }
    if (algorithm == MultiAlgorithm::fast && fast_kernel != FastKernel::tile) {
      launch_scan(text, owned, readable, out, stream);
      return;
    }
    if (algorithm == MultiAlgorithm::fast) {
      const std::uint64_t tiles = (owned + detail::kFastTileStarts - 1) / detail::kFastTileStarts;
      const auto grid = static_cast<unsigned>(
          std::min<std::uint64_t>(tiles, static_cast<std::uint64_t>(multiprocessors) * MultiPolicy::fast_blocks_per_sm));
      std::size_t shared = detail::kFastTileWords * sizeof(std::uint32_t);
      if (fast.bits4 <= detail::kFastSharedBitmapBits) {
        shared += (std::size_t{1} << fast.bits4) / 8;
        detail::multi_fast_kernel<true><<<grid, detail::kFastThreads, shared, stream>>>(
            fast, text, owned, readable, out);
        detail::check_launch("multi_fast_kernel<shared bitmap>", device);
      } else {
        detail::multi_fast_kernel<false><<<grid, detail::kFastThreads, shared, stream>>>(
            fast, text, owned, readable, out);
        detail::check_launch("multi_fast_kernel<global bitmap>", device);
      }
      return;
    }
    const int threads = launch.threads_per_block;
    const std::uint32_t subset_blocks = (mbndm.subset_count + threads - 1) / threads;
    const std::uint64_t pages = (owned + launch.page_bytes - 1) / launch.page_bytes;
    const std::uint64_t total_blocks =
        launch.blocks > 0 ? static_cast<std::uint64_t>(launch.blocks)
                          : static_cast<std::uint64_t>(multiprocessors) * MultiPolicy::mbndm_blocks_per_sm;
    const std::uint64_t groups =
        std::max<std::uint64_t>(1, std::min<std::uint64_t>(pages, total_blocks / subset_blocks));
    const std::uint64_t grid = groups * subset_blocks;
    if (grid > 0x7fffffffull)
      throw InvalidArgument("M-BNDM GPU grid of " + std::to_string(grid) + " blocks is too large");
    const int overlap = static_cast<int>(max_length);  // the paper's maxPLength
    const std::size_t shared = static_cast<std::size_t>(launch.page_bytes) + overlap;
    detail::multi_mbndm_kernel<<<static_cast<unsigned>(grid), threads, shared, stream>>>(
        mbndm, text, owned, readable, launch.page_bytes, overlap, subset_blocks, out);
    detail::check_launch("multi_mbndm_kernel", device);
  }

  /// The pair scan where its default table is sparse (few candidates: its queues verify them
  /// in full warps) and the set has no pattern shorter than 4; else the warp-queue scan,
  /// which verifies a tile's candidates at once and so copes with dense ones (English words,
  /// 10^5 patterns) better.
  FastKernel automatic_kernel(const core::PatternSet& set) const {
    if (short_classes) return FastKernel::scan_warp_queue;
    // A large set whose 4- and 8-byte keys are nearly all taken (10^5 DNA 20-mers).
    if (fast.long_key) return FastKernel::scan_long_key;
    // A small alphabet whose 4-byte prefixes are nearly all taken: both 4-byte filters
    // would pass most starts (1000 DNA 12-mers: every one).
    if (fast.key8) return FastKernel::scan_key8;
    const core::PairFilter pair = core::build_pair_filter(set, MultiPolicy::pair_bits, true);
    std::uint64_t set_bits = 0;
    for (const std::uint32_t w : pair.words) set_bits += static_cast<std::uint64_t>(__builtin_popcount(w));
    return set_bits <= pair.words.size() * 32 * MultiPolicy::pair_max_density_percent / 100 ? FastKernel::scan_pair
                                                                            : FastKernel::scan_warp_queue;
  }

  /// The pair scan's table, uploaded, and its shared-memory opt-in beyond 48 KiB.
  void setup_pair_scan(const core::PatternSet& set) {
    pair_bits = launch.pair_bits ? launch.pair_bits : MultiPolicy::pair_bits;
    pair_blocks_per_sm = launch.pair_blocks_per_sm ? launch.pair_blocks_per_sm : MultiPolicy::pair_blocks_per_sm;
    pair_wide = !launch.pair_narrow;
    // The table must fit a block's shared memory (227 KiB): 2^15 narrow or 2^14 wide entries.
    const int max_bits = pair_wide ? 14 : 15;
    if (pair_bits < 12 || pair_bits > max_bits || pair_blocks_per_sm < 1 || pair_blocks_per_sm > 8)
      throw InvalidArgument("pair scan: table bits 12.." + std::to_string(max_bits) +
                            " and 1..8 blocks per SM (got " + std::to_string(pair_bits) + ", " +
                            std::to_string(pair_blocks_per_sm) + ")");
    pair_words = upload(core::build_pair_filter(set, pair_bits, pair_wide).words, device, device_bytes);
    const core::PairVerifyIndex verify = core::build_pair_verify_index(set);
    pair_slots = upload(verify.slots, device, device_bytes);
    pair_members = upload(verify.members, device, device_bytes);
    pair_verify.slots = reinterpret_cast<const uint4*>(pair_slots.get());
    pair_verify.members = pair_members.get();
    pair_verify.slot_mask = static_cast<std::uint32_t>(verify.slots.size() - 1);
    pair_verify.bits = verify.bits;
    const int shared = static_cast<int>(pair_shared_bytes());
    auto opt_in = [&](auto kernel, int) {
      WARPMATCH_CUDA_CHECK(device, cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
    };
    for_each_pair_kernel(opt_in);
  }

  std::size_t pair_shared_bytes() const {
    return sizeof(std::uint32_t) * (detail::pair_shared_header_words() + (std::size_t{pair_wide ? 2u : 1u} << pair_bits) +
                                    (short_classes ? detail::kShortGateWords : 0));
  }

  /// Calls f(kernel, min_blocks) with each instantiation the pair scan may launch for this
  /// set: its register bound for 4 resident blocks per SM (<= 64 registers) and for 5 (<= 48).
  template <class F>
  void for_each_pair_kernel(F&& f) const {
    auto with = [&](auto fold, auto shorts, auto wide) {
      constexpr bool kFold = decltype(fold)::value, kShort = decltype(shorts)::value,
                     kWide = decltype(wide)::value;
      f(detail::multi_pair_scan_kernel<kFold, kShort, kWide, 4>, 4);
      f(detail::multi_pair_scan_kernel<kFold, kShort, kWide, 5>, 5);
    };
    auto with_wide = [&](auto fold, auto shorts) {
      if (pair_wide) with(fold, shorts, std::true_type{});
      else with(fold, shorts, std::false_type{});
    };
    auto with_fold = [&](auto fold) {
      if (short_classes) with_wide(fold, std::true_type{});
      else with_wide(fold, std::false_type{});
    };
    if (fast.case_insensitive) with_fold(std::true_type{});
    else with_fold(std::false_type{});
  }

  void launch_pair_scan(const std::uint8_t* text, std::uint64_t owned, std::uint64_t readable,
                        const detail::HitOutput& out, cudaStream_t stream) const {
    // Queue entries are 32-bit offsets: a count-only scan of more text goes in parts (hit
    // keys carry 32-bit offsets too, so chunks with hits are always smaller).
    constexpr std::uint64_t kPart = 1ull << 31;
    if (owned > kPart) {
      if (out.hits) throw InvalidArgument("multi-pattern chunk of more than 2^31 bytes with hits");
      for (std::uint64_t base = 0; base < owned; base += kPart)
        launch_pair_scan(text + base, std::min(kPart, owned - base), readable - base, out, stream);
      return;
    }
    const std::uint64_t tiles = (owned + detail::kScanTileStarts - 1) / detail::kScanTileStarts;
    const auto grid = static_cast<unsigned>(
        std::min<std::uint64_t>(tiles, static_cast<std::uint64_t>(multiprocessors) * pair_blocks_per_sm));
    const std::size_t shared = pair_shared_bytes();
    // The register bound matching the grid.
    const int bound = pair_blocks_per_sm <= 4 ? 4 : 5;
    for_each_pair_kernel([&](auto kernel, int min_blocks) {
      if (min_blocks != bound) return;
      kernel<<<grid, detail::kScanThreads, shared, stream>>>(fast, pair_verify, pair_words.get(), pair_bits, text,
                                                             owned, readable, out);
      detail::check_launch("multi_pair_scan_kernel", device);
    });
  }

  /// Shared bytes of the lane-filter kernel: queues, bitmap, 32 summary copies.
  std::size_t lane_filter_shared_bytes() const {
    return sizeof(std::uint32_t) *
           (detail::scan_shared_header_words(detail::ScanVerify::warp_queue) + (std::size_t{1} << fast.bits4) / 32 +
            32 * static_cast<std::size_t>(detail::scan_summary_words(fast.bits4)));
  }

  void launch_scan(const std::uint8_t* text, std::uint64_t owned, std::uint64_t readable,
                   const detail::HitOutput& out, cudaStream_t stream) const {
    const std::uint64_t tiles = (owned + detail::kScanTileStarts - 1) / detail::kScanTileStarts;
    const bool key8_scan = fast_kernel == FastKernel::scan_key8;
    const bool long_key_scan = fast_kernel == FastKernel::scan_long_key;
    const int bits = long_key_scan ? fast.long_key_bits : key8_scan ? fast.key8_bits : fast.bits4;
    const bool shared_bitmap = bits <= detail::kFastSharedBitmapBits;
    const std::size_t bitmap_bytes = shared_bitmap ? (std::size_t{1} << bits) / 8 : 0;
    const std::size_t gate_bytes = short_classes ? detail::kShortGateWords * sizeof(std::uint32_t) : 0;
    // Template arguments from run-time choices, one at a time.
    auto with_verify = [&](auto shared_tag, auto fold_tag) {
      constexpr bool kShared = decltype(shared_tag)::value, kFold = decltype(fold_tag)::value;
      auto go = [&](auto verify_tag) {
        constexpr detail::ScanVerify kVerify = decltype(verify_tag)::value;
        const std::size_t shared =
            detail::scan_shared_header_words(kVerify) * sizeof(std::uint32_t) + bitmap_bytes + gate_bytes;
        const auto grid = static_cast<unsigned>(std::min<std::uint64_t>(
            tiles, static_cast<std::uint64_t>(multiprocessors) * detail::scan_blocks_per_sm(kVerify)));
        if (short_classes)
          detail::multi_scan_kernel<kShared, kFold, kVerify, false, true>
              <<<grid, detail::kScanThreads, shared, stream>>>(fast, text, owned, readable, out);
        else if (key8_scan)
          detail::multi_scan_kernel<kShared, kFold, kVerify, false, false, detail::ScanKey::eight>
              <<<grid, detail::kScanThreads, shared, stream>>>(fast, text, owned, readable, out);
        else if (long_key_scan)
          detail::multi_scan_kernel<kShared, kFold, kVerify, false, false, detail::ScanKey::long_key>
              <<<grid, detail::kScanThreads, shared, stream>>>(fast, text, owned, readable, out);
        else
          detail::multi_scan_kernel<kShared, kFold, kVerify>
              <<<grid, detail::kScanThreads, shared, stream>>>(fast, text, owned, readable, out);
        detail::check_launch("multi_scan_kernel", device);
      };
      using detail::ScanVerify;
      if constexpr (kShared) {
        if (fast_kernel == FastKernel::scan_lane_filter) {
          const auto grid = static_cast<unsigned>(std::min<std::uint64_t>(
              tiles, static_cast<std::uint64_t>(multiprocessors) *
                         detail::scan_blocks_per_sm(ScanVerify::warp_queue, true)));
          detail::multi_scan_kernel<true, kFold, ScanVerify::warp_queue, true>
              <<<grid, detail::kScanThreads, lane_filter_shared_bytes(), stream>>>(fast, text, owned,
                                                                                   readable, out);
          detail::check_launch("multi_scan_kernel<lane filter>", device);
          return;
        }
      }
      if (fast_kernel == FastKernel::scan_block_queue)
        go(std::integral_constant<ScanVerify, ScanVerify::block_queue>{});
      else if (fast_kernel == FastKernel::scan_warp_queue || key8_scan || long_key_scan)
        go(std::integral_constant<ScanVerify, ScanVerify::warp_queue>{});
      else
        go(std::integral_constant<ScanVerify, ScanVerify::per_thread>{});
    };
    auto with_fold = [&](auto shared_tag) {
      if (fast.case_insensitive) with_verify(shared_tag, std::true_type{});
      else with_verify(shared_tag, std::false_type{});
    };
    if (shared_bitmap) with_fold(std::true_type{});
    else with_fold(std::false_type{});
  }

  int device;
  MultiAlgorithm algorithm;
  MultiLaunch launch;
  std::uint64_t max_length;
  int multiprocessors = 1;
  FastKernel fast_kernel = FastKernel::tile;  // fast: the kernel chosen for this set
  bool short_classes = false;                 // fast: some pattern shorter than 4 bytes
  std::uint64_t device_bytes = 0;
  std::vector<std::uint64_t> lengths;  // each pattern's, for the matches handed to the sink
  DeviceBuffer<std::uint64_t> offsets;
  DeviceBuffer<std::uint8_t> bytes;
  DeviceBuffer<std::uint64_t> bit1, bit2, bit3, bit4, bit8, key8, long_key;
  DeviceBuffer<std::uint32_t> bit4_summary;
  DeviceBuffer<std::uint32_t> short_gate;
  DeviceBuffer<std::uint32_t> pair_words;  // scan_pair: the pair filter and its verification
  DeviceBuffer<core::PairVerifySlot> pair_slots;
  DeviceBuffer<core::PairVerifyMember> pair_members;
  detail::DevicePairVerify pair_verify;
  int pair_bits = 0, pair_blocks_per_sm = 0;
  bool pair_wide = true;
  std::unique_ptr<DeviceBuffer<core::PrefixTableEntry>> prefix_tables[core::kPrefixClasses];
  DeviceBuffer<std::uint32_t> ids;
  DeviceBuffer<std::uint64_t> head8;
  DeviceBuffer<core::MbndmSubset> subsets;
  DeviceBuffer<std::uint32_t> members;
  DeviceBuffer<std::uint64_t> tables;
  detail::DevicePrefixIndex fast;
  detail::DeviceMbndm mbndm;
  mutable detail::ScratchPool<MultiScratch> scratches;

  ~MultiDeviceTables() { free_on_device(); }
};

std::shared_ptr<const MultiDeviceTables> multi_upload(const core::PatternSet& set,
                                                      const core::PrefixIndex* index,
                                                      MultiAlgorithm algorithm,
                                                      const MultiLaunch& launch, int device) {
  if (algorithm == MultiAlgorithm::fast && !index)
    throw InvalidArgument("multi_upload: the fast algorithm needs the prefix index");
  return std::make_shared<const MultiDeviceTables>(set, index, algorithm, launch, device);
}

std::uint64_t multi_device_bytes(const MultiDeviceTables& tables) { return tables.device_bytes; }

namespace {

class MultiPipeline {
 public:
  // `per_pattern` (count only): the device array of one counter per pattern id that the
  // kernels add each occurrence to.
  MultiPipeline(const MultiDeviceTables& tables, ByteSpan text, bool count_only,
                unsigned long long* per_pattern = nullptr)
      : t_(tables), device_(tables.device), text_(text), count_only_(count_only), per_pattern_(per_pattern) {
    overlap_ = t_.max_length - 1;
    // Page-locked host text or device-resident text (DeviceSpan): copied from directly.
    direct_ = copies_directly(text.data()) && copies_directly(text.data() + text.size() - 1);
    plan(t_.launch.chunk_bytes ? t_.launch.chunk_bytes : chunk_bytes_that_fit());
  }

  /// allocate(), halving the chunks while they do not fit (fresh slots each time: what the
  /// scratch held is given back first).
  void allocate_fitting(MultiScratch& scratch) {
    for (;;) {
      try {
        allocate(scratch);
        return;
      } catch (const DeviceOutOfMemory&) {
        if (!halve_chunks()) throw;
        slots_.clear();
        for (auto& s : scratch.slots) s = std::make_unique<Slot>(device_);
      }
    }
  }

  // An early stop or an error may leave a chunk in flight: never free buffers under it.
  ~MultiPipeline() {
    for (auto& s : slots_) cudaStreamSynchronize(s->stream.get());
  }
  MultiPipeline(const MultiPipeline&) = delete;
  MultiPipeline& operator=(const MultiPipeline&) = delete;

  std::uint64_t run(const core::MatchBatchSink& sink) {
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < chunks_.size(); ++i) {
      enqueue(*slots_[i % 2], chunks_[i]);
      if (i > 0 && !finish(*slots_[(i - 1) % 2], sink, total)) return total;
    }
    if (!chunks_.empty()) finish(*slots_[(chunks_.size() - 1) % 2], sink, total);
    return total;
  }

 private:
  /// Grows the scratch's slots for the planned chunks; DeviceOutOfMemory when they do not fit.
  void allocate(MultiScratch& scratch) {
    const std::uint64_t buffer = std::min<std::uint64_t>(text_.size(), chunk_ + overlap_) + kTextPadding;
    // The first hit buffer: no more entries than a chunk has positions (grown on overflow).
    const std::uint64_t hit_capacity = std::min<std::uint64_t>(MultiPolicy::initial_hit_capacity, chunk_);
    slots_.clear();
    // The scratch's buffers only grow: a smaller scan after a larger one allocates nothing.
    for (int i = 0; i < 2 && i < static_cast<int>(chunks_.size()); ++i) {
      slots_.push_back(scratch.slots[i].get());
      Slot& s = *slots_.back();
      // Kernels read whole words past a chunk's end (masked).
      s.text.zero_on_growth(s.stream.get());
      s.text.reserve(buffer);
      s.counter.reserve(1);
      s.host_counter.reserve(1);
      if (!count_only_ && s.capacity < hit_capacity) grow(s, hit_capacity);
    }
    if (!direct_) detail::prepare_upload_ring(device_);
  }

  /// After allocate() ran out of device memory: plans chunks half as large, down to
  /// RuntimePolicy::min_chunk_bytes; false when already there.
  bool halve_chunks() {
    std::uint64_t chunk = chunk_;
    if (!detail::halve_chunk(chunk, device_, "multi-pattern search")) return false;
    plan(chunk);
    return true;
  }

  /// The policy's chunk, smaller when the device has less left (its free memory or the
  /// device-memory cap's remainder): each of the two slots takes about a quarter of it for its
  /// text and, reporting, its hit buffers (16 bytes per hit, as many as positions at worst).
  std::uint64_t chunk_bytes_that_fit() const {
    const std::uint64_t per_byte = count_only_ ? 1 : 1 + 16;
    const std::uint64_t room = detail::device_memory_available(device_) / 4 / per_byte;
    const std::uint64_t fits = std::max(room, RuntimePolicy::min_chunk_bytes);
    const std::uint64_t forced = multi_chunk_override();
    const std::uint64_t policy =
        forced ? forced : count_only_ && !direct_ ? MultiPolicy::staged_count_chunk : MultiPolicy::chunk_bytes;
    if (fits < std::min<std::uint64_t>(policy, text_.size()))
      detail::note_smaller_chunks(device_, "multi-pattern search", fits, policy);
    return std::min(policy, fits);
  }

  void plan(std::uint64_t chunk) {
    chunk_ = chunk;
    chunks_ = core::plan_chunks(text_.size(), chunk_, overlap_);
  }

  void grow(Slot& s, std::uint64_t capacity) {
    s.hits.reserve(capacity);
    s.sorted.reserve(capacity);
    s.host_hits.reserve(capacity);
    std::size_t temp = 0;
    WARPMATCH_CUDA_CHECK(device_, cub::DeviceRadixSort::SortKeys(
                                      nullptr, temp, s.hits.get(), s.sorted.get(),
                                      static_cast<int>(std::min<std::uint64_t>(capacity, 0x7fffffff))));
    s.sort_temp.reserve(temp);
    s.capacity = capacity;
  }

  detail::HitOutput output(Slot& s) const {
    if (count_only_) return {s.counter.get(), nullptr, 0, per_pattern_};
    return {s.counter.get(), s.hits.get(), s.capacity};
  }

  void enqueue(Slot& s, const core::Chunk& c) {
    s.chunk = c;
    const std::uint64_t len = c.read_end - c.begin;
    const std::uint8_t* src = text_.data() + c.begin;
    const cudaStream_t st = s.stream.get();
    // Pageable host text through the upload ring; otherwise host-to-device from pinned memory,
    // or device-to-device for device-resident text.
    if (direct_) WARPMATCH_CUDA_CHECK(device_, cudaMemcpyAsync(s.text.get(), src, len, cudaMemcpyDefault, st));
    else detail::upload_pageable(device_, s.text.get(), src, len, st);
    WARPMATCH_CUDA_CHECK(device_, cudaMemsetAsync(s.counter.get(), 0, sizeof(unsigned long long), st));
    t_.launch_chunk(s.text.get(), c.owned_end - c.begin, len, output(s), st);
    WARPMATCH_CUDA_CHECK(device_, cudaMemcpyAsync(s.host_counter.get(), s.counter.get(),
                                                  sizeof(unsigned long long), cudaMemcpyDeviceToHost, st));
  }

  bool finish(Slot& s, const core::MatchBatchSink& sink, std::uint64_t& total) {
    detail::chunk_fault_point(device_);
    s.stream.synchronize();
    std::uint64_t found = *s.host_counter.get();
    if (count_only_) {
      total += found;
      return true;
    }
    const cudaStream_t st = s.stream.get();
    const std::uint64_t owned = s.chunk.owned_end - s.chunk.begin;
    const std::uint64_t readable = s.chunk.read_end - s.chunk.begin;
    if (found > s.capacity) {  // more hits than room: grow and run the chunk again
      grow(s, found + found / 8);
      WARPMATCH_CUDA_CHECK(device_, cudaMemsetAsync(s.counter.get(), 0, sizeof(unsigned long long), st));
      t_.launch_chunk(s.text.get(), owned, readable, output(s), st);
      s.stream.synchronize();
    }
    if (found == 0) return true;
    std::size_t temp = 0;
    WARPMATCH_CUDA_CHECK(device_, cub::DeviceRadixSort::SortKeys(nullptr, temp, s.hits.get(),
                                                                 s.sorted.get(), static_cast<int>(found)));
    s.sort_temp.reserve(temp);
    temp = s.sort_temp.size();
    WARPMATCH_CUDA_CHECK(device_, cub::DeviceRadixSort::SortKeys(
                                      s.sort_temp.get(), temp, s.hits.get(), s.sorted.get(),
                                      static_cast<int>(found), 0, 64, st));
    WARPMATCH_CUDA_CHECK(device_, cudaMemcpyAsync(s.host_hits.get(), s.sorted.get(),
                                                  found * sizeof(std::uint64_t),
                                                  cudaMemcpyDeviceToHost, st));
    s.stream.synchronize();
    std::vector<Match> batch(found);
    const std::uint64_t* keys = s.host_hits.get();
    for (std::uint64_t i = 0; i < found; ++i) {
      const auto id = static_cast<std::uint32_t>(keys[i] & 0xffffffffu);
      const std::uint64_t start = s.chunk.begin + (keys[i] >> 32);
      batch[i] = Match{.pattern = id, .start = start, .end = start + pattern_length(id)};
    }
    total += found;
    return sink(batch);
  }

  std::uint64_t pattern_length(std::uint32_t id) const { return t_.lengths[id]; }

  const MultiDeviceTables& t_;
  int device_;
  ByteSpan text_;
  bool count_only_;
  unsigned long long* per_pattern_ = nullptr;
  bool direct_ = false;
  std::uint64_t overlap_ = 0;
  std::uint64_t chunk_ = 0;
  std::vector<core::Chunk> chunks_;
  std::vector<Slot*> slots_;  // the scratch's, as many as this scan uses
};

}  // namespace

std::uint64_t multi_scan(const MultiDeviceTables& tables, ByteSpan text, bool count_only,
                         const core::MatchBatchSink& sink) {
  if (text.empty()) return 0;
  DeviceGuard guard(tables.device);
  const auto scratch = tables.scratches.take([&] { return std::make_unique<MultiScratch>(tables.device); });
  MultiPipeline pipeline(tables, text, count_only);
  pipeline.allocate_fitting(*scratch);
  return pipeline.run(sink);
}

std::vector<std::uint64_t> multi_count_per_pattern(const MultiDeviceTables& tables, ByteSpan text) {
  const std::size_t patterns = tables.offsets.size() - 1;
  std::vector<std::uint64_t> counts(patterns, 0);
  if (text.empty() || patterns == 0) return counts;
  const int device = tables.device;
  DeviceGuard guard(device);
  const auto scratch = tables.scratches.take([&] { return std::make_unique<MultiScratch>(device); });
  DeviceBuffer<unsigned long long>& per_pattern = scratch->per_pattern;
  per_pattern.reserve(patterns);
  Stream& zero = scratch->slots[0]->stream;  // synchronised below: the chunks run on both streams
  WARPMATCH_CUDA_CHECK(device, cudaMemsetAsync(per_pattern.get(), 0, patterns * sizeof(unsigned long long), zero.get()));
  zero.synchronize();
  MultiPipeline pipeline(tables, text, /*count_only=*/true, per_pattern.get());
  pipeline.allocate_fitting(*scratch);
  pipeline.run({});  // returns with every chunk's stream synchronised
  static_assert(sizeof(unsigned long long) == sizeof(std::uint64_t));
  WARPMATCH_CUDA_CHECK(device, cudaMemcpy(counts.data(), per_pattern.get(), patterns * sizeof(std::uint64_t),
                                          cudaMemcpyDeviceToHost));
  return counts;
}

core::CountTiming time_multi_resident(const MultiDeviceTables& tables, ByteSpan text, int repeats) {
  core::CountTiming timing;
  if (text.empty()) return timing;
  const int device = tables.device;
  DeviceGuard guard(device);
  DeviceBuffer<std::uint8_t> d_text(device, text.size() + kTextPadding);
  WARPMATCH_CUDA_CHECK(device, cudaMemcpy(d_text.get(), text.data(), text.size(), cudaMemcpyHostToDevice));
  detail::wait_for_uploads(device);
  DeviceBuffer<unsigned long long> counter(device, 1);
  Stream stream(device);
  const detail::HitOutput out{counter.get(), nullptr, 0};
  const double median_ms = detail::median_event_ms(device, stream, repeats, [&] {
    WARPMATCH_CUDA_CHECK(device, cudaMemsetAsync(counter.get(), 0, sizeof(unsigned long long), stream.get()));
    tables.launch_chunk(d_text.get(), text.size(), text.size(), out, stream.get());
  });
  unsigned long long count = 0;
  WARPMATCH_CUDA_CHECK(device, cudaMemcpy(&count, counter.get(), sizeof count, cudaMemcpyDeviceToHost));
  timing.count = count;
  timing.median_ms = median_ms;
  return timing;
}

core::CountTiming time_multi_host_fed(const MultiDeviceTables& tables, ByteSpan text, int repeats) {
  core::CountTiming timing;
  if (text.empty()) return timing;
  DeviceGuard guard(tables.device);
  PinnedBuffer<std::uint8_t> pinned(tables.device);
  pinned.reserve(text.size());
  parallel_copy(pinned.get(), text.data(), text.size());
  const ByteSpan host_text(pinned.get(), text.size());
  timing.median_ms =
      detail::median_wall_ms(repeats, [&] { timing.count = multi_scan(tables, host_text, true, {}); });
  return timing;
}

}  // namespace warpmatch::cuda
