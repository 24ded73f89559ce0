// Issue 16, faults on the command line: the device-memory cap's option and environment
// value (parsed and checked on any machine), and on a GPU what a user sees when memory runs
// out (a clear message naming the input and the limit, exit 2) or the GPU fails in the middle
// of a stream (the matches before it printed, the other inputs searched). The GPU tests skip
// without one.
#include <sstream>
#include <string>
#include <vector>

#include "cli_test_support.hpp"
#include "cuda/runtime/tuning.hpp"
#include "support/gpu_skip.hpp"
#include "warpmatch/common.hpp"

using warpmatch_test::CliResult;

namespace {

class CliFaults : public warpmatch_test::CliTest {
 protected:
  CliFaults() : CliTest("warpmatch_faults_") {}
};

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// Random ACGT text of `n` bytes with GATTACAGATTACA written every 1000 bytes.
std::string planted(std::size_t n, unsigned seed) {
  std::string t(n, 'A');
  unsigned x = seed;
  for (auto& c : t) c = "ACGT"[(x = x * 1103515245u + 12345u) >> 30];
  for (std::size_t at = 500; at + 14 <= n; at += 1000) t.replace(at, 14, "GATTACAGATTACA");
  return t;
}

}  // namespace

TEST(DeviceMemoryLimit, EnvironmentValuesParseOrNameTheVariable) {
  using warpmatch::cuda::parse_device_memory_limit;
  EXPECT_EQ(parse_device_memory_limit(nullptr), 0u);
  EXPECT_EQ(parse_device_memory_limit(""), 0u);
  EXPECT_EQ(parse_device_memory_limit("4096"), 4096u);
  EXPECT_EQ(parse_device_memory_limit("64K"), 64u << 10);
  EXPECT_EQ(parse_device_memory_limit("512M"), 512u << 20);
  EXPECT_EQ(parse_device_memory_limit("2G"), 2ull << 30);
  for (const char* bad : {"0", "abc", "12Q", "-1", "99999999999999999999", "20000000000G"}) {
    try {
      parse_device_memory_limit(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const warpmatch::InvalidArgument& e) {
      EXPECT_TRUE(has(e.what(), "WARPMATCH_DEVICE_MEMORY_LIMIT")) << e.what();
    }
  }
}

TEST(DeviceMemoryLimit, FaultHookValuesParseOrNameTheVariable) {
  using warpmatch::cuda::parse_fault_inject;
  EXPECT_FALSE(parse_fault_inject(nullptr).has_value());
  EXPECT_EQ(parse_fault_inject("scan-error-after-chunks:0"), 0u);
  EXPECT_EQ(parse_fault_inject("scan-error-after-chunks:17"), 17u);
  for (const char* bad : {"scan-error-after-chunks:", "scan-error-after-chunks:x", "scan-error-after-chunks:-1", "other:3"})
    EXPECT_THROW(parse_fault_inject(bad), warpmatch::InvalidArgument) << bad;
}

TEST(DeviceMemoryLimit, ScopesNestAndRestore) {
  using warpmatch::cuda::DeviceMemoryLimitScope;
  EXPECT_EQ(DeviceMemoryLimitScope::current(), 0u);
  {
    const DeviceMemoryLimitScope outer(1000);
    EXPECT_EQ(DeviceMemoryLimitScope::current(), 1000u);
    {
      const DeviceMemoryLimitScope unset(0);  // 0 keeps the scope around it
      EXPECT_EQ(DeviceMemoryLimitScope::current(), 1000u);
      const DeviceMemoryLimitScope inner(10);
      EXPECT_EQ(DeviceMemoryLimitScope::current(), 10u);
    }
    EXPECT_EQ(DeviceMemoryLimitScope::current(), 1000u);
  }
  EXPECT_EQ(DeviceMemoryLimitScope::current(), 0u);
}

TEST_F(CliFaults, BadDeviceMemoryValuesNameTheOptionOnEveryCommand) {
  const auto f = file("t.txt", "hello world\n");
  const std::vector<std::vector<std::string>> commands = {
      {"find", "hello", f.string()}, {"approx", "-k", "1", "hello", f.string()},
      {"distance", "-s", "kitten", "sitting"}, {"lcs", "-s", "kitten", "sitting"}};
  for (const auto& command : commands) {
    for (const auto& [value, says] : std::vector<std::pair<std::string, std::string>>{
             {"0", "--device-memory: must be at least 1 byte (got '0')"},
             {"12Q", "--device-memory: invalid size suffix in '12Q'"},
             {"lots", "--device-memory: invalid size 'lots'"},
             {"-5M", "--device-memory: invalid size '-5M'"}}) {
      std::vector<std::string> args = command;
      args.insert(args.begin() + 1, {"--device-memory", value});
      const CliResult r = run(args);
      EXPECT_EQ(r.status, 2) << command[0] << " " << value << ": " << r.err;
      EXPECT_TRUE(has(r.err, says)) << command[0] << " " << value << ": " << r.err;
    }
    // A valid cap leaves a CPU run as it is.
    std::vector<std::string> capped = command, cpu = command;
    capped.insert(capped.begin() + 1, {"--backend", "cpu", "--device-memory", "64M"});
    cpu.insert(cpu.begin() + 1, {"--backend", "cpu"});
    const CliResult a = run(capped), b = run(cpu);
    EXPECT_EQ(a.status, b.status) << command[0] << ": " << a.err;
    EXPECT_EQ(a.out, b.out) << command[0];
  }
}

TEST_F(CliFaults, CappedGpuSearchPrintsWhatTheCpuPrints) {
  SKIP_WITHOUT_GPU();
  const auto f = file("big.txt", planted(40 << 20, 7));
  const CliResult cpu = run({"find", "--backend", "cpu", "GATTACAGATTACA", f.string()});
  ASSERT_EQ(cpu.status, 0) << cpu.err;
  const CliResult gpu = run({"find", "--backend", "cuda", "--device-memory", "24M", "GATTACAGATTACA", f.string()});
  EXPECT_EQ(gpu.status, 0) << gpu.err;
  EXPECT_EQ(gpu.out, cpu.out);
  const CliResult gpu_count =
      run({"find", "-c", "--backend", "cuda", "--device-memory", "24M", "GATTACAGATTACA", f.string()});
  const CliResult cpu_count = run({"find", "-c", "--backend", "cpu", "GATTACAGATTACA", f.string()});
  EXPECT_EQ(gpu_count.out, cpu_count.out) << gpu_count.err;
}

TEST_F(CliFaults, NothingFitsSaysSoNamingTheInputAndTheLimit) {
  SKIP_WITHOUT_GPU();
  const auto f = file("a.txt", planted(1 << 20, 8));
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"find", "GATTACAGATTACA", f.string()},
        std::vector<std::string>{"find", "-e", "GATTACA", "-e", "CCCC", f.string()},
        std::vector<std::string>{"approx", "-k", "1", "GATTACAGATTACA", f.string()}}) {
    std::vector<std::string> capped = args;
    capped.insert(capped.begin() + 1, {"--backend", "cuda", "--device-memory", "4K"});
    const CliResult r = run(capped);
    EXPECT_EQ(r.status, 2) << args[0] << ": " << r.err;
    EXPECT_TRUE(has(r.err, "GPU out of memory: needs ")) << r.err;
    EXPECT_TRUE(has(r.err, "limit 4096 bytes; try --backend cpu or a larger --device-memory")) << r.err;
    EXPECT_EQ(r.out, "");
  }
  // Exact search needs device memory only to scan: the message names the input.
  const CliResult r = run({"find", "--backend", "cuda", "--device-memory", "4K", "GATTACAGATTACA", f.string()});
  EXPECT_TRUE(has(r.err, f.string() + ": GPU out of memory: needs ")) << r.err;
  // (Files, not -s strings: two 100 kB arguments made exec fail, status 127, on the GPU machine.)
  const auto a = file("a.seq", planted(100000, 1)), b = file("b.seq", planted(100000, 2));
  const CliResult d = run({"distance", "--backend", "cuda", "--device-memory", "4K", a.string(), b.string()});
  EXPECT_EQ(d.status, 2) << d.err;
  EXPECT_TRUE(has(d.err, "GPU out of memory: needs ")) << d.err;
}

