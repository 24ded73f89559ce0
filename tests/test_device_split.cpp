// Several GPUs for one call (Execution::devices, --devices), the parts that run without a
// GPU: the split planner (core/device_split.hpp) checked exhaustively on small sizes, the
// library's errors for a device list (a missing ordinal, a list with the cpu backend) and the
// command line's option parsing and exit status. The splits on GPUs are
// test_multi_device_cuda.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cli_test_support.hpp"
#include "core/device_split.hpp"
#include "warpmatch/approx.hpp"
#include "warpmatch/distance.hpp"
#include "warpmatch/exact.hpp"
#include "warpmatch/lcs.hpp"
#include "warpmatch/multi.hpp"

namespace {

using warpmatch::core::Chunk;
using warpmatch::core::ItemRange;
using warpmatch::core::plan_device_shares;
using warpmatch::core::plan_weighted_shares;

// Every text size, worker count, overlap and minimum share up to small limits: the shares
// cover [0, n) in order with the overlap rule, respect both caps, and with an overlap of
// m - 1 a share reads exactly the starts of an m-byte pattern it owns (none found twice or lost).
TEST(DeviceSplit, TextSharesCoverEveryStartOnce) {
  for (std::uint64_t n = 0; n <= 70; ++n)
    for (std::uint64_t workers = 1; workers <= 9; ++workers)
      for (std::uint64_t overlap = 0; overlap <= 6; ++overlap)
        for (const std::uint64_t min_share : {0, 1, 2, 3, 7, 16, 100}) {
          SCOPED_TRACE("n " + std::to_string(n) + " workers " + std::to_string(workers) + " overlap " +
                       std::to_string(overlap) + " min " + std::to_string(min_share));
          const std::vector<Chunk> shares = plan_device_shares(n, workers, overlap, min_share);
          if (n == 0) {
            EXPECT_TRUE(shares.empty());
            continue;
          }
          ASSERT_GE(shares.size(), 1u);
          EXPECT_LE(shares.size(), workers);
          EXPECT_LE(shares.size(), std::max<std::uint64_t>(1, n / std::max<std::uint64_t>(min_share, 1)));
          std::uint64_t expected_begin = 0, smallest = n, largest = 0;
          for (const Chunk& c : shares) {
            EXPECT_EQ(c.begin, expected_begin);
            EXPECT_LT(c.begin, c.owned_end);  // no empty share
            EXPECT_EQ(c.read_end, std::min(n, c.owned_end + overlap));
            smallest = std::min(smallest, c.owned_end - c.begin);
            largest = std::max(largest, c.owned_end - c.begin);
            expected_begin = c.owned_end;
          }
          EXPECT_EQ(expected_begin, n);
          // Equal shares but the last, which is never larger.
          for (std::size_t i = 0; i + 1 < shares.size(); ++i)
            EXPECT_EQ(shares[i].owned_end - shares[i].begin, largest);
          // An m-byte pattern (overlap m - 1): the starts a share can read are its owned ones.
          const std::uint64_t m = overlap + 1;
          std::vector<int> seen(n, 0);
          for (const Chunk& c : shares)
            for (std::uint64_t s = c.begin; s + m <= c.read_end; ++s) {
              EXPECT_LT(s, c.owned_end);
              ++seen[s];
            }
          for (std::uint64_t s = 0; s < n; ++s) EXPECT_EQ(seen[s], s + m <= n ? 1 : 0) << "start " << s;
        }
}

TEST(DeviceSplit, SmallTextsStayOnOneDevice) {
  EXPECT_EQ(plan_device_shares(1000, 8, 10, 4096).size(), 1u);
  EXPECT_EQ(plan_device_shares(8191, 8, 10, 4096).size(), 1u);
  EXPECT_EQ(plan_device_shares(8192, 8, 10, 4096).size(), 2u);
  EXPECT_EQ(plan_device_shares(std::uint64_t{1} << 40, 8, 10, 4096).size(), 8u);
  // A pattern longer than a share: every share reads to the end of the text.
  for (const Chunk& c : plan_device_shares(10, 5, 100, 1)) EXPECT_EQ(c.read_end, 10u);
}

// Every weight vector of up to 6 items over {0, 1, 2, 5}, every worker count and minimum:
// contiguous non-empty ranges covering the items in order, within the caps; uniform weights
// split into ranges differing by at most one item.
TEST(DeviceSplit, WeightedSharesCoverEveryItemOnce) {
  constexpr std::uint64_t kValues[] = {0, 1, 2, 5};
  for (std::size_t items = 0; items <= 6; ++items) {
    std::size_t combinations = 1;
    for (std::size_t i = 0; i < items; ++i) combinations *= 4;
    for (std::size_t code = 0; code < combinations; ++code) {
      std::vector<std::uint64_t> weights(items);
      std::uint64_t total = 0;
      for (std::size_t i = 0, c = code; i < items; ++i, c /= 4) total += weights[i] = kValues[c % 4];
      for (std::uint64_t workers = 1; workers <= 7; ++workers)
        for (const std::uint64_t min_share : {1, 2, 4, 30}) {
          const std::vector<ItemRange> ranges = plan_weighted_shares(weights, workers, min_share);
          if (items == 0) {
            EXPECT_TRUE(ranges.empty());
            continue;
          }
          ASSERT_GE(ranges.size(), 1u);
          EXPECT_LE(ranges.size(), workers);
          EXPECT_LE(ranges.size(), items);
          EXPECT_LE(ranges.size(), std::max<std::uint64_t>(1, total / min_share));
          std::uint64_t next = 0;
          for (const ItemRange& r : ranges) {
            EXPECT_EQ(r.begin, next);
            EXPECT_LT(r.begin, r.end);
            next = r.end;
          }
          EXPECT_EQ(next, items);
        }
    }
  }
  for (std::uint64_t items = 1; items <= 40; ++items)
    for (std::uint64_t workers = 1; workers <= 9; ++workers) {
      const std::vector<std::uint64_t> uniform(items, 3);
      const std::vector<ItemRange> ranges = plan_weighted_shares(uniform, workers, 1);
      EXPECT_EQ(ranges.size(), std::min(items, workers));
      std::uint64_t smallest = items, largest = 0;
      for (const ItemRange& r : ranges) {
        smallest = std::min(smallest, r.end - r.begin);
        largest = std::max(largest, r.end - r.begin);
      }
      EXPECT_LE(largest - smallest, 1u) << items << " items, " << workers << " workers";
    }
}

TEST(DeviceSplit, HeavyItemGetsItsOwnRange) {
  const std::vector<std::uint64_t> weights = {1, 1, 100, 1, 1};
  const std::vector<ItemRange> ranges = plan_weighted_shares(weights, 3, 1);
  ASSERT_GE(ranges.size(), 2u);
  EXPECT_EQ(ranges[0], (ItemRange{0, 3}));  // closes once half the weight is reached
}

// A device list naming a GPU the runtime does not list: InvalidArgument naming it, for every
// operation (on a machine without GPUs every ordinal is missing).
TEST(DeviceList, MissingOrdinalIsInvalidArgument) {
  const int missing = static_cast<int>(warpmatch::cuda_devices().size()) + 3;
  const std::string name = "CUDA device " + std::to_string(missing);
  const std::vector<int> list = {0, missing};
  auto expect_names_it = [&](auto&& call) {
    try {
      call();
      ADD_FAILURE() << "no error for a missing device";
    } catch (const warpmatch::InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  };
  if (warpmatch::cuda_devices().empty()) {
    // Without a GPU, ordinal 0 is already missing: the first listed is named.
    warpmatch::ExactOptions o;
    o.devices = {0};
    EXPECT_THROW(warpmatch::ExactMatcher::compile(warpmatch::as_bytes("GATTACA"), o), warpmatch::InvalidArgument);
  }
  std::vector<int> only_missing = {missing};
  expect_names_it([&] {
    warpmatch::ExactOptions o;
    o.devices = only_missing;
    warpmatch::ExactMatcher::compile(warpmatch::as_bytes("GATTACA"), o);
  });
  expect_names_it([&] {
    warpmatch::MultiOptions o;
    o.devices = only_missing;
    warpmatch::MultiMatcher::compile({"GAT", "TACA"}, o);
  });
  expect_names_it([&] {
    warpmatch::ApproxOptions o;
    o.k = 1;
    o.devices = only_missing;
    warpmatch::ApproxMatcher::compile(warpmatch::as_bytes("GATTACA"), o);
  });
  const std::vector<std::pair<warpmatch::ByteSpan, warpmatch::ByteSpan>> pairs = {
      {warpmatch::as_bytes("kitten"), warpmatch::as_bytes("sitting")}};
  expect_names_it([&] {
    warpmatch::DistanceOptions o;
    o.devices = only_missing;
    warpmatch::edit_distance_batch(pairs, o);
  });
  const std::vector<warpmatch::ByteSpan> strings = {warpmatch::as_bytes("kitten")};
  expect_names_it([&] {
    warpmatch::DistanceOptions o;
    o.devices = only_missing;
    warpmatch::edit_distance_matrix(strings, strings, o);
  });
  expect_names_it([&] {
    warpmatch::LcsOptions o;
    o.devices = only_missing;
    warpmatch::longest_common_substring(warpmatch::as_bytes("abc"), warpmatch::as_bytes("bcd"), o);
  });
  if (!warpmatch::cuda_devices().empty()) expect_names_it([&] {
      warpmatch::ExactOptions o;
      o.devices = list;  // a valid ordinal first, the missing one second
      warpmatch::ExactMatcher::compile(warpmatch::as_bytes("GATTACA"), o);
    });
}

// A device list with the cpu backend is an error, not silently ignored.
TEST(DeviceList, CpuBackendRejectsAList) {
  warpmatch::ExactOptions o;
  o.backend = warpmatch::Backend::cpu;
  o.devices = {0};
  try {
    warpmatch::ExactMatcher::compile(warpmatch::as_bytes("GATTACA"), o);
    ADD_FAILURE() << "no error for a device list with the cpu backend";
  } catch (const warpmatch::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("cpu backend"), std::string::npos) << e.what();
  }
  warpmatch::DistanceOptions d;
  d.backend = warpmatch::Backend::cpu;
  d.devices = {0, 0};
  EXPECT_THROW(warpmatch::edit_distance_batch({}, d), warpmatch::InvalidArgument);
}

class CliDevices : public warpmatch_test::CliTest {
 protected:
  CliDevices() : CliTest("warpmatch_cli_devices_") {}
};

// --devices on every command that takes it: a missing ordinal is exit 2 naming it, a
// malformed list is a usage error (exit 2), a list with --backend cpu is exit 2.
TEST_F(CliDevices, MissingOrdinalMalformedListAndCpuBackend) {
  const auto text = file("t.txt", "GATTACA GATTACA\n");
  const auto fa = file("a.fa", ">a\nGATTACA\n>b\nGATCACA\n");
  const auto tsv = file("p.tsv", "kitten\tsitting\n");
  const auto guides = file("g.txt", "ACGTACGTACGTACGTACGT\n");
  const std::string missing = std::to_string(warpmatch::cuda_devices().size() + 5);
  const std::vector<std::vector<std::string>> commands = {
      {"find", "GATTACA", text.string()},
      {"find", "-e", "GATT", "-e", "ACA", text.string()},
      {"approx", "-k", "1", "GATTACA", text.string()},
      {"offtarget", "--guides", guides.string(), fa.string()},
      {"distance", "--pairs", tsv.string()},
      {"distance", "--all-vs-all", fa.string(), fa.string()},
  };
  for (std::vector<std::string> args : commands) {
    SCOPED_TRACE(args[0] + " " + args[1]);
    auto with = [&](std::vector<std::string> extra) {
      std::vector<std::string> a = args;
      a.insert(a.begin() + 1, extra.begin(), extra.end());
      return run(a);
    };
    const auto r = with({"--devices", missing + ",0"});
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("CUDA device " + missing), std::string::npos) << r.err;
    for (const std::string bad : {"", "0,,1", "1,", "-1", "x", "0;1"}) {
      const auto b = with({"--devices", bad});
      EXPECT_EQ(b.status, 2) << "'" << bad << "': " << b.err;
      EXPECT_NE(b.err.find("--devices"), std::string::npos) << b.err;
    }
    const auto cpu = with({"--devices", "0", "--backend", "cpu"});
    EXPECT_EQ(cpu.status, 2) << cpu.err;
    if (warpmatch::cuda_devices().empty()) {
      const auto all = with({"--devices", "all"});
      EXPECT_EQ(all.status, 2);
      EXPECT_NE(all.err.find("no CUDA GPU"), std::string::npos) << all.err;
    }
  }
  const auto help = run({"find", "--help"});
  EXPECT_NE(help.out.find("--devices"), std::string::npos);
}

}  // namespace
