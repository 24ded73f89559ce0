// Host threads near their GPU (src/core/host_affinity.hpp, issue 17): CPU lists as Linux and
// NVML give them, the GPU's CPUs read from a faked sysfs tree, the placement of each device of
// a call on faked machine topologies, and that work run pinned (the device workers of
// multi_device::run_placed and the host pools they lease) gives what it gives unpinned.
#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <set>
#include <thread>
#include <tuple>
#include <vector>

#include "api/multi_device.hpp"
#include "core/host_affinity.hpp"
#include "core/host_copy.hpp"
#include "core/worker_pool.hpp"
#include "temp_dir_test.hpp"

using namespace warpmatch;
using core::HostPlacement;

namespace {

std::vector<int> range(int first, int last) {
  std::vector<int> v(static_cast<std::size_t>(last - first + 1));
  std::iota(v.begin(), v.end(), first);
  return v;
}

std::vector<int> concat(std::vector<int> a, const std::vector<int>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

DeviceHostAffinity gpu(int ordinal, std::vector<int> cpus, int node, std::string source = "nvml") {
  return DeviceHostAffinity{.ordinal = ordinal, .cpus = std::move(cpus), .numa_node = node, .source = std::move(source)};
}

}  // namespace

TEST(HostAffinity, ParsesLinuxCpuLists) {
  EXPECT_EQ(core::parse_cpu_list("0-15,32-47"), concat(range(0, 15), range(32, 47)));
  EXPECT_EQ(core::parse_cpu_list("3"), std::vector<int>{3});
  EXPECT_EQ(core::parse_cpu_list("0,2,4-5\n"), (std::vector<int>{0, 2, 4, 5}));
  EXPECT_EQ(core::parse_cpu_list("7,1-2,2"), (std::vector<int>{1, 2, 7}));  // sorted, unique
  EXPECT_EQ(core::parse_cpu_list("\n"), std::vector<int>{});
  for (const char* malformed : {"a", "5-3", "1,,2", "1-", "-1", "0-15,", " 1", "1 2", "99999999"})
    EXPECT_FALSE(core::parse_cpu_list(malformed).has_value()) << "'" << malformed << "'";
}

TEST(HostAffinity, FormatsTheListItParses) {
  for (const char* text : {"0-15,32-47", "3", "0,2,4-5", "", "1-2,7,9-11"})
    EXPECT_EQ(core::format_cpu_list(*core::parse_cpu_list(text)), text);
}

TEST(HostAffinity, ReadsNvmlStyleMasks) {
  EXPECT_EQ(core::cpus_from_mask(std::vector<std::uint64_t>{0xffff, 0}), range(0, 15));
  EXPECT_EQ(core::cpus_from_mask(std::vector<std::uint64_t>{0, 0x3}), (std::vector<int>{64, 65}));
  EXPECT_EQ(core::cpus_from_mask(std::vector<std::uint64_t>{std::uint64_t{1} << 63}), std::vector<int>{63});
  EXPECT_TRUE(core::cpus_from_mask({}).empty());
}

class HostAffinitySysfs : public warpmatch_test::TempDirTest {
 protected:
  void write_entry(const std::string& bus_id, const std::string& file, const std::string& text) {
    const auto dir = dir_ / "bus" / "pci" / "devices" / bus_id;
    std::filesystem::create_directories(dir);
    std::ofstream(dir / file) << text;
  }
};

TEST_F(HostAffinitySysfs, ReadsTheGpusCpuListAndNodeByLowerCaseBusId) {
  write_entry("0000:3b:00.0", "local_cpulist", "0-3,8-11\n");
  write_entry("0000:3b:00.0", "numa_node", "1\n");
  const DeviceHostAffinity a = core::read_sysfs_host_affinity(dir_.string(), "0000:3B:00.0");
  EXPECT_EQ(a.cpus, concat(range(0, 3), range(8, 11)));
  EXPECT_EQ(a.numa_node, 1);
  EXPECT_EQ(a.source, "sysfs");
}

TEST_F(HostAffinitySysfs, MissingOrUnreadableEntriesStayUnknown) {
  write_entry("0000:17:00.0", "numa_node", "-1\n");  // a machine without NUMA nodes
  write_entry("0000:17:00.0", "local_cpulist", "garbage\n");
  const DeviceHostAffinity a = core::read_sysfs_host_affinity(dir_.string(), "0000:17:00.0");
  EXPECT_TRUE(a.cpus.empty());
  EXPECT_EQ(a.numa_node, -1);
  EXPECT_EQ(a.source, "");
  const DeviceHostAffinity none = core::read_sysfs_host_affinity(dir_.string(), "0000:99:00.0");
  EXPECT_TRUE(none.cpus.empty());
  EXPECT_EQ(none.numa_node, -1);
}

TEST(HostAffinityPlan, TwoSocketsFourGpusEachGpuOnItsSocket) {
  // 2 sockets x 16 cores with hyperthreads: node 0 = 0-15,32-47, node 1 = 16-31,48-63.
  const auto node0 = concat(range(0, 15), range(32, 47)), node1 = concat(range(16, 31), range(48, 63));
  const std::vector<DeviceHostAffinity> known = {gpu(0, node0, 0), gpu(1, node0, 0), gpu(2, node1, 1),
                                                 gpu(3, node1, 1)};
  const std::vector<int> devices = {3, 0, 2, 1};
  const auto p = core::plan_host_placement(devices, known, range(0, 63));
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0].device, 3);
  EXPECT_EQ(p[0].cpus, node1);
  EXPECT_EQ(p[1].cpus, node0);
  EXPECT_EQ(p[2].cpus, node1);
  EXPECT_EQ(p[3].cpus, node0);
  for (const HostPlacement& x : p) EXPECT_EQ(x.reason, "");
  EXPECT_EQ(core::describe_host_placement(std::span(p).first(2)),
            "GPU 3 on CPUs 16-31,48-63 (NUMA node 1, nvml), GPU 0 on CPUs 0-15,32-47 (NUMA node 0, nvml)");
}