TEST_F(CliFaults, CappedGpuSaysOnceWithStatsThatItUsedSmallerChunks) {
  SKIP_WITHOUT_GPU();
  const auto f = file("big.txt", planted(40 << 20, 11));
  const CliResult r =
      run({"find", "-c", "--stats", "--backend", "cuda", "--device-memory", "24M", "GATTACAGATTACA", f.string()});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.err, "warpmatch: note: exact search on CUDA device 0: chunks of ")) << r.err;
  EXPECT_EQ(r.err.find("note:"), r.err.rfind("note:")) << r.err;  // once
  const CliResult quiet = run({"find", "-c", "--backend", "cuda", "--device-memory", "24M", "GATTACAGATTACA", f.string()});
  EXPECT_EQ(quiet.err, "");
}

// --backend auto leaves the GPU for the CPU when it runs out of memory, with a note (--devices
// makes auto take the GPU whatever the job's size).
TEST_F(CliFaults, AutoGoesOnOnTheCpuWhenTheGpuRunsOutOfMemory) {
  SKIP_WITHOUT_GPU();
  const auto f = file("a.txt", planted(1 << 20, 12));
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"find", "GATTACAGATTACA", f.string()},
        std::vector<std::string>{"find", "-c", "GATTACAGATTACA", f.string()},
        std::vector<std::string>{"find", "-e", "GATTACA", "-e", "CCCC", f.string()},
        std::vector<std::string>{"approx", "-k", "1", "GATTACAGATTACA", f.string()}}) {
    std::vector<std::string> cpu = args, automatic = args;
    cpu.insert(cpu.begin() + 1, {"--backend", "cpu"});
    automatic.insert(automatic.begin() + 1, {"--devices", "0", "--device-memory", "4K"});
    const CliResult want = run(cpu), got = run(automatic);
    EXPECT_EQ(got.status, want.status) << args[0] << ": " << got.err;
    EXPECT_EQ(got.out, want.out) << args[0];
    EXPECT_TRUE(has(got.err, "warpmatch: note: GPU out of memory")) << got.err;
    EXPECT_TRUE(has(got.err, "--backend auto goes on on the CPU")) << got.err;
    EXPECT_EQ(got.err.find("note:"), got.err.rfind("note:")) << got.err;
  }
}

