// Several GPUs for one call (Execution::devices) give exactly the one-GPU results, for every
// operation that splits: exact and multi-pattern search (text shares overlapping by the
// longest pattern - 1), approximate search (a segment's ends split, the approx overlap
// before each), distance batches and matrices (pair and row ranges). With one GPU the list
// is faked by repeating ordinal 0 (three workers on one device), and splits of small inputs
// are forced (multi_device::ScopedMinShare), so matches straddle every split point, patterns
// are longer than a share and some workers get no share. Skips without a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/multi_device.hpp"
#include "core/host_affinity.hpp"
#include "cli_test_support.hpp"
#include "api/tuning_hooks.hpp"
#include "warpmatch/approx.hpp"
#include "warpmatch/distance.hpp"
#include "warpmatch/exact.hpp"
#include "warpmatch/multi.hpp"

namespace {

using Bytes = std::vector<std::uint8_t>;

#define SKIP_WITHOUT_GPU()                                                                        \
  do {                                                                                            \
    if (warpmatch::cuda_devices().empty()) GTEST_SKIP() << "no CUDA GPU: skipping GPU test"; \
  } while (0)

/// The device lists compared with one device: ordinal 0 repeated (the faked list), and every
/// GPU of the machine when it has several.
std::vector<std::vector<int>> device_lists() {
  std::vector<std::vector<int>> lists = {{0, 0}, {0, 0, 0}, {0, 0, 0, 0, 0, 0, 0}};
  const auto gpus = warpmatch::cuda_devices();
  if (gpus.size() > 1) {
    std::vector<int> all;
    for (const auto& d : gpus) all.push_back(d.ordinal);
    lists.push_back(all);
    lists.push_back({all.back(), all.front()});
  }
  return lists;
}

std::string list_text(const std::vector<int>& list) {
  std::string s;
  for (const int d : list) s += (s.empty() ? "" : ",") + std::to_string(d);
  return s;
}

Bytes random_text(std::mt19937_64& rng, std::size_t n, const char* alphabet, std::size_t letters) {
  Bytes t(n);
  for (auto& c : t) c = static_cast<std::uint8_t>(alphabet[rng() % letters]);
  return t;
}

/// Texts that stress the splits: runs of one byte (a match at every start, so across every
/// split point), random DNA, and texts shorter than the number of workers.
std::vector<Bytes> texts(std::mt19937_64& rng) {
  std::vector<Bytes> out;
  out.push_back(Bytes(1000, 'A'));
  out.push_back(Bytes(7, 'A'));
  out.push_back(Bytes(2, 'A'));
  for (const std::size_t n : {1u, 33u, 1000u, 4097u, 100000u}) out.push_back(random_text(rng, n, "ACGT", 4));
  return out;
}

template <class Run>
void for_each_split(const Run& run) {
  // Shares of 1 byte upward: the planner caps them at the workers, so every worker has one
  // when the text is long enough and some have none when it is short.
  for (const std::uint64_t min_share : {1u, 5u, 300u}) {
    warpmatch::multi_device::ScopedMinShare forced(min_share);
    for (const auto& list : device_lists()) {
      SCOPED_TRACE("devices " + list_text(list) + ", min share " + std::to_string(min_share));
      run(list);
    }
  }
}

TEST(MultiDeviceCuda, ExactSearchEqualsOneDevice) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(17);
  const auto inputs = texts(rng);
  for (const std::string& pattern : std::vector<std::string>{"A", "AAA", "ACG", "GATTACAGATTACA", std::string(600, 'A')})
    for (const std::string algo : {"auto", "bf"}) {
      warpmatch::ExactOptions one;
      one.backend = warpmatch::Backend::cuda;
      one.algorithm = algo;
      const auto single = warpmatch::ExactMatcher::compile(warpmatch::as_bytes(pattern), one);
      for_each_split([&](const std::vector<int>& list) {
        warpmatch::ExactOptions several = one;
        several.devices = list;
        const auto split = warpmatch::ExactMatcher::compile(warpmatch::as_bytes(pattern), several);
        for (const Bytes& t : inputs) {
          SCOPED_TRACE("pattern " + pattern.substr(0, 20) + " algo " + algo + " text " + std::to_string(t.size()));
          EXPECT_EQ(split.find_all(t), single.find_all(t));
          EXPECT_EQ(split.count(t), single.count(t));
          // A sink that stops early gets the same first matches.
          std::vector<warpmatch::Match> first;
          split.scan(t, [&](const warpmatch::Match& m) {
            first.push_back(m);
            return first.size() < 5;
          });
          const auto all = single.find_all(t);
          EXPECT_EQ(first, std::vector<warpmatch::Match>(all.begin(), all.begin() + std::min<std::size_t>(5, all.size())));
        }
      });
    }
}

