// Seed paper 001's execution-time model for the tiled wavefront: prediction, least-squares
// calibration and the per-device JSON store (see distance_tune.hpp for the model).
#include "core/distance_tune.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>
#include <nlohmann/json.hpp>

#include "warpmatch/common.hpp"

namespace warpmatch::tune {

namespace {

constexpr int kTerms = 4;  // launch, latency, step, issue

struct ModelTerms {  // T = diagonals * launch + waves * latency + wave_steps * step + warp_steps * issue
  double diagonals = 0, waves = 0, wave_steps = 0, warp_steps = 0;
  std::array<double, kTerms> row() const { return {diagonals, waves, wave_steps * 1e-3, warp_steps * 1e-3}; }
};

/// sum over t = 1..T of ceil(t / k).
double sum_ceil(std::int64_t T, std::int64_t k) {
  if (T <= 0) return 0;
  const std::int64_t q = T / k, r = T % k;
  return static_cast<double>(k) * static_cast<double>(q) * static_cast<double>(q + 1) / 2 +
         static_cast<double>(r) * static_cast<double>(q + 1);
}

ModelTerms terms(const TileModel& model, std::int64_t m, std::int64_t n, int b) {
  const std::int64_t rows = (m + b - 1) / b, cols = (n + b - 1) / b;
  const std::int64_t sms = std::max(1, model.multiprocessors);
  const std::int64_t per_sm =
      std::max(1, std::min(model.max_blocks_per_sm, model.max_threads_per_sm / b));
  const std::int64_t concurrent = per_sm * sms;
  const std::int64_t warps_per_tile = (b + 31) / 32;
  const double steps = 2.0 * b - 1.0;
  // Tiles on diagonal d: min(d + 1, lo, D - d): 1, 2, .., lo - 1 on each side of a plateau of
  // D - 2 (lo - 1) diagonals with lo tiles each.
  const std::int64_t lo = std::min(rows, cols), diagonals = rows + cols - 1;
  const std::int64_t plateau = diagonals - 2 * (lo - 1);
  auto total = [&](std::int64_t k) {  // sum over diagonals of ceil(tiles / k)
    return 2 * sum_ceil(lo - 1, k) + static_cast<double>(plateau) * static_cast<double>((lo + k - 1) / k);
  };
  ModelTerms t;
  t.diagonals = static_cast<double>(diagonals);
  t.waves = total(concurrent);
  t.wave_steps = t.waves * steps;
  t.warp_steps = total(sms) * static_cast<double>(warps_per_tile) * steps;
  return t;
}

/// Solves the normal equations restricted to the columns in `mask` (Gaussian elimination with
/// partial pivoting on column-scaled data); false when singular.
bool solve_subset(const std::vector<std::array<double, kTerms>>& rows, const std::vector<double>& y,
                  unsigned mask, std::array<double, kTerms>& out) {
  std::vector<int> cols;
  for (int i = 0; i < kTerms; ++i)
    if (mask & (1u << i)) cols.push_back(i);
  const int k = static_cast<int>(cols.size());
  std::array<double, kTerms> scale{};
  for (int c = 0; c < k; ++c) {
    double s = 0;
    for (const auto& r : rows) s += r[cols[c]] * r[cols[c]];
    if (s <= 0) return false;
    scale[c] = 1 / std::sqrt(s);
  }
  std::array<std::array<double, kTerms>, kTerms> a{};
  std::array<double, kTerms> v{};
  for (std::size_t x = 0; x < rows.size(); ++x)
    for (int i = 0; i < k; ++i) {
      for (int j = 0; j < k; ++j) a[i][j] += rows[x][cols[i]] * scale[i] * rows[x][cols[j]] * scale[j];
      v[i] += rows[x][cols[i]] * scale[i] * y[x];
    }
  for (int c = 0; c < k; ++c) {
    int pivot = c;
    for (int r = c + 1; r < k; ++r)
      if (std::abs(a[r][c]) > std::abs(a[pivot][c])) pivot = r;
    std::swap(a[c], a[pivot]);
    std::swap(v[c], v[pivot]);
    if (std::abs(a[c][c]) < 1e-9) return false;  // columns (nearly) collinear
    for (int r = c + 1; r < k; ++r) {
      const double f = a[r][c] / a[c][c];
      for (int j = c; j < k; ++j) a[r][j] -= f * a[c][j];
      v[r] -= f * v[c];
    }
  }
  std::array<double, kTerms> p{};
  for (int c = k - 1; c >= 0; --c) {
    double s = v[c];
    for (int j = c + 1; j < k; ++j) s -= a[c][j] * p[j];
    p[c] = s / a[c][c];
  }
  out = {};
  for (int c = 0; c < k; ++c) out[cols[c]] = p[c] * scale[c];
  return true;
}

TileModel with_defaults(const TileModel& base, const std::vector<TileMeasurement>& measurements,
                        const std::string& why) {
  TileModel model = base;
  model.launch_us = TileModel::kDefaultLaunchUs;
  model.latency_us = TileModel::kDefaultLatencyUs;
  model.step_ns = TileModel::kDefaultStepNs;
  model.issue_ns = TileModel::kDefaultIssueNs;
  model.calibrated = false;
  model.note = "built-in defaults: " + why;
  model.measurements = measurements;
  return model;
}

}  // namespace

std::vector<int> tile_block_sizes() { return {32, 64, 96, 128, 192, 256, 384, 512, 768, 1024}; }

std::vector<int> calibration_block_sizes() { return {64, 128, 256, 512, 1024}; }

std::vector<std::int64_t> calibration_lengths(std::int64_t length) {
  // At least 4K and 16K: below that every block size runs a handful of launch-bound diagonals
  // and the per-warp term drowns in timing noise.
  return {std::max<std::int64_t>(4096, length / 4), std::max<std::int64_t>(16384, length)};
}

double TileModel::predict_ms(std::int64_t m, std::int64_t n, int block_size) const {
  if (m <= 0 || n <= 0) return 0;
  const ModelTerms t = terms(*this, m, n, block_size);
  return (t.diagonals * launch_us + t.waves * latency_us + t.wave_steps * step_ns * 1e-3 +
          t.warp_steps * issue_ns * 1e-3) *
         1e-3;
}

int TileModel::choose_block_size(std::int64_t m, std::int64_t n) const {
  int best = 0;
  double best_ms = std::numeric_limits<double>::infinity();
  for (const int b : tile_block_sizes()) {
    const double ms = predict_ms(m, n, b);
    if (ms < best_ms) {
      best_ms = ms;
      best = b;
    }
  }
  return best;
}

TileModel fit_tile_model(const TileModel& base, const std::vector<TileMeasurement>& measurements) {
  std::vector<std::array<double, kTerms>> rows;
  std::vector<double> y;  // microseconds
  std::vector<int> sizes;
  bool multi_wave = false;
  for (const auto& x : measurements) {
    if (x.m <= 0 || x.n <= 0 || !(x.ms > 0) || !std::isfinite(x.ms) || x.block_size < 32 || x.block_size > 1024)
      continue;
    const ModelTerms t = terms(base, x.m, x.n, x.block_size);
    rows.push_back(t.row());
    y.push_back(x.ms * 1e3);
    if (t.waves > t.diagonals + 0.5) multi_wave = true;
    if (std::find(sizes.begin(), sizes.end(), x.block_size) == sizes.end()) sizes.push_back(x.block_size);
  }
  if (sizes.size() < 3)
    return with_defaults(base, measurements,
                         "the fit needs measurements at 3 block sizes at least (got " + std::to_string(sizes.size()) + ")");
  // Exact non-negative least squares for 4 unknowns: the optimum is the unconstrained
  // least-squares solution on its support, so try every support and keep the best feasible one.
  double best_residual = std::numeric_limits<double>::infinity();
  std::array<double, kTerms> best{};
  for (unsigned mask = 1; mask < (1u << kTerms); ++mask) {
    std::array<double, kTerms> p{};
    if (!solve_subset(rows, y, mask, p)) continue;
    if (*std::min_element(p.begin(), p.end()) < 0) continue;
    double r = 0;
    for (std::size_t x = 0; x < rows.size(); ++x) {
      double e = -y[x];
      for (int i = 0; i < kTerms; ++i) e += rows[x][i] * p[i];
      r += e * e;
    }
    if (r < best_residual) {
      best_residual = r;
      best = p;
    }
  }
  if (!std::isfinite(best_residual)) return with_defaults(base, measurements, "no non-negative fit exists");
  if (!multi_wave) {
    // waves == diagonals in every measurement: only launch + latency is determined.
    const double sum = best[0] + best[1];
    const double share = TileModel::kDefaultLaunchUs / (TileModel::kDefaultLaunchUs + TileModel::kDefaultLatencyUs);
    best[0] = sum * share;
    best[1] = sum - best[0];
  }
  double y2 = 0;
  for (const double v : y) y2 += v * v;
  const double relative_rms = std::sqrt(best_residual / y2);
  if (best[0] + best[1] <= 0)
    return with_defaults(base, measurements, "the fit found no cost per tile diagonal (launch, latency)");
  if (best[3] <= 0)
    return with_defaults(base, measurements,
                         "the fit found no cost per active warp (measure small and large block sizes)");
  if (relative_rms > 0.25)
    return with_defaults(base, measurements,
                         "the fit's relative residual " + std::to_string(relative_rms) + " is above 0.25");
  TileModel model = base;
  model.launch_us = best[0];
  model.latency_us = best[1];
  model.step_ns = best[2];
  model.issue_ns = best[3];
  model.calibrated = true;
  char buf[160];
  std::snprintf(buf, sizeof buf, "non-negative least squares on %zu measurements, relative rms residual %.4f%s",
                rows.size(), relative_rms, multi_wave ? "" : "; launch/latency split in the defaults' ratio");
  model.note = buf;
  model.measurements = measurements;
  return model;
}

std::string cache_directory() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/warpmatch";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/warpmatch";
  return "";
}

