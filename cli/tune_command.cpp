// `warpmatch tune`: calibrates seed paper 001's execution-time model of the tiled wavefront
// on this GPU (runs the tiles kernel at every block size, fits launch / latency / step by
// least squares) and stores it in the user's cache directory, where later runs of
// `warpmatch distance --algo tiles` find it. `--show` prints the stored model only.
#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "core/distance_tune.hpp"
#include "output.hpp"
#include "warpmatch/common.hpp"

namespace warpmatch::cli {
namespace {

struct TuneFlags {
  int device = 0;
  std::string length = "32K";
  int repeats = 3;
  bool show = false;
  bool json = false;
};

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
  cmd->add_option("--device", flags->device, "CUDA device ordinal")->check(CLI::NonNegativeNumber);
  cmd->add_option("--length", flags->length, "Length of the random calibration pair (e.g. 32K)");
  cmd->add_option("--repeats", flags->repeats, "Timed repeats per block size (median)")->check(CLI::PositiveNumber);
  cmd->add_flag("--show", flags->show, "Print the stored model (or the defaults) without measuring");
  cmd->add_flag("--json", flags->json, "One JSON object");
  cmd->footer("The model is stored in $XDG_CACHE_HOME/warpmatch (default ~/.cache/warpmatch), one file per GPU name.");
  return [flags] { return run_tune(*flags); };
}

}  // namespace

const CommandRegistration tune_registration("tune", 85, add_tune_command);

}  // namespace warpmatch::cli