TEST(MultiDeviceCuda, MultiPatternSearchEqualsOneDevice) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(18);
  const auto inputs = texts(rng);
  std::vector<std::string> patterns = {"A", "AA", "ACGT", "GATTACA", std::string(300, 'A')};
  for (int i = 0; i < 200; ++i) {
    const Bytes p = random_text(rng, 2 + rng() % 12, "ACGT", 4);
    patterns.emplace_back(p.begin(), p.end());
  }
  for (const std::string algo : {"fast", "mbndm"}) {
    warpmatch::MultiOptions one;
    one.backend = warpmatch::Backend::cuda;
    one.algorithm = algo;
    const auto single = warpmatch::MultiMatcher::compile(patterns, one);
    for_each_split([&](const std::vector<int>& list) {
      warpmatch::MultiOptions several = one;
      several.devices = list;
      const auto split = warpmatch::MultiMatcher::compile(patterns, several);
      for (const Bytes& t : inputs) {
        SCOPED_TRACE(algo + " text " + std::to_string(t.size()));
        EXPECT_EQ(split.find_all(t), single.find_all(t));
        EXPECT_EQ(split.count(t), single.count(t));
        EXPECT_EQ(split.count_per_pattern(t), single.count_per_pattern(t));
      }
    });
  }
}

TEST(MultiDeviceCuda, ApproximateSearchEqualsOneDevice) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(19);
  const auto inputs = texts(rng);
  // One pattern; many 20 nt guides (the short-pattern set kernel offtarget uses); a pattern
  // longer than the shares.
  std::vector<std::vector<Bytes>> sets = {{Bytes{'G', 'A', 'T', 'T', 'A', 'C', 'A'}}, {}, {Bytes(300, 'A')}};
  for (int i = 0; i < 1000; ++i) sets[1].push_back(random_text(rng, 20, "ACGT", 4));
  for (const auto& patterns : sets)
    for (const std::int64_t k : {0, 2, 4})
      for (const bool hamming : {false, true}) {
        warpmatch::ApproxOptions one;
        one.backend = warpmatch::Backend::cuda;
        one.k = k;
        one.hamming = hamming;
        one.strand = hamming ? warpmatch::Strand::both : warpmatch::Strand::forward;
        one.best_of_cluster = k == 2;
        for (const std::uint64_t segment : {0u, 97u}) {  // 97: many segments, each split again
          warpmatch::tuning_hooks::ApproxKnobs knobs;
          knobs.segment_ends = segment;
          const auto single = warpmatch::tuning_hooks::compile_approx(patterns, one, knobs);
          for_each_split([&](const std::vector<int>& list) {
            warpmatch::ApproxOptions several = one;
            several.devices = list;
            const auto split = warpmatch::tuning_hooks::compile_approx(patterns, several, knobs);
            for (const Bytes& t : inputs) {
              // Tiny segments over 100 kB, or 1000 guides over it: thousands of launches, no new seam.
              if ((segment != 0 || patterns.size() > 1) && t.size() > 5000) continue;
              SCOPED_TRACE(std::to_string(patterns.size()) + " patterns, k " + std::to_string(k) + (hamming ? " hamming" : "") +
                           ", segment " + std::to_string(segment) + ", text " + std::to_string(t.size()));
              EXPECT_EQ(split.find_all(t), single.find_all(t));
            }
          });
        }
      }
}

TEST(MultiDeviceCuda, BestModeStaysOnTheFirstDevice) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(20);
  const Bytes text = random_text(rng, 50000, "ACGT", 4);
  warpmatch::ApproxOptions one;
  one.backend = warpmatch::Backend::cuda;
  one.best = true;
  const Bytes pattern = random_text(rng, 30, "ACGT", 4);
  const auto single = warpmatch::ApproxMatcher::compile(pattern, one);
  for_each_split([&](const std::vector<int>& list) {
    warpmatch::ApproxOptions several = one;
    several.devices = list;
    EXPECT_EQ(warpmatch::ApproxMatcher::compile(pattern, several).find_all(text), single.find_all(text));
  });
}