TEST(HostAffinityPlan, ARestrictedProcessKeepsTheAllowedPartOrStaysUnpinned) {
  // taskset 0-7: GPU 0's node keeps CPUs 0-7; GPU 1's node has none of them.
  const std::vector<DeviceHostAffinity> known = {gpu(0, range(0, 15), 0), gpu(1, range(16, 31), 1, "sysfs")};
  const std::vector<int> devices = {0, 1};
  const auto p = core::plan_host_placement(devices, known, range(0, 7));
  ASSERT_EQ(p.size(), 2u);
  EXPECT_TRUE(p[0].cpus.empty()) << "GPU 0's CPUs cover every allowed CPU: nothing to gain";
  EXPECT_NE(p[0].reason, "");
  EXPECT_TRUE(p[1].cpus.empty());
  EXPECT_NE(p[1].reason.find("16-31"), std::string::npos) << p[1].reason;

  const auto wider = core::plan_host_placement(devices, known, range(0, 23));
  EXPECT_EQ(wider[0].cpus, range(0, 15));
  EXPECT_EQ(wider[1].cpus, range(16, 23));
  EXPECT_EQ(wider[1].source, "sysfs");
}

TEST(HostAffinityPlan, UnknownGpusAndOneSocketMachinesAreNotPinned) {
  const std::vector<DeviceHostAffinity> known = {gpu(0, range(0, 7), 0), gpu(1, {}, -1, "")};
  const std::vector<int> devices = {0, 1, 5};  // 5: not in the list at all
  const auto p = core::plan_host_placement(devices, known, range(0, 7));
  ASSERT_EQ(p.size(), 3u);
  for (const HostPlacement& x : p) {
    EXPECT_TRUE(x.cpus.empty()) << "GPU " << x.device;
    EXPECT_NE(x.reason, "") << "GPU " << x.device;
  }
  EXPECT_NE(core::describe_host_placement(p).find("GPU 1 not pinned: its CPUs are unknown"), std::string::npos)
      << core::describe_host_placement(p);
}

// The rest pins real threads of this machine: each to one CPU it may use (a machine or
// container with a single CPU pins to that one).
namespace {

std::vector<HostPlacement> one_cpu_each(std::size_t workers) {
  const std::vector<int> allowed = core::current_thread_cpus();
  std::vector<HostPlacement> p(workers);
  for (std::size_t i = 0; i < workers; ++i) {
    p[i].device = static_cast<int>(i);
    p[i].cpus = {allowed[i % allowed.size()]};
  }
  return p;
}

}  // namespace

TEST(HostAffinityPinning, AScopePinsTheThreadAndItsPoolsThenRestoresThem) {
  const std::vector<int> before = core::current_thread_cpus();
  ASSERT_FALSE(before.empty()) << "sched_getaffinity failed";
  const std::vector<HostPlacement> p = one_cpu_each(1);
  {
    const core::ThreadPlacementScope scope(p[0]);
    EXPECT_EQ(core::current_thread_cpus(), p[0].cpus);
    EXPECT_EQ(core::thread_placement_cpus(), p[0].cpus);
    std::mutex m;
    std::set<std::vector<int>> seen;
    core::run_on_host_pool(64, [&](std::size_t) {
      const std::vector<int> cpus = core::current_thread_cpus();
      const std::lock_guard lock(m);
      seen.insert(cpus);
    });
    EXPECT_EQ(seen, (std::set<std::vector<int>>{p[0].cpus})) << "every thread of the leased pool runs on its CPUs";
  }
  EXPECT_EQ(core::current_thread_cpus(), before);
  EXPECT_TRUE(core::thread_placement_cpus().empty());
  {
    const core::ThreadPlacementScope unplaced(HostPlacement{});
    EXPECT_EQ(core::current_thread_cpus(), before);
    EXPECT_TRUE(core::thread_placement_cpus().empty());
  }
}

