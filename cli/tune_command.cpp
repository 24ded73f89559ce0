// `warpmatch tune`: calibrates seed paper 001's execution-time model of the tiled wavefront
// on this GPU (runs the tiles kernel at every block size, fits launch / latency / step by
// least squares) and stores it in the user's cache directory, where later runs of
// `warpmatch distance --algo tiles` find it. `--show` prints the stored model only.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <random>
#include <thread>

#include "commands.hpp"
#include "core/cost_model_tuning.hpp"
#include "core/distance_tune.hpp"
#include "core/timing.hpp"
#include "printer/output.hpp"
#include "warpmatch/approx.hpp"
#include "warpmatch/common.hpp"
#include "warpmatch/distance.hpp"
#include "warpmatch/exact.hpp"
#include "warpmatch/multi.hpp"

namespace warpmatch::cli {
namespace {

struct TuneFlags {
  int device = 0;
  std::string length = "32K";
  int repeats = 3;
  bool show = false;
  bool json = false;
  bool cost_model = false;
  std::string cost_bytes = "512M";
};

// Seconds of f(): one warm-up, then the median of three runs (the benchmarks' timing loop).
template <class F>
double seconds_of(F&& f) {
  f();
  return core::median_wall_ms(3, f) / 1e3;
}

// `tune --cost-model`: measures the rates `auto` weighs on this machine (the CPU's scan rates
// per thread, CUDA's start-up and host-fed rate) and stores them where every later run's
// cost model reads them. Rates it does not measure keep their values.
int run_cost_model_calibration(const TuneFlags& flags) {
  core::CostModelPolicy p = core::CostModelPolicy::load();
  const int threads = hardware_threads();
  const std::uint64_t n = std::max<std::uint64_t>(parse_size(flags.cost_bytes), 1 << 20);
  std::mt19937_64 rng(7);
  // English-like text and patterns from the system word list when there is one (a set of
  // real words is the costly case of multi-pattern search); else random letters.
  std::vector<std::string> dict;
  {
    std::ifstream in("/usr/share/dict/words");
    for (std::string w; std::getline(in, w);)
      if (w.size() >= 4 && w.find('\'') == std::string::npos) dict.push_back(w);
  }
  std::vector<std::uint8_t> text;
  text.reserve(n + 64);
  while (text.size() < n) {
    if (dict.empty()) {
      text.push_back(static_cast<std::uint8_t>('a' + rng() % 26));
      continue;
    }
    const std::string& w = dict[rng() % dict.size()];
    text.insert(text.end(), w.begin(), w.end());
    text.push_back(' ');
  }
  text.resize(n);
  const ByteSpan all(text.data(), text.size());
  const double gb = static_cast<double>(n) / 1e9;

  ExactOptions eo;
  eo.backend = Backend::cpu;
  const ExactMatcher exact = ExactMatcher::compile(as_bytes("qxzjv"), eo);
  p.cpu_exact_gbps_per_thread = gb / seconds_of([&] { exact.count(all); }) / threads;

  std::vector<std::string> words;
  for (int i = 0; i < 1000; ++i) {
    if (!dict.empty()) {
      words.push_back(dict[rng() % dict.size()]);
      continue;
    }
    std::string w(4 + rng() % 9, 'a');
    for (char& c : w) c = static_cast<char>('a' + rng() % 26);
    words.push_back(w);
  }
  MultiOptions mo;
  mo.backend = Backend::cpu;
  const MultiMatcher multi = MultiMatcher::compile(words, mo);
  p.cpu_multi_gbps_per_thread_1000 = gb / seconds_of([&] { multi.count_per_pattern(all); }) / threads;

  const std::uint64_t dna_n = std::min<std::uint64_t>(n, 64ull << 20);
  std::vector<std::uint8_t> dna(dna_n);
  for (auto& c : dna) c = static_cast<std::uint8_t>("ACGT"[rng() % 4]);
  ApproxOptions ao;
  ao.backend = Backend::cpu;
  ao.k = 2;
  ao.report = Report::ends;
  const ApproxMatcher approx = ApproxMatcher::compile(as_bytes("ACGTTGCAACGTTGCAACGT"), ao);
  p.cpu_approx_gbps_per_thread_pattern =
      static_cast<double>(dna_n) / 1e9 / seconds_of([&] { approx.scan(ByteSpan(dna.data(), dna_n), [](const ApproxMatch&) { return true; }); }) / threads;

  // Edit distance of many short pairs (the --pairs case), cells per second per thread.
  std::vector<std::vector<std::uint8_t>> seqs(2 * 20000);
  for (auto& q : seqs) {
    q.resize(100 + rng() % 201);
    for (auto& c : q) c = static_cast<std::uint8_t>("ACGT"[rng() % 4]);
  }
  std::vector<std::pair<ByteSpan, ByteSpan>> pairs;
  double cells = 0;
  for (std::size_t i = 0; i + 1 < seqs.size(); i += 2) {
    pairs.emplace_back(ByteSpan(seqs[i]), ByteSpan(seqs[i + 1]));
    cells += static_cast<double>(seqs[i].size()) * static_cast<double>(seqs[i + 1].size());
  }
  DistanceOptions dopt;
  dopt.backend = Backend::cpu;
  p.cpu_distance_gcups_per_thread = cells / 1e9 / seconds_of([&] { edit_distance_batch(pairs, dopt); }) / threads;

  bool gpu = false;
  if (build_info().cuda_compiled) {
    // The first CUDA call of this process is its start-up: context, module load, first buffers.
    const auto t0 = std::chrono::steady_clock::now();
    if (!cuda_devices().empty()) {
      ExactOptions go;
      go.backend = Backend::cuda;
      go.device = flags.device;
      const ExactMatcher on_gpu = ExactMatcher::compile(as_bytes("qxzjv"), go);
      on_gpu.count(ByteSpan(text.data(), 1 << 20));
      p.cuda_start_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      p.cuda_host_feed_gbps = gb / seconds_of([&] { on_gpu.count(all); });
      // The pattern set's rate from host memory (its feed included), and distance's batch.
      MultiOptions gm;
      gm.backend = Backend::cuda;
      gm.device = flags.device;
      const MultiMatcher multi_gpu = MultiMatcher::compile(words, gm);
      p.cuda_multi_scan_gbps = gb / seconds_of([&] { multi_gpu.count_per_pattern(all); });
      DistanceOptions gd;
      gd.backend = Backend::cuda;
      gd.device = flags.device;
      p.cuda_distance_gcups = cells / 1e9 / seconds_of([&] { edit_distance_batch(pairs, gd); });
      gpu = true;
    }
  }
  const std::string path = core::cost_model_path();
  core::save_cost_model(p, path);
  std::printf("cost model rates on this machine (%d threads, %s of text%s), stored in %s:\n", threads,
              flags.cost_bytes.c_str(), gpu ? "" : "; no GPU: CUDA rates unchanged", path.c_str());
  p.for_each([](const char* name, double& v) { std::printf("  %-36s %10.4f\n", name, v); });
  return 0;
}

void print_model(const tune::TileModel& model, const std::string& path, bool json) {
  Output out(stdout);
  auto& buf = out.buffer();
  if (json) {
    buf.append(std::string_view(R"({"type":"tune","device":)"));
    append_json_string(buf, model.device);
    buf.append(std::string_view(R"(,"path":)"));
    append_json_string(buf, path);
    fmt::format_to(std::back_inserter(buf),
                   R"(,"calibrated":{},"launch_us":{:.4f},"latency_us":{:.4f},"step_ns":{:.4f},"measurements":[)",
                   model.calibrated, model.launch_us, model.latency_us, model.step_ns);
    for (std::size_t i = 0; i < model.measurements.size(); ++i) {
      const auto& x = model.measurements[i];
      fmt::format_to(std::back_inserter(buf),
                     R"({}{{"block_size":{},"m":{},"n":{},"ms":{:.4f},"predicted_ms":{:.4f}}})", i ? "," : "",
                     x.block_size, x.m, x.n, x.ms, model.predict_ms(x.m, x.n, x.block_size));
    }
    buf.append(std::string_view("]}\n"));
    return;
  }
  fmt::format_to(std::back_inserter(buf),
                 "tile model for {} ({}): launch {:.3f} us per tile diagonal, latency {:.3f} us per wave, "
                 "step {:.3f} ns per in-tile diagonal\nstored in {}\n",
                 model.device.empty() ? "(no device)" : model.device,
                 model.calibrated ? "calibrated" : "built-in defaults", model.launch_us, model.latency_us,
                 model.step_ns, path.empty() ? "(nowhere: no cache directory)" : path);
  if (!model.measurements.empty())
    fmt::format_to(std::back_inserter(buf), "{:>10} {:>12} {:>12} {:>12}\n", "block", "size", "measured ms",
                   "model ms");
  for (const auto& x : model.measurements)
    fmt::format_to(std::back_inserter(buf), "{:>10} {:>12} {:>12.3f} {:>12.3f}\n", x.block_size,
                   std::to_string(x.m) + "x" + std::to_string(x.n), x.ms, model.predict_ms(x.m, x.n, x.block_size));
}

int run_tune(const TuneFlags& flags) {
  if (flags.cost_model) return run_cost_model_calibration(flags);
  const auto devices = cuda_devices();
  if (flags.show) {
    const tune::TileModel model = tune::tile_model_for_device(flags.device);
    const std::string path =
        flags.device < static_cast<int>(devices.size()) ? tune::model_path(devices[flags.device].name) : "";
    print_model(model, path, flags.json);
    return 0;
  }
  if (devices.empty()) throw BackendUnavailable("warpmatch tune needs a CUDA GPU: none is visible");
  const auto length = static_cast<std::int64_t>(parse_size(flags.length));
  if (length < 1024) throw InvalidArgument("--length must be at least 1K to time the tiles kernel");
  const tune::TileModel model = tune::calibrate_tile_model(flags.device, length, flags.repeats);
  const std::string path = tune::model_path(model.device);
  tune::save_tile_model(model, path);
  print_model(model, path, flags.json);
  return 0;
}

CommandRunner add_tune_command(CLI::App& app) {
  auto flags = std::make_shared<TuneFlags>();
  CLI::App* cmd = app.add_subcommand(
      "tune", "Calibrate the edit-distance tile model on this GPU and store it (used by --algo tiles)");
  cmd->set_help_flag("--help", "Print this help and exit");
  cmd->add_option("--device", flags->device, "CUDA device ordinal")->check(integer_in(0));
  cmd->add_option("--length", flags->length, "Length of the random calibration pair (e.g. 32K)");
  cmd->add_option("--repeats", flags->repeats, "Timed repeats per block size (median)")->check(integer_in(1));
  cmd->add_flag("--show", flags->show, "Print the stored model (or the defaults) without measuring");
  cmd->add_flag("--json", flags->json, "One JSON object");
  cmd->add_flag("--cost-model", flags->cost_model,
                "Measure the rates --backend auto weighs (CPU scans per thread, CUDA start-up and "
                "host-fed rate) and store them for every later run");
  cmd->add_option("--cost-bytes", flags->cost_bytes, "Text generated for --cost-model (default 512M)");
  cmd->footer("The model is stored in $XDG_CACHE_HOME/warpmatch (default ~/.cache/warpmatch), one file per GPU name;\n"
              "--cost-model writes cost_model.txt there (WARPMATCH_COST_<NAME> overrides a rate per run).");
  return [flags] { return run_tune(*flags); };
}

}  // namespace

const CommandRegistration tune_registration("tune", 85, add_tune_command);

}  // namespace warpmatch::cli