TEST(MultiDeviceCuda, DistanceBatchesAndMatricesEqualOneDevice) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(21);
  std::vector<Bytes> a, b;
  for (int i = 0; i < 300; ++i) a.push_back(random_text(rng, rng() % 200, "ACGT", 4));
  for (int i = 0; i < 57; ++i) b.push_back(random_text(rng, rng() % 150, "ACGT", 4));
  a.push_back(random_text(rng, 5000, "ACGT", 4));  // a pair too long for a warp's registers
  std::vector<std::pair<warpmatch::ByteSpan, warpmatch::ByteSpan>> pairs;
  for (std::size_t i = 0; i < a.size(); ++i) pairs.emplace_back(a[i], b[i % b.size()]);
  const std::vector<warpmatch::ByteSpan> rows(a.begin(), a.end()), columns(b.begin(), b.end());
  for (const std::int64_t k : {-1, 10}) {
    warpmatch::DistanceOptions one;
    one.backend = warpmatch::Backend::cuda;
    one.max_distance = k;
    const auto batch = warpmatch::edit_distance_batch(pairs, one);
    const auto matrix = warpmatch::edit_distance_matrix(rows, columns, one);
    for_each_split([&](const std::vector<int>& list) {
      warpmatch::DistanceOptions several = one;
      several.devices = list;
      EXPECT_EQ(warpmatch::edit_distance_batch(pairs, several), batch);
      const auto distances = warpmatch::edit_distances(pairs, several);
      ASSERT_EQ(distances.size(), batch.size());
      for (std::size_t i = 0; i < batch.size(); ++i) EXPECT_EQ(distances[i], batch[i].distance) << i;
      EXPECT_EQ(warpmatch::edit_distance_matrix(rows, columns, several), matrix);
      EXPECT_TRUE(warpmatch::edit_distance_batch({}, several).empty());
      const std::vector<warpmatch::ByteSpan> one_row(rows.begin(), rows.begin() + 1);
      EXPECT_EQ(warpmatch::edit_distance_matrix(one_row, columns, several),
                warpmatch::edit_distance_matrix(one_row, columns, one));
    });
  }
}

TEST(MultiDeviceCuda, LabelNamesTheWorkers) {
  SKIP_WITHOUT_GPU();
  warpmatch::ExactOptions o;
  o.backend = warpmatch::Backend::cuda;
  o.devices = {0, 0, 0};
  const auto m = warpmatch::ExactMatcher::compile(warpmatch::as_bytes("GATTACA"), o);
  EXPECT_EQ(m.device_label(), warpmatch::cuda_devices()[0].name + " x 3");
}

// Host threads near their GPU: each worker of a split runs on the CPUs its GPU's placement
// names (or where it was, when the machine gives nothing to gain or cannot say), the calling
// thread is back where it was after the call, the placement is noted for --stats, and the
// results are those of one device (the tests above also run pinned where the machine allows).
TEST(MultiDeviceCuda, HostThreadsRunNearTheirGpuAndTheCallerIsRestored) {
  SKIP_WITHOUT_GPU();
  const auto gpus = warpmatch::cuda_devices();
  const auto near = warpmatch::cuda_device_host_affinity();
  ASSERT_EQ(near.size(), gpus.size());
  for (std::size_t d = 0; d < near.size(); ++d) {
    EXPECT_EQ(near[d].ordinal, gpus[d].ordinal);
    if (!near[d].cpus.empty()) EXPECT_TRUE(near[d].source == "nvml" || near[d].source == "sysfs") << near[d].source;
  }
  std::vector<int> list;
  for (const auto& d : gpus) list.push_back(d.ordinal);
  if (list.size() < 2) list = {0, 0, 0};

  const std::vector<int> before = warpmatch::core::current_thread_cpus();
  std::vector<std::vector<int>> ran_on(list.size());
  warpmatch::multi_device::run_per_device(
      list.size(), [&](std::size_t i) { ran_on[i] = warpmatch::core::current_thread_cpus(); }, list);
  EXPECT_EQ(warpmatch::core::current_thread_cpus(), before);
  const auto placements = warpmatch::multi_device::host_placements(list);
  const std::string note = warpmatch::multi_device::host_placement_note();
  for (std::size_t i = 0; i < list.size(); ++i) {
    SCOPED_TRACE("worker " + std::to_string(i) + ": " + note);
    EXPECT_EQ(ran_on[i], placements[i].cpus.empty() ? before : placements[i].cpus);
    EXPECT_NE(note.find("GPU " + std::to_string(list[i])), std::string::npos);
  }

  std::mt19937_64 rng(117);
  const Bytes text = random_text(rng, 1 << 20, "ACGT", 4);
  warpmatch::ExactOptions one;
  one.backend = warpmatch::Backend::cuda;
  warpmatch::ExactOptions several = one;
  several.devices = list;
  const warpmatch::multi_device::ScopedMinShare forced(1);
  const auto single = warpmatch::ExactMatcher::compile(warpmatch::as_bytes("GATTACA"), one);
  const auto split = warpmatch::ExactMatcher::compile(warpmatch::as_bytes("GATTACA"), several);
  EXPECT_EQ(split.find_all(text), single.find_all(text));
  EXPECT_EQ(warpmatch::core::current_thread_cpus(), before);
}