TEST_F(CliFaults, MidStreamGpuErrorPrintsTheMatchesBeforeAndSearchesTheOtherInputs) {
  SKIP_WITHOUT_GPU();
  const auto a = file("a.txt", planted(64 * 1024, 9));
  const auto b = file("b.txt", planted(64 * 1024, 10));
  const CliResult cpu = run_with_stdin_from({"find", "--backend", "cpu", "GATTACAGATTACA", a.string(), b.string()},
                                            "/dev/null");
  ASSERT_EQ(cpu.status, 0) << cpu.err;
  // 4 KiB chunks: a.txt's first two chunks are printed, its third fails once, b.txt is whole.
  const CliResult gpu = run_with_stdin_from(
      {"find", "--backend", "cuda", "GATTACAGATTACA", a.string(), b.string()}, "/dev/null",
      "WARPMATCH_FAULT_INJECT=scan-error-after-chunks:2 WARPMATCH_CUDA_CHUNK_BYTES=4096 ");
  EXPECT_EQ(gpu.status, 2) << gpu.err;
  std::string want;
  std::istringstream lines(cpu.out);
  for (std::string line; std::getline(lines, line);) {
    const bool in_a = line.rfind(a.string() + ":", 0) == 0;
    const std::uint64_t offset = in_a ? std::stoull(line.substr(a.string().size() + 1)) : 0;
    if (!in_a || offset < 2 * 4096) want += line + "\n";
  }
  EXPECT_EQ(gpu.out, want);
  EXPECT_TRUE(has(gpu.err, a.string() + ": ")) << gpu.err;
  EXPECT_TRUE(has(gpu.err, "WARPMATCH_FAULT_INJECT")) << gpu.err;
  EXPECT_FALSE(has(gpu.err, b.string())) << gpu.err;
}