std::string model_path(const std::string& device_name) {
  std::string safe;
  for (const char c : device_name)
    safe += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.') ? c : '_';
  const std::string dir = cache_directory();
  if (dir.empty()) return "";
  return dir + "/distance_tiles_" + (safe.empty() ? "device" : safe) + ".json";
}

void save_tile_model(const TileModel& model, const std::string& path) {
  if (path.empty()) throw Error("cannot store the tile model: neither XDG_CACHE_HOME nor HOME is set");
  nlohmann::json j;
  j["type"] = "distance_tile_model";
  j["version"] = kTileModelFileVersion;
  j["device"] = model.device;
  j["multiprocessors"] = model.multiprocessors;
  j["max_threads_per_sm"] = model.max_threads_per_sm;
  j["max_blocks_per_sm"] = model.max_blocks_per_sm;
  j["launch_us"] = model.launch_us;
  j["latency_us"] = model.latency_us;
  j["step_ns"] = model.step_ns;
  j["issue_ns"] = model.issue_ns;
  j["calibrated"] = model.calibrated;
  j["note"] = model.note;
  j["measurements"] = nlohmann::json::array();
  for (const auto& x : model.measurements)
    j["measurements"].push_back({{"block_size", x.block_size}, {"m", x.m}, {"n", x.n}, {"ms", x.ms}});
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  std::ofstream f(path);
  if (!f) throw Error(path + ": cannot write the tile model");
  f << j.dump(2) << "\n";
  if (!f) throw Error(path + ": write failed");
}

