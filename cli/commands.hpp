// The subcommands of `warpmatch`. Each command lives in its own cli/<name>_command.cpp and
// registers itself with a static CommandRegistration, so adding an operation touches no
// shared file. A registration adds the command's flags to the app and returns the function
// that runs it and yields the exit status (0 match, 1 none, 2 error).
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <limits>

#include <CLI/CLI.hpp>

#include "core/size_text.hpp"
#include "warpmatch/common.hpp"

namespace warpmatch::cli {

using CommandRunner = std::function<int()>;
/// Adds a subcommand to `parent` (the app) and returns its runner.
using CommandSetup = std::function<CommandRunner(CLI::App& parent)>;

/// A CLI11 check for a whole number in [min, max], before conversion, so the message names
/// the option and says what is wrong in a few words: "--threads: must be >= 0 (got -1)",
/// "-k: not a number: 'abc'", "-k: a number is required (got an empty value)",
/// "-k: 99999999999999999999 is too large (at most 9223372036854775807)".
inline CLI::Validator integer_in(long long min, long long max = std::numeric_limits<long long>::max()) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        if (text.empty()) return "a number is required (got an empty value)";
        errno = 0;
        char* end = nullptr;
        const long long value = std::strtoll(text.c_str(), &end, 10);
        if (end == text.c_str() || *end != '\0') return "not a number: '" + text + "'";
        if (errno == ERANGE || value > max)
          return text + " is too large (at most " + std::to_string(max) + ")";
        if (value < min) return "must be >= " + std::to_string(min) + " (got " + text + ")";
        return {};
      },
      "INT");
}

/// The most CPU threads an option accepts (0 = all cores; more threads than this is a typo).
constexpr int kMaxThreads = 4096;

/// --device N: a whole number >= 0 naming a GPU this process sees (checked only when the
/// option is given: "--device: no CUDA device 99 (0 visible)").
CLI::Validator device_check();

/// --device-memory SIZE: a size of at least one byte ("512M"; "--device-memory: must be at
/// least 1 byte (got '0')").
CLI::Validator device_memory_check();

/// --backend, -j/--threads, --device and --device-memory: the same on every operation's command.
/// `device_memory`: "" unless given (apply_device_memory).
inline void add_backend_options(CLI::App* cmd, std::string& backend, int& threads, int& device,
                                std::string& device_memory) {
  cmd->add_option("--backend", backend, "cpu, cuda or auto (the GPU when present)")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}));
  cmd->add_option("-j,--threads", threads, "CPU threads (0 = all cores; at most 4096)")
      ->check(integer_in(0, kMaxThreads));
  cmd->add_option("--device", device, "CUDA device ordinal (a GPU that `warpmatch info` lists)")
      ->check(device_check());
  cmd->add_option("--device-memory", device_memory,
                  "Most GPU memory warpmatch may take (e.g. 512M, 2G; default: the GPU's, or "
                  "WARPMATCH_DEVICE_MEMORY_LIMIT); streaming searches use smaller chunks to fit it")
      ->check(device_memory_check());
}

/// --devices all|LIST: one command over several GPUs (Execution::devices). The check accepts
/// "all" or whole numbers >= 0 separated by commas ("0,1,3"; an ordinal may repeat: workers
/// sharing a GPU); whether each GPU exists is the library's check (exit 2 naming it).
CLI::Validator device_list_check();
/// The list an option value names: "" = none (the one --device), "all" = every GPU the runtime
/// lists (an error when it lists none).
std::vector<int> parse_device_list(const std::string& text);

inline void add_devices_option(CLI::App* cmd, std::string& devices) {
  cmd->add_option("--devices", devices,
                  "Split the work over several GPUs: 'all' or ordinals such as 0,1,3 (output as "
                  "with one GPU; implies the cuda backend, an error with --backend cpu)")
      ->check(device_list_check());
}

/// Applies --devices to an operation's options: the list, and under --backend auto the cuda
/// backend (a list names GPUs, whatever a small job's estimate would pick).
template <class Options>
void apply_device_list(const std::string& devices, const std::string& backend_flag, Options& options) {
  options.devices = parse_device_list(devices);
  if (!options.devices.empty() && backend_flag == "auto") options.backend = Backend::cuda;
}

/// The options on the CPU backend (and no GPU list): where --backend auto goes when the GPU
/// runs out of memory.
template <class Options>
Options on_cpu(Options options) {
  options.backend = Backend::cpu;
  options.devices.clear();
  return options;
}

/// Applies --device-memory to an operation's options (Execution::device_memory_limit; no
/// flag: 0, the environment's cap or none).
template <class Options>
void apply_device_memory(const std::string& device_memory, Options& options) {
  options.device_memory_limit = device_memory.empty() ? 0 : core::parse_size(device_memory);
}

/// Applies what add_backend_options and add_devices_option parsed (-j, --device,
/// --device-memory, --devices) to an operation's options; the backend itself each command
/// resolves (its cost model decides `auto`).
template <class Flags, class Options>
void apply_execution_flags(const Flags& flags, Options& options) {
  options.threads = flags.threads;
  options.device = flags.device;
  apply_device_memory(flags.device_memory, options);
  apply_device_list(flags.devices, flags.backend, options);
}

struct CommandEntry {
  std::string name;
  int order;  // position in --help
  CommandSetup setup;
};

/// Top-level commands (`find`, `info`, ...).
std::vector<CommandEntry>& command_registry();

struct CommandRegistration {
  CommandRegistration(std::string name, int order, CommandSetup setup) {
    command_registry().push_back({std::move(name), order, std::move(setup)});
  }
};

/// Parses sizes like "4096", "64K", "256M", "1G" (binary multiples; src/core/size_text.cpp,
/// shared with warpmatch-bench and the library's WARPMATCH_DEVICE_MEMORY_LIMIT).
using core::parse_size;

/// A CLI11 check for a size option (--window): the parse error names the option, before any
/// input is opened.
inline CLI::Validator size_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        try {
          parse_size(text);
          return {};
        } catch (const std::exception& e) {
          return e.what();
        }
      },
      "SIZE");
}

/// --window's bytes; unset (""): 64 MiB on the CPU, 256 MiB on the GPU. A window's buffers are
/// fresh memory the first time round, zeroed by the kernel page by page on first touch: the
/// 1 GiB FASTA of `bench e2e` took 0.16-0.18 s with 256 MiB windows (three of them) and
/// 0.08 s with 64 MiB ones on the 16-core GPU host, 603 -> 210 MB peak; the GPU keeps larger
/// windows (each is one host-fed scan with its own set-up).
inline std::uint64_t window_bytes_for(const std::string& flag, Backend backend) {
  if (!flag.empty()) return std::max<std::uint64_t>(parse_size(flag), 1);
  return backend == Backend::cuda ? std::uint64_t{256} << 20 : std::uint64_t{64} << 20;
}

}  // namespace warpmatch::cli
