// Edit distance, the public entry: validates options, resolves backend and algorithm, routes
// to src/cpu or src/cuda, fills stats; the CIGAR checker; the tile model's calibration run
// and per-device lookup (the model itself is in distance_tune.cpp).
#include <algorithm>
#include <chrono>
#include <random>

#include "api/backend_choice.hpp"
#include "api/multi_device.hpp"
#include "api/scan_stats.hpp"
#include "api/tuning_hooks.hpp"
#include "core/device_split.hpp"
#include "core/distance_tune.hpp"
#include "core/host_copy.hpp"
#include "core/timing.hpp"
#include "cpu/distance_cpu.hpp"
#include "cuda/distance/distance_cuda.hpp"
#include "cuda/runtime/devices.hpp"
#include "warpmatch/distance.hpp"

namespace warpmatch {

namespace {

struct Plan {
  Backend backend = Backend::cpu;
  std::string algorithm;  // resolved name
  cpu::DistanceAlgorithm cpu_algorithm = cpu::DistanceAlgorithm::myers;
  cuda::DistanceAlgorithm cuda_algorithm = cuda::DistanceAlgorithm::myers_stripes;
  int threads = 1;
  std::vector<int> workers;  // cuda: the GPUs batches and matrices are split over
  std::string device_label;
};

Plan resolve(const DistanceOptions& options) {
  Plan plan;
  plan.threads = core::execution_threads(options);
  core::check_device_list(options);
  const std::string& algo = options.algorithm;
  plan.backend = core::backend_for_algorithm(options.backend, algo, {"dp"}, {"tiles"});
  constexpr std::string_view kOperation = "edit distance";
  if (plan.backend == Backend::cpu) {
    using A = cpu::DistanceAlgorithm;
    plan.cpu_algorithm = core::pick_algorithm<A>(algo, kOperation, Backend::cpu, {{"myers", A::myers}, {"dp", A::dp}},
                                                 "'tiles' runs on the cuda backend", plan.algorithm);
    if (plan.cpu_algorithm == A::dp) plan.threads = 1;
    plan.device_label = core::cpu_device_label(plan.threads);
  } else {
    using A = cuda::DistanceAlgorithm;
    plan.cuda_algorithm = core::pick_algorithm<A>(algo, kOperation, Backend::cuda,
                                                  {{"myers", A::myers_stripes}, {"tiles", A::tiles}},
                                                  "'dp' runs on the cpu backend", plan.algorithm);
  }
  plan.workers = core::execution_devices(options, plan.backend);
  if (plan.backend == Backend::cuda) plan.device_label = core::cuda_devices_label(plan.workers);
  return plan;
}

/// Items of the given DP cells split over the plan's GPUs (SplitPolicy: at least
/// distance_share_cells each); each range's results land at its place in `out`, so the order
/// is the one-device order. compute(range, device) returns the range's results.
template <class Result, class Compute>
void split_over_devices(const Plan& plan, const std::vector<std::uint64_t>& cells, std::vector<Result>& out,
                        std::size_t results_per_item, const Compute& compute) {
  const std::vector<core::ItemRange> ranges = core::plan_weighted_shares(
      cells, plan.workers.size(), multi_device::min_share(multi_device::SplitPolicy::distance_share_cells));
  core::resize_prefaulted(out, cells.size() * results_per_item);
  multi_device::run_per_device(ranges.size(), [&](std::size_t i) {
    const std::vector<Result> part = compute(ranges[i], plan.workers[i]);
    std::copy(part.begin(), part.end(), out.begin() + static_cast<std::ptrdiff_t>(ranges[i].begin * results_per_item));
  }, plan.workers);
}

void fill_stats(ScanStats* stats, const Plan& plan, std::uint64_t pairs, std::uint64_t bytes, std::uint64_t cells,
                int tile_size, std::chrono::steady_clock::time_point t0) {
  if (!stats) return;
  stats->backend = plan.backend;
  stats->algorithm = plan.algorithm;
  stats->device = plan.device_label;
  stats->bytes = bytes;
  stats->pairs = pairs;
  stats->cells = cells;
  stats->tile_size = tile_size;
  stats->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

void tuning_hooks::check_tile_size(int tile_size) {
  if (tile_size != 0 && (tile_size < 32 || tile_size > 1024 || tile_size % 32 != 0))
    throw InvalidArgument("block size " + std::to_string(tile_size) +
                          " out of range: the tiles kernel takes a multiple of 32 from 32 to 1024");
}

DistanceResult edit_distance(ByteSpan a, ByteSpan b, const DistanceOptions& options, ScanStats* stats) {
  return tuning_hooks::edit_distance(a, b, options, {}, stats);
}

DistanceResult tuning_hooks::edit_distance(ByteSpan a, ByteSpan b, const DistanceOptions& options,
                                           const DistanceKnobs& knobs, ScanStats* stats) {
  const auto t0 = api::clock_for(stats);  // no clock read without stats (a short pair takes ~1 us)
  const cuda::DeviceMemoryLimitScope cap(options.device_memory_limit);
  check_tile_size(knobs.tile_size);
  const Plan plan = resolve(options);
  const bool want_alignment = options.report == Report::cigar;
  DistanceResult result;
  int block_size = 0;
  if (plan.backend == Backend::cpu) {
    if (want_alignment) result = cpu::edit_alignment(a, b, options.max_distance, plan.threads);
    else result.distance = cpu::edit_distance(a, b, options.max_distance, plan.cpu_algorithm, plan.threads);
  } else {
    if (plan.cuda_algorithm == cuda::DistanceAlgorithm::tiles) {
      block_size = knobs.tile_size > 0
                       ? knobs.tile_size
                       : tune::tile_model_for_device(plan.workers[0])
                             .choose_block_size(static_cast<std::int64_t>(a.size()),
                                                static_cast<std::int64_t>(b.size()));
    }
    const cuda::DistanceRun run = cuda::edit_distance(a, b, options.max_distance, plan.cuda_algorithm,
                                                      block_size, plan.workers[0]);
    result.distance = run.distance;
    // The alignment's traceback runs on the CPU (Hirschberg), banded by the GPU's distance.
    if (want_alignment && !result.over_k())
      result = cpu::edit_alignment(a, b, result.distance, plan.threads);
  }
  fill_stats(stats, plan, 1, a.size() + b.size(), static_cast<std::uint64_t>(a.size()) * b.size(), block_size, t0);
  return result;
}

namespace {

/// fn(i) for i in [0, n) on the host pools: the host's share of a large batch (a million
/// pairs) in serial loops cost more than the GPUs' work and did not shrink with more GPUs.
template <class Fn>
void for_each_index_on_pools(std::size_t n, const Fn& fn) {
  const std::size_t tasks = n / 65536 + 1;
  core::run_on_host_pool(tasks, [&](std::size_t t) {
    for (std::size_t i = t * n / tasks; i < (t + 1) * n / tasks; ++i) fn(i);
  });
}

/// A batch's distances on the plan's GPUs, in input order.
std::vector<std::int64_t> batch_distances_on_gpus(const Plan& plan, std::span<const std::pair<ByteSpan, ByteSpan>> pairs,
                                                  std::int64_t k) {
  std::vector<std::uint64_t> cells;
  core::resize_prefaulted(cells, pairs.size());
  for_each_index_on_pools(pairs.size(), [&](std::size_t i) {
    cells[i] = std::uint64_t{pairs[i].first.size()} * pairs[i].second.size() + 1;
  });
  std::vector<std::int64_t> distances;
  split_over_devices(plan, cells, distances, 1, [&](const core::ItemRange& r, int device) {
    return cuda::edit_distance_batch(pairs.subspan(r.begin, r.end - r.begin), k, device, nullptr);
  });
  return distances;
}

void fill_batch_stats(ScanStats* stats, const Plan& plan, std::span<const std::pair<ByteSpan, ByteSpan>> pairs,
                      std::chrono::steady_clock::time_point t0) {
  if (!stats) return;  // a million pairs' sums are not free
  std::uint64_t bytes = 0, cells = 0;
  for (const auto& [a, b] : pairs) {
    bytes += a.size() + b.size();
    cells += static_cast<std::uint64_t>(a.size()) * b.size();
  }
  fill_stats(stats, plan, pairs.size(), bytes, cells, 0, t0);
}

}  // namespace

std::vector<DistanceResult> edit_distance_batch(std::span<const std::pair<ByteSpan, ByteSpan>> pairs,
                                                const DistanceOptions& options, ScanStats* stats) {
  const auto t0 = std::chrono::steady_clock::now();
  const cuda::DeviceMemoryLimitScope cap(options.device_memory_limit);
  const Plan plan = resolve(options);
  const bool want_alignment = options.report == Report::cigar;
  std::vector<DistanceResult> results;
  if (plan.backend == Backend::cpu) {
    results = cpu::edit_distance_batch(pairs, options.max_distance, want_alignment,
                                       plan.cpu_algorithm, plan.threads);
  } else {
    const std::vector<std::int64_t> distances = batch_distances_on_gpus(plan, pairs, options.max_distance);
    core::resize_prefaulted(results, pairs.size());
    for_each_index_on_pools(pairs.size(), [&](std::size_t i) { results[i].distance = distances[i]; });
    if (want_alignment) {
      std::vector<std::pair<ByteSpan, ByteSpan>> pending;
      std::vector<std::size_t> where;
      for (std::size_t i = 0; i < pairs.size(); ++i)
        if (!results[i].over_k()) {
          pending.push_back(pairs[i]);
          where.push_back(i);
        }
      auto aligned = cpu::edit_distance_batch(pending, options.max_distance, true,
                                              cpu::DistanceAlgorithm::myers, plan.threads);
      for (std::size_t i = 0; i < where.size(); ++i) results[where[i]] = std::move(aligned[i]);
    }
  }
  fill_batch_stats(stats, plan, pairs, t0);
  return results;
}

std::vector<std::int64_t> edit_distances(std::span<const std::pair<ByteSpan, ByteSpan>> pairs,
                                         const DistanceOptions& options, ScanStats* stats) {
  const auto t0 = std::chrono::steady_clock::now();
  const cuda::DeviceMemoryLimitScope cap(options.device_memory_limit);
  if (options.report == Report::cigar)
    throw InvalidArgument("edit_distances gives distances only (edit_distance_batch gives alignments)");
  const Plan plan = resolve(options);
  std::vector<std::int64_t> distances;
  if (plan.backend == Backend::cpu) {
    const std::vector<DistanceResult> results =
        cpu::edit_distance_batch(pairs, options.max_distance, false, plan.cpu_algorithm, plan.threads);
    core::resize_prefaulted(distances, results.size());
    for_each_index_on_pools(results.size(), [&](std::size_t i) { distances[i] = results[i].distance; });
  } else {
    distances = batch_distances_on_gpus(plan, pairs, options.max_distance);
  }
  fill_batch_stats(stats, plan, pairs, t0);
  return distances;
}

std::vector<std::int64_t> edit_distance_matrix(std::span<const ByteSpan> a, std::span<const ByteSpan> b,
                                               const DistanceOptions& options, ScanStats* stats) {
  const auto t0 = std::chrono::steady_clock::now();
  const cuda::DeviceMemoryLimitScope cap(options.device_memory_limit);
  if (options.report == Report::cigar) throw InvalidArgument("edit_distance_matrix gives distances only (no alignments)");
  if (!a.empty() && b.size() > (std::uint64_t{1} << 40) / a.size())
    throw InvalidArgument("edit_distance_matrix: " + std::to_string(a.size()) + " x " + std::to_string(b.size()) +
                          " pairs is too many");
  const Plan plan = resolve(options);
  std::vector<std::int64_t> out;
  if (plan.backend == Backend::cpu) {
    // The cross product as pairs of views (no bytes copied).
    std::vector<std::pair<ByteSpan, ByteSpan>> pairs;
    pairs.reserve(a.size() * b.size());
    for (const ByteSpan& x : a)
      for (const ByteSpan& y : b) pairs.emplace_back(x, y);
    const auto results = cpu::edit_distance_batch(pairs, options.max_distance, false, plan.cpu_algorithm, plan.threads);
    out.resize(results.size());
    for (std::size_t i = 0; i < results.size(); ++i) out[i] = results[i].distance;
  } else {
    // The GPU gets the strings once and forms the pairs itself; several GPUs take rows of a.
    std::uint64_t bytes_b = 0;
    for (const ByteSpan& y : b) bytes_b += y.size();
    std::vector<std::uint64_t> row_cells(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) row_cells[i] = std::uint64_t{a[i].size()} * bytes_b + b.size();
    split_over_devices(plan, row_cells, out, b.size(), [&](const core::ItemRange& r, int device) {
      return cuda::edit_distance_matrix(a.subspan(r.begin, r.end - r.begin), b, options.max_distance, device, nullptr);
    });
  }
  std::uint64_t bytes_a = 0, bytes_b = 0;
  for (const ByteSpan& x : a) bytes_a += x.size();
  for (const ByteSpan& y : b) bytes_b += y.size();
  const std::uint64_t cells = bytes_a * bytes_b;
  const std::uint64_t bytes = bytes_a * b.size() + bytes_b * a.size();  // |x| + |y| over every pair
  fill_stats(stats, plan, out.size(), bytes, cells, 0, t0);
  return out;
}

std::string apply_cigar(ByteSpan a, ByteSpan b, std::string_view cigar, std::int64_t* cost) {
  std::string out;
  std::size_t i = 0, j = 0;
  std::int64_t edits = 0;
  for (std::size_t p = 0; p < cigar.size();) {
    std::uint64_t count = 0;
    const std::size_t digits = p;
    while (p < cigar.size() && cigar[p] >= '0' && cigar[p] <= '9') count = count * 10 + (cigar[p++] - '0');
    if (p == digits || p == cigar.size())
      throw InvalidArgument("malformed CIGAR at offset " + std::to_string(digits));
    const char op = cigar[p++];
    for (std::uint64_t r = 0; r < count; ++r) {
      switch (op) {
        case '=':
        case 'X':
          if (i >= a.size() || j >= b.size()) throw InvalidArgument("CIGAR runs past the end of A or B");
          if (op == '=' && a[i] != b[j])
            throw InvalidArgument("CIGAR claims '=' at A offset " + std::to_string(i) + " but the bytes differ");
          out.push_back(static_cast<char>(b[j]));
          edits += op == 'X';
          ++i, ++j;
          break;
        case 'D':  // a byte of B absent from A: inserted
          if (j >= b.size()) throw InvalidArgument("CIGAR inserts past the end of B");
          out.push_back(static_cast<char>(b[j++]));
          ++edits;
          break;
        case 'I':  // a byte of A absent from B: deleted
          if (i >= a.size()) throw InvalidArgument("CIGAR deletes past the end of A");
          ++i;
          ++edits;
          break;
        default:
          throw InvalidArgument(std::string("unknown CIGAR operation '") + op + "'");
      }
    }
  }
  if (i != a.size() || j != b.size())
    throw InvalidArgument("CIGAR consumes " + std::to_string(i) + " of " + std::to_string(a.size()) +
                          " bytes of A and " + std::to_string(j) + " of " + std::to_string(b.size()) +
                          " of B");
  if (cost) *cost = edits;
  return out;
}

namespace tune {

TileModel tile_model_for_device(int device) {
  const auto devices = cuda::devices();
  if (device < 0 || device >= static_cast<int>(devices.size())) return TileModel{};
  if (auto stored = load_tile_model(model_path(devices[device].name)); stored) return *stored;
  TileModel model;
  model.device = devices[device].name;
  model.multiprocessors = devices[device].multiprocessors;
  return model;
}

TileModel calibrate_tile_model(int device, std::int64_t length, int repeats) {
  const auto devices = cuda::devices();
  if (devices.empty()) throw BackendUnavailable("calibrating the tiles kernel's model needs a CUDA GPU: none is visible");
  if (device < 0 || device >= static_cast<int>(devices.size()))
    throw InvalidArgument("CUDA device " + std::to_string(device) + " does not exist");
  TileModel base;
  base.device = devices[device].name;
  base.multiprocessors = devices[device].multiprocessors;
  // Two lengths x five block sizes (a second or so on an H100/H200): the small length leaves
  // the GPU under-filled by big tiles, the large one queues several small tiles per SM, so the
  // per-launch, per-step and per-active-warp terms separate.
  const std::vector<std::int64_t> lengths = calibration_lengths(length);
  std::mt19937_64 rng(20251024);
  std::vector<std::uint8_t> a(static_cast<std::size_t>(lengths.back())), b(static_cast<std::size_t>(lengths.back()));
  for (auto& c : a) c = "ACGT"[rng() & 3];
  for (auto& c : b) c = "ACGT"[rng() & 3];
  std::vector<TileMeasurement> measurements;
  for (const std::int64_t len : lengths) {
    const ByteSpan pa(a.data(), static_cast<std::size_t>(len)), pb(b.data(), static_cast<std::size_t>(len));
    for (const int bs : calibration_block_sizes()) {
      std::vector<double> ms;
      cuda::edit_distance(pa, pb, -1, cuda::DistanceAlgorithm::tiles, bs, device);  // warm-up
      for (int r = 0; r < std::max(1, repeats); ++r)
        ms.push_back(cuda::edit_distance(pa, pb, -1, cuda::DistanceAlgorithm::tiles, bs, device).kernel_ms);
      measurements.push_back({bs, len, len, core::median(std::move(ms))});
    }
  }
  return fit_tile_model(base, measurements);
}

}  // namespace tune

}  // namespace warpmatch