class CliDevicesCuda : public warpmatch_test::CliTest {
 protected:
  CliDevicesCuda() : CliTest("warpmatch_cli_devices_cuda_") {}
};

// The command line with a faked device list (three workers on GPU 0) prints exactly what one
// GPU prints, through the streaming searcher: a 100 MiB FASTA record (3 shares of 33 MiB, over
// the 32 MiB minimum) for find and find -e, 300 guides (64 KiB shares) for approx and offtarget.
TEST_F(CliDevicesCuda, FakedDeviceListPrintsWhatOneGpuPrints) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(22);
  const Bytes genome = random_text(rng, 100u << 20, "ACGT", 4);
  std::string fasta = ">chr1\n";
  for (std::size_t i = 0; i < genome.size(); i += 80)
    fasta.append(reinterpret_cast<const char*>(genome.data()) + i, std::min<std::size_t>(80, genome.size() - i)) += '\n';
  const auto g = file("g.fa", fasta);
  std::string guides;
  for (int i = 0; i < 300; ++i) {
    const Bytes guide = random_text(rng, 20, "ACGT", 4);
    guides.append(guide.begin(), guide.end()) += '\n';
  }
  const auto gf = file("guides.txt", guides);
  const std::vector<std::vector<std::string>> commands = {
      {"find", "--backend", "cuda", "GATTACAG", g.string()},
      {"find", "--backend", "cuda", "-c", "GATTACAG", g.string()},
      {"find", "--backend", "cuda", "-e", "GATTACAG", "-e", "CCCGGG", "-e", "ACGTACGTAC", g.string()},
      {"approx", "--backend", "cuda", "-k", "1", "-f", gf.string(), g.string()},
      {"offtarget", "--backend", "cuda", "-k", "2", "--guides", gf.string(), g.string()},
  };
  for (const auto& args : commands) {
    SCOPED_TRACE(args[0] + " " + args[3]);
    const auto one = run(args);
    ASSERT_EQ(one.status, 0) << one.err;
    std::vector<std::string> faked = args;
    faked.insert(faked.begin() + 1, {"--devices", "0,0,0"});
    const auto three = run(faked);
    EXPECT_EQ(three.status, 0) << three.err;
    EXPECT_EQ(three.out, one.out);
  }
  // --stats says where the host threads of the split ran.
  const auto stats = run({"find", "--backend", "cuda", "--devices", "0,0,0", "-c", "--stats", "GATTACAG", g.string()});
  EXPECT_EQ(stats.status, 0) << stats.err;
  EXPECT_NE(stats.err.find("warpmatch: note: host threads: GPU 0"), std::string::npos) << stats.err;
}

// `warpmatch info` names each GPU's host CPUs (or says they are unknown).
TEST_F(CliDevicesCuda, InfoListsEachGpusHostCpus) {
  SKIP_WITHOUT_GPU();
  const auto text = run({"info"});
  ASSERT_EQ(text.status, 0) << text.err;
  const auto json = run({"info", "--json"});
  ASSERT_EQ(json.status, 0) << json.err;
  const auto info = nlohmann::json::parse(json.out);
  for (const auto& d : info["devices"]) {
    const int ordinal = d["ordinal"];
    EXPECT_NE(text.out.find("GPU " + std::to_string(ordinal) + " host CPUs: "), std::string::npos) << text.out;
    ASSERT_TRUE(d.contains("numa_node") && d.contains("cpus") && d.contains("cpus_source")) << d.dump();
    const std::string source = d["cpus_source"];
    EXPECT_EQ(source == "unknown", d["cpus"] == "") << d.dump();
  }
}

}  // namespace