std::optional<TileModel> load_tile_model(const std::string& path) {
  if (path.empty()) return std::nullopt;
  std::ifstream f(path);
  if (!f) return std::nullopt;
  try {
    const nlohmann::json j = nlohmann::json::parse(f);
    // Another version (an older model without the per-warp term) is stale: ignored, and
    // overwritten by the next `warpmatch tune`.
    if (!j.contains("version") || j.at("version").get<int>() != kTileModelFileVersion) return std::nullopt;
    TileModel model;
    model.device = j.at("device").get<std::string>();
    model.multiprocessors = j.at("multiprocessors").get<int>();
    model.max_threads_per_sm = j.at("max_threads_per_sm").get<int>();
    model.max_blocks_per_sm = j.at("max_blocks_per_sm").get<int>();
    model.launch_us = j.at("launch_us").get<double>();
    model.latency_us = j.at("latency_us").get<double>();
    model.step_ns = j.at("step_ns").get<double>();
    model.issue_ns = j.at("issue_ns").get<double>();
    model.note = j.value("note", std::string());
    for (const auto& x : j.at("measurements"))
      model.measurements.push_back({x.at("block_size").get<int>(), x.at("m").get<std::int64_t>(),
                                    x.at("n").get<std::int64_t>(), x.at("ms").get<double>()});
    model.calibrated = j.at("calibrated").get<bool>();
    return model;
  } catch (const std::exception&) {
    return std::nullopt;  // a corrupt cache file is ignored (and overwritten by the next tune)
  }
}

}  // namespace warpmatch::tune
