// The execution-time model of seed paper 001 for the tiled wavefront (`--algo tiles`), its
// calibration data, and its per-device store in the user's cache directory.
//
// A table of m x n cells in tiles of B x B runs as D = ceil(m/B) + ceil(n/B) - 1 tile
// anti-diagonals, one launch each. Diagonal d holds t_d tiles. The GPU keeps
// C(B) = SMs x (resident blocks of B threads per SM) tiles resident, so the diagonal runs in
// ceil(t_d / C) waves; each wave pays the device-memory latency of its tiles' borders (not
// hidden: a tile waits for its inputs) and 2B - 1 synchronised in-tile anti-diagonal steps.
// A step costs a fixed latency (shared memory, barrier) that the active threads hide only
// while they are few: every active warp on an SM must issue its instructions in each step, so
// a step on an SM holding ceil(t_d / SMs) tiles of ceil(B / 32) warps also costs
// issue x (warps on that SM). That last term is what makes big tiles slow: few tiles per
// diagonal leave most SMs idle while each busy SM serialises B / 32 warps per step.
//     T(B) = sum over diagonals d of [ launch + waves_d * (latency + (2B - 1) * step)
//                                      + (2B - 1) * ceil(t_d / SMs) * ceil(B / 32) * issue ]
// launch, latency, step and issue are fitted by non-negative least squares to kernel times
// measured at two lengths and five block sizes (`warpmatch tune`); the block size minimising
// T(B) for the actual lengths is chosen. A fit that cannot resolve the terms falls back to
// the built-in defaults (fitted to an H200 sweep, see TileModel).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace warpmatch::tune {

struct TileMeasurement {
  int block_size = 0;
  std::int64_t m = 0, n = 0;
  double ms = 0;
};

struct TileModel {
  std::string device;         // the GPU's name the model was measured on
  int multiprocessors = 132;
  int max_threads_per_sm = 2048;
  int max_blocks_per_sm = 32;
  // Built-in defaults: the fit of this model to an exhaustive sweep on an NVIDIA H200
  // (132 SMs; random 10K and 100K pairs, every block size): best B = 192..256 there.
  static constexpr double kDefaultLaunchUs = 3.5;
  static constexpr double kDefaultLatencyUs = 0.9;
  static constexpr double kDefaultStepNs = 50.0;
  static constexpr double kDefaultIssueNs = 2.0;
  double launch_us = kDefaultLaunchUs;    // per tile anti-diagonal (one launch)
  double latency_us = kDefaultLatencyUs;  // per wave: border loads/stores from device memory
  double step_ns = kDefaultStepNs;        // per wave per synchronised in-tile step (latency)
  double issue_ns = kDefaultIssueNs;      // per in-tile step per active warp on one SM
  bool calibrated = false;    // false: the built-in defaults above (never fitted, or fit rejected)
  std::string note;           // how the coefficients were obtained (fit residual, or why defaults)
  std::vector<TileMeasurement> measurements;  // what the fit used

  /// Predicted milliseconds for an m x n table in tiles of side b.
  double predict_ms(std::int64_t m, std::int64_t n, int block_size) const;
  /// The candidate block size with the smallest predicted time.
  int choose_block_size(std::int64_t m, std::int64_t n) const;
};

/// Block sizes the tiles kernel accepts (multiples of 32 from 32 to 1024 threads).
std::vector<int> tile_block_sizes();

/// Block sizes `warpmatch tune` measures (spread from small to large tiles so that the
/// per-launch and the per-warp terms separate).
std::vector<int> calibration_block_sizes();
/// Lengths `warpmatch tune` measures for a requested length L: max(4K, L / 4) and max(16K, L).
std::vector<std::int64_t> calibration_lengths(std::int64_t length);

/// Non-negative least-squares fit of launch, latency, step and issue to measurements; keeps
/// the device fields of `base`. Never throws: when the fit is degenerate (fewer than 3
/// distinct block sizes, no cost per launch or per active warp resolved, or a residual above
/// 25 %) the result carries the built-in default coefficients with calibrated = false and a
/// note saying why. When every measurement runs each diagonal in one wave, launch and latency
/// cannot be told apart; their fitted sum is split in the defaults' proportion.
TileModel fit_tile_model(const TileModel& base, const std::vector<TileMeasurement>& measurements);

/// $XDG_CACHE_HOME/warpmatch (or ~/.cache/warpmatch); "" when neither is set.
std::string cache_directory();
/// The model's file for a device: <cache>/distance_tiles_<device name sanitised>.json.
std::string model_path(const std::string& device_name);
/// Writes the model as JSON (creating the directory); throws warpmatch::Error on failure.
void save_tile_model(const TileModel& model, const std::string& path);
/// Reads a model written by save_tile_model; nullopt when absent or unreadable.
std::optional<TileModel> load_tile_model(const std::string& path);

/// Version of the stored JSON; files of another version (older models) are ignored.
inline constexpr int kTileModelFileVersion = 2;

/// `warpmatch tune`: runs the tiles kernel on random ACGT pairs of calibration_lengths(length)
/// at calibration_block_sizes() (median of `repeats`), fits the model, returns it (not stored). Throws
/// BackendUnavailable without a GPU.
TileModel calibrate_tile_model(int device, std::int64_t length, int repeats);
/// The model for a device: the stored one when present, else the defaults with the device's
/// multiprocessor count (calibrated = false).
TileModel tile_model_for_device(int device);

}  // namespace warpmatch::tune
