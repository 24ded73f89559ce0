// Running one call on several GPUs (Execution::devices): the smallest share of work worth a
// device of its own, and the host threads that drive the devices, one each, on the CPUs near
// its GPU (multi_device.cpp reads where they are). The split itself is core/device_split.hpp;
// each operation's front (exact.cpp, multi.cpp, approx.cpp, distance.cpp) runs an ordinary
// one-device scan per share and merges in the one-GPU order.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "core/host_affinity.hpp"
#include "cuda/runtime/tuning.hpp"

namespace warpmatch::multi_device {

/// The smallest share a device gets; below it a call stays on fewer devices, so two GPUs
/// never lose to one on a small job. Chosen, not yet measured on several GPUs (the lead's
/// `warpmatch-bench scaling` run decides): each share costs a host thread, its own streams
/// and buffers, and on a cold device the context; these sizes keep that under ~1 % of the
/// share's time on an H100 (host-fed exact search ~25 GB/s: 32 MiB ~ 1.3 ms).
struct SplitPolicy {
  /// Exact and multi-pattern search: owned text bytes per device. The CLI's 256 MiB window
  /// still splits over up to 8 GPUs.
  static constexpr std::uint64_t text_share_bytes = std::uint64_t{32} << 20;
  /// Approximate search: text bytes x searched patterns per device (one 20 nt guide: 64 MiB,
  /// more than a 2^23-end segment, so one pattern never splits; 1000 guides: 64 KiB).
  static constexpr std::uint64_t approx_share_work = std::uint64_t{1} << 26;
  /// Distance batches and matrices: DP cells (|a| x |b| summed) per device.
  static constexpr std::uint64_t distance_share_cells = std::uint64_t{1} << 30;
};

/// Where the host workers of `devices` (one call's GPUs, in worker order) run: each near its
/// GPU (core::plan_host_placement over the GPUs' CPU lists, read once per process, and the
/// CPUs the calling thread may use). Records the answer for host_placement_note().
std::vector<core::HostPlacement> host_placements(std::span<const int> devices);

/// Where the host threads of the latest call over several GPUs ran
/// (core::describe_host_placement); "" until one ran. For the CLI's --stats.
std::string host_placement_note();

/// run_per_device with the placements given: job i's thread runs in placements[i] (none past
/// the list's end) and so do the host pools it leases.
template <class Job>
void run_placed(std::span<const core::HostPlacement> placements, std::size_t count, const Job& job) {
  std::vector<std::exception_ptr> errors(count);
  std::vector<std::thread> threads;
  threads.reserve(count > 0 ? count - 1 : 0);
  const std::uint64_t cap = cuda::DeviceMemoryLimitScope::current();
  const core::HostPlacement unplaced;
  auto guarded = [&](std::size_t i) {
    const cuda::DeviceMemoryLimitScope scope(cap);
    const core::ThreadPlacementScope near_its_gpu(i < placements.size() ? placements[i] : unplaced);
    try {
      job(i);
    } catch (...) {
      errors[i] = std::current_exception();
    }
  };
  for (std::size_t i = 1; i < count; ++i) threads.emplace_back(guarded, i);
  if (count > 0) guarded(0);
  for (auto& t : threads) t.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

/// Runs job(i) for every i in [0, count): i = 0 on the calling thread (so a job may deliver
/// straight to the caller's sink), each other on a host thread of its own. Waits for all,
/// then rethrows the failure of the lowest index. Every job runs under the caller's
/// device-memory cap (cuda::DeviceMemoryLimitScope). With `devices` (job i drives
/// devices[i]) and more than one job, each job's thread, the calling one for the time of its
/// job included, runs on the CPUs near its GPU (host_placements); one job is never moved.
template <class Job>
void run_per_device(std::size_t count, const Job& job, std::span<const int> devices = {}) {
  if (count < 2 || devices.empty()) return run_placed({}, count, job);
  const std::vector<core::HostPlacement> placements = host_placements(devices.first(std::min(count, devices.size())));
  run_placed(placements, count, job);
}

/// Runs `shares` scans, share i on worker i (run_per_device, near devices[i]), and delivers
/// their results in share order, the one-device order: share 0 straight to `deliver` from the calling thread
/// while the others run, each later share's results held (their memory: the items) until
/// the shares before it are delivered. scan_share(i, out) scans share i and passes its items
/// in order to out(std::span<const Item>) (false: stop); deliver returning false stops every
/// share at its next batch.
template <class Item, class ScanShare, class Deliver>
void deliver_in_share_order(std::size_t shares, const ScanShare& scan_share, const Deliver& deliver,
                            std::span<const int> devices = {}) {
  std::atomic<bool> stopped{false};
  std::vector<std::vector<Item>> held(shares);
  run_per_device(shares, [&](std::size_t i) {
    scan_share(i, [&](std::span<const Item> items) {
      if (stopped.load(std::memory_order_relaxed)) return false;
      if (i > 0) {
        held[i].insert(held[i].end(), items.begin(), items.end());
        return true;
      }
      if (deliver(items)) return true;
      stopped.store(true, std::memory_order_relaxed);
      return false;
    });
  }, devices);
  for (std::size_t i = 1; i < shares && !stopped.load(std::memory_order_relaxed); ++i)
    if (!held[i].empty() && !deliver(std::span<const Item>(held[i]))) break;
}


/// Tests and benchmarks force splits of small inputs: while a ScopedMinShare lives, every
/// minimum share of SplitPolicy reads as its value (1 = split whatever the size).
/// Process-wide, so a test sets it around its own calls only.
inline std::atomic<std::uint64_t> min_share_override{0};

/// `policy_value`, or the override while one is set.
inline std::uint64_t min_share(std::uint64_t policy_value) {
  const std::uint64_t forced = min_share_override.load(std::memory_order_relaxed);
  return forced ? forced : policy_value;
}

class ScopedMinShare {
 public:
  explicit ScopedMinShare(std::uint64_t value) : before_(min_share_override.exchange(value)) {}
  ~ScopedMinShare() { min_share_override.store(before_); }
  ScopedMinShare(const ScopedMinShare&) = delete;
  ScopedMinShare& operator=(const ScopedMinShare&) = delete;

 private:
  std::uint64_t before_;
};

}  // namespace warpmatch::multi_device