TEST(HostAffinityPinning, APinnedPoolRunsEveryThreadOnItsCpus) {
  const std::vector<int> cpu = one_cpu_each(1)[0].cpus;
  core::WorkerPool pool(3, cpu);
  std::mutex m;
  std::map<std::thread::id, std::vector<int>> cpus_of;
  pool.run(24, [&](std::size_t) {
    const std::vector<int> cpus = core::current_thread_cpus();
    {
      const std::lock_guard lock(m);
      cpus_of[std::this_thread::get_id()] = cpus;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // the pool's threads take some
  });
  cpus_of.erase(std::this_thread::get_id());  // the caller takes tasks too, where it runs
  EXPECT_FALSE(cpus_of.empty()) << "no task ran on a pool thread";
  for (const auto& [id, cpus] : cpus_of) EXPECT_EQ(cpus, cpu);
}

TEST(HostAffinityPinning, PinnedWorkersGiveWhatUnpinnedOnesGive) {
  constexpr std::size_t kWorkers = 4;
  std::mt19937_64 rng(17);
  std::vector<std::vector<std::uint8_t>> src(kWorkers);
  for (std::size_t i = 0; i < kWorkers; ++i) {
    src[i].resize((5u << 20) + i * 4099);
    for (auto& b : src[i]) b = static_cast<std::uint8_t>(rng());
  }
  // Each worker copies its share through a leased pool and sums it with another pool job:
  // the host work a device worker does for its GPU.
  auto run = [&](std::span<const HostPlacement> placements) {
    std::vector<std::vector<std::uint8_t>> copies(kWorkers);
    std::vector<std::uint64_t> sums(kWorkers, 0);
    std::vector<std::vector<int>> cpus(kWorkers);
    multi_device::run_placed(placements, kWorkers, [&](std::size_t i) {
      cpus[i] = core::current_thread_cpus();
      copies[i].resize(src[i].size());
      core::parallel_stream_copy(copies[i].data(), src[i].data(), src[i].size());
      std::vector<std::uint64_t> part(16, 0);
      core::run_on_host_pool(part.size(), [&](std::size_t t) {
        for (std::size_t k = t; k < copies[i].size(); k += part.size()) part[t] += copies[i][k] * (k % 7 + 1);
      });
      for (const std::uint64_t x : part) sums[i] += x;
    });
    return std::tuple(copies, sums, cpus);
  };
  const std::vector<int> before = core::current_thread_cpus();
  const auto [plain_copies, plain_sums, plain_cpus] = run({});
  const std::vector<HostPlacement> placements = one_cpu_each(kWorkers);
  const auto [pinned_copies, pinned_sums, pinned_cpus] = run(placements);
  EXPECT_EQ(pinned_copies, plain_copies);
  EXPECT_EQ(pinned_sums, plain_sums);
  for (std::size_t i = 0; i < kWorkers; ++i) {
    EXPECT_EQ(pinned_copies[i], src[i]);
    EXPECT_EQ(pinned_cpus[i], placements[i].cpus) << "worker " << i;
    EXPECT_EQ(plain_cpus[i], before) << "worker " << i << " unpinned";
  }
  EXPECT_EQ(core::current_thread_cpus(), before) << "the calling thread (worker 0) is restored";
}

TEST(HostAffinityPinning, OneDeviceOrNoListIsNeverMoved) {
  // run_per_device pins only with a device list and more than one job (the one-GPU path
  // stays as it was); in a build without CUDA the GPUs' CPUs are unknown, so nothing moves.
  const std::vector<int> before = core::current_thread_cpus();
  std::vector<std::vector<int>> cpus(3);
  const std::vector<int> devices = {0, 1, 2};
  multi_device::run_per_device(1, [&](std::size_t i) { cpus[i] = core::current_thread_cpus(); }, devices);
  EXPECT_EQ(cpus[0], before);
  multi_device::run_per_device(3, [&](std::size_t i) { cpus[i] = core::current_thread_cpus(); });
  for (const auto& c : cpus) EXPECT_EQ(c, before);
  if (warpmatch::cuda_devices().empty()) {
    multi_device::run_per_device(3, [&](std::size_t i) { cpus[i] = core::current_thread_cpus(); }, devices);
    for (const auto& c : cpus) EXPECT_EQ(c, before);
    EXPECT_NE(multi_device::host_placement_note().find("GPU 0 not pinned"), std::string::npos)
        << multi_device::host_placement_note();
  }
}
